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
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .. import corpus
from ..corpus import HELDOUT_ARTICLES, TRAIN_ARTICLES
from ..errors import MissingPackageError
from ..pairs import merge_pair
from ..pretokenize import resolve_pattern
from ..train import count_pretokens, train_counts

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


def pair_trajectory(words: Mapping[bytes, int] | Mapping[tuple[bytes, ...], int], merges: Sequence[Pair],
                    n_bytes: int | None = None) -> Trajectory:
    """Apply ``merges`` in order to pre-token counts ``{piece bytes: count}``, recording every pair count that changes.

    Only the pieces holding the merged pair are touched (an index from each pair to them), so a
    merge costs what it changes, as in training. A piece given as a tuple of byte strings starts
    cut that way instead of into single bytes: for merges that come after others already applied
    (Llama 3's, after cl100k's).

    >>> traj = pair_trajectory({b"aaa": 2, b"ab": 1}, [(b"a", b"a"), (b"aa", b"a")])
    >>> traj.start, traj.changes[0]  # "aaa" becomes "aa"+"a": pair aa is gone, (aa, a) appears
    ({(b'a', b'a'): 4, (b'a', b'b'): 1}, {(b'aa', b'a'): 2, (b'a', b'a'): 0})
    >>> pair_trajectory({(b"aa", b"a"): 2}, [(b"aa", b"a")]).start
    {(b'aa', b'a'): 2}
    """
    seqs = [w if isinstance(w, tuple) else tuple(w[i:i + 1] for i in range(len(w))) for w in words]
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
    total = n_bytes if n_bytes is not None else sum(sum(map(len, seq)) * n for seq, n in zip(seqs, weights))
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
    history: list[dict[str, float]]  # the mix after each round, from round 0's uniform guess to the answer


class _Problem:
    """Every category's counts laid out for the program: pair ids, the counts at the start, the changes per step."""

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
        self._touched = [np.unique(pids) for pids, _, _ in self._step_arrays]  # the pairs each step changes
        self.start = np.zeros((len(ids), self.n))
        for pid, i, v in start_rows:
            self.start[pid, i] = v
        self.chosen = np.array([[traj.chosen[t] * scale[i] for i, traj in enumerate(trajectories)]
                                for t in range(len(merges))]).reshape(len(merges), self.n)
        self.used = [t for t in range(len(merges)) if self.chosen[t].any()]

    def broken(self, alpha: np.ndarray, v_step: Mapping[int, float], v_pair: Mapping[int, float],
               known: set[tuple[int, int]], per_step: int) -> list[tuple[int, int, np.ndarray]]:
        """The constraints ``(t, pid, row)`` the answer breaks, at most ``per_step`` per step, most broken first.

        ``row`` is ``c[t](m_t) - c[t](p)`` per category: the constraint's coefficients of ``alpha``.
        One sweep over the steps keeps every pair's counts, and its mixed count
        ``sum_i alpha_i c_i(p)``, up to date (only the pairs a merge changed are recomputed), the mixed
        counts in a max-heap keyed by ``count - v_pair``.

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
        found: list[tuple[int, int, np.ndarray]] = []
        used = set(self.used)
        for t, ((pids, cats, vals), touched) in enumerate(zip(self._step_arrays, self._touched)):
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
                        found.append((t, p, self.chosen[t] - cur[p]))
                        hits += 1
                for entry in aside:
                    heapq.heappush(heap, entry)
            if len(pids):
                cur[pids, cats] = vals  # subtle: within one step each (pair, category) changes at most once
                mixed[touched] = cur[touched] @ alpha
                version[touched] += 1
                for pid, value, ver in zip(touched.tolist(), (mixed[touched] - slack[touched]).tolist(),
                                           version[touched].tolist()):
                    heapq.heappush(heap, (-value, ver, pid))
        return found


_HIGHS_LOCK = threading.Lock()
_HIGHS_GREETED = False  # has this process made its first HiGHS model (the one that prints the banner)?


def _quiet_highs():
    """A new ``highspy.Highs`` model that prints nothing.

    subtle: HiGHS prints its banner ("Running HiGHS ...") from C++ when the first model of a process
    is made, before any option can silence it, straight to file descriptor 1: redirecting
    ``sys.stdout`` does not catch it, and a Jupyter kernel forwards it into the notebook. So file
    descriptor 1 points to ``os.devnull`` while the first model is made -- under a lock, as a
    second thread doing the same would save devnull as the "real" descriptor and silence the
    process for good.
    """
    global _HIGHS_GREETED
    try:
        import highspy
    except ImportError as missing:
        raise MissingPackageError("infer_mixture solves its linear program with HiGHS, from the package 'highspy', "
                                  "which is not installed: pip install highspy (or bpe-course[course])") from missing
    with _HIGHS_LOCK:
        if not _HIGHS_GREETED:
            sys.stdout.flush()
            saved = os.dup(1)
            try:
                with open(os.devnull, "w") as null:
                    os.dup2(null.fileno(), 1)
                    h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            _HIGHS_GREETED = True
        else:
            h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


class _Solver:
    """The restricted program, kept in one HiGHS model that grows: new constraints are rows, new slacks columns.

    subtle: HiGHS keeps its basis when rows and columns are added, so each round's dual simplex starts
    from the last optimum and needs few iterations; solving every round from scratch (as
    ``scipy.optimize.linprog`` must) costs seconds per round at tens of thousands of rows.
    """

    def __init__(self, n: int) -> None:
        self.h = h = _quiet_highs()
        self.n, self.inf = n, h.getInfinity()
        h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, np.array([], dtype=np.int32),
                  np.array([], dtype=np.int32), np.array([]))
        h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))  # sum alpha = 1
        self.step_col: dict[int, int] = {}
        self.pair_col: dict[int, int] = {}

    def _columns(self, table: dict[int, int], keys: Sequence[int]) -> np.ndarray:
        """The column of each key's slack, new columns (cost 1, from 0 up) added for keys not seen before."""
        new = list(dict.fromkeys(k for k in keys if k not in table))
        if new:
            first = self.h.getNumCol()
            table.update((k, first + j) for j, k in enumerate(new))
            self.h.addCols(len(new), np.ones(len(new)), np.zeros(len(new)), np.full(len(new), self.inf), 0,
                           np.array([], dtype=np.int32), np.array([], dtype=np.int32), np.array([]))
        return np.array([table[k] for k in keys], dtype=np.int32)

    def add(self, constraints: Sequence[tuple[int, int, np.ndarray]]) -> None:
        """Add ``sum_i row_i alpha_i + v_t + v_p >= 0`` for each constraint ``(t, p, row)``."""
        k = len(constraints)
        steps = self._columns(self.step_col, [t for t, _, _ in constraints])
        pairs = self._columns(self.pair_col, [p for _, p, _ in constraints])
        index = np.hstack([np.tile(np.arange(self.n, dtype=np.int32), (k, 1)), steps[:, None], pairs[:, None]])
        value = np.hstack([np.array([row for _, _, row in constraints]), np.ones((k, 2))])
        keep = value != 0  # row-major: each constraint's entries stay together, in order
        starts = np.concatenate([[0], np.cumsum(keep.sum(axis=1))[:-1]]).astype(np.int32)
        self.h.addRows(k, np.zeros(k), np.full(k, self.inf), int(keep.sum()), starts, index[keep], value[keep])

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
    history = [dict(zip(names, alpha.tolist()))]
    while rounds < max_rounds:
        new = problem.broken(alpha, v_step, v_pair, known, per_step)
        if not new:
            break
        known.update((t, p) for t, p, _ in new)
        solver.add(new)
        alpha, v_step, v_pair, objective = solver.solve()
        history.append(dict(zip(names, alpha.tolist())))
        rounds += 1
    else:
        raise RuntimeError(f"no answer within {max_rounds} rounds ({len(known)} constraints)")
    return Inference(history[-1], objective, len(known), rounds, len(problem.used),
                     time.perf_counter() - began, history)


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


