"""Chapter 17's checkers: right answers pass, the usual mistakes get a hint that points without answering.

Exercises 17.1 and 17.2 are tested in tests/test_exercises_science.py."""

from __future__ import annotations

import pytest

from bpe_course.exercises import ch17


def test_right_answers_pass():
    assert ch17.check_superword(lambda token: b" " in token.strip(b" ")).ok


@pytest.mark.parametrize("mistake, words", [
    (lambda token: b" " in token, "attaches a space to the word after it"),
    (lambda token: b" " in token.lstrip(b" "), "spaces at the end"),
    (lambda token: token.count(b" ") > 0 and token.strip() == token, "space after a non-space"),
])
def test_superword_mistakes_are_named(mistake, words):
    feedback = ch17.check_superword(mistake)
    assert not feedback.ok and words in feedback.hint


def test_odd_answers_are_feedback_not_errors():
    assert "function" in ch17.check_superword(None).message
    assert "ZeroDivisionError" in ch17.check_superword(lambda token: 1 / 0).message
    assert not ch17.check_superword(lambda token: 1).ok
