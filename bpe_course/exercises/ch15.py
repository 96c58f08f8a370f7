"""Checkers for chapter 15 (other designs).

>>> from bpe_course.widgets.dropout import dropout_merge
>>> check_dropout(dropout_merge).ok
True
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from ..pretrained import gpt2
from ..widgets.dropout import dropout_merge
from .feedback import FUNCTION, NUMBER, STR, Feedback, correct, expect, expect_all, wrong

RANKS = {b"lo": 0, b"low": 1, b"er": 2, b"lower": 3, b"ow": 4, b"we": 5}
WORDS = (b"lower", b"lowerlower", b"owe", b"x")


def check_dropout(my_dropout: Callable) -> Feedback:
    """Exercise 15.1: BPE-dropout on one piece; p=0 must be BPE, p=1 single bytes, in between valid pieces."""
    if (problem := expect(my_dropout, FUNCTION)) is not None:
        return problem
    for p in (0.0, 1.0, 0.3, 0.6):
        for word in WORDS:
            try:
                got = my_dropout(word, dict(RANKS), p, Random(3))
            except Exception as exc:  # the learner's code: report, never crash the notebook
                return wrong(f"my_dropout({word!r}, ranks, {p}, rng) raised {type(exc).__name__}: {exc}.",
                             "start from single bytes and merge while some applicable merge is not dropped")
            if not isinstance(got, list) or not all(isinstance(t, (bytes, bytearray)) for t in got):
                return wrong(f"my_dropout({word!r}, ...) returned {type(got).__name__}, not a list of bytes.")
            if b"".join(got) != word:
                return wrong(f"with p={p} the pieces {got} do not spell {word!r}.", "merging never changes the bytes")
            if p == 0.0 and got != dropout_merge(word, RANKS, 0.0, Random(0)):
                return wrong(f"with p=0 nothing is dropped, so {word!r} should come out as plain BPE gives it.",
                             "take the lowest rank among the pairs that can merge, every step")
            if p == 1.0 and len(got) != len(word):
                return wrong(f"with p=1 every merge is dropped, so {word!r} stays single bytes.")
            if any(len(t) > 1 and t not in RANKS for t in got):
                return wrong(f"with p={p} a piece of {got} is no token of the vocabulary.",
                             "only merge pairs whose concatenation has a rank")
    return correct("p=0 gives BPE, p=1 single bytes, and every sample in between is a valid spelling.")


def check_byte_price(answer: object, text: str) -> Feedback:
    """Exercise 15.2: UTF-8 bytes of ``text`` per GPT-2 token."""
    problem = expect_all((answer, NUMBER, None), (text, STR, "text"))
    if problem is not None:
        return problem
    if not text:
        return wrong("the text is empty.", "pass heldout_text")
    tokens = len(gpt2().encode_ordinary(text))
    expected = len(text.encode("utf-8")) / max(tokens, 1)
    if abs(answer - expected) < 0.01:
        return correct(f"{expected:.2f} bytes per token: a byte-level model needs that many times the positions.")
    if abs(answer - 1 / expected) < 0.01:
        return wrong("that is the ratio the other way round.", "bytes divided by tokens")
    return wrong(f"{answer!r} is not the ratio.", 'len(text.encode("utf-8")) / len(gpt.encode_ordinary(text))')
