"""bpe_course.algorithms.mixture: pair counts against a naive replay, the lazy program against the full one."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from bpe_course import corpus
from bpe_course.algorithms import mixture
from bpe_course.algorithms.mixture import (first_bytes, infer_mixture, pair_trajectory, pretoken_bytes,
                                           text_trajectory, weighted_counts)
from bpe_course.pairs import merge_pair
from bpe_course.train import count_pretokens, train_counts


def naive_counts(words: dict[bytes, int], merges, t: int) -> Counter:
    """Pair counts after merges[:t], replayed on every word from scratch."""
    counts: Counter = Counter()
    for w, n in words.items():
        seq = tuple(w[i:i + 1] for i in range(len(w)))
        for pair in merges[:t]:
            seq = merge_pair(seq, pair)
        for p in zip(seq, seq[1:]):
            counts[p] += n
    return counts


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=8), min_size=1, max_size=12), st.integers(1, 15))
def test_trajectory_equals_a_naive_replay_at_every_step(docs, n_merges):
    words = pretoken_bytes(docs, None)
    merges = train_counts(dict(count_pretokens(docs, pattern=None)), 256 + n_merges).merges
    merges = merges + [(b"c", b"a"), (b"zz", b"q")]  # merges the text may not hold, and one it never can
    traj = pair_trajectory(words, merges)
    for t in range(len(merges) + 1):
        expected = +naive_counts(words, merges, t)
        assert traj.counts_at(t) == dict(expected)
        if t < len(merges):
            assert traj.chosen[t] == expected.get(merges[t], 0)


def full_program(trajs: dict, merges) -> tuple[float, np.ndarray]:
    """Every constraint of the program, written out and solved by scipy's linprog (HiGHS): the reference."""
    names = list(trajs)
    n = len(names)
    scale = [mixture.PER_MB / trajs[k].n_bytes for k in names]
    rows = []  # (t, pair, coefficients)
    steps, pairs = {}, {}
    for t, m in enumerate(merges):
        at = [trajs[k].counts_at(t) for k in names]
        chosen = np.array([a.get(m, 0) * s for a, s in zip(at, scale)])
        if not chosen.any():
            continue  # the merge occurs in no sample: its step is skipped, as the module does
        for p in set().union(*at) - {m}:
            other = np.array([a.get(p, 0) * s for a, s in zip(at, scale)])
            rows.append((steps.setdefault(t, len(steps)), pairs.setdefault(p, len(pairs)), chosen - other))
    width = n + len(steps) + len(pairs)
    r_, c_, v_ = [], [], []
    for r, (ts, ps, coef) in enumerate(rows):
        r_ += [r] * (n + 2)
        c_ += [*range(n), n + ts, n + len(steps) + ps]
        v_ += [*(-coef), -1, -1]
    a_ub = coo_matrix((v_, (r_, c_)), shape=(len(rows), width)).tocsr()
    result = linprog(np.r_[np.zeros(n), np.ones(width - n)], A_ub=a_ub, b_ub=np.zeros(len(rows)),
                     A_eq=np.r_[np.ones(n), np.zeros(width - n)][None], b_eq=[1],
                     bounds=[(0, 1)] * n + [(0, None)] * (width - n), method="highs")
    assert result.status == 0
    return result.fun, result.x[:n]


@pytest.fixture(scope="module")
def languages():
    return {code: corpus.udhr(code) for code in ("eng", "fra", "deu_1996", "tur")}


@pytest.mark.parametrize("seed", range(3))
def test_lazy_constraints_reach_the_full_programs_optimum(languages, seed):
    rng = np.random.default_rng(seed)
    names = list(languages)
    shares = dict(zip(names, rng.dirichlet([1] * len(names))))
    train = {k: dict(count_pretokens([languages[k][a] for a in map(str, range(1, 11))])) for k in names}
    merges = train_counts(weighted_counts(train, shares), 256 + 40).merges
    trajs = {k: text_trajectory([languages[k][a] for a in map(str, range(11, 31))], merges) for k in names}
    found = infer_mixture(trajs, merges, per_step=3)
    objective, alpha = full_program(trajs, merges)
    assert found.slack == pytest.approx(objective, rel=1e-6, abs=1e-6)
    assert found.constraints < 40 * 500  # far fewer than the full program's rows
    assert sum(found.weights.values()) == pytest.approx(1)


