"""Checkers for chapter 07 (bytes and Unicode).

Every checker returns a :class:`Feedback` (the same look as chapter 1's): ``.ok`` (also its truth
value), a ``.message`` saying what is right or wrong about *this* answer, and a ``.hint`` when it
is wrong. In a notebook it shows itself as that text. Chapters 08 and 09 use it too.

>>> check_utf8_length("aé", 3).ok
True
>>> check_byte_char(0x20, "Ġ")
✅ Correct: byte 0x20 is written 'Ġ' (U+0120).
"""

from __future__ import annotations

from collections.abc import Callable

from ..bytelevel import BYTE_TO_UNICODE
from .feedback import BYTE, BYTES, FUNCTION, INT, STR, Feedback, correct, expect, returned, shown, wrong


def _width(char: str) -> int:
    return len(char.encode("utf-8"))


# ---- exercise 1: how many UTF-8 bytes? ---------------------------------------------------------

def check_utf8_length(text: str, answer: int | None) -> Feedback:
    """Is ``answer`` the number of bytes of ``text`` in UTF-8?

    >>> check_utf8_length("日本", 2).message.splitlines()[0]
    "❌ Not yet. 2 is the number of characters (code points) of '日本'; UTF-8 needs more bytes than that for some of them."
    """
    if (problem := expect(text, STR, "text")) is not None:
        return problem
    if (lone := next((k for k, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF), None)) is not None:
        return wrong(f"text has a lone surrogate, U+{ord(text[lone]):04X}, at index {lone}: it is no character "
                     "and has no UTF-8 bytes", "use the exercise's text")
    if (problem := expect(answer, INT)) is not None:
        return problem
    assert answer is not None  # for the type checker: expect() lets only an int through
    expected = len(text.encode("utf-8"))
    if answer == expected:
        return correct(f"{text!r} is {len(text)} code points and {expected} UTF-8 bytes.")
    wide = "".join(dict.fromkeys(c for c in text if _width(c) > 1))
    hint = ("count each character by its code point: below U+0080 one byte, below U+0800 two, below U+10000 "
            f"three, else four. The characters here that take more than one byte: {wide!r}.")
    if answer == len(text):
        return wrong(f"{answer} is the number of characters (code points) of {text!r}; UTF-8 needs more "
                               "bytes than that for some of them.", hint)
    direction = "too few" if answer < expected else "too many"
    return wrong(f"{shown(answer)} is {direction}.", hint)


# ---- exercise 2: GPT-2's printable character for a byte -----------------------------------------

def check_byte_char(byte: int, answer: str | None) -> Feedback:
    """Is ``answer`` the character GPT-2's ``bytes_to_unicode`` gives to ``byte``?"""
    if (problem := expect(byte, BYTE, "byte")) is not None:
        return problem
    if (problem := expect(answer, STR, hint="answer one character, e.g. 'Ġ'")) is not None:
        return problem
    assert answer is not None  # for the type checker: expect() lets only a str through
    expected = BYTE_TO_UNICODE[byte]
    if answer == expected:
        return correct(f"byte 0x{byte:02X} is written {expected!r} (U+{ord(expected):04X}).")
    shown = f"{answer!r}" + (f" (U+{ord(answer):04X})" if len(answer) == 1 else "")
    if expected == chr(byte):
        return wrong(f"{shown} is not it: byte 0x{byte:02X} is printable, so it keeps its own character.",
                        "the printable bytes are '!'..'~', '¡'..'¬' and '®'..'ÿ'; they map to chr(byte).")
    hint = (f"byte 0x{byte:02X} is not printable. Step 2 of section 3 numbers the left-out bytes in byte order: "
            "count how many come before this one; if there are n of them, it becomes chr(256 + n).")
    if answer == chr(byte):
        return wrong(f"{shown} is the byte's own character, but byte 0x{byte:02X} is not printable, so "
                               "GPT-2 moves it.", hint)
    if answer == chr(256 + byte):
        return wrong(f"{shown} is chr(256 + byte); only the unprintable bytes are counted, not all bytes "
                               "below it.", hint)
    return wrong(f"{shown} is not the character of byte 0x{byte:02X}.", hint)


# ---- exercise 3: a UTF-8 encoder by hand ---------------------------------------------------------

SAMPLE_CODE_POINTS = (0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x65E5, 0xFFFF, 0x10000, 0x1F643, 0x10FFFF)


def check_utf8_encoder(encode: Callable[[int], bytes]) -> Feedback:
    """Does ``encode(code_point)`` give the UTF-8 bytes of every sample code point?"""
    if (problem := expect(encode, FUNCTION)) is not None:
        return problem
    for cp in SAMPLE_CODE_POINTS:
        expected = chr(cp).encode("utf-8")
        got: bytes | Exception
        try:
            got = encode(cp)
        except Exception as exc:  # the learner's code: report, never crash the notebook
            got = exc
        if isinstance(got, Exception):
            got_text = f"raised {type(got).__name__}: {got}"
        elif (problem := returned(got, BYTES, f"encode(0x{cp:X})", "build it with bytes([b1, b2, ...])")) is not None:
            return problem
        else:
            got_text = f"gave {got.hex(' ')}"
        if got != expected:
            n = len(expected)
            hint = {1: "below U+0080 the byte is the code point itself.",
                    2: "two bytes: 110xxxxx 10xxxxxx -- the top 5 of 11 bits, then the low 6 bits.",
                    3: "three bytes: 1110xxxx 10xxxxxx 10xxxxxx -- shift by 12 and 6, mask with 0x3F.",
                    4: "four bytes: 11110xxx then three 10xxxxxx -- shift by 18, 12 and 6."}[n]
            return wrong(f"U+{cp:04X} ({chr(cp)!r}) should be {expected.hex(' ')} ({n} byte"
                                   f"{'s' if n > 1 else ''}), your function {got_text}.", hint)
    return correct(f"your encoder agrees with Python's on all {len(SAMPLE_CODE_POINTS)} sample code points, "
                          "including the edges of each length.")
