"""bpe_course.compare, the difference yardstick, against a naive bootstrap written here, on simulated data
whose truth is known, and on the words it chooses."""

from __future__ import annotations

import math
import re
from random import Random

import pytest

from bpe_course import corpus
from bpe_course.compare import (Difference, Interval, Seeds, bootstrap, compare, estimate, how_many, paragraph_bytes,
                                rank_correlation, ranks, ratio_of_sums, spearman, spearman_interval, units_of)


# ---- a naive reference: the bootstrap as a textbook loop ----------------------------------------------------

def naive_quantile(values: list[float], q: float) -> float:
    """The linear-interpolation quantile, the slow obvious way."""
    values = sorted(values)
    h = (len(values) - 1) * q
    lo = int(h)
    hi = lo + 1 if lo + 1 < len(values) else lo
    return values[lo] + (h - lo) * (values[hi] - values[lo])


def naive_compare(a_runs, b_runs, a_random, b_random, n_resamples, seed, level=0.95, relative=False):
    """Setting a minus setting b: the mean over drawn seeds of sum(num)/sum(den) over drawn units, each
    replicate drawing a's seeds, then b's, then the units, with one Random(seed) (compare's documented order)."""
    def stat(runs, seeds, units):
        values = []
        for s in seeds:
            num = den = 0.0
            for i in units:
                num += runs[s][i][0]
                den += runs[s][i][1]
            values.append(num / den)
        return sum(values) / len(values)

    def diff(x, y):
        return x / y - 1 if relative else x - y

    n = len(a_runs[0])
    every = list(range(n))
    point = diff(stat(a_runs, range(len(a_runs)), every), stat(b_runs, range(len(b_runs)), every))
    rng = Random(seed)
    reps = []
    for _ in range(n_resamples):
        sa = rng.choices(range(len(a_runs)), k=len(a_runs)) if a_random else [0]
        sb = rng.choices(range(len(b_runs)), k=len(b_runs)) if b_random else [0]
        units = rng.choices(range(n), k=n)
        reps.append(diff(stat(a_runs, sa, units), stat(b_runs, sb, units)))
    tail = (1 - level) / 2
    return point, naive_quantile(reps, tail), naive_quantile(reps, 1 - tail)


def simulated(rng: Random, n: int, shift: float, noise: float = 3.0, pair_noise: float = 1.0):
    """Two settings on n units: bytes per unit, a's bits ~ 2 per byte, b's = a's + shift per byte + noise."""
    a, b = [], []
    for _ in range(n):
        size = rng.randint(50, 150)
        bits_a = 2.0 * size + rng.gauss(0, noise) * math.sqrt(size)
        a.append((bits_a, size))
        b.append((bits_a + shift * size + rng.gauss(0, pair_noise) * math.sqrt(size), size))
    return a, b


@pytest.mark.parametrize("relative", [False, True])
def test_compare_equals_the_naive_bootstrap(relative):
    a, b = simulated(Random(1), 37, shift=0.02)
    d = compare(a, b, n_resamples=300, seed=7, relative=relative)
    point, low, high = naive_compare([a], [b], False, False, 300, 7, relative=relative)
    assert d.estimate == pytest.approx(point, abs=1e-12)
    assert (d.low, d.high) == pytest.approx((low, high), abs=1e-12)


def test_compare_with_seeds_equals_the_naive_nested_bootstrap():
    rng = Random(2)
    base, plain = simulated(rng, 25, shift=0.0)
    runs = [[(bits + rng.gauss(0, 2.0), size) for bits, size in base] for _ in range(4)]
    d = compare(Seeds(runs), plain, n_resamples=250, seed=3, level=0.9)
    point, low, high = naive_compare(runs, [plain], True, False, 250, 3, level=0.9)
    assert d.estimate == pytest.approx(point, abs=1e-12)
    assert (d.low, d.high) == pytest.approx((low, high), abs=1e-12)
    both = compare(Seeds(runs), Seeds(runs[::-1]), n_resamples=200, seed=5)
    assert (both.low, both.high) == pytest.approx(naive_compare(runs, runs[::-1], True, True, 200, 5)[1:], abs=1e-12)


