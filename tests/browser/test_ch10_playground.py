"""Chapter 10's tokenizer playground in a real browser: type text, every row re-encodes it; the ids are
written under the chips, and a line of chips never breaks inside a word."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import Tokenizer, cl100k, corpus, gpt2, train_bpe
from bpe_course.pretrained import tekken
from bpe_course.viz import token_label

from .lab_page import chip_ids, chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "10_gpt4_cl100k.ipynb"
# Typed key by key: digits, a non-ASCII word, code indentation, an emoji and a special token.
TYPED = "In 1999, naïve café code:\n    x = 12345  # 🙂 done<|endoftext|>"
# Long enough to wrap each row several times, with long words cut in several tokens.
WRAPPING = ("Internationalization, counterrevolutionaries and unlowered helmets: "
            "incomprehensibilities overwhelm tokenizers " * 3)


def tokenizers_like_the_chapter() -> dict[str, Tokenizer]:
    """The playground's rows: "yours" (trained as the chapter does), GPT-2, GPT-4 (cl100k) and Mistral's Tekken."""
    config = notebook_constants(NOTEBOOK)
    specials = ["<|endoftext|>"]
    vocab, merges = train_bpe(corpus.load_text(config["CORPUS"]), config["OWN_VOCAB_SIZE"], specials, pattern="gpt4")
    return {"yours": Tokenizer(vocab, merges, specials, pattern="gpt4"), "GPT-2": gpt2(), "GPT-4": cl100k(),
            "Mistral Tekken": tekken()}


def expect_rows(rows: Locator, tokenizers: dict[str, Tokenizer], text: str) -> None:
    """Each row: the count, the chips' ids and the chips' labels of that tokenizer's encoding of ``text``."""
    for k, tok in enumerate(tokenizers.values()):
        row = rows.nth(k)
        ids = tok.encode(text, allowed_special="all")
        expect(row.locator(".bpe-playground-count")).to_have_text(str(len(ids)))
        labels = [token_label(t) for t in tok.token_bytes(ids)]

        def check(row: Locator = row, ids: list[int] = ids, labels: list[str] = labels) -> None:
            assert chip_ids(row) == ids
            assert chip_labels(row) == labels

        eventually(check)


def expect_ids_written_and_words_whole(row: Locator) -> None:
    """Each chip's id is written, visibly, under it; the chips of one word all stand on one line."""
    ids = chip_ids(row)
    written = row.locator(".bpe-chip-id")
    expect(written.first).to_be_visible()
    assert [int(t) for t in written.all_inner_texts()] == ids
    tops = row.locator(".bpe-word-group").evaluate_all(
        "groups => groups.map(g => Array.from(g.querySelectorAll('.bpe-chip')).map(c => c.getBoundingClientRect().top))")
    assert tops and all(max(t) - min(t) < 1 for t in tops), "a word's chips stand on two lines"
    lines = {round(t[0]) for t in tops}
    assert len(lines) >= 2, "the row never wrapped: the test saw no line break at all"


def test_playground_follows_typing(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(tokenizers_like_the_chapter)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        tokenizers = building.result()
    playground = nb.widget("bpe-playground")
    expect(playground).to_have_count(1)
    rows = playground.locator(".bpe-playground-row")
    expect(rows).to_have_count(4)
    names = rows.locator(".bpe-playground-row-body").evaluate_all("rows => rows.map(r => r.dataset.name)")
    assert names[0].startswith("yours") and names[1:] == ["GPT-2", "GPT-4", "Mistral Tekken"], names

    # After Run All the box holds the text the chapter set from Python.
    text_box = playground.locator(".bpe-playground-text textarea")
    expect_rows(rows, tokenizers, text_box.input_value())

    # Type a new text key by key: every row follows.
    text_box.click()
    nb.page.keyboard.press("Control+A")
    nb.page.keyboard.type(TYPED)
    expect(text_box).to_have_value(TYPED)
    expect_rows(rows, tokenizers, TYPED)
    gpt4_ids = tokenizers["GPT-4"].encode(TYPED, allowed_special="all")
    assert gpt4_ids[-1] == tokenizers["GPT-4"].special_tokens["<|endoftext|>"]  # typed special -> one token
    nb.screenshot(playground, "ch10_playground.png")

    # A text long enough to wrap: ids under the chips, and no word cut across two lines.
    text_box.fill(WRAPPING)
    expect_rows(rows, tokenizers, WRAPPING)
    for k in range(4):
        expect_ids_written_and_words_whole(rows.nth(k))
    nb.screenshot(playground, "ch10_playground_wrapped.png")
    nb.assert_no_console_errors()
