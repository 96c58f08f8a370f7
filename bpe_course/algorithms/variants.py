"""BPE beyond the greedy merge loop: four variants from recent papers, small enough to read (chapter 17).

Each variant changes one thing about plain BPE (:func:`bpe_course.train.train_bpe`) and keeps the
rest, so each is checked by switching its change off and getting plain BPE's merges back
(``tests/algorithms/test_variants.py``):

* :func:`fewest_tokens` -- **optimal segmentation** (Schmidt et al., 2024, PathPiece's segmenter): keep
  the vocabulary, but cut each piece into the fewest tokens it allows, by a shortest path, instead of
  replaying the merges.
* :func:`train_superbpe` -- **SuperBPE** (Liu et al., 2025): plain BPE up to a *transition* merge, then
  go on without the pre-tokenizer inside each line, so tokens may span words (``b" of the"``).
* :func:`train_picky` -- **Picky BPE** (Chizhov et al., 2024): after each merge, drop a part that now
  occurs almost only inside the new token (its *intersection over self* is greater than a threshold).
* :func:`train_parity` -- **parity-aware BPE** (Foroutan et al., 2025): each merge is the best pair
  of the language that a parallel development text says is compressed worst so far.

All four run on one exact trainer, :class:`Merges`: the training text as symbol sequences with
counts, pair counts updated only in the sequences a merge touches, and the best pair taken with
plain BPE's tie rule (highest count, then the lexicographically greatest pair). It is slow beside
``train_bpe(method="fast")`` -- pure Python, no tricks -- but a few thousand merges on a few hundred
kilobytes take seconds.

>>> m = Merges({(b"l", b"o", b"w"): 5, (b"l", b"o", b"t"): 2})
>>> m.best()
((b'l', b'o'), 7)
>>> m.merge((b"l", b"o"))
7
>>> m.best(), m.total_tokens()
(((b'lo', b'w'), 5), 14)
"""

from __future__ import annotations

import heapq
import numbers
import operator
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import islice
from operator import neg
from random import Random
from typing import NamedTuple, SupportsIndex, cast

from ..bpe import merge_by_rank
from ..pairs import descending_key, merge_pair
from ..pretokenize import pretokenize, resolve_pattern
from ..train import count_pretokens

Pair = tuple[bytes, bytes]
Seq = tuple[bytes, ...]


def _descending(pair: Pair) -> tuple[str, str]:
    """A key that sorts pairs from the lexicographically *greatest* down (plain BPE's tie rule, in a min-heap):
    each token's :func:`bpe_course.pairs.descending_key`.

    >>> sorted([(b"a", b"b"), (b"ab", b""), (b"b", b"a"), (b"a", b"ba")], key=_descending)
    [(b'b', b'a'), (b'ab', b''), (b'a', b'ba'), (b'a', b'b')]
    """
    return descending_key(pair[0]), descending_key(pair[1])


def split_bytes(word: bytes) -> Seq:
    """A byte string as its single-byte symbols: where every sequence starts."""
    return tuple(word[i:i + 1] for i in range(len(word)))


