"""Chapter 04's merge stepper in a real browser: next / prev buttons and typing a new word."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import gpt2
from bpe_course.viz import token_label
from bpe_course.algorithms.wordbpe import WordBPE

from .lab_page import chip_ids, chip_labels, eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "04_encoding_decoding.ipynb"
TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3  # the chapter's toy corpus (Sennrich et al.)
TOY_WORD, NEW_WORD = "lowest", "newer"  # the chapter's first word, and one typed in the test
GPT2_TEXT = " detokenization"  # the chapter's GPT-2 example
AFTER_MERGE = re.compile(r"after merge #(\d+)")


def word_states(bpe: WordBPE, word: str) -> list[tuple[int | None, list[str]]]:
    """Every segmentation the stepper should show, from the tokenizers with 0, 1, 2, ... merges:
    each change is one step, made by merge #k-1 when k merges first change it."""
    states = [(None, bpe.truncated(0).tokenize_word(word))]
    for k in range(1, len(bpe.merges) + 1):
        tokens = bpe.truncated(k).tokenize_word(word)
        if tokens != states[-1][1]:
            states.append((k - 1, tokens))
    return states


class Stepper:
    """The parts of the n-th stepper on the page."""

    def __init__(self, nb, n: int) -> None:
        self.word = nb.widget("bpe-step-word").nth(n).locator("input")
        self.prev = nb.widget("bpe-step-prev").nth(n)
        self.next = nb.widget("bpe-step-next").nth(n)
        self.view = nb.widget("bpe-step-view").nth(n)

    def expect_state(self, step: int, last: int, rank: int | None, labels: list[str]) -> None:
        expect(self.view).to_contain_text(f"step {step} of {last}, "
                                          + (f"after merge #{rank}:" if rank is not None else "before any merge"))
        eventually(lambda: self._check_labels(labels))
        expect(self.prev).to_be_enabled(enabled=step > 0)
        expect(self.next).to_be_enabled(enabled=step < last)

    def _check_labels(self, labels: list[str]) -> None:
        assert chip_labels(self.view) == labels


def test_stepper_walks_the_merges(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    expect(nb.widget("bpe-step-view")).to_have_count(3)  # toy word, corpus word, GPT-2
    toy = WordBPE.train(TOY, vocab_size=1000)
    stepper = Stepper(nb, 0)

    # The toy stepper, one click per merge, each state what the first k merges give.
    states = word_states(toy, TOY_WORD)
    last = len(states) - 1
    for step, (rank, tokens) in enumerate(states):
        if step:
            stepper.next.click()
        stepper.expect_state(step, last, rank, tokens)
    expect(stepper.view).to_contain_text("this is the final encoding")
    assert states[-1][1] == toy.tokenize_word(TOY_WORD)
    assert chip_ids(stepper.view) == [toy.token_to_id[t] for t in states[-1][1]]
    stepper.prev.click()
    stepper.expect_state(last - 1, last, *states[last - 1])
    nb.screenshot(stepper.view.locator(".."), "ch04_stepper_toy.png")

    # A new word typed in the box (applied on Enter) starts again from its characters.
    stepper.word.click()
    nb.page.keyboard.press("Control+A")
    nb.page.keyboard.type(NEW_WORD)
    nb.page.keyboard.press("Enter")
    states = word_states(toy, NEW_WORD)
    last = len(states) - 1
    stepper.expect_state(0, last, None, list(NEW_WORD) + ["</w>"])
    for step in range(1, last + 1):
        stepper.next.click()
        stepper.expect_state(step, last, *states[step])
    assert chip_ids(stepper.view) == [toy.token_to_id[t] for t in toy.tokenize_word(NEW_WORD)]

    # GPT-2, byte level: each state is what GPT-2's first rank+1 merges give; the last is GPT-2's encoding.
    tok = gpt2()
    stepper = Stepper(nb, 2)
    expect(stepper.word).to_have_value(GPT2_TEXT)
    stepper.expect_state(0, int(re.search(r"of (\d+)", stepper.view.inner_text())[1]), None,
                         [token_label(bytes([b])) for b in GPT2_TEXT.encode()])
    while stepper.next.is_enabled():
        shown_step = int(re.search(r"step (\d+)", stepper.view.inner_text())[1])
        stepper.next.click()
        expect(stepper.view).to_contain_text(f"step {shown_step + 1} of")
        rank = int(AFTER_MERGE.search(stepper.view.inner_text())[1])
        small = tok.truncated(rank + 1)
        expected = [token_label(t) for t in small.token_bytes(small.encode_ordinary(GPT2_TEXT))]
        eventually(lambda: stepper._check_labels(expected))  # noqa: B023 (used before the loop moves on)
    expect(stepper.view).to_contain_text("this is the final encoding")
    assert chip_ids(stepper.view) == tok.encode(GPT2_TEXT)
    nb.screenshot(stepper.view.locator(".."), "ch04_stepper_gpt2.png")
    nb.assert_no_console_errors()
