"""The fast BPE learner behind ``train_bpe(..., method="fast")``: same merges as the naive one.

It counts the pairs once, then after each merge updates only the words that contain the merged
pair (found through an index ``where[pair]``) and finds the next best pair with a bucket queue.

Tuned for CPython:

* a word is a ``str`` in which token id ``k`` is the character ``chr(k)``. A pair is then the
  two-character string of its ids, so finding it is ``str.find`` (or ``str.partition``, which also
  hands over both sides of it) and merging it everywhere in a word is one ``str.replace`` -- which
  scans left to right without overlaps, exactly BPE's rule;
* the counts of pairs that contain the new token are gathered in a small dict of their own and
  queued once per merge, not once per word;
* ``where[pair]`` is a list, not a set: a word may be listed twice or no longer hold the pair;
  the walk simply finds no pair in such a word, which is cheaper than keeping the index exact;
* the queue (:class:`PairQueue`) keeps one list of pairs per count, and only the list of the count
  being merged is a heap: on varied text (a novel: 44,000 distinct words) most new pairs occur once
  or twice and are never merged, and appending them to a list costs far less than a heap push (the
  rarest are not even appended until the merges come down to them). A pair's place in the order is
  one string (:func:`bpe_course.pairs.descending_key`), compared in C.

One character per token id caps a vocabulary at 1,114,112 tokens (``MAX_TOKENS``).

>>> learn_fast({b"low": 3, b"lower": 1, b"lowest": 1}, 3)
([(b'o', b'w'), (b'l', b'ow'), (b'low', b'e')], [5, 5, 2], 1)
"""

from __future__ import annotations

import gc
import heapq
from collections import defaultdict
from contextlib import contextmanager
from operator import add

from ..pairs import descending_key

Merges = list[tuple[bytes, bytes]]
MAX_TOKENS = 0x110000  # one character per token id
QUEUE_FLOOR = 8  # pairs seen fewer times wait outside the queue until the merges come down to them


def learn_fast(word_counts: dict[bytes, int], n_merges: int, progress=None,
               min_frequency: int = 1) -> tuple[Merges, list[int], int]:
    """Up to ``n_merges`` merges learned from ``{word bytes: count}``; ``progress`` is an optional bar.

    Returns the merges, how often each merged pair occurred, and the count of the best pair left
    unmerged (0 when none is left). Pairs seen fewer than ``min_frequency`` times are never merged.
    """
    with _no_cycle_collection():
        return _learn(word_counts, min(n_merges, MAX_TOKENS - 256), progress, min_frequency)


@contextmanager
def _no_cycle_collection():
    """Pause Python's cycle collector, and restore it however the block ends.

    subtle: learning makes tens of thousands of small lists (the index ``where``) that live on. As it
    makes them, passes of the collector over the young and middle generations keep coming, and now
    and then a full pass goes through all of them: on 1 MB of don_quixote at 10,000 merges, about 48
    passes (44 young, 4 middle, no full one here), 4-5% of learning time spent in the collector. Yet
    learning never makes a reference cycle, so there is nothing for the collector to find.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _learn(word_counts: dict[bytes, int], n_merges: int, progress, min_frequency: int) -> tuple[Merges, list[int], int]:
    tokens = [bytes([i]) for i in range(256)]
    keys = [descending_key(t) for t in tokens]
    words = [w.decode("latin-1") for w in word_counts]  # byte b is the character chr(b): token id b
    freqs = list(word_counts.values())
    pair_counts, where = _count_pairs(words, freqs)
    queue = PairQueue(pair_counts, keys)
    merges: Merges = []
    counts: list[int] = []
    while True:
        best = queue.pop(pair_counts)
        if best is None:
            return merges, counts, 0
        if len(merges) == n_merges or pair_counts[best] < min_frequency:
            return merges, counts, pair_counts[best]
        counts.append(pair_counts[best])
        a, b = tokens[ord(best[0])], tokens[ord(best[1])]
        tokens.append(a + b)
        keys.append(keys[ord(best[0])][:-1] + keys[ord(best[1])])  # descending_key(a + b), from its parts
        merges.append((a, b))
        queue.add(_merge_everywhere(best, chr(len(tokens) - 1), words, freqs, pair_counts, where))
        if progress is not None:
            progress.update()


def _count_pairs(words: list[str], freqs: list[int]) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Count every pair, and list where each occurs (a word listed twice is visited once, harmlessly).

    The lists are made first; a pair's count is then the frequencies of its list summed, in C.
    """
    where: dict[str, list[int]] = defaultdict(list)
    for i, word in enumerate(words):
        for pair in map(add, word, word[1:]):  # the pairs, made in C
            where[pair].append(i)
    weight = freqs.__getitem__
    return {pair: sum(map(weight, listed)) for pair, listed in where.items()}, where


