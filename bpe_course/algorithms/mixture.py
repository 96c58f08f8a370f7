"""What a merge list says about its training mix: data-mixture inference (Hayase et al., NeurIPS 2024).

BPE's merge ``t`` is the pair that was most frequent in the training text once merges ``0 .. t-1``
had been applied. If that text was a mix of categories (languages, code, prose) holding shares
``alpha_i`` of its bytes, the count of a pair ``p`` in the mix is ``sum_i alpha_i c_i(p)``, where
``c_i(p)`` is the pair's count *per byte* of category ``i``'s text after the same merges. So each
step ``t``, with ``m_t`` the pair merged there, gives one linear inequality per other pair:

    sum_i alpha_i c_i[t](m_t)  >=  sum_i alpha_i c_i[t](p)          for every pair p != m_t

Sample text of each category gives estimates of ``c_i`` (:func:`pair_trajectory`). Estimates
conflict, so every inequality gets slack, ``v_t`` for its step and ``v_p`` for its pair, and the
linear program asks for the mix that needs the least slack in all (:func:`infer_mixture`):

    minimise  sum_t v_t + sum_p v_p
    such that sum_i alpha_i (c_i[t](m_t) - c_i[t](p)) + v_t + v_p >= 0   for every t and p != m_t
              alpha >= 0, sum_i alpha_i = 1, v >= 0

That is one inequality for every pair at every step: millions. Almost all hold with room to spare,
so the program starts with none and adds, round by round, only those the current answer breaks
(lazy constraint generation); when a round finds none broken, the answer is the full program's.

>>> words = {b"ab": 10, b"cd": 1}
>>> traj = pair_trajectory(words, [(b"a", b"b"), (b"c", b"d")])
>>> traj.counts_at(0), traj.counts_at(1), traj.chosen
({(b'a', b'b'): 10, (b'c', b'd'): 1}, {(b'c', b'd'): 1}, [10, 1])
"""

from __future__ import annotations

import heapq
import math
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..pairs import merge_pair
from ..pretokenize import resolve_pattern
from ..train import count_pretokens

Pair = tuple[bytes, bytes]
PER_MB = 1e6  # counts are per million bytes inside the program, so its numbers are neither tiny nor huge
TOLERANCE = 1e-6  # a constraint counts as broken when it misses by more than this (counts per million bytes)


# ---------------------------------------------------------------- a category's pair counts, merge by merge

class Trajectory(NamedTuple):
    """The pair counts of one category's sample while merges are applied to it, stored as changes.

    ``start`` is every pair's count before any merge; ``changes[t]`` the new count of each pair that
    merge ``t`` changed (0 when it vanished); ``chosen[t]`` the count of merge ``t``'s own pair just
    before it was applied; ``n_bytes`` the sample's UTF-8 bytes.
    """
    start: dict[Pair, int]
    changes: list[dict[Pair, int]]
    chosen: list[int]
    n_bytes: int

    def counts_at(self, t: int) -> dict[Pair, int]:
        """Every pair's count before merge ``t`` (after merges ``0 .. t-1``), zeros left out."""
        counts = dict(self.start)
        for change in self.changes[:t]:
            counts.update(change)
        return {p: c for p, c in counts.items() if c}


def pair_trajectory(words: Mapping[bytes, int], merges: Sequence[Pair], n_bytes: int | None = None) -> Trajectory:
    """Apply ``merges`` in order to pre-token counts ``{piece bytes: count}``, recording every pair count that changes.

    Only the pieces holding the merged pair are touched (an index from each pair to them), so a
    merge costs what it changes, as in training.

    >>> traj = pair_trajectory({b"aaa": 2, b"ab": 1}, [(b"a", b"a"), (b"aa", b"a")])
    >>> traj.start, traj.changes[0]  # "aaa" becomes "aa"+"a": pair aa is gone, (aa, a) appears
    ({(b'a', b'a'): 4, (b'a', b'b'): 1}, {(b'aa', b'a'): 2, (b'a', b'a'): 0})
    """
    seqs = [tuple(w[i:i + 1] for i in range(len(w))) for w in words]
    weights = list(words.values())
    pairs: Counter[Pair] = Counter()
    where: dict[Pair, set[int]] = {}
    for i, (seq, n) in enumerate(zip(seqs, weights)):
        for p in zip(seq, seq[1:]):
            pairs[p] += n
            where.setdefault(p, set()).add(i)
    start = {p: c for p, c in pairs.items() if c}
    changes, chosen = [], []
    for pair in merges:
        chosen.append(pairs.get(pair, 0))
        changed: dict[Pair, None] = {}
        for i in where.pop(pair, ()):
            old = seqs[i]
            new = merge_pair(old, pair)
            if new == old:  # subtle: the index is never cleaned, so a piece may no longer hold the pair
                continue
            n = weights[i]
            delta = Counter(zip(new, new[1:]))
            delta.subtract(zip(old, old[1:]))
            for p, d in delta.items():
                if d:
                    pairs[p] += d * n
                    changed[p] = None
                    if d > 0:
                        where.setdefault(p, set()).add(i)
            seqs[i] = new
        for p in changed:
            if not pairs[p]:
                del pairs[p]
        changes.append({p: pairs.get(p, 0) for p in changed})
    total = n_bytes if n_bytes is not None else sum(len(w) * n for w, n in words.items())
    return Trajectory(start, changes, chosen, total)


