"""A language model over token ids, to measure what a tokenizer does to a model: bits per byte.

Tokens per word says how *long* a tokenizer makes a text; it does not say how *hard* the tokens are
to predict. A model that predicts each token from the ones before it gives every held-out token a
probability; the total of ``-log2(probability)`` is the number of bits the model needs to write the
text down. Divided by the text's UTF-8 bytes, it compares any two tokenizers of the same text:
fewer but less predictable tokens can cost more bits (chapter 16).

The model here is Kneser-Ney smoothing (Kneser & Ney, 1995) on n-grams of token ids, in its
**interpolated** form as Chen & Goodman (1998) write it, with their three discounts per order
(**modified** Kneser-Ney) estimated from the counts. An order-``n`` model predicts a token from the
``n - 1`` before it; each order *mixes* its discounted counts with the next lower order, always -- it
does not back off to the lower order only when a count is missing, as Kneser & Ney's original did --
and the lowest order mixes with the uniform distribution over the whole vocabulary, so no token ever
has probability 0, seen or not. One data model: a sequence of ids in, probabilities out.

A score is one number for a whole held-out text; to say whether two scores differ by more than
chance, :func:`bits_by_unit` splits it into held-out units (paragraphs, articles) for the difference
yardstick, :func:`bpe_course.compare.compare`.

>>> model = KneserNey(list(b"abracadabra, abracadabra! cadabra"), order=3, n_vocab=256)
>>> round(model.prob(ord("r"), b"ab"), 4)  # "ab" was always followed by "r"
0.5763
>>> round(model.prob(ord("z"), b"ab"), 4)  # "z" never occurs, yet it is possible
0.0013
>>> round(sum(model.distribution(b"ab")), 9)  # over all 256 ids
1.0
"""

from __future__ import annotations

import math
import numbers
import operator
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import SupportsIndex, cast

from ..compare import units_of

try:  # subtle: NumPy counts and scores in C when it is there (the course's extra brings it); else plain Python
    import numpy as np
except ImportError:  # pragma: no cover - the fallback is tested by hiding NumPy
    np = None  # type: ignore[assignment]

MAX_ORDER = 5
MIN_DISCOUNT = 0.1  # an estimated discount is clamped to [MIN_DISCOUNT, k] (see modified_kn_discounts)


def modified_kn_discounts(count_of_counts: Counter[int] | dict[int, int]) -> tuple[float, float, float]:
    """The discounts D1, D2, D3+ for n-grams seen once, twice and three or more times.

    Chen & Goodman (1998) estimate them from ``n_k``, the number of distinct n-grams seen
    exactly ``k`` times: with ``Y = n1 / (n1 + 2 n2)``, ``D_k = k - (k + 1) Y n_{k+1} / n_k``.

    >>> modified_kn_discounts({1: 10, 2: 5, 3: 3, 4: 2})
    (0.5, 1.1, 1.6666666666666667)

    subtle: on small or lopsided counts the formula can leave ``(0, k]`` (or divide by 0 when no
    n-gram was seen ``k`` times: that ratio counts as 0). Each discount is clamped into
    ``[MIN_DISCOUNT, k]``: at most ``k`` keeps every discounted count >= 0, at least ``MIN_DISCOUNT``
    leaves weight for the lower order, so every probability stays above 0.

    >>> [round(d, 4) for d in modified_kn_discounts({1: 1, 2: 1, 3: 10})]  # D2 would be -8
    [0.3333, 0.1, 3.0]
    >>> modified_kn_discounts({})
    (1.0, 2.0, 3.0)
    """
    n = [count_of_counts.get(k, 0) for k in range(5)]  # n[0] unused
    y = n[1] / (n[1] + 2 * n[2]) if n[1] + n[2] else 0.0
    found = []
    for k in (1, 2, 3):
        ratio = n[k + 1] / n[k] if n[k] else 0.0
        found.append(min(max(k - (k + 1) * y * ratio, MIN_DISCOUNT), float(k)))
    return found[0], found[1], found[2]


