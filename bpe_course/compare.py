"""The difference yardstick: is one setting really ahead of another, or within noise?

Two tokenizers (or models, or tie rules) scored on the same held-out text give two numbers, say 2.1474
and 2.1492 bits per byte. Their difference is a finding only when it is larger than what another,
equally good held-out text could have given. This module measures that with a **paired bootstrap**:
cut the held-out text into units (paragraphs, UDHR articles), score every unit under both settings,
then resample the units -- the same units for both settings -- many times and watch the difference move.

* Each setting's score is a **ratio of sums** over units: bits per byte is ``sum(bits) / sum(bytes)``,
  not the mean of the units' own ratios (a short unit must not weigh as much as a long one).
* A setting that is itself random (BPE-dropout, random tie-breaks) is run with several seeds, given as
  :class:`Seeds`; each replicate then also resamples the seeds (a nested bootstrap), so the interval
  holds the seed-to-seed spread too.
* The interval is the percentile interval of the replicates (95% by default), and the words that state
  the result come from it: :attr:`Difference.verdict` says "ahead", "behind" or "within noise", and
  :meth:`Difference.word` picks any pair of comparative words for a sentence of your own.

Everything is deterministic for a given ``seed``. Pure Python: no numpy.

>>> a = [(210.0, 100), (190.0, 100), (205.0, 100), (198.0, 100)]   # (bits, bytes) per paragraph
>>> b = [(215.0, 100), (196.0, 100), (209.0, 100), (204.0, 100)]
>>> d = compare(a, b, n_resamples=1000)
>>> round(d.estimate, 4)
-0.0525
>>> d.verdict
'ahead by 0.053 bits per byte (95% interval 0.045–0.060)'
>>> d.word("fewer bits", "more bits", "as many bits")
'fewer bits'
>>> compare(a, a).verdict
'within noise: 0.000 bits per byte (95% interval 0.000–0.000)'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from random import Random

__all__ = ["Difference", "Interval", "Seeds", "bootstrap", "compare", "estimate", "how_many", "number",
           "paragraph_bytes", "rank_correlation", "ratio_of_sums", "spearman", "spearman_interval", "units_of"]  # tests/test_face.py

N_RESAMPLES = 2000
LEVEL = 0.95
MINUS = "\u2212"  # a typographic minus: "−0.004" (a hyphen would read as a dash)
DASH = "\u2013"   # the en dash between an interval's ends: "0.015–0.025"

Unit = tuple[float, float]  # one held-out unit's (numerator, denominator): (bits, bytes), (tokens, bytes), ...
Run = Sequence[Unit]  # one setting's units, in the same order as every other setting's


class Seeds(tuple):
    """A random setting's runs, one per seed, each scored on the same units: ``Seeds([run0, run1, ...])``.

    Passed to :func:`compare` instead of a single run, it makes each bootstrap replicate resample the
    seeds as well as the units.
    """


# ---------------------------------------------------------------- the statistic and its interval

def ratio_of_sums(run: Run, indices: Sequence[int] | None = None) -> float:
    """``sum(numerators) / sum(denominators)`` over the run's units (or over ``indices``, repeats counted).

    >>> ratio_of_sums([(3.0, 2), (5.0, 2)])
    2.0
    >>> ratio_of_sums([(3.0, 2), (5.0, 2)], [1, 1, 0])
    2.1666666666666665
    """
    if indices is None:
        num = sum(u[0] for u in run)
        den = sum(u[1] for u in run)
    else:
        num = sum(run[i][0] for i in indices)
        den = sum(run[i][1] for i in indices)
    if den <= 0:
        raise ValueError(f"the units' denominators add up to {den}, not a positive number: nothing to divide by")
    return num / den


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 <= q <= 1) of sorted values, interpolated linearly between neighbours
    (numpy's default "linear" rule).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.025)
    (2.5, 1.075)
    """
    if not sorted_values:
        raise ValueError("the percentile of no values is undefined")
    if not 0 <= q <= 1:
        raise ValueError(f"q must be from 0 to 1, got {q!r}")
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * (position - below)


