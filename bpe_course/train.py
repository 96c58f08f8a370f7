"""Byte-level BPE training: ``train_bpe(source, vocab_size) -> (vocab, merges)``.

Both methods learn exactly the same merges:

* ``method="naive"`` recounts every pair after every merge -- slow, but obviously right;
* ``method="fast"`` (default) counts once and then updates only the words that contain the
  merged pair, with a heap to find the best pair.

Ties are broken deterministically: the highest count wins, then the lexicographically greatest
pair, comparing ``(bytes_a, bytes_b)`` as Python compares tuples of bytes.

>>> vocab, merges = train_bpe("low low low lower lowest", 259, pattern="gpt2")
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
>>> vocab[256], vocab[258]
(b'ow', b' low')
"""

from __future__ import annotations

import heapq
import multiprocessing
import os
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from .corpus import read_text_file
from .pretokenize import pretokenize, resolve_pattern, safe_cut, split_specials

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]

PARALLEL_MIN_CHARS = 1_000_000  # below this, starting worker processes costs more than it saves


def check_special_tokens(special_tokens: Iterable[str]) -> list[str]:
    """Validate special tokens: non-empty ``str``, no duplicates; return them as a list."""
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, not the string {special_tokens!r}")
    specials = list(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"a special token must be a non-empty str, got {s!r}")
    if len(set(specials)) != len(specials):
        dupes = sorted({s for s in specials if specials.count(s) > 1})
        raise ValueError(f"special tokens must be distinct; repeated: {dupes}")
    return specials


def count_pretokens(source: str | Path | Iterable[str], special_tokens: Iterable[str] = (),
                    pattern: str | None = "gpt2", workers: int | None = None) -> Counter[str]:
    """Count the pre-tokens of ``source``; special tokens are split out and not counted.

    ``source`` is text (``str``), a ``pathlib.Path`` to a UTF-8 file, or an iterable of ``str``
    documents (pre-tokens never cross from one document to the next).

    >>> sorted(count_pretokens("the cat, the hat").items())
    [(' cat', 1), (' hat', 1), (' the', 1), (',', 1), ('the', 1)]
    """
    pattern = resolve_pattern(pattern)
    specials = check_special_tokens(special_tokens)
    if isinstance(source, Path):
        source = read_text_file(source)
    documents = [source] if isinstance(source, str) else source
    counts: Counter[str] = Counter()
    for doc in documents:
        if not isinstance(doc, str):
            raise TypeError(f"training text must be str, got {type(doc).__name__}")
        chunks = _chunks(doc, pattern, specials, workers)
        if len(chunks) > 1:
            with multiprocessing.get_context("fork").Pool(len(chunks)) as pool:
                for part in pool.starmap(_count_chunk, [(c, pattern, specials) for c in chunks]):
                    counts.update(part)
        else:
            counts.update(_count_chunk(doc, pattern, specials))
    return counts


