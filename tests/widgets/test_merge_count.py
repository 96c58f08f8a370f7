"""The byte-level merge-count slider (chapter 10), driven from Python.

The oracles: ``tok.truncated(k)`` (a whole tokenizer built with only the first k merges), and
tiktoken itself given only the ranks below 256 + k of GPT-2's and cl100k's own files.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest
from oracles import tiktoken_first

import bpe_course
from bpe_course import Tokenizer, corpus
from bpe_course.measures import text_measures
from bpe_course.pretokenize import GPT2_PATTERN
from bpe_course.viz import token_label
from bpe_course.widgets import merge_count
from bpe_course.widgets.merge_count import (MAX_CHIPS, MergeCountSlider, course_tokenizers, made_counts, merge_steps,
                                            truncated_numbers)


CHIP = re.compile(r'<span class="bpe-chip"[^>]*? title="id (\d+)" data-id="\d+">(.*?)</span>')

TEXT = ("Byte-level BPE: 12345678 naïve cafés, 東京 and 🙂.\n    def f(x):  # DON'T\n        return x ** 2\n"
        "<|endoftext|> is plain text here")

LONG_PIECE_TEXT = "a" * 300 + " " + "ab" * 150 + "c" + "😀" * 40  # pieces longer than LONG_PIECE bytes


def chips(chips_html: str) -> tuple[list[int], list[str]]:
    found = CHIP.findall(chips_html)
    return [int(i) for i, _ in found], [html.unescape(label) for _, label in found]


def stat(widget: MergeCountSlider, css: str) -> str:
    return re.search(rf'<span class="{css}">([^<]*)</span>', widget.stats.value).group(1)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 18, 1244, 50_000, 100_000, 199_997])
def test_merge_steps_are_log_spaced_and_end_at_all(n):
    steps = merge_steps(n)
    assert steps[0] == 0 and steps[-1] == n and steps == sorted(set(steps))
    assert all(str(s).lstrip("0").rstrip("0") in {"", "1", "2", "5"} for s in steps[:-1])  # 1, 2, 5 x 10^i
    assert all(b <= 2.5 * a for a, b in zip(steps[1:-1], steps[2:-1]))  # no gap wider than 2.5x below n
    assert len(steps) <= 3 * len(str(n)) + 2


def test_vocab_entries_are_the_truncated_vocabulary(own, cl100k_tok):
    rows = truncated_numbers(own, TEXT, [0, 1, 50, 300, 10**6])
    assert [r["merges"] for r in rows] == [0, 1, 50, 300, len(own.merges)]  # clamped to all
    for row in rows:
        small = own.truncated(row["merges"])
        assert row["vocab_entries"] == len(small.vocab)
        assert row == {"merges": row["merges"], "vocab_entries": len(small.vocab),
                       **text_measures(len(small.encode_ordinary(TEXT)), TEXT)}
    row = truncated_numbers(cl100k_tok, "", [777])[0]
    assert row["vocab_entries"] == len(cl100k_tok.truncated(777).vocab) and row["tokens"] == 0
    assert "n_vocab" not in row  # largest id + 1 would count the special tokens' high ids: 100,277
    # two merges making the same bytes make one token
    twice = Tokenizer({b: bytes([b]) for b in range(256)} | {256: b"ab"}, [(b"a", b"b"), (b"a", b"b")])
    assert made_counts(twice) == [0, 1, 1]
    assert [r["vocab_entries"] for r in truncated_numbers(twice, "ab", [0, 1, 2])] == \
        [len(twice.truncated(k).vocab) for k in range(3)]


def test_an_empty_text_shows_dashes_not_zeros(own):
    w = MergeCountSlider({"mine": own}, "")
    assert w.ids == [] and stat(w, "bpe-mc-tokens") == "0"
    assert stat(w, "bpe-mc-tpw") == "–" and stat(w, "bpe-mc-bpt") == "–"  # no words, no tokens: no ratio
    w.text.value = "   "
    assert stat(w, "bpe-mc-tpw") == "–" and stat(w, "bpe-mc-bpt") == "3.00"


def test_presets_are_yours_then_gpt2_gpt4_gpt4o_and_tekken_loaded_on_demand(own):
    presets = course_tokenizers(own, "mine")
    assert list(presets) == ["mine", "GPT-2", "GPT-4 (cl100k)", "GPT-4o (o200k)", "Mistral Tekken", "Llama 3", "Llama 4"]
    assert presets["mine"] is own and presets["GPT-2"]() is bpe_course.pretrained.gpt2()
    assert presets["GPT-4o (o200k)"]() is bpe_course.pretrained.o200k()
    assert presets["Mistral Tekken"]() is bpe_course.pretrained.tekken()
    assert list(course_tokenizers()) == ["GPT-2", "GPT-4 (cl100k)", "GPT-4o (o200k)", "Mistral Tekken", "Llama 3",
                                         "Llama 4"]
    assert presets["Llama 3"]() is bpe_course.pretrained.llama3()


def test_tekken_is_offered_only_with_mistral_common_and_never_imported_early(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    hidden = ("mistral_common", "llama_models")  # the interop extra's packages, as if not installed
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in hidden else real(name, *a))
    assert list(course_tokenizers()) == ["GPT-2", "GPT-4 (cl100k)", "GPT-4o (o200k)"]
    # listing the presets (and building a slider on GPT-2) must not import mistral-common
    code = ("import sys\nfrom bpe_course.widgets.merge_count import MergeCountSlider, course_tokenizers\n"
            "w = MergeCountSlider(course_tokenizers(), 'hi', choice='GPT-2')\n"
            "assert 'Mistral Tekken' in w.sources and 'Llama 3' in w.sources, sorted(w.sources)\n"
            "assert not {'mistral_common', 'llama_models'} & set(sys.modules), sorted(sys.modules)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- Tekken: ids are rank + 1,000, yet the first k merges are still the ranks below 256 + k --------------
@pytest.fixture(scope="module")
def tekkenizer():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    return Tekkenizer.from_file(str(bpe_course.pretrained.named_file("tekken")))


def mistral_first(tekkenizer, k: int, text: str) -> list[int]:
    """mistral-common's own ranks and regex, with only the 256 bytes and the ranks below 256 + k, shifted
    past its reserved special ids as Tekkenizer shifts them."""
    model = tekkenizer._model  # subtle: Tekkenizer's tiktoken Encoding of the ranks (ids without the offset)
    oracle = tiktoken_first(model._mergeable_ranks, k, model._pat_str)
    return [i + tekkenizer.num_special_tokens for i in oracle.encode_ordinary(text)]


@pytest.mark.parametrize("k", [0, 1, 2, 100, 1000, 10_000, 129_815])
def test_tekken_preset_truncated_is_mistral_common_with_the_lower_ranks(tekkenizer, k):
    w = MergeCountSlider(course_tokenizers(), TEXT, choice="Mistral Tekken", merges=k)
    tok = bpe_course.pretrained.tekken()
    assert w.tokenizer is tok and len(tok.merges) == 129_816
    assert w.ids == mistral_first(tekkenizer, k, TEXT) == expect_shown(w, tok, k, TEXT)
    assert tok.encode_ordinary_truncated(LONG_PIECE_TEXT, k) == mistral_first(tekkenizer, k, LONG_PIECE_TEXT)
    if k == 0:
        assert w.ids == [1000 + b for b in TEXT.encode()]  # a byte's id is its rank (the byte) + 1,000
        assert stat(w, "bpe-mc-vocab") == "1,256"  # the 256 bytes and the 1,000 reserved special ids


def test_tekken_preset_with_all_merges_is_mistral_commons_ids(tekkenizer):
    w = MergeCountSlider(course_tokenizers(), TEXT, choice="GPT-2", merges=100)
    w.choice.value = "Mistral Tekken"
    w.set_merges(10**9)  # more than it has: all of them
    assert (w.merges, w.slider.label) == (129_816, "all 129,816")
    for text in (TEXT, LONG_PIECE_TEXT, corpus.train_heldout("python_docs")[1][:5000]):
        w.text.value = text
        assert w.ids == tekkenizer.encode(text, bos=False, eos=False), text[:40]
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    assert w.tokens == [tekkenizer.id_to_byte_piece(i, SpecialTokenPolicy.RAISE) for i in w.ids]


def expect_shown(w: MergeCountSlider, tok: Tokenizer, k: int, text: str) -> list[int]:
    """Everything the widget shows is tok.truncated(k)'s encoding of text."""
    ids = tok.truncated(k).encode_ordinary(text)
    assert w.merges == k and w.ids == ids and w.tokens == tok.token_bytes(ids)
    assert w.slider.value == k and w.exact.value == k and w.exact.max == len(tok.merges)
    assert w.slider.label == (f"all {k:,}" if k == len(tok.merges) else f"{k:,}")
    shown_ids, labels = chips(w.chips.value)
    assert shown_ids == ids[:MAX_CHIPS]
    assert labels == [token_label(t) for t in tok.token_bytes(ids[:MAX_CHIPS])]
    words = len(text.split())
    assert stat(w, "bpe-mc-tokens") == f"{len(ids):,}" and stat(w, "bpe-mc-words") == f"{words:,}"
    assert stat(w, "bpe-mc-tpw") == f"{len(ids) / words:.2f}"
    assert stat(w, "bpe-mc-bpt") == f"{len(text.encode()) / len(ids):.2f}"
    assert stat(w, "bpe-mc-vocab") == f"{len(tok.truncated(k).vocab):,}"
    assert w.message == f"{w.name} with {k:,} of {len(tok.merges):,} merges"
    assert 'class="bpe-mc-ready"' in w.status.value
    if k:
        a, b = tok.merges[k - 1]
        assert f"number {k:,}: <code>{html.escape(token_label(a))}</code> + " in w.last_merge.value
    else:
        assert "no merges" in w.last_merge.value
    return ids