@dataclass(frozen=True)
class Interval:
    """An estimate with its bootstrap percentile interval."""

    estimate: float
    low: float
    high: float
    level: float = LEVEL

    def __str__(self) -> str:
        digits = decimals_for(self.low, self.high)
        return (f"{number(self.estimate, digits)} ({self.level:.0%} interval "
                f"{number(self.low, digits)}{between(self.high)}{number(self.high, digits)})")


def bootstrap(n_units: int, statistic: Callable[[Sequence[int]], float], *, n_resamples: int = N_RESAMPLES,
              level: float = LEVEL, seed: int = 0) -> Interval:
    """Any statistic of ``n_units`` units, with a percentile interval from resampling the units.

    ``statistic(indices)`` computes the statistic on the units ``indices`` (a list of ``n_units`` unit
    numbers drawn with replacement); the estimate is ``statistic(range(n_units))``. Use it for what
    :func:`compare` does not cover, e.g. a rank correlation recomputed from resampled units.

    subtle: replicate ``r`` draws its units as ``Random(seed).choices(range(n_units), k=n_units)`` does,
    the ``r``-th call on one generator: a reference loop written that way gets the same replicates.

    >>> values = [1.0, 2.0, 3.0, 4.0, 10.0]
    >>> iv = bootstrap(len(values), lambda idx: sum(values[i] for i in idx) / len(idx), n_resamples=500)
    >>> iv.estimate, iv.low < 4.0 < iv.high
    (4.0, True)
    """
    _check_resampling(n_units, n_resamples, level)
    return _interval(statistic(list(range(n_units))), _replicates(n_units, statistic, n_resamples, seed), level)


def _replicates(n_units: int, statistic: Callable[[Sequence[int]], float], n_resamples: int, seed: int) -> list[float]:
    rng = Random(seed)
    units = range(n_units)
    return [statistic(rng.choices(units, k=n_units)) for _ in range(n_resamples)]


def _interval(estimate: float, replicates: list[float], level: float) -> Interval:
    replicates = sorted(replicates)
    tail = (1 - level) / 2
    return Interval(estimate, percentile(replicates, tail), percentile(replicates, 1 - tail), level)


