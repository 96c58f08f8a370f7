"""Chapter 17's SuperBPE explorer: the slider picks a run, the chips are that run's tokens, the numbers its own."""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import pytest

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.algorithms.variants import superbpe_tokens, sweep_superbpe
from bpe_course.viz import token_label
from bpe_course.widgets.superbpe import SAMPLE, SuperBPEExplorer

N = 200
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sweep():
    text = corpus.train_heldout("don_quixote")[0][:40_000]
    runs = sweep_superbpe(text, N, [50, 120, N])
    measures = {t: {"tokens per byte": 0.3 + t / 10_000, "bits per byte": 2.0 + t / 1000} for t in runs}
    return text, runs, measures


def shown_tokens(explorer) -> str:
    return html.unescape(re.search(r'data-tokens="([^"]*)"', explorer.chips.value)[1])


def test_the_chips_follow_the_slider_and_the_text(sweep):
    text, runs, measures = sweep
    explorer = SuperBPEExplorer(runs, measures)
    assert explorer.transition.value == 50 and explorer.text.value == SAMPLE
    for t in (120, N, 50):
        explorer.transition.value = t
        want = superbpe_tokens(runs[t], SAMPLE)
        assert explorer.tokens == want and shown_tokens(explorer) == " ".join(map(token_label, want))
        assert f"{measures[t]['tokens per byte']:.4f} tokens per byte" in explorer.status.value
        assert f"{measures[t]['bits per byte']:.4f} bits per byte" in explorer.status.value
        assert f"{len(runs[t].superwords())} superword tokens" in explorer.superwords.value
    explorer.text.value = "of the knight, and of the squire"
    assert explorer.tokens == superbpe_tokens(runs[50], "of the knight, and of the squire")
    assert b"".join(explorer.tokens) == b"of the knight, and of the squire"


def test_the_last_transition_is_the_plain_tokenizer(sweep):
    text, runs, measures = sweep
    plain = Tokenizer(*train_bpe(text, 256 + N))
    explorer = SuperBPEExplorer(runs, measures, transition=N)
    assert explorer.tokens == [plain.vocab[i] for i in plain.encode_ordinary(SAMPLE)]
    assert "0 superword tokens" in explorer.superwords.value
    phrases = "said Don Quixote to Sancho, and in the end of the day he had to go to the inn"
    early = SuperBPEExplorer(runs, measures, text=phrases, transition=50)
    late = SuperBPEExplorer(runs, measures, text=phrases, transition=N)
    assert len(early.tokens) < len(late.tokens)  # superwords shorten common phrases
    assert f"(the last transition: {len(late.tokens)})" in early.status.value


CHAPTER = ROOT / "chapters" / "17_beyond_greedy_bpe.py"


def chapter_settings() -> dict[str, object]:
    """TRAIN_CHARS, N_MERGES and TRANSITIONS as chapter 17's source sets them (read, not run)."""
    settings: dict[str, object] = {}
    for node in ast.parse(CHAPTER.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in ("TRAIN_CHARS", "N_MERGES", "TRANSITIONS") and name not in settings:
                settings[name] = eval(compile(ast.Expression(node.value), str(CHAPTER), "eval"), {}, dict(settings))
    return settings


def test_on_chapter_17s_runs_every_move_of_the_slider_changes_the_chips():
    """The explorer as chapter 17 makes it (its text, its runs, the slider at the first transition): the first
    drag, and every later one, moves tokens; the sentence is the default one, from the held-out part."""
    settings = chapter_settings()
    book_train, book_heldout = corpus.train_heldout("don_quixote")
    runs = sweep_superbpe(book_train[:settings["TRAIN_CHARS"]], settings["N_MERGES"], settings["TRANSITIONS"])
    measures = {t: {"tokens per byte": 0.0, "bits per byte": 0.0} for t in runs}
    explorer = SuperBPEExplorer(runs, measures)
    positions = [value for _, value in explorer.transition.options]
    assert explorer.transition.value == positions[0] and explorer.text.value == SAMPLE
    shown = [shown_tokens(explorer)]
    for position in positions[1:]:
        explorer.transition.value = position
        shown.append(shown_tokens(explorer))
    for (a, chips_a), (b, chips_b) in zip(zip(positions, shown), zip(positions[1:], shown[1:])):
        assert chips_a != chips_b, f"moving the transition from {a} to {b} leaves the chips as they were: {chips_a}"
    assert SAMPLE in " ".join(book_heldout.split()) and SAMPLE not in " ".join(book_train.split())


def test_mismatched_runs_and_measures_are_refused(sweep):
    _, runs, measures = sweep
    with pytest.raises(ValueError, match="same transitions"):
        SuperBPEExplorer(runs, {50: measures[50]})
