"""Chapter 02's pair explorer in a real browser: the merge button, the bars, the words, reset."""

from __future__ import annotations

import ast

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import corpus
from bpe_course.algorithms.wordbpe import SPECIALS, WordBPE, apply_merge, count_pairs, top_pairs, word_counts

from .lab_page import chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "02_counting_pairs.ipynb"
TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3  # the chapter's toy corpus (Sennrich et al.)
TOY_STEPS_IN_NOTEBOOK = 5  # the chapter clicks a second toy explorer 5 times from Python (the shown one stays at 0)
REAL_STEPS_IN_NOTEBOOK = 3  # ... and a second real-text one 3 times


def words_after(text: str, merges: list) -> dict:
    words = word_counts(text)
    for pair in merges:
        words = apply_merge(words, pair)
    return words


def shown_bars(explorer: Locator) -> list[tuple[tuple[str, str], int]]:
    bars = explorer.locator(".bpe-pair-bar")
    return [(ast.literal_eval(pair), int(count)) for pair, count in
            bars.evaluate_all("rows => rows.map(r => [r.dataset.pair, r.dataset.count])")]


def expect_state(explorer: Locator, text: str, merges: list) -> None:
    """Bars = the top 10 pairs after ``merges`` (best first); word rows = the top 12 words as chips."""
    words = words_after(text, merges)
    expected_bars = top_pairs(count_pairs(words), 10)
    ranked = sorted(words.items(), key=lambda item: (-item[1], item[0]))[:12]
    expected_rows = [(f"×{count}", list(word)) for word, count in ranked]
    rows = explorer.locator(".bpe-word-row")

    def shown_rows() -> list[tuple[str, list[str]]]:
        return [(rows.nth(k).locator("span").first.inner_text(), chip_labels(rows.nth(k)))
                for k in range(rows.count())]

    def check() -> None:
        assert shown_bars(explorer) == expected_bars
        assert shown_rows() == expected_rows

    eventually(check)


def test_pair_explorer_buttons(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    explorers = nb.widget("bpe-pair-explorer")
    expect(explorers).to_have_count(2)
    toy, real = explorers.nth(0), explorers.nth(1)
    trained = WordBPE.train(TOY, vocab_size=1000)  # runs until no pair occurs twice

    # After Run All the toy explorer is where its own cell put it, at the start: the chapter drives a
    # second explorer from Python. Clicking 5 times gives the 5 merges the chapter's second one made.
    status = toy.locator(".bpe-merge-message")
    expect(status).to_contain_text("Every word is split into characters")
    expect_state(toy, TOY, [])
    button = toy.locator(".bpe-merge-button")
    for _ in range(TOY_STEPS_IN_NOTEBOOK):
        button.click()
    a, b = trained.merges[TOY_STEPS_IN_NOTEBOOK - 1]
    expect(status).to_contain_text(f"Merge {TOY_STEPS_IN_NOTEBOOK}: {a} + {b} → {a + b}")
    expect_state(toy, TOY, trained.merges[:TOY_STEPS_IN_NOTEBOOK])

    # One click: the bars' best (red, first) pair is exactly the trainer's next merge.
    best_shown = shown_bars(toy)[0][0]
    assert best_shown == trained.merges[TOY_STEPS_IN_NOTEBOOK]
    button.click()
    a, b = trained.merges[TOY_STEPS_IN_NOTEBOOK]
    expect(status).to_contain_text(f"Merge {TOY_STEPS_IN_NOTEBOOK + 1}: {a} + {b} → {a + b}")
    expect_state(toy, TOY, trained.merges[:TOY_STEPS_IN_NOTEBOOK + 1])

    # Reset: single characters again, no merges.
    toy.locator(".bpe-reset-button").click()
    expect(status).to_contain_text("Every word is split into characters")
    expect_state(toy, TOY, [])
    nb.screenshot(toy, "ch02_pair_explorer_reset.png")

    # Click until the button disables: exactly when WordBPE's training stops.
    for step in range(1, len(trained.merges) + 1):
        expect(button).to_be_enabled()
        button.click()
        a, b = trained.merges[step - 1]
        expect(status).to_contain_text(f"Merge {step}: {a} + {b} → {a + b}")
    expect(button).to_be_disabled()
    expect_state(toy, TOY, trained.merges)
    nb.screenshot(toy, "ch02_pair_explorer_done.png")

    # The explorer on real text: one more click gives the package trainer's next merge.
    train_text, _ = corpus.train_heldout(notebook_constants(NOTEBOOK)["CORPUS"])
    base_size = len(SPECIALS) + len(set("".join(train_text.split()))) + 1
    real_merges = WordBPE.train(train_text, vocab_size=base_size + REAL_STEPS_IN_NOTEBOOK + 1).merges
    expect_state(real, train_text, [])  # at the start after Run All, like the toy one
    for _ in range(REAL_STEPS_IN_NOTEBOOK + 1):
        real.locator(".bpe-merge-button").click()
    a, b = real_merges[REAL_STEPS_IN_NOTEBOOK]
    expect(real.locator(".bpe-merge-message")).to_contain_text(f"Merge {REAL_STEPS_IN_NOTEBOOK + 1}: {a} + {b}")
    expect_state(real, train_text, real_merges)
    nb.screenshot(real, "ch02_pair_explorer_real_text.png")
    nb.assert_no_console_errors()
