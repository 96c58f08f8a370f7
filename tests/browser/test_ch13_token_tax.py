"""Chapter 13's token-tax explorer in a real browser: choose a training mix, the bars follow, in one order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from bpe_course.algorithms.token_tax import train_on_mix
from bpe_course.corpus import MIXES
from bpe_course.widgets.token_tax import TokenTaxExplorer

from .lab_page import eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "13_token_tax.ipynb"


def expected_bars() -> dict[str, dict[str, str]]:
    """For each mix: {language: the ratio as the bars print it}, computed here from the package."""
    return {name: {lang: f"{ratio:.2f}" for lang, ratio in TokenTaxExplorer.ratios_for(train_on_mix(mix)).items()}
            for name, mix in MIXES.items()}


def test_token_tax_bars_follow_the_mix(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(expected_bars)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        expected = building.result()
    explorer = nb.widget("bpe-tax-chart-box").locator("..").locator("..")
    chart = nb.widget("bpe-tax-chart-box")
    expect(chart).to_have_count(1)

    def order() -> list[str]:
        return chart.locator(".bpe-tax-row").evaluate_all("rows => rows.map(r => r.dataset.language)")

    def shown() -> dict[str, str]:
        rows = chart.locator(".bpe-tax-row")
        return dict(zip(order(), rows.evaluate_all("rows => rows.map(r => r.dataset.ratio)")))

    def showing(mix: str):
        def check() -> None:
            got = shown()
            assert got == expected[mix], f"bars differ from the {mix!r} mix in {sum(got.get(k) != v for k, v in expected[mix].items())} languages"
        return check

    dropdown = nb.widget("bpe-tax-mix").locator("select")
    eventually(showing(dropdown.input_value()))  # where the chapter's own cell put it
    first_order = order()
    for mix in ["English only", "English-heavy", "balanced"]:
        dropdown.select_option(mix)
        eventually(showing(mix))
        expect(nb.widget("bpe-tax-status")).to_have_text("")
        assert order() == first_order, f"the bars were re-sorted for the {mix!r} mix"
    nb.screenshot(explorer, "ch13_token_tax.png")
    nb.assert_no_console_errors()
