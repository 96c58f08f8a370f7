"""Chapter 20's mixture explorer in a real browser: hide a mix, step through the rounds, hide another.

After each move the bars' numbers (each row's ``data-truth`` and ``data-found``) must be what
:func:`bpe_course.algorithms.mixture.hidden_mix` gives for the mix the sliders set, computed here.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from bpe_course.algorithms.mixture import hidden_mix
from bpe_course.widgets.mixture import LANGUAGES, SAMPLES, WEIGHTS, shares_of

from .lab_page import eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "20_what_a_merge_list_reveals.ipynb"
CHINESE = 3  # the weight the test gives Chinese, whose default weight is 0


def test_the_bars_are_the_inference_round_by_round(open_notebook):
    first_shares = shares_of({code: WEIGHTS.get(code, 1) for code in LANGUAGES})
    second_shares = shares_of({code: CHINESE if code == "cmn_hans" else WEIGHTS.get(code, 1) for code in LANGUAGES})
    with ThreadPoolExecutor(2) as pool:  # while the browser runs the notebook
        first = pool.submit(hidden_mix, first_shares, 100, None)
        second = pool.submit(hidden_mix, second_shares, 30, SAMPLES["1 KB"])
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        first, second = first.result(), second.result()
    chart, status = nb.widget("bpe-mixture-chart"), nb.widget("bpe-mixture-status")
    expect(chart).to_have_count(1)
    rounds = nb.widget("bpe-mixture-round")

    def shown() -> dict[str, tuple[float, float]]:
        rows = chart.locator(".bpe-mixture-row").evaluate_all(
            "rows => rows.map(r => [r.dataset.language, r.dataset.truth, r.dataset.found])")
        return {code: (float(t), float(f)) for code, t, f in rows}

    def showing(truth: dict[str, float], found: dict[str, float]):
        def check() -> None:
            got = shown()
            assert list(got) == list(truth), f"rows {list(got)}"
            for code in truth:
                assert abs(got[code][0] - truth[code]) < 1e-4, f"{code}: truth {got[code][0]} against {truth[code]:.4f}"
                assert abs(got[code][1] - found[code]) < 1e-4, f"{code}: found {got[code][1]} against {found[code]:.4f}"
        return check

    # after Run All: the chapter's explorer shows the answer, the last round
    n = first.found.rounds
    eventually(showing(first.truth, first.found.weights))
    expect(status).to_contain_text(f"round {n} of {n}")
    # the first round: the uniform guess
    nb.set_slider_by_keys(rounds, "Home", 1)
    expect(status).to_contain_text(f"round 0 of {n}")
    eventually(showing(first.truth, first.found.history[0]))
    nb.set_slider_by_keys(rounds, "ArrowRight", 1)
    eventually(showing(first.truth, first.found.history[1]))
    # a second hidden mix: Chinese in, 30 merges, a kilobyte of each language
    chinese = nb.widget("bpe-mixture-weight").filter(has_text=re.compile("Chinese"))
    nb.set_slider_by_keys(chinese, "ArrowRight", CHINESE)
    expect(chinese.locator(".widget-readout")).to_have_text(str(CHINESE))
    nb.set_slider_by_keys(nb.widget("bpe-mixture-merges"), "Home", 1)
    expect(nb.widget("bpe-mixture-merges").locator(".widget-readout")).to_have_text("30")
    nb.widget("bpe-mixture-sample").locator("select").select_option("1 KB")
    nb.widget("bpe-mixture-run").click()
    m = second.found.rounds
    expect(status).to_contain_text(f"round {m} of {m}")
    eventually(showing(second.truth, second.found.weights))
    nb.screenshot(chart.locator(".."), "ch20_mixture.png")
    nb.assert_no_console_errors()
