"""Counting a big corpus in several processes, and a big file without holding all its text.

:func:`bpe_course.train.count_pretokens` cuts its input where no pre-token can change and
hands the parts to forked worker processes. The workers read the text (or the file's bytes)
from memory they share with the parent through ``fork``, so nothing big is pickled; only their
pre-token counts come back. A file is decoded a block at a time, so its whole text never sits
in memory (a 16 MB file with one emoji in it would otherwise take 64 MB as a ``str``).
"""

from __future__ import annotations

import codecs
import multiprocessing
import os
import re
from collections import Counter
from pathlib import Path

from ..errors import CorpusError
from ..pretokenize import TIKTOKEN_PATTERNS, safe_cut, split_specials
from .count import SegmentCounter

_VISIBLE_SPACE = re.compile(rb"[!-~] [!-~]")
PARALLEL_MIN_CHARS = 2_000_000  # below this, starting a worker process costs more than it saves
EXPLICIT_MIN_CHARS = 1 << 16  # with workers=N given, texts from this size on are shared out
STREAM_BYTES = 1 << 20  # a file is decoded this many bytes at a time, so its text is never whole
_SHARED: object = None  # what forked workers read: the text or the file's bytes (never pickled)


def add_text(text: str, start: int, end: int, specials: list[str], counter: SegmentCounter) -> None:
    """Add the ordinary text of ``text[start:end]`` to ``counter``, special tokens split out."""
    for piece, is_special in split_specials(text[start:end], specials):
        if not is_special:
            counter.add(piece)


def add_bytes(data: bytes, start: int, end: int, specials: list[str], counter: SegmentCounter) -> None:
    """Decode ``data[start:end]`` a block at a time, cutting the text only at safe places."""
    decode = codecs.getincrementaldecoder("utf-8")().decode
    carry = ""
    for at in range(start, end, STREAM_BYTES):
        text = carry + decode(memoryview(data)[at:min(at + STREAM_BYTES, end)], at + STREAM_BYTES >= end)
        cut = safe_cut(text, counter.pattern, specials, limit=len(text) - 1) if at + STREAM_BYTES < end else len(text)
        add_text(text, 0, cut, specials, counter)
        carry = text[cut:]
    add_text(carry, 0, len(carry), specials, counter)


def count_parts(count, shared, cuts: list[int], specials: list[str], counter: SegmentCounter,
                counts: Counter[str]) -> None:
    """Count ``shared`` cut at ``cuts``: the last part here, the others in forked workers."""
    global _SHARED
    bounds = list(zip(cuts, cuts[1:]))
    if len(bounds) == 1:
        count(shared, *bounds[0], specials, counter)
        return
    _SHARED = shared
    try:
        with multiprocessing.get_context("fork").Pool(len(bounds) - 1) as pool:
            pending = pool.starmap_async(_count_in_worker, [(count, s, e, specials, counter.pattern)
                                                            for s, e in bounds[:-1]])
            count(shared, *bounds[-1], specials, counter)
            for part in pending.get():
                counts.update(part)
    finally:
        _SHARED = None


def _count_in_worker(count, start: int, end: int, specials: list[str], pattern: str | None) -> Counter[str]:
    counter = SegmentCounter(pattern)
    count(_SHARED, start, end, specials, counter)
    return counter.finish(Counter())


def _workers(size: int, workers: int | None) -> int:
    """How many processes count a text of ``size``: all cores by default, once the text is big."""
    smallest = PARALLEL_MIN_CHARS if workers is None else EXPLICIT_MIN_CHARS
    if size < smallest or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, workers or min(os.cpu_count() or 1, 8))


def char_cuts(text: str, pattern: str | None, specials: list[str], workers: int | None) -> list[int]:
    """Cut points ``[0, ..., len(text)]``: one part per worker, cut only where pre-tokens cannot change."""
    workers = _workers(len(text), workers)
    cuts = [0]
    for k in range(1, workers):
        cut = safe_cut(text, pattern, specials, limit=len(text) * k // workers)
        if cut > cuts[-1]:
            cuts.append(cut)
    return cuts + [len(text)]


def byte_cuts(data: bytes, pattern: str | None, specials: list[str], workers: int | None) -> list[int]:
    """Cut points in a UTF-8 file's bytes: an ASCII space between two visible ASCII characters.

    subtle: such a space is a safe cut for the GPT patterns (see ``safe_cut``), it is a character
    boundary, and we also make sure that no special token's bytes run across it.
    """
    workers = _workers(len(data), workers) if pattern in TIKTOKEN_PATTERNS else 1
    cuts = [0]
    for k in range(1, workers):
        for found in _VISIBLE_SPACE.finditer(data, max(len(data) * k // workers, cuts[-1])):
            cut = found.start() + 1
            if not any(0 <= data.find(s, max(0, cut - len(s) + 1), cut + len(s) - 1) < cut
                       for s in (t.encode("utf-8") for t in specials)):
                cuts.append(cut)
                break
    return cuts + [len(data)]


def read_bytes(path: Path) -> bytes:
    """The bytes of a corpus file; a missing file or a folder is a clear error."""
    if path.is_dir():
        raise CorpusError(f"{path} is a directory, not a text file")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return path.read_bytes()
