"""Every named tokenizer loaded through bpe_course.pretrained, against its vendor's own library built
offline from the very same files: gpt2() and cl100k() and o200k() against tiktoken (its o200k oracle,
conftest.tiktoken_o200k, takes pattern, specials and expected hash from tiktoken_ext/openai_public.py,
not from bpe_course), tekken() against mistral-common's Tekkenizer; the hash checks and the start-up cache."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from functools import lru_cache
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tiktoken_ext import openai_public

from strategies import (O200K_PIECES, TRICKY_PIECES, o200k_text, paired_surrogates, text_with_surrogates, tricky_text,
                        valid_text)

from bpe_course import GPT4O_PATTERN, Tokenizer, cl100k, corpus, gpt2, o200k, pretrained, pretrained_cache
from bpe_course.bpe import merges_from_ranks
from bpe_course.errors import HashMismatchError, TokenizerFileError
from bpe_course.files import sha256_file, sha256_file as sha256_of
from bpe_course.formats import read_tekken
from bpe_course.formats.tiktoken_bpe import check_ids_are_ranks, tiktoken_file_bytes
from bpe_course.pretokenize import TEKKEN_PATTERN, pretokenize, resolve_pattern
from bpe_course.pretrained import NAMED, named_file, tekken
from bpe_course.unicode_classes import exact_pattern, unicode_disagreements


GPT2_SHA256 = {f.name: f.sha256 for f in NAMED["gpt2"].files}


PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_classic_sentence(gpt2_tok, tiktoken_gpt2):
    assert gpt2_tok.encode("This is a text sample.") == [1212, 318, 257, 2420, 6291, 13]
    assert tiktoken_gpt2.encode("This is a text sample.") == [1212, 318, 257, 2420, 6291, 13]


def test_cl100k_known_ids(cl100k_tok):
    assert cl100k_tok.encode("hello world 🙃") == [15339, 1917, 11410, 247, 225]
    assert len(cl100k_tok.vocab) == 100_256 + 5  # 100,256 ranks + 5 specials (ids to 100276 with a gap)
    assert cl100k_tok.n_vocab == 100_277


def test_packaged_files_have_tiktokens_hashes():
    for name, expected in GPT2_SHA256.items():
        assert sha256_of(named_file("gpt2", name)) == expected
    assert sha256_of(named_file("cl100k")) == NAMED["cl100k"].files[0].sha256


@PROPERTY
@given(text_with_surrogates)
def test_gpt2_equals_tiktoken_on_any_str(gpt2_tok, tiktoken_gpt2, text):
    assert gpt2_tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


@PROPERTY
@given(text_with_surrogates)
def test_cl100k_equals_tiktoken_on_any_str(cl100k_tok, tiktoken_cl100k, text):
    assert cl100k_tok.encode_ordinary(text) == tiktoken_cl100k.encode_ordinary(text)


@PROPERTY
@given(tricky_text)
def test_specials_allowed_like_tiktoken(gpt2_tok, tiktoken_gpt2, cl100k_tok, tiktoken_cl100k, text):
    assert gpt2_tok.encode(text, allowed_special="all") == tiktoken_gpt2.encode(text, allowed_special="all")
    assert cl100k_tok.encode(text, allowed_special="all") == tiktoken_cl100k.encode(text, allowed_special="all")


@PROPERTY
@given(valid_text)
def test_gpt2_round_trip(gpt2_tok, text):
    assert gpt2_tok.decode(gpt2_tok.encode_ordinary(text)) == text


def test_long_documents_equal_tiktoken(gpt2_tok, tiktoken_gpt2, cl100k_tok, tiktoken_cl100k, docs_text):
    assert gpt2_tok.encode_ordinary(docs_text) == tiktoken_gpt2.encode_ordinary(docs_text)
    assert cl100k_tok.encode_ordinary(docs_text) == tiktoken_cl100k.encode_ordinary(docs_text)


@pytest.mark.parametrize("text", ["a" * 200_000, "🙃" * 20_000, " " * 50_000 + "x", "1" * 30_000, "\n" * 30_000,
                                  "ab" * 50_000])
def test_long_pieces_equal_tiktoken(gpt2_tok, tiktoken_gpt2, cl100k_tok, tiktoken_cl100k, text):
    assert gpt2_tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
    assert cl100k_tok.encode_ordinary(text) == tiktoken_cl100k.encode_ordinary(text)


def test_gpt2_merges_are_recoverable_from_ranks(gpt2_tok):
    """GPT-2's id for a token is its rank, and BPE over the ranks recovers vocab.bpe exactly."""
    ranks = {token: i for i, token in gpt2_tok.vocab.items() if i not in gpt2_tok.special_tokens.values()}
    assert merges_from_ranks(ranks) == gpt2_tok.merges
    assert all(gpt2_tok.vocab[256 + k] == a + b for k, (a, b) in enumerate(gpt2_tok.merges))


