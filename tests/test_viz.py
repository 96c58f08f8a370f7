"""Token chips and figures (bpe_course.viz)."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from bpe_course import corpus
from bpe_course.viz import nice_log_axis, nice_ticks


def test_log_axis_ticks_read_1_2_5_10_20():
    assert nice_ticks(0.9, 24) == [1, 2, 5, 10, 20]
    assert nice_ticks(0.15, 0.6) == [0.2, 0.5]
    with pytest.raises(ValueError, match="0 < lo <= hi"):
        nice_ticks(0, 5)
    ax = Figure().subplots()
    ax.boxplot([[0.9, 1.4, 3.0], [2.5, 7.0, 23.0]])
    ticks = nice_log_axis(ax)
    assert ax.get_yscale() == "log" and ticks == [1, 2, 5, 10, 20]
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_visible()]
    assert labels == ["1", "2", "5", "10", "20"]


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


# ---- widgets: a bounded number of chips, however long the text ------------------------------------------
def html_sizes(make_html, lengths=(20_000, 200_000)) -> list[int]:
    words = " ".join(corpus.load("python_docs").split())
    return [len(make_html(words[:n])) for n in lengths]


def test_every_widget_drawing_chips_stops_at_max_chips():
    from bpe_course.algorithms.variants import sweep_superbpe
    from bpe_course.viz import MAX_CHIPS, chips_html
    from bpe_course.widgets.superbpe import SuperBPEExplorer
    tokens = [b"a", b" b"] * 10_000
    drawn = chips_html(tokens, list(range(len(tokens))), show_ids=True, keep_words=True)
    assert drawn.count('class="bpe-chip"') == MAX_CHIPS and "first 1,500 of 20,000 tokens shown" in drawn
    runs = sweep_superbpe(corpus.load("python_docs")[:30_000], 200, [100, 200])
    explorer = SuperBPEExplorer(runs, {t: {"tokens per byte": 0.3, "bits per byte": 1.0} for t in runs})

    def html(text):
        explorer.text.value = text
        assert len(explorer.tokens) > MAX_CHIPS
        return explorer.chips.value
    small, large = html_sizes(html)
    assert large < 1.1 * small
