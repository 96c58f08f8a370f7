"""The "hf" format (bpe_course.formats.hf, Hugging Face's tokenizer.json), checked with the real libraries that read them.

Every file we write is loaded by Hugging Face ``tokenizers`` and must give our ids; every file read back must give the same
tokenizer (vocab, merges, specials, pattern, ids)."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
import tokenizers
from hypothesis import given, settings, strategies as st

from formats.samples import TEXT, TRAINED, assert_same_tokenizer, trained
from strategies import tricky_text, valid_text

from bpe_course import Tokenizer, TokenizerFileError, corpus, train_bpe
from bpe_course.formats.hf import hf_regex, to_hf_json
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN
from bpe_course.pretrained import named_file


# ---- hf ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern, with_specials", TRAINED)
def test_hf_file_gives_our_ids_and_reads_back(tmp_path, pattern, with_specials):
    tok = trained(pattern, with_specials)
    tok.save(tmp_path / "tokenizer.json", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    ids = tok.encode(TEXT, allowed_special="all")
    assert hf.encode(TEXT).ids == ids
    assert hf.decode(ids, skip_special_tokens=False) == tok.decode(ids)  # ASCII specials decode alike
    hf.encode_special_tokens = True  # HF's switch for "special text is ordinary text"
    assert hf.encode(TEXT).ids == tok.encode_ordinary(TEXT)
    assert_same_tokenizer(Tokenizer.load(tmp_path / "tokenizer.json"), tok)


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_hf_gpt2_and_cl100k_same_ids_and_round_trip(saved_big, name, gpt2_tok, cl100k_tok):
    tok = {"gpt2": gpt2_tok, "cl100k": cl100k_tok}[name]
    hf = tokenizers.Tokenizer.from_file(str(saved_big / f"{name}.hf"))
    assert hf.encode(TEXT).ids == tok.encode(TEXT, allowed_special="all")
    # subtle: cl100k's specials sit at 100257.. with gaps; HF keeps those ids only because they are in model.vocab
    assert {s: hf.token_to_id(s) for s in tok.special_tokens} == tok.special_tokens
    assert_same_tokenizer(Tokenizer.load(saved_big / f"{name}.hf"), tok)


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(valid_text, tricky_text.map(lambda s: s.encode("utf-8", "replace").decode())))
def test_hf_same_ids_on_any_text(text):
    for pattern in ("gpt2", "gpt4"):
        tok = trained(pattern, True)
        hf = _hf_of(pattern)
        assert hf.encode(text).ids == tok.encode(text, allowed_special="all"), pattern


@lru_cache(maxsize=None)
def _hf_of(pattern: str) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(json.dumps(to_hf_json(trained(pattern, True))))


def test_hf_needs_the_possessive_digit_repeat_rewritten():
    """Oniguruma reads GPT-4's ``\\p{N}{1,3}+`` as "one or more groups of 1-3 digits"."""
    def pieces(regex: str) -> list[str]:
        split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(regex), behavior="isolated")
        return [p for p, _ in split.pre_tokenize_str("12345678 x")]
    assert pieces(GPT4_PATTERN)[0] == "12345678"  # the pitfall
    assert pieces(hf_regex(GPT4_PATTERN))[:3] == ["123", "456", "78"]
    assert hf_regex(GPT2_PATTERN) == GPT2_PATTERN  # nothing to rewrite there