class KneserNey:
    """Interpolated Kneser-Ney n-gram model over token ids ``0 .. n_vocab - 1`` (orders 1 to 5).

    Level ``k`` (``1 <= k <= order``) predicts a token from the ``k - 1`` tokens before it:

        p_k(w | h) = (max(c_k(h w) - D_k(c), 0) + B_k(h) p_{k-1}(w | h')) / c_k(h .)

    where ``h'`` is ``h`` without its first token, ``c_k(h .)`` the sum of ``c_k(h w)`` over all
    ``w``, and ``B_k(h)`` the discount mass taken from ``h``'s counts
    (``D1 N1(h) + D2 N2(h) + D3 N3+(h)``, with ``Nj(h)`` the number of tokens seen ``j`` times
    after ``h``). If ``h`` was never seen, ``p_k(w | h) = p_{k-1}(w | h')``. Below level 1 is
    the uniform ``1 / n_vocab``.

    The counts ``c_k`` are the raw counts at the top level only. Lower levels count *continuations*:
    how many different tokens came before ``h w`` (Kneser & Ney's idea: "Francisco" is frequent but
    follows only "San", so as a guess after an unseen context it should be rare).

    ``discounts=None`` estimates D1, D2, D3+ per level (modified Kneser-Ney). A sequence of one
    number per level, lowest first, uses that one discount for every count at that level
    (interpolated Kneser-Ney as nltk's ``KneserNeyInterpolated`` defines it); a discount of 0 at a
    level gives it no weight to pass down, so tokens can then get probability 0.

    Hand-checkable, with discounts 0.5 (``n_vocab=4``; token 3 never occurs). Bigram counts:
    ``01`` twice, ``10`` and ``12`` once. Continuations: 0, 1 and 2 each follow one distinct token.

    >>> m = KneserNey([0, 1, 0, 1, 2], order=2, n_vocab=4, discounts=(0.5, 0.5))
    >>> [round(m.prob(w, []), 6) for w in range(4)]  # (1 - 0.5 + 1.5 / 4) / 3, and (1.5 / 4) / 3
    [0.291667, 0.291667, 0.291667, 0.125]
    >>> round(m.prob(1, [0]), 6)  # (2 - 0.5 + 0.5 * 0.291667) / 2
    0.822917
    >>> round(m.prob(3, [0]), 6)  # (0 + 0.5 * 0.125) / 2
    0.03125
    >>> round(m.bits([0, 1]), 6) == round(-math.log2(m.prob(0, [])) - math.log2(m.prob(1, [0])), 6)
    True
    """

    def __init__(self, ids: Sequence[int], order: int, n_vocab: int,
                 discounts: Sequence[float] | None = None) -> None:
        whole_order, whole_vocab = whole_number(order), whole_number(n_vocab)  # NumPy integers are integers
        if whole_order is None or not 1 <= whole_order <= MAX_ORDER:
            raise ValueError(f"order must be an int from 1 to {MAX_ORDER}, got {order!r}")
        if whole_vocab is None or whole_vocab < 1:
            raise ValueError(f"n_vocab must be a positive int, got {n_vocab!r}")
        order, n_vocab = whole_order, whole_vocab
        if discounts is not None:
            discounts = tuple(discounts)
            if len(discounts) != order or not all(isinstance(d, numbers.Real) and not isinstance(d, bool)
                                                  and 0 <= d <= 1 for d in discounts):
                raise ValueError(f"discounts must be {order} numbers from 0 to 1 (one per level, lowest first), "
                                 f"got {discounts!r}")
        ids = check_ids(ids, n_vocab)
        self._set(order, n_vocab, len(ids), _fit(ids, n_vocab, order, discounts)[order])

    def _set(self, order: int, n_vocab: int, n_tokens: int, levels: list) -> None:
        """``levels``: one per level, lowest first, as :func:`_fit` makes them (dicts, or arrays with NumPy)."""
        self.order, self.n_vocab, self.n_tokens = order, n_vocab, n_tokens
        self.discounts = [level[0] for level in levels]  # (D1, D2, D3+) per level, lowest first
        self._arrays: list[ArrayLevel] | None = None  # the levels in arrays (NumPy), or
        self._levels: list[tuple[dict[int, float], dict[int, tuple[float, float]]]] = []  # in dicts
        if isinstance(levels[0], ArrayLevel):
            self._arrays = levels
        else:
            self._levels = [(num, contexts) for _, num, contexts in levels]
        self._powers = [n_vocab ** j for j in range(order)]
        self._lookups = [(num.get, contexts.get) for num, contexts in self._levels]  # bound once: _probs is hot

    def __repr__(self) -> str:
        if self._arrays is not None:
            grams = sum(int(np.count_nonzero(level.num)) for level in self._arrays)
        else:
            grams = sum(len(num) for num, _ in self._levels)
        return (f"KneserNey(order={self.order}, n_vocab={self.n_vocab:,}, trained on {self.n_tokens:,} tokens, "
                f"{grams:,} n-grams)")

    def prob(self, token: int, context: Sequence[int]) -> float:
        """The probability of ``token`` after ``context`` (only its last ``order - 1`` ids count).

        subtle: one probability at a time is what a forward pass over every segmentation asks for
        (chapter 21), millions of times; NumPy's arrays cost more per call than they save on one
        number, so the first call copies an array model's levels into dicts, and every call walks
        them as the pure-Python model does -- the same probabilities:

        >>> m = KneserNey([0, 1, 0, 1, 2, 0, 2], order=3, n_vocab=4)
        >>> [m.prob(w, [0, 1]) for w in range(4)] == m.distribution([0, 1])
        True
        """
        ids = check_ids([*self._recent(context), token], self.n_vocab)
        if self._arrays is not None and not self._lookups:
            self._levels = _array_dicts(self._arrays, self.n_vocab)
            self._lookups = [(num.get, contexts.get) for num, contexts in self._levels]
        return self._dict_probs(ids, start=len(ids) - 1)[0]

    def contexts(self) -> set[tuple[int, ...]]:
        """Every context the model has counts for, at any level, as ids oldest first (``()`` included).

        A probability depends on the context only through its longest suffix in this set: a history
        the model never saw is scored by the part of it that it did see (chapter 21 keeps one state
        per such suffix when it sums over every segmentation).

        >>> sorted(KneserNey([0, 1, 0, 1, 2], order=3, n_vocab=4).contexts())
        [(), (0,), (0, 1), (1,), (1, 0)]
        """
        v, out = self.n_vocab, set()
        if self._arrays is not None:
            return _array_contexts(self._arrays, v)
        for k, (_, contexts) in enumerate(self._levels):  # level k + 1: contexts of k tokens, one int in base v
            for h in contexts:
                digits = []
                for _ in range(k):
                    h, d = divmod(h, v)
                    digits.append(d)
                out.add(tuple(reversed(digits)))
        return out

    def _recent(self, context: Sequence[int]) -> list[int]:
        """The last ``order - 1`` ids of ``context`` (subtle: ``[-0:]`` would be all of them)."""
        return list(context)[-(self.order - 1):] if self.order > 1 else []

    def distribution(self, context: Sequence[int]) -> list[float]:
        """``[prob(w, context) for w in range(n_vocab)]``, computed level by level."""
        context = check_ids(self._recent(context), self.n_vocab)
        if self._arrays is not None:
            return _array_distribution(self._arrays, context, self.n_vocab).tolist()
        v = self.n_vocab
        p = [1.0 / v] * v
        h = 0
        for k in range(1, len(context) + 2):
            if k > 1:
                h += context[-(k - 1)] * v ** (k - 2)
            num, contexts = self._levels[k - 1]
            if (stats := contexts.get(h)) is not None:
                total, back = stats
                p = [(num.get(h * v + w, 0.0) + back * p[w]) / total for w in range(v)]
        return p

    def token_probs(self, ids: Sequence[int]) -> list[float]:
        """The probability of each token of ``ids`` given the ones before it (the first has no context)."""
        return self._probs(check_ids(ids, self.n_vocab), start=0)

    def bits(self, ids: Sequence[int]) -> float:
        """The bits needed to encode ``ids`` with this model: the sum of ``-log2 p`` over its tokens.

        A token of probability 0 (possible only with a discount of 0 at some level) needs infinitely
        many: the result is ``inf``, as nltk's entropy is.

        >>> KneserNey([0, 1, 0, 1], order=2, n_vocab=3, discounts=(0.5, 0)).bits([0, 2])
        inf
        """
        probs = self.token_probs(ids)
        if 0.0 in probs:
            return math.inf
        return -sum(map(math.log2, probs))

    def _probs(self, ids: list[int], start: int) -> list[float]:
        if self._arrays is not None:
            return _array_probs(self._arrays, ids, start, self.n_vocab).tolist()
        return self._dict_probs(ids, start)

    def _dict_probs(self, ids: list[int], start: int) -> list[float]:
        v, top = self.n_vocab, self.order - 1
        powers, lookups = self._powers, self._lookups
        uniform = 1.0 / v
        out = []
        for i in range(start, len(ids)):
            w = ids[i]
            p, h = uniform, 0
            for k in range(1, (i if i < top else top) + 2):
                if k > 1:
                    h += ids[i - k + 1] * powers[k - 2]  # prepend the next older token: h is ids[i-k+1 : i]
                num_get, context_get = lookups[k - 1]
                stats = context_get(h)
                if stats is not None:
                    p = (num_get(h * v + w, 0.0) + stats[1] * p) / stats[0]
            out.append(p)
        return out


