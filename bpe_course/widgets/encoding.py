"""Chapter 04's stepper: walk a word through its BPE merges, one merge at a time.

Works for the character-level :class:`~bpe_course.wordbpe.WordBPE` (the word is split on
whitespace, each word ends in ``</w>``) and for a byte-level :class:`~bpe_course.Tokenizer`
(the text is pre-tokenized with the tokenizer's pattern and each piece starts as bytes).
Each step applies the lowest-ranked merge that occurs anywhere, to all its occurrences.

>>> from bpe_course.algorithms.wordbpe import WordBPE
>>> bpe = WordBPE.from_merges([("o", "w"), ("l", "ow"), ("s", "t")], alphabet="lowest")
>>> [(s.rank, s.pair) for s in merge_states(bpe, "lowest")]
[(None, None), (0, ('o', 'w')), (1, ('l', 'ow')), (2, ('s', 't'))]
>>> merge_states(bpe, "lowest")[-1].tokens
('low', 'e', 'st', '</w>')
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable

import ipywidgets as widgets

from ..pretokenize import pretokenize
from ..tokenizer import Tokenizer
from ..viz import chips_html, token_label
from ..algorithms.wordbpe import EOW, UNK, WordBPE

# A str for WordBPE, bytes for a byte-level Tokenizer, never both in one stepper. Any rather than
# Union[str, bytes]: with a union, every a + b below would be a type error (str + bytes) that cannot happen.
Symbol = Any
Pieces = tuple[tuple[Symbol, ...], ...]  # one tuple of symbols per word / pre-token


@dataclass(frozen=True)
class MergeState:
    """The segmentation after one step, and the merge (rank, pair) that produced it."""

    pieces: Pieces
    rank: int | None = None  # None for the starting state
    pair: tuple[Symbol, Symbol] | None = None

    @property
    def tokens(self) -> tuple[Symbol, ...]:
        """All pieces' symbols, flattened: what the chips show."""
        return tuple(s for piece in self.pieces for s in piece)


def start_pieces(model: WordBPE | Tokenizer, text: str) -> Pieces:
    """The segmentation before any merge: characters plus ``</w>`` per word (WordBPE, unknown
    characters as ``<|unk|>``), or single bytes per pre-token (Tokenizer)."""
    if isinstance(model, WordBPE):
        return tuple(tuple(ch if ch in model.token_to_id else UNK for ch in word) + (EOW,)
                     for word in text.split())
    return tuple(tuple(bytes([b]) for b in piece.encode("utf-8")) for piece in pretokenize(text, model.pattern))


def rank_function(model: WordBPE | Tokenizer) -> Callable[[Symbol, Symbol], int | None]:
    """``rank(a, b)``: the rank of the merge joining ``a`` and ``b``, or None.

    For a Tokenizer, like tiktoken, a pair's rank is the rank of the first merge that makes the
    token ``a + b`` (:meth:`bpe_course.Tokenizer.first_merge_ranks`, made once per tokenizer).
    """
    if isinstance(model, WordBPE):
        return lambda a, b: model.ranks.get((a, b))
    table = model.first_merge_ranks()
    return lambda a, b: table.get(a + b)


def apply_lowest_merge(pieces: Pieces, rank: Callable[[Symbol, Symbol], int | None]) -> tuple[Pieces, int | None]:
    """Merge every occurrence (left to right) of the lowest-ranked adjacent pair; also return that rank.

    >>> ranks = {("a", "a"): 0}
    >>> apply_lowest_merge((("a", "a", "a"),), lambda a, b: ranks.get((a, b)))
    ((('aa', 'a'),), 0)
    """
    found = [r for piece in pieces for a, b in zip(piece, piece[1:]) if (r := rank(a, b)) is not None]
    if not found:
        return pieces, None
    best = min(found)
    merged = []
    for piece in pieces:
        out: list[Symbol] = []
        for symbol in piece:
            # subtle: a just-merged symbol never pairs at the same rank (a + b + c != a + b), so a
            # left-to-right scan equals "merge the leftmost occurrence, repeat" (GPT-2's loop)
            if out and rank(out[-1], symbol) == best:
                out[-1] = out[-1] + symbol
            else:
                out.append(symbol)
        merged.append(tuple(out))
    return tuple(merged), best


