"""bpe_course.algorithms.intrinsic against tokenization-scorer (Zouhar et al.'s package) and scipy.stats."""

from __future__ import annotations

import contextlib
import io
import math

import pytest
import scipy.stats
import tokenization_scorer
from hypothesis import given, settings, strategies as st

from bpe_course.algorithms.intrinsic import kendall_tau, renyi_efficiency, renyi_entropy, spearman

token_lists = st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=12), min_size=1, max_size=8)


def scorer(lines, **kwargs) -> float:
    with contextlib.redirect_stderr(io.StringIO()):  # it prints the vocabulary size it used
        return tokenization_scorer.score(lines, **kwargs)


@settings(max_examples=80, deadline=None)
@given(token_lists, st.sampled_from([0.5, 2.5, 3.0]))
def test_efficiency_equals_tokenization_scorer(lines, alpha):
    counts: dict[str, int] = {}
    for line in lines:
        for token in line:
            counts[token] = counts.get(token, 0) + 1
    if len(counts) < 2:
        return
    theirs = scorer(lines, metric="renyi", power=alpha)
    assert renyi_efficiency(counts, alpha) == pytest.approx(theirs, rel=1e-9)
    theirs_vocab = scorer(lines, metric="renyi", power=alpha, vocab=20)
    assert renyi_efficiency(counts, alpha, n_vocab=20) == pytest.approx(theirs_vocab, rel=1e-9)


def test_order_one_is_shannons_entropy():
    # subtle: tokenization-scorer's own order-1 path reads an exhausted generator (it answers 0 for
    # two equal tokens), so Shannon's entropy is checked against scipy instead
    counts = [5, 3, 1, 1, 7]
    assert renyi_entropy(counts, 1.0) == pytest.approx(scipy.stats.entropy(counts, base=2), rel=1e-12)


def test_entropy_of_order_one_is_the_limit_of_nearby_orders():
    counts = [5, 3, 1, 1]
    assert renyi_entropy(counts, 1.0) == pytest.approx(renyi_entropy(counts, 1.000001), abs=1e-5)
    assert renyi_entropy(counts, 0) == pytest.approx(math.log2(4))  # Hartley: the log of the support


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=12))
def test_rank_correlations_equal_scipy(pairs):
    x, y = [a for a, _ in pairs], [b for _, b in pairs]
    rho, tau = spearman(x, y), kendall_tau(x, y)
    their_rho, their_tau = scipy.stats.spearmanr(x, y).statistic, scipy.stats.kendalltau(x, y).statistic
    if math.isnan(their_rho):
        assert math.isnan(rho)
    else:
        assert rho == pytest.approx(their_rho, abs=1e-12)
    if math.isnan(their_tau):
        assert math.isnan(tau)
    else:
        assert tau == pytest.approx(their_tau, abs=1e-12)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="every count is 0"):
        renyi_entropy([0, 0])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        renyi_efficiency([4])
    with pytest.raises(ValueError, match="same length"):
        spearman([1, 2], [1])
