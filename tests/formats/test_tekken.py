"""Mistral's Tekken JSON read into plain data (bpe_course.formats.tekken): ranks, pattern, specials."""

from __future__ import annotations

import base64
import json

import pytest

from bpe_course.errors import TokenizerFileError
from bpe_course.formats import read_tekken


def _write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_bad_files_are_named(tmp_path):
    with pytest.raises(TokenizerFileError, match="no key 'config'"):
        read_tekken(_write(tmp_path / "a.json", {"vocab": []}))
    config = {"pattern": ".", "default_vocab_size": 4, "default_num_special_tokens": 1}
    with pytest.raises(TokenizerFileError, match=r"vocab\[1\] has rank 5, expected 1"):
        read_tekken(_write(tmp_path / "b.json", {"config": config, "vocab": [
            {"rank": 0, "token_bytes": "AA==", "token_str": ""}, {"rank": 5, "token_bytes": "AQ==", "token_str": ""},
            {"rank": 2, "token_bytes": "Ag==", "token_str": ""}]}))
    with pytest.raises(TokenizerFileError, match="20 special tokens but only 1 reserved ids"):
        read_tekken(_write(tmp_path / "d.json", {"config": config, "vocab": [
            {"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": ""} for i in range(3)]}))
    (tmp_path / "c.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="c.json: not a Tekken JSON file"):
        read_tekken(tmp_path / "c.json")
