"""The one feedback type every chapter's checkers return.

>>> correct("all 3 cases agree.")
✅ Correct: all 3 cases agree.
>>> print(wrong("f(2) should be 4, got 6.", "twice, not thrice."))
❌ Not yet. f(2) should be 4, got 6.
Hint: twice, not thrice.
>>> bool(wrong("no.", "")), placeholder(...).ok
(False, False)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, repr=False)
class Feedback:
    """A checker's verdict: ``ok``, the ``message`` a learner reads (also the repr) and the ``hint`` in it."""

    ok: bool
    message: str
    hint: str = ""

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


def correct(message: str) -> Feedback:
    return Feedback(True, f"✅ Correct: {message}")


def wrong(message: str, hint: str = "") -> Feedback:
    return Feedback(False, f"❌ Not yet. {message}" + (f"\nHint: {hint}" if hint else ""), hint)


def placeholder(answer: object) -> Feedback | None:
    """Feedback for an untouched starter answer (``None`` or ``...``), else None."""
    if answer is None or answer is Ellipsis:
        return wrong("no answer yet -- replace the placeholder with your answer and run the cell again.")
    return None


def run_cases(fn: Callable, cases: Sequence[tuple], reference: Callable, *, name: str,
              same: Callable[[Any, Any], bool] = lambda a, b: a == b,
              diagnose: Callable[[tuple, Any, Any], str] | None = None, hint: str = "") -> Feedback:
    """Call ``fn(*case)`` and ``reference(*case)`` on every case; report the first disagreement.

    ``diagnose(case, expected, got)`` may return a specific hint for a recognisable mistake.

    >>> run_cases(lambda x: x * 2, [(1,), (2,)], lambda x: x + x, name="double")
    ✅ Correct: your double agrees with the reference on all 2 cases.
    """
    if not callable(fn):
        return wrong(f"expected a function, got {type(fn).__name__}.", f"pass the function itself: check({name})")
    for case in cases:
        expected = reference(*case)
        shown = ", ".join(short(arg) for arg in case)
        try:
            got = fn(*case)
        except Exception as exc:  # the learner's code may fail in any way; report it, never raise
            return wrong(f"{name}({shown}) raised {type(exc).__name__}: {exc}", hint)
        if not same(expected, got):
            specific = diagnose(case, expected, got) if diagnose else ""
            return wrong(f"{name}({shown}) should be {short(expected)}, got {short(got)}.", specific or hint)
    return correct(f"your {name} agrees with the reference on all {len(cases)} cases.")


def short(value: Any, limit: int = 120) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