def test_hf_decode_differences_are_as_documented(tmp_path):
    specials = ["<|eot|>", "é!", "Ġx", "中 文"]
    vocab, merges = train_bpe("plain text", 261, specials)
    tok = Tokenizer(vocab, merges, specials)
    tok.save(tmp_path / "t.json", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    text = "a<|eot|>b é! Ġx中 文"
    ids = tok.encode(text, allowed_special="all")
    assert hf.encode(text).ids == ids  # ids always agree
    assert hf.decode(ids) == "ab  "  # HF skips specials by default ...
    # ... and reads their text through the byte alphabet: é -> byte 0xE9, Ġ -> a space; 中 and " " pass through
    assert hf.decode(ids, skip_special_tokens=False) == "a<|eot|>b \ufffd!  x中 文"
    assert tok.decode(ids) == text


def test_hf_can_differ_where_merges_disagree_with_ranks(tmp_path):
    """Ours (like tiktoken) merges any pair whose concatenation has a rank; HF only listed pairs.

    No trained tokenizer, GPT-2 or cl100k has such a pair (the tests above); a hand-made one can.
    """
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc"}
    tok = Tokenizer(vocab, [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")], pattern="none")
    tok.save(tmp_path / "t.json", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    assert tok.encode("abcd") == [258, 100]  # a|bc -> "abc" has rank 2: merged
    assert hf.encode("abcd").ids == [97, 256, 100]  # (a, bc) is not a listed merge
    assert hf.encode("abc").ids == tok.encode("abc") == [258]  # whole-token shortcut: ignore_merges


def test_hf_trained_by_tokenizers_reads_into_ours(tmp_path):
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=700, special_tokens=["<|endoftext|>", "<pad>"],
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
                                             show_progress=False)
    hf.train_from_iterator([corpus.load("python_docs")[:80_000]], trainer=trainer)
    hf.save(str(tmp_path / "tokenizer.json"))
    tok = Tokenizer.load(tmp_path / "tokenizer.json")
    assert tok.pattern == GPT2_PATTERN and tok.special_tokens == {"<|endoftext|>": 0, "<pad>": 1}
    assert tok.encode(TEXT, allowed_special="all") == hf.encode(TEXT).ids
    assert tok.decode(hf.encode(TEXT).ids) == TEXT


def test_hf_gpt2_built_with_tokenizers_reads_as_gpt2(tmp_path, gpt2_tok):
    model = tokenizers.models.BPE.from_file(str(named_file("gpt2", "encoder.json")),
                                            str(named_file("gpt2", "vocab.bpe")))
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.add_special_tokens(["<|endoftext|>"])
    hf.save(str(tmp_path / "tokenizer.json"))
    tok = Tokenizer.load(tmp_path / "tokenizer.json")
    assert (tok.vocab, tok.merges, tok.special_tokens, tok.pattern) == \
        (gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens, gpt2_tok.pattern)


def test_hf_refuses_a_special_spelled_like_a_token():
    vocab, merges = train_bpe("ab ab ab", 258)
    vocab[258] = b"ab"  # an ordinary token "ab" and a special "ab"
    with pytest.raises(ValueError, match="both are written 'ab'"):
        to_hf_json(Tokenizer(vocab, merges, {"ab": 258}))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["model"]["merges"].__setitem__(3, "Ġ"), r"model\.merges\[3\]: expected two tokens"),
    (lambda d: d["model"]["merges"].__setitem__(5, "x zzzq"), r"model\.merges\[5\]: the merge's right part 'zzzq'"),
    (lambda d: d["model"]["vocab"].__setitem__("▁the", 9999), r"model\.vocab\['▁the'\]: .*byte alphabet"),
    (lambda d: d.__setitem__("normalizer", {"type": "NFC"}), "normalizer 'NFC' is not supported"),
    (lambda d: d["pre_tokenizer"]["pretokenizers"][1].__setitem__("add_prefix_space", True), "add_prefix_space"),
    (lambda d: d["model"].__setitem__("type", "WordPiece"), "only byte-level BPE"),
    (lambda d: d["added_tokens"][0].__setitem__("lstrip", True), r"added_tokens\[0\] .* sets lstrip"),
    (lambda d: d.__setitem__("pre_tokenizer", {"type": "Whitespace"}), "pre_tokenizer is"),
])
def test_hf_malformed_files_name_the_key(tmp_path, edit, message):
    data = to_hf_json(trained("gpt4", True))
    edit(data)
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=f"tokenizer.json: .*{message}|tokenizer.json: {message}"):
        Tokenizer.load(tmp_path / "tokenizer.json")


def test_hf_truncated_file_names_line_and_column(tmp_path):
    trained("gpt2", True).save(tmp_path / "tokenizer.json", format="hf")
    path = tmp_path / "tokenizer.json"
    path.write_text(path.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"tokenizer\.json: not valid JSON at line \d+, column \d+"):
        Tokenizer.load(path)


def test_hf_custom_pattern_with_possessive_repeats(tmp_path):
    pattern = r"[a-z]{2,}+|\p{N}{1,2}+|(?:ab){1,3}+|\s+|."
    vocab, merges = train_bpe("abab abc 12345 hello world " * 20, 300, pattern=pattern)
    tok = Tokenizer(vocab, merges, pattern=pattern)
    tok.save(tmp_path / "t.json", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    text = "abababab xyz 1234567 Hello, WORLD ab\n"
    assert hf.encode(text).ids == tok.encode(text)
    assert Tokenizer.load(tmp_path / "t.json").encode(text) == tok.encode(text)


def test_hf_regex_wraps_the_atom_of_a_possessive_repeat():
    assert hf_regex(r"(?:ab){1,3}+c") == "(?>(?:ab){1,3})c"
    assert hf_regex(r"[a-z]{2}+|\p{N}{1,3}+") == r"(?>[a-z]{2})|(?>\p{N}{1,3})"
