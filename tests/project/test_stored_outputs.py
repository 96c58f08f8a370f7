"""What a reader sees is what the chapter says: no stored output is a figure's text without its picture.

A matplotlib figure shown before anything can draw it (a pyplot-free ``Figure`` passed to ``display``
before the inline backend has started, issue 32: chapter 16's "the plot chapter 06 could not draw")
is stored as its repr alone, ``<Figure size 1100x420 with 2 Axes>`` -- in JupyterLab after Run All,
in the stored notebook and on the website. Such an output has the repr as its ``text/plain`` and no
``image/*`` beside it; a figure that was drawn has both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FIGURE_TEXT = re.compile(r"<(?:matplotlib\.figure\.)?Figure size \d+(?:\.\d+)?x\d+(?:\.\d+)?(?: with \d+ Axes)?>")


def figures_without_pictures(notebook: dict) -> list[tuple[int, str]]:
    """``(cell index, text)`` of every output that shows a figure's text and no image of it."""
    found = []
    for index, cell in enumerate(notebook.get("cells", [])):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = "".join(data.get("text/plain", "")) if data else "".join(output.get("text", ""))
            if FIGURE_TEXT.search(text) and not any(mime.startswith("image/") for mime in data):
                found.append((index, FIGURE_TEXT.search(text).group(0)))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_output_is_a_figure_without_its_picture(path):
    found = figures_without_pictures(json.loads(path.read_text(encoding="utf-8")))
    assert not found, (f"{path.name}: " + "; ".join(f"cell {i} shows {text!r} and no picture" for i, text in found)
                       + " -- display the figure as a picture: display(Image(figure_png(fig))), or draw it with pyplot")


def _output(data: dict | None = None, stream: str | None = None) -> dict:
    if stream is not None:
        return {"output_type": "stream", "name": "stdout", "text": stream}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def test_the_check_finds_a_planted_figure_text_and_passes_a_drawn_figure():
    text = {"text/plain": "<Figure size 1100x420 with 2 Axes>"}
    planted = {"cells": [{"cell_type": "code", "outputs": [_output(text)]},
                         {"cell_type": "code", "outputs": [_output(text | {"image/png": "iVBORw0KGgo="})]},
                         {"cell_type": "code", "outputs": [_output(stream="<Figure size 640x480 with 1 Axes>\n")]},
                         {"cell_type": "code", "outputs": [_output({"text/plain": "a Figure of speech"})]},
                         {"cell_type": "markdown", "source": "<Figure size 1x1>"}]}
    assert figures_without_pictures(planted) == [(0, "<Figure size 1100x420 with 2 Axes>"),
                                                 (2, "<Figure size 640x480 with 1 Axes>")]
    assert figures_without_pictures({"cells": [{"cell_type": "code", "outputs": [
        _output({"text/plain": "<matplotlib.figure.Figure size 640.5x480>", "image/svg+xml": "<svg/>"})]}]}) == []