def fit_orders(ids: Sequence[int], orders: Sequence[int], n_vocab: int) -> dict[int, KneserNey]:
    """``{n: KneserNey(ids, n, n_vocab) for n in orders}``, counted once: the models share their lower levels.

    An order-3 and an order-4 model have the same levels 1 and 2 (continuation counts depend only on
    the n-grams one longer), so a chapter comparing orders counts each level once.

    >>> ids = list(b"abracadabra, abracadabra! cadabra")
    >>> models = fit_orders(ids, [2, 3], 256)
    >>> models[3].bits(ids[:8]) == KneserNey(ids, 3, 256).bits(ids[:8])
    True
    """
    given, orders = orders, sorted({-1 if (k := whole_number(n)) is None else k for n in orders})
    if not orders or not all(1 <= n <= MAX_ORDER for n in orders):
        raise ValueError(f"orders must be ints from 1 to {MAX_ORDER}, got {given!r}")
    whole_vocab = whole_number(n_vocab)
    if whole_vocab is None or whole_vocab < 1:
        raise ValueError(f"n_vocab must be a positive int, got {n_vocab!r}")
    n_vocab = whole_vocab
    ids = check_ids(ids, n_vocab)
    levels = _fit(ids, n_vocab, orders[-1], None, orders)
    models = {}
    for n in orders:
        models[n] = model = KneserNey.__new__(KneserNey)
        model._set(n, n_vocab, len(ids), levels[n])
    return models


