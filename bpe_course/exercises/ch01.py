"""Checkers for chapter 1 (characters, words and why subwords).

Every checker returns a :class:`Feedback`: true when the answer is right, and shown in a notebook
as a short message: what is right, or the first failing case (expected vs got) with a hint.

>>> check_oov_rate(lambda train, heldout: sum(w not in set(train) for w in heldout) / len(heldout))
✅ Correct: your oov_rate agrees with the reference on all 5 cases.
>>> check_token_counts(char_tokens=16, word_tokens=3).ok
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .feedback import INT, NUMBER, Feedback, correct, expect, expect_all, run_cases, short as _short, shown as _shown, wrong


# ---------------------------------------------------------------- exercise 1: OOV rate


def reference_oov_rate(train_words: Sequence[str], heldout_words: Sequence[str]) -> float:
    """The share of held-out word *occurrences* whose word never occurs in training.

    >>> reference_oov_rate(["a", "b"], ["a", "c", "c", "d"])
    0.75
    """
    known = set(train_words)
    return sum(word not in known for word in heldout_words) / len(heldout_words)


OOV_CASES = [
    (["a", "b", "a"], ["a", "c", "c", "b"]),
    (["the", "cat"], ["The", "cat"]),
    (["x"], ["x", "x"]),
    (["run", "runs"], ["running", "run", "ran"]),
    (["to", "be", "or", "not"], ["to", "be", "be", "be", "it"]),
]


def _diagnose_oov(case: tuple, expected: float, got: Any) -> str:
    train, heldout = case
    if not isinstance(got, (int, float)):
        return f"return a number (a float between 0 and 1), not a {type(got).__name__}."
    unique_rate = len(set(heldout) - set(train)) / len(set(heldout))
    if math.isclose(got, 1 - expected):
        return "that is the share of *known* words; the OOV rate counts the unknown ones."
    if math.isclose(got, 100 * expected):
        return "return a fraction (0.25), not a percentage (25)."
    if math.isclose(got, unique_rate) and not math.isclose(expected, unique_rate):
        return "count every occurrence in the held-out list, not each distinct word once."
    return ("work this case by hand: which held-out occurrences are unknown to training, and out of how many "
            "occurrences? Then compare with what your function does with the same lists.")


def check_oov_rate(oov_rate: Callable[[Sequence[str], Sequence[str]], float]) -> Feedback:
    """Exercise 1.1: ``oov_rate(train_words, heldout_words)``, the share of held-out occurrences not seen in training."""
    return run_cases(oov_rate, OOV_CASES, reference_oov_rate, name="oov_rate",
                     same=lambda a, b: isinstance(b, (int, float)) and math.isclose(a, b),
                     diagnose=_diagnose_oov, hint="", returns=NUMBER)


# ---------------------------------------------------------------- exercise 2: counting tokens

TOKEN_COUNT_TEXT = "run runs running"


def check_token_counts(char_tokens: int, word_tokens: int) -> Feedback:
    """Exercise 1.2: how many tokens do the character and the whitespace tokenizer give for
    ``TOKEN_COUNT_TEXT``? (Both tokenizers as built in chapter 1: characters keep the spaces.)"""
    if (problem := expect_all((char_tokens, INT, "char_tokens"), (word_tokens, INT, "word_tokens"))) is not None:
        return problem
    want_chars, want_words = len(TOKEN_COUNT_TEXT), len(TOKEN_COUNT_TEXT.split())
    letters = len(TOKEN_COUNT_TEXT.replace(" ", ""))
    if char_tokens == want_chars and word_tokens == want_words:
        return correct(f"{want_chars} character tokens against {want_words} word tokens for the same "
                       f"{want_words} words: {want_chars / want_words:.1f} times as many.")
    if word_tokens != want_words:
        return wrong(f"word_tokens={_shown(word_tokens)} is off.",
                     "the whitespace tokenizer gives one token per run of non-space characters; count the runs.")
    if char_tokens == letters:
        return wrong(f"char_tokens={char_tokens} counts only the letters.",
                     "the character tokenizer keeps the spaces too (so decoding gives back the text): count them.")
    return wrong(f"char_tokens={_shown(char_tokens)} is off.", "one token per character, letters and spaces alike.")


# ---------------------------------------------------------------- exercise 3: vocabulary size

VOCAB_TEXT = "The cat sat. The cat sat on the mat! the mat"


def check_whitespace_vocab_size(answer: int) -> Feedback:
    """Exercise 1.3: how many entries does a whitespace tokenizer trained on ``VOCAB_TEXT`` have
    (not counting ``<unk>``)? Splitting is exactly ``text.split()``: case and punctuation are kept."""
    if (problem := expect(answer, INT)) is not None:
        return problem
    words = VOCAB_TEXT.split()
    expected = len(set(words))
    if answer == expected:
        return correct(f"{expected} distinct strings: {sorted(set(words))}. 'The' and 'the', 'sat.' and "
                       "'sat' are unrelated entries to a whitespace tokenizer.")
    if answer == expected + 1:
        return wrong(f"{answer} is one too many.", "the question leaves <unk> out; count only the words.")
    if answer == len(words):
        return wrong(f"{answer} is the number of word *occurrences*.", "count each distinct string once: len(set(...)).")
    if answer == len({w.lower() for w in words}):
        return wrong(f"{answer} treats 'The' and 'the' as one word.", "text.split() keeps case: they are two entries.")
    if answer == len({w.strip(".!?") for w in words}):
        return wrong(f"{answer} strips the punctuation.", "text.split() keeps 'sat.' and 'sat' apart.")
    return wrong(f"{_shown(answer)} is not the number of distinct whitespace tokens.",
                 "write the words of VOCAB_TEXT.split() down and cross out repeats.")
