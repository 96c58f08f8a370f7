"""What every tokenizer file format shares: the error type, careful reading, atomic writing.

Each reader reports a broken file as :class:`TokenizerFileError` with a message that names the
file and the line (or JSON key) at fault, so a learner never has to read a traceback.

>>> parse_merge("Ġ t", "vocab.bpe, line 2")
(b' ', b't')
>>> parse_merge("Ġt", "vocab.bpe, line 3")
Traceback (most recent call last):
...
bpe_course.formats_base.TokenizerFileError: vocab.bpe, line 3: expected two tokens separated by one space, got 'Ġt'
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .bytelevel import str_to_token, token_to_str


class TokenizerFileError(ValueError):
    """A tokenizer file that cannot be read; the message names the file and the line or key."""


def read_text(path: str | os.PathLike) -> str:
    """A whole file as UTF-8 text; a bad byte is reported with its offset."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokenizerFileError(f"{path}: not UTF-8 (byte offset {exc.start})") from None


def parse_json(text: str, source: str | os.PathLike):
    """``json.loads`` whose error names ``source``, the line and the column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg} (truncated or damaged?)") from None


def read_json(path: str | os.PathLike):
    """Parse a UTF-8 JSON file; errors name the file, and the line and column for bad JSON."""
    return parse_json(read_text(path), path)


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


def make_tokenizer(vocab: Mapping[int, bytes], merges: list, specials: Mapping[str, int],
                   pattern: str | None, source: str | os.PathLike):
    """Build a :class:`~bpe_course.Tokenizer`, turning its ``ValueError`` into a file error."""
    from .tokenizer import Tokenizer
    try:
        return Tokenizer(vocab, merges, specials, pattern=pattern)
    except ValueError as exc:
        raise TokenizerFileError(f"{source}: {exc}") from None


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so a failure leaves no half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if isinstance(data, str):
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(data)
        else:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # subtle: mkstemp makes 0600 files; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