def test_on_the_training_text_the_truth_needs_no_slack(languages):
    names = list(languages)
    docs = {k: [languages[k][a] for a in map(str, range(1, 31))] for k in names}
    shares = {"eng": 0.5, "fra": 0.25, "deu_1996": 0.15, "tur": 0.1}
    merges = train_counts(weighted_counts({k: dict(count_pretokens(d)) for k, d in docs.items()}, shares),
                          256 + 80).merges
    trajs = {k: text_trajectory(d, merges) for k, d in docs.items()}
    problem = mixture._Problem([trajs[k] for k in names], merges)
    truth = np.array([shares[k] for k in names])
    # subtle: weighted_counts rounds counts to integers, so the truth may lose a tie by a hair; allow that
    assert problem.broken(truth, {}, {}, set(), per_step=1) == [] or infer_mixture(trajs, merges).slack < 1e-3
    found = infer_mixture(trajs, merges)
    assert found.slack == pytest.approx(0, abs=1e-3)
    assert max(abs(found.weights[k] - shares[k]) for k in names) < 0.05


def test_bad_input_is_named():
    merges = [(b"a", b"b")]
    traj = pair_trajectory({b"ab": 1}, merges)
    with pytest.raises(ValueError, match="category 'x': its trajectory covers 1 merges, fewer than the 2"):
        infer_mixture({"x": traj}, merges * 2)
    with pytest.raises(ValueError, match="at least one category"):
        infer_mixture({}, merges)
    with pytest.raises(ValueError, match="category 'e': its sample is empty"):
        infer_mixture({"e": pair_trajectory({}, merges)}, merges)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=8), min_size=1, max_size=12), st.integers(1, 6), st.integers(1, 6))
def test_a_trajectory_that_starts_from_cut_pieces_continues_the_one_from_bytes(docs, first, then):
    """Pieces cut by the first merges, then the rest: the same counts as all the merges from single bytes."""
    words = pretoken_bytes(docs, None)
    merges = train_counts(dict(count_pretokens(docs, pattern=None)), 256 + first + then).merges
    cut = {}
    for w, n in words.items():
        seq = tuple(w[i:i + 1] for i in range(len(w)))
        for pair in merges[:first]:
            seq = merge_pair(seq, pair)
        cut[seq] = cut.get(seq, 0) + n
    whole, rest = pair_trajectory(words, merges), pair_trajectory(cut, merges[first:])
    assert rest.n_bytes == whole.n_bytes
    for t in range(len(merges) - first + 1):
        assert rest.counts_at(t) == whole.counts_at(first + t)


def test_the_rounds_start_from_the_uniform_mix_and_end_at_the_answer(languages):
    run = mixture.hidden_mix({"eng": 0.6, "fra": 0.3, "tur": 0.1}, 60, sample_bytes=2000)
    history = run.found.history
    assert len(history) == run.found.rounds + 1
    assert history[0] == pytest.approx({"eng": 1 / 3, "fra": 1 / 3, "tur": 1 / 3})
    assert history[-1] == run.found.weights
    assert all(sum(h.values()) == pytest.approx(1) for h in history)


def test_first_bytes_keeps_whole_characters():
    docs = ["aé" * 5, "zzz"]
    for n in range(0, 20):
        got = first_bytes(docs, n)
        joined = "".join(got).encode()
        assert len(joined) <= n and len(joined) >= min(n, 18) - 1  # at most one 2-byte character dropped
        assert "".join(docs).encode().startswith(joined)
    assert first_bytes(docs, None) == docs


def test_hidden_mix_checks_its_shares():
    with pytest.raises(ValueError, match="add up to 1"):
        mixture.hidden_mix({"eng": 0.5, "fra": 0.4}, 10)


def test_the_solver_prints_nothing_not_even_highs_banner():
    """HiGHS writes its banner to file descriptor 1 when a process makes its first model: it must not reach stdout."""
    import subprocess
    import sys
    code = ("from concurrent.futures import ThreadPoolExecutor\n"
            "from bpe_course.algorithms.mixture import infer_mixture, pair_trajectory\n"
            "m = [(b'a', b'b')]\n"
            "run = lambda _: infer_mixture({'x': pair_trajectory({b'abzz': 5}, m), 'y': pair_trajectory({b'cdcd': 5}, m)}, m)\n"
            "with ThreadPoolExecutor(4) as pool:  # several first models at once: stdout must survive them\n"
            "    rounds = [r.rounds for r in pool.map(run, range(8))]\n"
            "print(rounds, flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[1, 1, 1, 1, 1, 1, 1, 1]\n"