def _check_resampling(n_units: int, n_resamples: int, level: float) -> None:
    if isinstance(n_units, bool) or not isinstance(n_units, int) or n_units < 2:
        raise ValueError(f"a bootstrap needs at least 2 units to resample, got {n_units!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 100:
        raise ValueError(f"n_resamples must be an int >= 100 (the interval's ends are its tails), got {n_resamples!r}")
    if not isinstance(level, float) or not 0.5 <= level < 1:
        raise ValueError(f"level must be a float from 0.5 to below 1, e.g. 0.95, got {level!r}")


# ---------------------------------------------------------------- comparing two settings

@dataclass(frozen=True)
class Difference:
    """Setting a's statistic minus setting b's, with its interval, and the words it supports.

    ``words`` are what to say when a's statistic is *lower* than b's, then when it is *higher*:
    ``("ahead", "behind")`` for bits per byte (lower is better), ``("fewer", "more")`` for a count,
    ``("behind", "ahead")`` for a score where higher is better. A difference whose interval holds 0 is
    within noise, whatever its sign. ``relative``: the estimate is ``a / b - 1``, shown in percent.

    >>> Difference(-0.020, -0.025, -0.015).verdict
    'ahead by 0.020 bits per byte (95% interval 0.015–0.025)'
    >>> Difference(0.020, 0.015, 0.025).verdict
    'behind by 0.020 bits per byte (95% interval 0.015–0.025)'
    >>> Difference(0.002, -0.004, 0.008).verdict
    'within noise: 0.002 bits per byte (95% interval −0.004–0.008)'
    >>> Difference(0.052, 0.031, 0.070, unit="", words=("fewer", "more"), relative=True).verdict
    'more by 5.2% (95% interval 3.1%–7.0%)'
    >>> Difference(-0.0009, -0.0019, -0.00004, unit="", words=("fewer", "more"), relative=True).verdict
    'fewer by 0.090% (95% interval 0.004%–0.190%)'
    """

    estimate: float
    low: float
    high: float
    unit: str = "bits per byte"
    words: tuple[str, str] = ("ahead", "behind")
    relative: bool = False
    level: float = LEVEL
    digits: int | None = None  # decimals shown; None: enough for the interval's width (two significant digits)

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"an interval's low end must not exceed its high end, got {self.low!r} > {self.high!r}")

    @property
    def direction(self) -> str:
        """``"lower"`` if the whole interval is below 0 (a's statistic is lower than b's), ``"higher"``
        if it is above 0, else ``"within noise"``."""
        if self.high < 0:
            return "lower"
        if self.low > 0:
            return "higher"
        return "within noise"

    @property
    def clear(self) -> bool:
        """Is the difference larger than its uncertainty (the interval leaves out 0)?"""
        return self.direction != "within noise"

    def word(self, lower: str, higher: str, same: str) -> str:
        """The word the data supports: ``lower`` when a is clearly lower than b, ``higher`` when clearly
        higher, ``same`` when the interval holds 0.

        >>> Difference(-0.3, -0.5, -0.1).word("fewer", "more", "about as many")
        'fewer'
        >>> Difference(-0.3, -0.5, 0.1).word("fewer", "more", "about as many")
        'about as many'
        """
        return {"lower": lower, "higher": higher, "within noise": same}[self.direction]

    def beyond(self, margin: float) -> bool:
        """Is the whole interval farther from 0 than ``margin`` (clearly a change of more than it)?"""
        return self.low > margin or self.high < -margin

    def inside(self, margin: float) -> bool:
        """Is the whole interval within ``margin`` of 0 (clearly a change of less than it)?"""
        return -margin < self.low and self.high < margin

    def _show(self, x: float) -> str:
        if self.relative:
            return number(100 * x, self._decimals(), "%")
        return number(x, self._decimals())

    def _decimals(self) -> int:
        if self.digits is not None:
            return self.digits
        scale = 100 if self.relative else 1
        digits = decimals_for(scale * self.low, scale * self.high)
        if self.clear:  # subtle: a clear interval's end nearer 0 must not print as 0, or it reads "within noise"
            near = min(abs(scale * self.low), abs(scale * self.high))
            while digits < 12 and float(f"{near:.{digits}f}") == 0:
                digits += 1
        return digits

    def interval_text(self, magnitude: bool = False) -> str:
        """``"95% interval 0.015–0.025"``; with ``magnitude``, the interval of ``abs(estimate)`` on the side
        the estimate lies (for "ahead by ..." wording)."""
        low, high = (self.low, self.high)
        if magnitude and self.estimate < 0:
            low, high = -self.high, -self.low
        return f"{self.level:.0%} interval {self._show(low)}{between(high)}{self._show(high)}"

    @property
    def verdict(self) -> str:
        """"ahead by X unit (95% interval ...)", "behind by ...", or "within noise: X unit (95% interval ...)"."""
        unit = f" {self.unit}" if self.unit else ""
        if not self.clear:
            return f"within noise: {self._show(self.estimate)}{unit} ({self.interval_text()})"
        said = self.words[0] if self.direction == "lower" else self.words[1]
        return f"{said} by {self._show(abs(self.estimate))}{unit} ({self.interval_text(magnitude=True)})"

    def sentence(self, a: str, b: str) -> str:
        """The verdict as a sentence about two named settings.

        >>> Difference(-0.020, -0.025, -0.015).sentence("the shortest path", "plain BPE")
        'the shortest path is ahead of plain BPE by 0.020 bits per byte (95% interval 0.015–0.025)'
        >>> Difference(0.020, 0.015, 0.025).sentence("the shortest path", "plain BPE")
        'the shortest path is behind plain BPE by 0.020 bits per byte (95% interval 0.015–0.025)'
        >>> Difference(0.002, -0.004, 0.008).sentence("X", "Y")
        'X and Y are within noise of each other (X − Y: 0.002 bits per byte, 95% interval −0.004–0.008)'
        """
        unit = f" {self.unit}" if self.unit else ""
        if not self.clear:
            return (f"{a} and {b} are within noise of each other ({a} {MINUS} {b}: {self._show(self.estimate)}{unit}, "
                    f"{self.interval_text()})")
        said = self.words[0] if self.direction == "lower" else self.words[1]
        joiner = {"ahead": " of", "behind": ""}.get(said, " than")  # ahead of, behind, fewer than, cheaper than
        return (f"{a} is {said}{joiner} {b} by {self._show(abs(self.estimate))}{unit} "
                f"({self.interval_text(magnitude=True)})")

    def __str__(self) -> str:
        return self.verdict