def bits_per_byte(model: KneserNey, ids: Sequence[int], text: str) -> float:
    """The bits ``model`` needs for the tokens ``ids`` of ``text``, per UTF-8 byte of ``text``.

    >>> model = KneserNey([0, 1] * 50, order=2, n_vocab=2)
    >>> bits_per_byte(model, [0, 1, 0, 1], "abab") < 0.5  # the pattern is learned: under half a bit a byte
    True
    """
    n_bytes = len(text.encode("utf-8"))
    if n_bytes == 0:
        raise ValueError("bits per byte of an empty text is undefined")
    return model.bits(ids) / n_bytes


def bits_by_unit(model: KneserNey, ids: Sequence[int], vocab: Mapping[int, bytes],
                 unit_bytes: Sequence[int]) -> list[tuple[float, float]]:
    """The bits ``model`` spends on the tokens ``ids``, per held-out unit: ``[(bits, bytes), ...]``.

    ``vocab`` gives each token's bytes; ``unit_bytes`` the units' UTF-8 lengths (paragraphs:
    :func:`bpe_course.compare.paragraph_bytes`), adding up to the text's. A token belongs to the unit
    its first byte is in (:func:`bpe_course.compare.units_of`), so the sums over the units are the
    text's totals: ``sum(bits) / sum(bytes)`` is :func:`bits_per_byte`.

    >>> model = KneserNey([0, 1] * 50, order=2, n_vocab=2)
    >>> units = bits_by_unit(model, [0, 1, 0, 1], {0: b"a", 1: b"b"}, [2, 2])
    >>> [n for _, n in units], sum(b for b, _ in units) / 4 == bits_per_byte(model, [0, 1, 0, 1], "abab")
    ([2, 2], True)
    """
    bits = [-math.log2(p) if p > 0 else math.inf for p in model.token_probs(ids)]  # p = 0: as KneserNey.bits
    return units_of(bits, [len(vocab[i]) for i in ids], unit_bytes)


