"""Byte-level BPE training: ``train_bpe(source, vocab_size) -> (vocab, merges)``.

Both methods learn exactly the same merges:

* ``method="naive"`` recounts every pair after every merge -- slow, but obviously right;
* ``method="fast"`` (default) counts once and then updates only the words that contain the
  merged pair, with a bucket queue to find the best pair (``bpe_course/fast/merge.py``).

Counting the pre-tokens comes first and is shared by both: ``bpe_course/fast/count.py`` counts
each distinct stretch of text once, and ``bpe_course/fast/parallel.py`` shares big inputs out to
forked worker processes.

Ties are broken deterministically: the highest count wins, then the lexicographically greatest
pair, comparing ``(bytes_a, bytes_b)`` as Python compares tuples of bytes.

One rule for a string, the same in the whole package (``docs/cli_and_formats.md``): a
``pathlib.Path`` is always a file. A ``str`` is *text* where a function takes text (``train_bpe``,
``train``, ``count_pretokens``, ``Tokenizer.encode``) and a *name* where a function takes a
source of text (``corpus.load_text``, ``corpus.train_heldout``, the command line's ``FILE``): an
existing file, else a built-in corpus (:func:`bpe_course.corpus.find`). A string is never read the
other way by a guess: training text that names an existing file is refused, and so is a name that
is neither a file nor a corpus, each error saying what to pass instead.

>>> vocab, merges = train_bpe("low low low lower lowest", 259, pattern="gpt2")
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
>>> vocab[256], vocab[258]
(b'ow', b' low')
"""

from __future__ import annotations

import mmap
import operator
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from .errors import CorpusError
from .fast.count import SegmentCounter
from .fast.merge import learn_fast
from .fast.parallel import add_file, add_text, byte_cuts, char_cuts, count_parts, file_size
from .files import check_text_file, read_text_blocks
from .pairs import apply_merge, best_pair, count_pairs
from .pretokenize import check_special_tokens, replace_lone_surrogates, resolve_pattern

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]


def check_train_args(vocab_size: int, special_tokens: Iterable[str], *, method: str = "fast", min_frequency: int = 1,
                     size_name: str = "vocab_size=", specials_name: str = "special_tokens") -> tuple[int, list[str]]:
    """Check training's arguments at the door, once, before any text is read; return the vocabulary size and
    the special tokens, as int and list.

    Every way in checks here (``train_bpe``/``train``, ``train_counts``, ``scale.train_with_dask``, the
    CLI). The names are the caller's: ``vocab_size=``/``special_tokens`` in Python,
    ``--vocab-size``/``--special`` on the command line.

    >>> check_train_args(256, ["<|endoftext|>"])
    Traceback (most recent call last):
    ...
    ValueError: vocab_size=256 is too small: it must be at least 256 (one token per byte) + 1 special tokens = 257
    """
    specials = check_special_tokens(special_tokens, specials_name)
    if isinstance(vocab_size, bool) or not hasattr(type(vocab_size), "__index__"):  # NumPy integers are fine
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    vocab_size = operator.index(vocab_size)
    if vocab_size < 256 + len(specials):
        raise ValueError(f"{size_name}{vocab_size} is too small: it must be at least 256 (one token per byte) "
                         f"+ {len(specials)} special tokens = {256 + len(specials)}")
    if method not in ("fast", "naive"):
        raise ValueError(f"method must be 'fast' or 'naive', not {method!r}")
    if isinstance(min_frequency, bool) or not hasattr(type(min_frequency), "__index__") or min_frequency < 1:
        raise ValueError(f"min_frequency must be a positive int, got {min_frequency!r}")
    return vocab_size, specials


def count_pretokens(source: str | Path | Iterable[str | Path], special_tokens: Iterable[str] = (),
                    pattern: str | None = "gpt2", workers: int | None = None) -> Counter[str]:
    """Count the pre-tokens of ``source``; special tokens are split out and not counted.

    ``source`` is text (``str``), a ``pathlib.Path`` to a UTF-8 file, or an iterable of documents,
    each a ``str`` or a ``Path`` (pre-tokens never cross from one document to the next). A file is
    never read whole: each worker reads its own byte range a block at a time, so memory stays flat
    however big the file. A ``str`` is always text; a one-line ``str`` that names an existing file
    is refused, saying what to pass instead (see "One rule for a string" above). Lone surrogates
    become U+FFFD, as in encoding. Big inputs are counted by ``workers`` processes (default: all
    cores), cut where no pre-token can change.

    >>> sorted(count_pretokens("the cat, the hat").items())
    [(' cat', 1), (' hat', 1), (' the', 1), (',', 1), ('the', 1)]
    """
    return _count(source, check_special_tokens(special_tokens), resolve_pattern(pattern), workers)


