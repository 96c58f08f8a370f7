"""Forked counting workers: their counts come back, their errors are raised in the parent with the
same message, a worker that dies is named, and no worker outlives the call."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from bpe_course import count_pretokens
from bpe_course.errors import CorpusError
from bpe_course.fast import parallel
from bpe_course.fast.parallel import _fork, _result, add_text, count_parts
from bpe_course.fast.count import SegmentCounter
from bpe_course.pretokenize import GPT2_PATTERN


def no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_worker_returns_what_its_task_returns():
    assert _result(*_fork(lambda a, b: Counter({a: b}), "the", 3)) == Counter({"the": 3})
    assert no_children_left()


def test_a_workers_error_is_raised_in_the_parent_with_its_message():
    def bad_byte():
        raise CorpusError("big.txt: not valid UTF-8 at byte offset 1234 (byte 0xff)")

    with pytest.raises(CorpusError, match="byte offset 1234"):
        _result(*_fork(bad_byte))
    assert no_children_left()


def test_an_error_that_cannot_be_pickled_is_still_reported():
    class Local(Exception):  # a class inside a function: pickle cannot name it
        pass

    def fail():
        raise Local("what went wrong")

    with pytest.raises(RuntimeError, match="in a counting worker: .*what went wrong"):
        _result(*_fork(fail))
    assert no_children_left()


def test_a_worker_that_dies_is_named_with_its_exit_status():
    with pytest.raises(RuntimeError, match=r"ended without its counts \(exit status 3\)"):
        _result(*_fork(os._exit, 3))
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
