"""bpe_course.algorithms.lm against two oracles: a naive Kneser-Ney written here from Chen & Goodman (1998), and nltk.lm.

The naive model recounts everything from the token list on every call, with tuples and plain
recursion, so that each line can be read against the paper's equations (Chen & Goodman 1998,
interpolated and modified Kneser-Ney): slow and obvious on purpose.
"""

from __future__ import annotations

import functools
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import gpt2
from bpe_course.algorithms.lm import (MAX_ORDER, MIN_DISCOUNT, KneserNey, bits_per_byte, check_ids, fit_orders,
                           modified_kn_discounts)
from bpe_course.algorithms.variants import check_merges_count, train_picky, train_plain
from bpe_course.train import count_pretokens


# ---------------------------------------------------------------- the naive reference

class NaiveKneserNey:
    """Interpolated Kneser-Ney as Chen & Goodman write it, one probability at a time.

    Level ``order`` uses raw counts c(h w); every lower level k uses N1+(. h w), the number of
    distinct tokens seen right before h w. Each level's discounts (D1, D2, D3+) come from the
    count-of-counts of the counts that level uses, clamped as bpe_course.algorithms.lm documents.
    """

    def __init__(self, ids: list[int], order: int, n_vocab: int, discounts=None):
        self.ids, self.order, self.v = list(ids), order, n_vocab
        self.fixed = discounts

    def grams(self, k: int) -> list[tuple[int, ...]]:
        return [tuple(self.ids[i:i + k]) for i in range(len(self.ids) - k + 1)]

    def count(self, k: int, gram: tuple[int, ...]) -> int:
        if k == self.order:
            return self.grams(k).count(gram)
        return len({g[0] for g in self.grams(k + 1) if g[1:] == gram})

    def discount(self, k: int, c: int) -> float:
        if c == 0:
            return 0.0
        if self.fixed is not None:
            return self.fixed[k - 1]
        n = self.count_of_counts(k)
        y = n[1] / (n[1] + 2 * n[2]) if n[1] + n[2] else 0.0
        j = min(c, 3)
        d = j - (j + 1) * y * (n[j + 1] / n[j] if n[j] else 0.0)
        return min(max(d, MIN_DISCOUNT), j)

    @functools.cache
    def count_of_counts(self, k: int) -> dict[int, int]:
        """n_j: how many distinct k-grams level k counts j times (remembered: it only depends on k)."""
        types = set(self.grams(k)) if k == self.order else {g[1:] for g in self.grams(k + 1)}
        return {j: sum(1 for g in types if self.count(k, g) == j) for j in (1, 2, 3, 4)}

    def prob(self, w: int, context: list[int]) -> float:
        h = tuple(context[max(0, len(context) - self.order + 1):]) if self.order > 1 else ()
        return self.p(w, h)

    def p(self, w: int, h: tuple[int, ...]) -> float:
        k = len(h) + 1
        lower = self.p(w, h[1:]) if k > 1 else 1 / self.v
        followers = {x: self.count(k, h + (x,)) for x in range(self.v)}
        total = sum(followers.values())
        if total == 0:  # h never seen at this level: all weight to the lower level
            return lower
        gamma = sum(self.discount(k, c) for c in followers.values()) / total
        c = followers[w]
        return max(c - self.discount(k, c), 0) / total + gamma * lower


@pytest.fixture(params=["numpy", "python"])
def impl(request, monkeypatch):
    """Each test below runs on both ways the model is counted and scored: NumPy arrays, and plain Python."""
    import bpe_course.algorithms.lm as lm
    if request.param == "python":
        monkeypatch.setattr(lm, "np", None)
    else:
        assert lm.np is not None  # the dev environment has NumPy (pandas brings it)
    return request.param


