"""A SentencePiece .model read into plain data (bpe_course.formats.sentencepiece), against the sentencepiece
library on Mistral's v1 and v3 files."""

from __future__ import annotations

import io
import random
from functools import lru_cache

import pytest
import sentencepiece as spm
from hypothesis import given, settings, strategies as st
from sentencepiece import sentencepiece_model_pb2 as pb

from bpe_course.algorithms.sentencepiece_bpe import SentencePieceBPE
from bpe_course.errors import TokenizerFileError
from bpe_course.formats.sentencepiece import read_model
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


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


CORPUS = ["the cat sat on the mat", "a  dog  ran  far", "  leading and trailing  ", "naïve café 東京 and 東",
          "x\u2581y z", "[X] marks ab c the spot", "numbers 12 345 6789"] * 30


TEXT_CHARS = "ab c  dé\u2581ü東京x\t\n.?1[X]"


texts = st.lists(st.sampled_from(list(TEXT_CHARS) + ["[X]", "ab c", "the", "  "]), max_size=30).map("".join)


OPTIONS = {
    "defaults": {},
    "treat_whitespace_as_suffix": {"treat_whitespace_as_suffix": True},
    "suffix, no dummy": {"treat_whitespace_as_suffix": True, "add_dummy_prefix": False},
    "unk_surface": {"unk_surface": "<?>"},
    "no dummy prefix": {"add_dummy_prefix": False},
    "extra whitespace kept": {"remove_extra_whitespaces": False},
    "suffix, whitespace kept": {"treat_whitespace_as_suffix": True, "remove_extra_whitespaces": False},
    "byte fallback": {"byte_fallback": True},
    "user-defined pieces": {"user_defined_symbols": ["[X]", "ab c"]},
    "renamed pieces": {"unk_piece": "[UNK]", "bos_piece": "[BOS]", "eos_piece": "[EOS]", "unk_id": 3, "bos_id": 0,
                       "eos_id": 1, "unk_surface": "?"},
}


@lru_cache(maxsize=None)
def trained(name: str) -> bytes:
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS), model_writer=buf, vocab_size=300 if "byte" in name
                                   else 70, model_type="bpe", normalization_rule_name="identity", minloglevel=2,
                                   **OPTIONS[name])
    return buf.getvalue()


def edited(data: bytes, edit) -> bytes:
    model = pb.ModelProto()
    model.ParseFromString(data)
    edit(model)
    return model.SerializeToString()


def both(data: bytes, tmp_path):
    (tmp_path / "t.model").write_bytes(data)
    return spm.SentencePieceProcessor(model_proto=data), SentencePieceBPE.from_file(tmp_path / "t.model")


def assert_same(library, ours, text: str) -> None:
    ids = library.encode(text)
    assert ours.encode(text) == ids, (text, library.encode_as_pieces(text))
    assert ours.decode(ids) == library.decode(ids), (text, ids)
    with_unk = ids + [library.unk_id()] + library.encode("東x")
    assert ours.decode(with_unk) == library.decode(with_unk)
    assert (ours.model.unk_id, ours.model.bos_id, ours.model.eos_id) == (library.unk_id(), library.bos_id(),
                                                                         library.eos_id())


@pytest.mark.parametrize("name", list(OPTIONS))
@settings(max_examples=80, deadline=None)
@given(text=texts)
def test_every_option_the_trainer_writes_is_read_as_sentencepiece_reads_it(tmp_path_factory, name, text):
    library, ours = both(trained(name), tmp_path_factory.mktemp("m"))
    assert_same(library, ours, text)


def escape_off(m):
    m.normalizer_spec.escape_whitespaces = False


def no_dummy_but_extra_removed(m):
    m.normalizer_spec.add_dummy_prefix = False
    m.normalizer_spec.remove_extra_whitespaces = True


@pytest.mark.parametrize("edit", [escape_off, no_dummy_but_extra_removed], ids=["escape_whitespaces off",
                                                                                "no dummy, extra removed"])
@settings(max_examples=60, deadline=None)
@given(text=texts)
def test_options_only_an_edited_file_holds_are_read_as_sentencepiece_reads_them(tmp_path_factory, edit, text):
    library, ours = both(edited(trained("extra whitespace kept"), edit), tmp_path_factory.mktemp("m"))
    assert_same(library, ours, text)


@pytest.mark.parametrize("edit, message", [
    (lambda m: setattr(m.pieces[20], "piece", m.pieces[21].piece), r"piece 21 '.*' is already piece 20"),
    (lambda m: setattr(m.pieces[20], "piece", ""), r"piece 20 is empty"),
    (lambda m: setattr(m.pieces[20], "type", pb.ModelProto.SentencePiece.UNKNOWN), r"piece 20 '.*' is a second "
                                                                                   r"unknown piece after piece 0"),
    (lambda m: setattr(m.pieces[0], "type", pb.ModelProto.SentencePiece.NORMAL), r"no unknown piece"),
    (lambda m: setattr(m.pieces[20], "type", pb.ModelProto.SentencePiece.BYTE), r"piece 20 '.*' is a byte piece but "
                                                                                r"byte_fallback is off"),
    (lambda m: m.ClearField("normalizer_spec"), r"no normalizer_spec after its 70 pieces: the file is cut short"),
    (lambda m: m.ClearField("trainer_spec"), r"no trainer_spec after its 70 pieces: the file is cut short"),
    (lambda m: m.denormalizer_spec.MergeFrom(pb.NormalizerSpec(name="nfkc", precompiled_charsmap=b"\x04\0\0\0abcd")),
     r"denormalizer_spec 'nfkc' rewrites decoded text"),
])
def test_a_damaged_or_unsupported_file_is_refused_naming_the_file_and_the_piece(tmp_path, edit, message):
    (tmp_path / "t.model").write_bytes(edited(trained("defaults"), edit))
    with pytest.raises(TokenizerFileError, match=r"t\.model: " + message):
        SentencePieceBPE.from_file(tmp_path / "t.model")


@pytest.mark.parametrize("name", ["defaults", "byte fallback", "user-defined pieces"])
def test_a_file_cut_short_or_with_a_byte_changed_is_refused_or_read_as_sentencepiece_reads_it(tmp_path, name):
    """The general case: any damage. Whatever the package loads, sentencepiece loads too, with the same ids."""
    data = trained(name)
    rng = random.Random(name)
    damaged = [data[:cut] for cut in range(0, len(data), 3)]
    for _ in range(300):
        at = rng.randrange(len(data))
        damaged.append(data[:at] + bytes([rng.randrange(256)]) + data[at + 1:])
    loaded = 0
    for k, bad in enumerate(damaged):
        path = tmp_path / f"d{k}.model"
        path.write_bytes(bad)
        try:
            ours = SentencePieceBPE.from_file(path)
        except TokenizerFileError as exc:
            assert str(path) in str(exc)
            continue
        loaded += 1
        library = spm.SentencePieceProcessor(model_proto=bad)  # raises if sentencepiece refuses what we loaded
        for text in ("the cat sat", "  a  b ", "東京 [X] ab c x\u2581", ""):
            assert_same(library, ours, text)
    assert loaded > 20  # some damage leaves a model both read (a changed score, a changed letter)
