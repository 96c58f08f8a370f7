"""Chapter 10's tokenizer playground in a real browser: type text, every row re-encodes it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import Tokenizer, cl100k, corpus, gpt2, train_bpe
from bpe_course.viz import token_label

from .lab_page import chip_ids, chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "10_gpt4_cl100k.ipynb"
# Typed key by key: digits, a non-ASCII word, code indentation, an emoji and a special token.
TYPED = "In 1999, naïve café code:\n    x = 12345  # 🙂 done<|endoftext|>"


def tokenizers_like_the_chapter() -> dict[str, Tokenizer]:
    """The playground's rows: "yours" (trained as the chapter does), GPT-2 and GPT-4 (cl100k)."""
    config = notebook_constants(NOTEBOOK)
    specials = ["<|endoftext|>"]
    vocab, merges = train_bpe(corpus.load_text(config["CORPUS"]), config["OWN_VOCAB_SIZE"], specials, pattern="gpt4")
    return {"yours": Tokenizer(vocab, merges, specials, pattern="gpt4"), "GPT-2": gpt2(), "GPT-4": cl100k()}


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


def test_playground_follows_typing(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(tokenizers_like_the_chapter)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        tokenizers = building.result()
    playground = nb.widget("bpe-playground")
    expect(playground).to_have_count(1)
    rows = playground.locator(".bpe-playground-row")
    expect(rows).to_have_count(3)
    names = rows.locator(".bpe-playground-row-body").evaluate_all("rows => rows.map(r => r.dataset.name)")
    assert names[0].startswith("yours") and names[1:] == ["GPT-2", "GPT-4"], names

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
    nb.assert_no_console_errors()
