"""The "tiktoken" format (bpe_course.formats.tiktoken_bpe, a .tiktoken file and its sidecar), checked with the real libraries that read them.

Every file we write is loaded by ``tiktoken`` and must give our ids; every file read back must give the same
tokenizer (vocab, merges, specials, pattern, ids)."""

from __future__ import annotations

import hashlib
import json

import pytest
import tiktoken
import tiktoken.load
from hypothesis import given, settings, strategies as st

from formats.samples import TEXT, TRAINED, assert_same_tokenizer, trained

from bpe_course import Tokenizer, TokenizerFileError, corpus, formats, train_bpe
from bpe_course.formats.tiktoken_bpe import load_tiktoken
from bpe_course.interop import tiktoken_encoding
from bpe_course.pretrained import NAMED, named_file


CL100K_SHA256 = NAMED["cl100k"].files[0].sha256

CL100K_SPECIALS = dict(NAMED["cl100k"].special_tokens)


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
    tok = load_tiktoken(named_file("cl100k"), pattern="gpt4",
                        special_tokens=CL100K_SPECIALS)
    assert tok.vocab == cl100k_tok.vocab and tok.merges == cl100k_tok.merges
    with pytest.raises(TokenizerFileError, match=r"cl100k_base\.tiktoken: a \.tiktoken file holds ranks only"):
        Tokenizer.load(named_file("cl100k"))


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
