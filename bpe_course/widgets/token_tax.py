"""Chapter 13: the token-tax explorer -- choose a training mix, watch each language's bar move.

The measurements are :mod:`bpe_course.algorithms.token_tax`'s; this module draws them.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import ipywidgets as widgets

from ..algorithms.token_tax import relative_costs, train_on_mix
from ..corpus import HELDOUT_ARTICLES, MIXES
from ..tokenizer import Tokenizer


BAR_ROOM = 0.92  # the longest bar (or dash) ends here, so a dash at the end stays clear of the numbers


def language_order(ratios: Mapping[str, float]) -> list[str]:
    """Languages by cost, highest first (ties by name): the one order the explorer keeps for every mix.

    >>> language_order({"French": 1.8, "Tamil": 4.2, "English": 1.0, "Greek": 1.8})
    ['Tamil', 'French', 'Greek', 'English']
    """
    return sorted(ratios, key=lambda language: (-ratios[language], language))


def bars_html(ratios: Mapping[str, float], title: str, reference: Mapping[str, float] | None = None,
              order: Sequence[str] | None = None, reference_label: str = "reference") -> str:
    """A bar per language (in ``order``, else longest first): the cost relative to English, and an
    optional reference drawn as a dash on the bar and written, with its number, in a column of its own."""
    top = max([*ratios.values(), *(reference or {}).values(), 1.0]) / BAR_ROOM
    languages = list(order) if order is not None else language_order(ratios)
    number = 'style="width:64px;text-align:right;font-variant-numeric:tabular-nums"'
    head = ('<div class="bpe-tax-head" style="display:flex;gap:6px;font-size:11px;color:#555">'
            '<span style="width:150px"></span><span style="flex:1"></span>'
            f'<span {number}>this mix</span>'
            + (f'<span {number}>{html.escape(reference_label)} ┆</span>' if reference else "") + "</div>")
    rows = []
    for language in languages:
        ratio = ratios[language]
        width = 100 * ratio / top
        mark = value = ""
        if reference and language in reference:
            left = 100 * reference[language] / top
            mark = (f'<div class="bpe-tax-reference" data-ratio="{reference[language]:.2f}" '
                    f'title="{html.escape(reference_label)}: {reference[language]:.2f}×" '
                    f'style="position:absolute;left:{left:.1f}%;top:-2px;bottom:-2px;border-left:2px dashed #333"></div>')
            value = f'<span class="bpe-tax-reference-value" {number}>{reference[language]:.2f}×</span>'
        rows.append(
            f'<div class="bpe-tax-row" data-language="{html.escape(language)}" data-ratio="{ratio:.2f}" '
            'style="display:flex;align-items:center;gap:6px;margin:1px 0">'
            f'<span style="width:150px;text-align:right">{html.escape(language)}</span>'
            '<span style="position:relative;flex:1;height:14px">'
            f'<div class="bpe-tax-bar" style="width:{width:.1f}%;height:100%;background:#6b9bd1"></div>{mark}</span>'
            f'<span class="bpe-tax-value" {number}>{ratio:.2f}×</span>{value}</div>')
    return f'<div class="bpe-tax-chart"><b>{html.escape(title)}</b>{head}{"".join(rows)}</div>'


class TokenTaxExplorer:
    """Choose a training mix; the bars show each language's held-out cost relative to English.

    Parts: ``.mix`` (Dropdown, CSS ``bpe-tax-mix``), ``.status`` (Label, ``bpe-tax-status``: says when
    it is working), ``.chart`` (HTML bars, ``bpe-tax-chart-box``), ``.ratios`` (``{language: ratio}``
    for the chosen mix), ``.order`` (the languages top to bottom), ``.box``. ``reference`` (e.g. cl100k)
    is marked on every bar as a dash, its number beside the mix's.

    The bars keep one order for every mix -- the reference's costs, highest first (without a reference,
    the first mix shown) -- so one language can be followed as the mix changes.
    """

    def __init__(self, mixes: Mapping[str, Mapping[str, int]] = MIXES, reference: Tokenizer | None = None,
                 reference_label: str = "cl100k", value: str | None = None) -> None:
        self.mixes = dict(mixes)
        self.reference_ratios = (self.ratios_for(reference) if reference is not None else None)
        self.reference_label = reference_label
        self.order: list[str] | None = language_order(self.reference_ratios) if self.reference_ratios else None
        self.mix = widgets.Dropdown(options=list(self.mixes), value=value or next(iter(self.mixes)),
                                    description="training mix").add_class("bpe-tax-mix")
        self.status = widgets.Label("").add_class("bpe-tax-status")
        self.chart = widgets.HTML().add_class("bpe-tax-chart-box")
        self.mix.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([widgets.HBox([self.mix, self.status]), self.chart])
        self.update()

    @staticmethod
    def ratios_for(tok: Tokenizer) -> dict[str, float]:
        """Each language's tokens on the held-out articles, divided by English's."""
        costs = relative_costs({"tok": tok}, articles=HELDOUT_ARTICLES)
        grouped = costs.groupby("language", sort=False)
        return {language: float(ratio) for language, ratio in
                (grouped["tokens"].sum() / grouped["english_tokens"].sum()).items()}

    def update(self) -> None:
        """Train (or take from the cache) the chosen mix's tokenizer and redraw the bars."""
        chosen = self.mix.value
        self.status.value = f"training on the {chosen} mix…"
        try:
            self.ratios = self.ratios_for(train_on_mix(self.mixes[chosen]))
            if self.order is None:
                self.order = language_order(self.ratios)
            title = (f"Trained on the '{chosen}' mix: held-out articles, tokens relative to English"
                     + (f" (dashes: {self.reference_label})" if self.reference_ratios else ""))
            self.chart.value = bars_html(self.ratios, title, self.reference_ratios, self.order, self.reference_label)
        finally:
            self.status.value = ""
        if self.mix.value != chosen:  # subtle: the learner chose again while we worked: show the latest
            self.update()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
