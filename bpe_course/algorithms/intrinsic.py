"""Cheap yardsticks of a tokenizer, and how to ask whether they rank tokenizers as a model does.

Zouhar et al. (ACL 2023) propose the **Rényi efficiency** of the unigram token distribution as a
predictor of a model's quality: the Rényi entropy of order ``alpha`` of the tokens' frequencies,
divided by its largest possible value, ``log |V|``:

    H_alpha(p) = log2(sum_w p(w)^alpha) / (1 - alpha)           (Shannon's entropy when alpha -> 1)
    efficiency = H_alpha(p) / log2(|V|)

With ``alpha > 1`` the very frequent tokens weigh most: a tokenizer that spends much of a text on a
few tokens scores low. They found ``alpha = 2.5`` to correlate best with BLEU in translation.

Whether a yardstick "predicts" is a question about *order*: does it rank tokenizers as bits per
byte does? Spearman's rank correlation answers with a number from -1 to 1, and
:func:`bpe_course.compare.bootstrap` gives it an interval (chapter 21).

>>> round(renyi_efficiency({"a": 50, "b": 50}, n_vocab=2), 6)  # two equally used tokens of two: the most efficient
1.0
>>> renyi_efficiency({"a": 90, "b": 10}, n_vocab=2) < renyi_efficiency({"a": 60, "b": 40}, n_vocab=2)
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

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


def efficiency_of_units(units: Sequence[Sequence[int]], n_vocab: int, alpha: float = ALPHA
                        ) -> Callable[[Sequence[int]], float]:
    """``statistic(indices)``: the Rényi efficiency of the tokens of the held-out units ``indices`` (repeats counted).

    ``units`` holds each unit's token ids (a paragraph's tokens). The statistic pools the drawn
    units' counts and computes :func:`renyi_efficiency` of them, fast enough for the thousands of
    resamples of :func:`bpe_course.compare.bootstrap`; ``statistic(range(len(units)))`` is the
    efficiency of the whole text.

    >>> stat = efficiency_of_units([[1, 1, 2], [3], [1, 3]], n_vocab=4)
    >>> stat([0, 1, 2]) == renyi_efficiency([3, 1, 2], n_vocab=4), stat([1, 1]) == 0.0
    (True, True)
    """
    if not units:
        raise ValueError("efficiency_of_units needs at least one unit of tokens")
    if n_vocab < 2:
        raise ValueError(f"efficiency needs a vocabulary of at least 2 tokens, got {n_vocab}")
    if not alpha >= 0 or alpha == 1:
        raise ValueError(f"alpha must be >= 0 and not 1 here (Shannon's entropy: renyi_entropy), got {alpha!r}")
    columns: dict[int, int] = {}
    unit_of, column, count = [], [], []
    for u, ids in enumerate(units):
        for token, n in Counter(ids).items():
            unit_of.append(u)
            column.append(columns.setdefault(token, len(columns)))
            count.append(n)
    unit_arr, column_arr, count_arr = np.array(unit_of), np.array(column), np.array(count, dtype=float)
    scale = math.log2(n_vocab) * (1 - alpha)

    def statistic(indices: Sequence[int]) -> float:
        drawn = np.bincount(np.asarray(indices, dtype=np.int64), minlength=len(units)).astype(float)
        counts = np.bincount(column_arr, weights=count_arr * drawn[unit_arr], minlength=len(columns))
        total = counts.sum()
        if total <= 0:
            raise ValueError("the units drawn hold no token: the efficiency of no tokens is undefined")
        return float(math.log2(np.sum((counts[counts > 0] / total) ** alpha)) / scale)

    return statistic