def test_parts_have_stable_css_classes(own):
    w = MergeCountSlider({"mine": own}, "x")
    for part, css in [(w.text, "bpe-mc-text"), (w.choice, "bpe-mc-choice"), (w.slider, "bpe-mc-slider"),
                      (w.exact, "bpe-mc-exact"), (w.status, "bpe-mc-status"), (w.stats, "bpe-mc-stats"),
                      (w.last_merge, "bpe-mc-last-merge"), (w.chips, "bpe-mc-chips"), (w.widget, "bpe-merge-count")]:
        assert css in part._dom_classes
    assert w.widget.children[0] is w.text  # the repr a stored notebook shows starts with the text


def test_sliding_through_every_notch_of_gpt2(gpt2_tok, gpt2_ranks):
    w = MergeCountSlider({"GPT-2": gpt2_tok}, TEXT, merges=0)
    assert w.notches == merge_steps(50_000)
    assert [label for label, _ in w.slider.options][-1] == "all 50,000"
    expect_shown(w, gpt2_tok, 0, TEXT)
    assert w.tokens == [bytes([b]) for b in TEXT.encode()]  # no merges: every byte a token
    for k in w.notches[1:]:
        w.slider.value = k
        ids = expect_shown(w, gpt2_tok, k, TEXT)
        if k in (5, 500, 50_000):
            assert ids == tiktoken_first(gpt2_ranks, k, GPT2_PATTERN).encode_ordinary(TEXT)
    assert w.notches == merge_steps(50_000)  # sliding never changes the notches


