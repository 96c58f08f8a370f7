"""Checkers for chapter 11 (making training fast): incremental pair counts, safe cuts, and
training on unique words.

>>> from collections import Counter
>>> def pair_delta(word, pair):
...     merged, i = [], 0
...     while i < len(word):
...         if word[i:i + 2] == pair:
...             merged.append(word[i] + word[i + 1]); i += 2
...         else:
...             merged.append(word[i]); i += 1
...     after = Counter(zip(merged, merged[1:]))
...     after.subtract(Counter(zip(word, word[1:])))
...     return after
>>> check_pair_delta(pair_delta)
✅ Correct: Your deltas match a full recount on all 7 test words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..pretokenize import GPT2_PATTERN, pretokenize
from ..train import train_bpe
from ..pairs import merge_pair
from .feedback import BYTES_PAIRS, FUNCTION, INT, PAIR_CHANGES, STR, Feedback, correct, expect, returned, shown as _shown, wrong

Word = tuple[bytes, ...]
Pair = tuple[bytes, bytes]


def _symbols(text: str) -> Word:
    return tuple(bytes([b]) for b in text.encode("utf-8"))


# ---------------------------------------------------------------- exercise 1: what one merge changes

DELTA_CASES: list[tuple[Word, Pair]] = [
    (_symbols("lower"), (b"o", b"w")),
    (_symbols("hello"), (b"l", b"l")),
    (_symbols("banana"), (b"a", b"n")),
    (_symbols("aaa"), (b"a", b"a")),
    (_symbols("aaaa"), (b"a", b"a")),
    ((b"ab", b"c", b"ab", b"c"), (b"ab", b"c")),
    (_symbols("xyz"), (b"q", b"q")),
]


def true_delta(word: Word, pair: Pair) -> Counter:
    """How each pair's count in ``word`` changes when ``pair`` is merged: a recount, after minus before."""
    merged = merge_pair(word, pair)
    delta = Counter(zip(merged, merged[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return Counter({p: d for p, d in delta.items() if d})


def check_pair_delta(pair_delta: Callable[[Word, Pair], dict]) -> Feedback:
    """Exercise 1: ``pair_delta(word, pair)`` -> ``{pair: change in count}`` after merging ``pair`` in ``word``."""
    if (problem := expect(pair_delta, FUNCTION)) is not None:
        return problem
    for word, pair in DELTA_CASES:
        try:
            got = pair_delta(word, pair)
        except Exception as exc:  # a learner's function may fail in any way: report it, don't crash
            return wrong(f"pair_delta({word!r}, {pair!r}) raised {type(exc).__name__}: {exc}",
                         "the function gets a tuple of bytes tokens and one pair of bytes")
        if (problem := returned(got, PAIR_CHANGES, f"pair_delta({word!r}, {pair!r})",
                                "return a dict or Counter mapping each pair to how much its count changed")) is not None:
            return problem
        got = {p: d for p, d in dict(got).items() if d}
        want = dict(true_delta(word, pair))
        if got != want:
            first = next(p for p in [*want, *got] if got.get(p, 0) != want.get(p, 0))
            return wrong(f"for word {word!r} and merge {pair!r}, the count of {first!r} should change by "
                         f"{want.get(first, 0):+d}, but yours changes it by {got.get(first, 0):+d}",
                         "write this word's pairs before the merge and after it, by hand, and compare the two "
                         "lists; then do the same for a run like a a a, where the merge goes left to right")
    return correct(f"Your deltas match a full recount on all {len(DELTA_CASES)} test words.")


# ---------------------------------------------------------------- exercise 2: a safe place to cut

CUT_TEXT = "Pre-tokens never cross a safe cut:  two spaces,\na newline, or 3.14 are worth a look."
CUT_RANGE = (20, 60)


def check_safe_cut(position: int, text: str = CUT_TEXT, pattern: str = GPT2_PATTERN) -> Feedback:
    """Exercise 2: a position in ``CUT_RANGE`` where ``text`` may be cut without changing its pre-tokens."""
    lo, hi = CUT_RANGE
    if (problem := expect(position, INT, hint=f"give an int position between {lo} and {hi}")) is not None:
        return problem
    for value, name in ((text, "text"), (pattern, "pattern")):
        if (problem := expect(value, STR, name, "leave text and pattern out: the exercise gives them")) is not None:
            return problem
    if not lo <= position <= hi:
        return wrong(f"{_shown(position)} is outside {lo}..{hi}", "the exercise asks for a cut in the middle of the text")
    try:
        whole = pretokenize(text, pattern)
        halves = pretokenize(text[:position], pattern) + pretokenize(text[position:], pattern)
    except Exception as exc:  # noqa: BLE001 -- a pattern passed in may not compile
        return wrong(f"pre-tokenizing with pattern={pattern!r} raised {type(exc).__name__}: {exc}",
                     "leave pattern out: the exercise uses GPT-2's")
    if halves == whole:
        return correct(f"cutting at {position} ({text[:position][-8:]!r} | {text[position:][:8]!r}) "
                       "leaves every pre-token as it was.")
    k = next((i for i, (a, b) in enumerate(zip(whole, halves)) if a != b), min(len(whole), len(halves)))
    shown = lambda pieces: repr(pieces[k]) if k < len(pieces) else "nothing"  # noqa: E731
    return wrong(f"cutting at {position} ({text[:position][-8:]!r} | {text[position:][:8]!r}) changes the "
                 f"pre-tokens: the whole text has {shown(whole)} where the two halves give {shown(halves)}",
                 "a cut is safe where no pre-token of the whole text starts before it and ends after it: "
                 "which of the text's pre-tokens did yours split, and where could the regex start a new one?")


# ---------------------------------------------------------------- exercise 3: train on unique words

TRAIN_TEXT = ("The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs on, "
              "faster and faster, over hills and through the old forest.\n") * 3
TRAIN_MERGES = 25


def word_counts_of(text: str) -> dict[Word, int]:
    """``{pre-token as a tuple of single bytes: how often it occurs}`` under the GPT-2 pattern."""
    return dict(Counter(_symbols(p) for p in pretokenize(text, GPT2_PATTERN)))


def check_train_words(train_words: Callable[[dict[Word, int], int], list[Pair]]) -> Feedback:
    """Exercise 3: ``train_words(word_counts, n_merges)`` must learn the same merges as ``train_bpe``."""
    if (problem := expect(train_words, FUNCTION)) is not None:
        return problem
    expected = train_bpe(TRAIN_TEXT, 256 + TRAIN_MERGES, method="naive")[1]
    got: Sequence[tuple[bytes, ...]]
    try:
        got = train_words(word_counts_of(TRAIN_TEXT), TRAIN_MERGES)
    except Exception as exc:  # report, don't crash
        return wrong(f"train_words raised {type(exc).__name__}: {exc}",
                     "it gets {word as tuple of bytes: count} and a number of merges")
    if (problem := returned(got, BYTES_PAIRS, "train_words(word_counts, n_merges)")) is not None:
        return problem
    got = [tuple(pair) for pair in got]
    if got == expected:
        return correct(f"all {len(expected)} merges equal train_bpe(..., method='naive').")
    k = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
    if k == len(got):
        right_so_far = f"; the first {k} are right" if k else ""
        return wrong(f"you returned {len(got)} merges{right_so_far}, but {len(expected)} were asked for",
                     "loop n_merges times (stop early only if no pair is left)")
    if k == len(expected):
        return wrong(f"you returned {len(got)} merges, more than the {len(expected)} asked for",
                     "stop after n_merges")
    counts = _pair_counts(word_counts_of(TRAIN_TEXT), expected[:k])
    said = (f"merge {k} is {got[k]!r}, expected {expected[k]!r} (the first {k} are right; after them "
            f"{expected[k]!r} occurs {counts[expected[k]]} times and yours {counts.get(got[k], 0)} times)")
    if counts.get(got[k]) == counts[expected[k]]:
        return wrong(said + ": a tie", "a tie is broken by the pairs themselves: which of the two does best_pair "
                     "pick, and which did you?")
    return wrong(said, "the count of a pair is a count over the whole text: how many times does each word "
                 "occur in it?")


def _pair_counts(word_counts: dict[Word, int], merges: list[Pair]) -> Counter:
    """Pair counts, weighted by word counts, after applying ``merges`` in order."""
    words = dict(word_counts)
    for pair in merges:
        words = {merge_pair(word, pair): freq for word, freq in words.items()}
    counts: Counter = Counter()
    for word, freq in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts
