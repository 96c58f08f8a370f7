"""Round 3 (issue 34), raw tracebacks and false messages: a malformed Tekken file is one line naming the
file and the place; NumPy integers are integers everywhere ids and counts are taken; a zero discount
costs infinitely many bits instead of a math error; text given where counts are taken says so; Ctrl-C
while the command starts is one line.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course import TokenizerFileError, gpt2, train_bpe
from bpe_course.lm import KneserNey, bits_per_byte, fit_orders
from bpe_course.train import count_pretokens
from bpe_course.variants import Merges, check_merges_count, train_picky, train_plain


# ---- Tekken files: any damage is one line naming the file ----------------------------------------------
@lru_cache(maxsize=1)
def small_tekken() -> dict:
    """A valid Tekken file of 256 bytes + 44 merges, cut from Mistral's own (a file of the shape mistral-common reads)."""
    pytest.importorskip("mistral_common")
    from bpe_course.mistral import TEKKEN_FILE, mistral_file
    full = json.loads(mistral_file(TEKKEN_FILE).read_text(encoding="utf-8"))
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
    from bpe_course.mistral import tekken_tokenizer
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, tekken_tokenizer


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


# ---- NumPy integers are integers --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ids() -> list[int]:
    return gpt2().encode("the cat sat on the mat, and the cat sat on the hat; " * 20)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.int32, np.int64])
def test_kneser_ney_takes_what_np_load_gives(ids, dtype):
    array = np.array(ids, dtype=dtype)
    model = KneserNey(array, np.int64(3), np.int64(50_257))
    plain = KneserNey(ids, 3, 50_257)
    assert model.bits(array[:40]) == plain.bits(ids[:40])
    assert model.prob(array[5], array[:5]) == plain.prob(ids[5], ids[:5])
    assert fit_orders(array, [np.int8(1), 2], np.uint32(50_257))[2].bits(array) == fit_orders(ids, [1, 2], 50_257)[2].bits(ids)
    with pytest.raises(ValueError, match=r"ids\[1\] = 50257 is not a token id from 0 to 50256"):
        KneserNey(np.array([1, 50_257], dtype=dtype if dtype != np.uint16 else np.uint32), 2, 50_257)
    with pytest.raises(ValueError, match=r"ids\[0\] = np\.float64\(1\.0\) \(float64\) is not an integer"):
        KneserNey(np.array([1.0, 2.0]), 2, 50_257)


def test_numpy_integers_count_wherever_ids_and_counts_are_taken(ids):
    sp = pytest.importorskip("sentencepiece")
    from bpe_course.mistral import sentencepiece_v1
    v1 = sentencepiece_v1()
    encoded = v1.encode("Hello there, general Kenobi")
    assert v1.decode(np.array(encoded, dtype=np.uint16)) == v1.decode(encoded) == "Hello there, general Kenobi"
    with pytest.raises(ValueError, match=r"id 1\.5 \(float\) at position 0 is not an integer"):
        v1.decode([1.5])
    assert check_merges_count(np.int64(7)) == 7 and type(check_merges_count(np.int64(7))) is int
    counts = count_pretokens("low lower lowest newer wider " * 5)
    assert train_plain(counts, np.int64(5)) == train_plain(counts, 5)
    assert train_picky(counts, np.int32(5), np.float32(0.5)).merges == train_picky(counts, 5, 0.5).merges
    tok = gpt2()
    assert tok.encode_ordinary_truncated("lowest", np.int64(300)) == tok.encode_ordinary_truncated("lowest", 300)
    assert sp is not None


# ---- a zero discount: infinitely many bits, not a math error ----------------------------------------------
def test_a_token_of_probability_zero_costs_infinitely_many_bits(ids):
    model = KneserNey(ids, 2, 50_257, discounts=(0.5, 0))  # level 2 keeps all its counts: an unseen pair gets 0
    unseen = gpt2().encode(" zebra")
    assert model.prob(unseen[0], ids[:1]) == 0.0  # "the" was seen, never before " zebra"
    assert model.bits(ids[:1] + unseen) == math.inf
    assert bits_per_byte(model, ids[:1] + unseen, "the zebra") == math.inf  # was ValueError: math domain error
    assert math.isfinite(model.bits(ids[:20]))  # seen pairs only: finite
    assert math.isfinite(KneserNey(ids, 2, 50_257, discounts=(0.5, 0.1)).bits(ids[:1] + unseen))


# ---- text where counts are taken --------------------------------------------------------------------------
@pytest.mark.parametrize("train", [lambda c: train_plain(c, 5), lambda c: train_picky(c, 5, 0.9), Merges],
                         ids=["train_plain", "train_picky", "Merges"])
@pytest.mark.parametrize("given_value, kind", [("low lower lowest", "str"), (["low", "lower"], "list"),
                                               (b"low", "bytes")])
def test_text_where_counts_are_taken_says_what_to_pass(train, given_value, kind):
    with pytest.raises(TypeError, match=rf"(counts must be pre-token counts|sequences must be).*{kind}"):
        train(given_value)


def test_counts_of_the_wrong_types_are_named():
    with pytest.raises(TypeError, match=r"counts must map pre-tokens \(str\) to counts \(int\); got b'low': 3"):
        train_plain({b"low": 3}, 5)
    with pytest.raises(TypeError, match=r"got 'low': 2\.5"):
        train_picky({"low": 2.5}, 5, 0.9)
    assert train_plain(count_pretokens("low lower lowest " * 3), 3) == train_bpe("low lower lowest " * 3, 259)[1]


# ---- Ctrl-C while the command starts --------------------------------------------------------------------
INTERRUPTED_IMPORT = """
import sys
class Interrupt:  # Ctrl-C in the middle of loading the command, deterministically
    def find_spec(self, name, path=None, target=None):
        if name == "bpe_course.cli":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
from bpe_course_command import main
sys.exit(main())
"""


def test_ctrl_c_while_the_command_loads_is_one_line():
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT, "--version"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 130
    assert done.stderr == "bpe-course: interrupted while starting; nothing was done\n"
    ran = subprocess.run([sys.executable, "-c", "import sys; from bpe_course_command import main; sys.exit(main())",
                          "--version"], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.startswith("bpe-course ")
