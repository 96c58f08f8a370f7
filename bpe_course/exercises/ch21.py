"""Checkers for chapter 21 (the score of every segmentation): a unigram forward pass, Shannon's efficiency
against the model, and the marginal inside pre-tokens.

>>> def unigram_marginal_bits(probs, data):
...     total = [1.0] + [0.0] * len(data)
...     for j in range(1, len(data) + 1):
...         for i in range(j):
...             if (p := probs.get(data[i:j])) is not None:
...                 total[j] += total[i] * p
...     return -math.log2(total[-1])
>>> check_unigram_marginal(unigram_marginal_bits).ok
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping

from ..algorithms.intrinsic import renyi_efficiency
from ..algorithms.lattice import marginal_bits, segmentations
from ..algorithms.lm import KneserNey
from ..compare import ratio_of_sums, spearman
from .feedback import FUNCTION, NUMBER, Feedback, Kind, correct, expect, far_off, returned, short, wrong

TOLERANCE = 0.0001  # the answers are asked for to four decimals (21.3) or as a correlation (21.2)

UNIGRAM_CASES = [
    ({b"a": 0.5, b"b": 0.5}, b"ab"),                               # one segmentation
    ({b"a": 0.3, b"b": 0.3, b"ab": 0.4}, b"ab"),                   # two: a+b and ab
    ({b"a": 0.2, b"aa": 0.3, b"aaa": 0.5}, b"aaaa"),               # seven
    ({b"t": 0.1, b"h": 0.1, b"e": 0.1, b"th": 0.2, b"he": 0.2, b"the": 0.3}, b"thethe"),
    ({b"x": 0.6, b"y": 0.3, b"xy": 0.1}, b"xyxyx"),
]
MEASURED = Kind("the chapter's measured dict", lambda v: isinstance(v, Mapping) and bool(v) and all(
    isinstance(m, Mapping) and {"ids", "canonical"} <= set(m) for m in v.values()), "measured",
    "pass the chapter's `measured` from section 3")
VOCAB = Kind("a dict from ids to token bytes", lambda v: isinstance(v, Mapping) and bool(v) and all(
    isinstance(i, int) and isinstance(t, bytes) for i, t in v.items()), "plain['tokenizer'].vocab")
MODEL = Kind("a KneserNey model", lambda v: isinstance(v, KneserNey), "plain['model']")
TEXT = Kind("a string", lambda v: isinstance(v, str) and bool(v), "held")


def unigram_reference(probs: Mapping[bytes, float], data: bytes) -> float:
    """Brute force: -log2 of the sum over every segmentation of the product of its tokens' probabilities."""
    ids = {token: i for i, token in enumerate(probs)}
    p = list(probs.values())
    return -math.log2(sum(math.prod(p[i] for i in seg) for seg in segmentations(data, ids)))


def _best_path_bits(probs: Mapping[bytes, float], data: bytes) -> float:
    ids = {token: i for i, token in enumerate(probs)}
    p = list(probs.values())
    return -math.log2(max(math.prod(p[i] for i in seg) for seg in segmentations(data, ids)))


def _diagnose_unigram(case: tuple, expected: float, got: float) -> str:
    probs, data = case
    if isinstance(got, (int, float)) and not far_off(got):
        if math.isclose(got, _best_path_bits(probs, data), rel_tol=1e-9):
            return "that is the single most probable segmentation: add the probabilities of all of them instead"
        if math.isclose(got, expected * math.log(2), rel_tol=1e-9):
            return "that is in nats: the bits are -log2 of the total"
        if math.isclose(got, -expected, rel_tol=1e-9):
            return "a probability below 1 has a negative log: the bits are minus it"
        if math.isclose(got, 2 ** -expected, rel_tol=1e-9):
            return "that is the probability itself: return -log2 of it"
    return ("total[j], the probability of every segmentation of data[:j], is the sum over the tokens ending at j of "
            "total[start] times the token's probability")


def check_unigram_marginal(unigram_marginal_bits: Callable) -> Feedback:
    """Exercise 21.1: a unigram model's bits for a text, every segmentation counted."""
    if (problem := expect(unigram_marginal_bits, FUNCTION)) is not None:
        return problem
    for probs, data in UNIGRAM_CASES:
        expected = unigram_reference(probs, data)
        shown = f"unigram_marginal_bits({short(probs, 80)}, {data!r})"
        try:
            got = unigram_marginal_bits(dict(probs), data)
        except Exception as exc:  # a learner's function may fail in any way: report it, never raise
            return wrong(f"{shown} raised {type(exc).__name__}: {exc}", "probs maps token bytes to probabilities")
        if (problem := returned(got, NUMBER, shown)) is not None:
            return problem
        if far_off(got) or not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
            return wrong(f"{shown} gave {short(got)}, not the bits of every segmentation.",
                         _diagnose_unigram((probs, data), expected, got))
    return correct(f"your forward pass agrees with brute force on all {len(UNIGRAM_CASES)} cases. A unigram needs one "
                   "number per position; section 2's bigram needs one per position and last token.")