def _count(source: str | Path | Iterable[str | Path], specials: list[str], pattern: str | None,
           workers: int | None = None) -> Counter[str]:
    """:func:`count_pretokens` with its arguments already checked (``pattern`` a regex or None)."""
    counter, counts = SegmentCounter(pattern), Counter[str]()
    if isinstance(source, str):
        _check_text(source)
    for doc in [source] if isinstance(source, (str, Path)) else source:
        if isinstance(doc, Path):
            _count_file(doc, pattern, specials, workers, counter, counts)
            continue
        if not isinstance(doc, str):
            raise TypeError(f"training text must be str or a pathlib.Path, got {type(doc).__name__}")
        doc = replace_lone_surrogates(doc)  # tiktoken's rule, as in encoding
        count_parts(add_text, doc, char_cuts(doc, pattern, specials, workers), specials, counter, counts)
    return counter.finish(counts)


def _count_file(path: Path, pattern: str | None, specials: list[str], workers: int | None, counter: SegmentCounter,
                counts: Counter[str]) -> None:
    """Count a UTF-8 file; workers read their own byte ranges (cut points found through a memory map)."""
    check_text_file(path, CorpusError)  # a folder, a device (/dev/zero, which never ends): one line
    if not path.is_file():  # a pipe (<(cat f)) cannot be mapped nor read twice: its text is read once
        text = "".join(read_text_blocks(path, CorpusError))
        count_parts(add_text, text, char_cuts(text, pattern, specials, workers), specials, counter, counts)
        return
    size = file_size(path)
    if size == 0:
        return
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        cuts = byte_cuts(data, pattern, specials, workers)
    count_parts(add_file, str(path), cuts, specials, counter, counts)


def _check_text(text: str) -> None:
    """Refuse a one-line ``str`` that is the path of an existing file (Stanford CS336 passes paths as str).

    subtle: a ``str`` is always text here, so such a string would be trained on as its own few
    characters; the other way of reading a string (a file or a corpus, ``corpus.load_text``) is
    never guessed, it is named in the error. See "One rule for a string" in the module docstring.
    """
    if "\n" not in text and len(text) < 4096 and os.path.isfile(text):
        raise ValueError(f"{text!r} is the name of a file, not training text: pass pathlib.Path({text!r}) to "
                         f"train on the file, corpus.load_text({text!r}) for its text (or [{text!r}] to train on "
                         f"these {len(text)} characters)")


class Training(NamedTuple):
    """What a training run learned, and why it stopped (see :func:`train`)."""

    vocab: Vocab
    merges: Merges
    merge_counts: list[int]  # how often each merged pair occurred in the training text, merge by merge
    stop_reason: str  # STOP_VOCAB_SIZE, STOP_NO_PAIR, or "...fewer than min_frequency..."


STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIR = "no pair left to merge"


def train(source: str | Path | Iterable[str | Path], vocab_size: int, special_tokens: Iterable[str] = (), *,
          pattern: str | None = "gpt2", method: str = "fast", min_frequency: int = 1,
          progress: bool = False) -> Training:
    """Like :func:`train_bpe`, but also say how often each merged pair occurred and why training stopped.

    Every argument is checked here, once, before any text is read.

    >>> run = train("low low low lower lowest", 300, min_frequency=2)
    >>> run.merges, run.merge_counts
    ([(b'o', b'w'), (b'l', b'ow'), (b' ', b'low'), (b' low', b'e')], [5, 5, 4, 2])
    >>> run.stop_reason
    'the most frequent pair left occurs 1 times, fewer than min_frequency=2'
    """
    vocab_size, specials = check_train_args(vocab_size, special_tokens, method=method, min_frequency=min_frequency)
    counts = _count(source, specials, resolve_pattern(pattern))
    return _learn(counts, vocab_size, specials, method, operator.index(min_frequency), progress)


