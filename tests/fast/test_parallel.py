"""Forked workers and files read a block at a time (bpe_course.fast.parallel).

Workers (counting and encoding files): their results come back, their errors are raised in the parent
with the same message, a worker that dies is named, Ctrl-C stops them all, and no worker outlives the
call. Counting in workers and in blocks gives the serial counts. A bad byte in a learner's file is named
with its offset: the oracle is Python's own ``bytes.decode`` of the whole file, while the file is read a
block at a time (blocks made tiny here, so that bad bytes fall on every kind of place: inside a block, on
a block's edge, inside a character cut in two by the edge, at the very end, and in a forked worker's
part of the file)."""

from __future__ import annotations

import os
import pathlib
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from strategies import tricky_corpus

from bpe_course import corpus, train_bpe
from bpe_course.errors import CorpusError
from bpe_course.fast import parallel, parallel as parallel_count
from bpe_course.fast.count import SegmentCounter
from bpe_course.fast.parallel import add_text, count_parts, run_in_workers, worker_count
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN, pretokenize, split_specials
from bpe_course.train import count_pretokens


def no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def count_in_a_worker(count) -> Counter:
    """``count_parts`` with two parts: the first counted by ``count`` in a forked worker, the second here."""
    counts: Counter[str] = Counter()
    count_parts(count, "the cat sat", [0, 3, 11], [], SegmentCounter(GPT2_PATTERN), counts)
    return counts


def test_a_worker_returns_what_its_task_returns():
    def count(shared, start, end, specials, counter):
        add_text(shared, start, end, specials, counter)
        if start == 0:
            counter.add(f" pid{os.getpid()}")  # what only the worker can know: " pid", "<its process id>"

    counts = count_in_a_worker(count)
    [pid] = [int(piece) for piece in counts if piece.isdigit()]
    assert counts == Counter(["the", " cat", " sat", " pid", str(pid)])
    assert pid != os.getpid()  # counted in another process, sent back
    assert no_children_left()


def test_a_workers_error_is_raised_in_the_parent_with_its_message():
    def bad_byte(shared, start, end, specials, counter):
        if start == 0:
            raise CorpusError("big.txt: not valid UTF-8 at byte offset 1234 (byte 0xff)")

    with pytest.raises(CorpusError, match="byte offset 1234"):
        count_in_a_worker(bad_byte)
    assert no_children_left()


def test_an_error_that_cannot_be_pickled_is_still_reported():
    class Local(Exception):  # a class inside a function: pickle cannot name it
        pass

    def fail(shared, start, end, specials, counter):
        if start == 0:
            raise Local("what went wrong")

    with pytest.raises(RuntimeError, match="in a counting worker: .*what went wrong"):
        count_in_a_worker(fail)
    assert no_children_left()


def test_a_worker_that_dies_is_named_with_its_exit_status():
    def die(shared, start, end, specials, counter):
        if start == 0:
            os._exit(3)

    with pytest.raises(RuntimeError, match=r"ended without its counts \(exit status 3\)"):
        count_in_a_worker(die)
    assert no_children_left()


