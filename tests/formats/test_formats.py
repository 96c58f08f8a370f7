"""Saving, detecting and loading in every format (bpe_course.formats: save, load, detect_format)."""

from __future__ import annotations

import os
import stat
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import Tokenizer, TokenizerFileError, corpus, formats, train_bpe


TEXT = corpus.load("python_docs")[:3000] + corpus.load("languages")[:2000] + " <|endoftext|> x<|pad|>y 🙂 \n\n "


@lru_cache(maxsize=None)
def trained(pattern: str = "gpt2", specials: tuple[str, ...] = ("<|endoftext|>", "<|pad|>")) -> Tokenizer:
    vocab, merges = train_bpe(corpus.load("python_docs")[:30_000], 500, specials, pattern=pattern)
    return Tokenizer(vocab, merges, specials, pattern=pattern)


def assert_same(loaded: Tokenizer, original: Tokenizer) -> None:
    assert (loaded.vocab, loaded.merges) == (original.vocab, original.merges)
    assert (loaded.special_tokens, loaded.pattern) == (original.special_tokens, original.pattern)
    assert loaded.encode(TEXT, allowed_special="all") == original.encode(TEXT, allowed_special="all")


@settings(max_examples=40, deadline=None)
@given(text=st.text(st.sampled_from("ab cdé\n🙂1"), min_size=1, max_size=60),
       n_merges=st.integers(0, 12), pattern=st.sampled_from(["gpt2", "gpt4", "none"]))
def test_any_trained_tokenizer_round_trips_in_every_format(tmp_path_factory, text, n_merges, pattern):
    vocab, merges = train_bpe(text, 256 + n_merges + 1, ["<|s|>"], pattern=pattern)
    tok = Tokenizer(vocab, merges, ["<|s|>"], pattern=pattern)
    folder = tmp_path_factory.mktemp("any")
    for fmt in formats.FORMATS:
        if fmt == "gpt2" and pattern != "gpt2":
            continue
        tok.save(folder / fmt, format=fmt)
        loaded = Tokenizer.load(folder / fmt)
        assert (loaded.vocab, loaded.merges, loaded.special_tokens, loaded.pattern) == \
            (tok.vocab, tok.merges, tok.special_tokens, tok.pattern), fmt
        assert loaded.encode(text + "<|s|>", allowed_special="all") == tok.encode(text + "<|s|>",
                                                                                allowed_special="all")


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_a_file_saved_by_notepad_loads_the_same(tmp_path, fmt):
    """A byte-order mark (Windows Notepad puts one first when it saves) is not text, in a tokenizer's text
    files as in a corpus. (A ``.tiktoken`` file is base64 lines read as bytes, as tiktoken reads it.)"""
    tok = trained()
    folder = tmp_path / fmt
    folder.mkdir()
    tok.save(folder, format=fmt)
    for path in folder.iterdir():
        if path.suffix in (".json", ".bpe"):
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert_same(Tokenizer.load(folder), tok)


# ---- saving, detecting and loading -------------------------------------------------------------
def test_every_format_is_detected_from_files_and_directories(tmp_path):
    tok = trained()
    for fmt in formats.FORMATS:
        folder = tmp_path / fmt
        folder.mkdir()
        formats.save(tok, folder, format=fmt)  # an existing directory: the format's default file name
        names = sorted(p.name for p in folder.iterdir())
        expected = {"bpe-course": ["bpe_course.json"], "hf": ["tokenizer.json"], "gpt2": ["encoder.json", "vocab.bpe"],
                    "tiktoken": ["tokenizer.tiktoken", "tokenizer.tiktoken.json"]}[fmt]
        assert names == expected
        for path in [folder, *folder.iterdir()]:
            assert formats.detect_format(path) == fmt, path
            assert_same(Tokenizer.load(path), tok)


def test_files_without_usual_names_are_detected_by_content(tmp_path):
    tok = trained()
    for fmt in ("bpe-course", "hf", "tiktoken"):
        formats.save(tok, tmp_path / f"mine-{fmt}.data", format=fmt)
        assert formats.detect_format(tmp_path / f"mine-{fmt}.data") == fmt
        assert_same(Tokenizer.load(tmp_path / f"mine-{fmt}.data", format=fmt), tok)


def test_unclear_paths_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no tokenizer at"):
        Tokenizer.load(tmp_path / "missing")
    with pytest.raises(TokenizerFileError, match="a directory with no saved tokenizer"):
        Tokenizer.load(tmp_path)
    formats.save(trained(), tmp_path, format="hf")
    formats.save(trained(), tmp_path, format="bpe-course")
    with pytest.raises(TokenizerFileError, match=r"tokenizers in several formats \(bpe-course, hf\)"):
        Tokenizer.load(tmp_path)
    assert Tokenizer.load(tmp_path, format="hf").vocab == trained().vocab
    (tmp_path / "notes.txt").write_text("just some text\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"notes\.txt: not a tokenizer file this version can recognise"):
        Tokenizer.load(tmp_path / "notes.txt")
    (tmp_path / "other.json").write_text('{"name": "x"}', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"other\.json: JSON that is neither"):
        Tokenizer.load(tmp_path / "other.json")
    with pytest.raises(ValueError, match="unknown tokenizer format 'sentencepiece'"):
        formats.save(trained(), tmp_path / "x", format="sentencepiece")


def test_save_is_atomic_and_leaves_ordinary_files(tmp_path, monkeypatch):
    tok = trained()
    tok.save(tmp_path / "t.json")
    before = (tmp_path / "t.json").read_bytes()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "t.json").stat().st_mode) == 0o666 & ~umask  # as open() would make it

    def disk_full(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("bpe_course.files.os.replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        trained("gpt4", ()).save(tmp_path / "t.json")
    assert (tmp_path / "t.json").read_bytes() == before  # the old file is intact ...
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]  # ... and no temporary file is left
