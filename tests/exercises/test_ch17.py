"""Chapter 17's checkers: right answers pass, the usual mistakes get a hint that points without answering.

Exercises 17.1 and 17.2 ask for an extension: their tests are at the end."""

from __future__ import annotations

import pytest

from bpe_course.algorithms import Merges, intersection_over_self, released_stage2_allows, word_sequences
from bpe_course.exercises import ch17


def test_right_answers_pass():
    assert ch17.check_superword(lambda token: b" " in token.strip(b" ")).ok


@pytest.mark.parametrize("mistake, words", [
    (lambda token: b" " in token, "attaches a space to the word after it"),
    (lambda token: b" " in token.lstrip(b" "), "spaces at the end"),
    (lambda token: token.count(b" ") > 0 and token.strip() == token, "space after a non-space"),
])
def test_superword_mistakes_are_named(mistake, words):
    feedback = ch17.check_superword(mistake)
    assert not feedback.ok and words in feedback.hint


def test_odd_answers_are_feedback_not_errors():
    assert "function" in ch17.check_superword(None).message
    assert "ZeroDivisionError" in ch17.check_superword(lambda token: 1 / 0).message
    assert not ch17.check_superword(lambda token: 1).ok


# ---- the exercises that ask for a measurement or an extension (issue 32) ----
# ---------------------------------------------------------------- 17.1: Picky BPE's removal inside the loop


def make_picky(removal):
    """The exercise's given loop, with ``removal(m, part, made, alive, parts, merges, removed, threshold)`` inside."""
    def my_picky(counts, n_merges, threshold):
        m = Merges(word_sequences(counts))
        made_of, alive, merges, removed = {}, {}, [], []

        def parts(token):
            a, b = made_of[token]
            return tuple(s for half in (a, b) for s in ((half,) if len(half) == 1 or half in alive else parts(half)))

        while len(merges) - len(removed) < n_merges and (found := m.best()) is not None:
            pair = found[0]
            token = pair[0] + pair[1]
            had = m.tokens[token]
            before = {p: m.tokens[p] for p in pair}
            m.merge(pair)
            made = m.tokens[token] - had
            merges.append(pair)
            made_of[token] = pair
            alive.pop(token, None)
            alive[token] = None
            for part in dict.fromkeys(pair):
                removal(m, part, made, alive, parts, merges, removed, threshold, found[1], before)
        return removed
    return my_picky


def right(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) > threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def at_least(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) >= threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def counted_before(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(count, before[part]) > threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def no_split(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) > threshold:
        del alive[part]
        removed.append((len(merges) - 1, part))


def bytes_too(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if intersection_over_self(made, m.tokens[part] + made) > threshold:
        alive.pop(part, None)
        if len(part) > 1:
            m.split(part, parts)
        removed.append((len(merges) - 1, part))


def test_picky_removal_right_answer_passes_and_the_starter_is_told_it_removes_nothing():
    assert ch17.check_picky_removal(make_picky(right)).ok
    starter = ch17.check_picky_removal(make_picky(lambda *args: None))
    assert not starter.ok and "removed nothing" in starter.message


@pytest.mark.parametrize("mistake, words", [
    (at_least, "equals the threshold exactly"),
    (counted_before, "before the merge"),
    (no_split, "still in the sequences"),
    (bytes_too, "single byte"),
])
def test_picky_removal_mistakes_are_named_without_the_fix(mistake, words):
    feedback = ch17.check_picky_removal(make_picky(mistake))
    assert not feedback.ok and words in feedback.hint
    said = (feedback.message + " " + feedback.hint).lower()
    for fix in ("m.split(", "> threshold", "m.tokens[part] + made", "len(part) > 1", "greater than", "strict",
                "after the merge", "plus those merges", "never removed", "at least"):
        assert fix not in said, fix


def test_picky_removal_odd_answers():
    assert "function" in ch17.check_picky_removal(None).message
    assert "not a list of (merge number, token) pairs" in ch17.check_picky_removal(lambda c, n, t: {}).message
    assert "ZeroDivisionError" in ch17.check_picky_removal(lambda c, n, t: 1 / 0).message


# ---------------------------------------------------------------- 17.2: SuperBPE's released limits


def test_stage2_limits_right_answer_passes():
    assert ch17.check_stage2_limits(released_stage2_allows).ok
    assert ch17.check_stage2_limits(lambda t: b": " not in t and len(t.split()) <= 4 if b"\n" not in t else
                                    b": " not in t and sum(1 for w in t.split(b" ") if w) <= 4).ok


@pytest.mark.parametrize("mistake, words", [
    (lambda t: True, "colon followed by a space"),
    (lambda t: sum(1 for w in t.split(b" ") if w) <= 4, "colon followed by a space"),
    (lambda t: b":" not in t and sum(1 for w in t.split(b" ") if w) <= 4, "a colon alone"),
    (lambda t: b": " not in t and t.count(b" ") <= 4, "count words, not spaces"),
    (lambda t: b": " not in t and sum(1 for w in t.split(b" ") if w) < 4, "four words are allowed"),
    (lambda t: b": " not in t and len(t.split()) <= 4, "newline"),
])
def test_stage2_limits_mistakes_are_named(mistake, words):
    feedback = ch17.check_stage2_limits(mistake)
    assert not feedback.ok and words in feedback.hint
    assert "split(b\" \")" not in feedback.message + feedback.hint and "<= 4" not in feedback.message + feedback.hint


def test_stage2_limits_are_checked_in_training_too():
    # right on every listed token, wrong on tokens of six words or more, which only training makes
    sneaky = (lambda t: released_stage2_allows(t) or sum(1 for w in t.split(b" ") if w) >= 6)
    feedback = ch17.check_stage2_limits(sneaky)
    assert not feedback.ok and "trained with your rule" in feedback.message


def test_stage2_limits_odd_answers():
    assert "function" in ch17.check_stage2_limits(None).message
    assert "True or False" in ch17.check_stage2_limits(lambda t: 1).message
