"""Byte-level BPE training: ``train_bpe(source, vocab_size) -> (vocab, merges)``.

Both methods learn exactly the same merges:

* ``method="naive"`` recounts every pair after every merge -- slow, but obviously right;
* ``method="fast"`` (default) counts once and then updates only the words that contain the
  merged pair, with a heap to find the best pair (``bpe_course/fast_merge.py``).

Counting the pre-tokens comes first and is shared by both: ``bpe_course/fast_count.py`` counts
each distinct stretch of text once, and big inputs are shared out to forked worker processes.

Ties are broken deterministically: the highest count wins, then the lexicographically greatest
pair, comparing ``(bytes_a, bytes_b)`` as Python compares tuples of bytes.

>>> vocab, merges = train_bpe("low low low lower lowest", 259, pattern="gpt2")
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
>>> vocab[256], vocab[258]
(b'ow', b' low')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from .corpus import read_text_file
from .fast_count import SegmentCounter
from .fast_merge import descending_key as _desc  # noqa: F401  (kept importable from here)
from .fast_merge import learn_fast
from .parallel_count import PARALLEL_MIN_CHARS, byte_cuts, char_cuts, count_bytes, count_parts, count_text, read_bytes
from .pairs import merge_pair
from .pretokenize import resolve_pattern

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]


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
    documents (pre-tokens never cross from one document to the next). Big inputs are counted
    by ``workers`` processes (default: all cores), cut where no pre-token can change.

    >>> sorted(count_pretokens("the cat, the hat").items())
    [(' cat', 1), (' hat', 1), (' the', 1), (',', 1), ('the', 1)]
    """
    pattern = resolve_pattern(pattern)
    specials = check_special_tokens(special_tokens)
    counter, counts = SegmentCounter(pattern), Counter()
    if isinstance(source, Path):
        data = read_bytes(source)
        try:
            count_parts(count_bytes, data, byte_cuts(data, pattern, specials, workers), specials, counter, counts)
        except UnicodeDecodeError:
            read_text_file(source)  # raises CorpusError naming the file and the bad byte's offset
            raise
        return counter.finish(counts)
    for doc in [source] if isinstance(source, str) else source:
        if not isinstance(doc, str):
            raise TypeError(f"training text must be str, got {type(doc).__name__}")
        count_parts(count_text, doc, char_cuts(doc, pattern, specials, workers), specials, counter, counts)
    return counter.finish(counts)


def _count_chunk(text: str, pattern: str | None, specials: list[str]) -> Counter[str]:
    """Serial counting of one text, the reference the parallel path must equal."""
    counter = SegmentCounter(pattern)
    count_text(text, 0, len(text), specials, counter)
    return counter.finish(Counter())


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
    word_counts = {word.encode("utf-8"): n for word, n in counts.items()}  # distinct str, distinct bytes
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
        words = {merge_pair(w, best): n for w, n in words.items()}  # any symbols: str or bytes
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    return merges


def _learn_fast(word_counts: dict[bytes, int], n_merges: int, progress: bool = False) -> Merges:
    """Count pairs once, then after each merge update only the words that contain the pair.

    The work is done by :func:`bpe_course.fast_merge.learn_fast`; read it for how.
    """
    bar = _progress(n_merges, progress)
    try:
        return learn_fast(word_counts, n_merges, bar)
    finally:
        if bar is not None:
            bar.close()
