"""bpe_course.algorithms.intrinsic against tokenization-scorer (Zouhar et al.'s package) and scipy.stats."""

from __future__ import annotations

import contextlib
import io
import math

import pytest
import scipy.stats
import tokenization_scorer
from hypothesis import given, settings, strategies as st

from bpe_course.algorithms.intrinsic import efficiency_of_units, renyi_efficiency, renyi_entropy

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


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="every count is 0"):
        renyi_entropy([0, 0])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        renyi_efficiency([4])
    with pytest.raises(ValueError, match="must be >= 0"):
        renyi_entropy([3, -1])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=8), min_size=1, max_size=6), st.data(),
       st.sampled_from([0.5, 2.5, 3.0]))
def test_efficiency_of_drawn_units_is_the_efficiency_of_their_pooled_tokens(units, data, alpha):
    indices = data.draw(st.lists(st.integers(0, len(units) - 1), min_size=1, max_size=10))
    pooled: dict[int, int] = {}
    for i in indices:
        for token in units[i]:
            pooled[token] = pooled.get(token, 0) + 1
    expected = renyi_efficiency(pooled, alpha, n_vocab=12)
    assert efficiency_of_units(units, 12, alpha)(indices) == pytest.approx(expected, abs=1e-12)


def test_efficiency_of_units_names_bad_input():
    with pytest.raises(ValueError, match="at least one unit"):
        efficiency_of_units([], 10)
    with pytest.raises(ValueError, match="not 1"):
        efficiency_of_units([[1]], 10, alpha=1)
