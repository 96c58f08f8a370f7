"""A SentencePiece .model read into plain data (bpe_course.formats.sentencepiece), against the sentencepiece
library on Mistral's v1 and v3 files."""

from __future__ import annotations

import pytest
import sentencepiece as spm

from bpe_course.formats.sentencepiece import read_model
from bpe_course.errors import TokenizerFileError
from bpe_course.pretrained import named_file


FILES = {"v1": "mistral-v1", "v3": "mistral-v3"}


def test_the_model_settings_are_read_from_the_file():
    for name in FILES.values():
        model = read_model(named_file(name))
        library = spm.SentencePieceProcessor(model_file=str(named_file(name)))
        assert model.pieces == [library.id_to_piece(i) for i in range(library.get_piece_size())]
        assert model.scores == [library.get_score(i) for i in range(library.get_piece_size())]
        assert model.kinds.count("byte") == sum(library.is_byte(i) for i in range(library.get_piece_size())) == 256
        assert (model.unk_id, model.bos_id, model.eos_id) == (library.unk_id(), library.bos_id(), library.eos_id())
        assert model.add_dummy_prefix and model.escape_whitespaces and model.byte_fallback
        assert not model.remove_extra_whitespaces


def test_a_file_that_is_not_a_model_is_named(tmp_path):
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"\xff\xfe not a protocol buffer")
    with pytest.raises(TokenizerFileError, match="bad.model"):
        read_model(bad)
