"""What every checker's feedback must look like, right or wrong: the asserts the exercise tests share."""

from __future__ import annotations

from bpe_course.exercises.feedback import Feedback


def assert_wrong(feedback: Feedback, *fragments: str) -> None:
    assert isinstance(feedback, Feedback) and not feedback.ok and not bool(feedback)
    assert feedback.message.startswith("❌ Not yet.") and "\nHint: " in feedback.message
    for fragment in fragments:
        assert fragment in feedback.message, (fragment, feedback.message)


def assert_right(feedback: Feedback) -> None:
    assert feedback.ok and feedback.message.startswith("✅ Correct"), feedback.message
    assert repr(feedback) == str(feedback) == feedback.message
