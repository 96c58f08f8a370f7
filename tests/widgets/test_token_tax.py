"""The token-tax explorer of chapter 13, driven from Python, against direct measurement."""

from __future__ import annotations

import re

import pytest

from bpe_course.algorithms.token_tax import relative_costs, train_on_mix
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES
from bpe_course.widgets.token_tax import BAR_ROOM, TokenTaxExplorer, bars_html, language_order


def test_the_explorer_follows_the_mix():
    explorer = TokenTaxExplorer(value="English only")
    english_only = dict(explorer.ratios)
    explorer.mix.value = "balanced"
    tok = train_on_mix(MIXES["balanced"])
    costs = relative_costs({"b": tok}, articles=HELDOUT_ARTICLES)
    for language, ratio in explorer.ratios.items():
        part = costs[costs["language"] == language]
        assert ratio == pytest.approx(part["tokens"].sum() / part["english_tokens"].sum(), rel=1e-12)
    assert explorer.status.value == ""
    assert f'data-ratio="{explorer.ratios["Tamil"]:.2f}"' in explorer.chart.value
    assert max(explorer.ratios.values()) < max(english_only.values())  # balance lowers the worst cost


def test_bars_are_sorted_and_carry_their_numbers():
    html = bars_html({"A": 1.0, "B": 3.5}, "t", {"B": 2.0})
    assert html.index('data-language="B"') < html.index('data-language="A"')
    assert 'data-ratio="3.50"' in html and "bpe-tax-reference" in html


def row_languages(chart: str) -> list[str]:
    return re.findall(r'class="bpe-tax-row" data-language="([^"]+)"', chart)


def test_one_language_order_for_every_mix_and_the_reference_numbers_written(cl100k_tok):
    explorer = TokenTaxExplorer(reference=cl100k_tok, value="English only")
    reference = TokenTaxExplorer.ratios_for(cl100k_tok)  # measured apart from the explorer
    expected_order = sorted(reference, key=lambda language: (-reference[language], language))
    assert explorer.order == expected_order
    for mix in ["English only", "balanced", "English-heavy"]:
        explorer.mix.value = mix
        chart = explorer.chart.value
        assert row_languages(chart) == expected_order, mix  # the bars never re-sort
        # each dash carries its number, in a column of its own, and says whose it is
        written = dict(re.findall(r'data-language="([^"]+)".*?class="bpe-tax-reference-value"[^>]*>([\d.]+)×', chart))
        assert written == {language: f"{ratio:.2f}" for language, ratio in reference.items()}
        assert "cl100k ┆" in chart and f'title="cl100k: {reference["Amharic"]:.2f}×"' in chart
        # no dash or bar reaches the end of its track, so nothing touches the numbers beside it
        lefts = [float(x) for x in re.findall(r'bpe-tax-reference".*?left:([\d.]+)%', chart)]
        widths = [float(x) for x in re.findall(r'class="bpe-tax-bar" style="width:([\d.]+)%', chart)]
        assert len(lefts) == len(widths) == len(reference)
        assert max(lefts + widths) <= 100 * BAR_ROOM + 0.05


def test_without_a_reference_the_first_mix_sets_the_order():
    explorer = TokenTaxExplorer(value="English only")
    first = row_languages(explorer.chart.value)
    assert first == language_order(explorer.ratios) == explorer.order
    explorer.mix.value = "balanced"
    assert row_languages(explorer.chart.value) == first
    assert "bpe-tax-reference" not in explorer.chart.value