class PairQueue:
    """The pairs to merge, best first: the highest count, then the greatest pair (``descending_key``).

    A bucket queue. Pairs wait in one list per count; only the list of the count being merged now
    (the *level*) is a heap, ordered by key. An entry is one string: the pair's key, then the pair
    itself (the key alone decides the order, being different for every pair). It works because the
    best count never goes up: a new pair is made of a token just merged, so it occurs at most as
    often as that merge, and an old pair's count only goes down. So most pairs are appended to the
    list of a lower count, and each list is heaped once, when the level comes down to it.

    subtle: a pair whose count went down stays in the list of its old count (its entry is stale);
    when popped there, it moves to the list of its true count, which is lower and not reached yet.

    Pairs seen fewer than ``floor`` times are not queued at all until the level comes down to the
    floor; then the floor halves, and one pass over ``pair_counts`` queues the pairs between the two.
    On varied text most new pairs occur once or twice, and training to 10,000 tokens on a megabyte
    stops at a count of 3 to 6: the pairs seen once or twice are never queued.

    >>> keys = [descending_key(bytes([i])) for i in range(256)]
    >>> queue = PairQueue({"ab": 2, "xy": 5, "ba": 2}, keys, floor=3)
    >>> counts = {"ab": 2, "xy": 1, "ba": 2}  # "xy" went down to 1 since it was queued
    >>> [queue.pop(counts) for _ in range(4)]
    ['ba', 'ab', 'xy', None]
    """

    def __init__(self, pair_counts: dict[str, int], keys: list[str], floor: int | None = None) -> None:
        self.keys = keys  # the learner's own list: it grows with every merge
        self.floor = QUEUE_FLOOR if floor is None else floor
        self.buckets: dict[int, list[str]] = defaultdict(list)
        for pair, count in pair_counts.items():
            if count >= self.floor:
                self.buckets[count].append(_entry(pair, keys))
        self.levels = [-count for count in self.buckets]  # a heap of the counts that have a list: highest first
        heapq.heapify(self.levels)
        self.level = 0  # no list is a heap yet

    def add(self, fresh: dict[str, int]) -> None:
        """Queue new pairs; each occurs at most as often as the pair just popped."""
        floor, keys = self.floor, self.keys
        for pair, count in fresh.items():
            if count < floor:
                continue  # queued when the level comes down to the floor
            if count < self.level:
                self._append(count, _entry(pair, keys))
            elif count == self.level:
                heapq.heappush(self.buckets[count], _entry(pair, keys))
            else:  # cannot happen (see the class docstring); a silent wrong order would be worse than this
                raise AssertionError(f"a new pair occurs {count} times, more than the merge it came from")

    def _append(self, count: int, item: str) -> None:
        """Put an item in the list of a count below the level (a plain list until the level gets there)."""
        bucket = self.buckets[count]
        if not bucket:
            heapq.heappush(self.levels, -count)
        bucket.append(item)

    def pop(self, pair_counts: dict[str, int]) -> str | None:
        """The best pair whose count is current, or None when no pair is left."""
        bucket = self.buckets[self.level] if self.level else []
        while True:
            while bucket:
                item = heapq.heappop(bucket)
                count = pair_counts.get(item[-2:], 0)
                if count == self.level:
                    return item[-2:]
                if count >= self.floor:
                    self._append(count, item)
            self.buckets.pop(self.level, None)
            while not self.levels and self.floor > 1:
                self._queue_below_floor(pair_counts)
            if not self.levels:
                return None
            self.level = -heapq.heappop(self.levels)
            bucket = self.buckets[self.level]
            heapq.heapify(bucket)

    def _queue_below_floor(self, pair_counts: dict[str, int]) -> None:
        """Halve the floor, and queue the pairs seen from the new floor up to the old one."""
        high = self.floor
        self.floor = low = high // 2
        for pair in [pair for pair, count in pair_counts.items() if low <= count < high]:
            self._append(pair_counts[pair], _entry(pair, self.keys))


def _entry(pair: str, keys: list[str]) -> str:
    """A pair's entry in the queue: its key (:func:`descending_key` of both tokens), then the pair."""
    return keys[ord(pair[0])] + keys[ord(pair[1])] + pair