def _count_chunk(text: str, pattern: str | None, specials: list[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for piece, is_special in split_specials(text, specials):
        if not is_special:
            counts.update(pretokenize(piece, pattern))
    return counts


def _chunks(text: str, pattern: str | None, specials: list[str], workers: int | None) -> list[str]:
    """Cut big text into one chunk per worker, only where pre-tokens cannot change."""
    workers = workers or min(os.cpu_count() or 1, 8)
    if workers < 2 or len(text) < PARALLEL_MIN_CHARS or "fork" not in multiprocessing.get_all_start_methods():
        return [text]
    chunks, start = [], 0
    for k in range(1, workers):
        cut = safe_cut(text, pattern, specials, limit=len(text) * k // workers)
        if cut > start:
            chunks.append(text[start:cut])
            start = cut
    chunks.append(text[start:])
    return chunks


def train_bpe(source: str | Path | Iterable[str], vocab_size: int, special_tokens: Iterable[str] = (), *,
              pattern: str | None = "gpt2", method: str = "fast", progress: bool = False) -> tuple[Vocab, Merges]:
    """Learn a byte-level BPE vocabulary of ``vocab_size`` tokens (256 bytes + merges + specials).

    Training stops early, with a smaller vocabulary, only when no adjacent pair is left at all.
    """
    specials = check_special_tokens(special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if vocab_size < 256 + len(specials):
        raise ValueError(f"vocab_size={vocab_size} is too small: it must be at least 256 (one token per byte) "
                         f"+ {len(specials)} special tokens = {256 + len(specials)}")
    if method not in ("fast", "naive"):
        raise ValueError(f"method must be 'fast' or 'naive', not {method!r}")
    counts = count_pretokens(source, specials, pattern)
    word_counts = Counter()
    for word, n in counts.items():
        word_counts[word.encode("utf-8")] += n
    learn = _learn_fast if method == "fast" else _learn_naive
    merges = learn(word_counts, vocab_size - 256 - len(specials), progress)
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        vocab[len(vocab)] = a + b
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")
    return vocab, merges


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="merges", unit="merge")


def _learn_naive(word_counts: dict[bytes, int], n_merges: int, progress: bool = False) -> Merges:
    """The reference: after every merge, count every pair again from scratch."""
    words = {tuple(bytes([b]) for b in w): n for w, n in word_counts.items()}
    merges: Merges = []
    bar = _progress(n_merges, progress)
    for _ in range(n_merges):
        pairs: Counter[tuple[bytes, bytes]] = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        words = {_merge_symbols(w, best): n for w, n in words.items()}
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    return merges


def _merge_symbols(word: tuple[bytes, ...], pair: tuple[bytes, bytes]) -> tuple[bytes, ...]:
    """Merge every occurrence of ``pair``, left to right, without overlaps.

    >>> _merge_symbols((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def _desc(token: bytes) -> tuple[int, ...]:
    """A key that sorts byte strings in *descending* order: a min-heap then pops the greatest.

    subtle: a prefix must sort after its extensions (b"ab" > b"a"), hence the 256 terminator.
    """
    return tuple(255 - c for c in token) + (256,)


def _learn_fast(word_counts: dict[bytes, int], n_merges: int, progress: bool = False) -> Merges:
    """Count pairs once, then after each merge update only the words that contain the pair."""
    tokens: list[bytes] = [bytes([i]) for i in range(256)]
    keys = [_desc(t) for t in tokens]
    words = [list(w) for w in word_counts]
    freqs = list(word_counts.values())
    pair_counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for i, word in enumerate(words):
        f = freqs[i]
        for pair in zip(word, word[1:]):
            pair_counts[pair] += f
            where[pair].add(i)
    heap = [(-c, keys[a], keys[b], a, b) for (a, b), c in pair_counts.items()]
    heapq.heapify(heap)
    merges: Merges = []
    bar = _progress(n_merges, progress)
    for _ in range(n_merges):
        best = _pop_best(heap, pair_counts, keys)
        if best is None:
            break
        new = len(tokens)
        tokens.append(tokens[best[0]] + tokens[best[1]])
        keys.append(_desc(tokens[new]))
        merges.append((tokens[best[0]], tokens[best[1]]))
        touched = _merge_everywhere(best, new, words, freqs, pair_counts, where)
        for pair in touched:
            if pair_counts[pair] > 0:
                heapq.heappush(heap, (-pair_counts[pair], keys[pair[0]], keys[pair[1]], *pair))
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    return merges


def _pop_best(heap: list, pair_counts: dict[tuple[int, int], int], keys: list) -> tuple[int, int] | None:
    """Pop the best pair whose count is current.

    subtle: counts of old pairs only ever go down, so we never push on a decrease. A popped entry
    whose count is stale is pushed back with its true count: each entry is an upper bound, hence
    the first entry whose count is current is the true best.
    """
    while heap:
        negc, _, _, a, b = heapq.heappop(heap)
        current = pair_counts.get((a, b), 0)
        if current == -negc:
            return a, b
        if current > 0:
            heapq.heappush(heap, (-current, keys[a], keys[b], a, b))
    return None


def _merge_everywhere(pair: tuple[int, int], new: int, words: list[list[int]], freqs: list[int],
                      pair_counts: dict[tuple[int, int], int], where: dict[tuple[int, int], set[int]]) -> set:
    """Replace ``pair`` by ``new`` in every word that has it; keep pair counts and the index exact."""
    a, b = pair
    touched: set[tuple[int, int]] = set()
    for i in where.pop(pair, ()):
        word, f = words[i], freqs[i]
        out: list[int] = []
        j, n = 0, len(word)
        while j < n:
            if j + 1 < n and word[j] == a and word[j + 1] == b:
                # subtle: the left neighbour comes from `out`, so a run like a b a b first turns
                # (b, a) into (new, a) and then (new, a) into (new, new): the counts stay exact.
                if out:
                    left = out[-1]
                    pair_counts[left, a] -= f
                    pair_counts[left, new] += f
                    where[left, new].add(i)
                    touched.add((left, new))
                if j + 2 < n:
                    right = word[j + 2]
                    pair_counts[b, right] -= f
                    pair_counts[new, right] += f
                    where[new, right].add(i)
                    touched.add((new, right))
                pair_counts[a, b] -= f
                out.append(new)
                j += 2
            else:
                out.append(word[j])
                j += 1
        words[i] = out
    pair_counts.pop(pair, None)
    return touched