def test_gpt2_hash_mismatch_names_the_file(tmp_path):
    encoder = tmp_path / "encoder.json"
    shutil.copy(named_file("gpt2", "encoder.json"), encoder)
    encoder.write_bytes(encoder.read_bytes().replace(b'"!": 0', b'"!": 9', 1))
    with pytest.raises(HashMismatchError, match=r"encoder\.json: sha256 is [0-9a-f]{64}, expected 196139"):
        gpt2(encoder_json=encoder)


def test_cl100k_hash_mismatch_names_the_file(tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(named_file("cl100k").read_bytes()[:-10])
    with pytest.raises(HashMismatchError, match="cl100k_base.tiktoken: sha256 is"):
        cl100k(bad)


def test_truncated_gpt2_files_name_the_line(tmp_path):
    encoder, merges = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    shutil.copy(named_file("gpt2", "encoder.json"), encoder)
    lines = named_file("gpt2", "vocab.bpe").read_text(encoding="utf-8").split("\n")
    merges.write_text("\n".join(lines[:100] + ["Ġt"] + lines[101:]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"vocab\.bpe, line 101: expected two tokens"):
        gpt2(encoder_json=encoder, vocab_bpe=merges, verify=False)
    encoder.write_text(encoder.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(ValueError, match=r"encoder\.json: not valid JSON at line 1"):
        gpt2(encoder_json=encoder, vocab_bpe=named_file("gpt2", "vocab.bpe"), verify=False)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError):
        cl100k(tmp_path / "nope.tiktoken")


# ---- the start-up cache -------------------------------------------------------------------------
def same_tokenizer(a, b) -> bool:
    return (a.vocab, a.merges, a.special_tokens, a.pattern) == (b.vocab, b.merges, b.special_tokens, b.pattern)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """An empty cache for this test only (the loaders' in-process memo is keyed by the directory)."""
    monkeypatch.setenv("BPE_COURSE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pretrained"


@pytest.fixture
def builds(monkeypatch, gpt2_tok, cl100k_tok, o200k_tok) -> list[str]:
    """Records every build from the source files (what the cache saves)."""
    for tok in (gpt2_tok, cl100k_tok, o200k_tok):
        assert tok.merges  # subtle: the session's tokenizers recover theirs when first asked: not one of these builds
    calls = []
    real = dict(pretrained.READERS)
    for reader in real:
        monkeypatch.setitem(pretrained.READERS, reader, lambda n, paths, texts, reader=reader: calls.append(
            "gpt2" if reader == "gpt2" else paths[0].name) or real[reader](n, paths, texts))
    # a rank file known by its sha256 is read as tiktoken reads it: its build is the recovery of its merges
    recover = pretrained._recover_merges
    monkeypatch.setattr(pretrained, "_recover_merges", lambda name, *a: calls.append(
        Path(NAMED[name].files[0].path).name) or recover(name, *a))
    return calls


def forget_loaded():
    pretrained._load.cache_clear()


def test_cache_is_written_once_then_read(cache_dir, builds, gpt2_tok, cl100k_tok):
    assert same_tokenizer(gpt2(), gpt2(cache=False)) and same_tokenizer(gpt2(), gpt2_tok)
    assert same_tokenizer(cl100k(), cl100k_tok)
    assert sorted(p.name.split("-")[0] for p in cache_dir.iterdir()) == ["cl100k", "gpt2"]
    assert builds == ["gpt2", "gpt2", "cl100k_base.tiktoken"]  # the uncached build reads the files too
    forget_loaded()
    assert same_tokenizer(gpt2(), gpt2_tok) and same_tokenizer(cl100k(), cl100k_tok)
    assert len(builds) == 3  # both from the cache


@pytest.mark.parametrize("load, file", [(cl100k, "cl100k_base.tiktoken"), (o200k, "o200k_base.tiktoken.gz")])
def test_a_known_rank_file_recovers_its_merges_when_first_asked_for(cache_dir, builds, load, file, cl100k_tok,
                                                                     o200k_tok):
    """First use ever: the ranks only, as tiktoken; the merges (seconds of BPE) when asked for, then cached."""
    built = cl100k_tok if load is cl100k else o200k_tok
    tok = load()
    assert builds == [] and not cache_dir.exists()
    assert tok.encode("Hello world, naïve café 🙃", allowed_special="all") == \
        built.encode("Hello world, naïve café 🙃", allowed_special="all")
    assert repr(tok) == repr(built) and builds == []  # the count of merges is known without them
    assert tok.merges == built.merges == merges_from_ranks({t: i for t, i in built._id_of.items()})
    assert builds == [file] and len(list(cache_dir.iterdir())) == 1
    assert tok.merges is tok.merges and builds == [file]  # made once
    forget_loaded()
    assert load().merges == built.merges and builds == [file]  # from the cache


def test_an_unverified_rank_file_is_checked_at_once(tmp_path, cache_dir, builds, cl100k_tok):
    """A file that is not the one tiktoken checks (verify=False) gets its merges, and every check, when loaded."""
    copy = tmp_path / "cl100k_base.tiktoken"
    shutil.copy(named_file("cl100k"), copy)
    assert same_tokenizer(cl100k(copy, verify=False), cl100k_tok)
    assert builds == ["cl100k_base.tiktoken"]


@pytest.mark.parametrize("damage", ["flip a payload byte", "flip a header byte", "truncate", "empty", "garbage",
                                    "other version", "a directory"])
def test_damaged_or_stale_cache_is_rebuilt(cache_dir, builds, gpt2_tok, damage, monkeypatch):
    gpt2()
    [path] = cache_dir.iterdir()
    data = path.read_bytes()
    if damage == "flip a payload byte":
        path.write_bytes(data[:-1000] + bytes([data[-1000] ^ 1]) + data[-999:])
    elif damage == "flip a header byte":
        k = data.index(b'"tokens": ') + 10
        path.write_bytes(data[:k] + bytes([data[k] ^ 1]) + data[k + 1:])
    elif damage == "truncate":
        path.write_bytes(data[:len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(b"\x00" * 70 + data[70:])
    elif damage == "other version":
        monkeypatch.setattr(pretrained_cache, "VERSION", pretrained_cache.VERSION + 1)
    else:
        path.unlink()
        path.mkdir()
    forget_loaded()
    assert same_tokenizer(gpt2(), gpt2_tok)
    assert builds == ["gpt2", "gpt2"]  # detected and rebuilt
    if damage != "a directory":  # ... and the rebuilt file is intact again
        sources = {name: sha256_of(named_file("gpt2", name)) for name in GPT2_SHA256}
        vocab, merges, specials, pattern = pretrained_cache.unpack(path.read_bytes(), "gpt2", sources)
        assert (vocab, merges, specials, pattern) == (gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens, "gpt2")


def test_cache_made_from_other_files_is_not_used(tmp_path, cache_dir, builds, gpt2_tok):
    encoder = tmp_path / "encoder.json"
    encoder.write_bytes(named_file("gpt2", "encoder.json").read_bytes() + b"\n")  # same JSON
    gpt2()
    assert same_tokenizer(gpt2(encoder_json=encoder, verify=False), gpt2_tok)
    assert builds == ["gpt2", "gpt2"] and len(list(cache_dir.iterdir())) == 2  # keyed by the sources' sha256
    [path] = [p for p in cache_dir.iterdir() if p != pretrained.cache_file(cache_dir, "gpt2", {
        name: sha256_of(named_file("gpt2", name)) for name in GPT2_SHA256})]
    with pytest.raises(pretrained_cache.CacheMismatch, match="made for another sources"):
        pretrained_cache.unpack(path.read_bytes(), "gpt2", {n: sha256_of(named_file("gpt2", n))
                                                             for n in GPT2_SHA256})


def test_no_writable_cache_directory_is_only_slower(tmp_path, monkeypatch, builds, gpt2_tok):
    blocker = tmp_path / "a file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("BPE_COURSE_CACHE", str(blocker))
    assert same_tokenizer(gpt2(), gpt2_tok)
    assert builds == ["gpt2"] and blocker.read_text() == "not a directory"


def test_cache_false_neither_reads_nor_writes(cache_dir, builds, cl100k_tok):
    assert same_tokenizer(cl100k(cache=False), cl100k_tok)
    assert builds == ["cl100k_base.tiktoken"] and not cache_dir.exists()


def test_o200k_cached_equals_uncached(o200k_tok):
    assert same_tokenizer(o200k(cache=False), o200k_tok)


def test_the_named_tokenizers_from_their_cache_files_encode_as_built(cache_dir, gpt2_tok, cl100k_tok, o200k_tok):
    """Built from the files (checked) and written, then read back from the cache without the checks."""
    text = "Hello world, it's 2024 -- naïve café 日本語 🙃\n\n  x"
    for load, built in ((gpt2, gpt2_tok), (cl100k, cl100k_tok), (o200k, o200k_tok)):
        load()
        forget_loaded()
        loaded = load()
        assert same_tokenizer(loaded, built) and loaded.ranks_by_id and built.ranks_by_id
        assert loaded.encode(text, allowed_special="all") == built.encode(text, allowed_special="all")


O200K_SHA256 = NAMED["o200k"].files[0].sha256

O200K_SPECIALS = dict(NAMED["o200k"].special_tokens)


PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

GZ = named_file("o200k")


# Characters on which the `regex` module and tiktoken's Rust regex disagree, among ordinary ones.
disagreeing_text = st.lists(st.one_of(st.sampled_from(sorted(unicode_disagreements())),
                                      st.sampled_from(O200K_PIECES)), max_size=12).map("".join)


def test_o200k_pattern_and_specials_are_tiktokens(o200k_tok, tiktoken_o200k):
    assert resolve_pattern("gpt4o") == GPT4O_PATTERN == tiktoken_o200k._pat_str
    assert o200k_tok.pattern == GPT4O_PATTERN
    assert o200k_tok.special_tokens == O200K_SPECIALS == tiktoken_o200k._special_tokens
    assert len(o200k_tok.vocab) == tiktoken_o200k.n_vocab - 19  # ids 199998 and 200000-200017 are unused
    assert o200k_tok.n_vocab == tiktoken_o200k.n_vocab
    assert max(o200k_tok.vocab) + 1 == tiktoken_o200k.n_vocab


def test_o200k_every_token_has_tiktokens_id(o200k_tok, tiktoken_o200k):
    ordinary = {i: t for i, t in o200k_tok.vocab.items() if i not in O200K_SPECIALS.values()}
    assert ordinary == {i: tiktoken_o200k.decode_single_token_bytes(i) for i in ordinary}
    assert {s: tiktoken_o200k.encode_single_token(s) for s in O200K_SPECIALS} == O200K_SPECIALS


def test_o200k_merges_recovered_from_ranks(o200k_tok):
    """Rank r > 255 is made by merge r - 256, from two tokens of lower rank."""
    assert len(o200k_tok.merges) == len(o200k_tok.vocab) - 256 - len(O200K_SPECIALS)
    id_of = {t: i for i, t in o200k_tok.vocab.items()}
    for k, (a, b) in enumerate(o200k_tok.merges):
        assert o200k_tok.vocab[256 + k] == a + b and id_of[a] < 256 + k and id_of[b] < 256 + k


def test_o200k_written_back_it_is_the_original_file(o200k_tok):
    """Ids are ranks and the recovered merges are in rank order: the .tiktoken text comes back byte for byte."""
    assert tiktoken_file_bytes(check_ids_are_ranks(o200k_tok)) == gzip.decompress(GZ.read_bytes())


@PROPERTY
@given(st.one_of(text_with_surrogates, o200k_text))
def test_o200k_equals_tiktoken_on_any_str(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


@PROPERTY
@given(disagreeing_text)
def test_o200k_equals_tiktoken_where_unicode_versions_differ(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tricky_text, o200k_text), st.sampled_from(["all", set(), {"<|endoftext|>"}]))
def test_o200k_specials_like_tiktoken(o200k_tok, tiktoken_o200k, text, allowed):
    assert o200k_tok.encode(text, allowed_special=allowed, disallowed_special=()) == \
        tiktoken_o200k.encode(text, allowed_special=allowed, disallowed_special=())


@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text))
def test_o200k_decode_round_trip(o200k_tok, text):
    text = paired_surrogates(text)
    assert o200k_tok.decode(o200k_tok.encode_ordinary(text)) == text


def test_o200k_case_aware_words_and_digit_groups(o200k_tok, tiktoken_o200k):
    text = "HelloWorld XMLHttpRequest don't WON'T 1234567 a/b\n\n"
    assert pretokenize(text, GPT4O_PATTERN) == ["Hello", "World", " XMLHttp", "Request", " don't", " WON'T", " ",
                                                "123", "456", "7", " a", "/b", "\n\n"]
    assert o200k_tok.encode(text) == tiktoken_o200k.encode(text)


@pytest.mark.parametrize("name", corpus.names())
def test_o200k_course_corpora_equal_tiktoken(o200k_tok, tiktoken_o200k, name):
    text = corpus.load(name)
    assert o200k_tok.encode(text, allowed_special="all") == tiktoken_o200k.encode(text, allowed_special="all")


@pytest.mark.parametrize("text", ["a" * 100_000, "🙃" * 10_000, " " * 20_000 + "x", "1" * 20_000,
                                  "\n" * 20_000, "Ab" * 30_000, "/" * 20_000, "\u0301" * 20_000])
def test_o200k_long_pieces_equal_tiktoken(o200k_tok, tiktoken_o200k, text):
    assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text)


def test_o200k_a_category_change_is_split_as_tiktoken(o200k_tok, tiktoken_o200k):
    """U+0295 is a lower-case letter to tiktoken but an other letter (Lo) to newer Unicode."""
    assert "\u0295" in unicode_disagreements()
    for text in ["A\u0295", "AB\u0295c", "\u0295\u0295A", "x\u0295Y"]:
        assert o200k_tok.encode(text) == tiktoken_o200k.encode(text)
        assert pretokenize(text, GPT4O_PATTERN) == exact_pattern(GPT4O_PATTERN).findall(text)


def test_o200k_every_disagreeing_character_is_split_as_tiktoken(o200k_tok, tiktoken_o200k):
    """Each character whose class differs (a letter's case, a mark unknown to tiktoken ...) on its own.

    subtle: one at a time, since a text with one disagreeing character is split exactly as a whole.
    A mark tiktoken does not know yet is punctuation to it: "\u1acf's" is then "\u1acf'" + "s".
    """
    for ch in sorted(unicode_disagreements()):
        for text in (f"{ch}'s", f"x{ch}Y", f"A{ch}b"):
            assert o200k_tok.encode_ordinary(text) == tiktoken_o200k.encode_ordinary(text), ascii(text)


def test_o200k_encode_iterable_equals_encode(o200k_tok):
    text = corpus.load("languages") + corpus.load("numbers")
    lines = text.splitlines(keepends=True)
    assert list(o200k_tok.encode_iterable(lines)) == o200k_tok.encode(text)


# ---- the file ----------------------------------------------------------------------------------
def test_o200k_packaged_file_has_tiktokens_hash(tmp_path):
    expected = []
    def record(url: str, expected_hash: str) -> dict:
        expected.append(expected_hash)
        return {}

    with mock.patch.object(openai_public, "load_tiktoken_bpe", record):
        openai_public.o200k_base()
    plain = tmp_path / "o200k_base.tiktoken"
    plain.write_bytes(gzip.decompress(GZ.read_bytes()))
    assert sha256_file(plain) == O200K_SHA256 == expected[0]


def test_o200k_plain_file_loads_the_same(o200k_tok, tmp_path):
    plain = tmp_path / "o200k_base.tiktoken"
    plain.write_bytes(gzip.decompress(GZ.read_bytes()))
    tok = o200k(plain)
    assert (tok.vocab, tok.merges, tok.special_tokens) == (o200k_tok.vocab, o200k_tok.merges, o200k_tok.special_tokens)


def test_o200k_hash_mismatch_names_the_file(tmp_path):
    bad = tmp_path / "o200k_base.tiktoken.gz"
    text = gzip.decompress(GZ.read_bytes())
    bad.write_bytes(gzip.compress(text.replace(b" 1000\n", b" 1001\n", 1)))
    with pytest.raises(HashMismatchError, match=r"o200k_base\.tiktoken\.gz: sha256 is [0-9a-f]{64}, expected 446a95"):
        o200k(bad)


def test_o200k_damaged_gzip_is_named(tmp_path):
    bad = tmp_path / "o200k_base.tiktoken.gz"
    bad.write_bytes(GZ.read_bytes()[:100_000])
    with pytest.raises(TokenizerFileError, match=r"o200k_base\.tiktoken\.gz: a damaged gzip file"):
        o200k(bad)
    with pytest.raises(FileNotFoundError):
        o200k(tmp_path / "nope.tiktoken.gz")


def test_o200k_a_tokenizer_like_any_other(o200k_tok):
    assert "pattern='gpt4o'" in repr(o200k_tok)
    rebuilt = Tokenizer(o200k_tok.vocab, o200k_tok.merges, o200k_tok.special_tokens, "gpt4o")
    assert rebuilt.encode("GPT-4o's tokenizer, rebuilt") == o200k_tok.encode("GPT-4o's tokenizer, rebuilt")


@lru_cache(maxsize=1)
def _library():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    return Tekkenizer.from_file(str(named_file("tekken")))


@pytest.fixture(scope="module")
def library():
    return _library()


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(valid_text, st.lists(st.sampled_from([*TRICKY_PIECES, "[INST]", "</s>", "<s>", "Ⅻ", "Ǆ"]),
                                            max_size=12).map("".join)))
def test_tekken_same_ids_as_mistral_common(text):
    assert tekken().encode_ordinary(text) == _library().encode(text, bos=False, eos=False)


@pytest.mark.parametrize("name", corpus.names())
def test_tekken_same_ids_on_the_course_corpora(library, name):
    text = corpus.load(name)
    assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False)