def test_gpt2_ids_of_single_bytes_are_not_the_bytes(gpt2_tok):
    w = MergeCountSlider({"GPT-2": gpt2_tok}, "!A", merges=0)
    assert w.ids == [0, 32] and w.tokens == [b"!", b"A"]


def test_exact_counts_become_notches_and_the_readout_is_exact(cl100k_tok):
    w = MergeCountSlider({"GPT-4": cl100k_tok}, TEXT, merges=10)
    w.exact.value = 1234
    expect_shown(w, cl100k_tok, 1234, TEXT)
    assert 1234 in w.notches and w.slider.label == "1,234"
    notches = list(w.notches)
    w.slider.value = 2000  # moving on: the typed notch stays, so keys in flight keep their meaning
    expect_shown(w, cl100k_tok, 2000, TEXT)
    assert w.notches == notches
    w.set_merges(10**9)  # more than there are: all
    expect_shown(w, cl100k_tok, len(cl100k_tok.merges), TEXT)
    w.exact.value = 10**9  # the box is bounded: clamped to all
    assert w.merges == len(cl100k_tok.merges)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="non-negative int"):
            w.set_merges(bad)


def test_typing_text_keeps_the_count(own):
    w = MergeCountSlider({"mine": own}, "the first text", merges=300)
    w.text.value = TEXT
    expect_shown(w, own, 300, TEXT)
    w.text.value = ""
    assert w.ids == [] and w.merges == 300 and stat(w, "bpe-mc-tpw") == "–"  # no words: no ratio


