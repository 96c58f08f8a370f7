"""Chapter 06's plot is honest: no plotted "trained" point uses a merge of a pair seen fewer times than it claims."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bpe_course import corpus
from bpe_course.train import train
from bpe_course.widgets.vocab_size import vocab_size_data

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "06_vocabulary_size.py"


def chapter_constants() -> dict[str, object]:
    """The chapter's own settings (CORPORA, MAX_MERGES, MIN_FREQUENCY, N_POINTS), read from its source."""
    source = "\n".join(line for line in CHAPTER.read_text(encoding="utf-8").splitlines() if not line.startswith("%"))
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in ("CORPORA", "MAX_MERGES", "MIN_FREQUENCY", "N_POINTS"):
                found[name] = ast.literal_eval(node.value)
    return found


CONSTANTS = chapter_constants()


def test_the_chapter_sets_a_minimum_frequency_above_one():
    assert CONSTANTS["MIN_FREQUENCY"] > 1  # with 1, the curve ends in merges of pairs seen once (section 3)


@pytest.mark.parametrize("source", CONSTANTS["CORPORA"])
def test_no_plotted_point_uses_a_rare_merge(source):
    n = CONSTANTS["MIN_FREQUENCY"]
    data = vocab_size_data([source], 0, CONSTANTS["MAX_MERGES"], CONSTANTS["N_POINTS"], min_frequency=n)
    plotted = data[data["tokenizer"] == "trained"]["merges"]
    unrestricted = train(corpus.train_heldout(source)[0], 256 + CONSTANTS["MAX_MERGES"])
    for k in plotted:
        assert all(c >= n for c in unrestricted.merge_counts[:k]), f"{source}: point at {k} merges"
    # and the curve goes as far as the rule allows, not less
    allowed = next((k for k, c in enumerate(unrestricted.merge_counts) if c < n), len(unrestricted.merges))
    assert plotted.max() == allowed


@pytest.mark.parametrize("f", [2, 3, CONSTANTS["MIN_FREQUENCY"], 10])
def test_a_minimum_frequency_learns_a_prefix_of_the_unrestricted_run(f):
    """Section 3's sweep truncates one unrestricted run: that is only right if training with
    ``min_frequency=f`` stops exactly at the first merge of a pair seen fewer than f times."""
    docs_train = corpus.train_heldout("python_docs")[0]
    unrestricted = train(docs_train, 256 + CONSTANTS["MAX_MERGES"])
    first_rare = next(k for k, c in enumerate(unrestricted.merge_counts) if c < f)
    restricted = train(docs_train, 256 + CONSTANTS["MAX_MERGES"], min_frequency=f)
    assert restricted.merges == unrestricted.merges[:first_rare]
    assert restricted.merge_counts == unrestricted.merge_counts[:first_rare]


def test_section_3s_reading_holds_on_python_docs():
    """Section 3 says the rare merges do not show in tokens per word (the train/held-out gap stays
    where the frequent merges put it, and they shorten held-out text nearly as much as training
    text) but do show in token usage. Its sentences are composed from the numbers; this checks
    that the verdict they carry ("No.", "nearly as useful", "uses fewer") still holds."""
    from bpe_course import Tokenizer

    docs_train, docs_heldout = corpus.train_heldout("python_docs")
    run = train(docs_train, 256 + CONSTANTS["MAX_MERGES"])
    first_rare = next(k for k, c in enumerate(run.merge_counts) if c < CONSTANTS["MIN_FREQUENCY"])
    full = Tokenizer(run.vocab, run.merges)
    at_cut = full.truncated(first_rare)

    def per_word(tok, text):
        return len(tok.encode_ordinary(text)) / len(text.split())

    gap_cut = per_word(at_cut, docs_heldout) - per_word(at_cut, docs_train)
    gap_end = per_word(full, docs_heldout) - per_word(full, docs_train)
    assert gap_end <= gap_cut + 0.05  # the gap does not grow with the rare merges
    train_gain = 1 - per_word(full, docs_train) / per_word(at_cut, docs_train)
    heldout_gain = 1 - per_word(full, docs_heldout) / per_word(at_cut, docs_heldout)
    assert heldout_gain >= 0.75 * train_gain  # nearly as useful on new text
    used = set(full.encode_ordinary(docs_heldout))
    late = sum(256 + k in used for k in range(first_rare, len(run.merges))) / (len(run.merges) - first_rare)
    early = sum(256 + k in used for k in range(first_rare)) / first_rare
    assert late < early / 2  # but new text uses far fewer of their tokens
