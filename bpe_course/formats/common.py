"""What every tokenizer file format shares: the plain data it reads and writes, and careful parsing.

A format reads a file into :class:`TokenizerData` -- ``vocab``, ``merges``, ``special_tokens``,
``pattern`` -- and writes any object with those four attributes (a ``TokenizerData`` or a
``Tokenizer``). Formats never build a ``Tokenizer``: ``Tokenizer.load`` and ``.save`` do that.
Each reader reports a broken file as :class:`~bpe_course.errors.TokenizerFileError` with a
message that names the file and the line (or JSON key) at fault.

>>> parse_merge("Ġ t", "vocab.bpe, line 2")
(b' ', b't')
>>> parse_merge("Ġt", "vocab.bpe, line 3")
Traceback (most recent call last):
...
bpe_course.errors.TokenizerFileError: vocab.bpe, line 3: expected two tokens separated by one space, got 'Ġt'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import NamedTuple, TypeGuard

from ..bytelevel import str_to_token, token_to_str
from ..errors import TokenizerFileError
from ..files import read_utf8


class TokenizerData(NamedTuple):
    """A tokenizer as plain data, the way every format reads and writes it."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: dict[str, int]
    pattern: str | None


# The largest token id a file may hold: HF and tiktoken keep ids in 32 bits, and so do the arrays
# ``bpe-course encode`` writes (uint32), so a larger id could never be used anyway.
MAX_ID = 2**32 - 1


def parse_json(text: str, source: str | os.PathLike):
    """``json.loads`` whose error names ``source``, the line and the column.

    subtle: Python's JSON reader recurses once per bracket, so a file nested 100,000 deep raises
    ``RecursionError``, and it refuses an integer of more than 4,300 digits with a bare
    ``ValueError``; both are named here, with the file.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg} (truncated or damaged?)") from None
    except RecursionError:
        raise TokenizerFileError(f"{source}: JSON nested too deeply to read (thousands of brackets inside "
                                 "each other); no tokenizer file looks like that") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise TokenizerFileError(f"{source}: JSON this reader refuses: {exc}") from None


def is_id(value: object) -> TypeGuard[int]:
    """Whether ``value`` (read from JSON) is an integer id from 0 to ``MAX_ID`` (``True`` is not)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID


def parse_id(value: object, where: str) -> int:
    """A token id read from a file: a JSON integer, or a key of ASCII digits, from 0 to ``MAX_ID``.

    subtle: ``str.isdigit`` and ``int`` accept other scripts' digits ("٣" is 3), and ``int``
    also takes "+3", " 3" and "1_000"; a file's id is only ever plain ASCII digits.

    >>> parse_id("257", "t.json: vocab key")
    257
    >>> parse_id("٣", "t.json: vocab key")
    Traceback (most recent call last):
    ...
    bpe_course.errors.TokenizerFileError: t.json: vocab key '٣' is not a token id (ASCII digits, 0 to 4294967295)
    """
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= len(str(MAX_ID)):
        value = int(value)
    if is_id(value):
        return value
    shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:30]}... ({len(repr(value)):,} characters)"
    raise TokenizerFileError(f"{where} {shown} is not a token id (ASCII digits, 0 to {MAX_ID})")


def special_token_bytes(text: str, where: str) -> bytes:
    """The UTF-8 bytes of a special token read from a file; one that has none (a lone surrogate) is named."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TokenizerFileError(f"{where}: special token {text!r} has a lone surrogate "
                                 f"({text[exc.start]!r} at character {exc.start}), which is not text") from None


def read_json(path: str | os.PathLike):
    """Parse a UTF-8 JSON file; errors name the file, and the line and column for bad JSON."""
    return parse_json(read_utf8(path, TokenizerFileError), path)


def parse_merge(line: object, where: str) -> tuple[bytes, bytes]:
    """Read one merge written as two GPT-2-alphabet tokens joined by one space."""
    parts = line.split(" ") if isinstance(line, str) else []
    if len(parts) != 2 or not all(parts):
        raise TokenizerFileError(f"{where}: expected two tokens separated by one space, got {line!r}")
    return parse_token(parts[0], where), parse_token(parts[1], where)


def parse_token(text: object, where: str) -> bytes:
    """The bytes of one token written in GPT-2's byte alphabet."""
    if not isinstance(text, str):
        raise TokenizerFileError(f"{where}: expected a token string, got {text!r}")
    try:
        return str_to_token(text)
    except ValueError as exc:
        raise TokenizerFileError(f"{where}: {exc}") from None


def check_merges_known(merges: Iterable[tuple[bytes, bytes]], vocab_bytes: set[bytes],
                       where_of: Callable[[int], str]) -> None:
    """Every merge's two parts and its result must be tokens; ``where_of(k)`` names merge ``k``'s place."""
    for k, (a, b) in enumerate(merges):
        for role, part in (("left part", a), ("right part", b), ("result", a + b)):
            if part not in vocab_bytes:
                raise TokenizerFileError(f"{where_of(k)}: the merge's {role} {token_to_str(part)!r} "
                                         "is not in the vocabulary")