def test_the_same_seed_gives_the_same_interval_and_another_seed_the_same_estimate():
    a, b = simulated(Random(3), 30, shift=0.01)
    first, again = compare(a, b, n_resamples=200, seed=11), compare(a, b, n_resamples=200, seed=11)
    assert first == again
    other = compare(a, b, n_resamples=200, seed=12)
    assert other.estimate == first.estimate and (other.low, other.high) != (first.low, first.high)


def test_a_clear_difference_has_its_sign_and_words():
    a, b = simulated(Random(4), 60, shift=0.05)  # b spends 0.05 bits per byte more: a is ahead
    d = compare(a, b, n_resamples=500)
    assert d.high < 0 and d.direction == "lower" and d.clear
    assert d.verdict.startswith("ahead by ") and "95% interval" in d.verdict
    assert compare(b, a, n_resamples=500).verdict.startswith("behind by ")
    assert d.word("fewer", "more", "as many") == "fewer"
    lengths = compare(b, a, n_resamples=500, unit="tokens per byte", words=("fewer", "more"))
    assert lengths.verdict.startswith("more by ")
    assert d.sentence("X", "Y").startswith("X is ahead of Y by ")
    assert compare(b, a, n_resamples=500).sentence("X", "Y").startswith("X is behind Y by ")
    assert lengths.sentence("X", "Y").startswith("X is more than Y by ")


def test_identical_settings_are_within_noise():
    a, _ = simulated(Random(5), 40, shift=0.0)
    d = compare(a, a, n_resamples=300)
    assert (d.estimate, d.low, d.high) == (0.0, 0.0, 0.0)
    assert d.direction == "within noise" and d.verdict.startswith("within noise: 0.000 ")
    assert d.word("fewer", "more", "as many") == "as many"


def test_settings_that_differ_only_by_noise_are_mostly_within_noise():
    """100 simulated pairs of equally good settings: at 95%, about 5 in 100 look clear by chance, no more."""
    rng = Random(6)
    clear = 0
    for t in range(100):
        a, b = simulated(rng, 40, shift=0.0, pair_noise=2.0)
        d = compare(a, b, n_resamples=300, seed=t)
        clear += d.clear
        if not d.clear:
            assert "within noise of each other" in d.sentence("X", "Y")
    assert clear <= 12, f"{clear} of 100 null comparisons were called clear"


def test_the_interval_holds_the_truth_at_about_the_nominal_rate():
    """200 simulated held-out texts whose true difference is -0.01 bits per byte: the 90% interval should
    hold it about 90% of the time. Fixed seeds: the count is the same on every run (no flakiness); the
    band allows for the percentile bootstrap's slight under-coverage at 40 units and for 200 trials."""
    rng = Random(2024)
    held = 0
    trials = 200
    for t in range(trials):
        a, b = simulated(rng, 40, shift=0.01)
        d = compare(a, b, n_resamples=400, seed=t, level=0.9)
        held += d.low <= -0.01 <= d.high
    assert 0.82 <= held / trials <= 0.96, f"the 90% interval held the truth in {held} of {trials} trials"


def test_seeds_widen_the_interval_when_the_setting_itself_is_random():
    rng = Random(8)
    a, b = simulated(rng, 40, shift=0.0, pair_noise=0.5)
    spread = [[(bits + 0.03 * k * size, size) for bits, size in a] for k in range(-2, 3)]  # seeds far apart
    one = compare(spread[0], b, n_resamples=400)
    nested = compare(Seeds(spread), b, n_resamples=400)
    assert nested.high - nested.low > 2 * (one.high - one.low)


