"""Long pieces in near-linear time: the same parts as :func:`bpe_course.bpe.merge_bytes`, which defines them.

The rule (merge the lowest rank first, leftmost on ties) is in ``bpe_course.bpe``; its loop is
quadratic in a piece's length, quick for words, slow for a 200,000-letter word or a megabyte of one
emoji. Such a piece is first cut into parts that cannot influence each other
(:func:`independent_parts`), and each long part is merged with a heap (:func:`heap_merge_bytes`).
Recovering the merges of a rank file with a very long token uses the same heap, after a quicker
try of one pass per rank (:func:`merge_any_length`). The tests hold every function here to
``merge_bytes``.

>>> ranks = {b"ab": 0, b"bc": 1, b"abc": 2}
>>> list(independent_parts(b"abXab", joinable_pairs(ranks)))
[b'ab', b'X', b'ab']
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from heapq import heapify, heappop, heappush
from itertools import repeat

from ..bpe import NO_MERGE, merge_bytes

MEMO_LIMIT = 50_000  # distinct parts remembered while encoding one long piece
LONG_TOKEN = 256  # merge_any_length hands a token longer than this to pass_merge_bytes / heap_merge_bytes
_SINGLE_BYTES = [bytes([b]) for b in range(256)]


def encode_long_piece(piece: bytes, ranks: dict[bytes, int], id_of: dict[bytes, int], joinable: bytes,
                      encode_short: Callable[[bytes], list[int]], short: int) -> list[int]:
    """The ids of a long piece: its independent parts, each merged on its own (repeats looked up).

    Parts of at most ``short`` bytes go to ``encode_short``, longer ones to :func:`heap_merge_bytes`.
    """
    ids: list[int] = []
    done: dict[bytes, list[int]] = {}
    for part in independent_parts(piece, joinable):
        part_ids = done.get(part)
        if part_ids is None:
            part_ids = encode_short(part) if len(part) <= short else [id_of[p] for p in heap_merge_bytes(part, ranks)]
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


def heap_merge_bytes(piece: bytes, ranks: dict[bytes, int], limit: int = NO_MERGE) -> list[bytes]:
    """The parts :func:`~bpe_course.bpe.merge_bytes` leaves, in O(n log n) rather than O(n^2): for long pieces.

    The parts are a linked list named by their start offsets; ``pair_rank[s]`` is the rank of the
    pair that starts at ``s``, and each pair that is a merge below ``limit`` waits in a heap as the
    one number ``rank * n + s``: the smallest is the lowest rank, leftmost on ties, exactly
    :func:`~bpe_course.bpe.merge_bytes`'s choice.

    subtle: a merge leaves stale numbers in the heap (pairs that no longer exist); one is skipped
    when popped because its rank is no longer ``pair_rank[s]`` -- the pairs that start at ``s``
    grow longer each time they change, so they are different tokens with different ranks.

    >>> heap_merge_bytes(b"aaaa", {b"aa": 0, b"aaaa": 1})
    [b'aaaa']
    >>> heap_merge_bytes(b"aaaa", {b"aa": 0, b"aaaa": 1}, limit=1)
    [b'aa', b'aa']
    """
    n = len(piece)
    get = ranks.get
    end = list(range(1, n + 1))  # end[s]: where the part starting at s ends, while s starts a part
    start_before = list(range(-1, n - 1))  # start_before[s]: the start of the part before it
    pair_rank = [r if (r := get(piece[s:s + 2], NO_MERGE)) < limit else NO_MERGE for s in range(n - 1)]
    pair_rank.append(NO_MERGE)  # the last byte starts no pair
    heap = [r * n + s for s, r in enumerate(pair_rank) if r < NO_MERGE]
    heapify(heap)
    while heap:
        r, s = divmod(heappop(heap), n)
        if pair_rank[s] != r:
            continue  # stale
        m = end[s]
        e = end[s] = end[m]
        pair_rank[m] = NO_MERGE  # m starts no part any more
        r = NO_MERGE
        if e < n:
            start_before[e] = s
            if (r := get(piece[s:end[e]], NO_MERGE)) < limit:
                heappush(heap, r * n + s)
            else:
                r = NO_MERGE
        pair_rank[s] = r
        if (p := start_before[s]) >= 0:
            if (r := get(piece[p:e], NO_MERGE)) < limit:
                heappush(heap, r * n + p)
            else:
                r = NO_MERGE
            pair_rank[p] = r
    parts, s = [], 0
    while s < n:
        parts.append(piece[s:end[s]])
        s = end[s]
    return parts


def pass_merge_bytes(piece: bytes, ranks: dict[bytes, int], limit: int = NO_MERGE,
                     max_passes: int = 64) -> list[bytes] | None:
    """The parts :func:`~bpe_course.bpe.merge_bytes` leaves, one pass per rank; ``None`` when that would not be the same.

    Each pass merges every occurrence of the lowest-ranked pair, left to right, as the loop does
    as long as no merge makes a new pair of a rank as low as that one: then the loop would take
    the new pair first, and this gives up (``None``), as it does after ``max_passes`` passes. A
    long token of one letter (``a`` * 10,000) takes one pass per distinct part length.

    >>> pass_merge_bytes(b"aaaaa", {b"aa": 0, b"aaaa": 1})
    [b'aaaa', b'a']
    >>> pass_merge_bytes(b"abc", {b"bc": 0, b"abc": 1, b"ab": 2}) is None  # bc, then abc at once
    False
    """
    get = ranks.get
    parts = list(map(_SINGLE_BYTES.__getitem__, piece))
    for _ in range(max_passes):
        pair_ranks = list(map(get, map(operator.add, parts, parts[1:]), repeat(NO_MERGE)))
        best = min(pair_ranks, default=NO_MERGE)
        if best >= limit:
            return parts
        merged: list[bytes] = []
        copied = 0  # parts[:copied] are in merged
        k = pair_ranks.index(best)
        while True:
            merged.extend(parts[copied:k])
            new = parts[k] + parts[k + 1]
            if ((merged and get(merged[-1] + new, NO_MERGE) <= best)
                    or (k + 2 < len(parts) and get(new + parts[k + 2], NO_MERGE) <= best)):
                return None  # the loop would merge this new pair next
            merged.append(new)
            copied = k + 2  # subtle: an occurrence at k + 1 shared parts[k + 1], and is gone
            try:
                k = pair_ranks.index(best, copied)
            except ValueError:
                break
        merged.extend(parts[copied:])
        parts = merged
    return None


def merge_any_length(piece: bytes, ranks: dict[bytes, int], limit: int = NO_MERGE) -> list[bytes]:
    """:func:`~bpe_course.bpe.merge_bytes`'s parts for a piece of any length: the plain loop up to
    ``LONG_TOKEN`` bytes, one pass per rank or the heap beyond (what a file reader hands to
    :func:`~bpe_course.bpe.merges_from_ranks`).

    >>> merge_any_length(b"a" * 1000, {b"aa": 0, b"aaaa": 1}, 1)[:2]
    [b'aa', b'aa']
    """
    if len(piece) <= LONG_TOKEN:
        return merge_bytes(piece, ranks, limit)
    return pass_merge_bytes(piece, ranks, limit) or heap_merge_bytes(piece, ranks, limit)
