"""Token chips and figures (bpe_course.viz)."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

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
