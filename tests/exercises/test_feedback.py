"""The checkers' shared Feedback and runner (bpe_course.exercises.feedback)."""

from __future__ import annotations

from exercises.feedback_checks import assert_wrong

from bpe_course.exercises import ch07
from bpe_course.exercises.feedback import run_cases


def test_run_cases_reports_exceptions_instead_of_raising():
    def broken(x):
        raise KeyError("boom")

    assert_wrong(run_cases(broken, [(1,)], lambda x: x, name="f", hint="look again"), "f(1) raised KeyError", "look again")


def test_run_cases_rejects_non_functions():
    assert_wrong(run_cases(42, [(1,)], lambda x: x, name="f"), "expected a function, got int")


def test_feedback_shows_verdict_and_hint():
    good, bad = ch07.correct("fine."), ch07.wrong("wrong.", "try this.")
    assert bool(good) and not bad
    assert repr(good) == "✅ Correct: fine."
    assert repr(bad) == "❌ Not yet. wrong.\nHint: try this." == str(bad)