def test_bad_input_is_named():
    a = [(1.0, 1), (2.0, 1), (3.0, 1)]
    with pytest.raises(ValueError, match="a has 3 units and b has 2"):
        compare(a, a[:2])
    with pytest.raises(ValueError, match=r"b unit 1 is \(2.0,\)"):
        compare(a, [(1.0, 1), (2.0,), (3.0, 1)])
    with pytest.raises(ValueError, match="negative denominator"):
        compare(a, [(1.0, 1), (2.0, -1), (3.0, 1)])
    with pytest.raises(ValueError, match=r"a, seed 1, unit 0 is \(nan, 1\)"):
        compare(Seeds([a, [(math.nan, 1), (2.0, 1), (3.0, 1)]]), a)
    with pytest.raises(ValueError, match="at least 2 units"):
        compare(a[:1], a[:1])
    with pytest.raises(ValueError, match="n_resamples"):
        compare(a, a, n_resamples=10)
    with pytest.raises(ValueError, match="no positive denominator"):
        compare([(1.0, 0), (2.0, 0)], [(1.0, 1), (2.0, 1)])
    with pytest.raises(ValueError, match="low end"):
        Difference(0.1, 0.2, 0.0)


def test_verdict_wording_and_decimals():
    assert Difference(-0.020, -0.025, -0.015).verdict == "ahead by 0.020 bits per byte (95% interval 0.015–0.025)"
    assert Difference(0.002, -0.004, 0.008).verdict == \
        "within noise: 0.002 bits per byte (95% interval −0.004–0.008)"
    assert Difference(-0.00183, -0.0031, -0.0006).verdict == \
        "ahead by 0.0018 bits per byte (95% interval 0.0006–0.0031)"
    assert Difference(0.02, 0.01, 0.03, digits=4).verdict == \
        "behind by 0.0200 bits per byte (95% interval 0.0100–0.0300)"
    rel = Difference(0.081, 0.062, 0.10, unit="", words=("cheaper", "dearer"), relative=True)
    assert rel.verdict == "dearer by 8.1% (95% interval 6.2%–10.0%)"
    assert rel.beyond(0.05) and not rel.inside(0.05) and Difference(0.01, -0.02, 0.04).inside(0.05)
    assert not Difference(0.04, 0.01, 0.07).beyond(0.05) and not Difference(0.04, 0.01, 0.07).inside(0.05)
    assert str(Interval(-0.085, -0.092, -0.072)) == "−0.085 (95% interval −0.092 to −0.072)"
    assert Difference(-0.02, -0.025, -0.015).interval_text() == "95% interval −0.025 to −0.015"


@pytest.mark.parametrize("low, high", [(0.00004, 0.0019), (-0.0019, -0.00004), (0.0000004, 0.02), (0.3e-9, 0.01)])
def test_a_clear_intervals_end_never_prints_as_zero(low, high):
    """A clear interval that printed "0.00%–0.19%" would read as one that touches 0: add decimals until its
    end nearer 0 shows a digit, for every unit, relative or not."""
    for relative in (False, True):
        d = Difference((low + high) / 2, low, high, unit="", words=("fewer", "more"), relative=relative)
        assert d.clear
        shown = d.interval_text(magnitude=True).split("interval ")[1]
        ends = [float(e.rstrip("%").replace("\u2212", "-")) for e in re.split("\u2013| to ", shown)]
        assert min(abs(e) for e in ends) > 0, d.verdict
    within = Difference(0.0009, -0.00004, 0.0019)  # holds 0: no extra decimals needed, and none added
    assert within.verdict == "within noise: 0.0009 bits per byte (95% interval 0.0000–0.0019)"


def test_how_many():
    assert [how_many(k, 18) for k in (18, 17, 10, 9, 8, 1, 0)] == \
        ["all", "most", "most", "half", "fewer than half", "fewer than half", "none"]
    with pytest.raises(ValueError):
        how_many(19, 18)


