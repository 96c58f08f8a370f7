"""Chapter 14's checkers and their references: digit groups and token healing."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import cl100k, gpt2, o200k
from bpe_course.exercises import ch14


RIGHT_TO_LEFT = r"\d{1,3}(?=(?:\d{3})*(?!\d))"  # chapter 14's regex for the same grouping


@pytest.fixture(scope="module")
def tokenizers():
    return [gpt2(), cl100k(), o200k()]


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
