"""SentencePiece BPE rebuilt (bpe_course.algorithms.sentencepiece_bpe) against the sentencepiece library itself,
on Mistral's v1 and v3 .model files from the mistral-common wheel."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings, strategies as st

from strategies import TRICKY_PIECES

from bpe_course import corpus
from bpe_course.algorithms.sentencepiece_bpe import (SentencePieceBPE, SentencePieceModel, heap_merge_by_score,
                                                     loop_merge_by_score, merge_by_score)
from bpe_course.pretrained import mistral_v1 as sentencepiece_v1, mistral_v3 as sentencepiece_v3, named_file


OURS = {"v1": sentencepiece_v1, "v3": sentencepiece_v3}

FILES = {"v1": "mistral-v1", "v3": "mistral-v3"}


@pytest.fixture(scope="module", params=["v1", "v3"])
def pair(request):
    """(ours, the library's processor) for one model file."""
    return OURS[request.param](), spm.SentencePieceProcessor(model_file=str(named_file(FILES[request.param])))


# Text that stresses SentencePiece: whitespace runs, digits, CJK, emoji, characters no piece covers,
# the v3 file's user-defined pieces and spelled-out control pieces.
SP_PIECES = [*TRICKY_PIECES, "[INST]", "[/INST]", "</s>", "<s>", "<unk>", "▁", "▁▁", "[REFERENCE_DOC_1]",
             "[REFERENCE_DOC_10]", "[REFERENCE_DOC_", "<0x41>", "    ", "\t\t", "2024-11-25", "1,000,000", "ᐃᓄᒃᑎᑐᑦ",
             "ꦧꦱꦗꦮ", "𓀀", "漢字かなカナ", "สวัสดี", "👍🏽", "\U0010FFFF", "\x7f", "x².y", "²", ".", "(word),", "_id",
             "a_b", "³.", "naïve,", "\u0301."]

valid_char = st.characters(exclude_categories=["Cs"])  # the library refuses lone surrogates

sp_text = st.lists(st.one_of(st.sampled_from(SP_PIECES), st.text(valid_char, max_size=5)), max_size=20).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=sp_text)
def test_same_ids_as_sentencepiece(pair, text):
    ours, library = pair
    assert ours.encode(text) == library.encode(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=sp_text)
def test_decodes_as_sentencepiece_does(pair, text):
    ours, library = pair
    ids = library.encode(text)
    assert ours.decode(ids) == library.decode(ids)


@pytest.mark.parametrize("name", corpus.names())
def test_same_ids_on_the_course_corpora(pair, name):
    ours, library = pair
    text = corpus.load(name)
    assert ours.encode(text) == library.encode(text)


def test_udhr_same_ids(pair):
    ours, library = pair
    for language in ("amh", "tam", "kor", "yor", "vie", "cmn_hans"):
        text = "\n".join(corpus.udhr(language).values())
        assert ours.encode(text) == library.encode(text), language


def test_the_finer_segments_cut_only_where_no_piece_holds_the_two_characters():
    """v1's pieces hold a letter or digit beside anything else (but the visible space) only in '².': the
    pairs found in C are those a plain loop over every piece finds."""
    from bpe_course.formats.sentencepiece import SPACE
    sp = sentencepiece_v1()
    kind = [lambda c: c.isalnum(), lambda c: not c.isalnum() and c != SPACE]
    naive = {p[k:k + 2] for p in sp.id_of for k in range(len(p) - 1)
             if (kind[0](p[k]) and kind[1](p[k + 1])) or (kind[1](p[k]) and kind[0](p[k + 1]))}
    assert naive == {"².", } and sp._joined.pattern == "²\\."
    assert sp._fine_segments.findall(sp.normalize("The (cat), sat_on ².x")) == [
        "▁The", "▁(", "cat", "),", "▁sat", "_", "on", "▁²", ".", "x"]
    assert sentencepiece_v3()._fine_segments is None  # it has user-defined pieces: cut at visible spaces only


