"""Chapter 1's checkers, fed right and wrong answers: the feedback they give."""

from __future__ import annotations

import pytest

from exercises.feedback_checks import assert_right, assert_wrong

from bpe_course.exercises import ch01


def test_oov_rate_right():
    def oov_rate(train, heldout):
        known = set(train)
        return sum(w not in known for w in heldout) / len(heldout)

    assert_right(ch01.check_oov_rate(oov_rate))


@pytest.mark.parametrize("wrong_fn, fragment", [
    (lambda t, h: len(set(h) - set(t)) / len(set(h)), "count every occurrence"),
    (lambda t, h: sum(w in set(t) for w in h) / len(h), "share of *known* words"),
    (lambda t, h: 100 * sum(w not in set(t) for w in h) / len(h), "not a percentage"),
    (lambda t, h: "0.5", "return a number"),
    (lambda t, h: sum(w.lower() not in {x.lower() for x in t} for w in h) / len(h), "['The', 'cat']"),
])
def test_oov_rate_wrong(wrong_fn, fragment):
    assert_wrong(ch01.check_oov_rate(wrong_fn), fragment)


def test_oov_rate_failure_names_the_case():
    feedback = ch01.check_oov_rate(lambda t, h: 0.0)
    assert_wrong(feedback, "oov_rate(['a', 'b', 'a'], ['a', 'c', 'c', 'b']) should be 0.5, got 0.0")


def test_token_counts():
    text = ch01.TOKEN_COUNT_TEXT
    assert_right(ch01.check_token_counts(len(text), len(text.split())))
    assert_wrong(ch01.check_token_counts(len(text.replace(" ", "")), 3), "counts only the letters", "spaces too")
    assert_wrong(ch01.check_token_counts(len(text), 4), "word_tokens=4", "count the runs")
    assert_wrong(ch01.check_token_counts(99, 3), "char_tokens=99")


def test_whitespace_vocab_size():
    words = ch01.VOCAB_TEXT.split()
    assert_right(ch01.check_whitespace_vocab_size(len(set(words))))
    assert_wrong(ch01.check_whitespace_vocab_size(len(set(words)) + 1), "<unk> out")
    assert_wrong(ch01.check_whitespace_vocab_size(len(words)), "occurrences")
    assert_wrong(ch01.check_whitespace_vocab_size(len({w.lower() for w in words})), "'The' and 'the'")
    assert_wrong(ch01.check_whitespace_vocab_size(len({w.strip(".!") for w in words})), "strips the punctuation")
