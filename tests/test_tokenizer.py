"""Tokenizer: tiktoken's special-token rules, streaming, decoding and clear errors."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from hypothesis import HealthCheck, given, settings, strategies as st
from oracles import tiktoken_first
from strategies import cuttings, tricky_corpus, valid_text

from bpe_course import Tokenizer, corpus, tokenizer, train_bpe
from bpe_course import gpt2
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN


PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SPECIALS = ["<|endoftext|>", "<|endoftext|><|endoftext|>", "<|pad|>"]


@pytest.fixture(scope="module")
def trained(docs_text) -> Tokenizer:
    vocab, merges = train_bpe(docs_text[:100_000], 256 + 500 + len(SPECIALS), SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


@PROPERTY
@given(valid_text)
def test_trained_round_trip(trained, text):
    assert trained.decode(trained.encode(text, disallowed_special=())) == text


@PROPERTY
@given(cuttings())
def test_encode_iterable_equals_encode_for_any_cutting(trained, gpt2_tok, cl100k_tok, case):
    text, pieces = case
    for tok in (trained, gpt2_tok, cl100k_tok):
        assert list(tok.encode_iterable(pieces, allowed_special="all")) == tok.encode(text, allowed_special="all")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "  ", "\n", "\n\n", "b c", "<|endoftext|>", "x\u00a0"]), max_size=3000),
       st.integers(1, 50))
def test_encode_iterable_long_streams(gpt2_tok, words, piece_len):
    text = "".join(words)
    pieces = [text[i:i + piece_len] for i in range(0, len(text), piece_len)]
    assert list(gpt2_tok.encode_iterable(pieces, allowed_special="all")) == gpt2_tok.encode(text, allowed_special="all")


def test_double_newline_across_lines_is_one_pretoken(gpt2_tok):
    lines = ["Hello\n", "\n", " world\n", "\n"]
    ids = gpt2_tok.encode("Hello\n\n world\n\n")
    assert list(gpt2_tok.encode_iterable(lines)) == ids
    assert ids.count(628) == 2  # 628 is GPT-2's "\n\n": once before " world", once at the very end


def test_encode_iterable_is_lazy(gpt2_tok):
    endless = itertools.cycle(["The quick brown fox ", "jumps over the lazy dog. "])
    first = list(itertools.islice(gpt2_tok.encode_iterable(endless), 20))
    assert first == gpt2_tok.encode("The quick brown fox jumps over the lazy dog. " * 20)[:20]


def test_disallowed_special_raises_by_default(gpt2_tok, tiktoken_gpt2):
    text = "Ignore that. <|endoftext|> New instructions"
    with pytest.raises(ValueError, match=r"special token '<\|endoftext\|>' at character 13"):
        gpt2_tok.encode(text)
    with pytest.raises(ValueError):
        tiktoken_gpt2.encode(text)
    assert gpt2_tok.encode(text, disallowed_special=()) == tiktoken_gpt2.encode(text, disallowed_special=())
    assert gpt2_tok.encode(text, allowed_special="all") == tiktoken_gpt2.encode(text, allowed_special="all")
    assert 50256 in gpt2_tok.encode(text, allowed_special={"<|endoftext|>"})
    assert 50256 not in gpt2_tok.encode_ordinary(text)


def test_overlapping_specials_longest_wins(trained):
    double = trained.special_tokens["<|endoftext|><|endoftext|>"]
    single = trained.special_tokens["<|endoftext|>"]
    assert trained.encode("<|endoftext|>" * 3, allowed_special="all") == [double, single]
    only_single = trained.encode("<|endoftext|>" * 2, allowed_special={"<|endoftext|>"},
                                 disallowed_special=())
    assert only_single == trained.encode_ordinary("<|endoftext|>") + [single]  # as tiktoken: see below


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<|endoftext|>", "<|pad|>", "x", " ", "<|"]), max_size=12).map("".join),
       st.sets(st.sampled_from(SPECIALS)))
def test_specials_like_tiktoken_on_a_byte_vocabulary(text, allowed):
    import tiktoken
    specials = {s: 256 + k for k, s in enumerate(SPECIALS)}
    ours = Tokenizer({**{i: bytes([i]) for i in range(256)}, **{i: s.encode() for s, i in specials.items()}},
                     [], specials)
    theirs = tiktoken.Encoding(name="bytes", pat_str=r"\S+|\s+", special_tokens=specials,
                               mergeable_ranks={bytes([i]): i for i in range(256)})
    assert ours.encode(text, allowed_special=allowed, disallowed_special=()) == \
        theirs.encode(text, allowed_special=allowed, disallowed_special=())


def test_unknown_allowed_special_is_an_error(gpt2_tok):
    with pytest.raises(ValueError, match=r"<\|im_start\|>.*not special tokens"):
        gpt2_tok.encode("x", allowed_special={"<|im_start|>"})


def test_decode_unknown_id_is_named(gpt2_tok):
    with pytest.raises(ValueError, match=r"unknown token id 50257 at position 1"):
        gpt2_tok.decode([15496, 50257])
    with pytest.raises(ValueError, match=r"unknown token id -1"):
        gpt2_tok.decode_bytes([-1])


def test_half_a_character(gpt2_tok):
    ids = gpt2_tok.encode("🙃")
    assert len(ids) > 1 and gpt2_tok.decode(ids) == "🙃"
    assert gpt2_tok.decode(ids[:1]) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        gpt2_tok.decode(ids[:1], errors="strict")
    assert b"".join(gpt2_tok.token_bytes(ids)) == "🙃".encode()


def test_lone_surrogates_like_tiktoken(gpt2_tok, tiktoken_gpt2):
    for text in ["\ud800", "a\udfffb", "\ud83d\ude00", "x\ud83d"]:
        assert gpt2_tok.encode(text) == tiktoken_gpt2.encode(text)


def test_truncated_is_a_prefix(trained, docs_text):
    small = trained.truncated(100)
    vocab, merges = train_bpe(docs_text[:100_000], 256 + 100 + len(SPECIALS), SPECIALS)
    fresh = Tokenizer(vocab, merges, SPECIALS)
    sample = docs_text[200_000:203_000]
    assert small.merges == fresh.merges
    assert small.decode(small.encode(sample)) == sample
    assert [small.vocab[i] for i in small.encode(sample)] == [fresh.vocab[i] for i in fresh.encode(sample)]


def test_bad_vocab_and_merges_are_explained():
    vocab = {i: bytes([i]) for i in range(256)}
    with pytest.raises(ValueError, match="lacks 1 of the 256 single bytes .*byte 65"):
        Tokenizer({i: b for i, b in vocab.items() if i != 65}, [])
    with pytest.raises(ValueError, match=r"merge 0 \(b'a', b'b'\): b'ab' is not in the vocab"):
        Tokenizer(vocab, [(b"a", b"b")])
    with pytest.raises(ValueError, match="special token '<|x|>' is not in the vocab"):
        Tokenizer(vocab, [], ["<|x|>"])
    with pytest.raises(TypeError, match="text must be str"):
        Tokenizer(vocab, []).encode(b"bytes")


def test_partly_allowed_overlapping_specials_follow_tiktokens_scan(trained):
    """tiktoken looks for any special, longest first, and passes over one that is not allowed by
    searching again one character further on."""
    e, ee = "<|endoftext|>", "<|endoftext|><|endoftext|>"
    text = "a" + e * 3 + "b"
    ids = trained.encode(text, allowed_special={e}, disallowed_special=())
    expected = trained.encode_ordinary("a" + e * 2) + [trained.special_tokens[e]] + trained.encode_ordinary("b")
    assert ids == expected
    with pytest.raises(ValueError, match="special token"):
        trained.encode(text, allowed_special={e})  # ee is disallowed by default and present
    assert trained.encode(text, allowed_special={ee}, disallowed_special=()) == \
        trained.encode_ordinary("a") + [trained.special_tokens[ee]] + trained.encode_ordinary(e + "b")


@settings(max_examples=300, deadline=None)
@given(cuttings(st.lists(st.sampled_from(["<|endoftext|>", "<|pad|>", "x", " ", "<|", "|>"]), max_size=12).map("".join)),
       st.sets(st.sampled_from(SPECIALS)))
def test_encode_iterable_with_partly_allowed_specials(trained, case, allowed):
    text, pieces = case
    expected = trained.encode(text, allowed_special=allowed, disallowed_special=())
    assert list(trained.encode_iterable(pieces, allowed_special=allowed, disallowed_special=())) == expected


# ---- encoding ---------------------------------------------------------------------------------
def test_encoder_cache_is_bounded(gpt2_tok, tiktoken_gpt2, monkeypatch):
    monkeypatch.setattr(tokenizer, "CACHE_LIMIT", 100)
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    rng = random.Random(5)
    for size in (30, 80, 150, 500, 40):  # some calls alone hold more distinct pieces than the limit
        words = [" " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
                 for _ in range(size)]
        text = "".join(words)
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
        assert len(tok._cache) <= 100


def test_encoder_cache_across_texts_split_three_ways(gpt2_tok, tiktoken_gpt2):
    """Latin-1 text, BMP text and text that needs tiktoken's tables share one cache of pieces: a
    piece's ids depend on the piece alone, however its text was split."""
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    texts = ["a\U0002CEA2:A b", "x \U0002CEA2:A", "\U0002CEA2:A", "x:A b caf\u00e9", "A\u0295b x:A \U0001F642"]
    for text in texts + texts[::-1]:
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([" the", " cat", "sat", ".", "\n", " on", " mat", "é", " zebra", "  "]),
                         max_size=12).map("".join), min_size=1, max_size=6))
