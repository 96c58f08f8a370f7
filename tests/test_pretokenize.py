"""Pre-tokenization: the patterns, special tokens split out first, and where text may be cut."""

from __future__ import annotations

import importlib
import json
import random
from collections import Counter
from functools import lru_cache

import pytest
import regex
from hypothesis import given, settings, strategies as st
from strategies import o200k_text, paired_surrogates, tricky_text, valid_text

from bpe_course import GPT4O_PATTERN
from bpe_course import Tokenizer, TokenizerFileError, corpus
from bpe_course.fast.count import count_ordinary_text
from bpe_course.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, TEKKEN_PATTERN, pretokenize, resolve_pattern, safe_cut,
                                   split_specials)
from bpe_course.unicode_classes import exact_pattern, fast_splitter, unicode_disagreements


# The pattern as first published with GPT-2 (2019), before tiktoken's possessive rewrite.
ORIGINAL_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


@settings(max_examples=1000, deadline=None)
@given(valid_text)
def test_gpt2_pattern_equals_the_original(text):
    assert pretokenize(text, GPT2_PATTERN) == regex.findall(ORIGINAL_GPT2, text) or \
        not unicode_disagreements().isdisjoint(text)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(tricky_text, valid_text).map(lambda s: s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")),
       st.sampled_from([GPT2_PATTERN, GPT4_PATTERN]), st.integers(0, 60))
def test_safe_cut_never_changes_pretokens(text, pattern, limit):
    specials = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]
    cut = safe_cut(text, pattern, specials, limit=limit)
    assert 0 <= cut <= max(limit, 0)
    if cut:
        whole = [x for p, s in split_specials(text, specials) for x in ([p] if s else pretokenize(p, pattern))]
        halves = [x for part in (text[:cut], text[cut:]) for p, s in split_specials(part, specials)
                  for x in ([p] if s else pretokenize(p, pattern))]
        assert halves == whole


def test_safe_cut_examples():
    assert safe_cut("one two three", GPT2_PATTERN) == 7
    assert safe_cut("one  two", GPT2_PATTERN) == 0          # a run of spaces: the last one joins "two"
    assert safe_cut("a<|e|>bcdefgh", GPT2_PATTERN, ["<|e|>"]) == 6  # the end of a special token
    assert safe_cut("a<|e|>bc", GPT2_PATTERN, ["<|e|>"]) == 0  # too near the end: "<|e|>" might follow
    assert safe_cut("one two", None) == 0                   # without a regex, only specials are safe


def test_gpt4_pattern_features():
    assert pretokenize("I'M 1234567 ok\n\n  x", GPT4_PATTERN) == ["I", "'M", " ", "123", "456", "7", " ok", "\n\n", " ", " x"]
    assert pretokenize("I'M 1234567", GPT2_PATTERN) == ["I", "'", "M", " 1234567"]


def test_split_specials_longest_first():
    assert split_specials("x<|a|><|a|>y", ["<|a|>", "<|a|><|a|>"]) == [("x", False), ("<|a|><|a|>", True), ("y", False)]
    assert split_specials("", ["<|a|>"]) == []


def test_pattern_errors():
    with pytest.raises(ValueError, match="does not compile"):
        resolve_pattern("(unclosed")
    with pytest.raises(TypeError):
        resolve_pattern(42)


# ---- the shortcuts training and streaming take must hold for o200k's pattern too ---------------
@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text).map(paired_surrogates), st.integers(0, 60))
def test_safe_cut_never_changes_gpt4o_pretokens(text, limit):
    specials = ["<|endoftext|>"]
    cut = safe_cut(text, GPT4O_PATTERN, specials, limit=limit)
    if cut:
        def pieces(part):
            return [x for p, is_special in split_specials(part, specials)
                    for x in ([p] if is_special else pretokenize(p, GPT4O_PATTERN))]
        assert pieces(text[:cut]) + pieces(text[cut:]) == pieces(text)


# ---- Tekken's pattern runs on the package's own splitter, by tiktoken's tables, as mistral-common's tiktoken does ----
@settings(max_examples=300, deadline=None)
@given(tricky_text)
def test_the_fast_splitter_equals_tiktokens_tables(text):
    assert pretokenize(text, TEKKEN_PATTERN) == exact_pattern(TEKKEN_PATTERN).findall(text)


@pytest.mark.parametrize("below", [0x100, 0x10000])
def test_both_forms_of_the_fast_splitter_on_every_character(below):
    chars = "".join(chr(c) for c in range(below) if not 0xD800 <= c < 0xE000)
    text = "".join(f"x'{ch}s a{ch}B {ch}1{ch}\n  {ch}x" for ch in chars)
    assert fast_splitter(TEKKEN_PATTERN, below).findall(text) == exact_pattern(TEKKEN_PATTERN).findall(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(tricky_text, max_size=6).map(" ".join))
