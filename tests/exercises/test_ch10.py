"""Chapter 10's checkers: right answers pass, wrong ones fail with specific feedback and a hint."""

from __future__ import annotations

import pytest

from exercises.feedback_checks import assert_wrong

from bpe_course.exercises import ch10
from bpe_course.pretokenize import GPT4_PATTERN, pretokenize


def test_toy_merges_right_answer():
    fb = ch10.check_toy_merges([(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"abc", b"d")])
    assert fb and repr(fb).startswith("✅ Correct:")


def test_toy_merges_the_tempting_wrong_split():
    # (ab, cd) joins to the right bytes, but BPE below rank 7 reaches abc (rank 5) before cd (rank 6).
    fb = ch10.check_toy_merges([(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"ab", b"cd")])
    assert_wrong(fb, "b'abcd' (rank 7)", "never a rank >= 7")
    assert "b'abc'" not in repr(fb)  # the feedback points, it does not give the parts away


@pytest.mark.parametrize("answer, fragment", [
    ([], "you gave 0 merges"),
    ([(b"a", b"b"), (b"a", b"bc"), (b"c", b"d"), (b"abc", b"d")], "does it leave b'bc' possible"),
    ([(b"a", b"b"), (b"a", b"c"), (b"c", b"d"), (b"abc", b"d")], "should make b'abc'"),
    (["ab", 3], "list of pairs of bytes"),
])
def test_toy_merges_other_wrong_answers(answer, fragment):
    assert_wrong(ch10.check_toy_merges(answer), fragment)


def test_digit_pretokens():
    right = pretokenize(ch10.DIGITS_TEXT, GPT4_PATTERN)
    assert right == ["Total", ":", " ", "123", "456", "7", " items"]
    assert ch10.check_digit_pretokens(right)
    assert_wrong(ch10.check_digit_pretokens(["Total", ":", " 123", "456", "7", " items"]), "starts with a space")
    wrong_groups = ch10.check_digit_pretokens(["Total", ":", " ", "1", "234", "567", " items"])
    assert_wrong(wrong_groups, "['1', '234', '567']", "quantifier")
    assert "'123'" not in repr(wrong_groups)  # the right groups are not given away
    assert_wrong(ch10.check_digit_pretokens(["Total:", " 1234567", " items"]), "starts with a space")
    assert_wrong(ch10.check_digit_pretokens(["Total", ":", " ", "1234567"]), "join to")
    assert_wrong(ch10.check_digit_pretokens(["Total:", " ", "123", "456", "7", " items"]),
                 "letters or punctuation")


def test_gpt4_longer(gpt2_tok, cl100k_tok):
    good = ch10.check_gpt4_longer("In 1999", gpt2_tok, cl100k_tok)
    assert good and "takes 4 tokens with GPT-4 but only 2 with GPT-2" in repr(good)
    assert len(cl100k_tok.encode("In 1999")) > len(gpt2_tok.encode("In 1999"))
    for text, fragment in [("Hello world", "as short"), ("        indented", "shorter"), ("        return 7", "shorter")]:
        feedback = ch10.check_gpt4_longer(text, gpt2_tok, cl100k_tok)
        assert_wrong(feedback, fragment, "digits" if any(c.isdigit() for c in text) else "section 4")
        assert "1999" not in repr(feedback)  # issue 22: the hint named the answer
    assert_wrong(ch10.check_gpt4_longer("", gpt2_tok, cl100k_tok), "non-empty")


def test_fewest_merges_exercise(gpt2_tok):
    (only_id,) = gpt2_tok.encode(ch10.WHOLE_WORD)
    answer = only_id - 255  # merge number m makes GPT-2's id 255 + m
    assert len(gpt2_tok.truncated(answer - 1).encode(ch10.WHOLE_WORD)) > 1
    assert gpt2_tok.truncated(answer).encode(ch10.WHOLE_WORD) == [only_id]
    good = ch10.check_fewest_merges(answer, gpt2_tok)
    assert good and repr(good).startswith("✅ Correct:")
    for wrong_answer, fragment in [(answer - 1, "is still 2 tokens"), (0, "is still 9 tokens"),
                                   (answer + 1, "fewer merges already make it one"),
                                   (50_000, "fewer merges already make it one"),
                                   (50_001, "outside"), (-1, "outside"), ("lots", "is not an int"), (2.5, "is not an int"),
                                   (None, "no answer yet"), (..., "no answer yet")]:
        feedback = ch10.check_fewest_merges(wrong_answer, gpt2_tok)
        assert not feedback and fragment in repr(feedback), (wrong_answer, repr(feedback))
        assert f"{answer:,}" not in repr(feedback) and str(answer) not in repr(feedback)  # never the answer
