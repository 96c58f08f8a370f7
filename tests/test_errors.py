"""Every error the course raises on purpose (bpe_course.errors), raised where it is documented, with a
message that names the problem, and catchable the way the docstring promises (a ValueError but for a
missing package, an ImportError)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from bpe_course import Tokenizer, corpus, pretrained, pretrained_cache
from bpe_course.cli import main
from bpe_course.errors import (CacheMismatch, CommandError, CorpusError, HashMismatchError, MissingPackageError,
                               TokenizerFileError)


def test_the_classes_are_what_their_callers_catch():
    for error in (CorpusError, TokenizerFileError, HashMismatchError, CacheMismatch):
        assert issubclass(error, ValueError), error
    assert issubclass(MissingPackageError, ImportError) and not issubclass(CommandError, ValueError)


def test_each_is_raised_where_it_is_documented(tmp_path, monkeypatch):
    with pytest.raises(CorpusError, match="did you mean 'numbers'"):
        corpus.load("number")
    (tmp_path / "t.json").write_text(json.dumps({"format": "bpe-course", "version": 1, "vocab": {}}), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"t\.json: \"merges\" is missing"):
        Tokenizer.load(tmp_path / "t.json")
    (tmp_path / "f.txt").write_bytes(b"not the file")
    with pytest.raises(HashMismatchError, match=r"f\.txt: sha256 is [0-9a-f]{64}, expected 0000"):
        pretrained.verify_sha256(tmp_path / "f.txt", "0" * 64)
    with pytest.raises(CacheMismatch):
        pretrained_cache.unpack(b"not a cache file", "gpt2", {})
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mistral_common" else real(name, *a))
    with pytest.raises(MissingPackageError, match="comes with the package 'mistral-common', which is not installed: "
                                                  "pip install mistral-common"):
        pretrained.named_file("tekken")


def test_a_command_error_is_one_line_and_exit_status_1(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("low lower " * 20, encoding="utf-8")
    assert main(["train", str(tmp_path / "t.txt"), "--vocab-size", "260", "-o", str(tmp_path / "o"), "-q"]) == 0
    assert main(["train", str(tmp_path / "t.txt"), "--vocab-size", "260", "-o", str(tmp_path / "o"), "-q"]) == 1
    assert capsys.readouterr().err.count("\n") == 1  # CommandError: one line, no traceback
