"""Drive the chapter 2-3 widgets from Python and check what they show against the package."""

from __future__ import annotations

import ast
import html
import math
import re

import pytest

from bpe_course import corpus, train_bpe, Tokenizer
from bpe_course.viz import token_label
from bpe_course.widgets.merges import MergeSlider, PairExplorer
from bpe_course.algorithms.wordbpe import WordBPE, apply_merge, count_pairs, top_pairs, word_counts

TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
CHIP = re.compile(r'<span class="bpe-chip"[^>]*?(?: data-id="(\d+)")?>(.*?)</span>')
BAR = re.compile(r'data-pair="([^"]*)" data-count="(\d+)"')


def chips(html_text: str) -> list[str]:
    return [html.unescape(label) for _, label in CHIP.findall(html_text)]


def chip_ids(html_text: str) -> list[int]:
    return [int(i) for i, _ in CHIP.findall(html_text)]


def bars(html_text: str) -> list[tuple[tuple[str, str], int]]:
    return [(ast.literal_eval(html.unescape(pair)), int(count)) for pair, count in BAR.findall(html_text)]


def word_rows(html_text: str) -> list[tuple[int, list[str]]]:
    rows = re.findall(r'<div class="bpe-word-row".*?×(\d+)</span>(<div class="bpe-word".*?</div>)</div>', html_text)
    return [(int(n), chips(row)) for n, row in rows]


@pytest.fixture(scope="module")
def docs_slice() -> str:
    return corpus.train_heldout("python_docs")[0][:30_000]


# ---------------------------------------------------------------- PairExplorer


def test_explorer_initial_bars_are_the_top_pairs():
    w = PairExplorer(TOY, top_n=8)
    expected = top_pairs(count_pairs(word_counts(TOY)), 8)
    assert bars(w.bars_html.value) == expected
    assert w.merges == [] and not w.merge_button.disabled


def test_explorer_button_clicks_follow_wordbpe_until_training_stops():
    trained = WordBPE.train(TOY, 1000)
    w = PairExplorer(TOY)
    for k in range(len(trained.merges)):
        w.merge_button.click()
        assert w.merges == trained.merges[: k + 1]
        assert f"Merge {k + 1}:" in w.status.value
    # no pair repeats any more: the button is disabled and stepping changes nothing
    assert w.merge_button.disabled
    assert w.step() is None
    assert w.merges == trained.merges
    assert "training stops here" in w.status.value


def test_explorer_word_list_shows_segmentations_and_counts():
    w = PairExplorer(TOY)
    for _ in range(5):
        w.step()
    words = word_counts(TOY)
    for pair in w.merges:
        words = apply_merge(words, pair)
    expected = sorted(((n, list(word)) for word, n in words.items()), key=lambda item: (-item[0], item[1]))
    assert word_rows(w.words_html.value) == expected
    assert ["low", "</w>"] in [segs for _, segs in word_rows(w.words_html.value)]


def test_explorer_bars_update_after_each_step():
    w = PairExplorer(TOY)
    w.step()
    after = top_pairs(count_pairs(apply_merge(word_counts(TOY), ("t", "</w>"))), w.top_n)
    assert bars(w.bars_html.value) == after
    assert ("t", "</w>") not in dict(bars(w.bars_html.value))


def test_explorer_reset_starts_again():
    w = PairExplorer(TOY)
    first = w.bars_html.value
    for _ in range(3):
        w.step()
    w.reset_button.click()
    assert w.merges == [] and w.words == word_counts(TOY)
    assert w.bars_html.value == first


def test_explorer_on_real_text_matches_wordbpe(docs_slice):
    w = PairExplorer(docs_slice)
    for _ in range(20):
        w.merge_button.click()
    base = 4 + len(set("".join(docs_slice.split()))) + 1
    assert w.merges == WordBPE.train(docs_slice, base + 20).merges


def test_explorer_accepts_word_counts_and_shows_empty_bars():
    w = PairExplorer({("a", "b", "</w>"): 2})
    assert w.step() == ("b", "</w>")  # tied with ("a", "b") at 2: the greater pair wins
    assert w.step() == ("a", "b</w>")
    assert "no adjacent pairs left" in w.bars_html.value and w.merge_button.disabled


def test_explorer_css_classes():
    w = PairExplorer(TOY)
    assert "bpe-merge-button" in w.merge_button._dom_classes
    assert "bpe-reset-button" in w.reset_button._dom_classes
    assert "bpe-pair-explorer" in w.widget._dom_classes


# ---------------------------------------------------------------- MergeSlider

SAMPLE = "the lowest newer widest low"


@pytest.fixture(scope="module")
def toy_bpe() -> WordBPE:
    return WordBPE.train(TOY, 1000)


def test_slider_at_zero_shows_single_characters(toy_bpe):
    w = MergeSlider(toy_bpe, SAMPLE)
    w.slider.value = 0
    shown = chips(w.chips.value)
    assert all(len(t) == 1 or t in ("</w>", "<|unk|>") for t in shown)
    assert shown == toy_bpe.truncated(0).tokenize(SAMPLE)
    assert "no merges" in w.last_merge.value


@pytest.mark.parametrize("k", [1, 3, 7, 15])
def test_slider_at_k_equals_truncated_tokenization(toy_bpe, k):
    w = MergeSlider(toy_bpe, SAMPLE, merges=0)
    w.slider.value = k
    truncated = toy_bpe.truncated(k)
    assert chips(w.chips.value) == truncated.tokenize(SAMPLE)
    assert chip_ids(w.chips.value) == truncated.encode(SAMPLE)
    a, b = toy_bpe.merges[k - 1]
    assert html.unescape(w.last_merge.value).startswith(f"merge {k}: <code>{a} + {b}</code>")


