"""Counting a big corpus in several processes, and a big file without holding all its text.

:func:`bpe_course.train.count_pretokens` cuts its input where no pre-token can change and
hands the parts to forked worker processes. A text is read from memory the workers share with
the parent through ``fork``, so nothing big is pickled; a file is never read whole: each worker
opens it and reads its own byte range a block at a time, so memory stays flat however big the
file (its cut points are found through a memory map, touching only the bytes near each cut).
Only the workers' pre-token counts come back.
"""

from __future__ import annotations

import mmap
import os
import pickle
import re
import signal
from collections import Counter
from pathlib import Path

from ..errors import CorpusError
from ..files import read_text_blocks
from ..pretokenize import TIKTOKEN_PATTERNS, safe_cut, split_specials
from .count import SegmentCounter

_VISIBLE_SPACE = re.compile(rb"[!-~] [!-~]")
PARALLEL_MIN_CHARS = 1 << 19  # below this, starting a worker process costs more than it saves (see count_parts)
EXPLICIT_MIN_CHARS = 1 << 16  # with workers=N given, texts from this size on are shared out
STREAM_BYTES = 1 << 20  # a file is decoded this many bytes at a time, so its text is never whole
RESAVE = "; re-save the file as UTF-8"  # what to do about a bad byte in a training file


def add_text(text: str, start: int, end: int, specials: list[str], counter: SegmentCounter) -> None:
    """Add the ordinary text of ``text[start:end]`` to ``counter``, special tokens split out."""
    for piece, is_special in split_specials(text[start:end], specials):
        if not is_special:
            counter.add(piece)


def add_file(path: str, start: int, end: int, specials: list[str], counter: SegmentCounter) -> None:
    """Read bytes ``start:end`` of the file ``path`` a block at a time, cutting the text only at safe places.

    The file is read by :func:`bpe_course.files.read_text_blocks`: a leading byte-order mark is not
    text, and a byte that is not UTF-8 raises :class:`CorpusError` naming the file and the byte's
    offset in it.

    subtle: only this range is ever in memory, a block at a time, so a worker's memory does not
    grow with the file; and a path, unlike the file's bytes, is cheap to hand to a worker.
    """
    carry = ""
    for block in read_text_blocks(path, CorpusError, start, end, block=STREAM_BYTES, hint=RESAVE):
        text = carry + block
        cut = safe_cut(text, counter.pattern, specials, limit=len(text) - 1)
        add_text(text, 0, cut, specials, counter)
        carry = text[cut:]
    add_text(carry, 0, len(carry), specials, counter)


def count_parts(count, shared, cuts: list[int], specials: list[str], counter: SegmentCounter,
                counts: Counter[str]) -> None:
    """Count ``shared`` cut at ``cuts``: the last part here, the others in forked workers.

    subtle: a worker is a bare ``os.fork`` that sends its counts back through a pipe (about 3 ms to
    start), not a ``multiprocessing`` pool (about 20 ms): that difference decides whether a
    megabyte is worth sharing out. The worker sees ``shared`` because it is a copy of this process.
    """
    bounds = list(zip(cuts, cuts[1:]))
    if len(bounds) == 1:
        count(shared, *bounds[0], specials, counter)
        return
    workers: list[tuple[int, int]] = []
    try:
        for start, end in bounds[:-1]:
            workers.append(_fork(_count_part, count, shared, start, end, specials, counter.pattern))
        # subtle: the parent finishes its own part (the regex over its distinct segments) while the
        # workers still run; left to the caller's final finish(), that work came after the wait
        counts.update(_count_part(count, shared, *bounds[-1], specials, counter.pattern))
        while workers:
            counts.update(_result(*workers.pop(0)))
    finally:
        for pid, pipe in workers:  # only after an error or Ctrl-C: stop the workers still running
            _stop(pid, pipe)


def _count_part(count, shared, start: int, end: int, specials: list[str], pattern: str | None) -> Counter[str]:
    counter = SegmentCounter(pattern)
    count(shared, start, end, specials, counter)
    return counter.finish(Counter())


def _fork(task, *args) -> tuple[int, int]:
    """Start ``task(*args)`` in a forked child; its pid, and the pipe its pickled outcome will come through."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    status = 1
    try:  # the child: from here on it only ever leaves through os._exit
        os.close(read)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to report, once
        try:
            outcome = (True, task(*args))
        except BaseException as exc:  # sent to the parent, which raises it
            outcome = (False, exc)
        try:
            message = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an error that cannot be pickled: send what it said
            message = pickle.dumps((False, RuntimeError(f"in a counting worker: {outcome[1]!r}")))
        with open(write, "wb") as pipe:
            pipe.write(message)
        status = 0
    finally:
        # subtle: _exit, not exit: the child must not run the parent's exit handlers, nor flush the
        # output it inherited unwritten (it would be printed twice)
        os._exit(status)


def _result(pid: int, pipe: int):
    """What a forked ``task`` returned (its exception is raised here); waits for the child to end."""
    try:
        with open(pipe, "rb") as f:
            done, value = pickle.load(f)
    except EOFError:  # the child died before it could answer (killed, out of memory)
        done = None
    except BaseException:  # Ctrl-C while waiting
        _stop(pid, None)
        raise
    _, status = os.waitpid(pid, 0)
    if done is None:
        raise RuntimeError(f"a counting worker (process {pid}) ended without its counts "
                           f"(exit status {os.waitstatus_to_exitcode(status)})")
    if not done:
        raise value
    return value


def _stop(pid: int, pipe: int | None) -> None:
    """Stop a forked child that is no longer wanted, and reap it."""
    if pipe is not None:
        os.close(pipe)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def quiet_on_interrupt() -> None:
    """In a worker: leave Ctrl-C to the parent, which stops the pool and says so once (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _workers(size: int, workers: int | None) -> int:
    """How many processes count a text of ``size``: all cores by default, once the text is big."""
    smallest = PARALLEL_MIN_CHARS if workers is None else EXPLICIT_MIN_CHARS
    if size < smallest or not hasattr(os, "fork"):  # workers are forks (none on Windows)
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


def byte_cuts(data: bytes | mmap.mmap, pattern: str | None, specials: list[str], workers: int | None) -> list[int]:
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


def file_size(path: Path) -> int:
    """The size of a corpus file; a missing file or a folder is a clear error."""
    if path.is_dir():
        raise CorpusError(f"{path} is a directory, not a text file")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return path.stat().st_size
