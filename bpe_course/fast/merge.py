"""The fast BPE learner behind ``train_bpe(..., method="fast")``: same merges as the naive one.

It counts the pairs once, then after each merge updates only the words that contain the merged
pair (found through an index ``where[pair]``) and finds the next best pair with a heap.

Tuned for CPython:

* a word is a ``str`` in which token id ``k`` is the character ``chr(k)``. A pair is then the
  two-character string of its ids, so finding it is ``str.find`` and merging it everywhere in a
  word is one ``str.replace`` -- which scans left to right without overlaps, exactly BPE's rule;
* the counts of pairs that contain the new token are gathered in a small dict of their own and
  pushed on the heap once per merge, not once per word;
* ``where[pair]`` is a list, not a set: a word may be listed twice or no longer hold the pair
  (both cost one ``str.find``), which is cheaper than keeping the index exact.

One character per token id caps a vocabulary at 1,114,112 tokens (``MAX_TOKENS``).

>>> learn_fast({b"low": 3, b"lower": 1, b"lowest": 1}, 3)
([(b'o', b'w'), (b'l', b'ow'), (b'low', b'e')], [5, 5, 2], 1)
"""

from __future__ import annotations

import heapq
from collections import defaultdict

Merges = list[tuple[bytes, bytes]]
MAX_TOKENS = 0x110000  # one character per token id


def descending_key(token: bytes) -> tuple[int, ...]:
    """A key that sorts byte strings in *descending* order: a min-heap then pops the greatest.

    subtle: a prefix must sort after its extensions (b"ab" > b"a"), hence the 256 terminator.

    >>> sorted([b"a", b"ab", b"b"], key=descending_key)
    [b'b', b'ab', b'a']
    """
    return tuple(255 - c for c in token) + (256,)


def learn_fast(word_counts: dict[bytes, int], n_merges: int, progress=None,
               min_frequency: int = 1) -> tuple[Merges, list[int], int]:
    """Up to ``n_merges`` merges learned from ``{word bytes: count}``; ``progress`` is an optional bar.

    Returns the merges, how often each merged pair occurred, and the count of the best pair left
    unmerged (0 when none is left). Pairs seen fewer than ``min_frequency`` times are never merged.
    """
    n_merges = min(n_merges, MAX_TOKENS - 256)
    tokens = [bytes([i]) for i in range(256)]
    keys = [descending_key(t) for t in tokens]
    words = [w.decode("latin-1") for w in word_counts]  # byte b is the character chr(b): token id b
    freqs = list(word_counts.values())
    pair_counts, where = _count_pairs(words, freqs)
    heap = [(-c, keys[ord(p[0])], keys[ord(p[1])], p) for p, c in pair_counts.items()]
    heapq.heapify(heap)
    merges: Merges = []
    counts: list[int] = []
    while True:
        best = _pop_best(heap, pair_counts)
        if best is None:
            return merges, counts, 0
        if len(merges) == n_merges or pair_counts[best] < min_frequency:
            return merges, counts, pair_counts[best]
        counts.append(pair_counts[best])
        a, b = tokens[ord(best[0])], tokens[ord(best[1])]
        tokens.append(a + b)
        keys.append(descending_key(a + b))
        merges.append((a, b))
        fresh = _merge_everywhere(best, chr(len(tokens) - 1), words, freqs, pair_counts, where)
        for pair, count in fresh.items():
            heapq.heappush(heap, (-count, keys[ord(pair[0])], keys[ord(pair[1])], pair))
        if progress is not None:
            progress.update()


def _count_pairs(words: list[str], freqs: list[int]) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Count every pair, and list where each occurs (a word listed twice is visited twice, harmlessly)."""
    pair_counts: dict[str, int] = defaultdict(int)
    where: dict[str, list[int]] = defaultdict(list)
    for i, word in enumerate(words):
        f = freqs[i]
        for k in range(len(word) - 1):
            pair = word[k:k + 2]
            pair_counts[pair] += f
            where[pair].append(i)
    return pair_counts, where


def _pop_best(heap: list, pair_counts: dict[str, int]) -> str | None:
    """Pop the best pair whose count is current.

    subtle: counts of old pairs only ever go down, so we never push on a decrease. A popped entry
    whose count is stale is pushed back with its true count: each entry is an upper bound, hence
    the first entry whose count is current is the true best.
    """
    while heap:
        negc, key_a, key_b, pair = heapq.heappop(heap)
        current = pair_counts.get(pair, 0)
        if current == -negc:
            return pair
        if current > 0:
            heapq.heappush(heap, (-current, key_a, key_b, pair))
    return None


def _merge_everywhere(pair: str, new: str, words: list[str], freqs: list[int],
                      pair_counts: dict[str, int], where: dict[str, list[int]]) -> dict[str, int]:
    """Replace ``pair`` by ``new`` in every word that has it; keep counts and the index exact.

    Returns the counts of the pairs that contain ``new`` (all of them new), already recorded.
    """
    fresh: dict[str, int] = defaultdict(int)
    fresh_where: dict[str, list[int]] = defaultdict(list)
    new_then_a = new + pair[0]
    for i in dict.fromkeys(where.pop(pair)):  # subtle: a long word is listed once per occurrence; visit it once
        word = words[i]
        j = word.find(pair)
        if j < 0:
            continue  # stale (an earlier merge took the pair apart), or a repeat of the same word
        f, end, last = freqs[i], -1, len(word) - 2
        while j >= 0:
            if j:
                if j == end:
                    # subtle: a run like a b a b. The previous occurrence already counted (new, a)
                    # as its right pair; that a is merged now, so (new, a) becomes (new, new).
                    fresh[new_then_a] -= f
                    left_pair = new + new
                else:
                    pair_counts[word[j - 1:j + 1]] -= f
                    left_pair = word[j - 1] + new
                fresh[left_pair] += f
                fresh_where[left_pair].append(i)
            if j < last:
                pair_counts[word[j + 1:j + 3]] -= f
                right_pair = new + word[j + 2]
                fresh[right_pair] += f
                fresh_where[right_pair].append(i)
            end = j + 2
            j = word.find(pair, end)
        words[i] = word.replace(pair, new)
    del pair_counts[pair]
    for p in [p for p, c in fresh.items() if c <= 0]:
        del fresh[p]
    for p, c in fresh.items():
        pair_counts[p] = c
        where[p] = fresh_where[p]
    return fresh
