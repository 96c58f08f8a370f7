"""Chapter 16's checkers: right answers pass, the usual mistakes get a hint that points without answering.

Exercises 16.1 and 16.3 (measurements) are tested in tests/test_exercises_science.py."""

from __future__ import annotations

from collections import Counter

from bpe_course.exercises import ch16


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