def pretoken_bytes(text: str | Iterable[str], pattern: str | None = "gpt2") -> dict[bytes, int]:
    """``{piece as UTF-8 bytes: count}``: the pre-tokens of ``text`` (or of each document of it)."""
    return {w.encode("utf-8"): n for w, n in count_pretokens(text, pattern=resolve_pattern(pattern)).items()}


def text_trajectory(text: str | Sequence[str], merges: Sequence[Pair], pattern: str | None = "gpt2") -> Trajectory:
    """:func:`pair_trajectory` of a sample text (a string, or documents), cut by ``pattern``."""
    docs = [text] if isinstance(text, str) else list(text)
    n_bytes = sum(len(d.encode("utf-8")) for d in docs)
    return pair_trajectory(pretoken_bytes(docs, pattern), merges, n_bytes)


# ---------------------------------------------------------------- the linear program

class Inference(NamedTuple):
    """The mix :func:`infer_mixture` found, and what it took."""
    weights: dict[str, float]  # each category's share of the training bytes
    slack: float  # the program's objective: total slack, in counts per million bytes
    constraints: int  # inequalities the rounds added (of the millions the full program has)
    rounds: int  # programs solved
    steps_used: int  # merges whose pair occurs in some sample (the others say nothing and are skipped)
    seconds: float


class _Problem:
    """Every category's counts laid out for the program: pair ids, the changes per step, count lookups."""

    def __init__(self, trajectories: Sequence[Trajectory], merges: Sequence[Pair]) -> None:
        self.n = len(trajectories)
        ids: dict[Pair, int] = {}
        scale = [PER_MB / t.n_bytes for t in trajectories]
        for pair in merges:
            ids.setdefault(pair, len(ids))
        start_rows: list[tuple[int, int, float]] = []
        for i, traj in enumerate(trajectories):
            for p, c in traj.start.items():
                start_rows.append((ids.setdefault(p, len(ids)), i, c * scale[i]))
        self.steps: list[list[tuple[int, int, float]]] = [[] for _ in merges]
        for i, traj in enumerate(trajectories):
            for t, change in enumerate(traj.changes[:len(merges)]):
                self.steps[t] += [(ids.setdefault(p, len(ids)), i, c * scale[i]) for p, c in change.items()]
        self.ids = ids
        self.merge_ids = [ids[p] for p in merges]
        self._step_arrays = [(np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64),
                              np.array([r[2] for r in rows])) for rows in self.steps]
        self.start = np.zeros((len(ids), self.n))
        for pid, i, v in start_rows:
            self.start[pid, i] = v
        self.chosen = np.array([[traj.chosen[t] * scale[i] for i, traj in enumerate(trajectories)]
                                for t in range(len(merges))]).reshape(len(merges), self.n)
        self.used = [t for t in range(len(merges)) if self.chosen[t].any()]
        # (pid, category) -> the steps at which its count changed and the values from then on, for counts at any t
        self._history: dict[tuple[int, int], tuple[list[int], list[float]]] = {}
        self._rows: dict[tuple[int, int], np.ndarray] = {}
        for t, rows in enumerate(self.steps):
            for pid, i, v in rows:
                times, values = self._history.setdefault((pid, i), ([0], [self.start[pid, i]]))
                times.append(t + 1)
                values.append(v)

    def count(self, pid: int, t: int) -> np.ndarray:
        """The per-category counts (per million bytes) of pair ``pid`` before merge ``t``."""
        out = self.start[pid].copy()
        for i in range(self.n):
            if (found := self._history.get((pid, i))) is not None:
                times, values = found
                k = np.searchsorted(times, t, side="right") - 1
                out[i] = values[k]
        return out

    def broken(self, alpha: np.ndarray, v_step: Mapping[int, float], v_pair: Mapping[int, float],
               known: set[tuple[int, int]], per_step: int) -> list[tuple[int, int]]:
        """The constraints ``(t, pid)`` the answer breaks, at most ``per_step`` per step, most broken first.

        One sweep over the steps keeps every pair's mixed count ``sum_i alpha_i c_i(p)`` up to date
        (only the pairs a merge changed are recomputed) in a max-heap keyed by ``count - v_pair``.

        subtle: an entry is stale once its pair's count changed; each pair carries a version, and an
        entry whose version is not the pair's current one is dropped when it reaches the top.
        """
        cur = self.start.copy()
        mixed = cur @ alpha
        slack = np.zeros(len(mixed))
        for p, v in v_pair.items():
            slack[p] = v
        version = np.zeros(len(mixed), dtype=np.int64)
        heap = [(-(mixed[p] - slack[p]), 0, p) for p in np.flatnonzero(mixed > 0).tolist()]
        heapq.heapify(heap)
        found: list[tuple[int, int]] = []
        used = set(self.used)
        for t, (pids, cats, vals) in enumerate(self._step_arrays):
            if t in used:
                m = self.merge_ids[t]
                bar = float(self.chosen[t] @ alpha) + v_step.get(t, 0.0) + TOLERANCE
                aside, hits = [], 0
                while heap and hits < per_step:
                    neg, ver, p = heap[0]
                    if ver != version[p]:
                        heapq.heappop(heap)
                        continue
                    if -neg <= bar:
                        break
                    aside.append(heapq.heappop(heap))
                    if p != m and (t, p) not in known:
                        found.append((t, p))
                        hits += 1
                for entry in aside:
                    heapq.heappush(heap, entry)
            if len(pids):
                cur[pids, cats] = vals  # subtle: within one step each (pair, category) changes at most once
                touched = np.unique(pids)
                mixed[touched] = cur[touched] @ alpha
                version[touched] += 1
                for pid, value, ver in zip(touched.tolist(), (mixed[touched] - slack[touched]).tolist(),
                                           version[touched].tolist()):
                    heapq.heappush(heap, (-value, ver, pid))
        return found

    def row(self, t: int, pid: int) -> np.ndarray:
        """``c[t](m_t) - c[t](p)`` per category: the constraint ``(t, p)``'s coefficients of ``alpha`` (cached)."""
        if (found := self._rows.get((t, pid))) is None:
            found = self._rows[t, pid] = self.chosen[t] - self.count(pid, t)
        return found

    def row(self, t: int, pid: int) -> np.ndarray:
        """``c[t](m_t) - c[t](p)`` per category: the coefficients of ``alpha`` in constraint ``(t, p)``."""
        return self.chosen[t] - self.count(pid, t)


