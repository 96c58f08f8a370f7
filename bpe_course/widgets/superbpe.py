"""Chapter 17: SuperBPE's transition point, explored -- one slider, a sentence's tokens, the numbers.

A SuperBPE run (:func:`bpe_course.algorithms.variants.train_superbpe`) learns its first ``transition`` merges
inside pre-tokens and the rest across words. The explorer takes the runs of a sweep, already
trained, and shows for the chosen transition how a sentence you type is cut, the held-out
measurements the chapter made for that run, and its first superword tokens.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import ipywidgets as widgets

from ..algorithms.variants import SuperBPE, superbpe_tokens
from ..viz import MAX_CHIPS, chips_html, token_label

# subtle: a sentence of don_quixote's held-out part whose tokens change at each of chapter 17's transition
# points (256, 512, 768, 1,024), so the slider's first move shows something; the chapter's earlier sentence,
# all common phrases, was cut alike at 256, 512 and 768 (tests/test_variants_widget.py checks it)
SAMPLE = "Don Quixote, who was always polite, yielded to their request and supped with them."


class SuperBPEExplorer:
    """A transition slider over a sweep's runs; a sentence box; its tokens as chips; the run's numbers.

    Parts: ``.transition`` (a selection slider, CSS ``bpe-superbpe-transition``), ``.text``
    (``bpe-superbpe-text``), ``.chips`` (HTML, ``bpe-superbpe-chips``; its ``data-tokens`` holds the
    chips' labels), ``.status`` (``bpe-superbpe-status``: token count and the held-out numbers),
    ``.superwords`` (``bpe-superbpe-superwords``: the run's first superword tokens), ``.tokens``
    (the sentence's tokens now).

    ``measures`` maps each transition to the numbers the chapter measured for it (``"tokens per
    byte"`` and ``"bits per byte"``); the largest transition is plain BPE when it equals the number
    of merges.
    """

    def __init__(self, runs: Mapping[int, SuperBPE], measures: Mapping[int, Mapping[str, float]],
                 text: str = SAMPLE, transition: int | None = None, n_superwords: int = 24) -> None:
        if not runs or set(runs) != set(measures):
            raise ValueError(f"runs and measures must have the same transitions, got {sorted(runs)} and {sorted(measures)}")
        self.runs, self.measures, self.n_superwords = dict(runs), dict(measures), n_superwords
        points = sorted(runs)
        self.transition = widgets.SelectionSlider(
            options=[(f"{t:,}", t) for t in points], value=points[0] if transition is None else transition,
            description="transition", continuous_update=False).add_class("bpe-superbpe-transition")
        self.text = widgets.Text(value=text, description="text", layout=widgets.Layout(width="90%")
                                 ).add_class("bpe-superbpe-text")
        self.status = widgets.HTML().add_class("bpe-superbpe-status")
        self.chips = widgets.HTML().add_class("bpe-superbpe-chips")
        self.superwords = widgets.HTML().add_class("bpe-superbpe-superwords")
        self.transition.observe(lambda _: self.update(), names="value")
        self.text.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([self.transition, self.text, self.chips, self.status, self.superwords])
        self.update()

    def tokens_of(self, transition: int, text: str) -> list[bytes]:
        """``text`` cut by the run with this transition (what the chips show)."""
        return superbpe_tokens(self.runs[transition], text)

    def update(self) -> None:
        t, text = self.transition.value, self.text.value
        run = self.runs[t]
        self.tokens = self.tokens_of(t, text)
        plain = self.tokens_of(max(self.runs), text)
        labels = " ".join(token_label(tok) for tok in self.tokens[:MAX_CHIPS])  # the chips drawn
        self.chips.value = (f'<div class="bpe-superbpe-row" data-tokens="{html.escape(labels)}">'
                            f"{chips_html(self.tokens)}</div>")
        m = self.measures[t]
        self.status.value = (
            f"<b>{len(self.tokens)}</b> tokens for this text (the last transition: {len(plain)}) · held-out: "
            f"{m['tokens per byte']:.4f} tokens per byte, {m['bits per byte']:.4f} bits per byte")
        words = run.superwords()
        shown = ", ".join(html.escape(token_label(w)) for w in words[:self.n_superwords])
        self.superwords.value = (f"{len(words)} superword tokens"
                                 + (f"; the first: <code>{shown}</code>" if words else ""))

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
