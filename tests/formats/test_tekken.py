"""Mistral's Tekken JSON read into plain data (bpe_course.formats.tekken): ranks, pattern, specials."""

from __future__ import annotations

import base64
import copy
import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course.errors import TokenizerFileError
from bpe_course.formats.tekken import read_tekken
from bpe_course import pretrained
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


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


# ---- Tekken files: any damage is one line naming the file ----------------------------------------------
@lru_cache(maxsize=1)
def small_tekken() -> dict:
    """A valid Tekken file of 256 bytes + 44 merges, cut from Mistral's own (a file of the shape mistral-common reads)."""
    pytest.importorskip("mistral_common")
    full = json.loads(named_file("tekken").read_text(encoding="utf-8"))
    return {"config": dict(full["config"], default_vocab_size=1000 + 300, num_vocab_tokens=300),
            "vocab": full["vocab"][:300],
            "special_tokens": [{"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(["<unk>", "<s>"])]}


def places(data, path=()):
    """Every place in a JSON value, as a path of keys and indices (some of the long vocab list only)."""
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from places(value, path + (key,))
    elif isinstance(data, list):
        for index in list(range(min(len(data), 3))) + ([len(data) - 1, 270] if len(data) > 271 else []):
            yield from places(data[index], path + (index,))


PLACES = list(places(json.loads(json.dumps({"config": {"pattern": "", "default_vocab_size": 0,
                                                       "default_num_special_tokens": 0, "version": ""},
                                            "vocab": [{"rank": 0, "token_bytes": "", "token_str": ""}] * 300,
                                            "special_tokens": [{"rank": 0, "token_str": ""}] * 2}))))


VALUES = [None, True, -1, 0, 5, 2**40, 1.5, "", "x", "!!!", "aGV5!", "AA==", "(unclosed", [], [1], {}, {"a": 1}]


def load_tekken(tmp_path, data):
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, lambda p: pretrained.tekken(p, verify=False, cache=False)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(PLACES), value=st.sampled_from(VALUES + ["DROP"]))
def test_a_tekken_file_changed_anywhere_loads_or_is_one_line_naming_the_file(tmp_path, place, value):
    data = copy.deepcopy(small_tekken())
    parent, key = data, None
    for step in place[:-1]:
        parent = parent[step]
    if place:
        key = place[-1]
        if value == "DROP":
            parent.pop(key) if isinstance(parent, dict) else parent.pop(key)
        else:
            parent[key] = value
    else:
        data = value
    path, tekken_tokenizer = load_tekken(tmp_path, data)
    try:
        tok = tekken_tokenizer(path)
    except TokenizerFileError as exc:
        assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
        return
    assert tok.decode(tok.encode_ordinary("Hello, world!")) == "Hello, world!"


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.__setitem__("vocab", {"a": 1}), r"vocab is a JSON object, not a JSON list"),
    (lambda d: d["vocab"].__setitem__(5, "AA=="), r"vocab\[5\] is a string \('AA=='\), not a JSON object"),
    (lambda d: d["vocab"][5].pop("token_bytes"), r"vocab\[5\]\.token_bytes is missing \(or null\), not a string"),
    (lambda d: d["vocab"][270].__setitem__("token_bytes", "!!!"), r"vocab\[270\]\.token_bytes '!!!' is not base64"),
    (lambda d: d["vocab"][270].__setitem__("token_bytes", "aGV5!"), r"vocab\[270\]\.token_bytes 'aGV5!' is not base64"),
    (lambda d: d["vocab"][270].__setitem__("token_bytes", ""), r"vocab\[270\]\.token_bytes is b''; a token has at "
                                                               r"least one byte"),
    (lambda d: d["vocab"][65].__setitem__("token_bytes", "Qg=="), r"vocab\[65\]\.token_bytes is b'B'; the first 256 "
                                                                  r"ranks are the single bytes in order"),
    (lambda d: d["vocab"][271].__setitem__("token_bytes", d["vocab"][270]["token_bytes"]),
     r"vocab\[271\] holds the token .* of vocab\[270\] again"),
    (lambda d: d["config"].__setitem__("default_vocab_size", "1300"), r"config\.default_vocab_size is a string"),
    (lambda d: d["config"].__setitem__("default_vocab_size", 99_999), r"config\.default_vocab_size - config\.default_num_special_tokens is 98,999, but vocab has 300 "
                                                                        r"entries"),
    (lambda d: d["config"].__setitem__("pattern", "(unclosed"), r"pre-tokenization pattern does not compile"),
    (lambda d: d["special_tokens"][1].__setitem__("token_str", "<unk>"), r"special_tokens\[1\] is '<unk>', the name "
                                                                         r"of special_tokens\[0\] too"),
    (lambda d: d["special_tokens"][1].__setitem__("rank", 7), r"special_tokens\[1\] has rank 7, expected 1"),
    (lambda d: d.__setitem__("special_tokens", "<s>"), r"special_tokens is a string \('<s>'\), not a JSON list"),
])
def test_each_kind_of_damage_names_the_file_and_the_place(tmp_path, edit, message):
    data = copy.deepcopy(small_tekken())
    edit(data)
    path, tekken_tokenizer = load_tekken(tmp_path, data)
    with pytest.raises(TokenizerFileError, match=r"tekken\.json: " + message):
        tekken_tokenizer(path)


def test_a_small_tekken_file_equals_mistral_common():
    data = small_tekken()
    tekken_module = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        path, tekken_tokenizer = load_tekken(Path(tmp), data)
        ours, theirs = tekken_tokenizer(path), tekken_module.Tekkenizer.from_file(str(path))
        for text in ("Hello, world!", "the cat sat on the mat", "<s> [INST]"):
            assert ours.encode_ordinary(text) == theirs.encode(text, bos=False, eos=False)
    assert base64.b64decode(data["vocab"][270]["token_bytes"], validate=True)
