"""Chapter 4's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

import random

import pytest

from bpe_course import corpus
from bpe_course.algorithms.wordbpe import WordBPE
from bpe_course.exercises import ch04


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