def compare(a: Run | Seeds, b: Run | Seeds, *, unit: str = "bits per byte",
            words: tuple[str, str] = ("ahead", "behind"), relative: bool = False, n_resamples: int = N_RESAMPLES,
            level: float = LEVEL, seed: int = 0, digits: int | None = None) -> Difference:
    """Setting ``a`` against setting ``b`` on the same held-out units: the difference of their ratios of
    sums (``a - b``, or ``a / b - 1`` with ``relative``), with a paired bootstrap interval.

    ``a`` and ``b`` are runs -- per unit, ``(numerator, denominator)``, e.g. ``(bits, bytes)`` -- with the
    units in the same order, or :class:`Seeds` of such runs for a setting that is random. Each replicate
    draws, in this order: for each of a and b given as :class:`Seeds`, as many seeds as it has (with
    replacement, ``rng.choices``), then the units (``rng.choices(range(n), k=n)``), the same for a and b
    and every seed. A setting's replicate statistic is the mean, over its drawn seeds, of the ratio of
    sums over the drawn units.

    subtle: the cost is ``n_resamples`` times the number of units (times the seeds); tens of thousands of
    units (lines of a corpus) take a minute, a few hundred (paragraphs, articles) about a second.

    >>> a = Seeds([[(2.0, 1), (4.0, 1), (3.0, 1)], [(2.2, 1), (4.2, 1), (3.2, 1)]])
    >>> b = [(2.5, 1), (4.5, 1), (3.5, 1)]
    >>> d = compare(a, b, n_resamples=400)
    >>> round(d.estimate, 6), d.direction
    (-0.4, 'lower')
    """
    a_runs, b_runs = _runs(a, "a"), _runs(b, "b")
    n = len(a_runs[0])
    if len(b_runs[0]) != n:
        raise ValueError(f"a has {n} units and b has {len(b_runs[0])}: a paired comparison needs the same held-out "
                         "units, in the same order, for both settings")
    _check_resampling(n, n_resamples, level)
    columns = [_columns(run) for run in a_runs], [_columns(run) for run in b_runs]

    def value(cols: list[tuple[list[float], list[float]]], seeds: Sequence[int],
              units: Callable[[list[float]], Sequence[float]] | None) -> float:
        total = 0.0
        for s in seeds:
            num, den = cols[s]
            if units is None:
                total += sum(num) / sum(den)
            else:
                total += sum(units(num)) / sum(units(den))
        return total / len(seeds)

    def difference(x: float, y: float) -> float:
        return x / y - 1 if relative else x - y

    everything_a, everything_b = range(len(a_runs)), range(len(b_runs))
    estimate = difference(value(columns[0], everything_a, None), value(columns[1], everything_b, None))
    rng = Random(seed)
    draw, scale, each = rng.random, float(n), range(n)
    replicates = []
    for _ in range(n_resamples):
        seeds_a = rng.choices(everything_a, k=len(a_runs)) if isinstance(a, Seeds) else [0]
        seeds_b = rng.choices(everything_b, k=len(b_runs)) if isinstance(b, Seeds) else [0]
        # subtle: the draws of rng.choices(range(n), k=n), floor(random() * n) each, made here without its list
        # of the population; itemgetter picks the drawn units out of every column at C speed (twice as fast),
        # and returns a tuple since n >= 2
        units = itemgetter(*[int(draw() * scale) for _ in each])
        replicates.append(difference(value(columns[0], seeds_a, units), value(columns[1], seeds_b, units)))
    replicates.sort()
    tail = (1 - level) / 2
    return Difference(estimate, percentile(replicates, tail), percentile(replicates, 1 - tail), unit=unit,
                      words=(words[0], words[1]), relative=relative, level=level, digits=digits)


