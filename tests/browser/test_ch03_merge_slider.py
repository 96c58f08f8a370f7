"""Chapter 03's merge-count slider in a real browser: arrow keys, the typed readout, the ±1 buttons,
the number box, the text box."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import corpus
from bpe_course.viz import token_label
from bpe_course.algorithms.wordbpe import WordBPE

from .lab_page import chip_ids, chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "03_training_loop.ipynb"
TYPED_MERGES = 200  # typed into the readout: common words are whole by then, rare ones still in pieces
NEW_TEXT = "unlowered lowest tokenizers"


def train_like_the_chapter() -> tuple[WordBPE, str]:
    """The chapter's ``bpe``: WordBPE on the training part of CORPUS, for VOCAB_SIZE tokens."""
    config = notebook_constants(NOTEBOOK)
    train_text, _ = corpus.train_heldout(config["CORPUS"])
    return WordBPE.train(train_text, config["VOCAB_SIZE"]), config["SAMPLE"]


def expect_slider_at(box: Locator, bpe: WordBPE, k: int, text: str) -> None:
    """Readout k; chips = the first k merges' tokenization of ``text``; stats and last merge to match."""
    small = bpe.truncated(k)
    symbols = small.tokenize(text)
    words = len(text.split())
    stats = (f"vocab size {len(small.vocab)} · {len(symbols)} tokens for {words} words · "
             f"{len(symbols) / words:.2f} tokens per word")
    last = f"merge {k}: {bpe.merges[k - 1][0]} + {bpe.merges[k - 1][1]}" if k else "no merges: single characters"
    expect(box.locator(".bpe-merge-slider .widget-readout")).to_have_text(str(k))
    expect(box.locator(".bpe-merge-exact input")).to_have_value(str(k))
    expect(box.locator(".bpe-stats")).to_have_text(stats)
    expect(box.locator(".bpe-last-merge")).to_contain_text(last)
    chips = box.locator(".bpe-chips")

    def check() -> None:
        assert chip_labels(chips) == [token_label(s) for s in symbols]
        assert chip_ids(chips) == [small.token_to_id[s] for s in symbols]

    eventually(check)


def test_merge_slider_retokenizes_live(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        training = pool.submit(train_like_the_chapter)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        bpe, sample = training.result()
    boxes = nb.widget("bpe-merge-slider-box")
    expect(boxes).to_have_count(1)
    box = boxes.first
    slider = box.locator(".bpe-merge-slider")
    expect(box.locator(".bpe-sample-text input")).to_have_value(sample)

    # Where the chapter's own cell put it (later cells drive a separate instance): its count shown everywhere.
    readout = box.locator(".bpe-merge-slider .widget-readout")
    expect(readout).to_have_text(re.compile(r"^\d+$"))
    k = int(readout.inner_text())
    assert 3 <= k <= len(bpe.merges) - 1
    expect_slider_at(box, bpe, k, sample)
    # A slider wide enough to aim at (it was about 120 px for ~500 merges).
    assert slider.locator(".slider-container").bounding_box()["width"] >= 300

    # Arrow keys on the slider's handle: one merge per press.
    nb.set_slider_by_keys(slider, "ArrowLeft", 3)
    expect_slider_at(box, bpe, k - 3, sample)

    # The buttons: one merge more, one less.
    box.locator(".bpe-merge-forward").click()
    expect_slider_at(box, bpe, k - 2, sample)
    box.locator(".bpe-merge-back").click()
    box.locator(".bpe-merge-back").click()
    expect_slider_at(box, bpe, k - 4, sample)

    # The number box: any count, exactly.
    number = box.locator(".bpe-merge-exact input")
    number.fill(str(TYPED_MERGES + 1))
    number.press("Enter")
    expect_slider_at(box, bpe, TYPED_MERGES + 1, sample)

    # Typing a number into the readout.
    nb.type_into_readout(slider, str(TYPED_MERGES))
    expect_slider_at(box, bpe, TYPED_MERGES, sample)
    nb.screenshot(box, "ch03_merge_slider.png", readme_image="merge_slider.png")

    # Typing another text: re-tokenized with the same number of merges.
    text_box = box.locator(".bpe-sample-text input")
    text_box.click()
    nb.page.keyboard.press("Control+A")
    nb.page.keyboard.type(NEW_TEXT)
    expect_slider_at(box, bpe, TYPED_MERGES, NEW_TEXT)

    # Down to zero merges: single characters plus </w>.
    nb.type_into_readout(slider, "0")
    expect_slider_at(box, bpe, 0, NEW_TEXT)
    nb.screenshot(box, "ch03_merge_slider_new_text.png")
    nb.assert_no_console_errors()