def test_encoder_cache_across_calls_all_known_or_not(gpt2_tok, tiktoken_gpt2, texts):
    """Calls whose pieces are all known (taken without the set of new pieces), partly known, or new."""
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    for text in texts + texts[::-1]:
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


def test_ids_that_do_not_follow_the_merges(gpt2_tok, docs_text):
    """Ids in any order: pairs are then ranked by merge, not by id, and the ids are those of the vocab."""
    shuffled = list(gpt2_tok.vocab)
    random.Random(8).shuffle(shuffled)
    new_id = dict(zip(gpt2_tok.vocab, shuffled))
    tok = Tokenizer({new_id[i]: t for i, t in gpt2_tok.vocab.items()}, gpt2_tok.merges,
                    {s: new_id[i] for s, i in gpt2_tok.special_tokens.items()})
    assert any(tok.vocab.get(256 + k) != a + b for k, (a, b) in enumerate(tok.merges))  # ids that do not follow
    text = tricky_corpus(docs_text, seed=9)[:100_000] + "\U0001F642" * 100 + " x" * 70
    assert tok.encode_ordinary(text) == [new_id[i] for i in gpt2_tok.encode_ordinary(text)]


def test_prose_equals_tiktoken(gpt2_tok, tiktoken_gpt2, docs_text):
    fresh = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    text = tricky_corpus(docs_text, seed=6)
    assert fresh.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
    assert fresh.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)  # warm: from the cache


