"""Chapters 14 and 15's checkers, against real oracles: the chapter's regex, tiktoken-exact tokenizers,
Hugging Face's WordPiece, and BPE-dropout sampled many times. A right answer passes, and the mistakes
a learner is likely to make fail with feedback that does not give the answer away."""

from __future__ import annotations

import re
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import cl100k, gpt2, o200k
from bpe_course.exercises import ch14, ch15
from bpe_course.algorithms.dropout import dropout_merge

RIGHT_TO_LEFT = r"\d{1,3}(?=(?:\d{3})*(?!\d))"  # chapter 14's regex for the same grouping


@pytest.fixture(scope="module")
def tokenizers():
    return [gpt2(), cl100k(), o200k()]


# ---------------------------------------------------------------- 14.1 groups of three from the right

@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789", min_size=1, max_size=40))
def test_groups_reference_agrees_with_the_chapters_regex(digits):
    assert ch14.groups_from_the_right(digits) == re.findall(RIGHT_TO_LEFT, digits)


def test_groups_checker_passes_a_solution_and_points_at_mistakes():
    assert ch14.check_groups(lambda d: re.findall(RIGHT_TO_LEFT, d)).ok
    left = ch14.check_groups(lambda d: [d[i:i + 3] for i in range(0, len(d), 3)])
    assert not left.ok and "a group other than the first" in left.message
    lost = ch14.check_groups(lambda d: [d[-3:]])
    assert not lost.ok and "do not give the digits back" in lost.message
    for feedback in (left, lost):  # the feedback never prints the right grouping of the failing number
        assert "['1', '000']" not in feedback.message


# ---------------------------------------------------------------- 14.2 token healing, finished

def test_healed_reference_keeps_the_text_and_starts_with_the_removed_bytes(tokenizers):
    for tok in tokenizers:
        for prompt, continuation in ch14.HEAL_CASES:
            ids = ch14.healed(tok, prompt, continuation)
            prompt_ids = tok.encode_ordinary(prompt)
            assert tok.decode_bytes(ids) == (prompt + continuation).encode()
            assert ids[:len(prompt_ids) - 1] == prompt_ids[:-1]
            assert tok.vocab[ids[len(prompt_ids) - 1]].startswith(tok.vocab[prompt_ids[-1]])


def test_healing_differs_from_encoding_the_whole_text_somewhere(tokenizers):
    """Otherwise encoding prompt + continuation would pass the exercise without any healing."""
    differs = [(prompt, continuation) for tok in tokenizers for prompt, continuation in ch14.HEAL_CASES
               if ch14.healed(tok, prompt, continuation) != tok.encode_ordinary(prompt + continuation)]
    assert differs
    assert not ch14.check_healed(lambda tok, p, c: tok.encode_ordinary(p + c), tokenizers).ok


def test_healed_checker_passes_the_solution_and_catches_mistakes(tokenizers):
    def solution(tok, prompt, continuation):
        ids = tok.encode_ordinary(prompt)
        removed = tok.vocab[ids[-1]]
        text = removed + continuation.encode()
        allowed = [i for i, t in tok.vocab.items() if t.startswith(removed) and text.startswith(t)
                   and i not in tok.special_tokens.values()]
        first = max(allowed, key=lambda i: len(tok.vocab[i]))
        return ids[:-1] + [first] + tok.encode_ordinary(text[len(tok.vocab[first]):].decode())

    assert ch14.check_healed(solution, tokenizers).ok
    no_healing = ch14.check_healed(lambda tok, p, c: tok.encode_ordinary(p) + tok.encode_ordinary(c), tokenizers)
    assert not no_healing.ok and "longer allowed token" in no_healing.message
    dropped = ch14.check_healed(lambda tok, p, c: tok.encode_ordinary(p)[:-1] + tok.encode_ordinary(c), tokenizers)
    assert not dropped.ok and "do not decode" in dropped.message


# ---------------------------------------------------------------- 15.1 WordPiece's encoder

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


# ---------------------------------------------------------------- 15.2 what BPE-dropout can produce

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
