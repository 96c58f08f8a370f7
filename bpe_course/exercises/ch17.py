"""Checkers for chapter 17 (beyond greedy BPE).

>>> from bpe_course.algorithms.variants import is_superword, released_stage2_allows
>>> check_stage2_limits(released_stage2_allows).ok, check_superword(is_superword).ok
(True, True)
>>> print(check_stage2_limits(lambda token: b": " not in token and token.count(b" ") <= 4))
❌ Not yet. stage2_allows(b'one two three four five') should be False, got True.
Hint: more than four words are refused -- count words, not spaces: a word is a non-empty part between spaces, so a token need not start with one
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import corpus
from ..algorithms.variants import (Merges, intersection_over_self, is_superword, released_stage2_allows,
                                   train_picky, train_superbpe, word_sequences, words_in)
from ..train import count_pretokens
from .feedback import FUNCTION, Feedback, Kind, correct, expect, returned, run_cases, short, wrong

BOOL = Kind("True or False", lambda v: isinstance(v, bool), "True")
REMOVALS = Kind("a list of (merge number, token) pairs", lambda v: isinstance(v, list) and all(
    isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], int) and not isinstance(r[0], bool)
    and isinstance(r[1], bytes) for r in v), "[(4, b'ug')]")


# ---------------------------------------------------------------- 17.1: Picky BPE's removal


def _picky_removals(counts: Mapping[str, int], n_merges: int, threshold: float, *, strict: bool = True,
                    score_after: bool = True, bytes_too: bool = False, split: bool = True) -> list[tuple[int, bytes]]:
    """Picky BPE's removals, ``(merge number, token)``; the keywords switch off one part of the rule each, to
    recognise a learner's mistake: ``strict=False`` removes at the threshold too, ``score_after=False`` scores
    with the pair's count over the part's count before the merge, ``bytes_too`` removes single bytes,
    ``split=False`` forgets to split a removed token's occurrences."""
    m = Merges(word_sequences(counts))
    made_of: dict[bytes, tuple[bytes, bytes]] = {}
    alive: dict[bytes, None] = {}
    merges: list[tuple[bytes, bytes]] = []
    removed: list[tuple[int, bytes]] = []

    def parts(token: bytes) -> tuple[bytes, ...]:
        a, b = made_of[token]
        return tuple(s for half in (a, b) for s in ((half,) if len(half) == 1 or half in alive else parts(half)))

    while len(merges) - len(removed) < n_merges and (found := m.best()) is not None:
        pair, count = found
        token = pair[0] + pair[1]
        before = {part: m.tokens[part] for part in pair}
        had = m.tokens[token]
        m.merge(pair)
        made = m.tokens[token] - had
        merges.append(pair)
        made_of[token] = pair
        alive.pop(token, None)
        alive[token] = None
        for part in dict.fromkeys(pair):
            score = (intersection_over_self(made, m.tokens[part] + made) if score_after
                     else intersection_over_self(count, before[part]))
            if (len(part) > 1 or bytes_too) and (part in alive or bytes_too) and (
                    score > threshold if strict else score >= threshold):
                alive.pop(part, None)
                if split and len(part) > 1:
                    m.split(part, parts)
                removed.append((len(merges) - 1, part))
    return removed


def _novel_counts() -> dict[str, int]:
    return count_pretokens(corpus.load_text("don_quixote")[:20_000])


PICKY_CASES = [
    ({"hug": 3, " hug": 2, " hugs": 1, " pug": 1, " pugs": 1, " pun": 1}, 5, 0.9),
    ({"abc": 3, "abd": 1}, 2, 0.7),     # ab: 3 of its 4 occurrences went into abc, above 0.7
    ({"abc": 3, "abd": 1}, 2, 0.75),    # ... exactly at 0.75: it stays
    ({"abababab": 5, "ab": 2}, 2, 0.8),  # (ab, ab): each merge takes two ab
    ({"aaaa": 6, "b": 1}, 3, 0.5),       # a single byte is never removed
]


