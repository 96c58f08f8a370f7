"""Checkers for chapter 3 (the training loop).

>>> check_first_merges([("t", "e"), ("te", "n"), ("te", "a")]).ok
True
>>> check_stop(merges=7, vocab_size=17).ok
True
>>> from bpe_course.algorithms.wordbpe import WordBPE
>>> check_learn_merges(lambda corpus, n: WordBPE.train(corpus, 10**6).merges[:n])
✅ Correct: your learn_merges agrees with the reference on all 5 cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..algorithms.wordbpe import SPECIALS, Pair, WordBPE, apply_merge, count_pairs, merge_pair, word_counts
from .feedback import INT, STR_PAIRS, STRINGS, Feedback, correct, expect, expect_all, run_cases, shown as _shown, wrong

BIG = 10**6  # a vocab_size no toy corpus reaches: training runs until no pair repeats

# ---------------------------------------------------------------- exercise 1: the first three merges

PREDICT_CORPUS = "tea " * 4 + "ten " * 3 + "net " * 2 + "tent " * 1


def check_first_merges(answer: Sequence[Pair]) -> Feedback:
    """Exercise 3.1: the first three merges BPE learns on ``PREDICT_CORPUS``, in order."""
    if (problem := expect(answer, STR_PAIRS, hint='answer like [("a", "b"), ("ab", "c"), ...].')) is not None:
        return problem
    trace = WordBPE.train(PREDICT_CORPUS, BIG, trace=True).trace
    expected = [step.pair for step in trace[:3]]
    got = [(a, b) for a, b in answer]
    if got[:3] == expected and len(got) == 3:
        return correct(f"{expected}. Note merge 2: after ('t', 'e') the new symbol 'te' forms pairs of its own, "
                       "and three of them tie at 4.")
    if len(got) != 3:
        return wrong(f"you gave {len(got)} merges.", "give exactly the first three.")
    k = next(i for i in range(3) if got[i] != expected[i])
    best = trace[k].count
    seen = _counts_after(PREDICT_CORPUS, expected[:k]).get(got[k], 0)
    said = (f"after the merges {expected[:k]}, " if k else "") + f"your merge {k + 1} {got[k]}"
    if seen == best:
        return wrong(f"{said} occurs {seen} times, as often as the best pair: a tie.",
                     "ties go to the lexicographically greatest pair: compare the tied pairs as tuples, first "
                     "element first, the way Python's max() would.")
    if seen:
        return wrong(f"{said} occurs only {seen} time{'s' if seen != 1 else ''} at that point; the best pair occurs "
                     f"{best} times.", "recount after every merge: merged symbols like 'te' make new pairs, "
                     "and old pairs vanish.")
    return wrong(f"{said} does not occur at that point.",
                 "after each merge, rewrite every word with the new symbol and count the pairs again.")


# ---------------------------------------------------------------- exercise 2: when does training stop?

STOP_CORPUS = "seed " * 3 + "see " * 2 + "bee " * 2 + "beet " * 1
STOP_VOCAB_SIZE = 100


def check_stop(merges: int, vocab_size: int) -> Feedback:
    """Exercise 3.2: train ``WordBPE`` on ``STOP_CORPUS`` asking for ``STOP_VOCAB_SIZE`` tokens: how many
    merges does it learn, and how many tokens does its vocabulary end up with?"""
    if (problem := expect_all((merges, INT, "merges"), (vocab_size, INT, "vocab_size"))) is not None:
        return problem
    bpe = WordBPE.train(STOP_CORPUS, STOP_VOCAB_SIZE)
    want_merges, want_vocab = len(bpe.merges), len(bpe.vocab)
    base = want_vocab - want_merges
    if (merges, vocab_size) == (want_merges, want_vocab):
        return correct(f"{want_merges} merges, then no pair occurs twice; vocabulary = {base} base tokens "
                       f"({len(SPECIALS)} specials + {len(bpe.alphabet)} characters + '</w>') + {want_merges} = {want_vocab}.")
    if vocab_size == STOP_VOCAB_SIZE or merges == STOP_VOCAB_SIZE - base:
        return wrong(f"({_shown(merges)}, {_shown(vocab_size)}) assumes training always reaches vocab_size.",
                     "training also stops when the most frequent pair occurs fewer than 2 times: merge by hand "
                     "until that happens (or train it and read why the result says it stopped).")
    if merges != want_merges:
        direction = "too many" if merges > want_merges else "too few"
        return wrong(f"merges={_shown(merges)} is off ({direction}).",
                     "redo the merges one at a time, recounting every pair after each; training stops at the "
                     "first step whose best pair occurs only once, and that step is not a merge.")
    if vocab_size == want_vocab - len(SPECIALS):
        return wrong(f"vocab_size={vocab_size} leaves out the {len(SPECIALS)} special tokens.",
                     "<|pad|>, <|bos|>, <|eos|> and <|unk|> are ids 0-3 of every WordBPE vocabulary.")
    if vocab_size == want_vocab - 1:
        return wrong(f"vocab_size={vocab_size} is one short.", "'</w>' is a base symbol of its own, with its own id.")
    return wrong(f"vocab_size={_shown(vocab_size)} is off.", "vocabulary = specials + characters + '</w>' + one token per merge.")


# ---------------------------------------------------------------- exercise 3: write the loop

LEARN_CASES = [
    ("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3, 10),
    (PREDICT_CORPUS, 5),
    ("aaab aab", 10),  # stops after 2 merges: nothing repeats any more
    ("abc abd xyz", 10),  # stops after 1 merge: only ('a', 'b') repeats
    ("the cat sat on the mat " * 3, 100),  # stops once every word is a single symbol
]


def reference_learn_merges(corpus: str, num_merges: int) -> list[Pair]:
    return WordBPE.train(corpus, BIG).merges[:num_merges]


def _diagnose_learn(case: tuple, expected: list[Pair], got: Any) -> str:
    corpus, num_merges = case
    if not isinstance(got, list):
        return f"return a list of pairs, not a {type(got).__name__}."
    got = [tuple(pair) for pair in got]
    if len(got) > len(expected) and got[: len(expected)] == expected:
        extra = got[len(expected)]
        seen = _counts_after(corpus, expected).get(extra, 0)
        return (f"merge {len(expected) + 1}, {extra}, occurs {seen} time{'s' if seen != 1 else ''} at that point: "
                "stop as soon as the best pair occurs fewer than 2 times (and when there are no pairs at all).")
    if len(got) < len(expected) and got == expected[: len(got)]:
        return (f"you stopped after {len(got)} merges; keep going while a pair occurs at least twice "
                f"and fewer than num_merges={num_merges} merges are learned.")
    k = next((i for i, (g, e) in enumerate(zip(got, expected)) if g != e), None)
    if k is not None:
        counts = _counts_after(corpus, expected[:k])
        if counts.get(got[k]) == counts.get(expected[k]):
            return (f"merge {k + 1}: {got[k]} ties with {expected[k]}; ties go to the lexicographically greatest "
                    "pair, so the key you give max() must compare the pair itself once the counts are equal.")
        return f"merge {k + 1} differs; recount all pairs after applying each merge to every word."
    return "loop: count pairs, pick the best, stop if it occurs < 2 times, merge it everywhere, repeat."


def _counts_after(corpus: str, merges: list[Pair]) -> dict[Pair, int]:
    """The pair counts of ``corpus`` after applying ``merges`` in order."""
    words = word_counts(corpus)
    for pair in merges:
        words = apply_merge(words, pair)
    return count_pairs(words)


def check_learn_merges(learn_merges: Callable[[str, int], list[Pair]]) -> Feedback:
    """Exercise 3.3: ``learn_merges(corpus, num_merges)`` -> the merges, stopping early when no pair repeats."""
    return run_cases(learn_merges, LEARN_CASES, reference_learn_merges, name="learn_merges",
                     same=lambda expected, got: isinstance(got, list) and [tuple(p) for p in got] == expected,
                     diagnose=_diagnose_learn, returns=STR_PAIRS)


# ---------------------------------------------------------------- exercise 4: find the bug (a regex merge)

# (symbols, pair): every place a regex on the space-joined symbols can go wrong
REGEX_MERGE_CASES: list[tuple[tuple[str, ...], Pair]] = [
    (("l", "o", "w", "</w>"), ("o", "w")),
    (("m", "a", "c", "h", "in", "e", "</w>"), ("n", "e")),  # 'n' is only the end of 'in': no merge
    (("re", "p", "r", "es", "en", "t"), ("r", "e")),  # 're' is one symbol already; 'r es' is no pair
    (("aS", "b", "</w>"), ("S", "b")),  # a symbol ending in a capital S
    (("a", "a", "a", "</w>"), ("a", "a")),  # left to right, no overlap: ('aa', 'a', '</w>')
    (("ab", "c", "a", "bc"), ("b", "c")),  # same letters, other symbols: no merge
    (("x", "y"), ("x", "y")),
]


def _diagnose_regex_merge(case: tuple, expected: tuple, got: Any) -> str:
    symbols, pair = case
    if not isinstance(got, (tuple, list)):
        return f"return the new symbols as a tuple, not a {type(got).__name__}."
    if len(got) < len(expected):
        return ("your pattern matched across a symbol boundary: in the space-joined string a symbol starts after "
                "a space (or at the start) and ends before one. What does the look-behind really test?")
    return "the pair should merge wherever both whole symbols stand side by side, left to right."


def check_regex_merge(merge_by_regex: Callable[[Sequence[str], Pair], Sequence[str]]) -> Feedback:
    """Exercise 3.4: a regex-based merge that never crosses a symbol boundary (write-up B's bug, fixed)."""
    return run_cases(merge_by_regex, REGEX_MERGE_CASES, merge_pair, name="merge_by_regex",
                     same=lambda expected, got: isinstance(got, (tuple, list)) and tuple(got) == expected,
                     diagnose=_diagnose_regex_merge, returns=STRINGS)