@settings(max_examples=300, deadline=None)
@given(word=st.text(st.sampled_from("▁lowerst"), max_size=14),
       frozen=st.sets(st.integers(0, 13), max_size=3))
def test_the_priority_queue_merges_as_the_plain_loop(word, frozen):
    # scores with ties, so the leftmost-first rule is exercised
    scores = {"lo": -1.0, "ow": -1.0, "we": -2.0, "er": -2.0, "low": -3.0, "es": -1.0, "st": -4.0, "est": -4.0,
              "▁l": -5.0, "▁low": -2.0, "lowe": -6.0, "lower": -6.0, "rs": -1.0, "ss": -0.5, "▁▁": -0.5}
    frozen = frozenset(i for i in frozen if i < len(word))
    assert heap_merge_by_score(list(word), scores, frozen) == merge_by_score(list(word), scores, frozen)
    if not frozen:
        ranks = {piece: -score for piece, score in scores.items()}
        assert loop_merge_by_score(list(word), ranks) == merge_by_score(list(word), scores)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(sp_text, min_size=1, max_size=4))
def test_the_segment_cache_across_calls_and_when_full(pair, texts, monkeypatch):
    """A fresh model, then calls that find some segments cached; a cache too small for one call's segments."""
    import bpe_course.algorithms.sentencepiece_bpe as sentencepiece_bpe
    ours, library = pair
    fresh = SentencePieceBPE(ours.model)
    for text in texts:
        assert fresh.encode(text) == library.encode(text)
    monkeypatch.setattr(sentencepiece_bpe, "SEGMENT_CACHE_LIMIT", 3)
    tiny = SentencePieceBPE(ours.model)
    for text in texts + texts:
        assert tiny.encode(text) == library.encode(text)
        assert len(tiny._cache) <= 3


def test_settings_change_the_ids():
    """remove_extra_whitespaces and add_dummy_prefix, read from the model, do what SentencePiece's do."""
    pieces = ["<unk>", "<s>", "</s>", "▁", "a", "b", "▁a", "ab"]
    base = dict(pieces=pieces, scores=[0, 0, 0, -1, -2, -3, -4, -5], kinds=["unknown", "control", "control"] + ["normal"] * 5)
    plain = SentencePieceBPE(SentencePieceModel(**base))
    assert plain.encode_as_pieces("  a  b ") == ["▁", "▁", "▁a", "▁", "▁", "b", "▁"]
    tidy = SentencePieceBPE(SentencePieceModel(**base, remove_extra_whitespaces=True))
    assert tidy.encode_as_pieces("  a  b ") == ["▁a", "▁", "b"]
    bare = SentencePieceBPE(SentencePieceModel(**base, add_dummy_prefix=False))
    assert bare.encode_as_pieces("ab") == ["ab"] and plain.encode_as_pieces("ab") == ["▁a", "b"]
    assert plain.encode("abc") == [6, 5, 0]  # no 'c' and no byte fallback: <unk>


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="lone surrogate '\\\\ud800' at character 1"):
        sentencepiece_v1().encode("x\ud800")
    with pytest.raises(TypeError, match="text must be a str, not bytes"):
        sentencepiece_v1().encode(b"x")
    with pytest.raises(ValueError, match="id 40000 at position 1"):
        sentencepiece_v1().decode([1, 40000])


def _trained(**settings) -> tuple[SentencePieceBPE, spm.SentencePieceProcessor]:
    """A small SentencePiece BPE model trained here with ``settings``: ours and the library's."""
    import io
    lines = [line for line in corpus.load("python_docs")[:60_000].splitlines() if line.strip()]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=600, model_type="bpe",
                                   normalization_rule_name="identity", num_threads=1, minloglevel=2, **settings)
    path = Path(tempfile.mkdtemp()) / "m.model"
    path.write_bytes(model.getvalue())
    return SentencePieceBPE.from_file(path), spm.SentencePieceProcessor(model_file=str(path))


