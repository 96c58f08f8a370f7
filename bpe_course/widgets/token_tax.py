"""Chapter 13: what the same text costs in tokens, language by language (the "token tax").

The Universal Declaration of Human Rights says the same thing in every language of
:data:`bpe_course.corpus.UDHR_LANGUAGES`, article by article, so a tokenizer's cost for a language
can be put next to its cost for English on the same content:

>>> from bpe_course import gpt2
>>> costs = relative_costs({"GPT-2": gpt2()}, ["eng", "fra"], ["1"])
>>> costs[["language", "tokens", "english_tokens", "ratio"]].to_dict("records")[1]
{'language': 'French', 'tokens': 61, 'english_tokens': 33, 'ratio': 1.8484848484848484}
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import ipywidgets as widgets
import pandas as pd

from .. import corpus
from ..tokenizer import Tokenizer
from ..train import train_bpe

ARTICLES = [str(k) for k in range(1, 31)]
TRAIN_ARTICLES = ARTICLES[:20]  # a tokenizer of your own learns from articles 1-20 ...
HELDOUT_ARTICLES = ARTICLES[20:]  # ... and is measured on 21-30, which it never saw
OWN_VOCAB_SIZE = 256 + 300  # small enough that every mix, English alone too, learns it from pairs seen twice
OWN_MIN_FREQUENCY = 2
# How many copies of each language's training articles a mix holds.
MIXES: dict[str, dict[str, int]] = {
    "English only": {"eng": 1},
    "balanced": {code: 1 for code in corpus.UDHR_LANGUAGES},
    "English-heavy": {"eng": 17, **{code: 1 for code in corpus.UDHR_LANGUAGES if code != "eng"}},
}


def language_name(code: str) -> str:
    return corpus.UDHR_LANGUAGES[code][1]


def relative_costs(tokenizers: Mapping[str, Tokenizer], languages: Iterable[str] = tuple(corpus.UDHR_LANGUAGES),
                   articles: Sequence[str] = ARTICLES) -> pd.DataFrame:
    """One row per (tokenizer, language, article): its tokens, English's tokens for it, and the ratio."""
    english = corpus.udhr("eng")
    rows = []
    for label, tok in tokenizers.items():
        english_tokens = {k: len(tok.encode_ordinary(english[k])) for k in articles}
        for code in languages:
            text = corpus.udhr(code)
            for k in articles:
                tokens = len(tok.encode_ordinary(text[k]))
                rows.append({"tokenizer": label, "language": language_name(code), "code": code,
                             "script": corpus.UDHR_LANGUAGES[code][0], "article": k, "tokens": tokens,
                             "english_tokens": english_tokens[k], "ratio": tokens / english_tokens[k]})
    return pd.DataFrame(rows)


def summary(costs: pd.DataFrame) -> pd.DataFrame:
    """Per tokenizer and language: the ratio of all tokens to English's, and the median article ratio."""
    grouped = costs.groupby(["tokenizer", "language"], sort=False)
    return pd.DataFrame({"total ratio": grouped["tokens"].sum() / grouped["english_tokens"].sum(),
                         "median article ratio": grouped["ratio"].median()})


def mix_text(mix: Mapping[str, int], articles: Sequence[str] = TRAIN_ARTICLES) -> list[str]:
    """The training documents of a mix: each language's articles, as many copies as the mix says."""
    docs = []
    for code, copies in mix.items():
        text = corpus.udhr(code)
        docs += [text[k] for k in articles] * copies
    return docs


@lru_cache(maxsize=8)
def _trained(mix_items: tuple[tuple[str, int], ...], vocab_size: int, min_frequency: int) -> Tokenizer:
    vocab, merges = train_bpe(mix_text(dict(mix_items)), vocab_size, min_frequency=min_frequency)
    return Tokenizer(vocab, merges)


def train_on_mix(mix: Mapping[str, int], vocab_size: int = OWN_VOCAB_SIZE,
                 min_frequency: int = OWN_MIN_FREQUENCY) -> Tokenizer:
    """A byte-level tokenizer trained on a mix's training articles (cached per mix)."""
    return _trained(tuple(sorted(mix.items())), vocab_size, min_frequency)


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