class _Solver:
    """The restricted program, kept in one HiGHS model that grows: new constraints are rows, new slacks columns.

    subtle: HiGHS keeps its basis when rows and columns are added, so each round's dual simplex starts
    from the last optimum and needs few iterations; solving every round from scratch (as
    ``scipy.optimize.linprog`` must) costs seconds per round at tens of thousands of rows.
    """

    def __init__(self, n: int) -> None:
        import highspy

        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        self.n, self.inf = n, h.getInfinity()
        h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, np.array([], dtype=np.int32),
                  np.array([], dtype=np.int32), np.array([]))
        h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))  # sum alpha = 1
        self.step_col: dict[int, int] = {}
        self.pair_col: dict[int, int] = {}

    def _column(self, table: dict[int, int], key: int) -> int:
        if key not in table:
            table[key] = self.h.getNumCol()
            self.h.addCol(1.0, 0.0, self.inf, 0, np.array([], dtype=np.int32), np.array([]))
        return table[key]

    def add(self, constraints: Sequence[tuple[int, int]], rows: Sequence[np.ndarray]) -> None:
        """Add ``sum_i row_i alpha_i + v_t + v_p >= 0`` for each constraint ``(t, p)``."""
        starts, index, value = [], [], []
        for (t, p), row in zip(constraints, rows):
            starts.append(len(index))
            nz = np.flatnonzero(row)
            index += [*nz.tolist(), self._column(self.step_col, t), self._column(self.pair_col, p)]
            value += [*row[nz].tolist(), 1.0, 1.0]
        k = len(constraints)
        self.h.addRows(k, np.zeros(k), np.full(k, self.inf), len(index), np.array(starts, dtype=np.int32),
                       np.array(index, dtype=np.int32), np.array(value))

    def solve(self) -> tuple[np.ndarray, dict[int, float], dict[int, float], float]:
        """The mix, the step and pair slacks, and the objective of the program as it stands."""
        self.h.run()
        status = self.h.getModelStatus()
        if self.h.modelStatusToString(status) != "Optimal":
            raise RuntimeError(f"the linear program failed: {self.h.modelStatusToString(status)}")
        x = np.array(self.h.getSolution().col_value)
        alpha = np.clip(x[:self.n], 0, None)
        alpha /= alpha.sum()
        return (alpha, {t: x[c] for t, c in self.step_col.items()}, {p: x[c] for p, c in self.pair_col.items()},
                float(self.h.getInfo().objective_function_value))


