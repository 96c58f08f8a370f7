"""Chapter 20's mixture explorer: the bars are hidden_mix's truth and rounds, the status its numbers."""

from __future__ import annotations

import re

import pytest

from bpe_course.algorithms.mixture import hidden_mix, mean_absolute_error
from bpe_course.widgets.mixture import SAMPLES, MixtureExplorer, shares_of


def shown(explorer) -> dict[str, tuple[float, float]]:
    """Each row's language with the truth and the found share the chart shows."""
    return {code: (float(t), float(f)) for code, t, f in
            re.findall(r'data-language="([^"]+)" data-truth="([0-9.]+)" data-found="([0-9.]+)"', explorer.chart.value)}


def test_the_bars_are_the_inference_round_by_round():
    explorer = MixtureExplorer(["eng", "fra", "rus"], {"eng": 5, "fra": 3, "rus": 2}, merges=30, sample="3 KB")
    truth = {"eng": 0.5, "fra": 0.3, "rus": 0.2}
    reference = hidden_mix(truth, 30, SAMPLES["3 KB"])
    found = explorer.result.found
    assert explorer.result.truth == truth and found.weights == pytest.approx(reference.found.weights, abs=1e-9)
    assert explorer.round.max == found.rounds == explorer.round.value >= 1
    for k in range(found.rounds + 1):
        explorer.round.value = k
        bars = shown(explorer)
        assert list(bars) == ["eng", "fra", "rus"]
        assert {c: t for c, (t, _) in bars.items()} == pytest.approx(truth, abs=5e-5)
        assert {c: f for c, (_, f) in bars.items()} == pytest.approx(found.history[k], abs=5e-5)
        error = f"{mean_absolute_error(truth, found.history[k]):.3f}"
        assert f"round <b>{k}</b> of {found.rounds}" in explorer.status.value and error in explorer.status.value
    explorer.round.value = 0
    assert all(f == pytest.approx(1 / 3, abs=5e-5) for _, f in shown(explorer).values())
    assert "uniform guess" in explorer.status.value


def test_new_weights_train_a_new_tokenizer_and_the_round_jumps_to_the_answer():
    explorer = MixtureExplorer(["eng", "rus"], {"eng": 1, "rus": 1}, merges=30, sample="1 KB")
    explorer.round.value = 0
    explorer.weights["rus"].value = 3
    explorer.merges.value = 100
    result = explorer.infer()
    assert result.truth == {"eng": 0.25, "rus": 0.75} and len(result.merges) == 100
    assert explorer.round.value == result.found.rounds
    assert {c: f for c, (_, f) in shown(explorer).items()} == pytest.approx(result.found.weights, abs=5e-5)


def test_weights_all_zero_are_named_and_nothing_is_trained():
    explorer = MixtureExplorer(["eng", "fra"], {"eng": 0, "fra": 0}, run=False)
    assert explorer.result is None and explorer.infer() is None
    assert "every weight is 0" in explorer.status.value and explorer.chart.value == ""
    with pytest.raises(ValueError, match="every weight is 0"):
        shares_of({"eng": 0})
