"""The project's own format, "bpe-course" (bpe_course.formats.native): exact round trips, readable
versioned JSON, and a broken file named with its key."""

from __future__ import annotations

import json
import os
from functools import lru_cache

import pytest

from bpe_course import Tokenizer, TokenizerFileError, corpus, formats, train_bpe
from bpe_course.formats.native import to_json
from bpe_course.pretokenize import GPT4_PATTERN


TEXT = corpus.load("python_docs")[:3000] + corpus.load("languages")[:2000] + " <|endoftext|> x<|pad|>y 🙂 \n\n "

CUSTOM_PATTERN = r"\p{L}+|\p{N}|[^\p{L}\p{N}]+"


@lru_cache(maxsize=None)
def trained(pattern: str = "gpt2", specials: tuple[str, ...] = ("<|endoftext|>", "<|pad|>")) -> Tokenizer:
    vocab, merges = train_bpe(corpus.load("python_docs")[:30_000], 500, specials, pattern=pattern)
    return Tokenizer(vocab, merges, specials, pattern=pattern)


def assert_same(loaded: Tokenizer, original: Tokenizer) -> None:
    assert (loaded.vocab, loaded.merges) == (original.vocab, original.merges)
    assert (loaded.special_tokens, loaded.pattern) == (original.special_tokens, original.pattern)
    assert loaded.encode(TEXT, allowed_special="all") == original.encode(TEXT, allowed_special="all")


# ---- the bpe-course format ----------------------------------------------------------------------
@pytest.mark.parametrize("pattern, specials", [("gpt2", ("<|endoftext|>", "<|pad|>")), ("gpt4", ()),
                                               ("none", ("<|endoftext|>",)), (CUSTOM_PATTERN, ("<|pad|>",))])
def test_round_trip_is_exact(tmp_path, pattern, specials):
    tok = trained(pattern, specials)
    tok.save(tmp_path / "t.json")
    assert_same(Tokenizer.load(tmp_path / "t.json"), tok)


def test_gpt2_and_cl100k_round_trip(tmp_path, gpt2_tok, cl100k_tok):
    for name, tok in (("gpt2", gpt2_tok), ("cl100k", cl100k_tok)):
        formats.save(tok, tmp_path / f"{name}.json")
        assert_same(Tokenizer.load(tmp_path / f"{name}.json"), tok)


def test_file_is_readable_versioned_json(tmp_path):
    tok = trained("gpt4", ("<|endoftext|>",))
    tok.save(tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data)[:2] == ["format", "version"] and data["format"] == "bpe-course" and data["version"] == 1
    assert data["pattern"] == GPT4_PATTERN and data["pattern_name"] == "gpt4"
    assert data["special_tokens"] == {"<|endoftext|>": 499}
    assert data["vocab"]["32"] == "Ġ" and len(data["vocab"]) == 499  # specials have their own table
    a, b = tok.merges[0]
    assert data["merges"][0] == f"{a.decode().replace(' ', 'Ġ')} {b.decode().replace(' ', 'Ġ')}"
    assert text.count("\n") > len(data["vocab"]) + len(data["merges"])  # one entry a line: diffs and editors cope


def damaged(tmp_path, edit) -> os.PathLike:
    data = to_json(trained())
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["merges"].__setitem__(3, "Ġt"), r"merges\[3\]: expected two tokens separated by one space"),
    (lambda d: d["merges"].__setitem__(4, "Ġ zqzq"), r"merges\[4\]: the merge's right part 'zqzq' is not in"),
    (lambda d: d["merges"].__setitem__(5, ["a", "b"]), r"merges\[5\]: expected two tokens"),
    (lambda d: d["vocab"].__setitem__("x7", "a"), r"vocab key 'x7' is not a token id"),
    (lambda d: d["vocab"].__setitem__("300", "▁the"), r"vocab\['300'\]: '▁the' is not in GPT-2's byte alphabet"),
    (lambda d: d.__setitem__("version", 2), r"format version 2; this version reads 1"),
    (lambda d: d.pop("merges"), r"\"merges\" is missing or is not a JSON list"),
    (lambda d: d["special_tokens"].__setitem__("<|x|>", 5), r"special_tokens\['<\|x\|>'\] has id 5, which vocab "),
    (lambda d: d["special_tokens"].__setitem__("<|x|>", "5"), r"special_tokens\['<\|x\|>'\] has id '5', not a"),
    (lambda d: d.__setitem__("pattern", "(unclosed"), r"pattern does not compile"),
    (lambda d: d["vocab"].pop("0"), r"vocab lacks 1 of the 256 single bytes \(first missing: byte 0\)"),
])
def test_malformed_file_names_file_and_key(tmp_path, edit, message):
    with pytest.raises(TokenizerFileError, match=r"bad\.json: .*" + message):
        Tokenizer.load(damaged(tmp_path, edit))


def test_truncated_and_not_utf8_files(tmp_path):
    trained().save(tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    (tmp_path / "t.json").write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"t\.json: not valid JSON at line \d+, column \d+: .*truncated"):
        Tokenizer.load(tmp_path / "t.json")
    (tmp_path / "t.json").write_bytes(b'{"format": "bpe-course", "vocab": {"0": "\xff"}}')
    with pytest.raises(TokenizerFileError, match=r"t\.json: not valid UTF-8 at byte offset 41"):
        Tokenizer.load(tmp_path / "t.json")
