"""What every file format reads the same way (bpe_course.formats.common): JSON, token ids, special tokens,
merges in GPT-2's alphabet; every refusal names the file and the place."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course.errors import TokenizerFileError
from bpe_course.formats.common import (MAX_ID, check_merges_known, is_id, parse_id, parse_json, parse_merge,
                                       parse_token, special_token_bytes)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-5, MAX_ID + 5), st.text(max_size=12), st.booleans(), st.floats(), st.none()))
def test_an_id_is_ascii_digits_or_an_int_from_0_to_max_id(value):
    as_int = value if isinstance(value, int) and not isinstance(value, bool) else (
        int(value) if isinstance(value, str) and value and all("0" <= c <= "9" for c in value) else None)
    if as_int is not None and 0 <= as_int <= MAX_ID:
        assert parse_id(value, "t.json: id") == as_int
    else:
        with pytest.raises(TokenizerFileError, match=r"^t\.json: id .* is not a token id \(ASCII digits, 0 to 4294967295\)$"):
            parse_id(value, "t.json: id")
    assert is_id(value) == (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID)


def test_a_long_value_is_shown_short():
    with pytest.raises(TokenizerFileError, match=r"'9999.*\.\.\. \(1,002 characters\) is not a token id"):
        parse_id("9" * 1000, "t.json: id")


def test_json_errors_name_the_file_the_line_and_the_column():
    assert parse_json('{"a": [1, 2]}', "t.json") == {"a": [1, 2]}
    with pytest.raises(TokenizerFileError, match=r"^t\.json: not valid JSON at line 2, column 6: "):
        parse_json('{"a":\n  [1,, 2]}', "t.json")
    with pytest.raises(TokenizerFileError, match=r"^t\.json: JSON nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000, "t.json")
    with pytest.raises(TokenizerFileError, match=r"^t\.json: JSON this reader refuses: Exceeds the limit"):
        parse_json(json.dumps({"a": 1}).replace("1", "9" * 5000), "t.json")


def test_a_special_token_with_a_lone_surrogate_is_named():
    assert special_token_bytes("<|é|>", "added_tokens") == "<|é|>".encode()
    with pytest.raises(TokenizerFileError, match=r"added_tokens: special token '<\\ud800>' has a lone surrogate "
                                                 r"\('\\ud800' at character 1\)"):
        special_token_bytes("<\ud800>", "added_tokens")


def test_merges_and_tokens_in_gpt2s_alphabet():
    assert parse_merge("Ġ t", "vocab.bpe, line 2") == (b" ", b"t")
    assert parse_token("Ċ", "x") == b"\n"
    for bad in ("Ġt", "Ġ  t", " t", 5):
        with pytest.raises(TokenizerFileError, match=r"vocab\.bpe, line 2: expected two tokens"):
            parse_merge(bad, "vocab.bpe, line 2")
    with pytest.raises(TokenizerFileError, match=r"vocab\.bpe, line 2: '▁t' is not in GPT-2's byte alphabet"):
        parse_merge("▁t x", "vocab.bpe, line 2")
    with pytest.raises(TokenizerFileError, match=r"x: expected a token string, got 3"):
        parse_token(3, "x")


def test_a_merge_whose_parts_or_result_are_no_tokens_is_named_by_its_place():
    vocab = {b"a", b"b", b"ab", b"c"}
    check_merges_known([(b"a", b"b")], vocab, lambda k: f"line {k + 1}")
    for merges, role, shown in (([(b"a", b"c")], "result", "ac"), ([(b"x", b"b")], "left part", "x"),
                                ([(b"a", b"b"), (b"ab", b"d")], "right part", "d")):
        with pytest.raises(TokenizerFileError, match=rf"line {len(merges)}: the merge's {role} '{shown}' is not in"):
            check_merges_known(merges, vocab, lambda k: f"line {k + 1}")
