"""Chapter 15's checkers and their references: WordPiece's longest match and what dropout can reach."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course.algorithms.dropout import dropout_merge
from bpe_course.exercises import ch15


def longest_match(word, vocab):
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return [ch15.UNK]
        pieces.append(piece)
        start = end
    return pieces


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="unlowerdkighthsacz", min_size=1, max_size=14))
def test_a_plain_longest_match_is_what_hugging_face_does(word):
    assert longest_match(word, ch15.VOCAB) == ch15.wordpiece_reference(word, ch15.VOCAB)


def test_longest_match_checker():
    assert ch15.check_longest_match(longest_match).ok

    def shortest_first(word, vocab):
        pieces, start = [], 0
        while start < len(word):
            for end in range(start + 1, len(word) + 1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    break
            else:
                return [ch15.UNK]
            pieces.append(piece)
            start = end
        return pieces

    short = ch15.check_longest_match(shortest_first)
    assert not short.ok and "not the longest" in short.message
    no_prefix = ch15.check_longest_match(lambda w, v: [p.removeprefix("##") for p in longest_match(w, v)])
    assert not no_prefix.ok and "not in the vocabulary" in no_prefix.message
    never_unk = ch15.check_longest_match(lambda w, v: [p for p in longest_match(w, v) if p != ch15.UNK] or [w])
    assert not never_unk.ok and "no entry of the vocabulary fits" in never_unk.message


@pytest.mark.parametrize("piece", ch15.PIECES)
def test_reachable_is_exactly_what_dropout_draws(piece):
    drawn = {tuple(dropout_merge(piece, ch15.RANKS, p, rng)) for p in (0.1, 0.3, 0.5, 0.7)
             for rng in [Random(seed) for seed in range(1500)]}
    possible = ch15.reachable(piece, ch15.RANKS)
    assert drawn <= possible
    if len(piece) <= 6:  # short pieces: every possible segmentation turns up in 6,000 draws
        assert drawn == possible


def test_reachable_checker():
    assert ch15.check_reachable(ch15.reachable).ok
    plain = ch15.check_reachable(lambda piece, ranks: {tuple(dropout_merge(piece, ranks, 0.0, Random(0)))})
    assert not plain.ok and "missing" in plain.message

    def lowest_rank_only(piece, ranks):  # follows only the lowest-ranked merge, but may stop anywhere
        parts = tuple(piece[i:i + 1] for i in range(len(piece)))
        seen = {parts}
        while True:
            options = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1)
                       if parts[i] + parts[i + 1] in ranks]
            if not options:
                return seen
            _, i = min(options)
            parts = parts[:i] + (parts[i] + parts[i + 1],) + parts[i + 2:]
            seen.add(parts)

    assert not ch15.check_reachable(lowest_rank_only).ok
    bad_piece = ch15.check_reachable(lambda piece, ranks: ch15.reachable(piece, ranks) | {(piece[:1], piece[1:])})
    assert not bad_piece.ok