@pytest.mark.parametrize("k", [0, 5])
def test_slider_never_breaks_a_line_inside_a_word(toy_bpe, k):
    """Each word's chips (up to and with its ``</w>``) stand in one unbreakable group, so a narrow column
    moves a whole word to the next line instead of leaving ``spli`` on one line and ``t s</w>`` on the next."""
    w = MergeSlider(toy_bpe, SAMPLE, merges=k)
    groups = re.findall(r'<span class="bpe-word-group" style="white-space:nowrap[^"]*">(.*?)</span>'
                        r'(?=<span class="bpe-word-group"|</div>)', w.chips.value)
    words = [[html.unescape(t) for t in re.findall(r'class="bpe-chip"[^>]*>([^<]*)<', g)] for g in groups]
    symbols, expected = toy_bpe.truncated(k).tokenize(SAMPLE), [[]]
    for symbol in symbols:
        expected[-1].append(symbol)
        if symbol.endswith("</w>"):
            expected.append([])
    assert words == expected[:-1] and len(words) == len(SAMPLE.split())


def test_slider_stats_numbers(toy_bpe):
    w = MergeSlider(toy_bpe, SAMPLE)
    for k in (0, 5, len(toy_bpe.merges)):
        w.slider.value = k
        tokens = toy_bpe.truncated(k).tokenize(SAMPLE)
        vocab = len(toy_bpe.truncated(k).vocab)
        words = len(SAMPLE.split())
        stats = html.unescape(w.stats.value)
        assert f"vocab size {vocab} " in stats
        assert f"{len(tokens)} tokens for {words} words" in stats
        assert f"{len(tokens) / words:.2f} tokens per word" in stats
        assert w.stats_at(k) == {"n_vocab": vocab, "tokens": len(tokens), "words": words,
                                 "tokens_per_word": len(tokens) / words}


def test_slider_range_and_text_box(toy_bpe):
    w = MergeSlider(toy_bpe, SAMPLE)
    assert (w.slider.min, w.slider.max, w.slider.value) == (0, len(toy_bpe.merges), len(toy_bpe.merges))
    w.text.value = "newest lowest"
    assert chips(w.chips.value) == toy_bpe.tokenize("newest lowest")
    assert "2 words" in w.stats.value


def test_slider_css_classes(toy_bpe):
    w = MergeSlider(toy_bpe, SAMPLE)
    assert "bpe-merge-slider" in w.slider._dom_classes
    assert "bpe-chips" in w.chips._dom_classes
    assert "bpe-stats" in w.stats._dom_classes
    assert "bpe-sample-text" in w.text._dom_classes


def test_slider_on_real_text(docs_slice):
    bpe = WordBPE.train(docs_slice, 300)
    text = "The tokenizer splits unfamiliar words into pieces."
    w = MergeSlider(bpe, text)
    previous = None
    for k in (0, 50, 150, len(bpe.merges)):
        w.slider.value = k
        assert chips(w.chips.value) == bpe.truncated(k).tokenize(text)
        count = w.stats_at(k)["tokens"]
        assert previous is None or count <= previous  # more merges never lengthen this text here
        previous = count


def test_slider_with_a_byte_level_tokenizer(docs_slice):
    vocab, merges = train_bpe(docs_slice, 300)
    tok = Tokenizer(vocab, merges)
    text = "Byte-level pieces: café, 日本"
    w = MergeSlider(tok, text, merges=0)
    assert chips(w.chips.value) == [token_label(bytes([b])) for b in text.encode("utf-8")]
    w.slider.value = 40
    ids = tok.truncated(40).encode(text)
    assert chip_ids(w.chips.value) == ids
    assert f"vocab size {256 + 40} " in w.stats.value


def test_fine_positions_by_box_and_buttons(toy_bpe):
    """Chapter 03's slider has a few hundred steps: a number box and ±1 buttons reach each one, and the
    slider, the box and the chips always agree."""
    n = len(toy_bpe.merges)
    w = MergeSlider(toy_bpe, SAMPLE, merges=n // 2)
    assert w.slider.layout.width == "520px"  # about a merge per pixel or more at chapter 03's size
    assert (w.exact.min, w.exact.max, w.exact.value) == (0, n, n // 2)
    w.exact.value = 3
    assert w.slider.value == 3 and chips(w.chips.value) == toy_bpe.truncated(3).tokenize(SAMPLE)
    w.forward.click()
    assert (w.slider.value, w.exact.value) == (4, 4)
    assert chips(w.chips.value) == toy_bpe.truncated(4).tokenize(SAMPLE)
    w.back.click(); w.back.click()
    assert (w.slider.value, w.exact.value) == (2, 2)
    w.slider.value = 0  # the slider moves the box, and the buttons stop at the ends
    assert w.exact.value == 0 and w.back.disabled and not w.forward.disabled
    w.back.click()
    assert w.slider.value == 0
    w.set_merges(10**6)
    assert (w.slider.value, w.exact.value) == (n, n) and w.forward.disabled
    for css, part in (("bpe-merge-exact", w.exact), ("bpe-merge-back", w.back), ("bpe-merge-forward", w.forward)):
        assert css in part._dom_classes


def test_stats_of_a_text_without_words(toy_bpe):
    w = MergeSlider(toy_bpe, SAMPLE)
    w.text.value = ""
    assert w.stats_at(0)["words"] == 0 and "– tokens per word" in w.stats.value
    assert math.isnan(w.stats_at(0)["tokens_per_word"])
