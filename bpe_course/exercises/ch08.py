"""Checkers for chapter 08 (regex pre-tokenization).

>>> check_number_groups(r"\\d{1,3}").ok
True
>>> check_gpt2_pieces("it's", ["it", "'s"]).ok
True
"""

from __future__ import annotations

import regex

from ..pretokenize import GPT2_PATTERN, GPT4_PATTERN
from .feedback import STR, STRINGS, Feedback, correct, expect, wrong

# (text, the digit groups GPT-4's pattern cuts from it)
NUMBER_CASES = tuple((text, regex.findall(r"\p{N}{1,3}", text)) for text in (
    "7", "42", "123", "1234567", "In 2024, 1500000 people paid $19.99 for 3 items.", "call 0800 555 0199", "x1y22z333w"))


def check_number_groups(pattern: str | None) -> Feedback:
    """Does ``regex.findall(pattern, text)`` cut every run of digits into groups of at most three,
    from the left (as GPT-4 does), and return nothing else?"""
    if (problem := expect(pattern, STR, hint=r'a regex in a raw string, e.g. r"\p{L}+"')) is not None:
        return problem
    try:
        compiled = regex.compile(pattern)
    except Exception as exc:  # noqa: BLE001 -- regex.error, and a few others for odd patterns
        return wrong(f"the pattern does not compile: {exc}.", "test it with regex.compile(pattern) first.")
    if compiled.groups:
        return wrong("the pattern has a capturing group, so findall returns the group, not the match.",
                        "write groups as (?:...) or leave them out.")
    for text, expected in NUMBER_CASES:
        try:
            got = compiled.findall(text, timeout=1.0)
        except TimeoutError:
            return wrong(f"on {text!r} your pattern was still searching after a second.",
                         "nested repeats such as (\\d+)+ can take exponential time; one bounded repeat is all it needs.")
        if got == expected:
            continue
        message = f"on {text!r} your pattern gives {got}, expected {expected}."
        if any(not piece.isdigit() for piece in got):
            hint = "match digits only: \\d (or \\p{N} for every script's digits)."
        elif any(len(piece) > 3 for piece in got):
            hint = "+ sets no upper limit on how many digits one match takes; a regex quantifier can also set a maximum."
        elif "".join(got) != "".join(expected):
            hint = ("some digits are not matched at all; word boundaries (\\b) or spaces in the pattern exclude "
                    "digits glued to letters, as in 'x1y22'.")
        else:
            hint = ("groups start at the left of the number: 1234567 -> 123, 456, 7. A regex scans left to right, "
                    "so a greedy bounded repeat does exactly that; no lookahead needed.")
        return wrong(message, hint)
    return correct(f"all {len(NUMBER_CASES)} test strings split into digit groups of at most three, like "
                          "GPT-4's \\p{N}{1,3}.")


def check_gpt2_pieces(text: str, answer: list[str] | None) -> Feedback:
    """Is ``answer`` the list of pre-tokens GPT-2's pattern cuts ``text`` into?"""
    if (problem := expect(text, STR, "text")) is not None:
        return problem
    if (problem := expect(answer, STRINGS, hint='list the pieces in order, e.g. ["Hello", " world"]')) is not None:
        return problem
    expected = regex.findall(GPT2_PATTERN, text)
    assert answer is not None  # for the type checker: expect() lets only a list of strings through
    answer = list(answer)
    if answer == expected:
        return correct(f"{len(expected)} pieces: {expected}.")
    if "".join(answer) != text:
        return wrong(f"your pieces join to {''.join(answer)!r}, not to the text {text!r}.",
                        "pre-tokenization only cuts: every character, spaces included, lands in exactly one piece.")
    at = next(k for k, (a, e) in enumerate(zip(answer + [None], expected + [None])) if a != e)
    got_piece, want_piece = (answer + [None])[at], (expected + [None])[at]
    hint = "walk the alternatives in order: contractions, ' ?letters', ' ?digits', ' ?other symbols', whitespace."
    if want_piece is not None and want_piece.isspace():
        hint = ("a run of spaces gives its last space to the next word: \\s+(?!\\S) stops one short of a "
                "non-space, and that space becomes the ' ?' of the next piece.")
    elif want_piece is not None and want_piece.startswith("'"):
        hint = "GPT-2's contractions are lower case only: 's 't 're 've 'm 'll 'd."
    elif got_piece is not None and got_piece.startswith("'") and got_piece[1:].isalpha():
        hint = ("GPT-2's contractions are lower case only ('s 't 're 've 'm 'll 'd); \"'S\" is a quote "
                "piece and a letters piece.")
    elif got_piece is not None and "'" in got_piece[1:]:
        hint = ("an apostrophe ends a run of letters (it is not \\p{L}); a lower-case contraction such as 't "
                "is a piece of its own.")
    # subtle: name the first wrong piece of the learner's, not the right one (that would be the answer).
    if got_piece is None:
        return wrong(f"your {len(answer)} pieces are right, but the pattern cuts more than that.", hint)
    right = {0: "", 1: "your piece 0 is right, but "}.get(at, f"your pieces 0 to {at - 1} are right, but ")
    before = f"{right}piece {at}" if at else "your piece 0"
    return wrong(f"{before}, {got_piece!r}, is not what GPT-2's pattern cuts there.", hint)


def gpt4_pieces(text: str) -> list[str]:
    """GPT-4's pre-tokens of ``text`` (to compare with your answer after solving the GPT-2 one)."""
    return regex.findall(GPT4_PATTERN, text)


# ---------------------------------------------------------------- exercise 3: find the bug (a look-alike pattern)

LOOKALIKE = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""
LOOKALIKE_FIXED = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d]+| ?\d+| ?[^\s\w\d]+|\s+"""
LOOKALIKE_CASES = ("utf8 and x2", "In 2024, 3rd place paid $19.99.", "it's 42 o'clock", "café 7 naïve",
                   "  two  spaces 10", "a1b2c3", "line\n123\n")


def check_lookalike_fix(pattern: str | None) -> Feedback:
    """Exercise 8.3: a fixed look-alike pattern whose number alternative matches digit runs."""
    if (problem := expect(pattern, STR)) is not None:
        return problem
    try:
        compiled = regex.compile(pattern)
    except (regex.error, TypeError) as exc:
        return wrong(f"the pattern does not compile: {exc}.", "test it with regex.compile(pattern) first.")
    if compiled.groups:
        return wrong("the pattern has capturing groups, so findall returns groups, not pre-tokens.",
                     "use (?:...) for grouping.")
    for text in LOOKALIKE_CASES:
        got, expected = compiled.findall(text), regex.findall(LOOKALIKE_FIXED, text)
        if got == expected:
            continue
        if got == regex.findall(LOOKALIKE, text):
            return wrong(f"on {text!r} this still splits like the write-up's pattern: {got}.",
                         "which alternative takes the digits before ' ?\\d+' is ever tried?")
        if "".join(got) != text:
            return wrong(f"on {text!r} the pieces {got} lose part of the text.", "every character must be matched.")
        return wrong(f"on {text!r} the pieces are {got}.",
                     "digits alone (with at most one leading space), and words, contractions, punctuation and "
                     "whitespace as before.")
    return correct("numbers are now pre-tokens of their own, and nothing else moved.")