def test_switching_tokenizer_keeps_the_count_and_all_stays_all(own, gpt2_tok, cl100k_tok):
    w = MergeCountSlider({"mine": own, "GPT-2": gpt2_tok, "GPT-4": cl100k_tok}, TEXT)
    expect_shown(w, own, len(own.merges), TEXT)  # starts at all
    w.choice.value = "GPT-2"
    expect_shown(w, gpt2_tok, 50_000, TEXT)  # all stays all
    w.slider.value = 200
    w.choice.value = "GPT-4"
    expect_shown(w, cl100k_tok, 200, TEXT)  # the count stays
    assert w.notches == merge_steps(len(cl100k_tok.merges))
    w.exact.value = 5000
    w.choice.value = "mine"
    expect_shown(w, own, len(own.merges), TEXT)  # more than it has: clamped to all
    w.choice.value = "GPT-2"
    expect_shown(w, gpt2_tok, 50_000, TEXT)


def test_loaders_run_once_on_first_choice_with_a_status(own):
    calls, seen = [], []

    def load() -> Tokenizer:
        calls.append(1)
        seen.append((w.status.value, w.message))
        return own

    w = MergeCountSlider({"first": own, "lazy": load}, TEXT, merges=3)
    assert calls == []  # not loaded before it is chosen
    w.choice.value = "lazy"
    w.choice.value = "first"
    w.choice.value = "lazy"
    assert calls == [1]
    status, message = seen[0]
    assert 'class="bpe-mc-busy"' in status and message == "loading lazy… (only the first time)"
    expect_shown(w, own, 3, TEXT)


def test_status_says_updating_while_it_works(own):
    seen = []

    class Watching(Tokenizer):
        watcher: MergeCountSlider | None = None

        def encode_ordinary_truncated(self, text, n_merges):
            seen.append((self.watcher.message, self.watcher.status.value) if self.watcher else None)
            return super().encode_ordinary_truncated(text, n_merges)

    watched = Watching(own.vocab, own.merges, own.special_tokens, own.pattern)
    w = watched.watcher = MergeCountSlider({"mine": watched}, TEXT, merges=1)
    seen.clear()
    w.slider.value = 2
    assert len(seen) == 1 and seen[0][0] == "updating: mine…" and 'class="bpe-mc-busy"' in seen[0][1]
    assert w.message == f"mine with 2 of {len(own.merges):,} merges"


@pytest.mark.parametrize("change", ["merges", "text", "choice"])
def test_a_change_made_during_an_update_is_not_lost(own, gpt2_tok, change):
    """A learner moves a control while the widget is busy (here: while a tokenizer loads)."""

    def slow_load() -> Tokenizer:
        if change == "merges":
            w.exact.value = 42
        elif change == "text":
            w.text.value = "typed meanwhile"
        else:
            w.choice.value = "GPT-2"
        return own

    w = MergeCountSlider({"mine": own, "lazy": slow_load, "GPT-2": gpt2_tok}, TEXT, merges=7)
    w.choice.value = "lazy"
    if change == "merges":
        expect_shown(w, own, 42, TEXT)
    elif change == "text":
        expect_shown(w, own, 7, "typed meanwhile")
    else:
        assert w.name == "GPT-2"
        expect_shown(w, gpt2_tok, 7, TEXT)
    assert 'class="bpe-mc-ready"' in w.status.value


