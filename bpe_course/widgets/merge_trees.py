"""Merge trees: how one BPE token was built from single bytes, merge by merge.

Every token longer than one byte was made by exactly one merge ``(left, right)``; splitting
``left`` and ``right`` the same way, down to single bytes, gives a binary tree whose leaves,
read left to right, are the token's bytes.

>>> merges = [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low")]
>>> tree = merge_tree(b" low", merges)
>>> tree.rank, [child.token for child in tree.children]
(2, [b' ', b'low'])
>>> b"".join(leaf.token for leaf in tree.leaves())
b' low'
>>> tree.to_data()["children"][1]
{'token': b'low', 'rank': 1, 'children': [{'token': b'l', 'rank': None, 'children': []}, {'token': b'ow', 'rank': 0, 'children': [{'token': b'o', 'rank': None, 'children': []}, {'token': b'w', 'rank': None, 'children': []}]}]}
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from ..bpe import first_merge_ranks
from ..viz import CHIP_STYLE, PALETTE, token_label

MergeIndex = dict[bytes, tuple[int, bytes, bytes]]  # token -> (rank, left, right) of the merge that made it


@dataclass(frozen=True)
class MergeNode:
    """One token in a merge tree; ``rank`` is the merge that made it (None for a single byte).

    subtle: a learner's tokenizer trained on one letter can have a token 10,000 merges deep
    ((a, a), (aa, a), (aaa, a), ...), so nothing here recurses: every walk over the tree uses a
    list as its stack, and equality, hashing and ``repr`` look at one node at a time.
    """

    token: bytes
    rank: int | None
    children: tuple[MergeNode, ...] = ()

    def preorder(self) -> Iterator[MergeNode]:
        """Every node, root first, each node's children left to right after it."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> list[MergeNode]:
        """The single-byte nodes, left to right."""
        return [node for node in self.preorder() if not node.children]

    def inner_nodes(self) -> list[MergeNode]:
        """The merged nodes in pre-order (root first)."""
        return [node for node in self.preorder() if node.children]

    def height(self) -> int:
        """0 for a single byte; otherwise 1 + the taller child."""
        return self._bottom_up(lambda node, below: 1 + max(below) if below else 0)

    def to_data(self) -> dict:
        """The tree as plain nested dicts: ``{"token", "rank", "children": [...]}``."""
        return self._bottom_up(lambda node, below: {"token": node.token, "rank": node.rank, "children": below})

    def _bottom_up(self, combine: Callable[[MergeNode, list], object]):
        """``combine(node, [results of its children])`` for every node, children first; the root's result."""
        done: dict[int, object] = {}
        for node in reversed(list(self.preorder())):  # reversed pre-order: every child before its parent
            done[id(node)] = combine(node, [done[id(child)] for child in node.children])
        return done[id(self)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MergeNode):
            return NotImplemented
        mine, theirs = self.preorder(), other.preorder()
        for a, b in zip_longest(mine, theirs):  # the same nodes in pre-order, with the same arity: the same tree
            if a is None or b is None or (a.token, a.rank, len(a.children)) != (b.token, b.rank, len(b.children)):
                return False
        return True

    def __hash__(self) -> int:
        return hash((self.token, self.rank))

    def __repr__(self) -> str:
        below = f", children=({', '.join(repr(c.token) for c in self.children)})" if self.children else ""
        return f"MergeNode(token={self.token!r}, rank={self.rank!r}{below})"


def index_merges(merges: Sequence[tuple[bytes, bytes]]) -> MergeIndex:
    """Which merge made each token: ``{left + right: (rank, left, right)}``.

    subtle: if two merges ever produce the same bytes, the first (lowest rank) one made the
    token (:func:`bpe_course.bpe.first_merge_ranks`).

    >>> index_merges([(b"a", b"b"), (b"ab", b"c")])[b"abc"]
    (1, b'ab', b'c')
    """
    return {token: (rank, *merges[rank]) for token, rank in first_merge_ranks(merges).items()}


