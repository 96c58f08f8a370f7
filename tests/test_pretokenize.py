"""Pre-tokenization: the patterns, special tokens split out first, and where text may be cut."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings, strategies as st

from strategies import o200k_text, paired_surrogates, tricky_text, valid_text

from bpe_course import GPT4O_PATTERN
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN, pretokenize, resolve_pattern, safe_cut, split_specials
from bpe_course.unicode_classes import unicode_disagreements


# The pattern as first published with GPT-2 (2019), before tiktoken's possessive rewrite.
ORIGINAL_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


@settings(max_examples=1000, deadline=None)
@given(valid_text)
def test_gpt2_pattern_equals_the_original(text):
    assert pretokenize(text, GPT2_PATTERN) == regex.findall(ORIGINAL_GPT2, text) or \
        not unicode_disagreements().isdisjoint(text)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(tricky_text, valid_text).map(lambda s: s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")),
       st.sampled_from([GPT2_PATTERN, GPT4_PATTERN]), st.integers(0, 60))
def test_safe_cut_never_changes_pretokens(text, pattern, limit):
    specials = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]
    cut = safe_cut(text, pattern, specials, limit=limit)
    assert 0 <= cut <= max(limit, 0)
    if cut:
        whole = [x for p, s in split_specials(text, specials) for x in ([p] if s else pretokenize(p, pattern))]
        halves = [x for part in (text[:cut], text[cut:]) for p, s in split_specials(part, specials)
                  for x in ([p] if s else pretokenize(p, pattern))]
        assert halves == whole


def test_safe_cut_examples():
    assert safe_cut("one two three", GPT2_PATTERN) == 7
    assert safe_cut("one  two", GPT2_PATTERN) == 0          # a run of spaces: the last one joins "two"
    assert safe_cut("a<|e|>bcdefgh", GPT2_PATTERN, ["<|e|>"]) == 6  # the end of a special token
    assert safe_cut("a<|e|>bc", GPT2_PATTERN, ["<|e|>"]) == 0  # too near the end: "<|e|>" might follow
    assert safe_cut("one two", None) == 0                   # without a regex, only specials are safe


def test_gpt4_pattern_features():
    assert pretokenize("I'M 1234567 ok\n\n  x", GPT4_PATTERN) == ["I", "'M", " ", "123", "456", "7", " ok", "\n\n", " ", " x"]
    assert pretokenize("I'M 1234567", GPT2_PATTERN) == ["I", "'", "M", " 1234567"]


def test_split_specials_longest_first():
    assert split_specials("x<|a|><|a|>y", ["<|a|>", "<|a|><|a|>"]) == [("x", False), ("<|a|><|a|>", True), ("y", False)]
    assert split_specials("", ["<|a|>"]) == []


def test_pattern_errors():
    with pytest.raises(ValueError, match="does not compile"):
        resolve_pattern("(unclosed")
    with pytest.raises(TypeError):
        resolve_pattern(42)


# ---- the shortcuts training and streaming take must hold for o200k's pattern too ---------------
@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text).map(paired_surrogates), st.integers(0, 60))
def test_safe_cut_never_changes_gpt4o_pretokens(text, limit):
    specials = ["<|endoftext|>"]
    cut = safe_cut(text, GPT4O_PATTERN, specials, limit=limit)
    if cut:
        def pieces(part):
            return [x for p, is_special in split_specials(part, specials)
                    for x in ([p] if is_special else pretokenize(p, GPT4O_PATTERN))]
        assert pieces(text[:cut]) + pieces(text[cut:]) == pieces(text)
