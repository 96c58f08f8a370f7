"""Mistral's Tekken JSON read into plain data (bpe_course.formats.tekken): ranks, pattern, specials."""

from __future__ import annotations

import base64
import json

import pytest

from bpe_course.errors import TokenizerFileError
from bpe_course.formats.tekken import read_tekken
from bpe_course.pretrained import named_file


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


def test_a_small_file_read_into_ranks_pattern_and_specials(tmp_path):
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    vocab += [{"rank": 256, "token_bytes": base64.b64encode(b"ab").decode(), "token_str": "ab"}]
    config = {"pattern": r"\S+|\s+", "default_vocab_size": 257 + 2, "default_num_special_tokens": 2, "version": "v3"}
    specials = [{"rank": i, "token_str": name, "is_control": True} for i, name in enumerate(["<unk>", "<s>"])]
    ranks, pattern, named = read_tekken(_write(tmp_path / "t.json", {"config": config, "vocab": vocab,
                                                                     "special_tokens": specials}))
    assert ranks == {bytes([i]): i for i in range(256)} | {b"ab": 256}  # ranks, without the reserved offset
    assert pattern == r"\S+|\s+" and named == {"<unk>": 0, "<s>": 1}


def test_the_real_file_reads_as_mistral_common_reads_it():
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    library = Tekkenizer.from_file(str(named_file("tekken")))
    ranks, _, specials = read_tekken(named_file("tekken"))
    offset = library.num_special_tokens
    assert len(ranks) == library.n_words - offset == 130_072
    for rank in range(0, len(ranks), 997):
        assert ranks[library.id_to_byte_piece(rank + offset, SpecialTokenPolicy.RAISE)] == rank
    assert len(specials) <= offset
    assert {s: specials[s] for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")} == {
        s: library.get_special_token(s) for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")}
