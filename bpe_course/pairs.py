"""The pure helpers of pair counting and merging, on words as tuples of symbols (str or bytes).

Chapter 2 builds each of them by hand; :mod:`bpe_course.algorithms.wordbpe` and the naive byte-level
trainer use these canonical versions. The tie rule of training lives here too: the highest count wins,
and among equal counts the greatest pair (:func:`best_pair`; :func:`descending_key` is the same order
as a sort key, for the fast trainer's heap and the variants of chapter 17).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypeVar

EOW = "</w>"

Word = tuple[str, ...]
Pair = tuple[str, str]
Symbol = TypeVar("Symbol", str, bytes)  # the helpers take words of characters (chapter 2) or of bytes (the trainers)


def word_counts(text: str) -> dict[Word, int]:
    """Split ``text`` on whitespace; count each word as its characters plus ``</w>``.

    >>> word_counts("low low  lower")
    {('l', 'o', 'w', '</w>'): 2, ('l', 'o', 'w', 'e', 'r', '</w>'): 1}
    """
    return {(*word, EOW): n for word, n in Counter(text.split()).items()}


def count_pairs(words: Mapping[tuple[Symbol, ...], int]) -> Counter[tuple[Symbol, Symbol]]:
    """Count adjacent symbol pairs, each word weighted by its frequency.

    >>> count_pairs({("l", "o", "w", "</w>"): 2, ("o", "w", "</w>"): 1})
    Counter({('o', 'w'): 3, ('w', '</w>'): 3, ('l', 'o'): 2})
    >>> count_pairs({("a", "a", "a"): 1})  # subtle: overlapping occurrences both count
    Counter({('a', 'a'): 2})
    """
    counts: Counter[tuple[Symbol, Symbol]] = Counter()
    for word, freq in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts


def merge_pair(symbols: Sequence[Symbol], pair: tuple[Symbol, Symbol]) -> tuple[Symbol, ...]:
    """Join every occurrence of ``pair`` into one symbol, scanning left to right.

    >>> merge_pair(("l", "o", "w", "</w>"), ("o", "w"))
    ('l', 'ow', '</w>')
    >>> merge_pair(("a", "a", "a"), ("a", "a"))  # non-overlapping: the scan resumes after "aa"
    ('aa', 'a')
    """
    a, b = pair
    out: list[Symbol] = []
    for symbol in symbols:
        # subtle: a joined a+b is never equal to a, so "aaa" gives ("aa", "a") and not ("aa", "aa")
        if out and out[-1] == a and symbol == b:
            out[-1] = a + b
        else:
            out.append(symbol)
    return tuple(out)


def apply_merge(words: Mapping[tuple[Symbol, ...], int], pair: tuple[Symbol, Symbol]) -> dict[tuple[Symbol, ...], int]:
    """Apply ``merge_pair`` to every word; frequencies are unchanged.

    >>> apply_merge({("l", "o", "w", "</w>"): 5, ("n", "e", "w", "</w>"): 2}, ("w", "</w>"))
    {('l', 'o', 'w</w>'): 5, ('n', 'e', 'w</w>'): 2}
    """
    # Merging never changes the text a word spells, so two words never collide into one key.
    return {merge_pair(word, pair): freq for word, freq in words.items()}


def best_pair(counts: Mapping[tuple[Symbol, Symbol], int]) -> tuple[Symbol, Symbol]:
    """The pair to merge next: the highest count; ties go to the lexicographically greatest pair.

    >>> best_pair({("a", "b"): 3, ("x", "y"): 3, ("z", "z"): 1})
    ('x', 'y')
    """
    return max(counts, key=lambda p: (counts[p], p))


def top_pairs(counts: Mapping[tuple[Symbol, Symbol], int], n: int = 10) -> list[tuple[tuple[Symbol, Symbol], int]]:
    """The ``n`` best pairs with their counts, best first, in the order ``best_pair`` uses.

    >>> top_pairs({("a", "b"): 3, ("x", "y"): 3, ("z", "z"): 1}, n=2)
    [(('x', 'y'), 3), (('a', 'b'), 3)]
    """
    return heapq.nlargest(n, counts.items(), key=lambda item: (item[1], item[0]))


def descending_key(token: bytes) -> str:
    """The tie rule as a sort key: byte strings in *descending* order, so a min-heap pops the greatest.

    Byte ``c`` becomes the character ``chr(256 - c)``, and a terminator ``chr(257)`` ends the key.
    subtle: a prefix must sort after its extensions (b"ab" > b"a"), hence a terminator greater than
    every byte's character. The key of a pair is the keys of its two tokens, one after the other:
    the first terminator keeps the first tokens apart, so pairs sort as ``(a, b)`` tuples would.

    >>> sorted([b"a", b"ab", b"b"], key=descending_key)
    [b'b', b'ab', b'a']
    >>> pairs = [(b"a", b"b"), (b"ab", b"a"), (b"a", b"bc")]
    >>> sorted(pairs, key=lambda p: descending_key(p[0]) + descending_key(p[1])) == sorted(pairs, reverse=True)
    True
    """
    return token.decode("latin-1").translate(_DESCENDING) + _TERMINATOR


_DESCENDING = {c: 256 - c for c in range(256)}
_TERMINATOR = chr(257)