SETTINGS = [dict(byte_fallback=True, remove_extra_whitespaces=True),
            dict(byte_fallback=False, add_dummy_prefix=False, remove_extra_whitespaces=False),
            dict(byte_fallback=True, user_defined_symbols=["<sep>", "[X]", "[XY]"], remove_extra_whitespaces=False)]


@pytest.fixture(scope="module", params=range(len(SETTINGS)), ids=["tidy-spaces", "no-prefix-no-fallback", "user-defined"])
def trained(request):
    return _trained(**SETTINGS[request.param])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.one_of(st.sampled_from([*SP_PIECES, "<sep>", "[X]", "[XY]", "[X", "   "]),
                               st.text(valid_char, max_size=5)), max_size=16).map("".join))
def test_other_settings_give_the_librarys_ids(trained, text):
    """Models trained here with other normaliser settings, no byte fallback and user-defined pieces."""
    ours, library = trained
    assert ours.encode(text) == library.encode(text)


def test_the_library_refuses_what_we_refuse():
    library = spm.SentencePieceProcessor(model_file=str(named_file("mistral-v1")))
    with pytest.raises(Exception):
        library.encode("x\ud800")
    with pytest.raises(ValueError, match="lone surrogate"):
        sentencepiece_v1().encode("x\ud800")


# ---- decoding any ids (issue 35 §2) -------------------------------------------------------------------
def _special_ids(ours: SentencePieceBPE) -> list[int]:
    """Ids a random sequence should meet often: control, unknown, byte and user-defined pieces, and ▁ pieces."""
    return [i for i, (p, k) in enumerate(zip(ours.pieces, ours.model.kinds)) if k != "normal" or p.startswith("▁▁")
            or p == "▁"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_ids_decode_as_sentencepiece_does(pair, data):
    """Ids encode never writes: a stream cut inside a byte-fallback character, <unk> or <0x20> first, control
    pieces between a leading ▁ piece and text, byte pieces that are no UTF-8 at all."""
    ours, library = pair
    ids = data.draw(st.lists(st.one_of(st.sampled_from(_special_ids(ours)), st.integers(0, len(ours.pieces) - 1)),
                             max_size=12))
    assert ours.decode(ids) == library.decode(ids)


def test_every_prefix_of_an_encoding_decodes_as_sentencepiece_does(pair):
    """What a learner meets decoding a model's output id by id: ids cut after any of them."""
    ours, library = pair
    ids = library.encode("ﬁne café 日本語 ᐃᓄᒃᑎᑐᑦ 🫶 ꦧꦱꦗꦮ 𓀀 x  y")
    assert [ours.decode(ids[:k]) for k in range(len(ids) + 1)] == [library.decode(ids[:k]) for k in range(len(ids) + 1)]
    byte = {int(p[3:5], 16): i for i, p in enumerate(ours.pieces) if ours.model.kinds[i] == "byte"}
    cut = [ours.id_of["▁"], byte[0xEF], byte[0xAC]]  # two bytes of the three of "ﬁ"
    assert ours.decode(cut) == library.decode(cut) == "\ufffd\ufffd"  # one U+FFFD per byte (the ▁: dummy prefix)
    for first in ([byte[0x20]], [ours.model.unk_id]):  # a leading space written as a byte, or <unk>, keeps its space
        assert ours.decode(first + [ours.id_of["▁a"]]) == library.decode(first + [ours.id_of["▁a"]])


def test_models_trained_here_decode_any_ids_as_the_library(trained):
    ours, library = trained
    rng = __import__("random").Random(35)
    for _ in range(3000):
        ids = [rng.randrange(len(ours.pieces)) for _ in range(rng.randint(0, 8))]
        assert ours.decode(ids) == library.decode(ids), ids
