"""Long pieces in near-linear time: the same parts as :func:`bpe_course.bpe.merge_bytes`, which defines them.

The rule (merge the lowest rank first, leftmost on ties) is in ``bpe_course.bpe``; its loop is
quadratic in a piece's length, quick for words, slow for a 200,000-letter word or a megabyte of one
emoji. Such a piece is first cut into parts that cannot influence each other
(:func:`independent_parts`), and each long part is merged with a heap
(:func:`bpe_course.bpe.heap_merge_bytes`, where the rule lives too). The tests hold both against
``merge_bytes``.

>>> ranks = {b"ab": 0, b"bc": 1, b"abc": 2}
>>> list(independent_parts(b"abXab", joinable_pairs(ranks)))
[b'ab', b'X', b'ab']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..bpe import heap_merge_bytes

MEMO_LIMIT = 50_000  # distinct parts remembered while encoding one long piece


def encode_long_piece(piece: bytes, ranks: dict[bytes, int], id_of: dict[bytes, int], joinable: bytes,
                      encode_short: Callable[[bytes], list[int]], short: int) -> list[int]:
    """The ids of a long piece: its independent parts, each merged on its own (repeats looked up).

    Parts of at most ``short`` bytes go to ``encode_short``, longer ones to
    :func:`bpe_course.bpe.heap_merge_bytes`.
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
