"""Chapter 15: a widget that re-samples one word's BPE-dropout segmentations (:mod:`bpe_course.algorithms.dropout`)."""

from __future__ import annotations

import html
from random import Random

import ipywidgets as widgets

from ..algorithms.dropout import dropout_tokens
from ..tokenizer import Tokenizer
from ..viz import MAX_CHIPS, chips_html, token_label


class DropoutExplorer:
    """One word, several BPE-dropout samples: a text box, a slider for ``p`` and a re-sample button.

    Parts: ``.text`` (the word as typed, CSS ``bpe-dropout-text``), ``.space`` (a checkbox: put a space
    before it, as inside a sentence, ``bpe-dropout-space``), ``.p`` (``bpe-dropout-p``), ``.resample``
    (``bpe-dropout-resample``), ``.status`` (``bpe-dropout-status``), ``.rows`` (HTML, one chip row
    per sample, ``bpe-dropout-rows``), ``.word`` (what is sampled: the text, after ``␣`` if ``.space``
    is ticked), ``.samples`` (the samples' tokens). Samples are seeded, so the same word, ``p`` and
    draw give the same rows; each re-sample moves to the next seed.

    subtle: GPT-2 has other tokens for a word inside a sentence (" unlowered") than at the start of a
    text ("unlowered"), and a space typed into a box is invisible, so the space is a checkbox that
    shows its marker, ticked when ``text`` starts with one.
    """

    def __init__(self, tokenizer: Tokenizer, text: str = " unlowered", p: float = 0.1, n_samples: int = 8) -> None:
        self.tokenizer, self.n_samples, self.draw = tokenizer, n_samples, 0
        spaced = text.startswith(" ")
        self.text = widgets.Text(value=text[1:] if spaced else text, description="word").add_class("bpe-dropout-text")
        self.space = widgets.Checkbox(value=spaced, description="␣ before it (as inside a sentence)", indent=False,
                                      layout=widgets.Layout(width="auto")).add_class("bpe-dropout-space")
        self.p = widgets.FloatSlider(value=p, min=0.0, max=1.0, step=0.05, description="p", continuous_update=False,
                                     readout_format=".2f").add_class("bpe-dropout-p")
        self.resample = widgets.Button(description="re-sample").add_class("bpe-dropout-resample")
        self.status = widgets.Label("").add_class("bpe-dropout-status")
        self.rows = widgets.HTML().add_class("bpe-dropout-rows")
        self.text.observe(lambda _: self.update(), names="value")
        self.space.observe(lambda _: self.update(), names="value")
        self.p.observe(lambda _: self.update(), names="value")
        self.resample.on_click(lambda _: self.next_draw())
        self.box = widgets.VBox([widgets.HBox([self.text, self.space]),
                                 widgets.HBox([self.p, self.resample, self.status]), self.rows])
        self.update()

    @property
    def word(self) -> str:
        """What is sampled: the typed text, with a space before it if ``.space`` is ticked."""
        return (" " if self.space.value else "") + self.text.value

    def sample(self, text: str, p: float, draw: int) -> list[list[bytes]]:
        """The ``n_samples`` segmentations of ``text`` for one draw (seeded by the draw number)."""
        rng = Random(draw)
        return [dropout_tokens(self.tokenizer, text, p, rng) for _ in range(self.n_samples)]

    def next_draw(self) -> None:
        self.draw += 1
        self.update()

    def update(self) -> None:
        chosen = (self.word, self.p.value, self.draw)
        self.status.value = "sampling…"
        try:
            self.samples = self.sample(*chosen)
            rows = []
            for k, tokens in enumerate(self.samples):
                labels = " ".join(token_label(t) for t in tokens[:MAX_CHIPS])  # the chips drawn
                rows.append(f'<div class="bpe-dropout-row" data-tokens="{html.escape(labels)}">'
                            f"{chips_html(tokens)}</div>")
            self.rows.value = "".join(rows)
        finally:
            self.status.value = ""
        if (self.word, self.p.value, self.draw) != chosen:  # changed while we worked: show the latest
            self.update()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
