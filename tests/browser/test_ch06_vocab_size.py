"""Chapter 06's vocabulary-size explorer in a real browser: the corpus dropdown and the range slider.

The plot is a PNG in an ``<img>``; matplotlib draws the same figure byte for byte, so the test
draws the expected figure with the package and compares the bytes the browser shows.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, expect

from bpe_course import cl100k, gpt2
from bpe_course.widgets.vocab_size import (corpus_tokenizer, explorer_title, figure_png, plot_vocab_size,
                                           shortfall_note, vocab_size_data)

from .lab_page import ARTIFACTS, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "06_vocabulary_size.ipynb"
N_POINTS = 10  # the explorer's default
# "after Run All" is where the chapter's own cell leaves the explorer, read from the page; then each move,
# as (corpus, change of the range's start, change of its end): 4 key presses move the upper handle 4 steps of 16.
STATES = {"dropdown": ("languages", 0, 0), "range slider": ("languages", 0, -64),
          "second dropdown": ("python_docs", 0, -64)}

READ_IMAGE = """async img => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return btoa(text);
}"""


def expected(source: str, lo: int, hi: int) -> tuple[bytes, str]:
    """The plot (PNG) and the note for one state, made with the package exactly as the explorer makes them."""
    constants = notebook_constants(NOTEBOOK)
    references = {"GPT-2": gpt2(), "GPT-4 (cl100k)": cl100k()}  # the chapter's `references`
    data = vocab_size_data([source], lo, hi, N_POINTS, references, constants["MAX_MERGES"],
                           min_frequency=constants["MIN_FREQUENCY"])
    learned = len(corpus_tokenizer(source, hi, constants["MAX_MERGES"], min_frequency=constants["MIN_FREQUENCY"]).merges)
    png = figure_png(plot_vocab_size(data, explorer_title(source, lo, hi, learned)))
    return png, shortfall_note(source, learned, lo, hi, constants["MIN_FREQUENCY"])


def expect_plot(image: Locator, expected: bytes, move: str) -> None:
    """Wait until the ``<img>`` shows exactly ``expected`` (saving what it shows if it never does).

    subtle: compare digests, never the PNG bytes themselves: a failed ``assert a == b`` on two 50 KB
    byte strings makes pytest build a difflib diff, which is quadratic — on every poll — and starves
    the kernel and the browser of the CPU they need to redraw.
    """
    shown: list[bytes] = []
    want = hashlib.sha256(expected).hexdigest()

    def check() -> None:
        try:
            shown[:] = [base64.b64decode(image.evaluate(READ_IMAGE))]
        except PlaywrightError as error:  # the blob URL is swapped while the plot is redrawn
            raise AssertionError(f"{move}: the image is being replaced") from error
        got = hashlib.sha256(shown[0]).hexdigest()
        if got != want:
            raise AssertionError(f"{move}: the plot is not the expected one yet (sha256 {got[:12]} != {want[:12]})")

    try:
        eventually(check)
    except AssertionError:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "ch06_plot_shown.png").write_bytes(shown[0] if shown else b"")
        (ARTIFACTS / "ch06_plot_expected.png").write_bytes(expected)
        raise


def test_vocab_size_explorer_redraws(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    expect(nb.widget("bpe-vocab-plot")).to_have_count(1)
    image = nb.widget("bpe-vocab-plot")
    box = image.locator("..")
    choice = nb.widget("bpe-corpus-choice").locator("select")
    merges = nb.widget("bpe-range")
    status = nb.widget("bpe-vocab-status")

    note = nb.widget("bpe-vocab-note")
    first = choice.input_value()
    lo, hi = (int(x) for x in merges.locator(".widget-readout").inner_text().split("–"))
    states = {"after Run All": (first, lo, hi),
              **{move: (source, lo + a, hi + b) for move, (source, a, b) in STATES.items()}}
    drawn = {move: expected(*state) for move, state in states.items()}
    pngs = {move: png for move, (png, _) in drawn.items()}
    notes = {move: note_text for move, (_, note_text) in drawn.items()}
    expect_plot(image, pngs["after Run All"], "after Run All")
    expect(note).to_have_text(f"⚠ {notes['after Run All']}" if notes["after Run All"] else "")

    choice.select_option("languages")
    expect_plot(image, pngs["dropdown"], "dropdown")
    expect(note).to_have_text(f"⚠ {notes['dropdown']}" if notes["dropdown"] else "")

    nb.set_slider_by_keys(merges, "ArrowLeft", 4, handle=1)  # the upper handle, 4 steps of 16 down
    expect(merges.locator(".widget-readout")).to_have_text(f"{lo} – {hi - 64}")
    expect_plot(image, pngs["range slider"], "range slider")

    choice.select_option("python_docs")
    expect_plot(image, pngs["second dropdown"], "second dropdown")
    expect(status).to_have_text("")
    nb.screenshot(box, "ch06_vocab_size.png", readme_image="tokens_per_word.png")
    nb.assert_no_console_errors()
