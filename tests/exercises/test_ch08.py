"""Chapter 8's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

import regex

from bpe_course.exercises import ch08
from bpe_course.pretokenize import GPT2_PATTERN


def test_number_groups():
    for pattern in (r"\d{1,3}", r"\p{N}{1,3}", r"[0-9]{1,3}", r"\d\d?\d?"):
        assert ch08.check_number_groups(pattern).ok, pattern
    unbounded = ch08.check_number_groups(r"\d+")
    assert not unbounded.ok and "['123', '456', '7']" in unbounded.message and "maximum" in unbounded.hint and "{1,3}" not in unbounded.hint
    from_right = ch08.check_number_groups(r"\d{1,3}(?=(?:\d{3})*(?!\d))")
    assert not from_right.ok and "groups start at the left" in from_right.hint
    not_digits = ch08.check_number_groups(r"\w{1,3}")
    assert not not_digits.ok and "digits only" in not_digits.hint
    bounded = ch08.check_number_groups(r"\b\d{1,3}")
    assert not bounded.ok and "not matched at all" in bounded.hint
    assert "does not compile" in ch08.check_number_groups(r"(\d{1,3}").message
    assert "capturing group" in ch08.check_number_groups(r"(\d){1,3}").message


def test_gpt2_pieces():
    text = "  Don't   STOP's!"
    right = regex.findall(GPT2_PATTERN, text)
    assert ch08.check_gpt2_pieces(text, right).ok
    apostrophe = ch08.check_gpt2_pieces(text, [" ", " Don't", "   ", "STOP", "'s", "!"])
    assert not apostrophe.ok and "piece 0 is right, but piece 1, \" Don't\"" in apostrophe.message
    assert "' Don'," not in apostrophe.message  # the right piece is not given away
    assert "apostrophe" in apostrophe.hint
    spaces = ch08.check_gpt2_pieces(text, [" ", " Don", "'t", "   ", "STOP", "'s", "!"])
    assert not spaces.ok and "pieces 0 to 2 are right, but piece 3, '   '" in spaces.message and "last space" in spaces.hint
    upper = ch08.check_gpt2_pieces("IT'S", ["IT", "'S"])
    assert not upper.ok and "lower case only" in upper.hint
    lost = ch08.check_gpt2_pieces(text, ["Don't", "STOP's!"])
    assert not lost.ok and "join to" in lost.message
    assert ch08.gpt4_pieces("IT'S") == ["IT", "'S"]


def test_lookalike_fix():
    assert ch08.check_lookalike_fix(ch08.LOOKALIKE_FIXED).ok
    assert ch08.check_lookalike_fix(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\d+| ?[^\s\w\d]+|\s+""").ok  # letters only
    starter = ch08.check_lookalike_fix(ch08.LOOKALIKE)
    assert not starter.ok and "still splits like the write-up's pattern" in starter.message
    reordered = ch08.check_lookalike_fix(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\d+| ?\w+| ?[^\s\w\d]+|\s+""")
    assert not reordered.ok and "utf8" in reordered.message
    assert not ch08.check_lookalike_fix(r"(\d+)").ok and not ch08.check_lookalike_fix("(").ok
