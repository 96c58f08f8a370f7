"""BPE's rule, the one a learner comes to read: inside a piece of text, merge the pair of lowest rank first.

A tokenizer's merges are a list in creation order, and merge ``k`` has rank ``k``. To encode a
piece (one pre-token), start from its single symbols and repeatedly merge the adjacent pair of
lowest rank, the leftmost one on ties, until no adjacent pair is a merge. That is the whole
rule, GPT-2's, tiktoken's and this package's (:func:`merge_by_rank`).

tiktoken ranks a pair by the token its two parts concatenate to, so a tokenizer needs to know,
for each token, which merge first made it (:func:`first_merge_ranks`):

>>> merges = [(b"l", b"o"), (b"lo", b"w"), (b"e", b"r")]
>>> ranks = first_merge_ranks(merges)
>>> ranks
{b'lo': 0, b'low': 1, b'er': 2}
>>> merge_by_rank([b"l", b"o", b"w", b"e", b"r"], byte_ranker(ranks))
[b'low', b'er']

The encoder runs the same loop written out for bytes (:func:`merge_bytes`), and the same loop,
allowed only the ranks below a token's own, tells which two parts made it: how the merge list of
a rank-only vocabulary (a ``.tiktoken`` file) is recovered (:func:`merges_from_ranks`):

>>> merge_bytes(b"lower", ranks)
[b'low', b'er']
>>> merges_from_ranks({bytes([b]): b for b in range(256)} | {b"lo": 256, b"low": 257, b"er": 258})
[(b'l', b'o'), (b'lo', b'w'), (b'e', b'r')]

That is all of BPE's rule. Speed-ups whose results these functions define (long pieces in
near-linear time) are in :mod:`bpe_course.fast.piece`, and the tests hold them to :func:`merge_bytes`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from itertools import repeat, starmap
from typing import TypeVar

Symbol = TypeVar("Symbol", str, bytes)

NO_MERGE = 1 << 62  # the rank of a pair that is no merge, above every real rank (see merge_bytes)
_SINGLE_BYTES = [bytes([b]) for b in range(256)]


def first_merge_ranks(merges: Sequence[tuple[Symbol, Symbol]]) -> dict[Symbol, int]:
    """Which merge first made each token: ``{left + right: rank}``, in creation order.

    subtle: a merge list may make the same token twice (two different pairs can concatenate to
    the same bytes). Only the first ever fires: once it has made the token, nothing is left for
    the second to make, so the token's rank is the first one's.

    >>> first_merge_ranks([("a", "b"), ("ab", "c"), ("a", "b")])
    {'ab': 0, 'abc': 1}
    """
    made = list(starmap(operator.add, merges))
    ranks = dict(zip(made, range(len(made))))
    if len(ranks) < len(made):  # a token made twice: the loop keeps the first rank
        ranks = {}
        for rank, token in enumerate(made):
            ranks.setdefault(token, rank)
    return ranks


def merge_by_rank(parts: list[Symbol], rank_of: Callable[[Symbol, Symbol], float],
                  limit: float = math.inf) -> list[Symbol]:
    """Merge the adjacent pair of lowest rank, leftmost on ties, until no pair ranks below ``limit``.

    ``rank_of(a, b)`` is the pair's rank, ``math.inf`` when it is no merge. tiktoken ranks a pair
    by the token ``a + b`` makes (:func:`byte_ranker`); GPT-2's original code and
    :class:`bpe_course.algorithms.wordbpe.WordBPE` by the pair itself. Both are this loop.

    >>> pair_rank = {("a", "b"): 0, ("a", "ab"): 1}
    >>> merge_by_rank(["a", "a", "b"], lambda x, y: pair_rank.get((x, y), math.inf))
    ['aab']
    """
    parts = list(parts)
    pair_ranks = [rank_of(parts[i], parts[i + 1]) for i in range(len(parts) - 1)]
    while pair_ranks:
        best = min(pair_ranks)
        if best >= limit:
            break
        i = pair_ranks.index(best)  # leftmost of equal ranks, as tiktoken
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = rank_of(parts[i - 1], parts[i])
        if i < len(pair_ranks):
            pair_ranks[i] = rank_of(parts[i], parts[i + 1])
    return parts


def byte_ranker(ranks: dict[bytes, int]) -> Callable[[bytes, bytes], float]:
    """``rank_of`` for tiktoken's rule: a pair ranks as the token its bytes concatenate to."""
    get, inf = ranks.get, math.inf
    return lambda a, b: get(a + b, inf)


