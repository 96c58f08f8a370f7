"""Checkers for chapter 2 (counting pairs and making one merge).

>>> from bpe_course.algorithms.wordbpe import merge_pair, count_pairs
>>> check_count_pairs(count_pairs).ok, check_merge_pair(merge_pair).ok
(True, True)
>>> check_first_merge(("p", "u"))
❌ Not yet. ('p', 'u') does occur 6 times, but 2 other pairs occur as often: a tie.
Hint: find the tied pairs, then apply the course's tie rule from step 3 (not whichever pair was counted first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..algorithms.wordbpe import EOW, Pair, Word, best_pair, count_pairs, merge_pair, word_counts
from .feedback import PAIR_COUNTS, STR_PAIR, STRINGS, Feedback, correct, expect, run_cases, wrong

# ---------------------------------------------------------------- exercise 1: count_pairs

COUNT_CASES: list[tuple[dict[Word, int]]] = [
    ({("l", "o", "w", EOW): 5, ("l", "o", "w", "e", "r", EOW): 2},),
    ({("h", "u", "g", EOW): 3, ("p", "u", "g", EOW): 2, ("u", "g", EOW): 1},),
    ({("a", "a", "a", EOW): 1},),  # overlapping occurrences of ("a", "a") both count
    ({("a", "b", "a", "b", EOW): 4, ("ab", "ab", EOW): 2},),
    ({("x",): 7, ("x", "y"): 1},),  # a one-symbol word has no pairs
]


def _as_counts(result: Any) -> dict[Pair, int] | None:
    """The learner's result as a plain dict without zero counts (a Counter and a dict compare equal)."""
    if not isinstance(result, Mapping):
        return None
    return {tuple(pair): n for pair, n in result.items() if n}


def _unweighted(words: Mapping[Word, int]) -> dict[Pair, int]:
    return dict(count_pairs({word: 1 for word in words}))


def _non_overlapping(words: Mapping[Word, int]) -> dict[Pair, int]:
    counts: Counter[Pair] = Counter()
    for word, freq in words.items():
        i = 0
        while i < len(word) - 1:
            counts[word[i], word[i + 1]] += freq
            i += 2 if word[i] == word[i + 1] else 1
    return dict(counts)


def _diagnose_counts(case: tuple, expected: dict, got: Any) -> str:
    (words,) = case
    counts = _as_counts(got)
    if counts is None:
        return f"return a dict (or Counter) mapping pairs to counts, not a {type(got).__name__}."
    if counts == _unweighted(words):
        return "weight each word by its frequency: a word seen 5 times adds 5 to each of its pairs."
    if counts == _non_overlapping(words):
        return "in ('a', 'a', 'a') the pair ('a', 'a') occurs twice (positions 0-1 and 1-2): count every position."
    return ("list this case's pairs by hand, word by word, with how often each word occurs; "
            "then find the first pair where your count differs and ask why.")


def check_count_pairs(yours: Callable[[Mapping[Word, int]], Mapping[Pair, int]]) -> Feedback:
    """Exercise 2.1: ``count_pairs(words)`` -> ``{pair: count}``, every word weighted by its frequency."""
    return run_cases(yours, COUNT_CASES, lambda words: dict(count_pairs(words)), name="count_pairs",
                     same=lambda expected, got: _as_counts(got) == expected, diagnose=_diagnose_counts,
                     returns=PAIR_COUNTS)


# ---------------------------------------------------------------- exercise 2: merge_pair

MERGE_CASES: list[tuple[Word, Pair]] = [
    (("l", "o", "w", EOW), ("o", "w")),
    (("n", "e", "w", "e", "s", "t", EOW), ("e", "s")),
    (("a", "a", "a", EOW), ("a", "a")),  # non-overlapping, left to right: ('aa', 'a', '</w>')
    (("a", "a", "a", "a"), ("a", "a")),
    (("x", "y", "z"), ("a", "b")),  # the pair does not occur: unchanged
    (("a", "bc", EOW), ("ab", "c")),  # same letters, different symbols: no merge
    (("ca", "b", EOW), ("a", "b")),  # "a" is only the end of a symbol: no merge
    (("a", "bc", EOW), ("a", "b")),  # "b" is only the start of a symbol: no merge
    (("t", EOW, "t", EOW), ("t", EOW)),
]


def _diagnose_merge(case: tuple, expected: Word, got: Any) -> str:
    symbols, pair = case
    if not isinstance(got, (tuple, list)):
        return f"return the new symbols as a tuple, not a {type(got).__name__}."
    if "".join(map(str, got)) != "".join(symbols):
        return "a merge never changes the text a word spells: only where the symbol boundaries are."
    if symbols in {("a", "bc", EOW), ("ca", "b", EOW)}:
        return ("compare whole symbols, not joined text (a string replace on 'a bc' finds 'a b' inside it): "
                "merge only where symbols[i] == pair[0] and symbols[i + 1] == pair[1].")
    if pair[0] == pair[1]:
        return "scan left to right; after joining two symbols, continue *after* them (no overlapping merges)."
    return "walk through the symbols; where symbols[i], symbols[i+1] == pair, emit the joined symbol and skip both."


def check_merge_pair(yours: Callable[[Sequence[str], Pair], Sequence[str]]) -> Feedback:
    """Exercise 2.2: ``merge_pair(symbols, pair)`` joins every occurrence of ``pair``, left to right."""
    return run_cases(yours, MERGE_CASES, merge_pair, name="merge_pair",
                     same=lambda expected, got: isinstance(got, (tuple, list)) and tuple(got) == expected,
                     diagnose=_diagnose_merge, returns=STRINGS)


# ---------------------------------------------------------------- exercise 3: the first merge

FIRST_MERGE_CORPUS = "hug " * 3 + "pug " * 2 + "pun " * 4 + "bun " * 2


def check_first_merge(answer: Pair) -> Feedback:
    """Exercise 2.3: which pair does BPE merge first on ``FIRST_MERGE_CORPUS``? Answer a tuple such as ``("h", "u")``."""
    if (problem := expect(answer, STR_PAIR, hint='answer a tuple of two symbols, e.g. ("h", "u").')) is not None:
        return problem
    counts = count_pairs(word_counts(FIRST_MERGE_CORPUS))
    expected = best_pair(counts)
    answer = (answer[0], answer[1])
    tied = sorted((pair for pair, n in counts.items() if n == counts[expected]), reverse=True)
    if answer == expected:
        return correct(f"{expected} occurs {counts[expected]} times, tied with {len(tied) - 1} other pair(s); "
                       "the tie goes to the lexicographically greatest pair.")
    if answer not in counts:
        return wrong(f"{answer} never occurs in the corpus.", "split every word into characters plus '</w>' first.")
    if answer in tied:
        others = len(tied) - 1
        return wrong(f"{answer} does occur {counts[answer]} times, but {others} other pair{'s' if others > 1 else ''} "
                     f"occur{'' if others > 1 else 's'} as often: a tie.",
                     "find the tied pairs, then apply the course's tie rule from step 3 (not whichever pair "
                     "was counted first).")
    return wrong(f"{answer} occurs {counts[answer]} times; some pairs occur {counts[expected]} times.",
                 "weight each word by how often it appears: 'pun' appears 4 times, so its pairs get 4 each.")
