"""The BPE-dropout explorer (chapter 15), driven from Python: seeded samples that follow the controls."""

from __future__ import annotations

import pytest

from bpe_course import gpt2
from bpe_course.widgets.dropout import DropoutExplorer


@pytest.fixture(scope="module")
def gpt():
    return gpt2()


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
