"""Checkers of chapters 04-06: right answers pass, typical wrong ones get the expected feedback."""

from __future__ import annotations

import random

import pytest

from bpe_course import corpus
from bpe_course.exercises import ch04, ch05, ch06
from bpe_course.algorithms.wordbpe import WordBPE

# ---------------------------------------------------------------- chapter 04


def test_segmentation():
    assert ch04.check_segmentation(["s", "low", "est</w>"]).ok
    assert "✅" in ch04.check_segmentation(["s", "low", "est</w>"]).message
    cases = {
        ("s", "low", "est"): "</w>",
        ("s", "low", "st</w>"): "spell 'slowst'",
        ("slow", "est</w>"): "not a token",
        ("s", "l", "ow", "est</w>"): "BPE ends with fewer",
    }
    for answer, expected in cases.items():
        feedback = ch04.check_segmentation(list(answer))
        assert not feedback.ok and expected in feedback.message and "Hint:" in feedback.message
    assert "list of strings" in ch04.check_segmentation("s low est").message


def _encode_word(word, merges):
    return ch04.encode_in_order(word, merges)


def test_encode_text_accepts_a_right_answer():
    def encode_text(text, merges):
        cache, out = {}, []
        for word in text.split():
            cache.setdefault(word, _encode_word(word, merges))
            out.extend(cache[word])
        return out

    assert ch04.check_encode_text(encode_text).ok


@pytest.mark.parametrize("attempt, expected", [
    (lambda text, merges: _encode_word(text, merges), "contains whitespace"),
    (lambda text, merges: [_encode_word(w, merges) for w in text.split()], "one list per word"),
    (lambda text, merges: [s for w in text.split(" ") for s in _encode_word(w, merges)], "not one '</w>' per word"),
    (lambda text, merges: [s for w in text.split() for s in _encode_word(w, merges[:3])], "expected"),
    (lambda text, merges: text.split()[5], "raised IndexError"),
])
def test_encode_text_rejects_wrong_answers(attempt, expected):
    feedback = ch04.check_encode_text(attempt)
    assert not feedback.ok and expected in feedback.message and "Hint:" in feedback.message


def test_encode_text_needs_a_function():
    assert "Pass your function" in ch04.check_encode_text(3).message


def test_order_matters():
    assert ch04.check_order_matters([("ab", "c"), ("a", "b")], "abc").ok
    feedback = ch04.check_order_matters([("a", "b"), ("ab", "c")], "abc")
    assert not feedback.ok and "Both encoders give ['abc', '</w>']" in feedback.message
    assert "point 1" in feedback.hint and "BEFORE" not in feedback.hint  # points, does not give the answer
    assert "non-empty word" in ch04.check_order_matters([("a", "b")], "a b").message
    assert "pairs" in ch04.check_order_matters([("a", "b", "c")], "abc").message


def test_checker_encoders_agree_with_the_package_on_learned_merges():
    train, _ = corpus.train_heldout("python_docs")
    bpe = WordBPE.train(train[:20_000], vocab_size=250)
    rng = random.Random(0)
    for _ in range(200):
        word = "".join(rng.choice(bpe.alphabet) for _ in range(rng.randint(1, 10)))
        assert ch04.encode_in_order(word, bpe.merges) == ch04.encode_by_rank(word, bpe.merges) == bpe.tokenize_word(word)


# ---------------------------------------------------------------- chapter 05


def test_pad_batch():
    assert ch05.check_pad_batch(ch05.reference_pad_batch).ok

    def mutating(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        for ids in batch:
            ids.extend([pad_id] * (longest - len(ids)))
        return batch

    def left(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        return [[pad_id] * (longest - len(ids)) + ids for ids in batch]

    def zero_pad(batch, pad_id):
        longest = max((len(ids) for ids in batch), default=0)
        return [ids + [0] * (longest - len(ids)) for ids in batch]

    def no_default(batch, pad_id):
        longest = max(len(ids) for ids in batch)
        return [ids + [pad_id] * (longest - len(ids)) for ids in batch]

    cases = [(lambda b, p: b, "different lengths"), (mutating, "changed the batch"), (left, "on the left"),
             (zero_pad, "pad_id (99 here"), (no_default, "default=0")]
    for attempt, expected in cases:
        feedback = ch05.check_pad_batch(attempt)
        assert not feedback.ok and expected in feedback.message, feedback.message


def test_safe_prompt(gpt2_tok):
    eot = ch05.EOT

    def safe(system, user):
        return gpt2_tok.encode_ordinary(system) + [gpt2_tok.special_tokens[eot]] + gpt2_tok.encode_ordinary(user)

    assert ch05.check_safe_prompt(safe).ok
    careless = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode(s + eot + u, allowed_special="all"))
    assert not careless.ok and "injected" in careless.message
    default = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode(s + eot + u))
    assert not default.ok and "refuses special-token text" in default.message
    assert "encode_ordinary" not in default.message  # points at section 3, does not name the answer
    missing = ch05.check_safe_prompt(lambda s, u: gpt2_tok.encode_ordinary(s + u))
    assert not missing.ok and "no <|endoftext|> id" in missing.message


# ---------------------------------------------------------------- chapter 06


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