def tokens_by_unit(ids: Sequence[int], vocab: Mapping[int, bytes], unit_bytes: Sequence[int]) -> list[tuple[float, float]]:
    """How many of the tokens ``ids`` start in each held-out unit, with the unit's bytes: ``[(tokens, bytes), ...]``,
    for comparing tokens per byte with the yardstick.

    >>> tokens_by_unit([0, 1, 1], {0: b"ab", 1: b"c"}, [3, 1])
    [(2.0, 3), (1.0, 1)]
    """
    return units_of([1.0] * len(ids), [len(vocab[i]) for i in ids], unit_bytes)


def check_ids(ids: Sequence[int], n_vocab: int) -> list[int]:
    """``ids`` as a list of ints, or a ValueError naming the first position that is not an id below ``n_vocab``.

    Any integer counts, NumPy's too (``np.load`` of ``bpe-course encode -o`` gives an array of ``uint16``):

    >>> import numpy as np
    >>> check_ids(np.array([3, 1], dtype=np.uint16), 5)
    [3, 1]
    >>> check_ids([3, 1, 7], 5)
    Traceback (most recent call last):
    ...
    ValueError: ids[2] = 7 is not a token id from 0 to 4 (n_vocab=5)
    >>> check_ids([3, 1.0], 5)
    Traceback (most recent call last):
    ...
    ValueError: ids[1] = 1.0 (float) is not an integer: token ids are integers from 0 to 4 (n_vocab=5)
    """
    if getattr(getattr(ids, "dtype", None), "kind", None) in ("i", "u") and hasattr(ids, "tolist"):
        ids = ids.tolist()  # subtle: a NumPy array's ints, at C speed
    ids = list(ids)
    if ids and not (set(map(type, ids)) <= {int} and 0 <= min(ids) and max(ids) < n_vocab):
        for i, x in enumerate(ids):
            n = whole_number(x)
            if n is None:
                raise ValueError(f"ids[{i}] = {x!r} ({type(x).__name__}) is not an integer: token ids are integers "
                                 f"from 0 to {n_vocab - 1} (n_vocab={n_vocab})")
            if not 0 <= n < n_vocab:
                raise ValueError(f"ids[{i}] = {n} is not a token id from 0 to {n_vocab - 1} (n_vocab={n_vocab})")
            ids[i] = n
    return ids


def whole_number(value: object) -> int | None:
    """``value`` as an ``int`` if it is an integer (a NumPy one too, never a bool or a float), else ``None``.

    >>> import numpy as np
    >>> whole_number(np.int64(7)), whole_number(True), whole_number(7.0)
    (7, None, None)
    """
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        return None
    return operator.index(cast(SupportsIndex, value))


Level = tuple[tuple[float, float, float], dict[int, float], dict[int, tuple[float, float]]]


