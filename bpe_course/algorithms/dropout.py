"""BPE-dropout (Provilkov et al., 2020) on the package's data model (chapters 15 and 16).

BPE-dropout trains nothing new: it encodes with the same merges, but at every step each merge
that could apply is skipped with probability ``p``. The same word then comes out in different,
always valid, segmentations, which teaches a model that a word can be spelled in pieces. With
``p = 0`` it is ordinary BPE:

>>> from random import Random
>>> ranks = {b"lo": 0, b"low": 1, b"er": 2, b"lower": 3}
>>> dropout_merge(b"lower", ranks, 0.0, Random(0))
[b'lower']
>>> dropout_merge(b"lower", ranks, 1.0, Random(0))
[b'l', b'o', b'w', b'e', b'r']
"""

from __future__ import annotations

from random import Random

from ..pretokenize import pretokenize
from ..tokenizer import Tokenizer


def dropout_merge(piece: bytes, ranks: dict[bytes, int], p: float, rng: Random) -> list[bytes]:
    """BPE on one pre-token where every applicable merge is dropped with probability ``p`` at each step.

    subtle: a dropped merge is only skipped for this step; the next step draws again. When every
    applicable merge is dropped, the word stops where it is (Provilkov et al.'s rule).
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be between 0 and 1, got {p!r}")
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        kept = [(rank, i) for i in range(len(parts) - 1)
                if (rank := ranks.get(parts[i] + parts[i + 1])) is not None and rng.random() >= p]
        if not kept:
            break
        _, i = min(kept)  # the lowest rank among the merges not dropped, leftmost on ties
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


def dropout_tokens(tok: Tokenizer, text: str, p: float, rng: Random) -> list[bytes]:
    """The tokens of ``text`` (pre-tokenized as ``tok`` does) with BPE-dropout inside every pre-token."""
    ranks = tok.first_merge_ranks()
    return [part for piece in pretokenize(text, tok.pattern) for part in dropout_merge(piece.encode("utf-8"), ranks, p, rng)]
