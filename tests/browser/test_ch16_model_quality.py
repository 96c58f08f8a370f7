"""Chapter 16's model-quality explorer in a real browser: the vocabulary and order sliders.

The line under the sliders states the chosen point's numbers, and the plot is a PNG that matplotlib
draws byte for byte alike; the test computes both with the package, from the chapter's own settings,
and compares them with what the browser shows after each move.
"""

from __future__ import annotations

import base64
import hashlib
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from bpe_course import Tokenizer, corpus
from bpe_course.train import train
from bpe_course.algorithms.model_quality import Sweep, vocab_points
from bpe_course.viz import figure_png
from bpe_course.widgets.model_quality import explorer_title, plot_model_quality, status_line

from .lab_page import ARTIFACTS, TIMEOUT_MS, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "16_what_a_tokenizer_does_to_a_model.ipynb"
# The chapter's cell makes the explorer with order=3 at its middle vocabulary size, and a later cell drives
# a second one, so after Run All the first is as its cell says; the moves below and where they lead.
MOVES = {"after Run All": (0, 3), "vocabulary slider": (1, 3), "order slider": (1, 4)}
READ_IMAGE = """async img => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return btoa(text);
}"""


def expected_views() -> dict[str, tuple[int, str, str]]:
    """For each state, the vocabulary size, the status line and the plot's sha256, computed as the chapter does."""
    constants = notebook_constants(NOTEBOOK)
    book_train, heldout = corpus.train_heldout("don_quixote")
    text = book_train[:constants["TRAIN_CHARS"]]
    run = train(text, 256 + constants["MAX_MERGES"], min_frequency=constants["MIN_FREQUENCY"])
    tok = Tokenizer(run.vocab, run.merges)
    sweep = Sweep(tok, text, heldout, vocab_points(len(tok.merges)))
    sizes = [256 + k for k in sweep.merges]
    views = {}
    for move, (step, order) in MOVES.items():
        size = sizes[len(sizes) // 2 + step]  # the explorer starts at the middle size
        data = sweep.measure([order])
        png = figure_png(plot_model_quality(data, explorer_title(order), chosen=size))
        views[move] = (size, status_line(data, size, order), hashlib.sha256(png).hexdigest())
    return views


def test_model_quality_explorer_follows_both_sliders(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        computing = pool.submit(expected_views)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        views = computing.result()
    image = nb.widget("bpe-mq-plot")
    expect(image).to_have_count(1)
    status = nb.widget("bpe-mq-status")
    vocab, order = nb.widget("bpe-mq-vocab"), nb.widget("bpe-mq-order")
    shown: list[bytes] = []

    def expect_view(move: str) -> None:
        size, want_status, want_png = views[move]
        expect(vocab.locator(".widget-readout")).to_have_text(f"{size:,}")
        expect(order.locator(".widget-readout")).to_have_text(str(MOVES[move][1]))
        expect(status).to_have_text(want_status)

        def check() -> None:
            try:
                shown[:] = [base64.b64decode(image.evaluate(READ_IMAGE))]
            except PlaywrightError as error:  # the blob URL is swapped while the plot is redrawn
                raise AssertionError(f"{move}: the image is being replaced") from error
            got = hashlib.sha256(shown[0]).hexdigest()
            assert got == want_png, f"{move}: the plot is not the expected one yet ({got[:12]} != {want_png[:12]})"

        try:
            eventually(check)
        except AssertionError:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / "ch16_plot_shown.png").write_bytes(shown[0] if shown else b"")
            raise

    expect_view("after Run All")
    nb.set_slider_by_keys(vocab, "ArrowRight", 1)
    expect_view("vocabulary slider")
    nb.set_slider_by_keys(order, "ArrowRight", 1)
    expect_view("order slider")
    nb.screenshot(image.locator(".."), "ch16_model_quality.png")
    # Order 5 is fitted on first choice (the longest the widget takes): the page counts the sizes meanwhile.
    nb.set_slider_by_keys(order, "End", 1)
    expect(status).to_contain_text(re.compile(r"^fitting order-5 models: vocabulary size \d+ of \d+…$"))
    expect(status).to_contain_text(f"vocabulary {views['order slider'][0]:,}, order 5: ", timeout=3 * TIMEOUT_MS)
    nb.assert_no_console_errors()