def test_a_tokenizer_that_fails_to_load_is_reported(own):
    def missing() -> Tokenizer:
        raise FileNotFoundError("o200k_base.tiktoken comes with a package that is not installed")

    w = MergeCountSlider({"mine": own, "broken": missing}, TEXT, merges=5)
    w.choice.value = "broken"
    assert 'class="bpe-mc-error"' in w.status.value
    assert w.message == "could not load broken: o200k_base.tiktoken comes with a package that is not installed"
    assert w.name == "mine" and w.merges == 5 and w.choice.value == "mine"  # the buttons show what is shown
    assert w.ids == own.truncated(5).encode_ordinary(TEXT)
    w.slider.value = 10
    expect_shown(w, own, 10, TEXT)


def test_a_choice_made_while_a_load_fails_is_not_lost(own, gpt2_tok):
    def failing() -> Tokenizer:
        w.choice.value = "GPT-2"  # the learner clicks on while the load is still running
        raise OSError("disk on fire")

    w = MergeCountSlider({"mine": own, "broken": failing, "GPT-2": gpt2_tok}, TEXT, merges=9)
    w.choice.value = "broken"
    expect_shown(w, gpt2_tok, 9, TEXT)


def test_long_text_caps_chips_but_not_counts(gpt2_tok):
    text = " ".join(f"w{i}" for i in range(MAX_CHIPS))
    w = MergeCountSlider({"GPT-2": gpt2_tok}, text, merges=1000)
    assert len(w.ids) > MAX_CHIPS and stat(w, "bpe-mc-tokens") == f"{len(w.ids):,}"
    assert chips(w.chips.value)[0] == w.ids[:MAX_CHIPS] and f"first {MAX_CHIPS:,} tokens shown" in w.chips.value


def test_bad_arguments_are_named(own):
    with pytest.raises(ValueError, match="at least one tokenizer"):
        MergeCountSlider({}, "x")
    with pytest.raises(ValueError, match=r"choice 'GPT-3' is not one of the tokenizers \['mine'\]"):
        MergeCountSlider({"mine": own}, "x", choice="GPT-3")
    with pytest.raises(ValueError, match="merges must be a non-negative int"):
        MergeCountSlider({"mine": own}, "x", merges=-3)
    with pytest.raises(TypeError, match="text must be str"):
        MergeCountSlider({"mine": own}, None)
    w = MergeCountSlider({"mine": own, "odd": lambda: "not a tokenizer"}, "x")
    w.choice.value = "odd"
    assert w.message == "could not load odd: loading 'odd' gave str, not a bpe_course Tokenizer"


class CountingTokenizer(Tokenizer):
    """A tokenizer that counts the encodings it is asked for: what the widget's cache saves."""

    calls = 0

    def encode_ordinary_truncated(self, text: str, n_merges: int) -> list[int]:
        self.calls += 1
        return super().encode_ordinary_truncated(text, n_merges)


def test_the_encoding_cache_is_bounded(own):
    tok = CountingTokenizer(own.vocab, own.merges, own.special_tokens, own.pattern)
    w = MergeCountSlider({"mine": tok}, "abc")
    keys = [(k % (len(own.merges) + 1), f"text {k}") for k in range(merge_count.CACHE_SIZE + 20)]
    for k, text in keys:
        w.encode("mine", k, text)
    calls = tok.calls
    for k, text in reversed(keys[20:]):  # the newest CACHE_SIZE encodings, newest first: all remembered
        assert w.encode("mine", k, text) == own.truncated(k).encode_ordinary(text)
    assert tok.calls == calls
    w.encode("mine", *keys[19])  # the oldest were forgotten: encoded again
    assert tok.calls == calls + 1
