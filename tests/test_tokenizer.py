"""Tokenizer: tiktoken's special-token rules, streaming, decoding and clear errors."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course import Tokenizer, train_bpe
from strategies import cuttings, tricky_text, valid_text

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


def reference_piece_merge(tok: Tokenizer, piece: bytes) -> list[int]:
    """tiktoken's rule, written plainly: merge the leftmost lowest-ranked adjacent pair."""
    rank = {a + b: k for k, (a, b) in reversed(list(enumerate(tok.merges)))}
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while True:
        ranked = [(rank[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in rank]
        if not ranked:
            break
        _, i = min(ranked)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return [tok._id_of[p] for p in parts]


@PROPERTY
@given(valid_text)
def test_long_piece_heap_merge_equals_reference(gpt2_tok, trained, text):
    piece = (text * 12).encode("utf-8")
    if len(piece) > 1:
        for tok in (gpt2_tok, trained):
            assert tok._encode_long_piece(piece) == reference_piece_merge(tok, piece)


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
