"""BPE inside one pre-token: merge the lowest rank first, fast for short pieces and near-linear for long ones.

The rule, tiktoken's and GPT-2's: repeatedly merge the adjacent pair of lowest rank, leftmost
first. :func:`merge_by_rank` is that rule, written once, for any symbols (bytes or str) and any
way of ranking a pair; it is quadratic but quick for words. With a rank limit it also recovers
the merges of a rank-only vocabulary (:func:`merges_from_ranks`). The encoder runs the same loop
written out for bytes ranked as tiktoken ranks them (:func:`merge_bytes`). A long piece (a 200,000-letter
word, a megabyte of one emoji) is first cut into parts that cannot influence each other
(:func:`independent_parts`), and each long part is merged with a heap (:func:`heap_merge`).

>>> merge_by_rank([b"l", b"o", b"w", b"e", b"r"], byte_ranker({b"lo": 0, b"low": 1, b"er": 2}))
[b'low', b'er']

>>> ranks = {b"ab": 0, b"bc": 1, b"abc": 2}
>>> heap_merge(b"abcab", ranks)
[b'abc', b'ab']
>>> list(independent_parts(b"abXab", joinable_pairs(ranks)))
[b'ab', b'X', b'ab']
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Iterator
from heapq import heapify, heappop, heappush
from itertools import repeat
from typing import TypeVar

Symbol = TypeVar("Symbol", str, bytes)

MEMO_LIMIT = 50_000  # distinct parts remembered while encoding one long piece
NO_MERGE = 1 << 62  # the rank of a pair that is no merge, above every real rank (see merge_bytes)
_SINGLE_BYTES = [bytes([b]) for b in range(256)]


def merge_by_rank(parts: list[Symbol], rank_of: Callable[[Symbol, Symbol], float],
                  limit: float = math.inf) -> list[Symbol]:
    """Merge the adjacent pair of lowest rank, leftmost on ties, until no pair ranks below ``limit``.

    ``rank_of(a, b)`` is the pair's rank, ``math.inf`` when it is no merge. tiktoken ranks a pair
    by the token ``a + b`` makes; GPT-2's original code and :class:`bpe_course.wordbpe.WordBPE` by
    the pair itself. Both are this loop.

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


def byte_ranker(ranks: dict[bytes, int]) -> Callable[[bytes, bytes], float]:
    """``rank_of`` for tiktoken's rule: a pair ranks as the token its bytes concatenate to."""
    get, inf = ranks.get, math.inf
    return lambda a, b: get(a + b, inf)


def merges_from_ranks(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Recover the merge list from a rank-only vocabulary (a ``.tiktoken`` file).

    A token of rank r was made by the merge that BPE, allowed only ranks below r, leaves as the
    last two parts of the token's own bytes.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> merges_from_ranks(ranks)
    [(b'a', b'b'), (b'ab', b'c')]
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue
        parts = merge_bytes(token, ranks, limit=rank)
        if len(parts) != 2:
            raise ValueError(f"token {token!r} (rank {rank}) cannot be built from two lower-ranked tokens; "
                             f"BPE over lower ranks leaves {len(parts)} parts")
        merges.append((parts[0], parts[1]))
    return merges


def encode_long_piece(piece: bytes, ranks: dict[bytes, int], id_of: dict[bytes, int], joinable: bytes,
                      encode_short: Callable[[bytes], list[int]], short: int) -> list[int]:
    """The ids of a long piece: its independent parts, each merged on its own (repeats looked up).

    Parts of at most ``short`` bytes go to ``encode_short``, longer ones to :func:`heap_merge`.
    """
    ids: list[int] = []
    done: dict[bytes, list[int]] = {}
    for part in independent_parts(piece, joinable):
        part_ids = done.get(part)
        if part_ids is None:
            part_ids = encode_short(part) if len(part) <= short else [id_of[p] for p in heap_merge(part, ranks)]
            if len(done) < MEMO_LIMIT:
                done[part] = part_ids
        ids.extend(part_ids)
    return ids


def joinable_pairs(tokens: Iterable[bytes]) -> bytes:
    """A 65,536-entry table: ``table[x << 8 | y]`` is 1 when bytes x, y stand side by side in some token."""
    table = bytearray(1 << 16)
    for token in tokens:
        for k in range(len(token) - 1):
            table[token[k] << 8 | token[k + 1]] = 1
    return bytes(table)


def independent_parts(piece: bytes, joinable: bytes) -> Iterator[bytes]:
    """Cut ``piece`` between every two neighbouring bytes that no token has side by side.

    subtle: every part BPE ever makes is a token, so no part can span such a place, and no
    candidate pair across it has a rank. Each side then merges exactly as it would alone.
    """
    start = 0
    for i, (x, y) in enumerate(zip(piece, memoryview(piece)[1:]), 1):
        if not joinable[x << 8 | y]:
            yield piece[start:i]
            start = i
    yield piece[start:]


def heap_merge(piece: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """The parts BPE leaves of ``piece``, using a heap over a linked list: O(n log n), not O(n^2)."""
    n = len(piece)
    nxt = list(range(1, n + 1))  # parts are named by their start offset; nxt[s] is where part s ends
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap = [(r, i, i + 1, i + 2) for i in range(n - 1) if (r := ranks.get(piece[i:i + 2])) is not None]
    heapify(heap)
    while heap:
        _, s, m, e = heappop(heap)
        if not alive[s] or nxt[s] != m or nxt[m] != e:
            continue  # stale: one of the two parts has merged since this entry was pushed
        alive[m] = False
        nxt[s] = e
        if e < n:
            prv[e] = s
            r = ranks.get(piece[s:nxt[e]])
            if r is not None:
                heappush(heap, (r, s, e, nxt[e]))
        p = prv[s]
        if p >= 0:
            r = ranks.get(piece[p:e])
            if r is not None:
                heappush(heap, (r, p, s, e))
    out, s = [], 0
    while s < n:
        out.append(piece[s:nxt[s]])
        s = nxt[s]
    return out
