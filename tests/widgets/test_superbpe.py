"""Chapter 17's SuperBPE explorer: the slider picks a run, the chips are that run's tokens, the numbers its own."""

from __future__ import annotations

import html
import re

import pytest

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.algorithms.variants import superbpe_tokens, sweep_superbpe
from bpe_course.viz import token_label
from bpe_course.widgets.superbpe import SAMPLE, SuperBPEExplorer

N = 200


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
    early = SuperBPEExplorer(runs, measures, transition=50)
    assert len(early.tokens) < len(explorer.tokens)  # superwords shorten the sample
    assert f"(the last transition: {len(explorer.tokens)})" in early.status.value


def test_mismatched_runs_and_measures_are_refused(sweep):
    _, runs, measures = sweep
    with pytest.raises(ValueError, match="same transitions"):
        SuperBPEExplorer(runs, {50: measures[50]})
