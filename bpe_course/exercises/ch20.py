"""Checkers for chapter 20 (what a merge list reveals): one merge's interval, a measurement with few
merges, and a share summed by script.

>>> def allowed_interval(chosen, rivals):
...     low, high = 0.0, 1.0
...     for x, y in rivals:
...         dx, dy = chosen[0] - x, chosen[1] - y
...         if dx > dy:
...             low = max(low, -dy / (dx - dy))
...         elif dx < dy:
...             high = min(high, -dy / (dx - dy))
...         elif dy < 0:
...             return None
...     return (low, high) if low <= high else None
>>> check_allowed_interval(allowed_interval).ok
True
>>> check_tekken_scripts(None, {"eng": ["All human beings are born free."]}).ok
False
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .. import corpus, pretrained
from ..algorithms.mixture import dirichlet_shares, infer_mixture, mean_absolute_error, text_trajectory, train_hidden_mix
from ..corpus import HELDOUT_ARTICLES, UDHR_LANGUAGES
from .feedback import FUNCTION, INT, NUMBER, Feedback, Kind, correct, expect, far_off, returned, short, wrong

FEW_MERGES = 3
SCRIPT_MERGES = 300  # exercise 20.3 reads Tekken's first 300 merges, the last of section 5's sweep
SECTION_MERGES = 100  # section 5's T_APPLY: an answer read there is a slip worth naming
TOLERANCE = 0.0005  # the answer is asked for to three decimals

# (chosen pair's counts per byte in the two categories, the rivals' counts)
INTERVAL_CASES = [
    ((0.03, 0.01), [(0.01, 0.02)]),                   # a >= 1/3
    ((0.01, 0.03), [(0.02, 0.01)]),                   # a <= 2/3
    ((0.03, 0.01), [(0.01, 0.02), (0.04, 0.0)]),      # 1/3 <= a <= 1/2
    ((0.02, 0.02), [(0.01, 0.01), (0.019, 0.0)]),     # every a
    ((0.01, 0.01), [(0.02, 0.02)]),                   # none: the rival is always ahead
    ((0.03, 0.0), [(0.0, 0.03), (0.03, 0.0)]),        # a >= 1/2, and a tie everywhere with a twin
    ((0.05, 0.01), [(0.0, 0.04), (0.06, 0.0)]),       # 3/8 <= a <= 1/2
    ((0.02, 0.01), [(0.0, 0.05), (0.04, 0.0)]),       # none: a >= 2/3 and a <= 1/3
]
INTERVAL = Kind("a pair (low, high) of numbers, or None", lambda v: v is None or (
    isinstance(v, (tuple, list)) and len(v) == 2 and all(NUMBER.accepts(x) for x in v)), "(0.25, 0.5)")
SAMPLES = Kind("a dict from category names to lists of texts", lambda v: isinstance(v, Mapping) and bool(v) and all(
    isinstance(k, str) and isinstance(x, (list, tuple)) and all(isinstance(d, str) for d in x) for k, x in v.items()),
    "categories")


def interval_reference(chosen: tuple[float, float], rivals: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """The shares ``a`` of the first category with ``a*x + (1-a)*y`` of the chosen pair >= every rival's."""
    low, high = 0.0, 1.0
    for x, y in rivals:
        dx, dy = chosen[0] - x, chosen[1] - y  # a*dx + (1-a)*dy >= 0
        if dx > dy:
            low = max(low, -dy / (dx - dy))
        elif dx < dy:
            high = min(high, -dy / (dx - dy))
        elif dy < 0:
            return None
    return (low, high) if low <= high + 1e-12 else None


def _same_interval(expected, got) -> bool:
    if expected is None or got is None:
        return expected is None and got is None
    return all(not far_off(g) and math.isclose(e, g, abs_tol=1e-9) for e, g in zip(expected, got))


def _diagnose_interval(case: tuple, expected, got) -> str:
    if expected is None:
        return "no share works here: some rival is ahead of the chosen pair at every a, so say so with None"
    if got is None:
        return "some shares do work here: check each rival's line against the chosen pair's at a = 0 and a = 1"
    if _same_interval((1 - expected[1], 1 - expected[0]), got):
        return "that is the interval of the second category's share: a weighs the first category, (1 - a) the second"
    if got[0] > got[1]:
        return "low is above high: when the rivals' bounds cross, no share is left"
    return "each rival gives a*dx + (1-a)*dy >= 0 with dx, dy the chosen pair's counts minus the rival's: solve for a"


def check_allowed_interval(allowed_interval: Callable) -> Feedback:
    """Exercise 20.1: the interval of shares in which one merge's pair beats every rival."""
    if (problem := expect(allowed_interval, FUNCTION)) is not None:
        return problem
    for chosen, rivals in INTERVAL_CASES:
        expected = interval_reference(chosen, rivals)
        shown = f"allowed_interval({chosen}, {short(rivals)})"
        try:
            got = allowed_interval(chosen, list(rivals))
        except Exception as exc:  # a learner's function may fail in any way: report it, never raise
            return wrong(f"{shown} raised {type(exc).__name__}: {exc}", "rivals is a list of (x, y) pairs of numbers")
        if (problem := returned(got, INTERVAL, shown)) is not None:
            return problem
        if not _same_interval(expected, got):
            return wrong(f"{shown} gave {short(got)}, which is not the interval the inequalities leave.",
                         _diagnose_interval((chosen, rivals), expected, got))
    return correct(f"your allowed_interval agrees on all {len(INTERVAL_CASES)} cases, the empty ones too. Section 1 "
                   "intersected such intervals over three merges; the linear program does it for every merge at once.")


