"""Chapter 6's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

import pytest

from bpe_course import corpus
from bpe_course.algorithms.wordbpe import WordBPE
from bpe_course.exercises import ch06


@pytest.fixture(scope="module")
def texts() -> tuple[str, str]:
    train, heldout = corpus.train_heldout("python_docs")
    return train[:20_000], heldout[:20_000]


def learner_answers(train: str, heldout: str, vocab_size_of) -> dict[int, float]:
    """Train separately for each n (no truncation), as a learner would."""
    out = {}
    for n in (10, 30, 100):
        bpe = WordBPE.train(train, vocab_size=vocab_size_of(n))
        out[n] = len(bpe.tokenize(heldout)) / len(heldout.split())
    return out


def test_tokens_per_word(texts):
    train, heldout = texts
    base = 5 + len(set("".join(train.split())))
    right = learner_answers(train, heldout, lambda n: base + n)
    assert ch06.check_tokens_per_word(right, train, heldout).ok
    assert ch06.check_tokens_per_word({n: round(v, 2) for n, v in right.items()}, train, heldout).ok

    vocab_mistake = right | {100: learner_answers(train, heldout, lambda n: max(n, base))[100]}
    assert "vocab_size=100" in ch06.check_tokens_per_word(vocab_mistake, train, heldout).message
    on_train = right | {30: learner_answers(train, train, lambda n: base + n)[30]}
    assert "training text" in ch06.check_tokens_per_word(on_train, train, heldout).message
    inverse = {n: 1 / v for n, v in right.items()}
    assert "words per token" in ch06.check_tokens_per_word(inverse, train, heldout).message
    assert "No answer for 30" in ch06.check_tokens_per_word({10: 1.0}, train, heldout).message
    off = ch06.check_tokens_per_word({10: 0.0, 30: 0.0, 100: 0.0}, train, heldout)
    assert "is off" in off.message and "len(bpe.merges)" in off.hint
    for feedback in (off, ch06.check_tokens_per_word(vocab_mistake, train, heldout)):
        assert str(base) not in feedback.hint  # the hints point to a check; they do not give the vocab_size


def test_embedding_params(cl100k_tok):
    vocab = cl100k_tok.vocab
    assert max(vocab) + 1 == 100277 > len(vocab)  # cl100k's ids have gaps: the case the exercise is about
    right = ch06.check_embedding_params(lambda v, d: (max(v) + 1) * d, vocab, 4096)
    assert right.ok and "100,277 rows" in right.message
    assert "counts the tokens" in ch06.check_embedding_params(lambda v, d: len(v) * d, vocab, 4096).message
    assert "one row short" in ch06.check_embedding_params(lambda v, d: max(v) * d, vocab, 4096).message
    assert "added" in ch06.check_embedding_params(lambda v, d: max(v) + 1 + d, vocab, 4096).message
    assert "twice" in ch06.check_embedding_params(lambda v, d: 2 * (max(v) + 1) * d, vocab, 4096).message
    assert not ch06.check_embedding_params(lambda v, d: 123, vocab, 4096).ok
    # right on the small vocabularies but not on the one passed in: still not right
    assert not ch06.check_embedding_params(lambda v, d: (max(v) + 1) * d if len(v) < 10 else 0, vocab, 4096).ok
    for feedback in (ch06.check_embedding_params(lambda v, d: len(v) * d, vocab, 4096),
                     ch06.check_embedding_params(lambda v, d: 123, vocab, 4096)):
        assert "max(" not in feedback.message  # the hint points; it does not give the formula
