"""Chapter 20's checkers: right answers pass, wrong ones get a hint, and no feedback gives the answer away."""

from __future__ import annotations

import pytest

from bpe_course.algorithms.mixture import (dirichlet_shares, infer_mixture, mean_absolute_error, text_trajectory,
                                           train_hidden_mix)
from bpe_course.corpus import HELDOUT_ARTICLES, UDHR_LANGUAGES
from bpe_course.exercises import ch20
from bpe_course.exercises.ch20 import (INTERVAL_CASES, check_allowed_interval, check_few_merges,
                                       check_tekken_scripts, interval_reference)


def spelled(x: float) -> list[str]:
    """The ways a checker could print the answer: 3 or 4 decimals (the answer is asked for to 3)."""
    return [f"{x:.{d}f}" for d in (3, 4)]


def brute_interval(chosen, rivals, steps=20_000):
    """The allowed shares found by trying a fine grid of a: (first, last) allowed, or None."""
    ok = [k / steps for k in range(steps + 1)
          if all(a * chosen[0] + (1 - a) * chosen[1] >= a * x + (1 - a) * y - 1e-12
                 for a in [k / steps] for x, y in rivals)]
    return (ok[0], ok[-1]) if ok else None


@pytest.mark.parametrize("case", INTERVAL_CASES)
def test_the_interval_reference_agrees_with_a_grid_search(case):
    chosen, rivals = case
    expected, grid = interval_reference(chosen, rivals), brute_interval(chosen, rivals)
    if grid is None:
        assert expected is None
    else:
        assert expected == pytest.approx(grid, abs=1e-4)


def test_allowed_interval_right_and_wrong():
    assert check_allowed_interval(interval_reference).ok
    second = lambda chosen, rivals: (None if (r := interval_reference(chosen, rivals)) is None else (1 - r[1], 1 - r[0]))
    feedback = check_allowed_interval(second)
    assert not feedback.ok and "second category" in feedback.hint
    never_none = lambda chosen, rivals: interval_reference(chosen, rivals) or (0.0, 0.0)
    assert "None" in check_allowed_interval(never_none).hint
    assert "raised ZeroDivisionError" in check_allowed_interval(lambda c, r: 1 / 0).message
    assert "not a pair" in check_allowed_interval(lambda c, r: "0.5").message


def reference_error(n_seeds: int, n_languages: int, n_merges: int) -> float:
    """Section 4's seeds, written out again here (not the checker's helper)."""
    from bpe_course import corpus
    languages = list(UDHR_LANGUAGES)
    errors = []
    for seed in range(n_seeds):
        import numpy as np
        rng = np.random.default_rng(seed)
        truth = dirichlet_shares([str(c) for c in rng.choice(languages, n_languages, replace=False)], rng)
        merges = train_hidden_mix(truth, n_merges)
        trajectories = {code: text_trajectory([corpus.udhr(code)[a] for a in HELDOUT_ARTICLES], merges) for code in truth}
        errors.append(mean_absolute_error(truth, infer_mixture(trajectories, merges).weights))
    return sum(errors) / len(errors)


def test_few_merges_right_wrong_and_never_the_answer():
    answer = reference_error(2, 3, 3)
    assert check_few_merges(round(answer, 3), 2, 3).ok
    for wrong_answer in (answer + 0.05, 0.0, round(reference_error(2, 3, 30), 3)):
        feedback = check_few_merges(wrong_answer, 2, 3)
        assert not feedback.ok
        assert not any(s in feedback.message for s in spelled(answer))
    assert "30 merges" in check_few_merges(round(reference_error(2, 3, 30), 4), 2, 3).message
    assert "cannot be a mean absolute error" in check_few_merges(1.5, 2, 3).message
    assert "N_SEEDS" in check_few_merges(0.1, 0, 3).message


def test_tekken_scripts_right_wrong_and_never_the_answer(monkeypatch):
    from bpe_course import corpus, tekken
    categories = {code: [corpus.udhr(code)[a] for a in HELDOUT_ARTICLES[:2]] for code in ("eng", "fra", "rus", "arb", "hin")}
    tok = tekken()

    def shares(n):  # the inference written out again here (not the checker's helper)
        merges = tok.merges[:n]
        return infer_mixture({k: text_trajectory(d, merges, tok.pattern) for k, d in categories.items()}, merges).weights

    monkeypatch.setattr(ch20, "SCRIPT_MERGES", 60)  # fewer merges than the chapter's, to keep the test short
    monkeypatch.setattr(ch20, "SECTION_MERGES", 20)
    at, before = shares(60), shares(20)
    answer = at["rus"] + at["arb"] + at["hin"]
    assert check_tekken_scripts(answer, categories).ok
    cases = ((answer + at["fra"], "Latin-script languages are in it"), (1 - answer, "everything else"),
             (before["rus"] + before["arb"] + before["hin"], "at 20 merges"), (answer + 0.05, "how many merges"))
    for wrong_answer, said in cases:
        feedback = check_tekken_scripts(wrong_answer, categories)
        assert not feedback.ok and said in feedback.message + feedback.hint
        assert not any(s in feedback.message + feedback.hint for s in spelled(answer))
    assert "not a share" in check_tekken_scripts(2.0, categories).message
    assert "categories=" in check_tekken_scripts(0.3, {"eng": "x"}).message


def test_the_checkers_ask_for_no_more_than_three_decimals():
    assert ch20.TOLERANCE >= 0.0005
