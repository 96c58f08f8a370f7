"""The one scanner of regex syntax (bpe_course.regex_syntax) that every rewrite of a pattern walks."""

from __future__ import annotations

import regex
from hypothesis import given, strategies as st

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
