"""Chapter 20: hide a mix of languages in a tokenizer, then watch its merges give the mix away.

You set how much of each language the training text holds; the explorer trains a tokenizer on that
mix and infers the mix back from its merge list and other articles of each language
(:func:`bpe_course.algorithms.mixture.hidden_mix`). The inference adds constraints round by round;
the round slider steps through them, from round 0's uniform guess to the answer, beside the truth.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import ipywidgets as widgets

from ..algorithms.mixture import HiddenMix, hidden_mix, mean_absolute_error
from ..corpus import language_name

LANGUAGES = ("eng", "fra", "deu_1996", "rus", "cmn_hans")
WEIGHTS = {"eng": 6, "fra": 2, "deu_1996": 1, "rus": 3, "cmn_hans": 0}
MERGES = (30, 100, 300)
SAMPLES = {"1 KB": 1000, "3 KB": 3000, "all held-out articles": None}
TRUTH_COLOUR, FOUND_COLOUR = "#9a9a9a", "#d1762f"


def shares_of(weights: Mapping[str, int]) -> dict[str, float]:
    """Weights turned into shares of the training bytes (each weight over their sum).

    >>> shares_of({"eng": 3, "fra": 1, "rus": 0})
    {'eng': 0.75, 'fra': 0.25, 'rus': 0.0}
    """
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("every weight is 0: give at least one language some of the training text")
    return {k: w / total for k, w in weights.items()}


def bars_html(truth: Mapping[str, float], found: Mapping[str, float]) -> str:
    """Two bars per language: its true share (grey) and the share inferred so far (orange), with both numbers."""
    number = 'style="width:58px;text-align:right;font-variant-numeric:tabular-nums"'
    head = ('<div style="display:flex;gap:6px;font-size:11px;color:#555"><span style="width:160px"></span>'
            '<span style="flex:1"></span>'
            f'<span {number}><span style="color:{TRUTH_COLOUR}">■</span> truth</span>'
            f'<span {number}><span style="color:{FOUND_COLOUR}">■</span> found</span></div>')
    rows = []
    for code in truth:
        t, f = truth[code], found[code]
        rows.append(
            f'<div class="bpe-mixture-row" data-language="{html.escape(code)}" data-truth="{t:.4f}" data-found="{f:.4f}" '
            'style="display:flex;align-items:center;gap:6px;margin:2px 0">'
            f'<span style="width:160px;text-align:right">{html.escape(language_name(code))}</span>'
            '<span style="flex:1">'
            f'<div class="bpe-mixture-truth" style="width:{100 * t:.1f}%;height:7px;background:{TRUTH_COLOUR}"></div>'
            f'<div class="bpe-mixture-found" style="width:{100 * f:.1f}%;height:7px;background:{FOUND_COLOUR}"></div>'
            f'</span><span {number}>{t:.3f}</span><span {number}>{f:.3f}</span></div>')
    return f'<div class="bpe-mixture-bars">{head}{"".join(rows)}</div>'


class MixtureExplorer:
    """Weights of the hidden mix, the merges and sample size the inference may use; train, infer, step through the rounds.

    Parts: ``.weights`` (``{language: IntSlider}``, CSS ``bpe-mixture-weight``), ``.merges``
    (SelectionSlider, ``bpe-mixture-merges``), ``.sample`` (Dropdown, ``bpe-mixture-sample``), ``.run``
    (Button, ``bpe-mixture-run``), ``.round`` (IntSlider over the rounds, ``bpe-mixture-round``),
    ``.chart`` (HTML bars, ``bpe-mixture-chart``; each row's ``data-truth`` and ``data-found``),
    ``.status`` (``bpe-mixture-status``), ``.result`` (the last :class:`HiddenMix`), ``.box``.

    Nothing is trained until :meth:`infer` runs (the button, or a call from Python).
    """

    def __init__(self, languages: Sequence[str] = LANGUAGES, weights: Mapping[str, int] | None = None,
                 merges: int = 100, sample: str = "all held-out articles", run: bool = True) -> None:
        weights = {code: (weights or WEIGHTS).get(code, 1) for code in languages}
        self.weights = {code: widgets.IntSlider(value=weights[code], min=0, max=10, description=language_name(code),
                                                continuous_update=False,
                                                style={"description_width": "140px"}).add_class("bpe-mixture-weight")
                        for code in languages}
        self.merges = widgets.SelectionSlider(options=[(str(t), t) for t in MERGES], value=merges, description="merges",
                                              continuous_update=False).add_class("bpe-mixture-merges")
        self.sample = widgets.Dropdown(options=list(SAMPLES), value=sample, description="sample"
                                       ).add_class("bpe-mixture-sample")
        self.run = widgets.Button(description="train and infer", button_style="primary").add_class("bpe-mixture-run")
        self.round = widgets.IntSlider(value=0, min=0, max=0, description="round", continuous_update=True,
                                       disabled=True).add_class("bpe-mixture-round")
        self.chart = widgets.HTML().add_class("bpe-mixture-chart")
        self.status = widgets.HTML("set the weights, then train and infer").add_class("bpe-mixture-status")
        self.result: HiddenMix | None = None
        self.run.on_click(lambda _: self.infer())
        self.round.observe(lambda _: self.show(), names="value")
        controls = widgets.VBox([*self.weights.values(), self.merges, self.sample, self.run])
        self.box = widgets.VBox([controls, self.round, self.chart, self.status])
        if run:
            self.infer()

    def infer(self) -> HiddenMix | None:
        """Train on the mix the sliders set, infer it back, and show the last round."""
        try:
            shares = shares_of({code: s.value for code, s in self.weights.items()})
        except ValueError as problem:
            self.status.value = html.escape(str(problem))
            return None
        self.run.disabled = True
        self.status.value = "training on the hidden mix and solving the linear program ..."
        try:
            self.result = hidden_mix(shares, self.merges.value, SAMPLES[self.sample.value])
        finally:
            self.run.disabled = False
        rounds = self.result.found.rounds
        self.round.disabled = False
        self.round.max = rounds
        if self.round.value == rounds:
            self.show()
        else:
            self.round.value = rounds  # its observer shows it
        return self.result

    def show(self) -> None:
        """Draw the truth and the mix as it stood after the chosen round."""
        if self.result is None:
            return
        k, found = self.round.value, self.result.found
        mix = found.history[k]
        self.chart.value = bars_html(self.result.truth, mix)
        what = "the uniform guess: no constraint yet" if k == 0 else (
            "the answer: no constraint is broken" if k == found.rounds else "constraints still broken")
        self.status.value = (f"round <b>{k}</b> of {found.rounds} ({what}) · mean absolute error "
                             f"<b>{mean_absolute_error(self.result.truth, mix):.3f}</b> · {found.constraints:,} "
                             f"constraints in all, of {found.steps_used} merges")

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