def check_picky_removal(my_picky: Callable) -> Feedback:
    """Exercise 17.1: Picky BPE's removal written into a given merge loop, against ``train_picky``."""
    if my_picky is None or my_picky is Ellipsis:
        return expect(my_picky, FUNCTION)
    if not callable(my_picky):
        return wrong(f"expected a function, got {type(my_picky).__name__}.", "pass the function itself: my_picky")
    cases = [*PICKY_CASES, (_novel_counts(), 120, 0.7)]
    for counts, n, threshold in cases:
        expected = [(k, t) for k, t, _ in train_picky(counts, n, threshold).removed]
        shown = f"my_picky({short(counts, 70)}, {n}, {threshold})"
        try:
            got = my_picky(dict(counts), n, threshold)
        except Exception as exc:  # noqa: BLE001 -- the learner's code may fail in any way; report it, never raise
            return wrong(f"{shown} raised {type(exc).__name__}: {exc}",
                         "a removed part must still be in `alive` when you remove it")
        if (problem := returned(got, REMOVALS, shown)) is not None:
            return problem
        if got == expected:
            continue
        if any(len(t) == 1 for _, t in got):
            hint = "your removals include a single byte: what could it be split back into?"
        elif got == _picky_removals(counts, n, threshold, strict=False):
            hint = ("your removals include a part whose IoS equals the threshold exactly: reread how the paper "
                    "compares the two")
        elif got == _picky_removals(counts, n, threshold, score_after=False):
            hint = ("your IoS reads the part's count as it was before the merge changed it: which count does "
                    "f(x) mean once x and y are merged? Try a pair of a token with itself by hand")
        elif got == _picky_removals(counts, n, threshold, split=False):
            hint = "a removed part's occurrences are still in the sequences, so the counts after it go wrong"
        else:
            hint = "section 3's rule: score each part of the pair, remove it when the score is above the threshold"
        if not got and expected:
            return wrong(f"{shown} removed nothing; Picky BPE removes {len(expected)} token(s) there.", hint)
        return wrong(f"{shown}: your first removals are {short(got[:3])}, which is not what Picky BPE removes "
                     f"({len(expected)} removal(s) in all).", hint)
    return correct(f"your removals are train_picky's on all {len(cases)} cases, the novel's first pages included.")


# ---------------------------------------------------------------- 17.2: SuperBPE's released limits


LIMIT_CASES = [(b" of the",), (b"said: the",), (b"12:30",), (b"the",), (b" one two three four",),
               (b" one two three four five",), (b"one two three four five",), (b"time:",), (b":  x",),
               (b"the\ncat sat",), (b"one\ntwo\nthree\nfour\nfive six",), (b"  ",), (b"",), (b", and so on and",),
               (b"a b c d e",)]
LIMIT_TEXT = ("Note: the cat sat on the mat and then it sat on the hat.\n"
              "Note: the dog sat on the log and then it sat on the frog.\n") * 40


def _diagnose_limits(case: tuple, expected: bool, got: bool) -> str:
    (token,) = case
    if isinstance(got, bool):
        if b": " in token and got:
            return "a colon followed by a space is refused, whatever else the token holds"
        if b":" in token and b": " not in token and not got:
            return "only a colon followed by a space is refused: a colon alone, as in a time, is allowed"
        if words_in(token) > 4 and got:
            return ("more than four words are refused -- count words, not spaces: a word is a non-empty part between "
                    "spaces, so a token need not start with one")
        if words_in(token) == 4 and not got:
            return "four words are allowed; only more than four are refused"
        if b"\n" in token:
            return "only spaces separate words in the released count; a newline is part of a word there"
    return "two rules: no colon followed by a space, and at most four non-empty parts between spaces"


def check_stage2_limits(stage2_allows: Callable) -> Feedback:
    """Exercise 17.2: the released SuperBPE trainer's stage-2 limits, on tokens and in a training run."""
    first = run_cases(stage2_allows, LIMIT_CASES, released_stage2_allows, name="stage2_allows", returns=BOOL,
                      diagnose=_diagnose_limits)
    if not first.ok:
        return first
    try:
        yours = train_superbpe(LIMIT_TEXT, 120, 40, allows=stage2_allows).merges
    except Exception as exc:  # noqa: BLE001 -- the learner's function may fail on a token the cases did not hold
        return wrong(f"training stage 2 with your stage2_allows raised {type(exc).__name__}: {exc}",
                     "your function is asked about every token stage 2 would make")
    released = train_superbpe(LIMIT_TEXT, 120, 40, allows=released_stage2_allows).merges
    unlimited = train_superbpe(LIMIT_TEXT, 120, 40).merges
    if yours != released:
        k = next((i for i, (a, b) in enumerate(zip(yours, released)) if a != b), min(len(yours), len(released)))
        return wrong(f"trained with your rule, stage 2's merge {k} differs from the released rule's.",
                     "your function must answer for any token, not only the ones above")
    changed = sum(a != b for a, b in zip(released, unlimited)) + abs(len(released) - len(unlimited))
    return correct(f"your stage2_allows agrees on all {len(LIMIT_CASES)} tokens, and on a text of repeated "
                   f"sentences it changes {changed} of stage 2's merges against no limits, as the released rule does.")


# ---------------------------------------------------------------- 17.3: a token that spans words


SUPERWORD_CASES = [(b" of the",), (b" the",), (b"the",), (b"   ",), (b", and",), (b" ",), (b"of  ",),
                   (b"  of",), (b"a b",), (b"",)]


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
