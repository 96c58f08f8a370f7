"""Checkers for chapter 09 (GPT-2, rank for rank).

>>> from bpe_course.bytelevel import str_to_token
>>> check_parse_merge(lambda line: tuple(str_to_token(part) for part in line.split(" "))).ok
True
>>> check_merge_rank((b" ", b"t"), 0).ok
True
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from ..bytelevel import BYTE_TO_UNICODE, token_to_str
from ..pretrained import gpt2, named_file
from .feedback import BYTES_PAIR, FUNCTION, INT, Feedback, correct, expect, returned, short, shown, wrong

# Lines as they appear in GPT-2's vocab.bpe, with the pair each one stands for.
MERGE_LINES = (
    ("Ġ t", (b" ", b"t")),
    ("h e", (b"h", b"e")),
    ("Ċ Ċ", (b"\n", b"\n")),
    ("ĠâĢ ĵ", (b" \xe2\x80", b"\x93")),
    ("ðŁ ĺ", (b"\xf0\x9f", b"\x98")),
)


def check_parse_merge(parse: Callable[[str], tuple[bytes, bytes]]) -> Feedback:
    """Does ``parse(line)`` turn a ``vocab.bpe`` line into the pair of token bytes it stands for?"""
    if (problem := expect(parse, FUNCTION)) is not None:
        return problem
    for line, expected in MERGE_LINES:
        try:
            got = parse(line)
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"on the line {line!r} your function raised {type(exc).__name__}: {exc}.",
                            "split the line at its one space, then map each character back to its byte.")
        if isinstance(got, list):
            got = tuple(got)
        if BYTES_PAIR.accepts(got) and got == expected:
            continue
        message = f"the line {line!r} should give {expected!r}, your function gave {short(got)}."
        if isinstance(got, tuple) and got and all(isinstance(part, str) for part in got):
            hint = ("those are still strings in GPT-2's printable alphabet, where each character stands for one "
                    "byte (chapter 07's table, read the other way).")
        elif isinstance(got, tuple) and len(got) != 2:
            hint = "a merge line is exactly two tokens separated by one space: line.split(' ') gives both."
        elif isinstance(got, tuple) and all(isinstance(part, bytes) for part in got):
            hint = ("encoding the characters as UTF-8 is not the same as undoing bytes_to_unicode: 'Ġ' stands for "
                    "the byte 0x20 (a space), not for its own UTF-8 bytes c4 a0.")
        else:
            hint = "return a tuple of two bytes objects: (left, right)."
        if isinstance(got, tuple) and got and all(isinstance(part, str) for part in got):
            return wrong(message, hint)  # subtle: names the pair of bytes wanted by value (the notebook shows it)
        if (problem := returned(got, BYTES_PAIR, f"parse({line!r})", hint)) is not None:
            return problem
        return wrong(message, hint)
    return correct(f"all {len(MERGE_LINES)} sample lines parse to the right pair of bytes, including spaces, "
                          "newlines and pieces of multi-byte characters.")


def check_merge_rank(pair: tuple[bytes, bytes], answer: int | None) -> Feedback:
    """Is ``answer`` the rank (0-based position in ``vocab.bpe``) of the merge ``pair`` in GPT-2?"""
    if (problem := expect(pair, BYTES_PAIR, "pair")) is not None:
        return problem
    if (problem := expect(answer, INT)) is not None:
        return problem
    pair = (bytes(pair[0]), bytes(pair[1]))
    merges = gpt2().merges
    if pair not in merges:
        return wrong(f"{pair!r} is not one of GPT-2's merges; check the exercise's pair.")
    rank = merges.index(pair)
    written = f"{token_to_str(pair[0])} {token_to_str(pair[1])}"
    if answer == rank:
        return correct(f"the merge {written!r} has rank {rank}, so the token it makes has id 256 + {rank} = "
                              f"{256 + rank}.")
    hint = ("the rank is the pair's 0-based position among the merges you parsed from vocab.bpe "
            "(the '#version' line is not a merge).")
    if answer == 256 + rank:
        return wrong(f"{answer} is the id of the merged token; the rank is the position in the merge list.",
                     "section 4 compares the two: which ids are taken before the first merge's token?")
    if answer in (rank + 1, rank + 2):
        return wrong(f"{answer} is a line number of vocab.bpe, not a rank: ranks start at 0 and the "
                               "'#version' line is not a merge.", hint)
    return wrong(f"{shown(answer)} is not the rank of {written!r}.", hint)


# ---------------------------------------------------------------- exercise 3: find the bug (the newline)


def _shuffled_encoder(encoder_json: dict, seed: int = 9) -> dict:
    """Another file of the same shape: the same tokens under other ids (so no id can be hard-coded)."""
    ids = list(encoder_json.values())
    random.Random(seed).shuffle(ids)
    return dict(zip(encoder_json, ids))


def check_newline_id(newline_id: Callable[[dict], int]) -> Feedback:
    """Exercise 9.3: the id of the text "\\n", read from a parsed encoder.json (GPT-2's and another)."""
    if (problem := expect(newline_id, FUNCTION)) is not None:
        return problem
    real = json.loads(named_file("gpt2", "encoder.json").read_text(encoding="utf-8"))
    newline_char = BYTE_TO_UNICODE[ord("\n")]
    for label, encoder_json in (("GPT-2's encoder.json", real), ("a shuffled copy of it", _shuffled_encoder(real))):
        expected = encoder_json[newline_char]
        try:
            got = newline_id(dict(encoder_json))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"on {label} your function raised {type(exc).__name__}: {exc}.",
                         "look the newline up the way encoder.json writes it.")
        if (problem := returned(got, INT, f"newline_id({label})")) is not None:
            return problem
        if got == expected:
            continue
        if got == encoder_json.get("<|endoftext|>"):
            return wrong(f"on {label} you return the id of <|endoftext|> ({got}): every line break would end a "
                         "document.", "encoder.json writes every byte in GPT-2's printable alphabet (chapter 07).")
        return wrong(f"on {label} you return {shown(got)}; a newline there has another id.",
                     "which character stands for the byte 10 in GPT-2's alphabet?")
    return correct(f"a newline is written {newline_char!r} in encoder.json (id {real[newline_char]} in GPT-2's).")
