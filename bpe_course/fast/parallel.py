"""Counting a big corpus in several processes, and a big file without holding all its text.

:func:`bpe_course.train.count_pretokens` cuts its input where no pre-token can change and
hands the parts to forked worker processes. A text is read from memory the workers share with
the parent through ``fork``, so nothing big is pickled; a file is never read whole: each worker
opens it and reads its own byte range a block at a time, so memory stays flat however big the
file (its cut points are found through a memory map, touching only the bytes near each cut).
Only the workers' pre-token counts come back.

Every worker process of the package is started here, one way (:func:`_start`): a bare ``os.fork``
whose child is sent job numbers through one pipe and sends each pickled result (or its error)
back through another -- one job per worker for counting (:func:`count_parts`), as many as come
for encoding files (:func:`run_in_workers`). The jobs themselves are never sent: the child is a
copy of this process and finds them in its own memory. A worker's error is raised in the parent with its own
message, a worker that dies is named with its exit status, Ctrl-C is reported once by the parent,
and no worker outlives the call.
"""

from __future__ import annotations

import mmap
import os
import pickle
import re
import select
import signal
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ..errors import CorpusError
from ..files import read_text_blocks
from ..pretokenize import TIKTOKEN_PATTERNS, safe_cut, split_specials
from .count import SegmentCounter

R = TypeVar("R")  # what a worker's task returns
_VISIBLE_SPACE = re.compile(rb"[!-~] [!-~]")
PARALLEL_MIN_CHARS = 1 << 19  # below this, starting a worker process costs more than it saves (see count_parts)
EXPLICIT_MIN_CHARS = 1 << 16  # with workers=N given, texts from this size on are shared out
MAX_WORKERS = 8  # the default number of workers is the number of cores, but at most this many
CAN_FORK = hasattr(os, "fork")  # workers are forked copies of this process: none on Windows
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
    workers: list[Worker] = []
    try:
        for start, end in bounds[:-1]:
            workers.append(_fork(_count_part, count, shared, start, end, specials, counter.pattern))
        # subtle: the parent finishes its own part (the regex over its distinct segments) while the
        # workers still run; left to the caller's final finish(), that work came after the wait
        counts.update(_count_part(count, shared, *bounds[-1], specials, counter.pattern))
        while workers:
            counts.update(_result(*workers.pop(0)))
    finally:
        for worker in workers:  # only after an error or Ctrl-C: stop the workers still running
            _stop(worker)


def _count_part(count, shared, start: int, end: int, specials: list[str], pattern: str | None) -> Counter[str]:
    counter = SegmentCounter(pattern)
    count(shared, start, end, specials, counter)
    return counter.finish(Counter())


def run_in_workers(task: Callable[..., R], jobs: Sequence[tuple], workers: int, done: Callable[[int, R], None], *,
                   name: str = "a worker", gives: str = "its result") -> None:
    """Call ``done(k, task(*jobs[k]))`` for every job, the tasks shared by ``workers`` forked worker processes.

    Each worker is handed its next job as soon as it is free, so short and long jobs mix well, and it
    keeps what it built along the way (a tokenizer's caches) from one job to the next. ``done`` is
    called here as each job is finished (not in the order of the jobs). With one worker, or where
    processes cannot be forked, the jobs run here one after another. A worker's error is raised here;
    on any error or Ctrl-C the workers still running are stopped. ``name`` and ``gives`` are for the
    message about a worker that died (``"an encoding worker"``, ``"its ids"``).

    >>> found = {}
    >>> run_in_workers(pow, [(2, 10), (3, 3), (5, 2)], 2, found.__setitem__)
    >>> found == {0: 1024, 1: 27, 2: 25}
    True
    """
    if workers <= 1 or not CAN_FORK:
        for k, job in enumerate(jobs):
            done(k, task(*job))
        return
    waiting = list(range(len(jobs)))[::-1]
    running: dict[int, tuple[Worker, int]] = {}  # a worker's answer pipe -> (the worker, the job it is on)
    try:
        for _ in range(min(workers, len(jobs))):
            worker = _start(task, jobs, name, [fd for w, _ in running.values() for fd in (w.orders, w.answers)])
            running[worker.answers] = (worker, waiting.pop())
            _order(worker, running[worker.answers][1])
        while running:
            ready, _, _ = select.select(list(running), [], [])  # subtle: raw pipes: no buffer hides an answer
            worker, k = running.pop(ready[0])
            result = _answer(worker, name, gives)
            if waiting:
                running[worker.answers] = (worker, waiting.pop())
                _order(worker, running[worker.answers][1])
            else:
                _order(worker, _STOP)
                _wait(worker, name, gives)
            done(k, result)
    finally:
        for worker, _ in running.values():  # only after an error or Ctrl-C
            _stop(worker)