def _fit_levels(ids: list[int], v: int, top: int, discounts: Sequence[float] | None,
                orders: Sequence[int] | None = None) -> dict[int, list[Level]]:
    """For each order ``n`` asked for (default: ``top``), its levels, lowest first.

    Level ``k`` of an order-``n`` model counts *continuations* (distinct tokens seen before each
    k-gram) when ``k < n`` and raw k-gram counts when ``k == n``; so models of several orders share
    every level but their top one.

    subtle: an n-gram is one int, its ids as digits in base ``v`` (oldest first), so a context is
    ``key // v``, the token ``key % v`` and the n-gram without its oldest token ``key % v**(k-1)``;
    ints hash and store far more cheaply than tuples.
    """
    raw: list[Counter[int]] = []
    keys = ids
    for k in range(1, top + 1):
        if k > 1:
            keys = [p * v + t for p, t in zip(keys, ids[k - 1:])]
        raw.append(Counter(keys))

    def level(k: int, counts: Counter[int]) -> Level:
        if discounts is None:
            ds = modified_kn_discounts(Counter(c for c in counts.values() if c <= 4))
        else:
            ds = (float(discounts[k - 1]),) * 3
        return (ds, *_discounted(counts, ds, v))

    # level k < n: for each k-gram, one per distinct (k+1)-gram ending with it, i.e. per token seen before it
    continuation = [level(k, Counter(map((v ** k).__rmod__, raw[k]))) for k in range(1, top)]  # g % v**k
    return {n: continuation[:n - 1] + [level(n, raw[n - 1])] for n in (orders or [top])}


def _discounted(counts: Counter[int], ds: tuple[float, float, float], v: int
                ) -> tuple[dict[int, float], dict[int, tuple[float, float]]]:
    """``({n-gram: count - discount}, {context: (total count, discount mass)})`` for one level."""
    d1, d2, d3 = ds
    num: dict[int, float] = {}
    totals: dict[int, int] = {}
    back: dict[int, float] = {}
    for g, c in counts.items():
        d = d3 if c >= 3 else d1 if c == 1 else d2
        if c > d:
            num[g] = c - d
        h = g // v
        if h in totals:  # subtle: plain dicts, not Counters, whose missing keys cost a Python-level call
            totals[h] += c
            back[h] += d
        else:
            totals[h], back[h] = c, d
    return num, {h: (float(totals[h]), back[h]) for h in totals}


def _fit(ids: list[int], v: int, top: int, discounts: Sequence[float] | None,
         orders: Sequence[int] | None = None) -> dict[int, list]:
    """:func:`_fit_levels`, in NumPy when it is there (:func:`_fit_arrays`): the same probabilities."""
    if np is not None and ids:
        return _fit_arrays(ids, v, top, discounts, orders)
    return _fit_levels(ids, v, top, discounts, orders)


# ---- the same model in arrays: counted and scored in C (NumPy) -----------------------------------------
class ArrayLevel(tuple):
    """One level of a model in arrays: ``(discounts, keys, num, total, back)``.

    ``keys`` are the level's k-grams seen in training, sorted, each as one number: the position of its
    first ``k - 1`` ids among the level below's keys times ``n_vocab``, plus its last id (for k = 1
    the id itself); ``num[j]`` is ``max(count - discount, 0)`` of ``keys[j]``. ``total[h]`` and
    ``back[h]`` are the count and the discount mass after the context ``h`` (the position of a
    (k-1)-gram among the level below's keys; a single context at level 1); ``total[h] == 0``: never seen.
    """

    __slots__ = ()

    @property
    def keys(self): return self[1]  # noqa: E704

    @property
    def num(self): return self[2]  # noqa: E704

    @property
    def total(self): return self[3]  # noqa: E704

    @property
    def back(self): return self[4]  # noqa: E704


