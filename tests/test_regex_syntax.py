"""The one scanner of regex syntax (bpe_course.regex_syntax) that every rewrite of a pattern walks."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, strategies as st
from hypothesis import settings

from bpe_course.pretokenize import GPT2_PATTERN, GPT4O_PATTERN, GPT4_PATTERN
from bpe_course.regex_syntax import class_items, is_possessive, pattern_parts


pieces = st.sampled_from(["a", "(", ")", "(?:", "(?i:", "(?>", "[", "]", "[^", r"\p{L}", r"\s", r"\]", "{1,3}", "{2}",
                          "+", "*", "?", "|", "$", "{", "}", ",", r"\x{41}", "[[a]b]", "-"])


@given(st.lists(pieces, max_size=15).map("".join))
def test_the_parts_make_the_pattern_again(pattern):
    assert "".join(pattern_parts(pattern)) == pattern


def test_the_parts_of_tiktokens_patterns():
    for pattern in (GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN):
        parts = pattern_parts(pattern)
        assert "".join(parts) == pattern
        classes = [part for part in parts if part.startswith("[")]
        assert classes and all(regex.compile(part) for part in classes)  # each class whole, none cut
    assert pattern_parts(GPT4_PATTERN)[:4] == ["'", "(?i:", "[sdmt]", "|"]
    assert [part for part in pattern_parts(GPT4_PATTERN) if is_possessive(part)] == \
        ["?+", "++", "{1,3}+", "++", "*+", "++"]


def test_class_items_nested_and_negated():
    assert class_items(r"[^\s\p{L}\p{N}]") == (True, [r"\s", r"\p{L}", r"\p{N}"])
    assert class_items("[]a-]") == (False, ["]", "a", "-"])
    assert class_items("[x[a-z]y]") == (False, ["x", "[a-z]", "y"])


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


GPT2_AS_WRITTEN_BY_HF = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # tokenizer.json


# ---- a pattern of its own is cut where its structure proves it safe ----------------------------------------
ATOMS = [" ", r"\s", r"\S", "a", "b", "[ab]", r"\w", ".", "[^a]", "!", r"\n", "[ a]", r"\p{L}", "[^\\s\\p{L}]"]


QUANTIFIERS = ["", "+", "*", "?", "{1,2}", "++", "*?"]


GPT_LIKE = [r" ?\w+", r" ?\p{L}+", r"\s+(?!\S)", r"\s+", r" ?[^\s\w]+", r"\s*\n", r" ?\S", r"'s|'t"]


@st.composite
def own_patterns(draw) -> str:
    alternatives = draw(st.lists(st.sampled_from(GPT_LIKE), max_size=4))
    for _ in range(draw(st.integers(0 if alternatives else 1, 3))):
        items = [draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)) for _ in range(draw(st.integers(1, 3)))]
        if draw(st.booleans()):
            items = ["(?:" + "|".join(items) + ")" + draw(st.sampled_from(["", "+", "?"]))]
        alternatives.append("".join(items) + draw(st.sampled_from(["", "", r"(?!\S)", "$", "(?=a)", r"(?=\s)"])))
    return "|".join(alternatives)


pieces_of_text = st.lists(st.sampled_from(["a", "b", " ", "  ", "\n", "!", "ab ", " a", "é", "\t", " ab", " b!", "a b",
                                          "'s"]), max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(own_patterns(), pieces_of_text, pieces_of_text, st.integers(0, 120))
def test_a_cut_found_in_a_buffer_is_safe_whatever_text_follows(pattern, buffer, more, limit):
    """The property streaming rests on, for random patterns: where safe_cut cuts a buffer, the pieces of
    the buffer with any text after it are the pieces of the two sides, each split alone."""
    from bpe_course.pretokenize import pretokenize, safe_cut
    cut = safe_cut(buffer, pattern, limit=limit)
    if cut:
        whole = buffer + more
        assert pretokenize(whole[:cut], pattern) + pretokenize(whole[cut:], pattern) == pretokenize(whole, pattern)


@pytest.mark.parametrize("pattern, cut", [
    (GPT2_AS_WRITTEN_BY_HF, True),  # Hugging Face's GPT-2
    (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|"
     r"\s+", True),  # Llama 3's (cl100k's, without possessive quantifiers)
    (r"\s*\S+", True), (r"\w+|.", True), (r"\s+$|.", True),
    (r"[^\n]+|\n", False), (r"\w+(?= )|\s", False), (r"(?<=a) ?\w+|\s", False), (r"\S+\s*", False), (r"\w+$|.", False),
    (r"(?x) \w+ | \s", False),
])
def test_which_patterns_of_their_own_are_cut(pattern, cut):
    from bpe_course.regex_syntax import can_cut_at_spaces
    assert can_cut_at_spaces(pattern) is cut
