"""Checkers for chapter 18 (open models' tokenizers: SentencePiece and Mistral): decoding a stream of ids as a
chat program shows it, and the yardstick on Python source with lines as the units.

Each checker returns a :class:`Feedback`; its message says where an answer goes wrong, never the text or
the numbers the answer should have held.

>>> print(check_stream(lambda ids: [""] * len(ids)))
❌ Not yet. for 'Hi there' your pieces, joined, are not the decoded text of all the ids.
Hint: what you show after each id must add up to decode(ids)
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Callable
from functools import lru_cache

from ..algorithms.sentencepiece_bpe import SentencePieceBPE
from ..compare import Difference, compare
from ..corpus import load
from ..pretrained import mistral_v1, tekken
from .feedback import FUNCTION, Feedback, Kind, correct, expect, returned, short, wrong

# ---------------------------------------------------------------- exercise 18.1: a stream of ids

# The checker's texts: whole and cut characters v1 spells in byte pieces, and ids encode never writes.
STREAM_TEXTS = ("Hi there", "I 🫶 ﬁne tokenizers", "ᐃᓄᒃᑎᑐᑦ ꦧꦱꦗꦮ", "naïve 𓀀 café")
STRINGS_PER_ID = Kind("a list of strings, one per id", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                      "['Hi', ' there']")


def held_back(sp: SentencePieceBPE, ids: list[int]) -> int:
    """How many of the last byte pieces of ``ids`` begin a character that later bytes could still complete."""
    tail = bytearray()
    for i in reversed(ids):
        if sp.model.kinds[i] != "byte":
            break
        tail.insert(0, int(sp.pieces[i][3:5], 16))
    for n in range(min(3, len(tail)), 0, -1):
        try:
            if codecs.getincrementaldecoder("utf-8")().decode(bytes(tail[-n:])) == "":
                return n
        except UnicodeDecodeError:
            pass
    return 0


def reference_stream(sp: SentencePieceBPE, ids: list[int]) -> list[str]:
    """After each id, the text it adds for sure: what exercise 18.1 asks for. The stream ends after the last id,
    so the last string also flushes what was held back, as ``decode`` writes it: joined, the strings are
    ``decode(ids)``.

    >>> sp = mistral_v1()
    >>> ids = [sp.id_of["▁I"], sp.pieces.index("<0xF0>"), sp.pieces.index("<0x9F>")]  # ends inside a character
    >>> reference_stream(sp, ids) == ["I", "", sp.decode(ids)[1:]]
    True
    """
    pieces, printed = [], ""
    for k in range(1, len(ids) + 1):
        text = sp.decode(ids[:k])
        hold = held_back(sp, ids[:k]) if k < len(ids) else 0  # subtle: at the end nothing can complete a character
        certain = text[:len(text) - hold]
        pieces.append(certain[len(printed):])
        printed = certain
    return pieces


def stream_cases() -> list[tuple[str, list[int]]]:
    """(what, ids): encodings of the checker's texts, and id sequences encode never writes."""
    sp = mistral_v1()
    byte = {int(p[3:5], 16): i for i, (p, k) in enumerate(zip(sp.pieces, sp.model.kinds)) if k == "byte"}
    cases = [(repr(text), sp.encode(text)) for text in STREAM_TEXTS]
    cases.append(("a lone continuation byte, then text", [byte[0xAC], sp.id_of["▁a"]]))
    cases.append(("a character cut short, then text", [sp.id_of["▁"], byte[0xEF], byte[0xAC], sp.id_of["▁a"]]))
    cases.append(("a stream that ends inside a character", [sp.id_of["▁I"], byte[0xF0], byte[0x9F]]))
    return cases


