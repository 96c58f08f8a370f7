"""Checkers for chapter 16 (what a tokenizer does to a model).

>>> check_continuations(lambda ids: dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))).ok
True
>>> print(check_dearer_in_bits(["Klingon"], {}))
❌ Not yet. tax_bits has no per-article bits for the balanced tokenizer in every language.
Hint: pass `tax_bits` from section 7, as the chapter built it
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from .. import corpus
from ..algorithms.model_quality import Sweep, best_rows
from ..compare import compare
from ..corpus import language_name
from .feedback import INT, STRINGS, Feedback, Kind, correct, count, expect, run_cases, short, wrong

CONTINUATION_CASES = [([1, 5, 6, 9, 2, 5, 6, 9, 3, 5, 6, 9],), ([1, 2, 3, 1, 2, 3, 4, 2, 3],), ([5, 5, 5, 5, 5],), ([7, 8],), ([],),
                      ([0, 1, 2, 0, 1, 2, 1, 1, 2],), ([3, 9, 4, 9, 3, 9, 4, 9],)]
COUNTS = Kind("a dict mapping pairs of token ids to counts", lambda v: isinstance(v, dict) and all(
    isinstance(k, tuple) and len(k) == 2 and isinstance(n, int) for k, n in v.items()), "{(9, 4): 2, (4, 9): 1}")


def continuation_reference(ids: list[int]) -> dict[tuple[int, int], int]:
    return dict(sorted(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))).items()))


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


SIZES = Kind("a list of vocabulary sizes (ints)", lambda v: isinstance(v, (list, tuple, set)) and all(
    isinstance(x, int) and not isinstance(x, bool) for x in v), "[512, 2048]")
TAX_BITS = Kind("the chapter's tax_bits: a dict from (tokenizer, language code) to per-article (bits, bytes)",
                lambda v: isinstance(v, Mapping), "tax_bits")


ORDER = 5  # exercise 16.1's order, one past the chapter's


def check_order_minimum(minimum_at: int, clearly_ahead_of: list[int], sweep: Sweep) -> Feedback:
    """Exercise 16.1: where an order-5 model bottoms out on ``sweep``, and which of the minimum's neighbours on the
    grid it is clearly ahead of (``compare`` with its defaults on the sweep's per-paragraph units)."""
    if (problem := expect(minimum_at, INT, hint="answer with a vocabulary size, an int such as 1024")) is not None:
        return problem
    if (problem := expect(clearly_ahead_of, SIZES, "clearly_ahead_of")) is not None:
        return problem
    if not isinstance(sweep, Sweep):
        return wrong(f"sweep should be the chapter's Sweep, got {type(sweep).__name__}", "pass `sweep` from section 3")
    order = ORDER
    data = sweep.measure([order])
    grid = sorted(int(s) for s in data["n_vocab"])
    if minimum_at not in grid:
        hint = ("that is a number of merges: a vocabulary size counts the 256 bytes too" if minimum_at + 256 in grid
                else f"the sweep measured these vocabulary sizes: {', '.join(f'{s:,}' for s in grid)}")
        return wrong(f"{count(minimum_at)} is not one of the sweep's vocabulary sizes.", hint)
    bits = data.set_index("n_vocab")["bits_per_byte"]
    best = int(best_rows(data).iloc[0]["n_vocab"])
    if minimum_at != best:
        return wrong(f"at {minimum_at:,} an order-{order} model needs {bits[minimum_at]:.4f} bits per byte; another size "
                     "of the grid needs fewer.",
                     f"take the row of sweep.measure([{order}]) whose bits_per_byte is smallest")
    i = grid.index(best)
    neighbours = [grid[j] for j in (i - 1, i + 1) if 0 <= j < len(grid)]
    strangers = [size for size in clearly_ahead_of if size not in neighbours]
    if strangers:
        return wrong(f"{count(strangers[0])} is not a neighbour of the minimum on the grid.",
                     "the neighbours are the measured sizes just below and just above the minimum")
    verdicts = {size: compare(sweep.units(best, order), sweep.units(size, order)) for size in neighbours}
    expected = sorted(size for size, d in verdicts.items() if d.direction == "lower")
    if sorted(set(clearly_ahead_of)) != expected:
        return wrong(f"the minimum, {best:,}, is right; the neighbours you say it is clearly ahead of, "
                     f"{sorted(set(clearly_ahead_of))}, are not the ones its intervals say.",
                     "a neighbour counts when compare(the minimum's units, the neighbour's units) has its whole "
                     "interval below 0 (.direction == 'lower'); 'within noise' does not count")
    return correct(f"order {order} bottoms out at {best:,} ({bits[best]:.4f} bits per byte); against its neighbours: "
                   + "; ".join(f"{size:,}: {d.verdict}" for size, d in verdicts.items())
                   + ". Put it next to order 4's minimum in section 3.")


def per_article(units: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """One unit per article, ``(bits, 1)``: the ratio of sums is then the languages' ratio of bits."""
    return [(bits, 1) for bits, _ in units]


def check_dearer_in_bits(languages: list[str], tax_bits: Mapping) -> Feedback:
    """Exercise 16.3: the languages that need clearly more bits than English for the same held-out articles,
    under the balanced tokenizer."""
    tokenizer = "balanced"
    if (problem := expect(languages, STRINGS, hint='answer with language names, e.g. ["Greek"]')) is not None:
        return problem
    if (problem := expect(tax_bits, TAX_BITS, "tax_bits")) is not None:
        return problem
    codes = {language_name(code).lower(): code for code in corpus.UDHR_LANGUAGES}
    try:
        english = per_article(tax_bits[tokenizer, "eng"])
        others = {code: per_article(tax_bits[tokenizer, code]) for code in corpus.UDHR_LANGUAGES if code != "eng"}
    except (KeyError, TypeError, ValueError):
        return wrong(f"tax_bits has no per-article bits for the {tokenizer} tokenizer in every language.",
                     "pass `tax_bits` from section 7, as the chapter built it")
    unknown = [name for name in languages if name.strip().lower() not in codes]
    if unknown:
        return wrong(f"{short(unknown[0])} is not a language of section 7's table.",
                     "write the names as the table's rows do, e.g. 'Tamil' or 'Chinese (simplified)'")
    said = {codes[name.strip().lower()] for name in languages}
    if "eng" in said:
        return wrong("you list English, whose bits are the yardstick here.", "compare every other language with it")
    dearer = {code for code, units in others.items() if compare(units, english).direction == "higher"}
    extra = sorted(said - dearer, key=language_name)
    if extra:
        return wrong(f"{language_name(extra[0])}'s interval against English's bits does not lie wholly above 0: it is "
                     "not clearly dearer.", "count a language only when compare(its per-article bits, English's) "
                     "says .direction == 'higher'")
    if dearer - said:
        return wrong(("you listed no language yet; " if not said else "your list is not complete: ")
                     + f"some languages need clearly more bits than English under the {tokenizer} tokenizer that "
                     "it does not hold.", "go through every language of corpus.UDHR_LANGUAGES, not only the long bars")
    return correct(f"{len(dearer)} of the {len(others)} other languages need clearly more bits than English for the "
                   "same articles; the rest are within noise of it or clearly cheaper.")