class Worker(NamedTuple):
    """A forked worker process: it reads job numbers from ``orders`` and writes each outcome to ``answers``."""

    pid: int
    orders: int  # the pipe this process writes job numbers into
    answers: int  # the pipe this process reads outcomes from


_STOP = (1 << 32) - 1  # the job number that tells a worker to end
_NUMBER = 4  # bytes of a job number
_LENGTH = 8  # bytes of an answer's length, sent before the answer


def _start(task: Callable, jobs: Sequence[tuple], name: str, others: Sequence[int] = ()) -> Worker:
    """Fork a worker that runs ``task(*jobs[k])`` for each job number ``k`` it is sent, until it is told to stop.

    Its answer to each job is ``(True, result)`` or ``(False, exception)``, pickled; after an
    exception it ends. ``others``: the pipes of workers started before, which the child closes.
    """
    orders_read, orders_write = os.pipe()
    answers_read, answers_write = os.pipe()
    prctl, parent = _prctl(), os.getpid()
    # subtle: Ctrl-C is held back from just before the fork until the child ignores it. A terminal sends
    # it to every process of the job; one arriving as the child starts raised KeyboardInterrupt in the
    # child -- in Python's own after-fork code ("Exception ignored in: ... _after_fork", printed on the
    # terminal) or back in the parent's code, which the child is a copy of. The parent gets it on unblocking.
    mask = _block_ctrl_c()
    try:
        pid = os.fork()
    except BaseException:
        _unblock(mask)
        for fd in (orders_read, orders_write, answers_read, answers_write):
            os.close(fd)
        raise
    if pid:
        os.close(orders_read)
        os.close(answers_write)
        worker = Worker(pid, orders_write, answers_read)
        try:
            _unblock(mask)  # a Ctrl-C that came meanwhile is raised here
        except BaseException:
            _stop(worker)  # subtle: not yet in the caller's list of workers to stop
            raise
        return worker
    status = 1
    try:  # the child: from here on it only ever leaves through os._exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to report, once
        _unblock(mask)  # subtle: only now; a Ctrl-C held back meanwhile is dropped, as it is ignored
        if prctl is not None:  # subtle: a parent killed by SIGKILL takes its workers with it (Linux)
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # it died before the line above
                os._exit(status)
        for fd in (orders_write, answers_read, *others):
            os.close(fd)
        while (k := _next_order(orders_read)) != _STOP:
            try:
                outcome = (True, task(*jobs[k]))
            except BaseException as exc:  # sent to the parent, which raises it
                outcome = (False, exc)
            try:
                message = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # an error that cannot be pickled: send what it said
                message = pickle.dumps((False, RuntimeError(f"in {name}: {outcome[1]!r}")))
            _write(answers_write, len(message).to_bytes(_LENGTH, "little") + message)
            if not outcome[0]:
                break
        status = 0
    finally:
        # subtle: _exit, not exit: the child must not run the parent's exit handlers, nor flush the
        # output it inherited unwritten (it would be printed twice)
        os._exit(status)


