"""Chapter 17's SuperBPE explorer in a real browser: move the transition slider, type a sentence;
the chips are the tokens the package gives for that run, and the last transition is plain BPE."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bpe_course import Tokenizer, corpus
from bpe_course.train import train
from bpe_course.algorithms.variants import superbpe_tokens, sweep_superbpe
from bpe_course.viz import token_label

from .lab_page import chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "17_beyond_greedy_bpe.ipynb"


def test_superbpe_chips_follow_the_transition_and_the_text(open_notebook):
    constants = notebook_constants(NOTEBOOK)
    text = corpus.train_heldout("don_quixote")[0][:constants["TRAIN_CHARS"]]
    n_merges = constants["N_MERGES"]
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    slider, box = nb.widget("bpe-superbpe-transition"), nb.widget("bpe-superbpe-text").locator("input")
    chips, status = nb.widget("bpe-superbpe-chips"), nb.widget("bpe-superbpe-status")
    expect(chips).to_have_count(1)
    readout = slider.locator(".widget-readout")
    first = int(readout.inner_text().replace(",", ""))  # where the chapter's own cell left it
    nb.set_slider_by_keys(slider, "ArrowRight", 1)
    expect(readout).not_to_have_text(f"{first:,}")
    second = int(readout.inner_text().replace(",", ""))
    runs = sweep_superbpe(text, n_merges, [first, second])
    plain_run = train(text, 256 + n_merges)
    plain = Tokenizer(plain_run.vocab, plain_run.merges)

    def expect_chips(tokens: list[bytes]) -> None:
        want = [token_label(t) for t in tokens]

        def check() -> None:
            assert chip_labels(chips) == want, f"the chips differ from the package's {len(want)} tokens"

        eventually(check)
        expect(status).to_contain_text(f"{len(tokens)} tokens for this text")

    expect_chips(superbpe_tokens(runs[second], box.input_value()))
    box.fill("and in the end of the day, said Sancho to his master")
    box.press("Enter")
    expect_chips(superbpe_tokens(runs[second], "and in the end of the day, said Sancho to his master"))
    nb.set_slider_by_keys(slider, "End", 1)
    expect(readout).to_have_text(f"{n_merges:,}")
    expect_chips([plain.vocab[i] for i in plain.encode_ordinary("and in the end of the day, said Sancho to his master")])
    expect(nb.widget("bpe-superbpe-superwords")).to_have_text("0 superword tokens")
    nb.set_slider_by_keys(slider, "Home", 1)
    expect(readout).to_have_text(f"{first:,}")
    expect_chips(superbpe_tokens(runs[first], "and in the end of the day, said Sancho to his master"))
    nb.screenshot(chips.locator(".."), "ch17_superbpe.png")
    nb.assert_no_console_errors()
