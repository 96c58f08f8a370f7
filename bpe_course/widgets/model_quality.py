"""Chapter 16: tokens per word and bits per byte against vocabulary size, drawn, and an explorer.

:func:`plot_model_quality` draws a :class:`~bpe_course.algorithms.model_quality.Sweep`'s two curves;
the :class:`ModelQualityExplorer` redraws them for a vocabulary size and an n-gram order chosen with
two sliders.
"""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from ..algorithms.model_quality import Sweep, best_rows
from ..viz import figure_png


def plot_model_quality(data: pd.DataFrame, title: str = "", chosen: int | None = None) -> Figure:
    """Two panels on a log vocabulary axis: tokens per word, and bits per byte with one line per order.

    Each order's lowest point is a star; ``chosen`` (a vocabulary size) is a dotted vertical line.
    Returns the figure (not shown through pyplot).
    """
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    lengths = data.drop_duplicates("n_vocab").sort_values("n_vocab")
    left.plot(lengths["n_vocab"], lengths["tokens_per_word"], "o-", color="tab:grey")
    left.set_ylabel("tokens per word (held-out)")
    for n, rows in data.groupby("order", sort=True):
        rows = rows.sort_values("n_vocab")
        line, = right.plot(rows["n_vocab"], rows["bits_per_byte"], "o-", label=f"order {n}")
        best = rows.loc[rows["bits_per_byte"].idxmin()]
        right.plot([best["n_vocab"]], [best["bits_per_byte"]], "*", color=line.get_color(), markersize=16)
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


def status_line(data: pd.DataFrame, n_vocab: int, order: int) -> str:
    """What the explorer says under its sliders about one point of ``data`` (the rows of one order)."""
    row = data[(data["n_vocab"] == n_vocab) & (data["order"] == order)].iloc[0]
    best = best_rows(data[data["order"] == order]).iloc[0]
    return (f"vocabulary {n_vocab:,}, order {order}: {row['tokens_per_word']:.3f} tokens per word, "
            f"{row['bits_per_byte']:.4f} bits per byte (lowest for order {order}: "
            f"{best['bits_per_byte']:.4f} at {int(best['n_vocab']):,})")


class ModelQualityExplorer:
    """Two sliders, a vocabulary size and an n-gram order; both curves are redrawn for that order.

    Parts: ``.vocab`` (SelectionSlider of the sweep's vocabulary sizes, CSS ``bpe-mq-vocab``),
    ``.order`` (IntSlider 1-5, ``bpe-mq-order``), ``.status`` (Label with the chosen point's numbers,
    ``bpe-mq-status``), ``.image`` (the plot as PNG, ``bpe-mq-plot``), ``.data`` (the plotted rows),
    ``.figure``, ``.box``. Models of an order not yet measured are fitted when it is first chosen
    (for order 5 on chapter 16's million characters, longer than all else the widget does); every later
    move only redraws.
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