def _merge_everywhere(pair: str, new: str, words: list[str], freqs: list[int],
                      pair_counts: dict[str, int], where: dict[str, list[int]]) -> dict[str, int]:
    """Replace ``pair`` by ``new`` in every word that has it; keep counts and the index exact.

    Returns the counts of the pairs that contain ``new`` (all of them new), already recorded.

    subtle: every count that changes is next to an occurrence, and what matters there is only the
    token left of it (``x``: the pair ``x a`` becomes ``x new``) and right of it (``y``: ``b y``
    becomes ``new y``). So the walk only lists each occurrence's word under its single characters
    ``x`` and ``y``; the two-character pairs, and their counts (the words' frequencies summed in C),
    are made once per distinct neighbour afterwards, not once per occurrence.

    >>> words, pair_counts = ["xab", "abab"], {"xa": 1, "ab": 3, "ba": 1}
    >>> fresh = _merge_everywhere("ab", "Z", words, [1, 1], pair_counts, {"ab": [0, 1, 1]})
    >>> words, sorted(fresh.items()), sorted(pair_counts.items())
    (['xZ', 'ZZ'], [('ZZ', 1), ('xZ', 1)], [('ZZ', 1), ('ba', 0), ('xZ', 1), ('xa', 0)])
    """
    entries = where.pop(pair)
    if len(entries) == 1:
        once = _merge_once(pair, new, entries, words, freqs[entries[0]], pair_counts, where)
        if once is not None:
            return once
    a, b = pair[0], pair[1]  # a pair is two characters, one per token
    lefts: dict[str, list[int]] = defaultdict(list)  # x -> a word for each time x stood left of the pair
    rights: dict[str, list[int]] = defaultdict(list)  # y -> ... right of it
    runs: list[int] = []
    # subtle: a word is listed once per occurrence (so it is visited once: dict.fromkeys, in C; a word
    # of 100,000 letters is listed 50,000 times), and stays listed after an earlier merge took the
    # pair apart in it. Such a word comes back unsplit; skipping it here costs less than dropping
    # such entries in a pass of their own, as each word is then read once.
    for i in dict.fromkeys(entries):
        word = words[i]
        head, found, tail = word.partition(pair)
        if not found:
            continue
        if pair in tail:  # more than one occurrence: rare
            words[i] = _merge_in_word(i, word, pair, new, lefts, rights, runs)
            continue
        if head:
            lefts[head[-1]].append(i)
        if tail:
            rights[tail[0]].append(i)
        words[i] = head + new + tail
    fresh: dict[str, int] = {}
    weight = freqs.__getitem__
    for x, listed in lefts.items():
        n = sum(map(weight, listed))
        pair_counts[x + a] -= n
        p = x + new
        fresh[p] = n
        where[p] = listed  # a pair with ``new`` is new: its list starts here
    for y, listed in rights.items():
        n = sum(map(weight, listed))
        pair_counts[b + y] -= n
        p = new + y
        fresh[p] = n
        where[p] = listed
    if runs:
        n = sum(map(weight, runs))
        fresh[new + new] = n
        where[new + new] = runs
        fresh[new + a] -= n
        if fresh[new + a] <= 0:  # every a right of new began the next occurrence
            del fresh[new + a]
    del pair_counts[pair]  # subtle: after the loops, which may have counted down the pair itself (a a a)
    pair_counts.update(fresh)
    return fresh


def _merge_in_word(i: int, word: str, pair: str, new: str, lefts: dict[str, list[int]],
                   rights: dict[str, list[int]], runs: list[int]) -> str:
    """The walk of :func:`_merge_everywhere` through word ``i`` holding the pair more than once; the merged word."""
    end, last = -1, len(word) - 2
    j = word.find(pair)
    while j >= 0:
        if j == end:
            # subtle: a run like a b a b. The occurrence before counted this a as its right
            # neighbour; that a is merged now, so its (new, a) becomes (new, new).
            runs.append(i)
        elif j:
            lefts[word[j - 1]].append(i)
        if j < last:
            rights[word[j + 2]].append(i)
        end = j + 2
        j = word.find(pair, end)
    return word.replace(pair, new)


def _merge_once(pair: str, new: str, listed: list[int], words: list[str], freq: int,
                pair_counts: dict[str, int], where: dict[str, list[int]]) -> dict[str, int] | None:
    """:func:`_merge_everywhere` when one word, listed once, holds the pair once; None when it does not.

    Most late merges are this case (training a novel to 32,000 tokens: 22,000 of 32,000 merges),
    and it needs none of the general case's grouping by neighbour.

    >>> words, pair_counts = ["xaby"], {"xa": 2, "ab": 2, "by": 2}  # the word occurs twice
    >>> fresh = _merge_once("ab", "Z", [0], words, 2, pair_counts, {})
    >>> words, fresh, pair_counts
    (['xZy'], {'xZ': 2, 'Zy': 2}, {'xa': 0, 'by': 0, 'xZ': 2, 'Zy': 2})
    """
    i = listed[0]
    head, found, tail = words[i].partition(pair)
    if not found or pair in tail:
        return None
    fresh = {}
    if head:
        x = head[-1]
        pair_counts[x + pair[0]] -= freq
        fresh[x + new] = freq
        where[x + new] = listed  # the only word with the new pair
    if tail:
        y = tail[0]
        pair_counts[pair[1] + y] -= freq
        fresh[new + y] = freq
        where[new + y] = listed
    words[i] = head + new + tail
    del pair_counts[pair]  # subtle: after the count-downs, one of which may be the pair itself (a a a)
    pair_counts.update(fresh)
    return fresh
