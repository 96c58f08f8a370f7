"""The merge stepper (chapter 04), driven from Python and checked against the package's encoders."""

from __future__ import annotations

import random

import pytest

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.viz import chips_html
from bpe_course.widgets.encoding import MergeStepper, apply_lowest_merge, merge_states
from bpe_course.algorithms.wordbpe import EOW, UNK, WordBPE

TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3


@pytest.fixture(scope="module")
def toy() -> WordBPE:
    return WordBPE.train(TOY, vocab_size=1000)


@pytest.fixture(scope="module")
def docs_bpe() -> WordBPE:
    train, _ = corpus.train_heldout("python_docs")
    return WordBPE.train(train[:30_000], vocab_size=300)


@pytest.fixture(scope="module")
def byte_tok() -> Tokenizer:
    train, _ = corpus.train_heldout("python_docs")
    return Tokenizer(*train_bpe(train[:50_000], 256 + 400))


def assert_states_follow_merges(bpe: WordBPE, text: str) -> None:
    """Each state is the encoding with the merges up to and including its rank, in rank order."""
    states = merge_states(bpe, text)
    assert list(states[0].tokens) == [s for w in text.split() for s in [*(c if c in bpe.token_to_id else UNK for c in w), EOW]]
    ranks = [s.rank for s in states[1:]]
    assert ranks == sorted(set(ranks))  # strictly increasing: merges are applied in learned order
    for state in states[1:]:
        assert state.pair == bpe.merges[state.rank]
        assert list(state.tokens) == bpe.truncated(state.rank + 1).tokenize(text)
    assert list(states[-1].tokens) == bpe.tokenize(text)


def test_toy_states_are_the_merges_in_order(toy):
    states = merge_states(toy, "lowest")
    assert [s.pair for s in states[1:]] == [("t", EOW), ("s", "t</w>"), ("e", "st</w>"), ("o", "w"), ("l", "ow")]
    assert list(states[-1].tokens) == ["low", "est</w>"]
    assert_states_follow_merges(toy, "lowest")


@pytest.mark.parametrize("text", ["tokenization", "the lower bound", "naïve café", "aaaa", "x"])
def test_corpus_states_follow_merges(docs_bpe, text):
    assert_states_follow_merges(docs_bpe, text)


def test_random_words_end_at_the_encoders_answer(docs_bpe):
    rng = random.Random(6)
    for _ in range(300):
        word = "".join(rng.choice(docs_bpe.alphabet) for _ in range(rng.randint(1, 10)))
        final = list(merge_states(docs_bpe, word)[-1].tokens)
        assert final == docs_bpe.tokenize_word(word) == docs_bpe.tokenize_word_by_rank(word)


def test_overlapping_pairs_merge_left_to_right():
    ranks = {("a", "a"): 0}
    pieces, rank = apply_lowest_merge((("a", "a", "a", "a", "a"),), lambda a, b: ranks.get((a, b)))
    assert (pieces, rank) == ((("aa", "aa", "a"),), 0)


def test_buttons_step_forward_and_back(toy):
    w = MergeStepper(toy, "lowest")
    assert w.step == 0 and w.prev.disabled and not w.next.disabled
    assert "before any merge" in w.view.value and "next: merge #0" in w.view.value
    w.next.click()
    w.next.click()
    assert w.step == 2
    tokens = toy.truncated(2).tokenize_word("lowest")
    assert chips_html(tokens, [toy.token_to_id[t] for t in tokens]) in w.view.value
    assert "after merge #1" in w.view.value
    w.prev.click()
    assert w.step == 1
    while not w.next.disabled:
        w.next.click()
    assert w.step == len(w.states) - 1 == 5
    assert "final encoding" in w.view.value
    final = toy.tokenize_word("lowest")
    assert chips_html(final, [toy.token_to_id[t] for t in final]) in w.view.value
    w.next.click()  # clamped at the last state
    assert w.step == 5


def test_typing_a_word_restarts(toy):
    w = MergeStepper(toy, "lowest")
    w.next.click()
    w.text.value = "newer"
    assert w.step == 0
    assert list(w.states[-1].tokens) == toy.tokenize("newer")
    w.text.value = "   "
    assert "Type a word" in w.view.value and w.next.disabled and w.prev.disabled


def test_css_classes(toy):
    w = MergeStepper(toy)
    assert "bpe-step-prev" in w.prev._dom_classes and "bpe-step-next" in w.next._dom_classes
    assert "bpe-step-word" in w.text._dom_classes and "bpe-step-view" in w.view._dom_classes


@pytest.mark.parametrize("text", ["lowest", " tokenization, héllo", "naïve 🙂 café", "   spaces\n\nand lines"])
def test_byte_level_states_follow_merges(byte_tok, text):
    states = merge_states(byte_tok, text)
    final = byte_tok.encode_ordinary(text)
    assert list(states[-1].tokens) == byte_tok.token_bytes(final)
    for state in states[1:]:
        truncated = byte_tok.truncated(state.rank + 1)
        assert list(state.tokens) == truncated.token_bytes(truncated.encode_ordinary(text))


def test_gpt2_stepper_matches_tiktoken(gpt2_tok, tiktoken_gpt2):
    w = MergeStepper(gpt2_tok, " detokenization")
    for text in [" detokenization", "Hello world!", " antidisestablishmentarianism"]:
        w.text.value = text
        expected = [tiktoken_gpt2.decode_single_token_bytes(i) for i in tiktoken_gpt2.encode_ordinary(text)]
        assert list(w.states[-1].tokens) == expected
    while not w.next.disabled:
        w.next.click()
    assert "final encoding" in w.view.value