def merge_tree(token: bytes, merges: Sequence[tuple[bytes, bytes]] | Mapping[bytes, tuple[int, bytes, bytes]]
               ) -> MergeNode:
    """Split ``token`` recursively by the merge that made it, down to single bytes.

    ``merges`` is the merge list in rank order, or its :func:`index_merges` (faster when drawing
    many trees from a big vocabulary such as GPT-2's 50,000 merges).
    """
    if not isinstance(token, bytes) or not token:
        raise ValueError(f"token must be non-empty bytes, got {token!r}")
    index = merges if isinstance(merges, Mapping) else index_merges(merges)
    return _build(token, index)


def _build(token: bytes, index: Mapping[bytes, tuple[int, bytes, bytes]]) -> MergeNode:
    """The tree under ``token``, built from the bottom up with a list as the stack (no recursion)."""
    order, stack = [], [token]
    while stack:  # pre-order over the tokens, each looked up once per place it occurs
        part = stack.pop()
        order.append(part)
        if len(part) > 1:
            if part not in index:
                raise ValueError(f"{part!r} is not made by any merge in the list (a special token, or from another "
                                 "tokenizer?)")
            _, left, right = index[part]
            stack += (right, left)
    built: list[MergeNode] = []  # the nodes finished so far, the last one the rightmost
    for part in reversed(order):  # children before parents; a node's children are the last two finished
        if len(part) == 1:
            built.append(MergeNode(part, None))
        else:
            left_node, right_node = built.pop(), built.pop()
            built.append(MergeNode(part, index[part][0], (left_node, right_node)))
    return built[0]


# ---- drawing --------------------------------------------------------------------------------

def _chip(token: bytes, colour: str) -> str:
    style = CHIP_STYLE.format(bg=colour)
    return f'<span class="bpe-chip" style="{style}">{html.escape(token_label(token))}</span>'


def _describe(node: MergeNode, ids: Mapping[bytes, int] | None) -> str:
    id_text = f", id {ids[node.token]}" if ids is not None and node.token in ids else ""
    if node.rank is None:
        return f"byte 0x{node.token[0]:02X}{id_text}"
    left, right = (token_label(child.token) for child in node.children)
    return f"merge #{node.rank}: {left} + {right}{id_text}"


def merge_tree_html(tree: MergeNode, ids: Mapping[bytes, int] | None = None) -> str:
    """The tree as an indented list: each node's chip, then the merge that made it (and its id).

    >>> "merge #0: o + w" in merge_tree_html(merge_tree(b"ow", [(b"o", b"w")]))
    True
    """
    rows = []
    stack = [(tree, 0)]
    while stack:  # pre-order, with a list as the stack
        node, depth = stack.pop()
        colour = PALETTE[depth % len(PALETTE)]
        rows.append(f'<div class="bpe-merge-node" style="margin-left:{24 * depth}px;'
                    f'border-left:2px solid #ccc;padding-left:6px">{_chip(node.token, colour)} '
                    f'<span style="color:#555;font-size:12px">{html.escape(_describe(node, ids))}</span></div>')
        stack += [(child, depth + 1) for child in reversed(node.children)]
    return f'<div class="bpe-merge-tree" style="line-height:1.7">{"".join(rows)}</div>'


def tree_layout(tree: MergeNode) -> list[tuple[MergeNode, float, int]]:
    """Positions for drawing: ``(node, x, level)`` in pre-order. Leaves sit at x = 0, 1, 2, ...
    on level 0; a merged node sits above the middle of its two children, one level above the
    taller one.

    >>> [(n.token, x, level) for n, x, level in tree_layout(merge_tree(b"ow", [(b"o", b"w")]))]
    [(b'ow', 0.5, 1), (b'o', 0.0, 0), (b'w', 1.0, 0)]
    """
    nodes = list(tree.preorder())
    spot: dict[int, tuple[float, int]] = {}
    leaf_x = iter(range(len(nodes)))
    for node in nodes:  # leaves get x = 0, 1, 2, ... in pre-order, which is left to right
        if not node.children:
            spot[id(node)] = (float(next(leaf_x)), 0)
    for node in reversed(nodes):  # children before parents
        if node.children:
            below = [spot[id(child)] for child in node.children]
            spot[id(node)] = (sum(x for x, _ in below) / len(below), 1 + max(level for _, level in below))
    return [(node, *spot[id(node)]) for node in nodes]