def merge_states(model: WordBPE | Tokenizer, text: str) -> list[MergeState]:
    """Every segmentation of ``text`` from the first (no merges) to the final encoding."""
    rank = rank_function(model)
    states = [MergeState(start_pieces(model, text))]
    while True:
        pieces, best = apply_lowest_merge(states[-1].pieces, rank)
        if best is None:
            return states
        a, b = model.merges[best]
        states.append(MergeState(pieces, best, (a, b)))


def describe_merge(rank: int, pair: tuple[Symbol, Symbol]) -> str:
    """``merge #3: 'l' + 'ow' → 'low'`` (bytes shown as chip labels).

    >>> describe_merge(3, (b" l", b"ow"))
    "merge #3: '␣l' + 'ow' → '␣low'"
    """
    a, b = pair
    return f"merge #{rank}: '{token_label(a)}' + '{token_label(b)}' → '{token_label(a + b)}'"


class MergeStepper:
    """Prev / next buttons that step one word (or short text) through its merges.

    Parts: ``.text`` (the word, CSS ``bpe-step-word``), ``.prev`` / ``.next`` (buttons,
    ``bpe-step-prev`` / ``bpe-step-next``), ``.view`` (HTML, ``bpe-step-view``), ``.step``
    (the current state's index), ``.states`` (all :class:`MergeState`), ``.box`` (the layout).
    """

    def __init__(self, model: WordBPE | Tokenizer, word: str = "lowest") -> None:
        self.model = model
        if isinstance(model, WordBPE):
            self._ids: dict[Symbol, int] = model.token_to_id
        else:
            specials = set(model.special_tokens.values())
            self._ids = {t: i for i, t in model.vocab.items() if i not in specials}
        self.text = widgets.Text(value=word, description="word", continuous_update=False).add_class("bpe-step-word")
        self.prev = widgets.Button(description="◀ prev").add_class("bpe-step-prev")
        self.next = widgets.Button(description="next ▶").add_class("bpe-step-next")
        self.view = widgets.HTML().add_class("bpe-step-view")
        self.prev.on_click(lambda _: self.go(self.step - 1))
        self.next.on_click(lambda _: self.go(self.step + 1))
        self.text.observe(lambda _: self._reset(), names="value")
        self.box = widgets.VBox([widgets.HBox([self.text, self.prev, self.next]), self.view])
        self._reset()

    def _reset(self) -> None:
        self.states = merge_states(self.model, self.text.value)
        self.go(0)

    def go(self, step: int) -> None:
        """Show state ``step`` (clamped to the first and last state)."""
        self.step = max(0, min(step, len(self.states) - 1))
        self.prev.disabled = self.step == 0
        self.next.disabled = self.step == len(self.states) - 1
        self.view.value = self.render()

    def render(self) -> str:
        """The HTML of the current state: how we got here, the chips, and what comes next."""
        if not self.states[0].pieces:
            return "<p>Type a word in the box.</p>"
        state, last = self.states[self.step], len(self.states) - 1
        done = (f"after {describe_merge(state.rank, state.pair)}" if state.rank is not None and state.pair is not None
                else "before any merge")
        tokens = state.tokens
        ids = [self._ids[t] for t in tokens]
        if self.step < last:
            nxt = self.states[self.step + 1]
            assert nxt.rank is not None and nxt.pair is not None  # every state after the first is a merge's
            coming = f"next: {describe_merge(nxt.rank, nxt.pair)}"
        else:
            coming = "no learned merge applies any more: this is the final encoding"
        return (f"<p>step {self.step} of {last}, {html.escape(done)} ({len(tokens)} tokens)</p>"
                f"{chips_html(tokens, ids)}<p><b>{html.escape(coming)}</b></p>")

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