def shannon_agreement(measured: Mapping, alpha: float = 1.0, order: int = 4) -> float:
    """Spearman's correlation of the Rényi efficiency (Shannon's at ``alpha = 1``) with bits per byte across the sweep."""
    sizes = list(measured)
    shannon = [renyi_efficiency(Counter(measured[v]["ids"]), alpha=alpha, n_vocab=v) for v in sizes]
    return spearman(shannon, [ratio_of_sums(measured[v]["canonical"][order]) for v in sizes])


def _other_readings(measured: Mapping) -> dict[str, float]:
    """The answers a likely slip gives, named by the slip (only those the chapter's measured dict allows)."""
    out = {}
    orders = set.intersection(*(set(m["canonical"]) for m in measured.values()))
    for order in sorted(orders - {4}):
        out[f"that is the correlation with the order-{order} bits per byte"] = shannon_agreement(measured, 1.0, order)
    if 4 in orders:
        out["that is the correlation for α = 2.5, section 6's"] = shannon_agreement(measured, 2.5, 4)
    return out


def check_shannon_agreement(answer: float | None, measured: Mapping) -> Feedback:
    """Exercise 21.2: the Spearman correlation of Shannon efficiency with order-4 bits per byte."""
    if (problem := expect(answer, NUMBER, hint="answer with one number, a correlation from -1 to 1")) is not None:
        return problem
    assert answer is not None  # expect() answered None already; this tells mypy
    if (problem := expect(measured, MEASURED, "measured")) is not None:
        return problem
    if far_off(answer) or not -1 <= answer <= 1:
        return wrong(f"{short(answer)} is not a correlation", "a rank correlation lies between -1 and 1")
    try:
        reference = shannon_agreement(measured)
    except Exception as problem:  # noqa: BLE001 -- any odd dict a learner passes gets feedback, never a traceback
        return wrong(f"measured is not the chapter's: {type(problem).__name__}", "pass `measured` as section 3 left it")
    if math.isclose(answer, reference, abs_tol=0.005):
        return correct("compare it with the α = 2.5 row of section 6 at order 4: does the order α change the verdict?")
    if math.isclose(answer, -reference, abs_tol=0.005):
        return wrong(f"{answer:+.2f} has the wrong sign", "the exercise asks for the plain correlation, and section 6 "
                     "showed its negative")
    try:
        slips = _other_readings(measured)
    except Exception:  # noqa: BLE001 -- the reference worked; a slip we cannot compute is just not diagnosed
        slips = {}
    for slip, value in slips.items():
        if math.isclose(answer, value, abs_tol=0.005) and not math.isclose(value, reference, abs_tol=0.005):
            return wrong(f"{answer:+.2f} is not the correlation the sweep gives", slip)
    return wrong(f"{answer:+.2f} is not the correlation the sweep gives.",
                 "check the α of the efficiency, the order of the model, and that both lists follow the sweep's "
                 "vocabulary sizes in the same order")


def check_inside_pretokens(answer: float | None, model: KneserNey, text: str, vocab: Mapping[int, bytes]) -> Feedback:
    """Exercise 21.3: bits per byte of ``text`` summed over the segmentations inside GPT-2's pre-tokens."""
    if (problem := expect(answer, NUMBER, hint="answer with one number, bits per byte, e.g. 1.9876")) is not None:
        return problem
    assert answer is not None  # expect() answered None already; this tells mypy
    for value, kind, name in ((model, MODEL, "model"), (text, TEXT, "text"), (vocab, VOCAB, "vocab")):
        if (problem := expect(value, kind, name)) is not None:
            return problem
    if far_off(answer) or not 0 < answer < 16:
        return wrong(f"{short(answer)} is not a score per byte", "divide the bits by the text's UTF-8 bytes")
    n_bytes = len(text.encode("utf-8"))
    try:
        inside = marginal_bits(model, text, vocab, pattern="gpt2") / n_bytes
        every = marginal_bits(model, text, vocab) / n_bytes
    except Exception as problem:  # noqa: BLE001 -- a vocabulary that cannot spell the text, say: feedback, not a traceback
        return wrong(f"the text cannot be scored with this model and vocab: {short(str(problem), 100)}",
                     'pass plain["model"], held and plain["tokenizer"].vocab')
    if abs(answer - inside) <= TOLERANCE:
        return correct(f"inside the pre-tokens the model needs {inside - every:.4f} bits per byte more than over every "
                       "segmentation: that is all the probability the segmentations crossing a boundary carry.")
    if abs(answer - every) <= TOLERANCE:
        return wrong(f"{answer:.4f} counts every segmentation", "the segmentations that cross a pre-token's boundary "
                     "are in that sum too")
    if len(text) != n_bytes and abs(answer - inside * n_bytes / len(text)) <= TOLERANCE:
        return wrong(f"{answer:.4f} is per character", "the score is per UTF-8 byte, and this text has characters "
                     "of more than one byte")
    return wrong(f"{answer:.4f} is not what the model gives inside the pre-tokens.",
                 "check which segmentations your sum kept, which pre-tokenizer cut the text, and what you divided by")