def first_bytes(docs: Sequence[str], n_bytes: int | None) -> list[str]:
    """The documents in order until they hold ``n_bytes`` UTF-8 bytes, the last one cut (at a character) to fit.

    ``None`` keeps them all. A sample of a given size, as the paper's samples are: whole documents
    from the start, not a random draw, so the same size always gives the same sample.

    >>> first_bytes(["abc", "déf", "ghi"], 5)  # 3 bytes, then 2 of "déf": "é" is 2 bytes and does not fit
    ['abc', 'd']
    """
    if n_bytes is None:
        return list(docs)
    out, total = [], 0
    for doc in docs:
        if total >= n_bytes:
            break
        data = doc.encode("utf-8")[:n_bytes - total]
        out.append(data.decode("utf-8", errors="ignore"))  # subtle: a character cut in two is dropped whole
        total += len(data)
    return out


class HiddenMix(NamedTuple):
    """A tokenizer trained on a mix of languages whose shares only we know, and what the merges reveal of it."""
    truth: dict[str, float]  # each language's share of the training bytes
    merges: list[Pair]
    found: Inference


def train_hidden_mix(shares: Mapping[str, float], n_merges: int,
                     articles: Sequence[str] = TRAIN_ARTICLES) -> list[Pair]:
    """The merges of a tokenizer trained on the UDHR's ``articles`` in each language of ``shares``, mixed in those shares of bytes.

    >>> merges = train_hidden_mix({"eng": 0.9, "fra": 0.1}, 20)
    >>> len(merges), merges[0]
    (20, (b' ', b'a'))
    """
    counts = {code: dict(count_pretokens([corpus.udhr(code)[a] for a in articles])) for code in shares}
    return train_counts(weighted_counts(counts, shares), 256 + n_merges).merges


def hidden_mix(shares: Mapping[str, float], n_merges: int, sample_bytes: int | None = None,
               articles: Sequence[str] = TRAIN_ARTICLES, samples: Sequence[str] = HELDOUT_ARTICLES) -> HiddenMix:
    """Train on a hidden mix of UDHR languages, then infer the mix from other articles (``sample_bytes`` of each language).

    The tokenizer learns from ``articles``; the inference sees only its merges and, for each
    language, the first ``sample_bytes`` of ``samples``, articles the tokenizer never saw.

    >>> run = hidden_mix({"eng": 0.7, "rus": 0.3}, 100)
    >>> {k: round(v, 2) for k, v in run.found.weights.items()}
    {'eng': 0.7, 'rus': 0.3}
    """
    if not shares or abs(sum(shares.values()) - 1) > 1e-9 or min(shares.values()) < 0:
        raise ValueError(f"shares must be >= 0 and add up to 1, got {dict(shares)!r}")
    merges = train_hidden_mix(shares, n_merges, articles)
    trajectories = {code: text_trajectory(first_bytes([corpus.udhr(code)[a] for a in samples], sample_bytes), merges)
                    for code in shares}
    return HiddenMix(dict(shares), merges, infer_mixture(trajectories, merges))


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
