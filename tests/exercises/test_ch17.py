"""Chapter 17's checkers: right answers pass, the usual mistakes get a hint that points without answering."""

from __future__ import annotations

import pytest

from bpe_course.exercises import ch17


def fewest_right(piece, vocab):
    best = [0] * (len(piece) + 1)
    for i in range(len(piece) - 1, -1, -1):
        best[i] = min(best[j] + 1 for j in range(i + 1, len(piece) + 1) if piece[i:j] in vocab)
    return best[0]


def fewest_greedy(piece, vocab):
    n = i = 0
    while i < len(piece):
        i += max(j for j in range(1, len(piece) - i + 1) if piece[i:i + j] in vocab)
        n += 1
    return n


def gini_right(values):
    mean = sum(values) / len(values)
    return sum(abs(a - b) for a in values for b in values) / (2 * len(values) ** 2 * mean)


def test_right_answers_pass():
    assert ch17.check_fewest_count(fewest_right).ok
    assert ch17.check_gini(gini_right).ok
    assert ch17.check_superword(lambda token: b" " in token.strip(b" ")).ok


@pytest.mark.parametrize("mistake, words", [
    (fewest_greedy, "longest token at each position"),
    (lambda piece, vocab: fewest_right(piece, vocab) + 1, "off by one"),
])
def test_fewest_count_mistakes_are_named_without_the_answer(mistake, words):
    feedback = ch17.check_fewest_count(mistake)
    assert not feedback.ok and words in feedback.hint
    assert "best[j] + 1" not in feedback.message and "min(" not in feedback.message


@pytest.mark.parametrize("mistake, words", [
    (lambda v: sum(abs(a - b) for a in v for b in v) / (len(v) ** 2 * (sum(v) / len(v))), "counted twice"),
    (lambda v: sum(abs(a - b) for a in v for b in v) / (2 * len(v) * (len(v) - 1) * (sum(v) / len(v))), "n * n"),
    (lambda v: sum(abs(a - b) for a in v for b in v) / (2 * len(v) ** 2), "divide it by the mean"),
])
def test_gini_mistakes_are_named(mistake, words):
    feedback = ch17.check_gini(mistake)
    assert not feedback.ok and words in feedback.hint
    assert "abs(a - b)" not in feedback.message


@pytest.mark.parametrize("mistake, words", [
    (lambda token: b" " in token, "attaches a space to the word after it"),
    (lambda token: b" " in token.lstrip(b" "), "spaces at the end"),
    (lambda token: token.count(b" ") > 0 and token.strip() == token, "space after a non-space"),
])
def test_superword_mistakes_are_named(mistake, words):
    feedback = ch17.check_superword(mistake)
    assert not feedback.ok and words in feedback.hint


def test_odd_answers_are_feedback_not_errors():
    assert "function" in ch17.check_gini(None).message
    assert not ch17.check_fewest_count(lambda piece, vocab: "2").ok
    assert "ZeroDivisionError" in ch17.check_gini(lambda v: 1 / 0).message
    assert not ch17.check_superword(lambda token: 1).ok