def check_stream(stream_text: Callable) -> Feedback:
    """Exercise 18.1: the text each id adds for sure, for v1; joined, the decoded text."""
    if (problem := expect(stream_text, FUNCTION)) is not None:
        return problem
    sp = mistral_v1()
    for what, ids in stream_cases():
        expected = reference_stream(sp, ids)
        try:
            got = stream_text(list(ids))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"for {what}, stream_text(ids) raised {type(exc).__name__}: {exc}.")
        if (problem := returned(got, STRINGS_PER_ID, f"stream_text(ids) for {what}")) is not None:
            return problem
        if len(got) != len(ids):
            return wrong(f"for {what} you returned {len(got)} strings for {len(ids)} ids.",
                         "one string per id: empty when an id adds nothing yet")
        if "".join(got) != sp.decode(ids):
            if (hold := held_back(sp, ids)) and "".join(got) == sp.decode(ids)[:len(sp.decode(ids)) - hold]:
                return wrong(f"for {what} your pieces, joined, stop short of the decoded text of all the ids.",
                             "the stream ends after the last id: nothing can complete a character then, so the "
                             "last string shows what is still held back, as decode writes it")
            return wrong(f"for {what} your pieces, joined, are not the decoded text of all the ids.",
                         "what you show after each id must add up to decode(ids)")
        if got == expected:
            continue
        k = next(k for k, (a, b) in enumerate(zip(got, expected)) if a != b)
        shown, certain = "".join(got[:k + 1]), "".join(expected[:k + 1])
        if len(shown) > len(certain) and "\ufffd" in shown[len(certain):]:
            return wrong(f"for {what}, after id {k + 1} ({sp.pieces[ids[k]]}) you show a U+FFFD for a character "
                         "whose other bytes may still come.",
                         "hold back the last byte pieces while they begin a character that is not complete yet")
        if len(shown) > len(certain):
            return wrong(f"for {what}, after id {k + 1} ({sp.pieces[ids[k]]}) you show text a later id still changes.",
                         "compare what decode gives for the ids so far with what it gives once more ids arrive")
        late = certain[len(shown):]
        if "\ufffd" in late:
            hint = "a byte that can never be part of a character is final: show its U+FFFD at once"
        elif sp.model.kinds[ids[k]] == "byte":
            hint = "a character is final as soon as its last byte arrives"
        else:
            hint = "a piece's text is final at once; only the bytes of a character that is not complete yet wait"
        return wrong(f"for {what}, after id {k + 1} ({sp.pieces[ids[k]]}) you hold back text that no later id can "
                     "change.", hint)
    return correct(f"all {len(stream_cases())} streams: each id shows what it adds for sure, and the pieces add up "
                   "to the decoded text.")


# ---------------------------------------------------------------- exercise 18.2: lines as the units

DIFFERENCE = Kind("a Difference (what compare returns)", lambda v: isinstance(v, Difference),
                  "compare(tekken_units, v1_units, ...)")


LINES = 2_000  # exercise 18.2 measures the first LINES non-empty lines of python_code


@lru_cache(maxsize=1)
def line_units() -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(Tekken's, v1's) (tokens, bytes) for each of the first LINES non-empty lines of python_code, each line
    encoded on its own."""
    lines = [line for line in load("python_code").split("\n") if line][:LINES]
    tek, v1 = tekken(), mistral_v1()
    return ([(len(tek.encode_ordinary(line)), len(line.encode())) for line in lines],
            [(len(v1.encode(line)), len(line.encode())) for line in lines])


@lru_cache(maxsize=1)
def expected_difference() -> Difference:
    tekken_units, v1_units = line_units()
    return compare(tekken_units, v1_units, unit="", words=("fewer", "more"), relative=True)


def _close(a: float, b: float, tolerance: float) -> bool:
    return math.isfinite(a) and abs(a - b) <= tolerance


def check_line_units(difference: object) -> Feedback:
    """Exercise 18.2: Tekken against v1 on python_code, line by line, as a relative Difference."""
    if (problem := expect(difference, DIFFERENCE)) is not None:
        return problem
    assert isinstance(difference, Difference)
    want = expected_difference()
    if not difference.relative:
        return wrong("your Difference is of the ratios themselves, not relative.",
                     "ask compare for the relative difference (relative=True): a count is compared as a share")
    if _close(difference.estimate, -want.estimate / (1 + want.estimate), 1e-9) and not _close(
            difference.estimate, want.estimate, 1e-9):
        return wrong("your estimate has the opposite sign to Tekken-against-v1.",
                     "compare's first argument is the setting you speak about: Tekken's units first")
    if not _close(difference.estimate, want.estimate, 1e-9):
        tekken_units, v1_units = line_units()
        tekken_whole = sum(n for n, _ in tekken_units)
        hints = ("the units are the first LINES non-empty lines of python_code, each encoded on its own: (tokens, "
                 "bytes) per line, in the same order for both tokenizers")
        if _close(difference.estimate, tekken_whole / sum(n for n, _ in v1_units) - 1, 1e-6):
            hints = "check the bytes: each unit's second number is the line's length in UTF-8 bytes"
        return wrong(f"your estimate, {short(difference.estimate)}, is not Tekken-against-v1 on the first {LINES:,} "
                     "lines of python_code.", hints)
    if not (_close(difference.low, want.low, 0.005) and _close(difference.high, want.high, 0.005)):
        return wrong("your estimate is right but the interval is not the bootstrap's over the lines.",
                     "pass the units as lists of (tokens, bytes) pairs, one per line, and keep compare's defaults")
    return correct(f"Tekken against v1, line by line: {difference.verdict}. Compare it with the chapter's verdict "
                   "on stretches of paragraphs.")
