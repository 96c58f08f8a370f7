"""BPE-dropout and its explorer (chapter 15): p=0 is BPE, p=1 is bytes, every sample spells the text."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings, strategies as st
from strategies import valid_text

from bpe_course import corpus, gpt2
from bpe_course.algorithms.dropout import dropout_merge, dropout_tokens
from bpe_course.widgets.dropout import DropoutExplorer


@pytest.fixture(scope="module")
def gpt():
    return gpt2()


@settings(max_examples=100, deadline=None)
@given(text=valid_text, p=st.floats(0, 1), seed=st.integers(0, 10))
def test_every_sample_spells_the_text_with_vocabulary_tokens(gpt, text, p, seed):
    tokens = dropout_tokens(gpt, text, p, Random(seed))
    assert b"".join(tokens) == text.encode("utf-8")
    assert all(t in gpt._id_of for t in tokens)


def test_no_dropout_is_bpe_and_full_dropout_is_bytes(gpt):
    text = corpus.train_heldout("python_docs")[1][:20_000]
    assert dropout_tokens(gpt, text, 0.0, Random(0)) == [gpt.vocab[i] for i in gpt.encode_ordinary(text)]
    assert dropout_tokens(gpt, text, 1.0, Random(0)) == [text.encode()[i:i + 1] for i in range(len(text.encode()))]
    lengths = [len(dropout_tokens(gpt, text, p, Random(1))) for p in (0.0, 0.1, 0.3, 0.6)]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]  # more dropout, more tokens
    with pytest.raises(ValueError, match="p must be between 0 and 1"):
        dropout_merge(b"ab", {b"ab": 0}, 1.5, Random(0))


def test_the_explorer_samples_are_seeded_and_follow_the_controls(gpt):
    explorer = DropoutExplorer(gpt, " unlowered", p=0.2, n_samples=6)
    first = explorer.samples
    assert first == explorer.sample(" unlowered", 0.2, 0) and len(first) == 6
    explorer.next_draw()
    assert explorer.samples == explorer.sample(" unlowered", 0.2, 1)
    explorer.text.value = "knighthood"  # the ticked ␣ box keeps the space before it
    assert all(b"".join(s) == b" knighthood" for s in explorer.samples)
    explorer.p.value = 0.0
    assert all(s == [gpt.vocab[i] for i in gpt.encode(" knighthood")] for s in explorer.samples)
    assert explorer.rows.value.count('class="bpe-dropout-row"') == 6 and explorer.status.value == ""


def test_the_leading_space_is_a_visible_choice(gpt):
    """A space typed into a box cannot be seen: the word box holds the word, a ticked ␣ box adds the space."""
    explorer = DropoutExplorer(gpt, " unlowered", p=0.0, n_samples=2)
    assert (explorer.text.value, explorer.space.value, explorer.word) == ("unlowered", True, " unlowered")
    assert "␣" in explorer.space.description and "bpe-dropout-space" in explorer.space._dom_classes
    assert explorer.samples[0] == [gpt.vocab[i] for i in gpt.encode(" unlowered")]
    assert "␣un" in explorer.rows.value  # the chips show the marker too
    explorer.space.value = False
    assert explorer.word == "unlowered"
    assert explorer.samples[0] == [gpt.vocab[i] for i in gpt.encode("unlowered")]
    assert gpt.encode("unlowered") != gpt.encode(" unlowered")[1:]  # why the choice matters
    plain = DropoutExplorer(gpt, "knight", n_samples=1)
    assert (plain.text.value, plain.space.value, plain.word) == ("knight", False, "knight")