def merge_tree_svg(tree: MergeNode, ids: Mapping[bytes, int] | None = None) -> str:
    """The tree drawn upside down as SVG: the token on top, its bytes along the bottom."""
    layout = tree_layout(tree)
    top = max(level for _, _, level in layout)
    step_x, step_y, pad = 64, 46, 36
    width = int(step_x * (len(tree.leaves()) - 1) + 2 * pad)
    height = step_y * top + 2 * pad
    where = {id(node): (pad + x * step_x, pad + (top - level) * step_y) for node, x, level in layout}
    parts = [f'<svg class="bpe-merge-tree-svg" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" font-family="monospace" font-size="12">']
    for node, _, _ in layout:
        x0, y0 = where[id(node)]
        for child in node.children:
            x1, y1 = where[id(child)]
            parts.append(f'<line x1="{x0:.1f}" y1="{y0 + 9}" x2="{x1:.1f}" y2="{y1 - 9}" stroke="#999"/>')
    for k, (node, _, level) in enumerate(layout):
        x, y = where[id(node)]
        label = html.escape(token_label(node.token))
        tip = html.escape(_describe(node, ids))
        box = 8 * len(token_label(node.token)) + 8
        parts.append(f'<g><title>{tip}</title><rect x="{x - box / 2:.1f}" y="{y - 9}" width="{box}" height="18" '
                     f'rx="4" fill="{PALETTE[level % len(PALETTE)]}"/>'
                     f'<text x="{x:.1f}" y="{y + 4}" text-anchor="middle">{label}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


class MergeTreeExplorer:
    """Type text; see its tokens and, for each, the tree of merges that built it.

    Drive it from Python: ``w.text.value = " Transformer"``, then read ``w.output_html.value``.
    """

    def __init__(self, tokenizer, text: str = " tokenization", max_trees: int = 6) -> None:
        import ipywidgets as widgets

        from ..viz import chips_html
        self._chips_html = chips_html
        self.tokenizer = tokenizer
        self.max_trees = max_trees
        self.index = index_merges(tokenizer.merges)
        specials = set(tokenizer.special_tokens.values())
        self.ids = {token: i for i, token in tokenizer.vocab.items() if i not in specials}
        self.text = widgets.Text(value=text, description="text", continuous_update=True)
        self.text.add_class("bpe-merge-tree-text")
        self.output_html = widgets.HTML()
        self.output_html.add_class("bpe-merge-tree-output")
        self.widget = widgets.VBox([self.text, self.output_html])
        self.text.observe(lambda _change: self.refresh(), names="value")
        self.refresh()

    def trees(self) -> list[MergeNode]:
        """The merge tree of each token of the current text (up to ``max_trees``)."""
        ids = self.tokenizer.encode_ordinary(self.text.value)
        return [merge_tree(token, self.index) for token in self.tokenizer.token_bytes(ids)[:self.max_trees]]

    def refresh(self) -> None:
        ids = self.tokenizer.encode_ordinary(self.text.value)
        parts = [self._chips_html(self.tokenizer.token_bytes(ids), ids)]
        parts += [merge_tree_svg(tree, self.ids) for tree in self.trees()]
        if len(ids) > self.max_trees:
            parts.append(f"<p>(trees of the first {self.max_trees} of {len(ids)} tokens)</p>")
        self.output_html.value = "".join(f"<div>{part}</div>" for part in parts)