def _block_ctrl_c():
    """Hold SIGINT back in this thread; the signal mask to restore with :func:`_unblock` (None where there is none)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _unblock(mask) -> None:
    """Restore the signal mask :func:`_block_ctrl_c` saved; a SIGINT that came meanwhile is delivered now."""
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


_PR_SET_PDEATHSIG = 1
_PRCTL: list = []  # [prctl or None], looked up once, in the parent


def _prctl():
    """Linux's ``prctl`` (for ``PR_SET_PDEATHSIG``: a worker is killed when its parent dies), else None.

    subtle: without it a SIGKILLed parent's workers would go on with their task, unread; elsewhere
    they end when their task does and they find the parent's pipe closed.
    """
    if not _PRCTL:
        try:
            import ctypes
            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None)
        except (OSError, AttributeError, ImportError):
            _PRCTL.append(None)
    return _PRCTL[0]


def _fork(task, *args, name: str = "a counting worker") -> Worker:
    """Start ``task(*args)`` in a forked worker, its only job; :func:`_result` gives what it returned."""
    worker = _start(task, [args], name)
    _write(worker.orders, (0).to_bytes(_NUMBER, "little") + _STOP.to_bytes(_NUMBER, "little"))
    return worker


def _result(pid: int, orders: int, answers: int, name: str = "a counting worker", gives: str = "its counts"):
    """What the only job of a worker from :func:`_fork` returned (its exception is raised here); waits for it to end."""
    worker = Worker(pid, orders, answers)
    result = _answer(worker, name, gives)
    _wait(worker, name, gives)
    return result


def _order(worker: Worker, k: int) -> None:
    """Send a worker the number of its next job (or :data:`_STOP`)."""
    try:
        _write(worker.orders, k.to_bytes(_NUMBER, "little"))
    except BrokenPipeError:
        pass  # subtle: the worker died; its answer pipe, closed without an answer, will say so


def _next_order(orders: int) -> int:
    """In a worker: the number of its next job; :data:`_STOP` when told so, or when the parent has gone."""
    data = _read(orders, _NUMBER)
    return int.from_bytes(data, "little") if data else _STOP


def _answer(worker: Worker, name: str, gives: str):
    """The outcome of a worker's job: its result, or its exception raised here. On an error or Ctrl-C the
    worker is stopped."""
    try:
        length = _read(worker.answers, _LENGTH)
        outcome: tuple[bool | None, Any] = (pickle.loads(_read(worker.answers, int.from_bytes(length, "little")))
                                            if length else (None, None))
        done, value = outcome
    except BaseException:  # Ctrl-C while waiting
        _stop(worker)
        raise
    if done is None:  # the worker died before it could answer (killed, out of memory)
        status = _wait(worker, name, gives, check=False)
        raise RuntimeError(f"{name} (process {worker.pid}) ended without {gives} (exit status {status})")
    if not done:
        _wait(worker, name, gives, check=False)
        raise value
    return value


def _wait(worker: Worker, name: str, gives: str, check: bool = True) -> int:
    """Wait for a worker that was told to stop (or failed) to end, close its pipes; its exit status."""
    os.close(worker.orders)
    os.close(worker.answers)
    _, status = os.waitpid(worker.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if check and code != 0:
        raise RuntimeError(f"{name} (process {worker.pid}) sent {gives} but then ended with exit status {code}")
    return code


def _stop(worker: Worker) -> None:
    """Stop a forked worker that is no longer wanted, close its pipes and reap it."""
    for fd in (worker.orders, worker.answers):
        try:
            os.close(fd)
        except OSError:  # already closed
            pass
    os.kill(worker.pid, signal.SIGKILL)
    os.waitpid(worker.pid, 0)


def _read(fd: int, size: int) -> bytes:
    """Exactly ``size`` bytes from the pipe ``fd``; fewer only at its end (the writer has gone)."""
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def worker_count(workers: int | None) -> int:
    """How many worker processes: ``workers`` if given, else one per core up to :data:`MAX_WORKERS`;
    always 1 where processes cannot be forked."""
    if not CAN_FORK:
        return 1
    return max(1, workers or min(os.cpu_count() or 1, MAX_WORKERS))


def _workers(size: int, workers: int | None) -> int:
    """How many processes count a text of ``size``: all cores by default, once the text is big."""
    smallest = PARALLEL_MIN_CHARS if workers is None else EXPLICIT_MIN_CHARS
    return 1 if size < smallest else worker_count(workers)


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
