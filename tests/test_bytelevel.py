"""GPT-2's printable alphabet for bytes (bpe_course.bytelevel), against GPT-2's own encoder.json and the
alphabet of Hugging Face's ByteLevel pre-tokenizer."""

from __future__ import annotations

import json

import pytest
import tokenizers
from hypothesis import given, settings, strategies as st

from bpe_course.bytelevel import BYTE_TO_UNICODE, UNICODE_TO_BYTE, bytes_to_unicode, str_to_token, token_to_str
from bpe_course.pretrained import named_file


def test_the_alphabet_is_hugging_faces_byte_level_alphabet():
    assert sorted(BYTE_TO_UNICODE.values()) == sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    assert bytes_to_unicode() == BYTE_TO_UNICODE and list(BYTE_TO_UNICODE) == list(range(256))


def test_gpt2s_encoder_writes_every_single_byte_token_in_it():
    """GPT-2's ids 0-255 are the single bytes, written in this alphabet: id k is the k-th key of its table."""
    encoder = json.loads(named_file("gpt2", "encoder.json").read_text(encoding="utf-8"))
    single = {key: i for key, i in encoder.items() if len(key) == 1 and i < 256}
    assert len(single) == 256
    # GPT-2 numbered the printable bytes first, then the moved ones: its id order is not the byte order
    assert {UNICODE_TO_BYTE[key] for key in single} == set(range(256))
    assert [UNICODE_TO_BYTE[key] for key in sorted(single, key=single.get)][:3] == [ord("!"), ord('"'), ord("#")]


def test_printable_bytes_keep_their_character_and_the_others_move_up_in_order():
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) not in " \xa0\xad"]
    assert all(BYTE_TO_UNICODE[b] == chr(b) for b in printable)
    moved = [b for b in range(256) if b not in printable]
    assert len(moved) == 68 and [BYTE_TO_UNICODE[b] for b in moved] == [chr(256 + k) for k in range(68)]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_are_written_and_read_back(token):
    text = token_to_str(token)
    assert len(text) == len(token) and str_to_token(text) == token
    assert text.isprintable() or not text


def test_a_character_outside_the_alphabet_is_named():
    with pytest.raises(ValueError, match=r"'ab\\n' is not in GPT-2's byte alphabet \(character '\\n'\)"):
        str_to_token("ab\n")