def test_segment_counting_equals_pretokenize(text):
    assert count_ordinary_text(text, TEKKEN_PATTERN) == Counter(pretokenize(text, TEKKEN_PATTERN))


@settings(max_examples=300, deadline=None)
@given(tricky_text, st.integers(0, 60))
def test_safe_cut_never_changes_tekken_pretokens(text, limit):
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    specials = ["</s>"]
    cut = safe_cut(text, TEKKEN_PATTERN, specials, limit=limit)
    if cut:
        def pieces(part):
            return [x for p, is_special in split_specials(part, specials)
                    for x in ([p] if is_special else pretokenize(p, TEKKEN_PATTERN))]
        assert pieces(text[:cut]) + pieces(text[cut:]) == pieces(text)


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


pretokenize_module = importlib.import_module("bpe_course.pretokenize")  # the package's name is a function


# ---- a regex budget for the whole call ---------------------------------------------------------------
def file_with_pattern(tmp_path, pattern: str):
    vocab = {i: bytes([i]) for i in range(256)}
    Tokenizer(vocab, [], pattern=r" ?\w+|\s+").save(tmp_path / "tokenizer.json", format="hf")
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = pattern
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return Tokenizer.load(tmp_path / "tokenizer.json")


@pytest.mark.parametrize("pattern, text", [
    (r"\w+(?=\t)|.", "a" * 20_000),  # quadratic: each match rescans the rest of the word, each is quick
    (r"(?:a|a){1,14}b|.", "a" * 3_000),  # 2**14 ways at every a: each match quick, the whole text not
])
def test_a_pattern_whose_every_match_is_quick_is_stopped_by_the_budget_of_the_call(tmp_path, monkeypatch,
                                                                                      pattern, text):
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.2)  # budget: 0.4 s + 10 s per million characters
    tok = file_with_pattern(tmp_path, pattern)
    assert tok.decode(tok.encode("ab cab\txy")) == "ab cab\txy"
    with pytest.raises(TokenizerFileError, match=rf"tokenizer\.json: pre-tokenization pattern .* ran for more than "
                                                 rf"0\.[0-9]+ s of CPU time on {len(text):,} characters \(its budget"):
        tok.encode(text)  # without a budget for the call: minutes (50 s for the first at 20,000, 4x per doubling)


def test_the_budget_grows_with_the_text_so_a_sane_pattern_is_never_stopped(monkeypatch):
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.01)  # budget: 0.02 s + 10 s per million characters
    text = corpus.load("python_docs")[:400_000] * 3
    pattern = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # GPT-2's, no possessives
    pieces = pretokenize_module.pretokenize(text, pattern)
    assert "".join(pieces) == text and len(pieces) > 200_000
    assert pretokenize_module.pattern_budget(len(text)) == 0.02 + 10 * len(text) / 1e6


# ---- Tekken against mistral-common ---------------------------------------------------------------------
@lru_cache(maxsize=1)
def tekkenizers():
    tekken_module = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    from bpe_course.pretrained import named_file, tekken
    return tekken(), tekken_module.Tekkenizer.from_file(str(named_file("tekken")))


@lru_cache(maxsize=1)
def newer_characters() -> list[str]:
    from bpe_course.unicode_classes import unicode_disagreements
    return sorted(unicode_disagreements())


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_tekken_equals_mistral_common_on_strings_with_characters_newer_than_tiktokens_tables(data):
    ours, theirs = tekkenizers()
    common = st.sampled_from(list("aZé ß.,!?'\n\t 12/") + ["ʕ", "中", "ǅ", "\u0301", "  ", "\U0001F642"])
    text = "".join(data.draw(st.lists(st.one_of(st.sampled_from(newer_characters()), common, st.characters()),
                                      max_size=14)))
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert ours.encode_ordinary(text) == theirs.encode(text, bos=False, eos=False)


def test_tekken_streams_exactly():
    ours, _ = tekkenizers()
    rng = random.Random(3)
    pieces = ["Hello", " world", "  ", "\n", "12345", "ǅx", "<s>", " /", "中文", "\U0002CEA2", ".", "'s"]
    text = "".join(rng.choice(pieces) for _ in range(40_000))
    lines = text.splitlines(keepends=True)
    assert list(ours.encode_iterable(lines, disallowed_special=())) == ours.encode(text, disallowed_special=())
