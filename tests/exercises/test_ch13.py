"""Chapter 13's checkers: a right answer passes, the typical wrong ones get feedback that points
at the mistake without giving the answer."""

from __future__ import annotations

import pytest

from bpe_course import corpus
from bpe_course.exercises import ch13
from bpe_course.algorithms.token_tax import relative_costs, train_on_mix
from bpe_course.corpus import ARTICLES, HELDOUT_ARTICLES, MIXES


def measure(tok, code: str, unit) -> int:
    return sum(unit(tok, corpus.udhr(code)[k]) for k in ARTICLES)


def tokens(tok, text: str) -> int:
    return len(tok.encode_ordinary(text))


def utf8(tok, text: str) -> int:
    return len(text.encode("utf-8"))


def characters(tok, text: str) -> int:
    return len(text)


def ratio(tok, code: str, unit) -> float:
    return measure(tok, code, unit) / measure(tok, "eng", unit)


def factor(tok, code: str) -> float:
    return ratio(tok, code, tokens) / ratio(tok, code, utf8)


def joined_factor(tok, code: str) -> float:
    def size(c: str, unit) -> int:
        return unit(tok, "\n".join(corpus.udhr(c)[k] for k in ARTICLES))
    return (size(code, tokens) / size("eng", tokens)) / (size(code, utf8) / size("eng", utf8))


def test_vocabulary_factor_right_answers_pass(gpt2_tok, cl100k_tok):
    right = ch13.check_vocabulary_factor(factor)
    assert right.ok, right.message
    # the figures it reports are the chapter's measure: GPT-2 serves Tamil worse than cl100k does
    assert factor(gpt2_tok, "tam") > factor(cl100k_tok, "tam") > 1
    assert ch13.check_vocabulary_factor(joined_factor).ok  # one text with newlines is as good a measure


@pytest.mark.parametrize("attempt, says", [
    (lambda tok, code: ratio(tok, code, tokens), "whole token ratio"),
    (lambda tok, code: 1 / factor(tok, code), "other way round"),
    (lambda tok, code: ratio(tok, code, tokens) / ratio(tok, code, characters), "ratio of characters"),
    (lambda tok, code: ratio(tok, code, utf8), "not on the tokenizer"),
    (lambda tok, code: 2.0, "English measured against itself"),
    (lambda tok, code: 1.0, "is not the factor"),
    (lambda tok, code: factor(tok, code) if code in ("eng", "swh") else 3.0, "is not the factor"),
])
def test_vocabulary_factor_wrong_answers_get_pointed(attempt, says):
    feedback = ch13.check_vocabulary_factor(attempt)
    assert not feedback.ok and says in feedback.message, feedback.message
    assert "encode(" not in feedback.hint and "/" not in feedback.hint  # points, never the formula


def test_vocabulary_factor_reports_a_crash():
    feedback = ch13.check_vocabulary_factor(lambda tok, code: 1 / 0)
    assert not feedback.ok and "ZeroDivisionError" in feedback.message


def worst(mix: dict[str, int]) -> float:
    costs = relative_costs({"t": train_on_mix(mix)}, articles=HELDOUT_ARTICLES)
    grouped = costs.groupby("language")
    return float((grouped["tokens"].sum() / grouped["english_tokens"].sum()).max())


def test_a_mix_that_helps_the_costliest_language_passes():
    better = {**MIXES["balanced"], "tam": 2, "ell_monotonic": 2, "hin": 2}
    assert worst(better) < worst(MIXES["balanced"])  # the oracle: a separate measurement
    feedback = ch13.check_mix(better)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize("mix, says", [
    (dict(MIXES["balanced"]), "the balanced mix itself"),
    ({"eng": 3}, "costliest language is"),
    ({"xx": 1}, "not one of the languages"),
    ({"eng": -1}, "whole numbers"),
    ({"eng": 0}, "no text"),
    ({"eng": 1000}, "more than"),
])
def test_mixes_that_do_not_help_get_feedback(mix, says):
    feedback = ch13.check_mix(mix)
    assert not feedback.ok and says in feedback.message, feedback.message


def test_a_worse_mix_is_said_to_be_worse():
    english_only = worst({"eng": 1})
    assert english_only > worst(MIXES["balanced"])
    assert f"{english_only:.2f}×" in ch13.check_mix({"eng": 1}).message