def contexts_of(ids: list[int], order: int) -> list[list[int]]:
    return [ids[max(0, i - order + 1):i] for i in range(len(ids) + 1)]


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_probability_matches_the_naive_reference(order, seed, impl):
    rng = random.Random(seed)
    v = 6
    # a skewed source, so counts of 1, 2, 3 and more all occur and the discounts are not all clamped
    train = rng.choices(range(v - 1), weights=[8, 4, 2, 1, 1], k=120)  # id v-1 never occurs
    held = rng.choices(range(v), k=25)
    fast, naive = KneserNey(train, order, v), NaiveKneserNey(train, order, v)
    for context in contexts_of(held, order) + contexts_of(train[:12], order):
        got = fast.distribution(context)
        for w in range(v):
            assert got[w] == pytest.approx(naive.prob(w, context), rel=1e-12, abs=1e-15), (context, w)
    assert fast.token_probs(held) == pytest.approx([naive.prob(w, held[:i]) for i, w in enumerate(held)], rel=1e-12)


def test_the_discounts_are_really_estimated_in_that_test():
    train = random.Random(0).choices(range(5), weights=[8, 4, 2, 1, 1], k=120)
    d = KneserNey(train, 3, 6).discounts
    assert len({round(x, 9) for level in d for x in level} - {MIN_DISCOUNT, 1.0, 2.0, 3.0}) >= 5, d


