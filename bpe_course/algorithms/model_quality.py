"""Chapter 16's measurements: one tokenizer at several vocabulary sizes, scored by Kneser-Ney models.

A :class:`Sweep` encodes a training text and a held-out text once per vocabulary size (one trained
tokenizer, truncated), then fits Kneser-Ney models (:mod:`bpe_course.algorithms.lm`) on demand and
keeps every number it measured. A row's ``n_vocab`` is ``256 + merges``: the ids its model spreads
probability over (the tokenizers here have no special tokens). Every score is also kept split into
the held-out text's paragraphs (:meth:`Sweep.units`), so two rows can be compared with the
difference yardstick, :func:`bpe_course.compare.compare`.

>>> vocab_points(2000)
[0, 256, 768, 1792, 2000]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate

import pandas as pd

from ..compare import paragraph_bytes
from ..measures import tokens_per_word
from ..tokenizer import Tokenizer
from .lm import bits_by_unit, fit_orders

ORDERS = (2, 3, 4)
COLUMNS = ["merges", "n_vocab", "order", "train_bytes", "train_tokens", "heldout_tokens", "tokens_per_word",
           "bits_per_byte"]


def vocab_points(n_merges: int) -> list[int]:
    """Merge counts whose vocabularies double from 256 (0, 256, 768, 1792, ...), and ``n_merges`` itself."""
    if n_merges < 0:
        raise ValueError(f"n_merges must be >= 0, got {n_merges}")
    points, size = [0], 512
    while size - 256 < n_merges:
        points.append(size - 256)
        size *= 2
    return sorted(set(points) | {n_merges})


def prefix_covering(tok: Tokenizer, ids: Sequence[int], n_bytes: int) -> list[int]:
    """The shortest start of ``ids`` whose tokens hold at least ``n_bytes`` bytes (all of ``ids`` if fewer).

    subtle: cutting the encoded text rather than encoding a cut text keeps one encoding per size; the
    two differ at most in the last pre-token, which is noise for a model of a million tokens.
    """
    ends = list(accumulate(len(tok.vocab[i]) for i in ids))
    return list(ids[:bisect_left(ends, n_bytes) + 1])


class Sweep:
    """One tokenizer at several vocabulary sizes (its first ``k`` merges, for each ``k`` in ``merges``).

    ``.encoded[k]`` holds the ids of the training and held-out text; :meth:`measure` fits and scores
    models of the orders asked for, on all of the training text or on its first ``train_bytes``
    bytes, and remembers every row (``.data``), so asking again costs nothing. Each row's bits are
    also kept per held-out unit (:meth:`units`): the paragraphs of the held-out text, or the units
    whose UTF-8 lengths ``unit_bytes`` gives.
    """

    def __init__(self, tok: Tokenizer, train_text: str, heldout_text: str, merges: Iterable[int],
                 unit_bytes: Sequence[int] | None = None) -> None:
        self.tok, self.heldout_text = tok, heldout_text
        self.merges = sorted({min(k, len(tok.merges)) for k in merges})
        self.train_bytes = len(train_text.encode("utf-8"))
        self.unit_bytes = list(paragraph_bytes(heldout_text) if unit_bytes is None else unit_bytes)
        self.encoded = {k: (tok.encode_ordinary_truncated(train_text, k),
                            tok.encode_ordinary_truncated(heldout_text, k)) for k in self.merges}
        self._rows: dict[tuple[int, int, int], dict] = {}
        self._units: dict[tuple[int, int, int], list[tuple[float, float]]] = {}

    def measure(self, orders: Iterable[int] = ORDERS, train_bytes: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
        """One row per vocabulary size and order: tokens per word and bits per byte of the held-out text.

        ``progress(done, total)`` is called before each vocabulary size whose models must be fitted.
        """
        orders = sorted(set(orders))
        size = self.train_bytes if train_bytes is None else min(train_bytes, self.train_bytes)
        to_fit = [k for k in self.merges if any((k, n, size) not in self._rows for n in orders)]
        for k in self.merges:
            missing = [n for n in orders if (k, n, size) not in self._rows]
            if not missing:
                continue
            if progress is not None:
                progress(to_fit.index(k), len(to_fit))
            train_ids, heldout_ids = self.encoded[k]
            if size < self.train_bytes:
                train_ids = prefix_covering(self.tok, train_ids, size)
            for n, model in fit_orders(train_ids, missing, 256 + k).items():
                units = self._units[k, n, size] = bits_by_unit(model, heldout_ids, self.tok.vocab, self.unit_bytes)
                self._rows[k, n, size] = {
                    "merges": k, "n_vocab": 256 + k, "order": n, "train_bytes": size,
                    "train_tokens": len(train_ids), "heldout_tokens": len(heldout_ids),
                    "tokens_per_word": tokens_per_word(len(heldout_ids), self.heldout_text),
                    "bits_per_byte": sum(b for b, _ in units) / sum(n for _, n in units)}
        rows = [self._rows[k, n, size] for n in orders for k in self.merges]
        return pd.DataFrame(rows, columns=COLUMNS)

    def units(self, n_vocab: int, order: int, train_bytes: int | None = None) -> list[tuple[float, float]]:
        """A measured row's bits per held-out unit, ``[(bits, bytes), ...]``: what
        :func:`bpe_course.compare.compare` resamples. Measure the row first (:meth:`measure`).
        """
        size = self.train_bytes if train_bytes is None else min(train_bytes, self.train_bytes)
        key = (n_vocab - 256, order, size)
        if key not in self._units:
            raise KeyError(f"no row for n_vocab={n_vocab}, order={order}, train_bytes={size}: measure it first "
                           f"(sweep.measure([{order}]))")
        return self._units[key]

    @property
    def data(self) -> pd.DataFrame:
        """Every row measured so far, sorted by training size, order and vocabulary size."""
        return pd.DataFrame([self._rows[key] for key in sorted(self._rows, key=lambda t: (t[2], t[1], t[0]))],
                            columns=COLUMNS)


def best_rows(data: pd.DataFrame, by: str = "order") -> pd.DataFrame:
    """For each value of ``by``, the row with the fewest bits per byte (the smaller vocabulary on a tie)."""
    ordered = data.sort_values([by, "bits_per_byte", "n_vocab"], kind="stable")
    return ordered.groupby(by, sort=True).head(1).reset_index(drop=True)
