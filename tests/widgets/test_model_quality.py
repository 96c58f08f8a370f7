"""Chapter 16's plot and explorer: what they draw against the sweep's numbers."""

from __future__ import annotations

import math

from oracles import SWEEP_MERGES

from bpe_course import Tokenizer, train_bpe
from bpe_course.algorithms.model_quality import Sweep, best_rows, vocab_points
from bpe_course.viz import figure_png
from bpe_course.widgets.model_quality import ModelQualityExplorer, explorer_title, plot_model_quality, status_line


def test_plot_draws_the_data(small_sweep):
    data = small_sweep.measure([1, 3])
    fig = plot_model_quality(data, "t", chosen=512)
    left, right = fig.axes
    assert list(left.lines[0].get_ydata()) == list(data.drop_duplicates("n_vocab")["tokens_per_word"])
    curves = [line for line in right.lines if line.get_label().startswith("order")]
    assert [line.get_label() for line in curves] == ["order 1", "order 3"]
    for line, n in zip(curves, (1, 3)):
        assert list(line.get_ydata()) == list(data[data["order"] == n]["bits_per_byte"])
    stars = [line for line in right.lines if line.get_marker() == "*"]
    assert [s.get_ydata()[0] for s in stars] == list(best_rows(data)["bits_per_byte"])


def test_explorer_follows_both_sliders(small_sweep):
    explorer = ModelQualityExplorer(small_sweep, order=3)
    assert explorer.vocab.options[explorer.vocab.index][1] == 512  # the middle of 256, 512, 856
    explorer.vocab.value = 856
    explorer.order.value = 1
    assert set(explorer.data["order"]) == {1}
    assert explorer.status.value == status_line(small_sweep.measure([1]), 856, 1)
    row = small_sweep.measure([1]).set_index("n_vocab").loc[856]
    assert f"{row['bits_per_byte']:.4f} bits per byte" in explorer.status.value
    assert explorer.image.value == figure_png(plot_model_quality(small_sweep.measure([1]), explorer_title(1), chosen=856))
    explorer.order.value = 4  # not measured yet: fitted on demand
    assert explorer.status.value == status_line(small_sweep.measure([4]), 856, 4)
    assert math.isfinite(explorer.data["bits_per_byte"].sum())


def test_while_an_order_is_fitted_the_status_counts_the_vocabulary_sizes(sweep_texts):
    """Moving to an order not measured yet fits a model per vocabulary size (chapter 16's order 5: about 24 s);
    the status line says how far it is, one size after another, then gives the chosen point's numbers."""
    train, heldout = sweep_texts
    fresh = Sweep(Tokenizer(*train_bpe(train, 256 + SWEEP_MERGES)), train, heldout, vocab_points(SWEEP_MERGES))
    explorer = ModelQualityExplorer(fresh, order=3)  # nothing measured before
    said: list[str] = []
    explorer.status.observe(lambda change: said.append(change["new"]), names="value")
    explorer.order.value = 5
    sizes = len(fresh.merges)
    assert said == [f"fitting order-5 models: vocabulary size {k} of {sizes}…" for k in range(1, sizes + 1)] + \
        [status_line(fresh.measure([5]), explorer.vocab.value, 5)]
    said.clear()
    explorer.order.value = 3  # measured: nothing to fit, nothing to wait for
    assert said == [status_line(fresh.measure([3]), explorer.vocab.value, 3)]