@given(st.lists(st.integers(0, 4), max_size=40), st.integers(1, 3), st.lists(st.integers(0, 5), max_size=4),
       st.none() | st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fixed_and_estimated_discounts_match_the_naive_reference_on_any_text(impl, train, order, context, fixed):
    discounts = None if fixed is None else fixed[:order]
    fast, naive = KneserNey(train, order, 6, discounts), NaiveKneserNey(train, order, 6, discounts)
    assert fast.distribution(context) == pytest.approx([naive.prob(w, context) for w in range(6)], rel=1e-12)


@given(st.lists(st.integers(0, 7), max_size=300), st.lists(st.integers(0, 9), max_size=60),
       st.sampled_from([10, 50_000]), st.none() | st.floats(0.05, 1.0))
@settings(max_examples=60, deadline=None)
def test_arrays_and_plain_python_give_the_same_model(train, held, v, fixed):
    """Both ways, orders 1 to 5 fitted together: discounts, every probability (to 1e-12), n-gram count.

    A vocabulary of 50,000: five ids as one base-v number would pass 64 bits; the arrays never make one."""
    import bpe_course.algorithms.lm as lm
    numpy = lm.np
    try:
        arrays = fit_orders(train, [1, 2, 3, 4, 5], v) if fixed is None else {
            n: KneserNey(train, n, v, (fixed,) * n) for n in range(1, 6)}
        lm.np = None
        plain = fit_orders(train, [1, 2, 3, 4, 5], v) if fixed is None else {
            n: KneserNey(train, n, v, (fixed,) * n) for n in range(1, 6)}
    finally:
        lm.np = numpy
    for n in range(1, 6):
        a, b = arrays[n], plain[n]
        assert [list(d) for d in a.discounts] == [pytest.approx(list(d), rel=1e-12) for d in b.discounts]
        assert repr(a) == repr(b)
        assert a.token_probs(held) == pytest.approx(b.token_probs(held), rel=1e-12, abs=1e-15)
        for context in ([], held[:4], train[-3:]):
            if v <= 10:
                assert a.distribution(context) == pytest.approx(b.distribution(context), rel=1e-12, abs=1e-15)
            assert a.prob(held[-1] if held else 0, context) == pytest.approx(
                b.prob(held[-1] if held else 0, context), rel=1e-12, abs=1e-15)


def test_discounts_follow_chen_and_goodmans_estimate():
    # n1..n4 = 10, 5, 3, 2: Y = 10 / 20; D1 = 1 - 2Y(5/10); D2 = 2 - 3Y(3/5); D3+ = 3 - 4Y(2/3)
    assert modified_kn_discounts({1: 10, 2: 5, 3: 3, 4: 2}) == pytest.approx((0.5, 1.1, 3 - 4 / 3))
    # out of range estimates are clamped into [MIN_DISCOUNT, k]
    assert modified_kn_discounts({1: 1, 2: 1, 3: 10}) == pytest.approx((1 / 3, MIN_DISCOUNT, 3.0))


# ---------------------------------------------------------------- nltk.lm

def test_agrees_with_nltk_kneser_ney_interpolated():
    """Where the two define the same model.

    nltk 3.10's ``KneserNeyInterpolated(order, discount=d)`` is interpolated Kneser-Ney with one
    discount ``d`` at every level above the unigrams, and an *undiscounted* continuation unigram
    (N1+(. w) / N1+(. .)) at the bottom, never mixed with the uniform. That is our model with
    ``discounts=(0, d, ..., d)``: a discount of 0 at level 1 passes no weight to the uniform.

    Two more differences, both at the start of the text, are avoided rather than modelled: nltk
    gives a lower level's weight from *raw* follower counts, we from continuation counts; they
    differ only for an n-gram whose one occurrence starts the text (it has no token before it). The
    text starts with a token used nowhere else, and the contexts compared never contain it.
    """
    from nltk.lm import KneserNeyInterpolated
    from nltk.util import everygrams

    rng = random.Random(5)
    v = 7
    start = v - 1
    train = [start] + rng.choices(range(v - 1), weights=[6, 4, 3, 2, 1, 1], k=300)
    for order in (2, 3, 4):
        d = 0.1
        ours = KneserNey(train, order, v, discounts=(0.0,) + (d,) * (order - 1))
        theirs = KneserNeyInterpolated(order, discount=d)
        words = [str(t) for t in train]
        theirs.fit([list(everygrams(words, max_len=order))], vocabulary_text=words)
        held = rng.choices(range(v - 1), k=60)
        compared = 0
        for i in range(len(held)):
            context = held[max(0, i - order + 1):i]
            for w in range(v - 1):
                expected = theirs.score(str(w), [str(t) for t in context])
                assert ours.prob(w, context) == pytest.approx(expected, rel=1e-12), (order, context, w)
                compared += 1
        assert compared == 60 * (v - 1)


def test_nltk_default_discount_differs_from_modified_kneser_ney():
    """The comparison above is not vacuous: our default (estimated discounts, uniform floor) is another model."""
    from nltk.lm import KneserNeyInterpolated
    from nltk.util import everygrams

    train = [6] + random.Random(5).choices(range(6), weights=[6, 4, 3, 2, 1, 1], k=300)
    words = [str(t) for t in train]
    theirs = KneserNeyInterpolated(3, discount=0.1)
    theirs.fit([list(everygrams(words, max_len=3))], vocabulary_text=words)
    ours = KneserNey(train, 3, 7)
    assert abs(ours.prob(2, [0, 1]) - theirs.score("2", ["0", "1"])) > 1e-3


# ---------------------------------------------------------------- properties

@given(st.lists(st.integers(0, 19), max_size=200), st.integers(1, MAX_ORDER), st.integers(20, 30),
       st.lists(st.integers(0, 19), max_size=MAX_ORDER))
@settings(max_examples=80, deadline=None)
def test_each_context_gives_a_distribution_over_the_whole_vocabulary(train, order, n_vocab, context):
    model = KneserNey(train, order, n_vocab)
    dist = model.distribution(context)
    assert len(dist) == n_vocab
    assert math.fsum(dist) == pytest.approx(1.0, abs=1e-12)
    assert min(dist) > 0
    assert dist[n_vocab - 1] == pytest.approx(model.prob(n_vocab - 1, context), rel=1e-12)


def test_a_byte_never_seen_in_training_costs_finite_bits():
    train = list("abracadabra ".encode()) * 50
    model = KneserNey(train, 4, 256)
    bits = model.bits(list("abra zebra".encode()))
    assert math.isfinite(bits) and bits > model.bits(list("abra abra!".encode())[:10]) - 100
    assert model.prob(ord("z"), list(b"abr")) > 0


def test_scores_are_deterministic_and_bits_add_up():
    rng = random.Random(11)
    train, held = rng.choices(range(50), k=5000), rng.choices(range(50), k=500)
    a, b = KneserNey(train, 3, 50), KneserNey(list(train), 3, 50)
    assert a.bits(held) == b.bits(held)
    assert a.bits(held) == -sum(math.log2(p) for p in a.token_probs(held))
    assert a.token_probs(held)[5] == a.prob(held[5], held[3:5]) == a.prob(held[5], held[:5])


def test_models_fitted_together_equal_models_fitted_alone():
    rng = random.Random(3)
    train, held = rng.choices(range(30), k=3000), rng.choices(range(30), k=300)
    together = fit_orders(train, [4, 2, 1, 3, 5], 30)
    assert sorted(together) == [1, 2, 3, 4, 5]
    for n, model in together.items():
        alone = KneserNey(train, n, 30)
        assert model.bits(held) == alone.bits(held) and model.discounts == alone.discounts
    with pytest.raises(ValueError, match="orders must be ints from 1 to 5"):
        fit_orders(train, [2, 6], 30)


def test_more_context_helps_on_a_repetitive_text():
    text = "the cat sat on the mat. the dog sat on the log. " * 40
    ids = list(text.encode())
    bpb = [bits_per_byte(KneserNey(ids[:1500], n, 256), ids[1500:], text.encode()[1500:].decode()) for n in (1, 2, 3, 4)]
    assert bpb == sorted(bpb, reverse=True)
    assert bpb[-1] < 0.5 < bpb[0]


def test_bits_per_byte_is_bits_over_utf8_bytes():
    model = KneserNey([0, 1, 2, 1, 0], 2, 3)
    assert bits_per_byte(model, [0, 1], "é!") == pytest.approx(model.bits([0, 1]) / 3)
    with pytest.raises(ValueError, match="empty text"):
        bits_per_byte(model, [], "")


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("order", [0, 6, 2.0, True])
def test_order_out_of_range_is_named(order):
    with pytest.raises(ValueError, match="order must be an int from 1 to 5"):
        KneserNey([0, 1], order, 2)


def test_an_id_outside_the_vocabulary_is_named_with_its_position():
    with pytest.raises(ValueError, match=r"ids\[3\] = 9 is not a token id from 0 to 4 \(n_vocab=5\)"):
        KneserNey([0, 1, 2, 9, 1], 2, 5)
    model = KneserNey([0, 1, 2], 2, 5)
    with pytest.raises(ValueError, match=r"ids\[1\] = -1"):
        model.bits([0, -1])
    with pytest.raises(ValueError, match=r"ids\[0\] = '1'"):
        check_ids(["1"], 5)


def test_bad_n_vocab_and_discounts_are_named():
    with pytest.raises(ValueError, match="n_vocab must be a positive int"):
        KneserNey([], 2, 0)
    with pytest.raises(ValueError, match="discounts must be 2 numbers from 0 to 1"):
        KneserNey([0, 1], 2, 2, discounts=(0.5,))
    with pytest.raises(ValueError, match="discounts must be 2 numbers from 0 to 1"):
        KneserNey([0, 1], 2, 2, discounts=(0.5, 1.5))


def test_an_empty_training_text_is_the_uniform_model():
    model = KneserNey([], 3, 8)
    assert model.distribution([1, 2]) == [1 / 8] * 8


def test_bits_by_unit_add_up_to_the_naive_references_bits_both_ways(impl):
    """The yardstick's per-unit bits (bits_by_unit) on the arrays and on plain Python: the naive model's total."""
    from bpe_course.algorithms.lm import bits_by_unit
    train, held = random.Random(3).choices(range(5), k=200), random.Random(4).choices(range(6), k=40)
    vocab = {i: bytes([97 + i]) * (1 + i % 2) for i in range(6)}
    n_bytes = sum(len(vocab[i]) for i in held)
    units = bits_by_unit(KneserNey(train, 3, 6), held, vocab, [n_bytes // 2, n_bytes - n_bytes // 2])
    naive = NaiveKneserNey(train, 3, 6)
    expected = -sum(math.log2(naive.prob(w, held[:i])) for i, w in enumerate(held))
    assert sum(b for b, _ in units) == pytest.approx(expected, rel=1e-12)
    assert len(units) == 2 and sum(n for _, n in units) == n_bytes  # a token's bytes go where its first byte is


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


# ---- NumPy integers are integers --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ids() -> list[int]:
    return gpt2().encode("the cat sat on the mat, and the cat sat on the hat; " * 20)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.int32, np.int64])
def test_kneser_ney_takes_what_np_load_gives(ids, dtype):
    array = np.array(ids, dtype=dtype)
    model = KneserNey(array, np.int64(3), np.int64(50_257))
    plain = KneserNey(ids, 3, 50_257)
    assert model.bits(array[:40]) == plain.bits(ids[:40])
    assert model.prob(array[5], array[:5]) == plain.prob(ids[5], ids[:5])
    assert fit_orders(array, [np.int8(1), 2], np.uint32(50_257))[2].bits(array) == fit_orders(ids, [1, 2], 50_257)[2].bits(ids)
    with pytest.raises(ValueError, match=r"ids\[1\] = 50257 is not a token id from 0 to 50256"):
        KneserNey(np.array([1, 50_257], dtype=dtype if dtype != np.uint16 else np.uint32), 2, 50_257)
    with pytest.raises(ValueError, match=r"ids\[0\] = np\.float64\(1\.0\) \(float64\) is not an integer"):
        KneserNey(np.array([1.0, 2.0]), 2, 50_257)


def test_numpy_integers_count_wherever_ids_and_counts_are_taken(ids):
    sp = pytest.importorskip("sentencepiece")
    from bpe_course.pretrained import mistral_v1
    v1 = mistral_v1()
    encoded = v1.encode("Hello there, general Kenobi")
    assert v1.decode(np.array(encoded, dtype=np.uint16)) == v1.decode(encoded) == "Hello there, general Kenobi"
    with pytest.raises(ValueError, match=r"id 1\.5 \(float\) at position 0 is not an integer"):
        v1.decode([1.5])
    assert check_merges_count(np.int64(7)) == 7 and type(check_merges_count(np.int64(7))) is int
    counts = count_pretokens("low lower lowest newer wider " * 5)
    assert train_plain(counts, np.int64(5)) == train_plain(counts, 5)
    assert train_picky(counts, np.int32(5), np.float32(0.5)).merges == train_picky(counts, 5, 0.5).merges
    tok = gpt2()
    assert tok.encode_ordinary_truncated("lowest", np.int64(300)) == tok.encode_ordinary_truncated("lowest", 300)
    assert sp is not None


# ---- a zero discount: infinitely many bits, not a math error ----------------------------------------------
def test_a_token_of_probability_zero_costs_infinitely_many_bits(ids):
    model = KneserNey(ids, 2, 50_257, discounts=(0.5, 0))  # level 2 keeps all its counts: an unseen pair gets 0
    unseen = gpt2().encode(" zebra")
    assert model.prob(unseen[0], ids[:1]) == 0.0  # "the" was seen, never before " zebra"
    assert model.bits(ids[:1] + unseen) == math.inf
    assert bits_per_byte(model, ids[:1] + unseen, "the zebra") == math.inf  # was ValueError: math domain error
    assert math.isfinite(model.bits(ids[:20]))  # seen pairs only: finite
    assert math.isfinite(KneserNey(ids, 2, 50_257, discounts=(0.5, 0.1)).bits(ids[:1] + unseen))