def test_estimate_and_bootstrap_agree_with_the_naive_loop():
    run = simulated(Random(9), 30, shift=0.0)[0]
    iv = estimate(run, n_resamples=300, seed=4)
    assert iv.estimate == pytest.approx(ratio_of_sums(run))
    rng = Random(4)
    reps = []
    for _ in range(300):
        units = rng.choices(range(30), k=30)
        reps.append(sum(run[i][0] for i in units) / sum(run[i][1] for i in units))
    assert (iv.low, iv.high) == pytest.approx((naive_quantile(reps, 0.025), naive_quantile(reps, 0.975)), abs=1e-12)
    mean = bootstrap(30, lambda idx: sum(run[i][0] for i in idx) / len(idx), n_resamples=300, seed=4)
    assert isinstance(mean, Interval) and mean.low < mean.estimate < mean.high


def test_units_keep_every_bit_and_byte():
    text = corpus.load("don_quixote")[:20_000]
    sizes = paragraph_bytes(text, min_bytes=200)
    assert sum(sizes) == len(text.encode("utf-8")) and all(s >= 200 for s in sizes[1:])
    rng = Random(10)
    lengths, total = [], len(text.encode("utf-8"))
    while total > 0:  # tokens of 1-7 bytes, cutting across paragraph boundaries
        lengths.append(min(total, rng.randint(1, 7)))
        total -= lengths[-1]
    bits = [rng.random() * 10 for _ in lengths]
    units = units_of(bits, lengths, sizes)
    assert len(units) == len(sizes)
    assert sum(u[0] for u in units) == pytest.approx(sum(bits)) and sum(u[1] for u in units) == sum(lengths)
    with pytest.raises(ValueError, match="same text"):
        units_of(bits, lengths, sizes[:-1])


# ---- rank correlation ---------------------------------------------------------------------------------------

def naive_spearman(x, y):
    """Pearson's correlation of mean ranks, ranks found by counting."""
    def rank(v):
        return [sum(w < u for w in v) + (sum(w == u for w in v) + 1) / 2 for u in v]
    rx, ry = rank(x), rank(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def test_spearman_against_the_naive_one_with_and_without_ties():
    rng = Random(11)
    for _ in range(50):
        n = rng.randint(3, 12)
        x = [rng.randint(0, 5) for _ in range(n)]
        y = [rng.randint(0, 5) for _ in range(n)]
        if len(set(x)) == 1 or len(set(y)) == 1:
            continue
        assert spearman(x, y) == pytest.approx(naive_spearman(x, y), abs=1e-12)
    x = [rng.random() for _ in range(10)]
    y = [rng.random() for _ in range(10)]
    d2 = sum((a - b) ** 2 for a, b in zip(ranks(x), ranks(y)))
    assert spearman(x, y) == pytest.approx(1 - 6 * d2 / (10 * (10 ** 2 - 1)))  # the no-ties formula


def test_rank_correlation_over_units():
    rng = Random(12)
    n_units = 30

    def runs(means):
        return [[(m + rng.gauss(0, 0.05), 1) for _ in range(n_units)] for m in means]

    far = [0.1 * k for k in range(8)]  # items far apart: the ranks never move
    tied = rank_correlation(runs([2.0 + q for q in far]), runs([0.4 - q for q in far]), n_resamples=300)
    assert tied.estimate == -1.0 and tied.low == tied.high == -1.0
    near = [0.01 * k for k in range(8)]  # items closer than the units' noise: the ranks move
    bits, lengths = runs([2.0 + q for q in near]), runs([0.4 - q for q in near])
    loose = rank_correlation(bits, lengths, n_resamples=300)
    values = [[ratio_of_sums(r) for r in m] for m in (bits, lengths)]
    assert loose.estimate == pytest.approx(naive_spearman(*values))
    assert loose.low < loose.estimate < loose.high and loose.high - loose.low > 0.2


def test_spearman_interval_over_items():
    iv = spearman_interval(list(range(10)), [0, 2, 1, 3, 5, 4, 6, 8, 7, 9], n_resamples=300)
    assert iv.estimate == pytest.approx(naive_spearman(list(range(10)), [0, 2, 1, 3, 5, 4, 6, 8, 7, 9]))
    assert 0.5 < iv.low < iv.estimate <= iv.high <= 1.0
    with pytest.raises(ValueError, match="all values equal"):
        spearman([1, 1, 1], [1, 2, 3])