def _runs(x: Run | Seeds, name: str) -> list[list[Unit]]:
    """``x`` as a list of runs (one, unless it is :class:`Seeds`), each checked: units of two finite
    numbers, denominators >= 0 with a positive total, every run as long as the first."""
    runs = [list(r) for r in x] if isinstance(x, Seeds) else [list(x)]
    if not runs:
        raise ValueError(f"{name} is Seeds of no runs: give at least one")
    for s, run in enumerate(runs):
        where = f"{name}" + (f", seed {s}," if isinstance(x, Seeds) else "")
        for i, unit in enumerate(run):
            if (not isinstance(unit, (tuple, list)) or len(unit) != 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                               for v in unit)):
                raise ValueError(f"{where} unit {i} is {unit!r}: each unit must be (numerator, denominator), "
                                 "two finite numbers, e.g. (bits, bytes)")
            if unit[1] < 0:
                raise ValueError(f"{where} unit {i} has a negative denominator {unit[1]!r}")
        if sum(u[1] for u in run) <= 0:
            raise ValueError(f"{where} has no positive denominator in any unit: its ratio is undefined")
        if len(run) != len(runs[0]):
            raise ValueError(f"{name}'s seeds have different numbers of units ({len(runs[0])} and {len(run)}): "
                             "every seed must be scored on the same units")
    return runs


def _columns(run: list[Unit]) -> tuple[list[float], list[float]]:
    return [float(u[0]) for u in run], [float(u[1]) for u in run]


def estimate(run: Run | Seeds, *, n_resamples: int = N_RESAMPLES, level: float = LEVEL, seed: int = 0) -> Interval:
    """One setting's ratio of sums with its bootstrap interval (units, and seeds if given :class:`Seeds`).

    >>> iv = estimate([(2.0, 1), (4.0, 1), (3.0, 1), (3.5, 1)], n_resamples=400)
    >>> iv.estimate, iv.low <= 3.125 <= iv.high
    (3.125, True)
    """
    zero = [(0.0, 1.0)] * len(_runs(run, "run")[0])
    d = compare(run, zero, n_resamples=n_resamples, level=level, seed=seed)
    return Interval(d.estimate, d.low, d.high, level)


# ---------------------------------------------------------------- units from tokens

def units_of(token_values: Sequence[float], token_bytes: Sequence[int], unit_bytes: Sequence[int]) -> list[Unit]:
    """Per-token values (bits) grouped into held-out units by byte offset: ``[(sum of values, bytes), ...]``.

    ``token_bytes`` are the tokens' lengths in bytes, ``unit_bytes`` the units' (paragraphs', articles')
    lengths, both adding up to the text's bytes. A token belongs to the unit its first byte is in, and a
    unit's denominator is the bytes of its tokens, so the sums over units are exactly the text's totals
    (a token that crosses a boundary moves a few bytes from one unit to the next).

    >>> units_of([1.0, 2.0, 3.0, 4.0], [2, 3, 1, 4], [4, 6])  # the second token starts at byte 2, in unit 0
    [(3.0, 5), (7.0, 5)]
    """
    if len(token_values) != len(token_bytes):
        raise ValueError(f"{len(token_values)} token values but {len(token_bytes)} token lengths: one each")
    if sum(token_bytes) != sum(unit_bytes):
        raise ValueError(f"the tokens hold {sum(token_bytes)} bytes but the units {sum(unit_bytes)}: "
                         "both must cover the same text")
    ends, total = [], 0
    for n in unit_bytes:
        total += n
        ends.append(total)
    out = [[0.0, 0] for _ in unit_bytes]
    k, offset = 0, 0
    for value, length in zip(token_values, token_bytes):
        while offset >= ends[k]:
            k += 1
        out[k][0] += value
        out[k][1] += length
        offset += length
    return [(v, n) for v, n in out]