def _fit_arrays(ids: list[int], v: int, top: int, discounts: Sequence[float] | None,
                orders: Sequence[int] | None = None) -> dict[int, list[ArrayLevel]]:
    """:func:`_fit_levels` in arrays: each distinct k-gram of the training ids is found by sorting once per k.

    subtle: the k-gram at position s is numbered by its place among the sorted distinct k-grams,
    built from the number of its (k-1)-gram prefix and its last id, so keys never grow past
    ``distinct (k-1)-grams * n_vocab`` (base-``v`` numbers of 5 ids would overflow 64 bits).
    """
    t = np.asarray(ids, dtype=np.int64)
    n = len(t)
    tables, places = [], []  # per k: the sorted distinct keys; the place of the k-gram at each position
    for k in range(1, top + 1):
        if n < k:
            tables.append(np.empty(0, np.int64))
            places.append(np.empty(0, np.int64))
            continue
        keys = t if k == 1 else places[-1][:n - k + 1] * v + t[k - 1:]
        table, place = _numbered(keys, v if k == 1 else len(tables[-1]) * v)
        tables.append(table)
        places.append(place)

    def level(k: int, counts) -> ArrayLevel:
        """Level ``k`` (1 to top) from each of its keys' count (0: not counted at this level)."""
        if discounts is None:
            n_c = np.bincount(counts, minlength=5)[:5]
            ds = modified_kn_discounts({c: int(n_c[c]) for c in range(1, 5)})
        else:
            ds = (float(discounts[k - 1]),) * 3
        d = np.choose(np.minimum(counts, 3), (0.0, *ds))
        num = np.where(counts > d, counts - d, 0.0)
        contexts = tables[k - 1] // v if k > 1 else np.zeros(len(counts), np.int64)
        size = len(tables[k - 2]) if k > 1 else 1
        total = np.bincount(contexts, weights=counts, minlength=size)
        back = np.bincount(contexts, weights=d, minlength=size)
        return ArrayLevel((ds, tables[k - 1], num, total, back))

    continuation = []
    for k in range(1, top):  # level k < n: one per distinct (k+1)-gram ending with the k-gram
        suffix = np.zeros(len(tables[k]), np.int64)
        suffix[places[k]] = places[k - 1][1:len(places[k]) + 1]  # the k-gram one position on
        continuation.append(level(k, np.bincount(suffix, minlength=len(tables[k - 1]))))
    raw = {n_: level(n_, np.bincount(places[n_ - 1], minlength=len(tables[n_ - 1]))) for n_ in (orders or [top])}
    return {n_: continuation[:n_ - 1] + [raw[n_]] for n_ in (orders or [top])}


DENSE_KEYS = 1 << 22  # keys below this (and below twice their number) are numbered without sorting


def _numbered(keys, below: int):
    """``np.unique(keys, return_inverse=True)`` for keys from 0 to ``below - 1``.

    subtle: when ``below`` is small (single ids; pairs of bytes) a table of every possible key numbers
    them in two passes, with no sort.
    """
    if below > min(DENSE_KEYS, 2 * len(keys)):
        table, place = np.unique(keys, return_inverse=True)
        return table, place.reshape(-1)
    seen = np.zeros(below, bool)
    seen[keys] = True
    table = np.flatnonzero(seen)
    number = np.cumsum(seen) - 1
    return table, number[keys]


def _lookup(table, keys):
    """The place of each of ``keys`` in the sorted ``table``, -1 where it is not there.

    subtle: the keys are sorted first: ``searchsorted`` then walks the table once instead of starting
    every search afresh (five times faster for a held-out text's quarter million n-grams).
    """
    if len(keys) > 64:
        order = np.argsort(keys)
        at = np.empty(len(keys), np.int64)
        at[order] = np.searchsorted(table, keys[order])
    else:
        at = np.searchsorted(table, keys)
    found = at < len(table)
    found[found] = table[at[found]] == keys[found]
    return np.where(found, at, -1)


def _take(values, places):
    """``values[places]``, 0.0 where a place is -1 (not there)."""
    if not len(values):
        return np.zeros(len(places))
    return np.where(places >= 0, values[np.maximum(places, 0)], 0.0)


def _array_probs(levels: list[ArrayLevel], ids: list[int], start: int, v: int):
    """``_probs`` in arrays: the probability of each of ``ids[start:]`` after the ones before it.

    subtle: the same arithmetic, ``(num + back * p) / total`` from the lowest level up, on whole
    arrays: a level's context never seen leaves ``p`` as it was, as the dicts' missing key does.
    """
    t = np.asarray(ids, dtype=np.int64)
    m, top = len(t), len(levels)
    p = np.full(m - start, 1.0 / v)
    grams: list = []  # grams[k - 1][s]: the place of the k-gram starting at s among level k's keys, -1 if unseen
    for k in range(1, top + 1):
        if m < k:
            break
        keys = t if k == 1 else np.where(grams[-1][:m - k + 1] >= 0, grams[-1][:m - k + 1] * v + t[k - 1:], -1)
        grams.append(np.where(keys >= 0, _lookup(levels[k - 1].keys, keys), -1))
    positions = np.arange(start, m)
    for k, level in enumerate(levels[:len(grams)], start=1):
        at = positions[positions >= k - 1]  # positions with k - 1 ids before them
        if not len(at):
            break
        first = at - k + 1  # where the k-gram ending at each position starts
        if k == 1:
            context = np.zeros(len(at), np.int64)
        else:
            context = grams[k - 2][first]
        gram = grams[k - 1][first]
        total, back, num = _take(level.total, context), _take(level.back, context), _take(level.num, gram)
        seen = total > 0
        q = p[at - start]
        p[at - start] = np.where(seen, (num + back * q) / np.where(seen, total, 1.0), q)
    return p


