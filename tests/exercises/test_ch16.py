"""Chapter 16's checkers: right answers pass, the usual mistakes get a hint that points without answering."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.exercises import ch16
from bpe_course.algorithms.model_quality import Sweep, best_rows, vocab_points


def right_bpb(probs, text):
    return -sum(math.log2(p) for p in probs) / len(text.encode("utf-8"))


def test_bits_per_byte_right_answer_passes():
    assert ch16.check_bits_per_byte(right_bpb).ok


@pytest.mark.parametrize("mistake, words", [
    (lambda probs, text: -sum(math.log(p) for p in probs) / len(text.encode("utf-8")), "nats"),
    (lambda probs, text: sum(math.log2(p) for p in probs) / len(text.encode("utf-8")), "negative log"),
    (lambda probs, text: -sum(math.log2(p) for p in probs) / len(text), "fewer characters than bytes"),
    (lambda probs, text: -sum(math.log2(p) for p in probs), "divide it by the text's bytes"),
])
def test_bits_per_byte_mistakes_are_named(mistake, words):
    feedback = ch16.check_bits_per_byte(mistake)
    assert not feedback.ok and words in feedback.hint
    assert "log2(p) for p in probs" not in feedback.message and "encode(" not in feedback.message


def test_bits_per_byte_odd_input_is_feedback_not_an_error():
    assert "function" in ch16.check_bits_per_byte(None).message
    assert not ch16.check_bits_per_byte(lambda probs, text: "1.5").ok
    assert "ZeroDivisionError" in ch16.check_bits_per_byte(lambda probs, text: 1 / 0).message


def test_continuations_right_answer_passes_and_mistakes_are_named():
    assert ch16.check_continuations(lambda ids: dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))).ok
    occurrences = ch16.check_continuations(lambda ids: dict(Counter(zip(ids[1:], ids[2:]))))
    assert not occurrences.ok and "every occurrence" in occurrences.hint
    followers = ch16.check_continuations(lambda ids: dict(Counter((u, v) for u, v, _ in set(zip(ids, ids[1:], ids[2:])))))
    assert not followers.ok and "before it" in followers.hint
    every_pair = ch16.check_continuations(lambda ids: dict(Counter(set(zip(ids, ids[1:])))))
    assert not every_pair.ok and "very start" in every_pair.hint
    unigram = ch16.check_continuations(lambda ids: dict(Counter(w for _, w in set(zip(ids, ids[1:])))))
    assert not unigram.ok and "pairs of token ids" in unigram.message + unigram.hint
    assert not ch16.check_continuations(lambda ids: [1, 2]).ok
    for feedback in (occurrences, followers, every_pair):
        assert "set(zip" not in feedback.message and "Counter(" not in feedback.message


@pytest.fixture(scope="module")
def sweep() -> Sweep:
    train, heldout = corpus.train_heldout("python_docs")
    train, heldout = train[:40_000], heldout[:10_000]
    return Sweep(Tokenizer(*train_bpe(train, 256 + 800)), train, heldout, vocab_points(800))


def test_unigram_best_accepts_the_minimum_only(sweep):
    data = sweep.measure([1])
    best = int(best_rows(data).iloc[0]["n_vocab"])
    assert ch16.check_unigram_best(best, sweep).ok
    others = [int(s) for s in data["n_vocab"] if s != best]
    for other in others:
        feedback = ch16.check_unigram_best(other, sweep)
        assert not feedback.ok
        assert f"{best:,}" not in feedback.message  # it says another size is better, not which one


def test_unigram_best_odd_answers(sweep):
    assert "no answer yet" in ch16.check_unigram_best(None, sweep).message
    assert "not an int" in ch16.check_unigram_best("1024", sweep).message
    merges = ch16.check_unigram_best(768, sweep)  # 768 merges is the 1,024-token vocabulary
    assert not merges.ok and "number of merges" in merges.hint
    assert "measured these vocabulary sizes" in ch16.check_unigram_best(300, sweep).hint
    assert not ch16.check_unigram_best(512, "sweep").ok
