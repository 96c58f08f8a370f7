"""Peak memory of a whole process tree: the summed proportional set size (PSS), sampled from a thread.

The kernel's high-water mark (``VmHWM``) is per process: a trainer that forks workers has one
for itself and one for each worker, and adding them counts the pages they share (the parent's
copy-on-write memory) several times. PSS splits every shared page between the processes mapping
it, so the sum over the tree is the memory the tree really holds. The kernel keeps no peak of it,
so :class:`TreePss` reads ``/proc/<pid>/smaps_rollup`` of the process and of all its descendants
every ``interval`` seconds and keeps the largest sum.

subtle: a sample is a lower bound: a peak shorter than the interval, or a worker that starts and
ends between two samples, can be missed. Sampling costs about a millisecond of one core per
sample (the scan of ``/proc`` for descendants), and holds the GIL briefly.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

PROC = Path("/proc")


def children_map() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process we can see.

    subtle: ``/proc/<pid>/task/<tid>/children`` would be quicker, but kernels built without
    CONFIG_PROC_CHILDREN lack it; every ``/proc/<pid>/stat`` names the parent.
    """
    tree: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            stat = (PROC / entry.name / "stat").read_bytes()
        except OSError:  # the process ended meanwhile
            continue
        # subtle: the command name (in parentheses) may hold spaces and ")"; the fields after the last ")" do not
        fields = stat[stat.rindex(b")") + 2:].split()
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    tree, found, todo = children_map(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += tree.get(current, [])
    return found


def pss_kb(pid: int) -> int:
    """The proportional set size of one process in KB (0 if it is gone or unreadable)."""
    try:
        rollup = (PROC / str(pid) / "smaps_rollup").read_text()
    except OSError:
        return 0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def tree_pss_mb(pid: int | None = None) -> float:
    """The summed PSS of ``pid`` (default: this process) and its descendants, in MB."""
    return sum(pss_kb(p) for p in descendants(pid or os.getpid())) / 1024


class TreePss:
    """``with TreePss() as peak: work()``, then ``peak.mb``: the largest summed PSS seen meanwhile."""

    def __init__(self, interval: float = 0.1):
        self.interval = interval
        self.mb = 0.0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        self.mb = max(self.mb, tree_pss_mb())
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> TreePss:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()  # subtle: the end state too (forked workers are gone by then; what the parent kept is not)
