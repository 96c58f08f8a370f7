"""Checkers for chapter 16 (what a tokenizer does to a model).

>>> check_bits_per_byte(lambda probs, text: -sum(math.log2(p) for p in probs) / len(text.encode("utf-8"))).ok
True
>>> print(check_bits_per_byte(lambda probs, text: -sum(math.log2(p) for p in probs) / len(text)))
❌ Not yet. bits_per_byte_of([0.5, 0.25], 'éé') should be 0.75, got 1.5.
Hint: 'éé' has fewer characters than bytes: divide by what UTF-8 makes of the text
>>> check_continuations(lambda ids: dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))).ok
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from ..algorithms.model_quality import Sweep, best_rows
from .feedback import INT, NUMBER, Feedback, Kind, correct, count, expect, run_cases, wrong

BPB_CASES = [([0.5] * 8, "abcdefgh"), ([0.5, 0.25], "éé"), ([1.0], "a"), ([0.1, 0.9, 0.3], "日本"),
             ([0.25] * 3, "a b")]
CONTINUATION_CASES = [([1, 5, 6, 9, 2, 5, 6, 9, 3, 5, 6, 9],), ([1, 2, 3, 1, 2, 3, 4, 2, 3],), ([5, 5, 5, 5, 5],), ([7, 8],), ([],),
                      ([0, 1, 2, 0, 1, 2, 1, 1, 2],), ([3, 9, 4, 9, 3, 9, 4, 9],)]
COUNTS = Kind("a dict mapping pairs of token ids to counts", lambda v: isinstance(v, dict) and all(
    isinstance(k, tuple) and len(k) == 2 and isinstance(n, int) for k, n in v.items()), "{(9, 4): 2, (4, 9): 1}")


def bits_per_byte_reference(probs: list[float], text: str) -> float:
    return -sum(math.log2(p) for p in probs) / len(text.encode("utf-8"))


def continuation_reference(ids: list[int]) -> dict[tuple[int, int], int]:
    return dict(sorted(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))).items()))


def _diagnose_bpb(case: tuple, expected: float, got: float) -> str:
    probs, text = case
    nats = -sum(math.log(p) for p in probs)
    if isinstance(got, (int, float)):
        if math.isclose(got, nats / len(text.encode("utf-8")), rel_tol=1e-9):
            return "that is in nats (natural log): a bit is log base 2"
        if math.isclose(got, -expected, rel_tol=1e-9):
            return "a probability below 1 has a negative log: the bits are minus the sum"
        n_bytes = len(text.encode("utf-8"))
        if len(text) != n_bytes and math.isclose(got, expected * n_bytes / len(text)):
            return f"{text!r} has fewer characters than bytes: divide by what UTF-8 makes of the text"
        if math.isclose(got, expected * len(text.encode("utf-8")), rel_tol=1e-9):
            return "that is the total: divide it by the text's bytes"
    return "add -log2(p) over the tokens, then divide by the number of UTF-8 bytes"


def check_bits_per_byte(bits_per_byte_of: Callable) -> Feedback:
    """Exercise 16.1: bits per UTF-8 byte from a model's token probabilities."""
    return run_cases(bits_per_byte_of, BPB_CASES, bits_per_byte_reference, name="bits_per_byte_of",
                     same=lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), diagnose=_diagnose_bpb,
                     returns=NUMBER)


def _diagnose_continuations(case: tuple, expected: dict, got: dict) -> str:
    (ids,) = case
    if isinstance(got, dict):
        if got == dict(Counter(zip(ids[1:], ids[2:]))):
            return "that counts every occurrence; count each token before the pair once, however often it occurs"
        if got == dict(Counter(zip(ids, ids[1:]))) or got == dict(Counter(set(zip(ids, ids[1:])))):
            return "a pair at the very start has no token before it there: only the pairs that follow a token count"
        if got == dict(Counter((u, v) for u, v, _ in set(zip(ids, ids[1:], ids[2:])))):
            return "that counts the tokens seen after each pair; the lower level counts the ones before it"
    return "section 2 did this for single tokens: do the same one level up, with three tokens in a row"


def check_continuations(continuation_counts: Callable) -> Feedback:
    """Exercise 16.2: for each pair of tokens, the number of different tokens seen right before it."""
    return run_cases(continuation_counts, CONTINUATION_CASES, continuation_reference, name="continuation_counts",
                     diagnose=_diagnose_continuations, returns=COUNTS)


def check_unigram_best(answer: int | None, sweep: Sweep) -> Feedback:
    """Exercise 16.3: the vocabulary size at which an order-1 model on ``sweep`` needs the fewest bits per byte."""
    if (problem := expect(answer, INT, hint="answer with a vocabulary size, an int such as 1024")) is not None:
        return problem
    if not isinstance(sweep, Sweep):
        return wrong(f"sweep should be the chapter's Sweep, got {type(sweep).__name__}", "pass `sweep` from section 3")
    assert answer is not None  # for the type checker: expect() lets only an int through
    data = sweep.measure([1])
    sizes = [int(s) for s in data["n_vocab"]]
    if answer not in sizes:
        near = "merges" if answer + 256 in sizes else "vocabulary"
        hint = ("that is a number of merges: a vocabulary size counts the 256 bytes too" if near == "merges"
                else f"the sweep measured these vocabulary sizes: {', '.join(f'{s:,}' for s in sizes)}")
        return wrong(f"{count(answer)} is not one of the sweep's vocabulary sizes.", hint)
    best = best_rows(data).iloc[0]
    mine = data.set_index("n_vocab").loc[answer, "bits_per_byte"]
    if answer == int(best["n_vocab"]):
        return correct(f"order 1 needs {mine:.4f} bits per byte there, the fewest of the sweep. Compare where "
                       "the higher orders bottom out in section 3's table.")
    more = "more" if mine > best["bits_per_byte"] else "as many"
    return wrong(f"at {answer:,} an order-1 model needs {mine:.4f} bits per byte; another size needs fewer "
                 f"({more} than the best by {mine - best['bits_per_byte']:.4f}).",
                 "take the row of sweep.measure([1]) whose bits_per_byte is smallest")
