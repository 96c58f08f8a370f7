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
from typing import NamedTuple

from ..bytelevel import str_to_token, token_to_str
from ..errors import TokenizerFileError
from ..files import read_utf8


class TokenizerData(NamedTuple):
    """A tokenizer as plain data, the way every format reads and writes it."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: dict[str, int]
    pattern: str | None


def parse_json(text: str, source: str | os.PathLike):
    """``json.loads`` whose error names ``source``, the line and the column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg} (truncated or damaged?)") from None


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
