"""Character-level BPE with an end-of-word symbol ``</w>``, as in Sennrich et al. (2016): chapters 1-6.

Ids: 0-3 are the special tokens, then the base symbols (the training characters and ``</w>``,
sorted), then one id per merge in creation order. Pairs are counted over unique words x frequency.

>>> bpe = WordBPE.train("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3, vocab_size=1000)
>>> bpe.merges[:5]
[('t', '</w>'), ('s', 't</w>'), ('e', 'st</w>'), ('o', 'w'), ('l', 'ow')]
>>> bpe.tokenize("lowest newer"), bpe.stop_reason
(['low', 'est</w>', 'ne', 'w', 'e', 'r</w>'], 'no pair occurs at least twice')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..bpe import merge_by_rank
from ..pairs import EOW, Pair, Word, apply_merge, best_pair, count_pairs, merge_pair, top_pairs, word_counts

PAD, BOS, EOS, UNK = "<|pad|>", "<|bos|>", "<|eos|>", "<|unk|>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every WordBPE
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIR = "no pair occurs at least twice"


@dataclass(frozen=True)
class MergeStep:
    """One training step: the pair merged, how often it occurred, and what it became."""

    step: int  # 1 for the first merge
    pair: Pair
    count: int
    new_symbol: str
    new_id: int
    top_pairs: list[tuple[Pair, int]]  # the most frequent pairs just before this merge


def _merge_and_recount(words: dict[Word, int], counts: Counter[Pair], pair: Pair) -> None:
    """``words = apply_merge(words, pair); counts = count_pairs(words)``, done in place, recounting
    only the words that can contain ``pair``: much faster on real text (the tests check it agrees)."""
    changed = {word: words.pop(word) for word in list(words) if pair[0] in word and pair[1] in word}
    gone = count_pairs(changed)
    counts.subtract(gone)
    changed = apply_merge(changed, pair)
    counts.update(count_pairs(changed))
    words.update(changed)
    for p in gone:  # subtle: drop zero counts, so they never reach best_pair or top_pairs
        if counts[p] == 0:
            del counts[p]


def _learn_merges(words: dict[Word, int], num_merges: int, first_id: int,
                  trace: bool) -> tuple[list[Pair], list[MergeStep], str]:
    """Up to ``num_merges`` merges (fewer if no pair occurs twice), the trace, and why it stopped."""
    counts = count_pairs(words)
    merges: list[Pair] = []
    steps: list[MergeStep] = []
    while len(merges) < num_merges:
        pair = best_pair(counts) if counts else None
        if pair is None or counts[pair] < 2:
            return merges, steps, STOP_NO_PAIR
        merges.append(pair)
        if trace:  # subtle: counts are read before the merge below changes them
            n = len(merges)
            steps.append(MergeStep(n, pair, counts[pair], "".join(pair), first_id + n - 1, top_pairs(counts)))
        _merge_and_recount(words, counts, pair)
    return merges, steps, STOP_VOCAB_SIZE


class WordBPE:
    """A character-level BPE tokenizer: an alphabet plus merges in creation order.

    ``trace`` (a list of MergeStep) is filled by ``train(..., trace=True)``; ``stop_reason`` says
    why training stopped (None if the tokenizer was not trained).

    >>> bpe = WordBPE.from_merges([("o", "w"), ("l", "ow")], alphabet="low")
    >>> list(bpe.vocab.values())
    ['<|pad|>', '<|bos|>', '<|eos|>', '<|unk|>', '</w>', 'l', 'o', 'w', 'ow', 'low']
    >>> bpe.tokenize("low owl wow!")
    ['low', '</w>', 'ow', 'l', '</w>', 'w', 'ow', '<|unk|>', '</w>']
    >>> bpe.decode(bpe.encode("low owl wow!", bos=True, eos=True))
    'low owl wow<|unk|>'
    """

    def __init__(self, merges: Iterable[Pair] = (), alphabet: Iterable[str] = ()) -> None:
        self.alphabet = sorted(set(alphabet))
        if bad := [ch for ch in self.alphabet if len(ch) != 1 or ch.isspace()]:
            raise ValueError(f"the alphabet must hold single non-space characters, not {bad[0]!r}")
        self.merges: list[Pair] = [(a, b) for a, b in merges]
        pieces = _pieces(self.merges, self.alphabet)
        self.vocab: dict[int, str] = dict(enumerate(pieces))  # dicts keep insertion order
        self._pieces = list(pieces.values())
        self.token_to_id = {s: i for i, s in self.vocab.items()}
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        self._cache: dict[str, list[str]] = {}
        self.trace: list[MergeStep] = []
        self.stop_reason: str | None = None

    @classmethod
    def from_merges(cls, merges: Iterable[Pair], alphabet: Iterable[str]) -> WordBPE:
        """Rebuild a tokenizer from its merges (in order) and the characters it knows."""
        return cls(merges, alphabet)

    @classmethod
    def train(cls, corpus: str, vocab_size: int, *, trace: bool = False) -> WordBPE:
        """Learn merges until there are ``vocab_size`` tokens (specials + base + merges) or no pair
        occurs at least twice. The corpus must not contain "</w>" or a special token's text.

        >>> bpe = WordBPE.train("aaab aab", vocab_size=100, trace=True)
        >>> bpe.merges, bpe.stop_reason
        ([('a', 'a'), ('b', '</w>')], 'no pair occurs at least twice')
        >>> step = bpe.trace[0]
        >>> step.pair, step.count, step.new_symbol, step.new_id
        (('a', 'a'), 3, 'aa', 7)
        >>> step.top_pairs  # counts just before the merge, best first
        [(('a', 'a'), 3), (('b', '</w>'), 2), (('a', 'b'), 2)]
        """
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
        words = word_counts(_check_corpus(corpus))
        alphabet = sorted({ch for word in words for ch in word[:-1]})
        base = len(SPECIALS) + len(alphabet) + 1
        if vocab_size < base:
            raise ValueError(f"vocab_size={vocab_size} is too small: this corpus needs at least {base} "
                             f"({len(SPECIALS)} specials + {len(alphabet)} characters + '</w>')")
        merges, steps, stop_reason = _learn_merges(words, vocab_size - base, base, trace)
        bpe = cls(merges, alphabet)
        bpe.trace, bpe.stop_reason = steps, stop_reason
        return bpe

    def truncated(self, k: int) -> WordBPE:
        """A new tokenizer with only the first ``k`` merges (for a merge-count slider).

        >>> bpe = WordBPE.train("low " * 5 + "lower " * 2, 1000)
        >>> bpe.truncated(1).tokenize("lower"), bpe.tokenize("lower")
        (['l', 'ow', 'e', 'r', '</w>'], ['lower</w>'])
        """
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
        # subtle: single characters in token_to_id are exactly the alphabet (other tokens are longer)
        return [ch if ch in self.token_to_id else UNK for ch in word] + [EOW]

    def tokenize_word(self, word: str) -> list[str]:
        """Apply the merges in the order they were learned, each to all its occurrences.

        >>> bpe = WordBPE.from_merges([("a", "a"), ("a", "b"), ("aa", "ab")], alphabet="ab")
        >>> bpe.tokenize_word("aaab"), bpe.tokenize_word("aabc")
        (['aaab', '</w>'], ['aa', 'b', '<|unk|>', '</w>'])
        """
        if word not in self._cache:
            symbols: Sequence[str] = self._start(word)
            for a, b in self.merges:
                if a in symbols and b in symbols:  # a cheap test that skips most merges
                    symbols = merge_pair(symbols, (a, b))
            self._cache[word] = list(symbols)
        return list(self._cache[word])

    def tokenize_word_by_rank(self, word: str) -> list[str]:
        """Repeatedly merge the adjacent pair of lowest rank (the leftmost on ties), GPT-2 style.

        For merges learned by ``train`` this equals ``tokenize_word``: a merge's new symbol only
        appears in pairs of higher rank, so the ranks get used in increasing order.

        >>> bpe = WordBPE.from_merges([("a", "a"), ("a", "b"), ("aa", "ab")], alphabet="ab")
        >>> bpe.tokenize_word_by_rank("aaab")
        ['aaab', '</w>']
        """
        ranks, inf = self.ranks, math.inf
        return merge_by_rank(self._start(word), lambda a, b: ranks.get((a, b), inf))

    def tokenize(self, text: str) -> list[str]:
        """Split on whitespace and tokenize each word."""
        return [symbol for word in text.split() for symbol in self.tokenize_word(word)]

    def encode(self, text: str, *, bos: bool = False, eos: bool = False) -> list[int]:
        """Token ids for ``text``, optionally wrapped in <|bos|> ... <|eos|>."""
        ids = [self.token_to_id[symbol] for symbol in self.tokenize(text)]
        return [SPECIALS.index(BOS)] * bos + ids + [SPECIALS.index(EOS)] * eos

    def decode(self, ids: Iterable[int]) -> str:
        """Join the symbols, ``</w>`` becoming a space between words. <|pad|>, <|bos|> and
        <|eos|> are dropped; <|unk|> decodes to the text "<|unk|>"."""
        parts: list[str] = []
        for i in ids:
            if not 0 <= i < len(self._pieces):
                raise ValueError(f"unknown token id {i!r} (the ids are 0..{len(self._pieces) - 1})")
            text, ends_word = self._pieces[i]
            # subtle: not "".join(symbols).replace("</w>", " "): a word may contain "</w>" itself
            parts.append(text + " " * ends_word)
        out = "".join(parts)
        return out[:-1] if out.endswith(" ") else out  # no space after the last word

    def __repr__(self) -> str:
        return f"WordBPE(vocab_size={len(self.vocab)}, merges={len(self.merges)})"


def _pieces(merges: list[Pair], alphabet: list[str]) -> dict[str, tuple[str, bool]]:
    """Every token, in id order, mapped to what ``decode`` needs: its text and whether it ends a word."""
    pieces = {PAD: ("", False), BOS: ("", False), EOS: ("", False), UNK: (UNK, False)}
    pieces |= {s: ("", True) if s == EOW else (s, False) for s in sorted({*alphabet, EOW})}
    for a, b in merges:
        if a not in pieces or b not in pieces or {a, b} & set(SPECIALS) or pieces[a][1]:
            raise ValueError(f"merge {(a, b)!r} must join two earlier tokens (no specials; "
                             "the left one must not end a word)")
        if a + b in pieces:
            raise ValueError(f"merge {(a, b)!r} would create {a + b!r}, which is already a token")
        pieces[a + b] = (pieces[a][0] + pieces[b][0], pieces[b][1])  # ends a word if b does
    return pieces


def _check_corpus(corpus: str) -> str:
    if not isinstance(corpus, str):
        raise TypeError(f"corpus must be a str, not {type(corpus).__name__}")
    for reserved in (EOW, *SPECIALS):  # merging their characters would make a second, clashing token
        if reserved in corpus:
            raise ValueError(f"the corpus contains the reserved string {reserved!r}")
    return corpus