def paragraph_bytes(text: str, min_bytes: int = 1) -> list[int]:
    """The UTF-8 lengths of ``text``'s paragraphs, each with the blank lines after it, so they add up to
    the text's bytes; a paragraph shorter than ``min_bytes`` joins the one before it (the first joins the next).

    >>> paragraph_bytes("One.\\n\\nTwo two.\\n\\n\\nThree.")
    [6, 11, 6]
    >>> paragraph_bytes("aaaaaa\\n\\nb\\n\\ncccccc", min_bytes=5)  # "b" joins the paragraph before it
    [11, 6]
    """
    sizes: list[int] = []
    i, n = 0, len(text)
    while i < n:
        j = text.find("\n\n", i)
        j = n if j < 0 else j
        while j < n and text[j] == "\n":
            j += 1
        sizes.append(len(text[i:j].encode("utf-8")))
        i = j
    merged: list[int] = []
    for size in sizes:
        if merged and (size < min_bytes or merged[-1] < min_bytes):
            merged[-1] += size
        else:
            merged.append(size)
    return merged


# ---------------------------------------------------------------- words for composed sentences

def how_many(k: int, n: int) -> str:
    """The quantifier a count supports: "all", "most", "half", "fewer than half", or "none".

    >>> [how_many(k, 18) for k in (18, 10, 9, 8, 0)]
    ['all', 'most', 'half', 'fewer than half', 'none']
    """
    if not 0 <= k <= n or n <= 0:
        raise ValueError(f"k must be from 0 to n, with n > 0, got k={k!r}, n={n!r}")
    if k == n:
        return "all"
    if k == 0:
        return "none"
    if 2 * k > n:
        return "most"
    return "half" if 2 * k == n else "fewer than half"


def decimals_for(low: float, high: float, significant: int = 2, most: int = 6) -> int:
    """Decimals that show an interval of this width to ``significant`` digits (at most ``most``).

    >>> decimals_for(0.015, 0.025), decimals_for(-0.004, 0.008), decimals_for(1.2, 3.4), decimals_for(0.0, 0.0)
    (3, 3, 1, 3)
    """
    width = abs(high - low)
    if width == 0 or not math.isfinite(width):
        return 3
    return max(0, min(most, significant - 1 - math.floor(math.log10(width))))


def between(high: float) -> str:
    """What joins an interval's ends: an en dash ("0.015–0.025", "−0.004–0.008"), or " to " before a negative
    high end, where a dash would read as a second minus ("−0.092 to −0.072").

    >>> between(0.025), between(-0.072)
    ('–', ' to ')
    """
    return " to " if high < 0 else DASH


def number(x: float, decimals: int, suffix: str = "") -> str:
    """``x`` with ``decimals`` decimals and a typographic minus; ``-0.000`` shows as ``0.000``.

    >>> number(-0.0041, 3), number(-0.0001, 3), number(5.24, 1, "%")
    ('−0.004', '0.000', '5.2%')
    """
    text = f"{x:.{decimals}f}"
    if text.startswith("-"):
        text = text[1:] if float(text) == 0 else MINUS + text[1:]
    return text + suffix


# ---------------------------------------------------------------- rank correlation

