"""A tokenizer playground: type text once, see how several tokenizers cut it.

One row per tokenizer: its name, how many tokens the text takes, and the tokens as coloured
chips, each with its id written under it; a line of chips breaks only between words. Everything is
drivable from plain Python:

>>> from bpe_course import train_bpe, Tokenizer
>>> tok = Tokenizer(*train_bpe("low low low lower lowest", 259))
>>> w = Playground({"mine": tok}, "low")
>>> w.counts
{'mine': 1}
>>> w.text.value = "lowest"
>>> w.counts
{'mine': 4}
>>> 'title="id 257"' in w.row_html("mine")  # id 257 is the token b"low"
True

:meth:`Playground.with_pretrained` adds named tokenizers of :mod:`bpe_course.pretrained` after your
own, by default GPT-2, GPT-4 (cl100k) and GPT-4o (o200k) (and Mistral's Tekken when asked by name,
if ``mistral-common`` is installed); each row is labelled as the registry labels it:

>>> w = Playground.with_pretrained({"mine": tok}, "lowest")
>>> w.counts
{'mine': 4, 'GPT-2': 2, 'GPT-4 (cl100k)': 1, 'GPT-4o (o200k)': 1}
"""

from __future__ import annotations

import html as _html
from collections.abc import Iterable, Mapping
from typing import cast

import ipywidgets as widgets

from .. import pretrained
from ..tokenizer import Tokenizer
from ..viz import MAX_CHIPS, chips_html  # beyond MAX_CHIPS tokens a row shows the count and the first chips

OPENAI = ("gpt2", "cl100k", "o200k")  # the named tokenizers with_pretrained adds unless given names


class Playground:
    """Compare tokenizers live on the same text.

    ``tokenizers`` maps a display name to a :class:`~bpe_course.Tokenizer` (or anything with
    ``encode(text, allowed_special=...)`` and ``token_bytes(ids)``). Parts you can drive:

    * ``text`` -- the ``Textarea`` the learner types in (CSS class ``bpe-playground-text``);
    * ``rows`` -- ``{name: HTML widget}``, one per tokenizer (CSS class ``bpe-playground-row``);
    * ``ids`` / ``counts`` -- the current encoding of the text by each tokenizer;
    * ``rows_html`` / ``row_html(name)`` -- the rendered HTML.

    Special tokens typed into the text are encoded as special tokens (``allowed_special="all"``);
    pass ``allowed_special=()`` to treat them as ordinary text instead.
    """

    def __init__(self, tokenizers: Mapping[str, Tokenizer], text: str = "", *,
                 allowed_special: Iterable[str] | str = "all") -> None:
        if not tokenizers:
            raise ValueError("Playground needs at least one tokenizer, e.g. {'GPT-2': bpe_course.gpt2()}")
        self.tokenizers = dict(tokenizers)
        # subtle: "all" must stay the string; a set would be checked against every tokenizer's specials.
        self.allowed_special = allowed_special if allowed_special == "all" else frozenset(allowed_special)
        self.ids: dict[str, list[int]] = {}
        self.text = widgets.Textarea(value=text, placeholder="Type or paste any text here",
                                     layout=widgets.Layout(width="100%", height="90px"))
        self.text.add_class("bpe-playground-text")
        self.rows: dict[str, widgets.HTML] = {}
        for name in self.tokenizers:
            row = widgets.HTML(layout=widgets.Layout(width="100%"))
            row.add_class("bpe-playground-row")
            self.rows[name] = row
        self.widget = widgets.VBox([self.text, *self.rows.values()])
        self.widget.add_class("bpe-playground")
        self.text.observe(self._on_text, names="value")
        self.update()

    @classmethod
    def with_pretrained(cls, tokenizers: Mapping[str, Tokenizer] | None = None, text: str = "", *,
                        names: Iterable[str] = OPENAI, **options) -> Playground:
        """A playground with ``tokenizers`` (your own, say) first, then the named byte-level tokenizers
        ``names`` of :data:`bpe_course.pretrained.NAMED` (``"tekken"`` too, when ``mistral-common`` is
        installed), each row labelled with the registry's label."""
        offered = [n.name for n in pretrained.named("byte-level")]
        unknown = [n for n in names if n not in offered]
        if unknown:
            raise ValueError(f"no named tokenizer {unknown[0]!r} to play with; installed here: {', '.join(offered)}")
        # cast: byte-level names (offered) load Tokenizers; load() is typed for SentencePiece files too
        loaded = {pretrained.entry(n).label: cast(Tokenizer, pretrained.load(n)) for n in names}
        return cls({**(tokenizers or {}), **loaded}, text, **options)

    def _on_text(self, change: dict) -> None:
        self.update()

    def encode(self, name: str, text: str) -> list[int]:
        """The ids one tokenizer gives ``text`` (with this playground's special-token rule)."""
        # subtle: disallowed_special=() so that typing a special token never raises in the middle of a
        # keystroke; whatever is not allowed is encoded as ordinary text.
        return self.tokenizers[name].encode(text, allowed_special=self.allowed_special, disallowed_special=())

    def update(self) -> None:
        """Re-encode the current text with every tokenizer and redraw every row."""
        text = self.text.value
        for name, row in self.rows.items():
            ids = self.encode(name, text)
            self.ids[name] = ids
            row.value = self._render_row(name, ids)

    def _render_row(self, name: str, ids: list[int]) -> str:
        shown = ids[:MAX_CHIPS]
        chips = chips_html(self.tokenizers[name].token_bytes(shown), shown, show_ids=True, keep_words=True)
        more = f" (first {MAX_CHIPS} shown)" if len(ids) > MAX_CHIPS else ""
        unit = "token" if len(ids) == 1 else "tokens"
        head = (f'<div style="font-family:sans-serif;font-size:13px"><b>{_html.escape(name)}</b>: '
                f'<span class="bpe-playground-count">{len(ids)}</span> {unit}{more}</div>')
        return f'<div class="bpe-playground-row-body" data-name="{_html.escape(name)}">{head}{chips}</div>'

    @property
    def counts(self) -> dict[str, int]:
        """How many tokens the current text takes with each tokenizer."""
        return {name: len(ids) for name, ids in self.ids.items()}

    def row_html(self, name: str) -> str:
        """The rendered row of one tokenizer (name, count and chips)."""
        return self.rows[name].value

    @property
    def rows_html(self) -> str:
        """All rows' HTML, in the order the tokenizers were given."""
        return "\n".join(row.value for row in self.rows.values())

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)