def infer_mixture(trajectories: Mapping[str, Trajectory], merges: Sequence[Pair], *, per_step: int = 10,
                  max_rounds: int = 200) -> Inference:
    """The training mix that best explains ``merges``, from each category's :class:`Trajectory` (same merges).

    Round 0 has no constraint and answers the uniform mix; every round adds up to ``per_step``
    broken constraints per merge and solves again, until none is broken. ``Inference.weights`` are
    shares of the training *bytes* (counts are per byte of each sample).

    >>> merges = [(b"a", b"b")]  # "ab" won, though y holds "cd" twice as often per byte as x holds "ab"
    >>> trajs = {"x": pair_trajectory({b"abzz": 5}, merges), "y": pair_trajectory({b"cdcd": 5}, merges)}
    >>> found = infer_mixture(trajs, merges)
    >>> found.weights["x"] >= 2 * found.weights["y"], found.slack, found.rounds
    (True, 0.0, 1)
    """
    began = time.perf_counter()
    names = list(trajectories)
    if not names:
        raise ValueError("infer_mixture needs at least one category")
    for name, traj in trajectories.items():
        if len(traj.changes) < len(merges):
            raise ValueError(f"category {name!r}: its trajectory covers {len(traj.changes)} merges, "
                             f"fewer than the {len(merges)} asked for")
        if traj.n_bytes <= 0:
            raise ValueError(f"category {name!r}: its sample is empty")
    problem = _Problem([trajectories[k] for k in names], merges)
    alpha = np.full(len(names), 1 / len(names))
    v_step: dict[int, float] = {}
    v_pair: dict[int, float] = {}
    solver = _Solver(len(names))
    known: set[tuple[int, int]] = set()
    objective, rounds = 0.0, 0
    while rounds < max_rounds:
        new = problem.broken(alpha, v_step, v_pair, known, per_step)
        if not new:
            break
        known.update(new)
        solver.add(new, [problem.row(t, p) for t, p in new])
        alpha, v_step, v_pair, objective = solver.solve()
        rounds += 1
    else:
        raise RuntimeError(f"no answer within {max_rounds} rounds ({len(known)} constraints)")
    return Inference({k: float(a) for k, a in zip(names, alpha)}, objective, len(known), rounds,
                     len(problem.used), time.perf_counter() - began)


# ---------------------------------------------------------------- checking it on mixes we choose

def weighted_counts(counts: Mapping[str, Mapping[str, int]], shares: Mapping[str, float],
                    total: int = 10 ** 9) -> dict[str, int]:
    """One training text's pre-token counts: category ``k``'s counts scaled so it holds ``shares[k]`` of the bytes.

    A category whose sample has ``B`` bytes enters with weight ``shares[k] * total / B`` per
    occurrence, rounded: a tokenizer trained on these counts saw the categories in exactly these
    proportions (of bytes), as if each sample had been repeated.

    >>> weighted_counts({"a": {"xy": 2}, "b": {"z": 4}}, {"a": 0.75, "b": 0.25}, total=100)  # 76 and 25 bytes
    {'xy': 38, 'z': 25}
    """
    out: Counter[str] = Counter()
    for name, share in shares.items():
        words = counts[name]
        n_bytes = sum(len(w.encode("utf-8")) * n for w, n in words.items())
        weight = share * total / n_bytes
        for w, n in words.items():
            if (k := round(n * weight)):
                out[w] += k
    return dict(out)


def dirichlet_shares(names: Sequence[str], rng: np.random.Generator, concentration: float = 1.0) -> dict[str, float]:
    """Random shares for ``names`` drawn uniformly from the simplex (Dirichlet(1, ..., 1)), as the paper's mixes."""
    return dict(zip(names, rng.dirichlet([concentration] * len(names)).tolist()))


def mean_absolute_error(truth: Mapping[str, float], found: Mapping[str, float]) -> float:
    """The mean over categories of ``|found - truth|``.

    >>> mean_absolute_error({"a": 0.5, "b": 0.5}, {"a": 0.4, "b": 0.6})
    0.09999999999999998
    """
    return sum(abs(found[k] - truth[k]) for k in truth) / len(truth)


def log10_mse(truth: Mapping[str, float], found: Mapping[str, float]) -> float:
    """``log10`` of the mean squared error over categories: the paper's yardstick (``-inf`` when exact)."""
    mse = sum((found[k] - truth[k]) ** 2 for k in truth) / len(truth)
    return math.log10(mse) if mse > 0 else float("-inf")
