"""Merge trees (bpe_course.widgets.merge_trees): the data, the drawings and the explorer widget."""

from __future__ import annotations

import random
import re

import pytest

from bpe_course import Tokenizer, train_bpe
from bpe_course.viz import token_label
from bpe_course.widgets.merge_trees import (
    MergeTreeExplorer, index_merges, merge_tree, merge_tree_html, merge_tree_svg, tree_layout,
)


def assert_valid_tree(token: bytes, merges: list[tuple[bytes, bytes]]) -> None:
    """Leaves are single bytes that spell the token; each inner node is its merge, children in order."""
    tree = merge_tree(token, merges)
    assert tree.token == token
    leaves = tree.leaves()
    assert all(len(leaf.token) == 1 and leaf.rank is None and not leaf.children for leaf in leaves)
    assert b"".join(leaf.token for leaf in leaves) == token
    for node in tree.inner_nodes():
        assert len(node.children) == 2
        assert merges[node.rank] == (node.children[0].token, node.children[1].token)
        assert node.token == node.children[0].token + node.children[1].token
        # children were made before their parent
        assert all(child.rank is None or child.rank < node.rank for child in node.children)


@pytest.fixture(scope="module")
def trained(docs_text) -> Tokenizer:
    vocab, merges = train_bpe(docs_text[:60_000], 256 + 400)
    return Tokenizer(vocab, merges)


def test_toy_tree_structure():
    merges = [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low"), (b"e", b"r"), (b" low", b"er")]
    leaf = lambda b: {"token": b, "rank": None, "children": []}  # noqa: E731
    assert merge_tree(b" lower", merges).to_data() == {
        "token": b" lower", "rank": 4, "children": [
            {"token": b" low", "rank": 2, "children": [
                leaf(b" "),
                {"token": b"low", "rank": 1, "children": [
                    leaf(b"l"),
                    {"token": b"ow", "rank": 0, "children": [leaf(b"o"), leaf(b"w")]}]}]},
            {"token": b"er", "rank": 3, "children": [leaf(b"e"), leaf(b"r")]}]}
    assert merge_tree(b" lower", merges).height() == 4
    assert_valid_tree(b" lower", merges)


def test_toy_tree_missing_merge_raises():
    with pytest.raises(ValueError, match="not made by any merge"):
        merge_tree(b"er", [(b"o", b"w")])
    with pytest.raises(ValueError, match="non-empty bytes"):
        merge_tree(b"", [(b"o", b"w")])


def test_single_byte_is_a_leaf():
    tree = merge_tree(b"a", [])
    assert tree.rank is None and tree.children == () and tree.height() == 0


def test_first_merge_making_a_token_wins():
    merges = [(b"a", b"b"), (b"ab", b"c"), (b"a", b"bc"), (b"b", b"c")]
    assert merge_tree(b"abc", merges).rank == 1


def test_gpt2_known_tree(gpt2_tok):
    tree = merge_tree(b" understanding", gpt2_tok.merges)
    assert [child.token for child in tree.children] == [b" understand", b"ing"]
    assert gpt2_tok.vocab[256 + tree.rank] == b" understanding"  # GPT-2: id = 256 + rank
    assert_valid_tree(b" understanding", gpt2_tok.merges)


def test_gpt2_random_tokens_are_valid_trees(gpt2_tok):
    index = index_merges(gpt2_tok.merges)
    rng = random.Random(1)
    multi = [t for i, t in gpt2_tok.vocab.items() if len(t) > 1 and i not in gpt2_tok.special_tokens.values()]
    for token in rng.sample(multi, 2000) + [t for t in multi if not t.decode("utf-8", "ignore")][:50]:
        tree = merge_tree(token, index)
        assert b"".join(leaf.token for leaf in tree.leaves()) == token
        for node in tree.inner_nodes():
            assert gpt2_tok.merges[node.rank] == tuple(child.token for child in node.children)
    with pytest.raises(ValueError):
        merge_tree(b"<|endoftext|>", index)


def test_trained_tokenizer_trees(trained):
    for left, right in trained.merges:
        assert_valid_tree(left + right, trained.merges)


def test_index_and_list_give_the_same_tree(trained):
    token = max((a + b for a, b in trained.merges), key=len)
    assert merge_tree(token, trained.merges) == merge_tree(token, index_merges(trained.merges))


def test_layout_positions():
    tree = merge_tree(b"low", [(b"o", b"w"), (b"l", b"ow")])
    layout = {node.token: (x, level) for node, x, level in tree_layout(tree)}
    assert layout[b"l"] == (0.0, 0) and layout[b"o"] == (1.0, 0) and layout[b"w"] == (2.0, 0)
    assert layout[b"ow"] == (1.5, 1) and layout[b"low"] == (0.75, 2)


def test_html_and_svg_show_every_node(gpt2_tok):
    ids = {t: i for i, t in gpt2_tok.vocab.items()}
    tree = merge_tree(b" understanding", gpt2_tok.merges)
    page = merge_tree_html(tree, ids)
    nodes = tree.inner_nodes() + tree.leaves()
    assert page.count('class="bpe-merge-node"') == len(tree.inner_nodes()) + len(tree.leaves())
    assert f"merge #{tree.rank}: ␣understand + ing, id {ids[b' understanding']}" in page
    assert "byte 0x75, id 84" in page  # 'u'
    svg = merge_tree_svg(tree, ids)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert sorted(labels) == sorted(token_label(n.token) for n in nodes)
    assert svg.count("<line ") == 2 * len(tree.inner_nodes())


def test_explorer_widget_follows_text(gpt2_tok):
    w = MergeTreeExplorer(gpt2_tok, text=" understanding")
    assert "bpe-merge-tree-text" in w.text._dom_classes
    assert "bpe-merge-tree-output" in w.output_html._dom_classes
    assert [t.token for t in w.trees()] == [b" understanding"]
    assert "␣understand" in w.output_html.value
    w.text.value = " tokenization"
    assert [t.token for t in w.trees()] == gpt2_tok.token_bytes(gpt2_tok.encode(" tokenization"))
    assert "ization" in w.output_html.value and "␣understand" not in w.output_html.value
    assert w.output_html.value.count("<svg") == len(gpt2_tok.encode(" tokenization"))
    w.text.value = "a b c d e f g h"
    assert len(w.trees()) == w.max_trees
    assert f"first {w.max_trees} of {len(gpt2_tok.encode('a b c d e f g h'))} tokens" in w.output_html.value
