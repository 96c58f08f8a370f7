"""Cheap yardsticks of a tokenizer, and how to ask whether they rank tokenizers as a model does.

Zouhar et al. (ACL 2023) propose the **Rényi efficiency** of the unigram token distribution as a
predictor of a model's quality: the Rényi entropy of order ``alpha`` of the tokens' frequencies,
divided by its largest possible value, ``log |V|``:

    H_alpha(p) = log2(sum_w p(w)^alpha) / (1 - alpha)           (Shannon's entropy when alpha -> 1)
    efficiency = H_alpha(p) / log2(|V|)

With ``alpha > 1`` the very frequent tokens weigh most: a tokenizer that spends much of a text on a
few tokens scores low. They found ``alpha = 2.5`` to correlate best with BLEU in translation.

Whether a yardstick "predicts" is a question about *order*: does it rank tokenizers as bits per
byte does? :func:`spearman` and :func:`kendall_tau` answer with a number from -1 to 1.

>>> round(renyi_efficiency({"a": 50, "b": 50}, n_vocab=2), 6)  # two equally used tokens of two: the most efficient
1.0
>>> renyi_efficiency({"a": 90, "b": 10}, n_vocab=2) < renyi_efficiency({"a": 60, "b": 40}, n_vocab=2)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

ALPHA = 2.5  # Zouhar et al. (2023): the order whose efficiency correlated best with BLEU


def _probs(counts: Mapping[object, int] | Sequence[int]) -> list[float]:
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    if any(c < 0 for c in values):
        raise ValueError("token counts must be >= 0")
    total = sum(values)
    if total <= 0:
        raise ValueError("the entropy of no tokens is undefined: every count is 0")
    return [c / total for c in values if c]


def renyi_entropy(counts: Mapping[object, int] | Sequence[int], alpha: float = ALPHA) -> float:
    """The Rényi entropy of order ``alpha`` (bits) of the distribution the counts give; ``alpha == 1`` is Shannon's.

    >>> renyi_entropy([1, 1, 1, 1])  # four equal tokens: 2 bits for every order
    2.0
    >>> round(renyi_entropy([3, 1], alpha=1), 6)  # Shannon
    0.811278
    """
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    p = _probs(counts)
    if alpha == 1:
        return -sum(x * math.log2(x) for x in p)
    return math.log2(sum(x ** alpha for x in p)) / (1 - alpha)


def renyi_efficiency(counts: Mapping[object, int] | Sequence[int], alpha: float = ALPHA,
                     n_vocab: int | None = None) -> float:
    """:func:`renyi_entropy` divided by ``log2(n_vocab)``; without ``n_vocab``, the tokens that occur.

    Zouhar et al. divide by the vocabulary's size; a tokenizer whose text uses few of its tokens is
    then less efficient. ``tokenization-scorer`` (their package) divides by the tokens that occur
    unless told the vocabulary.
    """
    size = n_vocab if n_vocab is not None else len(_probs(counts))
    if size < 2:
        raise ValueError(f"efficiency needs a vocabulary of at least 2 tokens, got {size}")
    return renyi_entropy(counts, alpha) / math.log2(size)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the mean of their positions.

    >>> ranks([10, 30, 20, 30])
    [1.0, 3.5, 2.0, 3.5]
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return float("nan")  # a constant list ranks nothing
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the ranks (ties averaged); nan for a constant list.

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3, 4], [4, 3, 2, 1])
    (1.0, -1.0)
    """
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"need two lists of the same length >= 2, got {len(x)} and {len(y)}")
    return _pearson(ranks(x), ranks(y))


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b: (concordant - discordant pairs) over the pairs, ties corrected; nan for a constant list.

    >>> kendall_tau([1, 2, 3], [1, 3, 2])  # 2 pairs in order, 1 swapped
    0.3333333333333333
    """
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"need two lists of the same length >= 2, got {len(x)} and {len(y)}")
    concordant = discordant = tied_x = tied_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tied_x += 1
            elif dy == 0:
                tied_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + tied_x) * (concordant + discordant + tied_y))
    return (concordant - discordant) / denominator if denominator else float("nan")
