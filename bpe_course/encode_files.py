"""Encode text files to a NumPy ``.npy`` array of token ids, in flat memory and on every core.

This is the step between a tokenizer and a language model's training loop (nanoGPT and Stanford
CS336 both read a flat ``.npy`` of ids): the ids equal ``tokenizer.encode`` of each file's whole
text, files one after another, optionally with a special token after each document. Nothing holds
a whole file: each worker streams its own byte range of a file (cut where no pre-token can change,
as counting does in :mod:`bpe_course.fast.parallel`) through ``encode_iterable`` and writes its ids
to a temporary file a block at a time; the parent joins those into the ``.npy``.

The ``.npy`` is written without NumPy (its format is a short header and the raw numbers): ``uint16``
when every id fits, else ``uint32``.

>>> import tempfile, pathlib
>>> from bpe_course import gpt2
>>> with tempfile.TemporaryDirectory() as tmp:
...     text = pathlib.Path(tmp) / "a.txt"
...     _ = text.write_text("Hello world", encoding="utf-8")
...     n = encode_files(gpt2(), [text], pathlib.Path(tmp) / "ids.npy")
...     header = (pathlib.Path(tmp) / "ids.npy").read_bytes()[:128]
>>> n, b"'descr': '<u2'" in header
(2, True)
"""

from __future__ import annotations

import mmap
import os
import shutil
import sys
import tempfile
from array import array
from collections.abc import Sequence
from typing import Any
from pathlib import Path

from .errors import CorpusError
from .fast.parallel import RESAVE, byte_cuts, run_in_workers, worker_count
from .files import LOCK, folder_lock, read_text_blocks
from .formats.common import MAX_ID
from .tokenizer import Tokenizer

READ_BYTES = 1 << 20  # a worker reads and decodes its range this many bytes at a time
PARTS_PREFIX = ".encode-"  # the folder of a call's parts, beside the .npy: removed at the end, or by a later call
WRITE_IDS = 1 << 18  # ids read at a time when the parts are joined into the .npy
_U32 = "I" if array("I").itemsize == 4 else "L"  # a 32-bit unsigned typecode
SPECIALS_MODES: dict[str, dict[str, Any]] = {"allow": {"allowed_special": "all"}, "text": {"disallowed_special": ()},
                                             "error": {}}


def encode_files(tokenizer: Tokenizer, paths: Sequence[str | os.PathLike], out: str | os.PathLike, *,
                 separator: str | None = None, specials: str = "allow", workers: int | None = None,
                 progress: bool = False) -> int:
    """Write the ids of ``paths`` (UTF-8 files, in order) to the ``.npy`` file ``out``; return how many.

    ``separator``, a special token of ``tokenizer`` such as ``"<|endoftext|>"``, is put after every
    file. ``specials`` says what special-token text inside the files becomes: ``"allow"`` its id,
    ``"text"`` ordinary text, ``"error"`` a ``ValueError``. ``workers`` processes share big files
    (default: all cores, up to 8).
    """
    if specials not in SPECIALS_MODES:
        raise ValueError(f"specials must be one of {sorted(SPECIALS_MODES)}, not {specials!r}")
    if separator is not None and separator not in tokenizer.special_tokens:
        raise ValueError(f"separator {separator!r} is not a special token of this tokenizer "
                         f"(it has {sorted(tokenizer.special_tokens)})")
    if max(tokenizer.vocab) > MAX_ID:  # subtle: found now, not as an OverflowError after hours of encoding
        raise ValueError(f"token id {max(tokenizer.vocab)} does not fit the .npy's uint32 ids (at most {MAX_ID})")
    files = [Path(p) for p in paths]
    for path in files:
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
    jobs, file_ends = [], set()
    for path in files:
        jobs += [(path, start, end) for start, end in _ranges(path, tokenizer, workers)]
        file_ends.add(len(jobs) - 1)  # the separator goes after a file's last range
    out = Path(out)
    folder = out.parent if out.parent.exists() else None
    remove_stale_parts(folder or Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix=PARTS_PREFIX, dir=folder) as tmp, \
            folder_lock(tmp, RuntimeError, "another encode_files is using"):  # the lock says: alive
        parts = [Path(tmp) / f"part{k}.ids" for k in range(len(jobs))]
        # subtle: when every id of the tokenizer fits 16 bits, the workers write them so and the parts are only
        # copied into the .npy; otherwise as 32 bits, narrowed here if the ids found all fit after all
        typecode = "H" if max(tokenizer.vocab) < 1 << 16 else _U32
        args = [(*job, part, specials, typecode) for job, part in zip(jobs, parts)]
        bar = _bar(sum(end - start for _, start, end in jobs), progress)
        results = _run(tokenizer, args, workers, bar)
        separator_id = tokenizer.special_tokens[separator] if separator is not None else None
        biggest = max([m for _, m in results] + [separator_id or 0])
        total = sum(n for n, _ in results) + (len(paths) if separator_id is not None else 0)
        _write_npy(out, parts, typecode, total, biggest, file_ends if separator_id is not None else set(),
                   separator_id)
    return total


