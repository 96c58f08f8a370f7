"""Chapter 16: what a tokenizer does to a model -- tokens per word and bits per byte against vocabulary size.

A :class:`Sweep` encodes a training text and a held-out text once per vocabulary size (one trained
tokenizer, truncated), then fits Kneser-Ney models (:mod:`bpe_course.lm`) on demand and keeps
every number it measured. :func:`plot_model_quality` draws the two curves; the
:class:`ModelQualityExplorer` redraws them for a vocabulary size and an n-gram order chosen with
two sliders.

>>> vocab_points(2000)
[0, 256, 768, 1792, 2000]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..lm import bits_per_byte, fit_orders
from ..tokenizer import Tokenizer
from ..viz import figure_png
from .measures import tokens_per_word

ORDERS = (2, 3, 4)
COLUMNS = ["merges", "vocab_size", "order", "train_bytes", "train_tokens", "heldout_tokens", "tokens_per_word",
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
    bytes, and remembers every row (``.data``), so asking again costs nothing.
    """

    def __init__(self, tok: Tokenizer, train_text: str, heldout_text: str, merges: Iterable[int]) -> None:
        self.tok, self.heldout_text = tok, heldout_text
        self.merges = sorted({min(k, len(tok.merges)) for k in merges})
        self.train_bytes = len(train_text.encode("utf-8"))
        self.encoded = {k: (tok.encode_ordinary_truncated(train_text, k),
                            tok.encode_ordinary_truncated(heldout_text, k)) for k in self.merges}
        self._rows: dict[tuple[int, int, int], dict] = {}

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
                self._rows[k, n, size] = {
                    "merges": k, "vocab_size": 256 + k, "order": n, "train_bytes": size,
                    "train_tokens": len(train_ids), "heldout_tokens": len(heldout_ids),
                    "tokens_per_word": tokens_per_word(len(heldout_ids), self.heldout_text),
                    "bits_per_byte": bits_per_byte(model, heldout_ids, self.heldout_text)}
        rows = [self._rows[k, n, size] for n in orders for k in self.merges]
        return pd.DataFrame(rows, columns=COLUMNS)

    @property
    def data(self) -> pd.DataFrame:
        """Every row measured so far, sorted by training size, order and vocabulary size."""
        return pd.DataFrame([self._rows[key] for key in sorted(self._rows, key=lambda t: (t[2], t[1], t[0]))],
                            columns=COLUMNS)


def best_rows(data: pd.DataFrame, by: str = "order") -> pd.DataFrame:
    """For each value of ``by``, the row with the fewest bits per byte (the smaller vocabulary on a tie)."""
    ordered = data.sort_values([by, "bits_per_byte", "vocab_size"], kind="stable")
    return ordered.groupby(by, sort=True).head(1).reset_index(drop=True)


def plot_model_quality(data: pd.DataFrame, title: str = "", chosen: int | None = None) -> Figure:
    """Two panels on a log vocabulary axis: tokens per word, and bits per byte with one line per order.

    Each order's lowest point is a star; ``chosen`` (a vocabulary size) is a dotted vertical line.
    Returns the figure (not shown through pyplot).
    """
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    lengths = data.drop_duplicates("vocab_size").sort_values("vocab_size")
    left.plot(lengths["vocab_size"], lengths["tokens_per_word"], "o-", color="tab:grey")
    left.set_ylabel("tokens per word (held-out)")
    for n, rows in data.groupby("order", sort=True):
        rows = rows.sort_values("vocab_size")
        line, = right.plot(rows["vocab_size"], rows["bits_per_byte"], "o-", label=f"order {n}")
        best = rows.loc[rows["bits_per_byte"].idxmin()]
        right.plot([best["vocab_size"]], [best["bits_per_byte"]], "*", color=line.get_color(), markersize=16)
    right.set_ylabel("bits per byte (held-out, lower is better)")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("vocabulary size (256 bytes + merges)")
        ax.grid(True, which="both", alpha=0.3)
        if chosen is not None:
            ax.axvline(chosen, linestyle=":", color="black")
    if title:
        fig.suptitle(title)
    return fig


def explorer_title(order: int) -> str:
    return f"order {order}: held-out text"


def status_line(data: pd.DataFrame, vocab_size: int, order: int) -> str:
    """What the explorer says under its sliders about one point of ``data`` (the rows of one order)."""
    row = data[(data["vocab_size"] == vocab_size) & (data["order"] == order)].iloc[0]
    best = best_rows(data[data["order"] == order]).iloc[0]
    return (f"vocabulary {vocab_size:,}, order {order}: {row['tokens_per_word']:.3f} tokens per word, "
            f"{row['bits_per_byte']:.4f} bits per byte (lowest for order {order}: "
            f"{best['bits_per_byte']:.4f} at {int(best['vocab_size']):,})")


class ModelQualityExplorer:
    """Two sliders, a vocabulary size and an n-gram order; both curves are redrawn for that order.

    Parts: ``.vocab`` (SelectionSlider of the sweep's vocabulary sizes, CSS ``bpe-mq-vocab``),
    ``.order`` (IntSlider 1-5, ``bpe-mq-order``), ``.status`` (Label with the chosen point's numbers,
    ``bpe-mq-status``), ``.image`` (the plot as PNG, ``bpe-mq-plot``), ``.data`` (the plotted rows),
    ``.figure``, ``.box``. Models of an order not yet measured are fitted when it is first chosen
    (for order 5 on chapter 16's million characters, longer than all else the widget does), and the
    status line counts the vocabulary sizes as they are fitted; every later move only redraws.
    """

    def __init__(self, sweep: Sweep, order: int = 3, train_bytes: int | None = None) -> None:
        self.sweep, self.train_bytes = sweep, train_bytes
        sizes = [256 + k for k in sweep.merges]
        self.vocab = widgets.SelectionSlider(options=[(f"{s:,}", s) for s in sizes], value=sizes[len(sizes) // 2],
                                             description="vocabulary", continuous_update=False,
                                             layout=widgets.Layout(width="420px")).add_class("bpe-mq-vocab")
        self.order = widgets.IntSlider(value=order, min=1, max=5, description="order", continuous_update=False
                                       ).add_class("bpe-mq-order")
        self.status = widgets.Label("").add_class("bpe-mq-status")
        self.image = widgets.Image(format="png").add_class("bpe-mq-plot")
        self.vocab.observe(lambda _: self.update(), names="value")
        self.order.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([widgets.HBox([self.vocab, self.order]), self.status, self.image])
        self.update()

    def update(self) -> None:
        """Measure the chosen order if needed, redraw, and put the chosen point's numbers in ``.status``."""
        chosen = (self.vocab.value, self.order.value)
        size, n = chosen

        def fitting(done: int, total: int) -> None:  # subtle: each change reaches the page while the kernel works on
            self.status.value = f"fitting order-{n} models: vocabulary size {done + 1} of {total}…"

        self.data = self.sweep.measure([n], self.train_bytes, progress=fitting)
        self.figure = plot_model_quality(self.data, explorer_title(n), chosen=size)
        self.image.value = figure_png(self.figure)
        self.status.value = status_line(self.data, size, n)
        if (self.vocab.value, self.order.value) != chosen:  # subtle: moved while we drew: draw the latest
            self.update()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