def _array_grams(levels: list[ArrayLevel], v: int) -> list[list[tuple[int, ...]]]:
    """Each level's keys read back as ids: ``grams[k - 1][j]`` is level k's key j, oldest id first.

    A key of level k is its first k - 1 ids' place among level k-1's keys times ``v``, plus its last
    id, so a gram is read back one level down at a time.
    """
    grams: list[list[tuple[int, ...]]] = []
    for k, level in enumerate(levels, start=1):
        keys = level.keys.tolist()
        grams.append([(key,) for key in keys] if k == 1 else [grams[-1][key // v] + (key % v,) for key in keys])
    return grams


def _array_dicts(levels: list[ArrayLevel], v: int) -> list[tuple[dict[int, float], dict[int, tuple[float, float]]]]:
    """An array model's levels as :func:`_fit_levels` makes them: ``(num, contexts)`` keyed by ids in base ``v``.

    A context ``(c1, ..., cj)`` is ``cj + c(j-1)·v + ...`` (the newest id lowest), and a gram after it
    ``context·v + w``; only grams and contexts seen in training are kept, as there.
    """
    grams = _array_grams(levels, v)

    def base_v(ids: tuple[int, ...]) -> int:
        h = 0
        for power, i in enumerate(reversed(ids)):
            h += i * v ** power
        return h

    out = []
    for k, level in enumerate(levels, start=1):
        below = grams[k - 2] if k > 1 else None
        num, totals, backs = level.num.tolist(), level.total.tolist(), level.back.tolist()
        contexts = {(base_v(below[h]) if below is not None else 0): (float(t), float(backs[h]))
                    for h, t in enumerate(totals) if t > 0}
        nums = {}
        for j, gram in enumerate(grams[k - 1]):
            if num[j]:
                nums[base_v(gram[:-1]) * v + gram[-1]] = num[j]
        out.append((nums, contexts))
    return out


def _array_contexts(levels: list[ArrayLevel], v: int) -> set[tuple[int, ...]]:
    """``contexts`` in arrays: at level k, each (k-1)-gram ``h`` (a place among level k-1's keys) with ``total[h] > 0``."""
    grams = _array_grams(levels, v)
    out: set[tuple[int, ...]] = set()
    for k, level in enumerate(levels, start=1):
        seen = np.flatnonzero(level.total > 0).tolist()
        if k == 1:
            out.update(() for _ in seen[:1])  # the empty context, if anything was counted at all
        else:
            out.update(grams[k - 2][h] for h in seen)
    return out


def _array_distribution(levels: list[ArrayLevel], context: list[int], v: int):
    """``distribution`` in arrays: every id's probability after ``context`` (its last ``order - 1`` ids)."""
    words = np.arange(v, dtype=np.int64)
    p = np.full(v, 1.0 / v)
    for k in range(1, len(context) + 2):
        level = levels[k - 1]
        if k == 1:
            h = 0
        else:  # the place of the context's last k - 1 ids among level k - 1's keys
            h = -1
            for j, token in enumerate(context[len(context) - k + 1:], start=1):
                key = token if j == 1 else h * v + token
                h = int(_lookup(levels[j - 1].keys, np.array([key]))[0]) if (j == 1 or h >= 0) else -1
                if h < 0:
                    break
        if h < 0 or level.total[h] == 0:
            continue
        num = _take(level.num, _lookup(level.keys, words if k == 1 else h * v + words))
        p = (num + level.back[h] * p) / level.total[h]
    return p