def test_tekken_udhr_same_ids(library):
    for language in corpus.UDHR_LANGUAGES:
        text = "\n".join(corpus.udhr(language).values())
        assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False), language


def test_tekken_data_model(library):
    tok = tekken()
    assert len(tok.vocab) == tok.n_vocab == library.n_words == 131_072
    assert len(tok.special_tokens) == library.num_special_tokens == 1_000
    assert {s: tok.special_tokens[s] for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")} == {
        s: library.get_special_token(s) for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")}
    assert len(tok.merges) == 131_072 - 1_000 - 256
    ranks, pattern, _ = read_tekken(named_file("tekken"))
    assert tok.merges == merges_from_ranks(ranks) and tok.pattern == pattern
    # every ordinary id holds the bytes mistral-common's inner tiktoken Encoding gives it
    assert all(tok.vocab[i] == library._model.decode_single_token_bytes(i - 1_000) for i in range(1_000, 131_072))


def test_the_files_pattern_is_the_known_one():
    """Only this exact pattern string takes the fast splitter and the shortcuts of counting and streaming."""
    assert read_tekken(named_file("tekken"))[1] == TEKKEN_PATTERN == tekken().pattern


def test_every_disagreeing_character_is_split_as_mistral_common(library):
    """Characters whose class the regex module's Unicode and tiktoken's tables disagree on, in context."""
    texts = [f"{ch}'s x{ch}Y A{ch}b {ch}1" for ch in sorted(unicode_disagreements())]
    for start in range(0, len(texts), 200):
        text = "\n".join(texts[start:start + 200])
        assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False)


