"""The pair helpers (bpe_course.pairs) against hand counts and a naive index scan."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course.pairs import apply_merge, best_pair, count_pairs, merge_pair, top_pairs, word_counts


TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3


# database=None: no example database on disk; deadline=None: no flaky failures on a busy machine.
PROPERTY = settings(max_examples=1000, database=None, deadline=None)


def naive_merge_pair(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def test_word_counts():
    assert word_counts("low low\n lower\tlow") == {
        ("l", "o", "w", "</w>"): 3,
        ("l", "o", "w", "e", "r", "</w>"): 1,
    }
    assert word_counts("") == {}
    assert word_counts("   \n") == {}


def test_pair_counts_toy_by_hand():
    # low x5, lower x2, newest x6, widest x3
    assert count_pairs(word_counts(TOY)) == {
        ("l", "o"): 7, ("o", "w"): 7, ("w", "</w>"): 5, ("w", "e"): 8, ("e", "r"): 2,
        ("r", "</w>"): 2, ("n", "e"): 6, ("e", "w"): 6, ("e", "s"): 9, ("s", "t"): 9,
        ("t", "</w>"): 9, ("w", "i"): 3, ("i", "d"): 3, ("d", "e"): 3,
    }


def test_pair_counts_weights_and_overlaps():
    assert count_pairs({("a", "a", "a", "</w>"): 3}) == {("a", "a"): 6, ("a", "</w>"): 3}
    assert count_pairs({("x", "</w>"): 4, ("x",): 9}) == {("x", "</w>"): 4}
    assert count_pairs({}) == {}


@pytest.mark.parametrize(
    ("symbols", "pair", "expected"),
    [
        (("l", "o", "w", "</w>"), ("o", "w"), ("l", "ow", "</w>")),
        (("a", "a", "a"), ("a", "a"), ("aa", "a")),
        (("a", "a", "a", "a"), ("a", "a"), ("aa", "aa")),
        (("a", "a", "b", "b"), ("a", "b"), ("a", "ab", "b")),
        (("ab", "c", "x", "ab", "c"), ("ab", "c"), ("abc", "x", "abc")),
        (("a", "b", "ab"), ("a", "b"), ("ab", "ab")),
        (("w", "</w>"), ("w", "</w>"), ("w</w>",)),
        (("a", "b"), ("b", "a"), ("a", "b")),
        ((), ("a", "b"), ()),
    ],
)
def test_merge_pair(symbols, pair, expected):
    assert merge_pair(symbols, pair) == expected


@PROPERTY
@given(st.lists(st.sampled_from(["a", "b", "aa", "ab"]), max_size=12),
       st.sampled_from([("a", "a"), ("a", "b"), ("aa", "a"), ("a", "aa"), ("ab", "b")]))
def test_merge_pair_matches_index_scan(symbols, pair):
    assert merge_pair(symbols, pair) == naive_merge_pair(symbols, pair)


def test_apply_merge():
    words = {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2, ("n", "e", "w", "</w>"): 6}
    assert apply_merge(words, ("w", "</w>")) == {
        ("l", "o", "w</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2, ("n", "e", "w</w>"): 6,
    }
    assert words[("l", "o", "w", "</w>")] == 5  # the input is not modified


def test_best_pair_and_top_pairs_tie_break():
    counts = count_pairs(word_counts(TOY))
    # ("e","s"), ("s","t") and ("t","</w>") all occur 9 times: the greatest pair wins
    assert best_pair(counts) == ("t", "</w>")
    assert top_pairs(counts, n=5) == [
        (("t", "</w>"), 9), (("s", "t"), 9), (("e", "s"), 9), (("w", "e"), 8), (("o", "w"), 7),
    ]
    assert len(top_pairs(counts)) == 10
    assert top_pairs({}) == []