def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing the mean of their ranks.

    >>> ranks([30, 10, 20, 10])
    [4.0, 1.5, 3.0, 1.5]
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in order[i:j + 1]:
            out[k] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the ranks (ties get mean ranks).

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3, 4], [4, 3, 2, 1])
    (1.0, -1.0)
    >>> round(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]), 6)
    0.8
    """
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"spearman needs two sequences of the same length, at least 2, got {len(x)} and {len(y)}")
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        raise ValueError("spearman is undefined when one sequence has all values equal")
    return sxy / math.sqrt(sxx * syy)


def rank_correlation(x: Sequence[Run], y: Sequence[Run], *, n_resamples: int = N_RESAMPLES, level: float = LEVEL,
                     seed: int = 0) -> Interval:
    """Spearman's correlation between two measures of the same items (tokenizers), each a ratio of sums
    over the same held-out units, with an interval from resampling the units.

    ``x[i]`` and ``y[i]`` are item ``i``'s runs under the two measures (e.g. tokens per byte and bits
    per byte), all over the same units. A replicate whose resampled values leave every item tied on one
    measure (rank correlation undefined) is dropped; if more than 1% are, it is an error.

    >>> bits = [[(2.0 + k, 1), (2.2 + k, 1), (1.9 + k, 1)] for k in (0.0, 0.5, 0.3)]
    >>> lengths = [[(0.5 - k / 10, 1), (0.6 - k / 10, 1), (0.4 - k / 10, 1)] for k in (0.0, 0.5, 0.3)]
    >>> rank_correlation(bits, lengths, n_resamples=200).estimate
    -1.0
    """
    if len(x) != len(y) or len(x) < 3:
        raise ValueError(f"a rank correlation needs the same items under both measures, at least 3, "
                         f"got {len(x)} and {len(y)}")
    xs = [_columns(_runs(r, f"x[{i}]")[0]) for i, r in enumerate(x)]
    ys = [_columns(_runs(r, f"y[{i}]")[0]) for i, r in enumerate(y)]
    n = len(xs[0][0])
    if any(len(c[0]) != n for c in xs + ys):
        raise ValueError("every item must be scored on the same units under both measures")
    dropped = 0

    def statistic(units: Sequence[int]) -> float:
        nonlocal dropped
        vx = [sum(map(num.__getitem__, units)) / sum(map(den.__getitem__, units)) for num, den in xs]
        vy = [sum(map(num.__getitem__, units)) / sum(map(den.__getitem__, units)) for num, den in ys]
        try:
            return spearman(vx, vy)
        except ValueError:
            dropped += 1
            return math.nan

    _check_resampling(n, n_resamples, level)
    replicates = [r for r in _replicates(n, statistic, n_resamples, seed) if not math.isnan(r)]
    if dropped > n_resamples // 100:
        raise ValueError(f"{dropped} of {n_resamples} replicates left every item tied: the rank correlation "
                         "is undefined on too many resamples")
    return _interval(statistic(list(range(n))), replicates, level)


def spearman_interval(x: Sequence[float], y: Sequence[float], *, n_resamples: int = N_RESAMPLES,
                      level: float = LEVEL, seed: int = 0) -> Interval:
    """Spearman's correlation of paired values with an interval from resampling the *items* (pairs).

    Use it when the items are a sample of a larger population; when they are fixed (the tokenizers of
    a sweep) and the noise is in the held-out text, :func:`rank_correlation` is the one.

    >>> iv = spearman_interval([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 6, 5, 8, 7], n_resamples=300)
    >>> round(iv.estimate, 4), iv.low > 0
    (0.9286, True)
    """
    if len(x) != len(y) or len(x) < 3:
        raise ValueError(f"spearman_interval needs paired values, at least 3, got {len(x)} and {len(y)}")
    pairs = list(zip(x, y))
    _check_resampling(len(pairs), n_resamples, level)
    rng = Random(seed)
    replicates: list[float] = []
    while len(replicates) < n_resamples:
        drawn = rng.choices(pairs, k=len(pairs))
        try:
            replicates.append(spearman([p[0] for p in drawn], [p[1] for p in drawn]))
        except ValueError:
            continue  # subtle: a resample of one repeated item has no ranks to correlate; draw again
    return _interval(spearman(x, y), replicates, level)