def test_tekken_as_built_lazily_equals_tekken_built_with_every_check(library):
    """tekken() reads the ranks only (its merges when asked for); unverified, the same file is built and checked."""
    lazy, checked = tekken(), tekken(verify=False, cache=False)
    assert lazy is not checked and repr(lazy) == repr(checked)
    text = corpus.load("languages")[:20_000]
    assert lazy.encode_ordinary(text) == checked.encode_ordinary(text) == library.encode(text, bos=False, eos=False)
    assert (lazy.vocab, lazy.special_tokens, lazy.pattern, lazy.ranks_by_id) == \
        (checked.vocab, checked.special_tokens, checked.pattern, checked.ranks_by_id)
    assert lazy._id_of == checked._id_of and lazy.merges == checked.merges


def test_tekken_decode_round_trips(library):
    text = corpus.load("languages")
    assert tekken().decode(library.encode(text, bos=False, eos=False)) == text


def _write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_tekken_a_small_tekken_file(tmp_path):
    """A hand-made file: ids are ranks plus the reserved count, merges recovered, specials named."""
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    vocab += [{"rank": 256, "token_bytes": base64.b64encode(b"ab").decode(), "token_str": "ab"},
              {"rank": 257, "token_bytes": base64.b64encode(b"abc").decode(), "token_str": "abc"}]
    config = {"pattern": r"\S+|\s+", "default_vocab_size": 258 + 3, "default_num_special_tokens": 3, "version": "v3"}
    specials = [{"rank": i, "token_str": name, "is_control": True} for i, name in enumerate(["<unk>", "<s>", "</s>"])]
    tok = tekken(_write(tmp_path / "t.json", {"config": config, "vocab": vocab, "special_tokens": specials}),
                 verify=False, cache=False)
    assert tok.encode_ordinary("abc ab") == [260, 3 + 32, 259]
    assert tok.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}
    assert tok.merges == [(b"a", b"b"), (b"ab", b"c")]


def test_mistral_files_are_hash_checked(tmp_path, monkeypatch):
    import dataclasses
    from bpe_course import pretrained
    v1 = pretrained.NAMED["mistral-v1"]
    monkeypatch.setitem(pretrained.NAMED, "mistral-v1", dataclasses.replace(
        v1, files=(dataclasses.replace(v1.files[0], sha256="0" * 64),)))
    with pytest.raises(HashMismatchError, match="tokenizer.model.v1: sha256 is dadfd56d"):
        named_file("mistral-v1")
    with pytest.raises(ValueError, match="no named tokenizer 'x.model'"):
        named_file("x.model")
