"""Character-level BPE with an end-of-word marker, as in Sennrich et al. (2016).

The teaching engine for chapters 1-6. Text is split on whitespace; each word becomes its
characters plus a separate end-of-word symbol ``</w>``. Training repeatedly merges the most
frequent adjacent pair of symbols, counted over the unique words weighted by frequency.

Ids: 0-3 are the special tokens, then the base symbols (every training character plus ``</w>``,
sorted), then one id per merge in creation order.

>>> bpe = WordBPE.train("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3, 1000)
>>> bpe.merges[:4]
[('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o')]
>>> bpe.tokenize("lowest newer")
['low', 'est</w>', 'new', 'e', 'r</w>']
>>> bpe.decode(bpe.encode("lowest  newer"))
'lowest newer'
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

EOW = "</w>"
PAD, BOS, EOS, UNK = "<|pad|>", "<|bos|>", "<|eos|>", "<|unk|>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every WordBPE
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIR = "no pair occurs at least twice"

Word = tuple[str, ...]
Pair = tuple[str, str]


def word_counts(text: str) -> dict[Word, int]:
    """Split ``text`` on whitespace; count each word as its characters plus ``</w>``.

    >>> word_counts("low low  lower")
    {('l', 'o', 'w', '</w>'): 2, ('l', 'o', 'w', 'e', 'r', '</w>'): 1}
    """
    return {(*word, EOW): n for word, n in Counter(text.split()).items()}


def pair_counts(words: Mapping[Word, int]) -> Counter[Pair]:
    """Count adjacent symbol pairs, each word weighted by its frequency.

    >>> pair_counts({("l", "o", "w", "</w>"): 2, ("o", "w", "</w>"): 1})
    Counter({('o', 'w'): 3, ('w', '</w>'): 3, ('l', 'o'): 2})

    Subtle: overlapping occurrences all count, as in the classic algorithm, even though
    ``merge_pair`` can only join one of them:

    >>> pair_counts({("a", "a", "a"): 1})
    Counter({('a', 'a'): 2})
    """
    counts: Counter[Pair] = Counter()
    for word, freq in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts


def merge_pair(symbols: Sequence[str], pair: Pair) -> Word:
    """Join every occurrence of ``pair`` into one symbol, scanning left to right.

    >>> merge_pair(("l", "o", "w", "</w>"), ("o", "w"))
    ('l', 'ow', '</w>')
    >>> merge_pair(("a", "a", "a"), ("a", "a"))  # non-overlapping: the scan resumes after "aa"
    ('aa', 'a')
    """
    a, b = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def apply_merge(words: Mapping[Word, int], pair: Pair) -> dict[Word, int]:
    """Apply ``merge_pair`` to every word; frequencies are unchanged.

    >>> apply_merge({("l", "o", "w", "</w>"): 5, ("n", "e", "w", "</w>"): 2}, ("w", "</w>"))
    {('l', 'o', 'w</w>'): 5, ('n', 'e', 'w</w>'): 2}
    """
    # Merging never changes the text a word spells, so two different words never collide here.
    return {merge_pair(word, pair): freq for word, freq in words.items()}


def _order(item: tuple[Pair, int]) -> tuple[int, Pair]:
    """Sort key for (pair, count): higher count first, then the greater pair (tuple order)."""
    return item[1], item[0]


def best_pair(counts: Mapping[Pair, int]) -> Pair:
    """The pair to merge next: the highest count; ties go to the lexicographically greatest pair.

    >>> best_pair({("a", "b"): 3, ("x", "y"): 3, ("z", "z"): 1})
    ('x', 'y')
    """
    return max(counts, key=lambda p: (counts[p], p))


def top_pairs(counts: Mapping[Pair, int], n: int = 10) -> list[tuple[Pair, int]]:
    """The ``n`` best pairs with their counts, best first, in the order ``best_pair`` uses.

    >>> top_pairs({("a", "b"): 3, ("x", "y"): 3, ("z", "z"): 1}, n=2)
    [(('x', 'y'), 3), (('a', 'b'), 3)]
    """
    return heapq.nlargest(n, counts.items(), key=_order)


def _index(words: Mapping[Word, int]) -> dict[Pair, set[Word]]:
    """For each pair, the set of words containing it."""
    where: dict[Pair, set[Word]] = {}
    for word in words:
        for pair in zip(word, word[1:]):
            where.setdefault(pair, set()).add(word)
    return where


def _merge_in_place(words: dict[Word, int], counts: Counter[Pair], where: dict[Pair, set[Word]],
                    pair: Pair) -> None:
    """Merge ``pair`` in the words containing it, updating ``counts`` and ``where`` to match."""
    for word in where.pop(pair):
        freq = words.pop(word)
        new = merge_pair(word, pair)
        words[new] = freq
        for p in zip(word, word[1:]):  # take the old word's pairs out ...
            counts[p] -= freq
            if counts[p] == 0:
                del counts[p]  # subtle: keep zero counts out of best_pair and top_pairs
            where.get(p, set()).discard(word)
        for p in zip(new, new[1:]):  # ... and put the new word's pairs in
            counts[p] += freq
            where.setdefault(p, set()).add(new)


@dataclass(frozen=True)
class MergeStep:
    """One training step: which pair was merged, how often it occurred, what it became."""

    step: int  # 1 for the first merge
    pair: Pair
    count: int
    new_symbol: str
    new_id: int
    top_pairs: list[tuple[Pair, int]]  # the most frequent pairs just before this merge


class WordBPE:
    """A character-level BPE tokenizer: an alphabet plus merges in creation order.

    Build one with ``WordBPE.train(corpus, vocab_size)`` or ``WordBPE.from_merges(merges, alphabet)``.
    Attributes: ``vocab`` (id -> symbol), ``merges``, ``alphabet`` (sorted training characters),
    ``token_to_id``, ``trace`` (MergeSteps, filled by ``train(..., trace=True)``) and
    ``stop_reason`` (why training stopped; None if not trained).

    >>> bpe = WordBPE.from_merges([("o", "w"), ("l", "ow")], alphabet="low")
    >>> bpe.vocab
    {0: '<|pad|>', 1: '<|bos|>', 2: '<|eos|>', 3: '<|unk|>', 4: '</w>', 5: 'l', 6: 'o', 7: 'w', 8: 'ow', 9: 'low'}
    >>> bpe.tokenize("low owl wow!")
    ['low', '</w>', 'ow', 'l', '</w>', 'w', 'ow', '<|unk|>', '</w>']
    >>> bpe.decode(bpe.encode("low owl wow!", bos=True))
    'low owl wow<|unk|>'
    """

    def __init__(self, merges: Iterable[Pair] = (), alphabet: Iterable[str] = ()) -> None:
        self.alphabet = sorted(set(alphabet))
        for ch in self.alphabet:
            if len(ch) != 1 or ch.isspace():
                raise ValueError(f"alphabet entries must be single non-space characters, got {ch!r}")
        self.merges: list[Pair] = [(a, b) for a, b in merges]
        self.vocab: dict[int, str] = dict(enumerate([*SPECIALS, *sorted({*self.alphabet, EOW})]))
        # For decoding: each symbol's text and whether it ends a word (i.e. ends with </w>).
        pieces = {s: (s, False) for s in self.alphabet} | {EOW: ("", True)}
        for a, b in self.merges:
            if a not in pieces or b not in pieces:
                raise ValueError(f"merge {(a, b)!r} uses a symbol that is not in the vocabulary yet")
            if a + b in pieces or a + b in SPECIALS:
                raise ValueError(f"merge {(a, b)!r} would create {a + b!r}, which is already a token")
            pieces[a + b] = (pieces[a][0] + pieces[b][0], pieces[b][1])
            self.vocab[len(self.vocab)] = a + b
        self.token_to_id = {s: i for i, s in self.vocab.items()}
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        dropped = {PAD: ("", False), BOS: ("", False), EOS: ("", False), UNK: (UNK, False)}
        self._pieces = [(dropped | pieces)[s] for s in self.vocab.values()]  # indexed by id
        self._chars = frozenset(self.alphabet)
        self._cache: dict[str, list[str]] = {}
        self.trace: list[MergeStep] = []
        self.stop_reason: str | None = None

    @classmethod
    def from_merges(cls, merges: Iterable[Pair], alphabet: Iterable[str]) -> WordBPE:
        """Rebuild a tokenizer from its merges and alphabet (e.g. one saved from ``train``)."""
        return cls(merges, alphabet)

    @classmethod
    def train(cls, corpus: str, vocab_size: int, *, trace: bool = False) -> WordBPE:
        """Learn merges until the vocabulary has ``vocab_size`` entries or no pair occurs twice.

        ``vocab_size`` counts the 4 specials, the base symbols and the merges.

        >>> bpe = WordBPE.train("aaab aab", vocab_size=100, trace=True)
        >>> bpe.merges, bpe.stop_reason
        ([('a', 'a'), ('aa', 'b')], 'no pair occurs at least twice')
        >>> bpe.trace[0]
        MergeStep(step=1, pair=('a', 'a'), count=3, new_symbol='aa', new_id=7, top_pairs=[(('a', 'a'), 3), (('b', '</w>'), 2), (('a', 'b'), 2)])
        """
        words = word_counts(_check_corpus(corpus))
        alphabet = sorted({ch for word in words for ch in word[:-1]})
        minimum = len(SPECIALS) + len(alphabet) + 1
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
        if vocab_size < minimum:
            raise ValueError(f"vocab_size={vocab_size} is too small: this corpus needs at least "
                             f"{minimum} ({len(SPECIALS)} specials + {len(alphabet)} characters + '</w>')")
        merges: list[Pair] = []
        steps: list[MergeStep] = []
        counts, where = pair_counts(words), _index(words)
        stop_reason = STOP_VOCAB_SIZE
        while minimum + len(merges) < vocab_size:
            pair = best_pair(counts) if counts else None
            if pair is None or counts[pair] < 2:
                stop_reason = STOP_NO_PAIR
                break
            merges.append(pair)
            if trace:
                step = MergeStep(len(merges), pair, counts[pair], pair[0] + pair[1],
                                 minimum + len(merges) - 1, top_pairs(counts))
                steps.append(step)
            # Same result as `words = apply_merge(words, pair); counts = pair_counts(words)`,
            # but only the words containing `pair` are revisited (tests check the two agree).
            _merge_in_place(words, counts, where, pair)
        bpe = cls(merges, alphabet)
        bpe.trace, bpe.stop_reason = steps, stop_reason
        return bpe

    def truncated(self, k: int) -> WordBPE:
        """A new tokenizer with only the first ``k`` merges (for a merge-count slider).

        >>> bpe = WordBPE.train("low " * 5 + "lower " * 2, 1000)
        >>> bpe.truncated(1).tokenize("lower"), bpe.tokenize("lower")
        (['lo', 'w', 'e', 'r', '</w>'], ['lower</w>'])
        """
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"k must be an int, got {type(k).__name__}")
        if not 0 <= k <= len(self.merges):
            raise ValueError(f"k must be between 0 and {len(self.merges)}, got {k}")
        bpe = type(self)(self.merges[:k], self.alphabet)
        bpe.trace = self.trace[:k]
        bpe.stop_reason = self.stop_reason if k == len(self.merges) else f"truncated to {k} merges"
        return bpe

    def _start(self, word: str) -> list[str]:
        """A word's characters plus </w>; characters never seen in training become <|unk|>."""
        if not word or any(ch.isspace() for ch in word):
            raise ValueError(f"expected one non-empty word without whitespace, got {word!r}")
        return [ch if ch in self._chars else UNK for ch in word] + [EOW]

    def tokenize_word(self, word: str) -> list[str]:
        """Apply the merges in the order they were learned, each to all its occurrences.

        >>> bpe = WordBPE.from_merges([("a", "a"), ("aa", "b")], alphabet="ab")
        >>> bpe.tokenize_word("aaab"), bpe.tokenize_word("abc")
        (['aa', 'ab', '</w>'], ['a', 'b', '<|unk|>', '</w>'])
        """
        if word not in self._cache:
            symbols: Sequence[str] = self._start(word)
            for pair in self.merges:
                symbols = merge_pair(symbols, pair)
            self._cache[word] = list(symbols)
        return list(self._cache[word])

    def tokenize_word_by_rank(self, word: str) -> list[str]:
        """Repeatedly merge the adjacent pair with the lowest rank (leftmost on ties), GPT-2 style.

        For merges learned by ``train`` this gives the same result as ``tokenize_word``: a merge's
        new symbol only ever appears in pairs of higher rank, so ranks are used in increasing order.

        >>> bpe = WordBPE.from_merges([("a", "a"), ("aa", "b")], alphabet="ab")
        >>> bpe.tokenize_word_by_rank("aaab")
        ['aa', 'ab', '</w>']
        """
        symbols = self._start(word)
        while len(symbols) > 1:
            pairs = zip(symbols, symbols[1:])
            # subtle: equal ranks mean the same pair, so min over (rank, i) picks the leftmost one
            rank, i = min((self.ranks.get(p, math.inf), i) for i, p in enumerate(pairs))
            if rank == math.inf:
                break
            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
        return symbols

    def tokenize(self, text: str) -> list[str]:
        """Split on whitespace and tokenize each word."""
        return [symbol for word in text.split() for symbol in self.tokenize_word(word)]

    def encode(self, text: str, *, bos: bool = False, eos: bool = False) -> list[int]:
        """Token ids for ``text``, optionally wrapped in <|bos|> ... <|eos|>."""
        ids = [self.token_to_id[symbol] for symbol in self.tokenize(text)]
        return [self.token_to_id[BOS]] * bos + ids + [self.token_to_id[EOS]] * eos

    def decode(self, ids: Iterable[int]) -> str:
        """Join the symbols; ``</w>`` becomes a space between words.

        <|pad|>, <|bos|> and <|eos|> are dropped; <|unk|> decodes to the text "<|unk|>".
        """
        parts: list[str] = []
        for i in ids:
            if not 0 <= i < len(self._pieces):
                raise ValueError(f"unknown token id {i!r} (vocabulary has ids 0..{len(self._pieces) - 1})")
            text, ends_word = self._pieces[i]
            # subtle: not "".join(...).replace("</w>", " "): a word may literally contain "</w>"
            parts.append(text + " " * ends_word)
        out = "".join(parts)
        return out[:-1] if out.endswith(" ") else out

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def __repr__(self) -> str:
        return f"WordBPE(vocab_size={self.vocab_size}, merges={len(self.merges)})"


def _check_corpus(corpus: str) -> str:
    if not isinstance(corpus, str):
        raise TypeError(f"corpus must be a str, got {type(corpus).__name__}")
    for reserved in (EOW, *SPECIALS):
        # subtle: merging its characters would recreate a reserved symbol with a second meaning
        if reserved in corpus:
            raise ValueError(f"the corpus contains the reserved string {reserved!r}")
    return corpus


train = WordBPE.train