def remove_stale_parts(folder: Path) -> int:
    """Remove the parts folders (``.encode-*``) that a killed ``encode_files`` left in ``folder``; how many.

    A running call holds the lock file inside its folder (:func:`bpe_course.files.folder_lock`);
    the system lets go of it when the process ends, however it ends, so a folder whose lock can be
    taken was left by a process that is gone. (Without ``fcntl``, on Windows, nothing is removed.)
    """
    try:
        import fcntl
    except ImportError:
        return 0
    removed = 0
    for parts in folder.glob(f"{PARTS_PREFIX}*"):
        try:
            fd = os.open(parts / LOCK, os.O_WRONLY)
        except OSError:  # no lock (yet, or a folder not ours): left alone
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its process is alive
        finally:
            os.close(fd)
        shutil.rmtree(parts, ignore_errors=True)
        removed += 1
    return removed


def _ranges(path: Path, tokenizer: Tokenizer, workers: int | None) -> list[tuple[int, int]]:
    """Byte ranges of ``path`` that can be encoded on their own (one unless the file is big)."""
    size = path.stat().st_size
    if size == 0:
        return [(0, 0)]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        cuts = byte_cuts(data, tokenizer.pattern, list(tokenizer.special_tokens), workers)
    return list(zip(cuts, cuts[1:]))


def _bar(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, unit="B", unit_scale=True, desc="encoding")


def _run(tokenizer: Tokenizer, args: list[tuple], workers: int | None, bar) -> list[tuple[int, int]]:
    """Encode every range, in forked workers when there are several; ``(ids written, largest id)`` each.

    subtle: the workers are forked copies of this process (:func:`bpe_course.fast.parallel.run_in_workers`),
    so each finds ``tokenizer`` in its own memory: a Tokenizer is never pickled, only two numbers come back.
    """
    results: list[tuple[int, int]] = [(0, 0)] * len(args)

    def done(k: int, result: tuple[int, int]) -> None:
        results[k] = result
        if bar is not None:
            bar.update(args[k][2] - args[k][1])

    try:
        run_in_workers(_encode_range, [(tokenizer, *a) for a in args], min(len(args), worker_count(workers)), done,
                       name="an encoding worker", gives="its ids")
    finally:
        if bar is not None:
            bar.close()
    return results


def _encode_range(tokenizer: Tokenizer, path: Path, start: int, end: int, part: Path,
                  specials: str, typecode: str = _U32) -> tuple[int, int]:
    """Encode bytes ``start:end`` of ``path`` into ``part`` (raw little-endian numbers of ``typecode``, an
    ``array`` code); the count and the largest id."""
    written, biggest = 0, 0
    text = read_text_blocks(path, CorpusError, start, end, block=READ_BYTES, hint=RESAVE)
    with open(part, "wb") as out:
        # subtle: a list of ids per stretch of text (a megabyte's worth at most), stored in C: a Python step
        # per id (array.append over encode_iterable) took about as long as the encoding itself
        for block in tokenizer._encode_blocks(text, **SPECIALS_MODES[specials]):
            if block:
                biggest = max(biggest, max(block))
                _little_endian(array(typecode, block)).tofile(out)
                written += len(block)
    return written, biggest


def _write_npy(out: Path, parts: list[Path], typecode: str, total: int, biggest: int, separate_after: set[int],
               separator_id: int | None) -> None:
    """Join the parts (little-endian numbers of ``typecode``) into a version-1.0 ``.npy`` of ``uint16`` (when
    every id fits) or ``uint32``."""
    narrow = biggest < 1 << 16
    size = array(typecode).itemsize
    header = f"{{'descr': '{'<u2' if narrow else '<u4'}', 'fortran_order': False, 'shape': ({total},), }}"
    header += " " * (-(len(header) + 11) % 64) + "\n"  # subtle: the data starts at a multiple of 64 bytes
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin-1"))
            for k, part in enumerate(parts):
                with open(part, "rb") as src:
                    if narrow == (typecode == "H"):  # already as the .npy holds them
                        shutil.copyfileobj(src, f, size * WRITE_IDS)
                    while narrow and typecode != "H" and (block := src.read(size * WRITE_IDS)):
                        ids = array(typecode)
                        ids.frombytes(block)
                        _little_endian(array("H", _little_endian(ids))).tofile(f)
                if k in separate_after:
                    _little_endian(array("H" if narrow else _U32, [separator_id])).tofile(f)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _little_endian(numbers: array) -> array:
    """``.npy`` says little-endian (``<``): swap the bytes on a big-endian machine."""
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers
