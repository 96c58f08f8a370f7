"""o200k() (GPT-4o) against tiktoken's o200k_base, built offline from the very same file.

The oracle (conftest.tiktoken_o200k) takes its pattern, special tokens and expected hash from
tiktoken's own tiktoken_ext/openai_public.py, not from bpe_course.
"""

from __future__ import annotations

import gzip
import sys
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tiktoken_ext import openai_public

from bpe_course import GPT4O_PATTERN, HashMismatchError, Tokenizer, TokenizerFileError, corpus, o200k
from bpe_course.fast.count import count_ordinary_text
from bpe_course.formats.tiktoken_bpe import check_ids_are_ranks, tiktoken_file_bytes
from bpe_course.pretokenize import pretokenize, resolve_pattern, safe_cut, split_specials
from bpe_course.unicode_classes import TABLE_OF_CLASS, exact_pattern, unicode_disagreements
from bpe_course.pretrained import NAMED, named_file

O200K_SHA256 = NAMED["o200k"].files[0].sha256
O200K_SPECIALS = dict(NAMED["o200k"].special_tokens)
from bpe_course.files import sha256_file
from strategies import TRICKY_PIECES, any_char, text_with_surrogates, tricky_text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import make_unicode_tables  # noqa: E402  (the generator of bpe_course/unicode_tables.py)

PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GZ = named_file("o200k")

# Characters that each pattern alternative and class of o200k cares about: upper/lower/title case,
# modifier and other letters, combining marks, digits of several scripts, "/" and newlines,
# contractions in any case, CJK, emoji sequences.
O200K_PIECES = TRICKY_PIECES + [
    "HelloWorld", "XMLHttpRequest", "iPhone", "ǅungla", "ǈ", "ʰ", "ˈ", "々", "ー", "a\u0301", "\u0301",
    "\u0915\u094d\u0937", "\u0e01\u0e34", "'S", "'Re", "'LL", "'d", "I'M", "'ſ", "/", "//", "a/b", "!/\n",
    "1/2", "١٢٣٤", "𝟘𝟙𝟚𝟛", "2024-03-16", "東京タワー", "ｶﾀｶﾅ", "😀", "👍🏽", "🏳️‍🌈", "\u0295", "ʕ•ᴥ•ʔ",
]
o200k_text = st.lists(st.one_of(st.sampled_from(O200K_PIECES), st.text(any_char, max_size=4)),
                      max_size=24).map("".join)


def paired_surrogates(text: str) -> str:
    """``text`` as valid UTF-8 can hold it: lone surrogates become U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# Characters on which the `regex` module and tiktoken's Rust regex disagree, among ordinary ones.
disagreeing_text = st.lists(st.one_of(st.sampled_from(sorted(unicode_disagreements())),
                                      st.sampled_from(O200K_PIECES)), max_size=12).map("".join)


def test_pattern_and_specials_are_tiktokens(o200k_tok, tiktoken_o200k):
    assert resolve_pattern("gpt4o") == GPT4O_PATTERN == tiktoken_o200k._pat_str
    assert o200k_tok.pattern == GPT4O_PATTERN
    assert o200k_tok.special_tokens == O200K_SPECIALS == tiktoken_o200k._special_tokens
    assert len(o200k_tok.vocab) == tiktoken_o200k.n_vocab - 19  # ids 199998 and 200000-200017 are unused
    assert o200k_tok.n_vocab == tiktoken_o200k.n_vocab
    assert max(o200k_tok.vocab) + 1 == tiktoken_o200k.n_vocab


def test_every_token_has_tiktokens_id(o200k_tok, tiktoken_o200k):
    ordinary = {i: t for i, t in o200k_tok.vocab.items() if i not in O200K_SPECIALS.values()}
    assert ordinary == {i: tiktoken_o200k.decode_single_token_bytes(i) for i in ordinary}
    assert {s: tiktoken_o200k.encode_single_token(s) for s in O200K_SPECIALS} == O200K_SPECIALS


def test_merges_recovered_from_ranks(o200k_tok):
    """Rank r > 255 is made by merge r - 256, from two tokens of lower rank."""
    assert len(o200k_tok.merges) == len(o200k_tok.vocab) - 256 - len(O200K_SPECIALS)
    id_of = {t: i for i, t in o200k_tok.vocab.items()}
    for k, (a, b) in enumerate(o200k_tok.merges):
        assert o200k_tok.vocab[256 + k] == a + b and id_of[a] < 256 + k and id_of[b] < 256 + k


def test_written_back_it_is_the_original_file(o200k_tok):
    """Ids are ranks and the recovered merges are in rank order: the .tiktoken text comes back byte for byte."""
    assert tiktoken_file_bytes(check_ids_are_ranks(o200k_tok)) == gzip.decompress(GZ.read_bytes())


@PROPERTY
@given(st.one_of(text_with_surrogates, o200k_text))
def test_equals_tiktoken_on_any_str(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


@PROPERTY
@given(disagreeing_text)
def test_equals_tiktoken_where_unicode_versions_differ(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tricky_text, o200k_text), st.sampled_from(["all", set(), {"<|endoftext|>"}]))
def test_specials_like_tiktoken(o200k_tok, tiktoken_o200k, text, allowed):
    assert o200k_tok.encode(text, allowed_special=allowed, disallowed_special=()) == \
        tiktoken_o200k.encode(text, allowed_special=allowed, disallowed_special=())


@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text))
def test_decode_round_trip(o200k_tok, text):
    text = paired_surrogates(text)
    assert o200k_tok.decode(o200k_tok.encode_ordinary(text)) == text


def test_case_aware_words_and_digit_groups(o200k_tok, tiktoken_o200k):
    text = "HelloWorld XMLHttpRequest don't WON'T 1234567 a/b\n\n"
    assert pretokenize(text, GPT4O_PATTERN) == ["Hello", "World", " XMLHttp", "Request", " don't", " WON'T", " ",
                                                "123", "456", "7", " a", "/b", "\n\n"]
    assert o200k_tok.encode(text) == tiktoken_o200k.encode(text)


@pytest.mark.parametrize("name", corpus.names())
def test_course_corpora_equal_tiktoken(o200k_tok, tiktoken_o200k, name):
    text = corpus.load(name)
    assert o200k_tok.encode(text, allowed_special="all") == tiktoken_o200k.encode(text, allowed_special="all")


@pytest.mark.parametrize("text", ["a" * 100_000, "🙃" * 10_000, " " * 20_000 + "x", "1" * 20_000,
                                  "\n" * 20_000, "Ab" * 30_000, "/" * 20_000, "\u0301" * 20_000])
def test_long_pieces_equal_tiktoken(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


# ---- the pattern's Unicode classes ------------------------------------------------------------
def test_tables_are_what_the_installed_tiktoken_says():
    """bpe_course/unicode_tables.py still matches tiktoken: regenerate it after upgrading tiktoken."""
    from bpe_course import unicode_tables
    for escape, name in TABLE_OF_CLASS.items():
        assert make_unicode_tables.CLASSES[name] == escape
        assert make_unicode_tables.as_ranges(make_unicode_tables.tiktoken_class(escape)).split() == \
            getattr(unicode_tables, name).split(), name


def test_a_category_change_is_split_as_tiktoken(o200k_tok, tiktoken_o200k):
    """U+0295 is a lower-case letter to tiktoken but an other letter (Lo) to newer Unicode."""
    assert "\u0295" in unicode_disagreements()
    for text in ["A\u0295", "AB\u0295c", "\u0295\u0295A", "x\u0295Y"]:
        assert o200k_tok.encode(text) == tiktoken_o200k.encode(text)
        assert pretokenize(text, GPT4O_PATTERN) == exact_pattern(GPT4O_PATTERN).findall(text)


def test_every_disagreeing_character_is_split_as_tiktoken(o200k_tok, tiktoken_o200k):
    """Each character whose class differs (a letter's case, a mark unknown to tiktoken ...) on its own.

    subtle: one at a time, since a text with one disagreeing character is split exactly as a whole.
    A mark tiktoken does not know yet is punctuation to it: "\u1acf's" is then "\u1acf'" + "s".
    """
    for ch in sorted(unicode_disagreements()):
        for text in (f"{ch}'s", f"x{ch}Y", f"A{ch}b"):
            assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text), ascii(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text))
def test_fast_pattern_equals_tiktoken_tables_on_ordinary_text(text):
    assert pretokenize(text, GPT4O_PATTERN) == exact_pattern(GPT4O_PATTERN).findall(text)


# ---- the shortcuts training and streaming take must hold for o200k's pattern too ---------------
@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text).map(paired_surrogates), st.integers(0, 60))
def test_safe_cut_never_changes_pretokens(text, limit):
    specials = ["<|endoftext|>"]
    cut = safe_cut(text, GPT4O_PATTERN, specials, limit=limit)
    if cut:
        def pieces(part):
            return [x for p, is_special in split_specials(part, specials)
                    for x in ([p] if is_special else pretokenize(p, GPT4O_PATTERN))]
        assert pieces(text[:cut]) + pieces(text[cut:]) == pieces(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(tricky_text, o200k_text), max_size=6).map(" ".join))
def test_segment_counting_equals_pretokenize(text):
    assert count_ordinary_text(text, GPT4O_PATTERN) == Counter(pretokenize(text, GPT4O_PATTERN))


def test_encode_iterable_equals_encode(o200k_tok):
    text = corpus.load("languages") + corpus.load("numbers")
    lines = text.splitlines(keepends=True)
    assert list(o200k_tok.encode_iterable(lines)) == o200k_tok.encode(text)


# ---- the file ----------------------------------------------------------------------------------
def test_packaged_file_has_tiktokens_hash(tmp_path):
    expected = []
    def record(url: str, expected_hash: str) -> dict:
        expected.append(expected_hash)
        return {}

    with mock.patch.object(openai_public, "load_tiktoken_bpe", record):
        openai_public.o200k_base()
    plain = tmp_path / "o200k_base.tiktoken"
    plain.write_bytes(gzip.decompress(GZ.read_bytes()))
    assert sha256_file(plain) == O200K_SHA256 == expected[0]


def test_plain_file_loads_the_same(o200k_tok, tmp_path):
    plain = tmp_path / "o200k_base.tiktoken"
    plain.write_bytes(gzip.decompress(GZ.read_bytes()))
    tok = o200k(plain)
    assert (tok.vocab, tok.merges, tok.special_tokens) == (o200k_tok.vocab, o200k_tok.merges, o200k_tok.special_tokens)


def test_hash_mismatch_names_the_file(tmp_path):
    bad = tmp_path / "o200k_base.tiktoken.gz"
    text = gzip.decompress(GZ.read_bytes())
    bad.write_bytes(gzip.compress(text.replace(b" 1000\n", b" 1001\n", 1)))
    with pytest.raises(HashMismatchError, match=r"o200k_base\.tiktoken\.gz: sha256 is [0-9a-f]{64}, expected 446a95"):
        o200k(bad)


def test_damaged_gzip_is_named(tmp_path):
    bad = tmp_path / "o200k_base.tiktoken.gz"
    bad.write_bytes(GZ.read_bytes()[:100_000])
    with pytest.raises(TokenizerFileError, match=r"o200k_base\.tiktoken\.gz: a damaged gzip file"):
        o200k(bad)
    with pytest.raises(FileNotFoundError):
        o200k(tmp_path / "nope.tiktoken.gz")


def test_a_tokenizer_like_any_other(o200k_tok):
    assert "pattern='gpt4o'" in repr(o200k_tok)
    rebuilt = Tokenizer(o200k_tok.vocab, o200k_tok.merges, o200k_tok.special_tokens, "gpt4o")
    assert rebuilt.encode("GPT-4o's tokenizer, rebuilt") == o200k_tok.encode("GPT-4o's tokenizer, rebuilt")