class Merges:
    """Symbol sequences with counts, their pair counts, and the merge loop's two moves: merge and split.

    ``best()`` is the pair plain BPE merges next; ``merge(pair)`` joins every occurrence (left to
    right, as :func:`bpe_course.pairs.merge_pair`); ``split(token, parts)`` undoes a token wherever it
    stands (Picky BPE's removal). Only the sequences holding the pair are recounted.

    subtle: a heap holds ``(-count, pair)`` entries and is never cleaned; an entry whose count is no
    longer the pair's current count is stale and skipped when it reaches the top.
    """

    def __init__(self, sequences: Mapping[Seq, int]) -> None:
        if not isinstance(sequences, Mapping):
            raise TypeError(f"sequences must be {{symbols: count}} (word_sequences(counts) gives them), not a "
                            f"{type(sequences).__name__}")
        self.seqs: list[list[bytes]] = [list(s) for s, n in sequences.items() if n]
        self.counts: list[int] = [n for n in sequences.values() if n]
        self.pairs: dict[Pair, int] = {}
        self.tokens: Counter[bytes] = Counter()  # how often each symbol occurs, counts included
        self.where: dict[Pair, set[int]] = {}
        self._total = 0
        self._keys: dict[Pair, tuple[str, str]] = {}
        pairs = self.pairs
        for i, (seq, n) in enumerate(zip(self.seqs, self.counts)):
            for pair in zip(seq, seq[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
                self.where.setdefault(pair, set()).add(i)
            for token in seq:
                self.tokens[token] += n
            self._total += n * len(seq)
        self._heap = [(-n, self._key(p), p) for p, n in pairs.items()]
        heapq.heapify(self._heap)
        self.forbidden: set[Pair] = set()  # pairs best() never returns (SuperBPE's refused merges)

    def _key(self, pair: Pair) -> tuple[str, str]:
        if (key := self._keys.get(pair)) is None:
            key = self._keys[pair] = _descending(pair)
        return key

    def best(self) -> tuple[Pair, int] | None:
        """The next merge of plain BPE -- highest count, ties to the greatest pair -- and its count.

        subtle: every pair has a heap entry whose count is at least its count now (an entry is pushed
        when a count grows, never when it falls); a top entry that is too high is pushed again with
        the count now, until the top is exact -- and then no pair can beat it.
        """
        heap, pairs = self._heap, self.pairs
        while heap:
            neg, key, pair = heap[0]
            now = pairs.get(pair, 0)
            if pair in self.forbidden:
                heapq.heappop(heap)
                continue
            if now == -neg:
                return pair, now
            if now > 0:
                heapq.heapreplace(heap, (-now, key, pair))
            else:
                heapq.heappop(heap)
        return None

    def _replace(self, i: int, new: list[bytes]) -> None:
        """Sequence ``i`` becomes ``new`` (the same bytes): update the counts, the index and the heap."""
        old, n = self.seqs[i], self.counts[i]
        pairs, where, tokens = self.pairs, self.where, self.tokens
        before = Counter(zip(old, old[1:]))
        after = Counter(zip(new, new[1:]))
        for pair, k in before.items():
            left = pairs[pair] - k * n
            if left:
                pairs[pair] = left
            else:
                del pairs[pair]
            if pair not in after:
                holders = where[pair]
                holders.discard(i)
                if not holders:
                    del where[pair]
        for pair, k in after.items():
            c = pairs[pair] = pairs.get(pair, 0) + k * n
            if k > before.get(pair, 0):
                heapq.heappush(self._heap, (-c, self._key(pair), pair))
                where.setdefault(pair, set()).add(i)
        for token in old:
            tokens[token] -= n
        for token in new:
            tokens[token] += n
        for token in set(old):
            if not tokens[token]:
                del tokens[token]
        self._total += n * (len(new) - len(old))
        self.seqs[i] = new

    def forbid(self, pair: Pair) -> None:
        """Never return ``pair`` from :meth:`best` again (its occurrences stay as they are)."""
        self.forbidden.add(pair)

    def merge(self, pair: Pair) -> int:
        """Join every occurrence of ``pair``; return how often the pair occurred before."""
        before = self.pairs.get(pair, 0)
        for i in sorted(self.where.get(pair, ())):
            self._replace(i, list(merge_pair(self.seqs[i], pair)))
        return before

    def split(self, token: bytes, parts: Callable[[bytes], Seq]) -> None:
        """Replace every occurrence of ``token`` by ``parts(token)`` (symbols that spell it)."""
        pieces = list(parts(token))
        for i in [i for i, seq in enumerate(self.seqs) if token in seq]:
            self._replace(i, [q for s in self.seqs[i] for q in (pieces if s == token else (s,))])

    def total_tokens(self) -> int:
        """The number of symbols in all sequences, counts included: the text's length in tokens now."""
        return self._total

    def state(self) -> dict[bytes, Seq]:
        """Each sequence's bytes -> its symbols now (every sequence spells distinct bytes)."""
        return {b"".join(seq): tuple(seq) for seq in self.seqs}


def check_merges_count(n_merges: object) -> int:
    """``n_merges`` if it is an int >= 0, else a ValueError that says so.

    >>> check_merges_count(-1)
    Traceback (most recent call last):
    ...
    ValueError: n_merges must be an int >= 0 (the number of merges to learn), got -1
    """
    if isinstance(n_merges, bool) or not hasattr(type(n_merges), "__index__") or \
            operator.index(cast(SupportsIndex, n_merges)) < 0:
        raise ValueError(f"n_merges must be an int >= 0 (the number of merges to learn), got {n_merges!r}")
    return operator.index(cast(SupportsIndex, n_merges))  # subtle: a NumPy integer is an integer


def word_sequences(counts: Mapping[str, int]) -> dict[Seq, int]:
    """Pre-token counts (as :func:`bpe_course.train.count_pretokens` gives them) as single-byte sequences.

    >>> word_sequences("low lower")
    Traceback (most recent call last):
    ...
    TypeError: counts must be pre-token counts {pre-token: count}, as count_pretokens(text) gives them; got a str ('low lower'): pass count_pretokens(text)
    """
    if not isinstance(counts, Mapping):
        shown = repr(counts) if len(repr(counts)) <= 40 else repr(counts)[:37] + "..."
        hint = "pass count_pretokens(text)" if isinstance(counts, str) else "count a text with count_pretokens(text)"
        raise TypeError(f"counts must be pre-token counts {{pre-token: count}}, as count_pretokens(text) gives them; "
                        f"got a {type(counts).__name__} ({shown}): {hint}")
    for word, n in counts.items():
        if not isinstance(word, str) or isinstance(n, bool) or not hasattr(type(n), "__index__"):
            raise TypeError(f"counts must map pre-tokens (str) to counts (int); got {word!r}: {n!r}")
    return {split_bytes(word.encode("utf-8")): n for word, n in counts.items() if n}


def train_plain(counts: Mapping[str, int], n_merges: int) -> list[Pair]:
    """Plain BPE on :class:`Merges`: the merges ``train_counts(counts, 256 + n_merges)`` learns.

    >>> from bpe_course.train import train_counts
    >>> counts = count_pretokens("low low low lower lowest newer wider")
    >>> train_plain(counts, 6) == train_counts(counts, 256 + 6).merges
    True
    """
    n_merges = check_merges_count(n_merges)
    m = Merges(word_sequences(counts))
    merges: list[Pair] = []
    while len(merges) < n_merges and (found := m.best()) is not None:
        merges.append(found[0])
        m.merge(found[0])
    return merges


# ---------------------------------------------------------------- encoding

def pair_ranks(merges: Sequence[Pair]) -> dict[Pair, int]:
    """``{pair: rank}`` with the first rank a pair was merged at."""
    ranks: dict[Pair, int] = {}
    for k, pair in enumerate(merges):
        ranks.setdefault(pair, k)
    return ranks


def merge_in_order(symbols: Sequence[bytes], ranks: Mapping[Pair, int]) -> list[bytes]:
    """BPE's rule with ranks given per *pair*: merge the adjacent pair of lowest rank, leftmost first.

    >>> merge_in_order(split_bytes(b"lower"), {(b"l", b"o"): 0, (b"lo", b"w"): 1, (b"e", b"r"): 2})
    [b'low', b'er']
    """
    return merge_by_rank(list(symbols), lambda a, b: ranks.get((a, b), float("inf")))


LONG_SEQUENCE = 64  # longer symbol sequences are merged with a heap: heap_merge_in_order, O(n log n)


def heap_merge_in_order(symbols: Sequence[bytes], ranks: Mapping[Pair, int]) -> list[bytes]:
    """The parts :func:`merge_in_order` leaves, in O(n log n) rather than O(n^2): for long lines and pieces.

    The symbols are a linked list named by their first index; ``rank_at[s]`` is the rank of the
    pair that starts at ``s`` now (``None``: no merge), and each pair that is a merge waits in a heap
    as ``(rank, s)``: the smallest is the lowest rank, leftmost on ties -- :func:`merge_in_order`'s choice.

    subtle: a merge leaves stale entries in the heap, skipped when popped because their rank is no
    longer ``rank_at[s]``: the pair at ``s`` is another pair now (its left symbol grew), and each pair
    has a rank of its own; an index whose symbol was merged away holds ``None``.

    >>> ranks = {(b"l", b"o"): 0, (b"lo", b"w"): 1, (b"e", b"r"): 2}
    >>> heap_merge_in_order(split_bytes(b"lower lower"), ranks) == merge_in_order(split_bytes(b"lower lower"), ranks)
    True
    """
    parts = list(symbols)
    n = len(parts)
    get = ranks.get
    after = list(range(1, n + 1))  # after[s]: the index of the symbol after the one at s (n: the end)
    before = list(range(-1, n - 1))  # before[s]: the index of the symbol before it (-1: the start)
    rank_at: list[int | None] = [get((parts[s], parts[s + 1])) for s in range(n - 1)] + [None]
    heap = [(r, s) for s, r in enumerate(rank_at) if r is not None]
    heapq.heapify(heap)
    while heap:
        r, s = heapq.heappop(heap)
        if rank_at[s] != r:
            continue  # stale
        m = after[s]
        parts[s] += parts[m]
        rank_at[m] = None  # the symbol at m is merged away: its entries are stale, and the walk below skips it
        e = after[s] = after[m]
        rank_at[s] = None
        if e < n:
            before[e] = s
            if (right := get((parts[s], parts[e]))) is not None:
                rank_at[s] = right
                heapq.heappush(heap, (right, s))
        if (p := before[s]) >= 0:
            if (left := get((parts[p], parts[s]))) is not None:
                heapq.heappush(heap, (left, p))
            rank_at[p] = left
    out, s = [], 0
    while s < n:
        out.append(parts[s])
        s = after[s]
    return out


def merged_in_order(symbols: Sequence[bytes], ranks: Mapping[Pair, int]) -> list[bytes]:
    """:func:`merge_in_order`'s parts, by the plain loop for short sequences and the heap for long ones."""
    return merge_in_order(symbols, ranks) if len(symbols) <= LONG_SEQUENCE else heap_merge_in_order(symbols, ranks)


LONG_PIECE_BYTES = 128  # fewest_tokens cuts a longer piece with the run-aware search (_fewest_tokens_long)
LONG_RUN = 16  # ... in which a run of this many copies of one byte is a "long run"


TIE_RULES = ("longest first", "longest last", "random")


def fewest_tokens(piece: bytes, vocab: set[bytes] | frozenset[bytes], longest: int | None = None,
                  ties: str = "longest first", rng: Random | None = None) -> list[bytes]:
    """The fewest tokens of ``vocab`` that spell ``piece`` (a shortest path over its byte positions).

    Every single byte must be in ``vocab``, so a path always exists. A piece often has several
    shortest cuts; ``ties`` says which one is kept:

    * ``"longest first"`` (this course's rule): a backward pass, ``best[i]`` the fewest tokens for
      ``piece[i:]``; of the shortest cuts, the one whose *first* token is longest, then the same rule
      from there on;
    * ``"longest last"`` (PathPiece's own code, its default): a forward pass over the positions where a
      token ends, widths tried from short to long and a tie won by the later, longer one; of the
      shortest cuts, the one whose *last* token is longest, then the same rule back from there;
    * ``"random"`` (PathPiece's other option): the forward pass, a tie at each end position settled
      by a uniform draw from ``rng`` among the tied widths (reservoir sampling, as PathPiece does).

    >>> vocab = {bytes([b]) for b in range(256)} | {b"ab", b"abc", b"cd", b"bcd"}
    >>> fewest_tokens(b"abcd", vocab)  # abc + d, ab + cd and a + bcd are as short
    [b'abc', b'd']
    >>> fewest_tokens(b"abcd", vocab, ties="longest last")
    [b'a', b'bcd']
    >>> fewest_tokens(b"xabcd", vocab)
    [b'x', b'abc', b'd']
    >>> sorted({tuple(fewest_tokens(b"abcd", vocab, ties="random", rng=Random(s))) for s in range(20)})
    [(b'a', b'bcd'), (b'ab', b'cd'), (b'abc', b'd')]

    subtle (speed): trying every token length at every position is cubic when pieces and tokens are
    long (a run of 10,000 letters against a vocabulary of long runs: hours). A piece longer than
    ``LONG_PIECE_BYTES`` cut by the course's rule goes to :func:`_fewest_tokens_long`, which finds the
    same cut in near-linear time in the piece; :func:`_fewest_tokens_plain` is its slower twin, which
    the tests compare it with. (PathPiece's rules keep the forward pass over every width.)
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TIE_RULES))}, got {ties!r}")
    if ties == "random" and rng is None:
        raise ValueError("ties='random' needs a random.Random to draw from: rng=Random(seed)")
    if ties != "longest first":
        return _fewest_forward(piece, vocab, longest or max(map(len, vocab), default=1),
                               rng if ties == "random" else None)
    if len(piece) > LONG_PIECE_BYTES:
        return _fewest_tokens_long(piece, vocab)
    return _fewest_tokens_plain(piece, vocab, longest)


def _fewest_tokens_plain(piece: bytes, vocab: set[bytes] | frozenset[bytes], longest: int | None = None
                         ) -> list[bytes]:
    """:func:`fewest_tokens` by the plain shortest path (the course's rule): every length up to ``longest`` at
    every position."""
    n = len(piece)
    longest = longest or max(map(len, vocab), default=1)
    best = [0] * (n + 1)
    step = [0] * (n + 1)  # the length of the first token of piece[i:]'s best segmentation
    for i in range(n - 1, -1, -1):
        best[i] = n + 1
        for j in range(min(n, i + longest), i, -1):  # longest token first: a tie keeps the longer one
            if best[j] + 1 < best[i] and piece[i:j] in vocab:
                best[i], step[i] = best[j] + 1, j - i
        if best[i] > n:
            _missing_byte(piece, i)
    return _cut(piece, step)


def _fewest_tokens_long(piece: bytes, vocab: set[bytes] | frozenset[bytes]) -> list[bytes]:
    """:func:`fewest_tokens` for a long piece, looking only at the token lengths that can fit each position.

    A token is *plain* when it holds no long run (``LONG_RUN`` copies of one byte in a row), else it
    has a first long run of ``m`` copies of byte ``c`` at offset ``o``. Then, at position ``i``:

    * a plain token is no longer than the longest plain token of the vocabulary, and stops before the
      piece's next long run is ``LONG_RUN`` bytes in; inside a long run it is one of the run's short
      pieces ``c * k``;
    * a token that is a run and nothing else (``c * m``) fits wherever ``m`` copies of ``c`` follow;
    * any other token with a long run fits at one position per long run of the piece at most: its run
      of ``m`` is the piece's run (starting where the piece's run starts, when ``o > 0``; ending where
      it ends, when bytes follow it in the token), so it is tried there alone, with ``startswith``.

    So a position costs at most the longest plain token's length in lookups, and a position inside a
    run of one byte only as many as the vocabulary has runs of that byte: linear in a run's length.
    The vocabulary is read once per call (only long pieces come here).
    """
    n = len(piece)
    long_run = re.compile(rb"(.)\1{%d,}" % (LONG_RUN - 1), re.DOTALL)
    plain_cap = max((len(t) for t in vocab if len(t) < LONG_RUN), default=1)
    pure: dict[int, set[int]] = {}  # byte -> the lengths k >= LONG_RUN with bytes([byte]) * k in vocab
    mixed: dict[int, list[tuple[bytes, int, int, bool]]] = {}  # byte -> (token, o, m, bytes follow its run)
    for token in vocab:
        if len(token) < LONG_RUN:
            continue
        found = long_run.search(token)
        if found is None:
            plain_cap = max(plain_cap, len(token))
            continue
        o, m, byte = found.start(), found.end() - found.start(), token[found.start()]
        if o == 0 and m == len(token):
            pure.setdefault(byte, set()).add(m)
        else:
            mixed.setdefault(byte, []).append((token, o, m, o + m < len(token)))
    runs = [(r.start(), r.end() - r.start(), piece[r.start()]) for r in long_run.finditer(piece)]
    run_lengths = {}  # byte -> every k with bytes([byte]) * k in vocab, longest first
    for byte in {byte for _, _, byte in runs}:
        short = [k for k in range(1, LONG_RUN) if bytes([byte]) * k in vocab]
        run_lengths[byte] = sorted(pure.get(byte, set()).union(short), reverse=True)
    extra: dict[int, list[int]] = {}  # position -> lengths of tokens with a long run that start there
    for start, length, byte in runs:
        for token, o, m, follows in mixed.get(byte, ()):
            if m > length or (follows and o > 0 and m != length):
                continue
            i = start - o if o > 0 else start + length - m
            if i >= 0 and piece.startswith(token, i):
                extra.setdefault(i, []).append(len(token))
    left = [0] * n  # how many copies of piece[i] follow from i on (itself included)
    next_run = [n] * (n + 1)  # where the first long run starting after i starts (n: none)
    starts = {start for start, _, _ in runs}
    for i in range(n - 1, -1, -1):
        left[i] = left[i + 1] + 1 if i + 1 < n and piece[i + 1] == piece[i] else 1
        next_run[i] = i + 1 if i + 1 in starts else next_run[i + 1]
    best = [0] * (n + 1)
    step = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        count, size = n + 1, 0
        if left[i] >= LONG_RUN:  # inside a long run: only runs of this byte fit here, and long-run tokens
            lengths = run_lengths[piece[i]]  # longest first
            for k in islice(lengths, bisect_left(lengths, -left[i], key=neg), None):
                if best[i + k] + 1 < count:
                    count, size = best[i + k] + 1, k
                    if count == 1:
                        break  # nothing beats one token
        else:
            end = min(n, i + plain_cap, next_run[i] + LONG_RUN - 1)
            for j in range(end, i, -1):  # longest first: a tie keeps the longer one
                if best[j] + 1 < count and piece[i:j] in vocab:
                    count, size = best[j] + 1, j - i
        for k in extra.get(i, ()):
            if (best[i + k] + 1, -k) < (count, -size):
                count, size = best[i + k] + 1, k
        if count > n:
            _missing_byte(piece, i)
        best[i], step[i] = count, size
    return _cut(piece, step)


def _missing_byte(piece: bytes, i: int) -> None:
    raise ValueError(f"byte {piece[i]:#04x} at offset {i} of {piece[:40]!r} is not in the vocabulary")


def _cut(piece: bytes, step: list[int]) -> list[bytes]:
    """``piece`` cut by ``step`` (the length of the first token from each position)."""
    out, i = [], 0
    while i < len(piece):
        out.append(piece[i:i + step[i]])
        i += step[i]
    return out


def _fewest_forward(piece: bytes, vocab: set[bytes] | frozenset[bytes], longest: int,
                    rng: Random | None) -> list[bytes]:
    """PathPiece's pass: ``best[e]`` the fewest tokens for ``piece[:e]``, ``width[e]`` the last token's length.

    Without ``rng`` a tie goes to the wider (later) token; with it, each of the tied widths at an end
    is kept with equal chance (the k-th tie replaces the choice with probability 1/k).
    """
    n = len(piece)
    best = [0] + [n + 1] * n
    width = [0] * (n + 1)
    ties = [0] * (n + 1)
    for end in range(1, n + 1):
        for w in range(1, min(longest, end) + 1):  # short to long, as PathPiece's loop runs
            length = best[end - w] + 1
            if length > best[end] or piece[end - w:end] not in vocab:
                continue
            if length < best[end]:
                best[end], width[end], ties[end] = length, w, 1
            else:  # subtle: an equal path: the later, longer width wins, or a draw among the tied widths
                ties[end] += 1
                if rng is None or rng.randrange(ties[end]) == 0:
                    width[end] = w
        if best[end] > n:
            raise ValueError(f"byte {piece[end - 1]:#04x} at offset {end - 1} of {piece[:40]!r} is not in the "
                             "vocabulary")
    out, end = [], n
    while end > 0:
        out.append(piece[end - width[end]:end])
        end -= width[end]
    return out[::-1]


class Segmenter:
    """Encode text to ids one pre-token at a time with a function ``piece -> tokens`` (cached per piece,
    unless ``cache=False``).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b" ab"}
    >>> seg = Segmenter(vocab, lambda piece: fewest_tokens(piece, set(vocab.values())))
    >>> seg.encode("ab ab")
    [256, 257]
    >>> seg.decode(seg.encode("ab ab"))
    'ab ab'
    """

    def __init__(self, vocab: Mapping[int, bytes], cut: Callable[[bytes], Sequence[bytes]],
                 pattern: str | None = "gpt2", cache: bool = True) -> None:
        self.vocab = dict(vocab)
        self.id_of = {token: i for i, token in self.vocab.items()}
        self.pattern = resolve_pattern(pattern)
        # subtle: cache=False for a cut that is random (random ties), so each occurrence is cut afresh
        self._cut = lru_cache(maxsize=None)(lambda piece: tuple(cut(piece))) if cache else cut

    def tokens(self, text: str) -> list[bytes]:
        return [t for piece in pretokenize(text, self.pattern) for t in self._cut(piece.encode("utf-8"))]

    def encode(self, text: str) -> list[int]:
        return [self.id_of[t] for t in self.tokens(text)]

    def decode(self, ids: Iterable[int]) -> str:
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")


def vocab_of(tokens: Iterable[bytes]) -> dict[int, bytes]:
    """The 256 single bytes, then ``tokens`` in order (each once): ids as ``train_bpe`` lays them out."""
    vocab = {i: bytes([i]) for i in range(256)}
    seen = set(vocab.values())
    for t in tokens:
        if t not in seen:
            seen.add(t)
            vocab[len(vocab)] = t
    return vocab


# ---------------------------------------------------------------- SuperBPE

class SuperBPE(NamedTuple):
    merges: list[Pair]  # all of them, in order: the first `transition` learned inside pre-tokens
    transition: int
    pattern: str | None

    def vocab(self) -> dict[int, bytes]:
        return vocab_of(a + b for a, b in self.merges)

    def superwords(self) -> list[bytes]:
        """The tokens of stage 2 that span words: a space (or newline) after something that is not one."""
        return [a + b for a, b in self.merges[self.transition:] if is_superword(a + b)]


def is_superword(token: bytes) -> bool:
    """Does ``token`` span words -- is there whitespace inside it, between characters that are not?

    >>> is_superword(b" of the"), is_superword(b" the"), is_superword(b"   "), is_superword(b", and")
    (True, False, False, True)
    """
    return any(c in b" \t\n" for c in token.strip())


def words_in(token: bytes) -> int:
    """How many words a token holds, as SuperBPE's released trainer counts them: the non-empty parts
    between spaces (``new_token.split("Ġ")`` in its byte-level alphabet, where ``Ġ`` is a space).

    >>> words_in(b" of the"), words_in(b"the"), words_in(b"  "), words_in(b", and the\\ncat")
    (2, 1, 0, 3)
    """
    return sum(1 for part in token.split(b" ") if part)


def released_stage2_allows(token: bytes, max_words: int = 4) -> bool:
    """Would SuperBPE's released trainer make this token in stage 2? Not if it holds a colon followed by a
    space, nor if it holds more than ``max_words`` words (alisawuffles/tokenizers-superbpe,
    ``tokenizers/src/models/bpe/trainer.rs``, ``do_train_extend``); a refused pair is never merged.

    >>> released_stage2_allows(b" of the"), released_stage2_allows(b"said: the")
    (True, False)
    >>> released_stage2_allows(b" one two three four"), released_stage2_allows(b" one two three four five")
    (True, False)
    """
    return b": " not in token and words_in(token) <= max_words


def line_units(text: str, pattern: str | None) -> list[list[bytes]]:
    """Stage 2's units: the text's pre-tokens, as stage 1 cut them, grouped into lines; a pre-token that
    holds a newline is a unit of its own. SuperBPE merges across words here, never across lines.

    >>> line_units("of the\\ncat  sat\\n", "gpt2")
    [[b'of', b' the'], [b'\\n'], [b'cat', b' ', b' sat'], [b'\\n']]
    """
    units: list[list[bytes]] = [[]]
    for piece in pretokenize(text, resolve_pattern(pattern)):
        if "\n" in piece:
            units += [[piece.encode("utf-8")], []]
        else:
            units[-1].append(piece.encode("utf-8"))
    return [u for u in units if u]


def train_superbpe(text: str, n_merges: int, transition: int, pattern: str | None = "gpt2",
                   allows: Callable[[bytes], bool] | None = None) -> SuperBPE:
    """SuperBPE: ``transition`` merges of plain BPE inside pre-tokens, then the rest inside whole lines.

    Stage 2 starts each line from its pre-tokens as stage 1 left them, joined, and lets merges cross
    what were pre-token boundaries. ``transition == n_merges`` is plain BPE. ``allows(token)``, if
    given, is asked before each stage-2 merge; a pair whose token it refuses is never merged, and the
    next best pair is taken instead (:func:`released_stage2_allows` is the released trainer's rule).

    >>> run = train_superbpe("of the cat, of the hat, of the mat\\n" * 5, 14, transition=8)
    >>> [a + b for a, b in run.merges[:8]]
    [b'th', b'the', b'of', b'at', b' the', b' of', b'mat', b'hat']
    >>> run.superwords()
    [b', of', b', of the ', b'of the ', b'of the c', b'of the cat']
    """
    return sweep_superbpe(text, n_merges, [transition], pattern, allows)[transition]


def sweep_superbpe(text: str, n_merges: int, transitions: Iterable[int], pattern: str | None = "gpt2",
                   allows: Callable[[bytes], bool] | None = None) -> dict[int, SuperBPE]:
    """:func:`train_superbpe` for several transition points, sharing stage 1 (its first merges are the same)."""
    n_merges = check_merges_count(n_merges)
    transitions = sorted(set(transitions))
    if not transitions or not 0 <= transitions[0] <= transitions[-1] <= n_merges:
        raise ValueError(f"each transition must be from 0 to n_merges={n_merges}, got {transitions}")
    pattern = resolve_pattern(pattern)
    stage1 = Merges(word_sequences(count_pretokens(text, pattern=pattern)))
    units = line_units(text, pattern)
    merges: list[Pair] = []
    runs = {}
    for transition in transitions:
        while len(merges) < transition and (found := stage1.best()) is not None:
            merges.append(found[0])
            stage1.merge(found[0])
        both = list(merges)
        if transition == n_merges:  # no stage 2, even if stage 1 ran out of pairs early: plain BPE
            runs[transition] = SuperBPE(both, transition, pattern)
            continue
        done = stage1.state()
        stage2 = Merges(Counter(tuple(s for piece in unit for s in done[piece]) for unit in units))
        while len(both) < n_merges and (found := stage2.best()) is not None:
            if allows is not None and not allows(found[0][0] + found[0][1]):
                stage2.forbid(found[0])
                continue
            both.append(found[0])
            stage2.merge(found[0])
        runs[transition] = SuperBPE(both, len(merges), pattern)  # subtle: stage 1 may have run out of pairs early
    return runs


def superbpe_tokens(run: SuperBPE, text: str) -> list[bytes]:
    """Encode ``text`` as ``run`` was trained: stage 1's merges in each pre-token, then stage 2's in each line."""
    first, second = pair_ranks(run.merges[:run.transition]), pair_ranks(run.merges[run.transition:])
    inside = lru_cache(maxsize=None)(lambda piece: tuple(merged_in_order(split_bytes(piece), first)))
    out = []
    for unit in line_units(text, run.pattern):
        symbols = [s for piece in unit for s in inside(piece)]
        # subtle: a line is one sequence (a paragraph per line is thousands of symbols): merged with a heap
        out += merged_in_order(symbols, second) if second else symbols
    return out


# ---------------------------------------------------------------- Picky BPE

class Picky(NamedTuple):
    merges: list[Pair]  # every merge made, in order (a removed token may be made again later)
    removed: list[tuple[int, bytes, float]]  # (after merge k, token, its intersection over self)
    events: list[tuple[str, Pair | bytes]]  # ("merge", pair) and ("remove", token), in order
    alive: list[bytes]  # the final vocabulary beyond the bytes, in the order the tokens were (last) made
    threshold: float | None
    final: dict[bytes, Seq]  # each training pre-token's bytes -> its tokens when training ended

    def vocab(self) -> dict[int, bytes]:
        return vocab_of(self.alive)


def intersection_over_self(pair_count: int, token_count: int) -> float:
    """Chizhov et al.'s IoS of a token ``x`` merged into ``x y`` (or ``y x``): the share of ``x``'s
    occurrences that were inside the merged pair, ``f(pair) / f(x)``, both counted before the merge.

    >>> intersection_over_self(9, 10)
    0.9
    """
    return pair_count / token_count if token_count else 0.0


def train_picky(counts: Mapping[str, int], n_merges: int, threshold: float | None) -> Picky:
    """Picky BPE: plain BPE, but after merging ``(x, y)`` a part whose IoS is greater than ``threshold``
    (and that is not a single byte) leaves the vocabulary, its remaining occurrences split back into
    the two tokens it was made of (recursively, if one of those left too). Training goes on until the
    vocabulary holds ``256 + n_merges`` tokens. ``threshold=None`` never removes: plain BPE.

    The test is the reference implementation's (pchizhov/picky_bpe, ``bpe_trainer.py``,
    ``_remove_if_possible`` and ``_merge_token_in_words``): with ``m`` the merges just made and ``r`` the
    part's occurrences left after them, the part goes when ``m / (r + m) > threshold`` -- strictly.
    For ``x != y`` that is ``f(x y) / f(x)`` before the merge. subtle: for a pair of one token with
    itself, ``(x, x)``, each merge takes two ``x``, so ``r = f(x) - 2 m`` and the score is
    ``m / (f(x) - m)``; and ``m`` counts the merges made, left to right (``x x x`` is one merge, not two).

    >>> run = train_picky(count_pretokens("hug hug hug hugs pug pugs pun"), 5, threshold=0.9)
    >>> [a + b for a, b in run.merges]
    [b'ug', b'hug', b' p', b' hug', b' pug', b'un']
    >>> run.removed  # after merge 4, (b' p', b'ug'): every 'ug' left was in ' pug'
    [(4, b'ug', 1.0)]
    """
    n_merges = check_merges_count(n_merges)
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
                                  or not 0 < threshold <= 1):
        raise ValueError(f"threshold must be a number in (0, 1], or None for no removal, got {threshold!r}")
    m = Merges(word_sequences(counts))
    made_of: dict[bytes, Pair] = {}
    alive: dict[bytes, None] = {}
    merges: list[Pair] = []
    removed: list[tuple[int, bytes, float]] = []
    events: list[tuple[str, Pair | bytes]] = []

    def parts(token: bytes) -> Seq:
        a, b = made_of[token]
        return tuple(s for half in (a, b) for s in ((half,) if len(half) == 1 or half in alive else parts(half)))

    while len(merges) - len(removed) < n_merges and (found := m.best()) is not None:
        pair = found[0]
        token = pair[0] + pair[1]
        had = m.tokens[token]  # subtle: the token may exist already, made from another pair
        m.merge(pair)
        made = m.tokens[token] - had  # the merges made (for (x, x): fewer than the pair's count)
        merges.append(pair)
        events.append(("merge", pair))
        made_of[token] = pair
        alive.pop(token, None)
        alive[token] = None
        if threshold is None:
            continue
        for part in dict.fromkeys(pair):
            # the part's occurrences now, counted when it is tested (after any removal just before it)
            score = intersection_over_self(made, m.tokens[part] + made)
            if len(part) > 1 and part in alive and score > threshold:
                del alive[part]
                m.split(part, parts)
                removed.append((len(merges) - 1, part, score))
                events.append(("remove", part))
    return Picky(merges, removed, events, list(alive), threshold, m.state())


def picky_tokens_of(run: Picky) -> Callable[[bytes], list[bytes]]:
    """A piece's tokens under ``run``: its training events replayed in order (merges and removals)."""
    made_of: dict[bytes, Pair] = {}
    alive: set[bytes] = set()
    steps: list[tuple[Pair, bytes] | tuple[bytes, dict[bytes, Pair], frozenset[bytes]]] = []
    for _, what in run.events:
        if isinstance(what, tuple):  # ("merge", pair); a removal is ("remove", token)
            made_of[what[0] + what[1]] = what
            alive.add(what[0] + what[1])
            steps.append((what, what[0] + what[1]))
        else:
            alive.discard(what)
            steps.append((what, dict(made_of), frozenset(alive)))

    def cut(piece: bytes) -> list[bytes]:
        seq = list(split_bytes(piece))
        for step in steps:
            if len(step) == 2:  # a merge: only where its token's bytes occur at all
                if len(seq) > 1 and step[1] in piece:
                    seq = list(merge_pair(seq, step[0]))
            elif step[0] in seq:  # a removal
                _, made, live = step

                def undo(t: bytes) -> list[bytes]:
                    if len(t) == 1 or t in live:
                        return [t]
                    return undo(made[t][0]) + undo(made[t][1])
                seq = [q for s in seq for q in undo(s)]
        return seq

    return cut


# ---------------------------------------------------------------- parity-aware BPE

class Parity(NamedTuple):
    merges: list[Pair]
    chosen_for: list[str]  # the language each merge was chosen for
    dev_tokens: dict[str, int]  # each language's development text in tokens at the end


def train_parity(train_texts: Mapping[str, str], dev_texts: Mapping[str, str], n_merges: int,
                 pattern: str | None = "gpt2") -> Parity:
    """Parity-aware BPE: each merge is the most frequent pair *of one language's training text*: the
    language whose development text (parallel: the same content in every language) is longest in
    tokens so far (ties to the first in ``train_texts``' order). The merge is applied to every
    language. With one language it is plain BPE.

    >>> run = train_parity({"a": "aaa aaa", "b": "bc bc bc"}, {"a": "aaa", "b": "bcbcbc"}, 3)
    >>> run.merges, run.chosen_for
    ([(b'b', b'c'), (b'a', b'a'), (b' ', b'bc')], ['b', 'a', 'b'])
    """
    if set(train_texts) != set(dev_texts) or not train_texts:
        raise ValueError(f"train_texts and dev_texts must name the same languages, got {sorted(train_texts)} "
                         f"and {sorted(dev_texts)}")
    n_merges = check_merges_count(n_merges)
    pattern = resolve_pattern(pattern)
    languages = list(train_texts)
    train = {lang: Merges(word_sequences(count_pretokens(train_texts[lang], pattern=pattern))) for lang in languages}
    dev = {lang: Merges(word_sequences(count_pretokens(dev_texts[lang], pattern=pattern))) for lang in languages}
    merges: list[Pair] = []
    chosen: list[str] = []
    while len(merges) < n_merges:
        order = sorted(languages, key=lambda lang: -dev[lang].total_tokens())  # stable: ties keep the order given
        found = next(((lang, f) for lang in order if (f := train[lang].best()) is not None), None)
        if found is None:
            break
        lang, (pair, _) = found
        merges.append(pair)
        chosen.append(lang)
        for m in (*train.values(), *dev.values()):
            m.merge(pair)
    return Parity(merges, chosen, {lang: dev[lang].total_tokens() for lang in languages})


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient: the mean absolute difference of all ordered pairs over twice the mean.

    0 when all values are equal; near 1 when one value holds everything.

    >>> gini([1, 1, 1, 1]), gini([0, 0, 0, 4]), round(gini([1, 2, 3, 4]), 4)
    (0.0, 0.75, 0.25)
    """
    n = len(values)
    if n == 0 or sum(values) <= 0:
        raise ValueError("the Gini coefficient needs at least one value and a positive total")
    mean = sum(values) / n
    return sum(abs(a - b) for a in values for b in values) / (2 * n * n * mean)