def train_counts(counts: Mapping[str, int], vocab_size: int, special_tokens: Iterable[str] = (), *,
                 method: str = "fast", min_frequency: int = 1, progress: bool = False) -> Training:
    """Learn merges from pre-token counts made elsewhere: counts add up, so they can come from many machines.

    ``train(text, ...)`` is ``train_counts(count_pretokens(text, ...), ...)``; ``bpe_course.scale``
    counts a folder of files with Dask and hands the sum to this.

    >>> from collections import Counter
    >>> part1, part2 = count_pretokens("low low lower"), count_pretokens("lowest low")
    >>> train_counts(part1 + part2, 259).merges == train(["low low lower", "lowest low"], 259).merges
    True
    """
    vocab_size, specials = check_train_args(vocab_size, special_tokens, method=method, min_frequency=min_frequency)
    # subtle: checked as whole collections in C (a novel has 44,000 distinct pre-tokens); only when a
    # check fails does a plain loop look for the entry to name
    if counts and not (set(map(type, counts)) <= {str} and set(map(type, counts.values())) <= {int}
                       and min(counts.values()) >= 0):
        for word, n in counts.items():
            if not isinstance(word, str) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueError(f"counts must map pre-token strings to non-negative ints; got {word!r}: {n!r}")
    return _learn(counts, vocab_size, specials, method, operator.index(min_frequency), progress)


def _learn(counts: Mapping[str, int], vocab_size: int, specials: list[str], method: str, min_frequency: int,
           progress: bool) -> Training:
    """The merge loop on checked arguments: what :func:`train` and :func:`train_counts` share."""
    word_counts = {word.encode("utf-8"): n for word, n in counts.items() if n}  # distinct str, distinct bytes
    learn = _learn_fast if method == "fast" else _learn_naive
    n_merges = vocab_size - 256 - len(specials)
    merges, merge_counts, best_left = learn(word_counts, n_merges, progress, min_frequency)
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        vocab[len(vocab)] = a + b
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")
    if len(merges) == n_merges:
        reason = STOP_VOCAB_SIZE
    elif best_left == 0:
        reason = STOP_NO_PAIR
    else:
        reason = f"the most frequent pair left occurs {best_left} times, fewer than min_frequency={min_frequency}"
    return Training(vocab, merges, merge_counts, reason)


def train_bpe(source: str | Path | Iterable[str | Path], vocab_size: int, special_tokens: Iterable[str] = (), *,
              pattern: str | None = "gpt2", method: str = "fast", min_frequency: int = 1,
              progress: bool = False) -> tuple[Vocab, Merges]:
    """Learn a byte-level BPE vocabulary of ``vocab_size`` tokens (256 bytes + merges + specials).

    ``source`` is the training text: a ``str`` (always the text itself), a ``pathlib.Path`` to a
    UTF-8 file (read a block at a time), or a list of documents, each a ``str`` or a ``Path``. For a
    built-in corpus, or a file named by a string, ``corpus.load_text(name)`` gives its text (see "One
    rule for a string" above).

    Training stops early, with a smaller vocabulary, when no adjacent pair is left, or when the
    most frequent pair left occurs fewer than ``min_frequency`` times (Hugging Face's name and
    meaning; the default 1 merges anything). A merge whose pair was seen once or twice mostly
    memorises the training text: chapter 06 measures this. :func:`train` (the same arguments,
    checked there) also says why it stopped.
    """
    vocab, merges, _, _ = train(source, vocab_size, special_tokens, pattern=pattern, method=method,
                                min_frequency=min_frequency, progress=progress)
    return vocab, merges


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="merges", unit="merge")


def _learn_naive(word_counts: dict[bytes, int], n_merges: int, progress: bool = False,
                 min_frequency: int = 1) -> tuple[Merges, list[int], int]:
    """The reference: after every merge, count every pair again from scratch."""
    words = {tuple(bytes([b]) for b in w): n for w, n in word_counts.items()}
    merges: Merges = []
    merge_counts: list[int] = []
    bar = _progress(n_merges, progress)
    try:
        while True:
            pairs = count_pairs(words)
            if not pairs:
                return merges, merge_counts, 0
            best = best_pair(pairs)
            if len(merges) == n_merges or pairs[best] < min_frequency:
                return merges, merge_counts, pairs[best]
            merges.append(best)
            merge_counts.append(pairs[best])
            words = apply_merge(words, best)  # the same helpers as chapter 2's, on bytes instead of str
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()


def _learn_fast(word_counts: dict[bytes, int], n_merges: int, progress: bool = False,
                min_frequency: int = 1) -> tuple[Merges, list[int], int]:
    """Count pairs once, then after each merge update only the words that contain the pair.

    The work is done by :func:`bpe_course.fast.merge.learn_fast`; read it for how.
    """
    bar = _progress(n_merges, progress)
    try:
        return learn_fast(word_counts, n_merges, bar, min_frequency)
    finally:
        if bar is not None:
            bar.close()
