"""Chapter 06's vocabulary-size explorer in a real browser: the corpus dropdown and the range slider.

The plot is a PNG in an ``<img>``; matplotlib draws the same figure byte for byte, so the test
draws the expected figure with the package and compares the bytes the browser shows.
"""

from __future__ import annotations

import base64
import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, expect

from bpe_course import cl100k, gpt2
from bpe_course.widgets.vocab_size import figure_png, plot_vocab_size, vocab_size_data

from .lab_page import ARTIFACTS, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "06_vocabulary_size.ipynb"
N_POINTS = 10  # the explorer's default
# The moves below and the (corpus, lo, hi) each one leads to. The chapter leaves the explorer
# at python_code, 0-1024 merges; the slider's step is 16 merges.
STATES = {"after Run All": ("python_code", 0, 1024), "dropdown": ("languages", 0, 1024),
          "range slider": ("languages", 0, 960), "second dropdown": ("python_docs", 0, 960)}

READ_IMAGE = """async img => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return btoa(text);
}"""


def expected_pngs() -> dict[str, bytes]:
    """The plot for every state, drawn with the package exactly as the explorer draws it."""
    constants = notebook_constants(NOTEBOOK)
    references = {"GPT-2": gpt2(), "GPT-4 (cl100k)": cl100k()}  # the chapter's `references`
    pngs = {}
    for move, (source, lo, hi) in STATES.items():
        data = vocab_size_data([source], lo, hi, N_POINTS, references, constants["MAX_MERGES"],
                               min_frequency=constants["MIN_FREQUENCY"])
        pngs[move] = figure_png(plot_vocab_size(data, f"{source}: {lo}–{hi} merges, held-out text"))
    return pngs


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
    with ThreadPoolExecutor(1) as pool:
        drawing = pool.submit(expected_pngs)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        pngs = drawing.result()
    expect(nb.widget("bpe-vocab-plot")).to_have_count(1)
    image = nb.widget("bpe-vocab-plot")
    box = image.locator("..")
    choice = nb.widget("bpe-corpus-choice").locator("select")
    merges = nb.widget("bpe-range")
    status = nb.widget("bpe-vocab-status")

    expect(choice).to_have_value("python_code")
    expect(merges.locator(".widget-readout")).to_have_text("0 – 1024")
    expect_plot(image, pngs["after Run All"], "after Run All")

    choice.select_option("languages")
    expect_plot(image, pngs["dropdown"], "dropdown")

    nb.set_slider_by_keys(merges, "ArrowLeft", 4, handle=1)  # the upper handle: 1024 -> 960
    expect(merges.locator(".widget-readout")).to_have_text("0 – 960")
    expect_plot(image, pngs["range slider"], "range slider")

    choice.select_option("python_docs")
    expect_plot(image, pngs["second dropdown"], "second dropdown")
    expect(status).to_have_text("")
    nb.screenshot(box, "ch06_vocab_size.png", readme_image="tokens_per_word.png")
    nb.assert_no_console_errors()
