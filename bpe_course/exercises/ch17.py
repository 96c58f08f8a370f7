"""Checkers for chapter 17 (beyond greedy BPE).

>>> from bpe_course.algorithms.variants import fewest_tokens, gini, is_superword
>>> check_fewest_count(lambda piece, vocab: len(fewest_tokens(piece, vocab))).ok
True
>>> check_gini(gini).ok, check_superword(is_superword).ok
(True, True)
>>> print(check_gini(lambda v: sum(abs(a - b) for a in v for b in v) / (len(v) ** 2 * (sum(v) / len(v)))))
❌ Not yet. my_gini([0.0, 0.0, 4.0]) should be 0.6666666666666666, got 1.3333333333333333.
Hint: every pair is counted twice, (a, b) and (b, a): the definition divides by twice the mean
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..algorithms.variants import fewest_tokens, gini, is_superword
from .feedback import INT, NUMBER, Feedback, Kind, run_cases



class _Vocab(frozenset):
    """A set of tokens shown sorted, so feedback reads the same on every run (a set's order is not)."""

    def __repr__(self) -> str:
        return "{" + ", ".join(map(repr, sorted(self, key=lambda t: (len(t), t)))) + "}"


def _with_bytes(piece: bytes, *tokens: bytes) -> frozenset[bytes]:
    """The single bytes of ``piece`` and ``tokens``: a small vocabulary that can spell the piece."""
    return _Vocab({piece[i:i + 1] for i in range(len(piece))} | set(tokens))


FEWEST_CASES = [
    (b"abcd", _with_bytes(b"abcd", b"ab", b"cd", b"abc")),
    (b"abcde", _with_bytes(b"abcde", b"abc", b"cde", b"ab")),  # the longest first token is not the shortest way
    (b"aaaaa", _with_bytes(b"a", b"aa", b"aaa")),
    (b"", _Vocab()),
    (b"xyz", _with_bytes(b"xyz")),
    (b"the cat", _with_bytes(b"the cat", b"th", b"the", b" c", b"at", b" cat", b"e c")),
    (b"abcab", _with_bytes(b"abcab", b"abca", b"bcab", b"ab", b"ca")),
    ("日本".encode(), _with_bytes("日本".encode(), "日".encode(), "本".encode())),
]
GINI_CASES = [([1.0, 1.0, 1.0],), ([0.0, 0.0, 4.0],), ([1, 3],), ([2, 4, 6, 8],), ([5],), ([1, 2, 3, 4, 10],)]
SUPERWORD_CASES = [(b" of the",), (b" the",), (b"the",), (b"   ",), (b", and",), (b" ",), (b"of  ",),
                   (b"  of",), (b"a b",), (b"",)]
BOOL = Kind("True or False", lambda v: isinstance(v, bool), "True")


def _diagnose_fewest(case: tuple, expected: int, got: int) -> str:
    piece, vocab = case
    greedy, i = 0, 0
    while i < len(piece):
        i += max(j for j in range(1, len(piece) - i + 1) if piece[i:i + j] in vocab)
        greedy += 1
    if got == greedy and greedy != expected:
        return (f"taking the longest token at each position is not always shortest: try every token that "
                f"starts at a position, as the shortest path of section 1 does ({piece!r})")
    if got == expected + 1 or got == expected - 1:
        return "off by one: the empty rest of a piece needs 0 tokens, and each token you take adds 1"
    return "for each position from the end, the fewest tokens from there on is 1 + the best over the tokens starting there"


def check_fewest_count(fewest_count: Callable) -> Feedback:
    """Exercise 17.1: the fewest tokens of ``vocab`` that spell ``piece``."""
    return run_cases(fewest_count, FEWEST_CASES, lambda piece, vocab: len(fewest_tokens(piece, set(vocab))),
                     name="fewest_count", diagnose=_diagnose_fewest, returns=INT)


def _diagnose_gini(case: tuple, expected: float, got: float) -> str:
    (values,) = case
    n, mean = len(values), sum(values) / len(values)
    pairs = sum(abs(a - b) for a in values for b in values)
    if isinstance(got, (int, float)) and mean:
        if math.isclose(got, 2 * expected, rel_tol=1e-9):
            return "every pair is counted twice, (a, b) and (b, a): the definition divides by twice the mean"
        if n > 1 and math.isclose(got, pairs / (2 * n * (n - 1) * mean), rel_tol=1e-9):
            return "that divides by n (n - 1) pairs; the definition averages over all n * n ordered pairs"
        if math.isclose(got, pairs / (2 * n * n), rel_tol=1e-9):
            return "that is the mean absolute difference over 2; divide it by the mean too, so the scale drops out"
    return "average |a - b| over every ordered pair (a, b), then divide by twice the mean"


def check_gini(my_gini: Callable) -> Feedback:
    """Exercise 17.2: the Gini coefficient."""
    return run_cases(my_gini, GINI_CASES, gini, name="my_gini", returns=NUMBER, diagnose=_diagnose_gini,
                     same=lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))


def _diagnose_superword(case: tuple, expected: bool, got: bool) -> str:
    (token,) = case
    if expected is False and token.strip(b" ") == b"":
        return f"{token!r} is only spaces: there is no word on either side"
    if expected is False and token.startswith(b" "):
        return f"{token!r}: a space at the start is how GPT-2's pattern attaches a space to the word after it"
    if expected is False:
        return f"{token!r}: spaces at the end follow one word but lead to none"
    return f"{token!r} has a space after a non-space character, with more after it"


def check_superword(spans_words: Callable) -> Feedback:
    """Exercise 17.3: does a token span words?"""
    return run_cases(spans_words, SUPERWORD_CASES, is_superword, name="spans_words", returns=BOOL,
                     diagnose=_diagnose_superword)
