"""The vocabulary-size explorer (chapter 06): its data against independently trained tokenizers,
counted by tiktoken, and its plot against its data."""

from __future__ import annotations

import html
from functools import lru_cache

import pytest
import tiktoken

from bpe_course import corpus, train_bpe
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.widgets.vocab_size import VocabSizeExplorer, merge_counts, plot_vocab_size

MAX = 512  # small, so each corpus trains in well under a second


@lru_cache(maxsize=4)
def separately_trained(source: str) -> dict[int, bytes]:
    """A vocabulary trained for MAX merges by a separate train_bpe call (not the explorer's cache)."""
    train, _ = corpus.train_heldout(source)
    vocab, _ = train_bpe(train, 256 + MAX)
    return vocab


def tiktoken_count(source: str, n_merges: int) -> tuple[int, int, int]:
    """(tokens, words, bytes) of ``source``'s held-out text with the first ``n_merges`` merges,
    encoded by tiktoken (an encoder independent of bpe_course's Tokenizer and its truncation)."""
    _, heldout = corpus.train_heldout(source)
    ranks = {token: i for i, token in separately_trained(source).items() if i < 256 + n_merges}
    enc = tiktoken.Encoding(name=f"{source}-{n_merges}", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    return len(enc.encode_ordinary(heldout)), len(heldout.split()), len(heldout.encode("utf-8"))


@pytest.fixture(scope="module")
def explorer(gpt2_tok):
    return VocabSizeExplorer(corpora=("python_docs", "python_code"), max_merges=MAX,
                             references={"GPT-2": gpt2_tok}, n_points=4)


def test_merge_counts_span_the_range():
    counts = merge_counts(0, 8192, 12)
    assert counts[0] == 0 and counts[-1] == 8192
    assert counts == sorted(set(counts)) and len(counts) == 12
    assert merge_counts(100, 100, 5) == [100]
    with pytest.raises(ValueError):
        merge_counts(10, 5)


def test_data_matches_independent_training(explorer):
    data = explorer.data
    assert set(data["corpus"]) == {"python_docs"}
    trained = data[data["tokenizer"] == "trained"].set_index("merges")
    assert trained.index[0] == 0 and trained.index[-1] == MAX
    for k in (trained.index[1], trained.index[2], MAX):  # two middle sizes and the largest
        tokens, words, n_bytes = tiktoken_count("python_docs", int(k))
        row = trained.loc[k]
        assert row["tokens"] == tokens and row["n_vocab"] == 256 + k
        assert row["tokens_per_word"] == pytest.approx(tokens / words)
        assert row["bytes_per_token"] == pytest.approx(n_bytes / tokens)
    assert trained["tokens_per_word"].is_monotonic_decreasing


def test_reference_point_is_gpt2_on_the_same_text(explorer, tiktoken_gpt2):
    _, heldout = corpus.train_heldout("python_docs")
    ref = explorer.data[explorer.data["tokenizer"] == "GPT-2"].iloc[0]
    assert ref["n_vocab"] == tiktoken_gpt2.n_vocab == 50257
    assert ref["tokens"] == len(tiktoken_gpt2.encode_ordinary(heldout))


def test_choosing_a_corpus_and_range_redraws(explorer):
    before = bytes(explorer.image.value)
    explorer.corpus.value = "python_code"
    explorer.range.value = (64, 256)
    data = explorer.data
    trained = data[data["tokenizer"] == "trained"]
    assert set(data["corpus"]) == {"python_code"}
    assert trained["merges"].min() == 64 and trained["merges"].max() == 256
    tokens, words, _ = tiktoken_count("python_code", 256)
    assert trained.iloc[-1]["tokens_per_word"] == pytest.approx(tokens / words)
    after = bytes(explorer.image.value)
    assert after.startswith(b"\x89PNG") and after != before
    line = explorer.figure.axes[0].lines[0]
    assert list(line.get_xdata()) == list(trained["n_vocab"])
    assert list(line.get_ydata()) == pytest.approx(list(trained["tokens_per_word"]))


def test_plot_has_log_axis_labels_and_reference_marker(explorer):
    fig = plot_vocab_size(explorer.data, "title")
    name = explorer.data["corpus"].iloc[0]
    left, right = fig.axes
    assert left.get_xscale() == right.get_xscale() == "log"
    assert "tokens per word" in left.get_ylabel() and "bytes per token" in right.get_ylabel()
    assert fig.get_suptitle() == "title"
    ref = explorer.data[explorer.data["tokenizer"] == "GPT-2"].iloc[0]
    marker = [line for line in left.lines if line.get_label() == f"{name}: GPT-2"][0]
    assert list(marker.get_xdata()) == [50257] and list(marker.get_ydata()) == [ref["tokens_per_word"]]


def test_css_classes(explorer):
    assert "bpe-corpus-choice" in explorer.corpus._dom_classes
    assert "bpe-range" in explorer.range._dom_classes


def test_show_sets_corpus_and_range_at_once(explorer):
    explorer.show(corpus="python_docs", merges=(0, 128))
    trained = explorer.data[explorer.data["tokenizer"] == "trained"]
    assert set(explorer.data["corpus"]) == {"python_docs"}
    assert (trained["merges"].min(), trained["merges"].max()) == (0, 128)


def test_a_change_during_an_update_is_drawn_and_the_status_clears(monkeypatch):
    import bpe_course.widgets.vocab_size as module
    explorer = VocabSizeExplorer(corpora=("python_docs", "python_code"), max_merges=256, n_points=3)
    real_plot, seen_status = module.plot_vocab_size, []

    def plot_while_the_learner_changes_the_corpus(data, title):
        seen_status.append(explorer.status.value)
        if explorer.corpus.value == "python_docs" and len(seen_status) == 1:
            explorer.show(corpus="python_code")  # a change that arrives while this update draws
        return real_plot(data, title)

    monkeypatch.setattr(module, "plot_vocab_size", plot_while_the_learner_changes_the_corpus)
    explorer.range.value = (0, 128)
    assert set(explorer.data["corpus"]) == {"python_code"}  # the latest choice is what is drawn
    _, labels = explorer.figure.axes[0].get_legend_handles_labels()
    assert "python_code: trained BPE" in labels and not any(label.startswith("python_docs") for label in labels)
    assert seen_status[0].startswith("training and measuring") and explorer.status.value == ""


def test_a_corpus_that_runs_out_of_merges_says_so(gpt2_tok):
    """`languages` at min_frequency=5 learns a few hundred merges: the one point it can draw lies before
    a range of 1024-5056, and the widget says why instead of drawing it without a word."""
    from bpe_course.widgets.vocab_size import DEFAULT_CORPORA

    assert DEFAULT_CORPORA[0] == "don_quixote" and "languages" in DEFAULT_CORPORA
    train, _ = corpus.train_heldout("languages")
    learned = len(train_bpe(train, 256 + 8192, min_frequency=5)[1])  # trained apart from the widget
    assert learned < 1024
    explorer = VocabSizeExplorer(corpora=("python_docs", "languages"), max_merges=8192, n_points=4,
                                 min_frequency=5, value="languages")
    explorer.show(merges=(1024, 5056))
    trained = explorer.data[explorer.data["tokenizer"] == "trained"]
    assert list(trained["merges"]) == [learned] and list(trained["n_vocab"]) == [256 + learned]
    assert explorer.learned == learned
    note = explorer.note.value
    assert f"after {learned:,} merges" in note and "at least 5 times" in note and "before this range starts" in note
    assert f"vocabulary {256 + learned:,}" in note
    assert explorer.figure.texts[0].get_text().endswith(f"(it learned only {learned:,})")  # the suptitle
    explorer.show(corpus="python_docs", merges=(0, 256))  # enough merges: the note goes away
    assert explorer.note.value == "" and explorer.shortfall == ""
    # the end of the range beyond what was learned, the start within it
    explorer.show(corpus="languages", merges=(0, 5056))
    assert "short of the range's end (5,056 merges)" in explorer.shortfall and explorer.shortfall in html.unescape(explorer.note.value)


def test_handed_over_tokenizers_are_used_not_retrained(monkeypatch):
    import bpe_course.widgets.vocab_size as module

    train, _ = corpus.train_heldout("python_code")
    from bpe_course import Tokenizer
    tok = Tokenizer(*train_bpe(train, 256 + 64))
    monkeypatch.setattr(module, "trained_tokenizer", lambda *a: pytest.fail("trained again"))
    explorer = VocabSizeExplorer(corpora=("python_code",), max_merges=64, n_points=3, trained={"python_code": tok})
    assert explorer.learned == 64 and list(explorer.data["merges"]) == merge_counts(0, 64, 3)
    with pytest.raises(ValueError, match="not one of the corpora"):
        VocabSizeExplorer(corpora=("python_code",), value="nope", trained={"python_code": tok})