def merge_bytes(piece: bytes, ranks: dict[bytes, int], limit: int = NO_MERGE) -> list[bytes]:
    """The parts BPE leaves of ``piece``: :func:`merge_by_rank` with :func:`byte_ranker`, written out for speed.

    Every byte-level caller uses it: the encoder, a truncated tokenizer (merges of rank below
    ``limit`` only) and :func:`merges_from_ranks`.

    subtle: this is the encoder's inner loop, run for every piece it has not seen yet, so it calls
    nothing written in Python (not even a ranking function), and its ranks are all ints: a pair
    that is no merge ranks ``NO_MERGE``, not ``math.inf``, which ``min`` compares more slowly.

    >>> merge_bytes(b"lower", {b"lo": 0, b"low": 1, b"er": 2})
    [b'low', b'er']
    >>> merge_bytes(b"lower", {b"lo": 0, b"low": 1, b"er": 2}, limit=1)
    [b'lo', b'w', b'e', b'r']
    """
    get = ranks.get
    parts = list(map(_SINGLE_BYTES.__getitem__, piece))
    pair_ranks = list(map(get, map(operator.add, parts, parts[1:]), repeat(NO_MERGE)))  # of parts k and k + 1
    best = min(pair_ranks, default=NO_MERGE)
    while best < limit:
        k = pair_ranks.index(best)  # leftmost of equal ranks, as tiktoken
        merged = parts[k] = parts[k] + parts.pop(k + 1)
        del pair_ranks[k]
        if k:
            pair_ranks[k - 1] = get(parts[k - 1] + merged, NO_MERGE)
        if k < len(pair_ranks):
            pair_ranks[k] = get(merged + parts[k + 1], NO_MERGE)
        elif not k:
            break  # one part left
        best = min(pair_ranks)
    return parts


def merges_from_ranks(ranks: dict[bytes, int],
                      merge: Callable[[bytes, dict[bytes, int], int], list[bytes]] = merge_bytes
                      ) -> list[tuple[bytes, bytes]]:
    """Recover the merge list from a rank-only vocabulary (a ``.tiktoken`` file).

    A token of rank r was made by the merge that BPE, allowed only ranks below r, leaves as the
    last two parts of the token's own bytes. ``merge(token, ranks, limit)`` is that BPE:
    :func:`merge_bytes` unless the caller brings a faster one that leaves the same parts.

    subtle: a token may be long (a tokenizer trained on 10,000 copies of one letter has a
    10,000-byte token), and :func:`merge_bytes` is quadratic in a token's length; a file reader
    passes ``bpe_course.fast.piece.merge_any_length``, which takes long tokens in near-linear time.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> merges_from_ranks(ranks)
    [(b'a', b'b'), (b'ab', b'c')]

    subtle: a vocabulary need not come from BPE alone. Llama 3 adds 27,744 tokens to cl100k's, and
    BPE over lower ranks leaves 678 of them in three parts or more (``.:.:`` stops at ``.``, ``:.``,
    ``:``). tiktoken still produces them: a piece that is a token is that token, and a pair ranks
    as the token its two parts join into, however those parts were made. So such a token gets the
    merge of a split of its bytes into two tokens of lower rank (:func:`two_part_split`); with the
    merges in rank order, encoding ranks each pair by the token it makes, as tiktoken does, and
    which split was taken changes no id. A token with no such split is refused.

    >>> merges_from_ranks({b".": 0, b":": 1, b":.": 2, b".:": 3, b".:.:": 4})
    [(b':', b'.'), (b'.', b':'), (b'.:', b'.:')]
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue
        parts = merge(token, ranks, rank)
        if len(parts) != 2:
            split = two_part_split(token, ranks, rank)
            if split is None:
                raise ValueError(f"token {token!r} (rank {rank}) cannot be built from two lower-ranked tokens: "
                                 f"BPE over lower ranks leaves {len(parts)} parts, and no split of its bytes is "
                                 "two tokens of lower rank")
            parts = list(split)
        merges.append((parts[0], parts[1]))
    return merges


def two_part_split(token: bytes, ranks: dict[bytes, int], rank: int) -> tuple[bytes, bytes] | None:
    """A split of ``token`` into two tokens whose ranks are both below ``rank``, or None.

    Where there are several, the one whose newer part is oldest (the lower of the two parts'
    higher ranks), then the one with the shorter left part: a rule of this package's, since any
    split gives the same ids.

    >>> two_part_split(b".:.:", {b".": 0, b":": 1, b":.": 2, b".:": 3}, 4)
    (b'.:', b'.:')
    >>> two_part_split(b"abc", {b"a": 0, b"b": 1, b"c": 2}, 3) is None
    True
    """
    best: tuple[int, int] | None = None
    for k in range(1, len(token)):
        left, right = ranks.get(token[:k], rank), ranks.get(token[k:], rank)
        if left < rank and right < rank and (best is None or (max(left, right), k) < best):
            best = (max(left, right), k)
    return None if best is None else (token[:best[1]], token[best[1]:])