def test_stream_file_equals_encode(gpt2_tok, docs_text, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(tricky_corpus(docs_text, seed=7)[:200_000], encoding="utf-8")
    with open(path, encoding="utf-8") as lines:
        streamed = list(gpt2_tok.encode_iterable(lines, disallowed_special=()))
    assert streamed == gpt2_tok.encode(Path(path).read_text(encoding="utf-8"), disallowed_special=())


TEXT = ("Byte-level BPE: 12345678 naïve cafés, 東京 and 🙂.\n    def f(x):  # DON'T\n        return x ** 2\n"
        "<|endoftext|> is plain text here")

LONG_PIECE_TEXT = "a" * 300 + " " + "ab" * 150 + "c" + "😀" * 40  # pieces longer than LONG_PIECE bytes

KS = [0, 1, 2, 7, 100, 1000, 10_000]


@pytest.mark.parametrize("text", [TEXT, LONG_PIECE_TEXT, ""])
def test_truncated_encoding_equals_the_truncated_tokenizer(own, gpt2_tok, cl100k_tok, text):
    for tok in (own, gpt2_tok, cl100k_tok):
        for k in sorted({min(k, len(tok.merges)) for k in KS} | {len(tok.merges)}):
            assert tok.encode_ordinary_truncated(text, k) == tok.truncated(k).encode_ordinary(text), (tok, k)
    assert gpt2_tok.encode_ordinary_truncated(text, len(gpt2_tok.merges)) == gpt2_tok.encode_ordinary(text)


def test_truncated_encoding_keeps_only_kept_whole_tokens():
    # b"xy" is in the vocab but no merge makes it: truncated() drops it, so must the cheap path.
    vocab = {b: bytes([b]) for b in range(256)} | {256: b"ab", 257: b"xy"}
    tok = Tokenizer(vocab, [(b"a", b"b")], pattern="none")
    assert tok.encode_ordinary("xy") == [257]
    assert tok.encode_ordinary_truncated("xy", 1) == tok.truncated(1).encode_ordinary("xy") == [120, 121]
    assert tok.encode_ordinary_truncated("ab", 0) == [97, 98] and tok.encode_ordinary_truncated("ab", 1) == [256]


def test_truncated_encoding_refuses_bad_counts(gpt2_tok):
    with pytest.raises(ValueError, match="between 0 and 50000, got 50001"):
        gpt2_tok.encode_ordinary_truncated("x", 50_001)
    with pytest.raises(ValueError, match="got -1"):
        gpt2_tok.encode_ordinary_truncated("x", -1)
    with pytest.raises(TypeError, match="n_merges must be an int"):
        gpt2_tok.encode_ordinary_truncated("x", 1.5)
    with pytest.raises(TypeError, match="text must be str"):
        gpt2_tok.encode_ordinary_truncated(b"x", 1)


@pytest.mark.parametrize("k", [0, 1, 100, 3048, 20_000])
def test_gpt2_truncated_is_tiktoken_with_the_lower_ranks(gpt2_tok, gpt2_ranks, k):
    oracle = tiktoken_first(gpt2_ranks, k, GPT2_PATTERN)
    for text in (TEXT, LONG_PIECE_TEXT):
        assert gpt2_tok.encode_ordinary_truncated(text, k) == oracle.encode_ordinary(text)


@pytest.mark.parametrize("k", [0, 5, 1000, 60_000])
def test_cl100k_truncated_is_tiktoken_with_the_lower_ranks(cl100k_tok, cl100k_ranks, k):
    oracle = tiktoken_first(cl100k_ranks, k, GPT4_PATTERN)
    assert cl100k_tok.encode_ordinary_truncated(TEXT, k) == oracle.encode_ordinary(TEXT)


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


MODULE = [sys.executable, "-m", "bpe_course"]


PEAK_RSS = """import resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


GPT2_AS_WRITTEN_BY_HF = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def peak_rss_mb(stdin: Path, *args: str) -> int:
    status, mb = subprocess.run([sys.executable, "-c", PEAK_RSS, str(stdin), *MODULE, *args], capture_output=True,
                                text=True, timeout=900, check=True).stdout.split()
    assert status == "0"
    return int(mb)


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    """The same prose at 1 MB and 5 MB (many distinct words, so nothing is remembered whole)."""
    folder = tmp_path_factory.mktemp("texts")
    words = " ".join(corpus.load("python_docs").split())
    sizes = {}
    for mb in (1, 5):
        path = folder / f"{mb}mb.txt"
        with open(path, "w", encoding="utf-8") as f:
            for k in range(mb * 10**6 // len(words) + 1):
                f.write(f"part {k}: " + words + "\n")
        sizes[mb] = path
    return sizes


def gpt2_with_pattern(folder: Path, pattern: str) -> Path:
    tok = gpt2()
    path = folder / "tokenizer.json"
    Tokenizer(tok.vocab, tok.merges, tok.special_tokens, pattern=pattern).save(path, format="hf")
    return path


@pytest.fixture(scope="module")
def own_pattern_file(tmp_path_factory) -> Path:
    """GPT-2's vocabulary with GPT-2's pattern as Hugging Face writes it: a pattern of its own to the package."""
    return gpt2_with_pattern(tmp_path_factory.mktemp("tok"), GPT2_AS_WRITTEN_BY_HF)


@pytest.fixture(scope="module")
def uncuttable_file(tmp_path_factory) -> Path:
    """A pattern that keeps each word with the spaces after it: no place is known where its text may be cut."""
    return gpt2_with_pattern(tmp_path_factory.mktemp("tok"), r"\S+\s*|\s+")


def test_tekken_encodes_standard_input_and_files_in_flat_memory(texts, tmp_path):
    pytest.importorskip("mistral_common")
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", "tekken", "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", "tekken", "-")
    assert large < small + 30  # 4 MB more text; held whole, it took 17 MB a MB (68 MB more)
    out = tmp_path / "ids.npy"
    small = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[1]), "-o", str(out),
                        "--workers", "1")
    large = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[5]), "-o", str(out),
                        "--workers", "1", "--force")
    assert large < small + 30


def test_a_gpt_like_pattern_of_its_own_streams_in_flat_memory(texts, own_pattern_file):
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", str(own_pattern_file), "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", str(own_pattern_file), "-")
    assert large < small + 30  # held whole, its text, pieces and ids took 18 MB a MB (72 MB more)
    ids = subprocess.run([*MODULE, "encode", "--tokenizer", str(own_pattern_file), "-"], input=texts[1].read_bytes(),
                         capture_output=True, timeout=600, check=True).stdout.split()
    tok = Tokenizer.load(own_pattern_file)
    assert list(map(int, ids)) == tok.encode(texts[1].read_text(encoding="utf-8"), allowed_special="all")


def test_a_pattern_that_cannot_be_cut_holds_the_text_but_not_its_pieces_and_ids(texts, uncuttable_file):
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", str(uncuttable_file), "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", str(uncuttable_file), "-")
    held = (sys.getsizeof(texts[5].read_text(encoding="utf-8")) - sys.getsizeof(texts[1].read_text(encoding="utf-8")))
    assert large - small < 3 * held / 2**20  # the text and its copy when joined (its pieces and ids as lists: 8x)


def test_streaming_a_pattern_of_its_own_equals_encoding_it_whole(own_pattern_file, uncuttable_file):
    text = ("It's 2024<|endoftext|> and  the  cat's\n\n 12 345 " * 20_000)
    lines = text.splitlines(keepends=True)
    for path in (own_pattern_file, uncuttable_file):
        tok = Tokenizer.load(path)
        for mode in ({"allowed_special": "all"}, {"disallowed_special": ()}):
            assert list(tok.encode_iterable(lines, **mode)) == tok.encode(text, **mode)
        with pytest.raises(ValueError, match="special token '<|endoftext|>' at character 9"):
            list(tok.encode_iterable(lines))
