"""Chapter 15's BPE-dropout explorer in a real browser: type a word, untick its leading space, move p,
re-sample; rows follow."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bpe_course import gpt2
from bpe_course.viz import token_label
from bpe_course.widgets.dropout import DropoutExplorer

from .lab_page import eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "15_other_designs.ipynb"


def test_dropout_rows_follow_word_p_and_resample(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    reference = DropoutExplorer(gpt2(), n_samples=8)  # computes the same seeded samples as the page's kernel
    rows = nb.widget("bpe-dropout-rows")
    expect(rows).to_have_count(1)

    def expect_rows(word: str, p: float, draw: int) -> None:
        want = [" ".join(token_label(t) for t in s) for s in reference.sample(word, p, draw)]

        def check() -> None:
            got = rows.locator(".bpe-dropout-row").evaluate_all("rows => rows.map(r => r.dataset.tokens)")
            assert got == want, f"{word!r} at p={p}, draw {draw}: the rows differ"

        eventually(check)

    text = nb.widget("bpe-dropout-text").locator("input")
    space = nb.widget("bpe-dropout-space").locator("input")
    p_readout = nb.widget("bpe-dropout-p").locator(".widget-readout")
    expect(space).to_be_checked()  # " unlowered": the space is shown as a ticked ␣ box, not typed unseen
    expect(nb.widget("bpe-dropout-space")).to_contain_text("␣")
    p = float(p_readout.inner_text())  # where the chapter's own cell put it
    expect_rows(" " + text.input_value(), p, 0)
    text.fill("knighthood")
    text.press("Enter")
    expect_rows(" knighthood", p, 0)
    space.uncheck()
    expect_rows("knighthood", p, 0)
    space.check()
    nb.set_slider_by_keys(nb.widget("bpe-dropout-p"), "ArrowRight", 2)  # up two steps of 0.05
    expect(p_readout).to_have_text(f"{p + 0.1:.2f}")
    expect_rows(" knighthood", round(p + 0.1, 2), 0)
    nb.widget("bpe-dropout-resample").click()
    expect_rows(" knighthood", round(p + 0.1, 2), 1)
    expect(nb.widget("bpe-dropout-status")).to_have_text("")
    nb.screenshot(rows.locator(".."), "ch15_dropout.png")
    nb.assert_no_console_errors()