def few_merges_error(n_seeds: int, n_languages: int, n_merges: int = FEW_MERGES) -> float:
    """The mean absolute error over section 4's seeds when the inference reads only ``n_merges`` merges."""
    languages = list(UDHR_LANGUAGES)
    held = {code: [corpus.udhr(code)[a] for a in HELDOUT_ARTICLES] for code in languages}
    errors = []
    for seed in range(n_seeds):
        rng = np.random.default_rng(seed)
        truth = dirichlet_shares([str(c) for c in rng.choice(languages, n_languages, replace=False)], rng)
        merges = train_hidden_mix(truth, n_merges)
        found = infer_mixture({code: text_trajectory(held[code], merges) for code in truth}, merges)
        errors.append(mean_absolute_error(truth, found.weights))
    return sum(errors) / len(errors)


def check_few_merges(answer: float | None, n_seeds: int, n_languages: int) -> Feedback:
    """Exercise 20.2: the validation's mean absolute error when the inference reads the first 3 merges only."""
    if (problem := expect(answer, NUMBER, hint="answer with one number, the mean absolute error, e.g. 0.123")) is not None:
        return problem
    assert answer is not None  # expect() answered None already; this tells mypy
    for value, name in ((n_seeds, "n_seeds"), (n_languages, "n_languages")):
        if (problem := expect(value, INT, name)) is not None:
            return problem
    if not 1 <= n_seeds <= 50 or not 2 <= n_languages <= len(UDHR_LANGUAGES):
        return wrong(f"n_seeds={short(n_seeds)}, n_languages={short(n_languages)}: pass the chapter's N_SEEDS and "
                     "N_LANGUAGES", "check_few_merges(my_error, N_SEEDS, N_LANGUAGES)")
    if far_off(answer) or not 0 <= answer <= 1:
        return wrong(f"{short(answer)} cannot be a mean absolute error of shares", "shares lie between 0 and 1, "
                     "and so does the mean of their errors")
    reference = few_merges_error(n_seeds, n_languages)
    if abs(answer - reference) <= TOLERANCE:
        return correct(f"with {FEW_MERGES} merges the shares are off by that much on average. Compare it with the "
                       "table of section 4: how many merges does the inference need before more stop helping?")
    many = few_merges_error(n_seeds, n_languages, 30)
    if abs(answer - many) <= TOLERANCE:
        return wrong(f"{answer:.3f} is the error with 30 merges", f"read the first {FEW_MERGES} merges only: merges[:{FEW_MERGES}]")
    return wrong(f"{answer:.3f} is not what the first {FEW_MERGES} merges give on section 4's seeds.",
                 "for each seed, draw the languages and shares exactly as section 4 does (np.random.default_rng(seed)), "
                 f"train with train_hidden_mix(truth, {FEW_MERGES}), infer from all of the held-out articles, and "
                 "average mean_absolute_error over the seeds")


def script_shares(categories: Mapping[str, Sequence[str]], n_merges: int) -> tuple[float, float]:
    """Tekken's first ``n_merges`` merges read against the samples: (share of non-Latin-script languages,
    share of every language but English)."""
    tok = pretrained.tekken()
    merges = tok.merges[:n_merges]
    weights = infer_mixture({name: text_trajectory(docs, merges, tok.pattern) for name, docs in categories.items()},
                            merges).weights
    languages = [code for code in weights if code in UDHR_LANGUAGES]
    non_latin = sum(weights[code] for code in languages if UDHR_LANGUAGES[code][0] != "Latin")
    return non_latin, sum(weights[code] for code in languages if code != "eng")


def check_tekken_scripts(answer: float | None, categories: Mapping[str, Sequence[str]]) -> Feedback:
    """Exercise 20.3: the share Tekken's first ``SCRIPT_MERGES`` merges give to languages not written in the Latin script."""
    n_merges, section_merges = SCRIPT_MERGES, SECTION_MERGES
    if (problem := expect(answer, NUMBER, hint="answer with one number, a share between 0 and 1")) is not None:
        return problem
    assert answer is not None  # expect() answered None already; this tells mypy
    if (problem := expect(categories, SAMPLES, "categories")) is not None:
        return problem
    if far_off(answer) or not 0 <= answer <= 1:
        return wrong(f"{short(answer)} is not a share", "a share lies between 0 and 1")
    reference, every_other = script_shares(categories, n_merges)
    if math.isclose(answer, reference, abs_tol=TOLERANCE):
        return correct(f"that is the non-Latin share at {n_merges} merges. How much of section 5's 'other "
                       "languages' is it, and which script gets the most?")
    if math.isclose(answer, every_other, abs_tol=TOLERANCE):
        return wrong(f"{answer:.3f} counts every language but English", "the Latin-script languages are in it too")
    if math.isclose(answer, 1 - reference, abs_tol=TOLERANCE):
        return wrong(f"{answer:.3f} is the share of everything else",
                     "English, code and the Latin-script languages are in it; the exercise asks for the rest")
    fewer, _ = script_shares(categories, section_merges)
    if math.isclose(answer, fewer, abs_tol=TOLERANCE):
        return wrong(f"{answer:.3f} is the share at {section_merges} merges, section 5's",
                     f"the exercise asks what the first {n_merges} merges say")
    return wrong(f"{answer:.3f} is not the share the first {n_merges} merges give to the languages written in other scripts.",
                 "check how many merges the inference read, that the samples were cut with Tekken's own pattern, and "
                 "which codes your sum counted")
