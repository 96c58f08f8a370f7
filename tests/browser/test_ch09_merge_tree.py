"""Chapter 09's merge-tree explorer in a real browser: type text, see GPT-2's tokens and their trees."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import Tokenizer, gpt2
from bpe_course.viz import token_label
from bpe_course.widgets.merge_trees import index_merges, merge_tree, tree_layout

from .lab_page import chip_ids, chip_labels, eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "09_gpt2_rank_for_rank.ipynb"
TYPED = " Transformers tokenize"
LONG = "Merge trees for every token of a text that has more than six tokens in it"
MAX_TREES = 6  # the explorer's default


def expected_trees(tok: Tokenizer, text: str) -> list[list[tuple[str, str]]]:
    """Per token (at most MAX_TREES): each node's (tooltip, label) in drawing order (pre-order)."""
    ids = {t: i for i, t in tok.vocab.items()}
    index = index_merges(tok.merges)
    trees = []
    for token in tok.token_bytes(tok.encode_ordinary(text))[:MAX_TREES]:
        nodes = []
        for node, _, _ in tree_layout(merge_tree(token, index)):
            if node.children:
                left, right = (child.token for child in node.children)
                assert tok.merges[node.rank] == (left, right)  # the merge that made it really is that rank's
                tip = f"merge #{node.rank}: {token_label(left)} + {token_label(right)}, id {ids[node.token]}"
            else:
                tip = f"byte 0x{node.token[0]:02X}, id {ids[node.token]}"
            nodes.append((tip, token_label(node.token)))
        trees.append(nodes)
    return trees


def expect_explorer(output: Locator, tok: Tokenizer, text: str) -> None:
    ids = tok.encode_ordinary(text)
    trees = expected_trees(tok, text)
    svgs = output.locator("svg.bpe-merge-tree-svg")

    def check() -> None:
        assert chip_ids(output) == ids
        assert chip_labels(output) == [token_label(t) for t in tok.token_bytes(ids)]
        shown = svgs.evaluate_all("""svgs => svgs.map(svg => [...svg.querySelectorAll('g')].map(
                                        g => [g.querySelector('title').textContent, g.querySelector('text').textContent]))""")
        assert shown == [[list(node) for node in tree] for tree in trees]

    eventually(check)
    if len(ids) > MAX_TREES:
        expect(output).to_contain_text(f"(trees of the first {MAX_TREES} of {len(ids)} tokens)")


def test_merge_tree_explorer_follows_typing(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    tok = gpt2()
    text_box = nb.widget("bpe-merge-tree-text").locator("input")
    output = nb.widget("bpe-merge-tree-output")
    expect(output).to_have_count(1)

    # After Run All: the text the chapter set from Python.
    expect_explorer(output, tok, text_box.input_value())

    for text in (TYPED, LONG):
        text_box.click()
        nb.page.keyboard.press("Control+A")
        nb.page.keyboard.type(text)
        expect(text_box).to_have_value(text)
        expect_explorer(output, tok, text)
        if text == TYPED:
            nb.screenshot(output.locator(".."), "ch09_merge_trees.png")
    nb.assert_no_console_errors()