def test_counting_with_a_failing_worker_raises_and_leaves_no_worker(monkeypatch):
    text = "the cat sat on the mat " * 20_000
    cuts = [0, len(text) // 2 + text[len(text) // 2:].index(" t"), len(text)]
    calls = []

    def count(shared, start, end, specials, counter):
        calls.append(os.getpid())
        if start == 0:  # the worker's part
            raise CorpusError("the worker's part is damaged")
        add_text(shared, start, end, specials, counter)

    with pytest.raises(CorpusError, match="worker's part is damaged"):
        count_parts(count, text, cuts, [], SegmentCounter(GPT2_PATTERN), Counter())
    assert calls == [os.getpid()]  # the parent counted its own part; the worker's call was in the child
    assert no_children_left()


def test_a_megabyte_is_shared_out_and_counted_the_same(tmp_path, docs_text):
    text = (docs_text * (1 + parallel.PARALLEL_MIN_CHARS // len(docs_text)))[:parallel.PARALLEL_MIN_CHARS * 2]
    assert len(parallel.char_cuts(text, GPT2_PATTERN, [], None)) - 1 == min(os.cpu_count() or 1, 8)
    path = tmp_path / "text.txt"
    path.write_text(text, encoding="utf-8")
    assert count_pretokens(Path(path)) == count_pretokens(Path(path), workers=1) == count_pretokens(text, workers=1)
    assert no_children_left()


def nap_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_every_job_is_done_by_one_of_the_workers():
    found: dict[int, int] = {}
    start = time.perf_counter()
    run_in_workers(nap_then_pid, [(0.3,)] * 4 + [(0,)] * 20, 2, found.__setitem__)
    took = time.perf_counter() - start
    assert sorted(found) == list(range(24))
    assert len(set(found.values())) == 2 and os.getpid() not in found.values()  # two workers served every job
    assert took >= 0.6  # four naps of 0.3 s, two at a time: never all four at once
    assert no_children_left()


def test_one_worker_runs_the_jobs_here_in_order():
    order = []
    run_in_workers(nap_then_pid, [(0,), (0,)], 1, lambda k, pid: order.append((k, pid)))
    assert order == [(0, os.getpid()), (1, os.getpid())]


def test_a_failing_job_is_raised_and_stops_the_others():
    def job(k):
        if k == 2:
            raise CorpusError("notes.txt: not valid UTF-8 at byte offset 7 (byte 0xff)")
        time.sleep(30 if k == 0 else 0)  # the first is still running when the third fails
        return k

    start = time.perf_counter()
    with pytest.raises(CorpusError, match="byte offset 7"):
        run_in_workers(job, [(0,), (1,), (2,), (3,)], 3, lambda k, v: None)
    assert time.perf_counter() - start < 20  # the sleeping worker was stopped, not waited for
    assert no_children_left()


def test_an_encoding_worker_that_dies_is_named():
    with pytest.raises(RuntimeError, match=r"an encoding worker \(process \d+\) ended without its ids "
                                           r"\(exit status 5\)"):
        run_in_workers(os._exit, [(5,), (5,)], 2, lambda k, v: None, name="an encoding worker", gives="its ids")
    assert no_children_left()


def test_ctrl_c_while_waiting_stops_every_worker(monkeypatch):
    def ctrl_c(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, ctrl_c)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)  # Ctrl-C half a second in, while the parent waits
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            run_in_workers(nap_then_pid, [(30,)] * 3, 2, lambda k, v: None)
        assert time.perf_counter() - start < 20
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert no_children_left()


def test_the_worker_cap_is_one_rule(monkeypatch):
    assert worker_count(3) == 3 and worker_count(None) == min(os.cpu_count() or 1, parallel.MAX_WORKERS)
    monkeypatch.setattr(parallel, "CAN_FORK", False)  # Windows: no fork, so everything runs here
    assert worker_count(3) == worker_count(None) == 1


def test_ctrl_c_while_encoding_files_says_one_line_and_leaves_nothing(tmp_path, docs_text):
    import subprocess
    import sys
    big = tmp_path / "big.txt"
    big.write_text(docs_text * (16_000_000 // len(docs_text)), encoding="utf-8")  # ~16 MB: several seconds
    out = tmp_path / "ids.npy"
    proc = subprocess.Popen([sys.executable, "-m", "bpe_course", "encode", "--input", str(big), "--workers", "2",
                             "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # subtle: not a fixed delay (2.5 s was once too long: encoding had ended, and send_signal sends nothing to
    # a process that has ended); once its workers are encoding, a little later
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 60
    while children.exists() and not children.read_text().split() and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(0.3)
    assert proc.poll() is None, "encoding ended before Ctrl-C: make the test's text bigger"
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it: to the workers too
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1:] == ["bpe-course: interrupted"], err.decode()[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]  # no .npy, no folder of parts


STORM = """
import os, signal, subprocess, sys
from bpe_course.fast import parallel
me = os.getpid()
def handler(signum, frame):
    if os.getpid() != me:  # a worker that has not yet ignored Ctrl-C
        os.write(2, b"a worker got Ctrl-C before ignoring it\\n")
        os._exit(3)
signal.signal(signal.SIGINT, handler)
storm = subprocess.Popen([sys.executable, "-c", "import os, signal, sys, time\\nend = time.time() + 3\\n"
                          "while time.time() < end:\\n    os.kill(int(sys.argv[1]), signal.SIGINT)\\n"
                          "    os.killpg(int(sys.argv[1]), signal.SIGINT)\\n    time.sleep(0.0002)", str(me)],
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
forks = 0
while storm.poll() is None:
    found = {}
    parallel.run_in_workers(pow, [(2, 3), (3, 2)], 2, found.__setitem__)  # two workers started, each one job
    assert found == {0: 8, 1: 9}
    forks += 2
print(forks)
"""


def test_ctrl_c_as_a_worker_starts_never_reaches_it(tmp_path):
    """A terminal's Ctrl-C goes to every process of the job, workers too, even one just forked.

    Workers are started one after another for 3 s while Ctrl-C arrives every 0.2 ms; the parent
    counts the signals, and a worker that gets one before ignoring it says so. Without SIGINT held
    back across the fork, 263 of 616 workers got it here (as KeyboardInterrupt, in Python's own
    after-fork code or back in the parent's code, which the worker is a copy of).
    """
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", STORM], capture_output=True, timeout=120, start_new_session=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr.decode()[-2000:]
    assert int(proc.stdout) > 50  # workers did start during the storm


SPECIALS = ["<|endoftext|>", "<|end of text|>", "<|endoftext|><|endoftext|>"]

PATTERNS = [GPT2_PATTERN, GPT4_PATTERN]


def reference_counts(text: str, specials=(), pattern=GPT2_PATTERN) -> Counter:
    """Counting the obvious way: split out the specials, run the pattern over every piece."""
    counts = Counter()
    for piece, is_special in split_specials(text, specials):
        if not is_special:
            counts.update(pretokenize(piece, pattern))
    return counts


@pytest.mark.parametrize("pattern", PATTERNS)
def test_parallel_counting_equals_serial_with_specials_and_tricky_whitespace(docs_text, pattern):
    text = tricky_corpus(docs_text)
    expected = reference_counts(text, SPECIALS, pattern)
    for workers in (1, 2, 3):
        assert count_pretokens(text, SPECIALS, pattern, workers=workers) == expected


@pytest.mark.parametrize("pattern", PATTERNS)
def test_file_counting_in_blocks_and_workers_equals_serial(docs_text, tmp_path, monkeypatch, pattern):
    # Small blocks so that block ends fall inside words, multi-byte characters and special tokens.
    monkeypatch.setattr(parallel_count, "STREAM_BYTES", 4099)
    text = tricky_corpus(docs_text, seed=1)
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    expected = reference_counts(text, SPECIALS, pattern)
    for workers in (1, 2, 3):
        assert count_pretokens(path, SPECIALS, pattern, workers=workers) == expected


def test_counting_other_patterns_and_documents(docs_text):
    text = tricky_corpus(docs_text)[:50_000]
    for pattern in (r"\w+|\W", None):
        assert count_pretokens(text, SPECIALS, pattern, workers=2) == reference_counts(text, SPECIALS, pattern)
    docs = text.split("\n\n")
    assert count_pretokens(docs, SPECIALS) == sum((reference_counts(d, SPECIALS) for d in docs), Counter())


def test_parallel_counting_equals_naive_counting(docs_text):
    from bpe_course import GPT2_PATTERN, pretokenize, split_specials
    text = (docs_text + "<|endoftext|>") * 3
    naive = Counter(pretoken for piece, special in split_specials(text, ["<|endoftext|>"]) if not special
                    for pretoken in pretokenize(piece, GPT2_PATTERN))
    assert count_pretokens(text, ["<|endoftext|>"], workers=2) == naive


BOM = b"\xef\xbb\xbf"

GERMAN = corpus.load("languages/de")

GOOD = ("Grüße aus Köln — naïve café, 東京 and 🙂 emoji; plain ASCII words too.\n" * 40).encode("utf-8")


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 bytes, and workers from 1 KB on, so small files take every path a big one takes."""
    monkeypatch.setattr(parallel, "STREAM_BYTES", 64)
    monkeypatch.setattr(parallel, "EXPLICIT_MIN_CHARS", 1024)

    def whole_file(self):
        raise AssertionError(f"{self} was read whole")  # a file of many GB must never be
    monkeypatch.setattr(pathlib.Path, "read_bytes", whole_file)


def bad_offset(data: bytes) -> int:
    """Where Python's own decoder of the whole file finds the first bad byte."""
    with pytest.raises(UnicodeDecodeError) as found:
        data.decode("utf-8")
    return found.value.start


def damaged(at: int, bad: bytes = b"\xff", data: bytes = GOOD) -> bytes:
    return data[:at] + bad + data[at + len(bad):]


FIRST_MULTIBYTE = GOOD.index("ü".encode())

CASES = {
    "first block": damaged(10),
    "first byte of a block": damaged(128),
    "last byte of a block": damaged(191),
    "a character cut by a block's edge, then a bad continuation": damaged(
        next(i for i in range(64, len(GOOD), 64) if GOOD[i - 1] >= 0xC0), b"\x41"),
    "a lone continuation byte": damaged(FIRST_MULTIBYTE + 1, b"\x80\x80"),
    "an encoded surrogate": damaged(700, b"\xed\xa0\x80"),
    "truncated in the last character": GOOD + "€".encode()[:2],
    "deep in the second half (a worker's part)": damaged(len(GOOD) * 3 // 4),
    "after a byte-order mark": BOM + damaged(300),
}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("case", CASES)
def test_a_bad_byte_is_named_with_its_offset_in_the_file(tmp_path, small_blocks, case, workers):
    data = CASES[case]
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    offset = bad_offset(data)
    message = rf"notes\.txt: not valid UTF-8 at byte offset {offset} \(byte 0x{data[offset]:02x}\)"
    with pytest.raises(CorpusError, match=message):
        count_pretokens(path, workers=workers)


def test_a_file_rewritten_while_it_is_read(tmp_path, small_blocks, monkeypatch):
    """Valid when training starts, damaged after the first block is counted: the error names the bytes as read."""
    path = tmp_path / "notes.txt"
    path.write_bytes(GOOD * 8)  # subtle: past the 8 KB that Python's file object reads ahead
    real_add_text, calls = parallel.add_text, []

    def add_text_then_rewrite(*args):
        if not calls:
            with open(path, "r+b") as f:  # another program saves the file, same size, one byte now bad
                f.seek(20_000)
                f.write(b"\xfe")
        calls.append(1)
        real_add_text(*args)

    monkeypatch.setattr(parallel, "add_text", add_text_then_rewrite)
    with pytest.raises(CorpusError, match=r"notes\.txt: not valid UTF-8 at byte offset 20000 \(byte 0xfe\)"):
        count_pretokens(path, workers=1)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_byte_order_mark_is_not_learned(tmp_path, small_blocks, workers):
    text = GERMAN
    plain, marked = tmp_path / "plain.txt", tmp_path / "notepad.txt"
    plain.write_bytes(text.encode("utf-8"))
    marked.write_bytes(BOM + text.encode("utf-8"))
    assert count_pretokens(marked, workers=workers) == count_pretokens(plain, workers=workers)
    vocab, merges = train_bpe(marked, 400)
    assert not any(BOM in token for token in vocab.values())
    assert (vocab, merges) == train_bpe(plain, 400)
