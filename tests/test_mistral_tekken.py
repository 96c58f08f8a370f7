"""Tekken read into the course's one data model (bpe_course.mistral.tekken) against mistral-common's Tekkenizer."""

from __future__ import annotations

import base64
import json
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import corpus
from bpe_course.bpe import merges_from_ranks
from bpe_course.errors import TokenizerFileError
from collections import Counter

from bpe_course.fast.count import count_ordinary_text
from bpe_course.mistral import TEKKEN_FILE, mistral_file, read_tekken, tekken, tekken_tokenizer
from bpe_course.pretokenize import TEKKEN_PATTERN, pretokenize, safe_cut, split_specials
from bpe_course.unicode_classes import exact_pattern, fast_splitter, unicode_disagreements
from strategies import TRICKY_PIECES, tricky_text, valid_text


@lru_cache(maxsize=1)
def _library():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    return Tekkenizer.from_file(str(mistral_file(TEKKEN_FILE)))


@pytest.fixture(scope="module")
def library():
    return _library()


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(valid_text, st.lists(st.sampled_from([*TRICKY_PIECES, "[INST]", "</s>", "<s>", "Ⅻ", "Ǆ"]),
                                            max_size=12).map("".join)))
def test_same_ids_as_mistral_common(text):
    assert tekken().encode_ordinary(text) == _library().encode(text, bos=False, eos=False)


@pytest.mark.parametrize("name", corpus.names())
def test_same_ids_on_the_course_corpora(library, name):
    text = corpus.load(name)
    assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False)


def test_udhr_same_ids(library):
    for language in corpus.UDHR_LANGUAGES:
        text = "\n".join(corpus.udhr(language).values())
        assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False), language


def test_the_data_model(library):
    tok = tekken()
    assert len(tok.vocab) == library.n_words == 131_072
    assert len(tok.special_tokens) == library.num_special_tokens == 1_000
    assert {s: tok.special_tokens[s] for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")} == {
        s: library.get_special_token(s) for s in ("<unk>", "<s>", "</s>", "[INST]", "[/INST]")}
    assert len(tok.merges) == 131_072 - 1_000 - 256
    ranks, pattern, _ = read_tekken(mistral_file(TEKKEN_FILE))
    assert tok.merges == merges_from_ranks(ranks) and tok.pattern == pattern
    # every ordinary id holds the bytes mistral-common's inner tiktoken Encoding gives it
    assert all(tok.vocab[i] == library._model.decode_single_token_bytes(i - 1_000) for i in range(1_000, 131_072))


# ---- Tekken's pattern runs on the package's own splitter, by tiktoken's tables, as mistral-common's tiktoken does ----
def test_the_files_pattern_is_the_known_one():
    """Only this exact pattern string takes the fast splitter and the shortcuts of counting and streaming."""
    assert read_tekken(mistral_file(TEKKEN_FILE))[1] == TEKKEN_PATTERN == tekken().pattern


@settings(max_examples=300, deadline=None)
@given(tricky_text)
def test_the_fast_splitter_equals_tiktokens_tables(text):
    assert pretokenize(text, TEKKEN_PATTERN) == exact_pattern(TEKKEN_PATTERN).findall(text)


def test_every_disagreeing_character_is_split_as_mistral_common(library):
    """Characters whose class the regex module's Unicode and tiktoken's tables disagree on, in context."""
    texts = [f"{ch}'s x{ch}Y A{ch}b {ch}1" for ch in sorted(unicode_disagreements())]
    for start in range(0, len(texts), 200):
        text = "\n".join(texts[start:start + 200])
        assert tekken().encode_ordinary(text) == library.encode(text, bos=False, eos=False)


@pytest.mark.parametrize("below", [0x100, 0x10000])
def test_both_forms_of_the_fast_splitter_on_every_character(below):
    chars = "".join(chr(c) for c in range(below) if not 0xD800 <= c < 0xE000)
    text = "".join(f"x'{ch}s a{ch}B {ch}1{ch}\n  {ch}x" for ch in chars)
    assert fast_splitter(TEKKEN_PATTERN, below).findall(text) == exact_pattern(TEKKEN_PATTERN).findall(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(tricky_text, max_size=6).map(" ".join))
def test_segment_counting_equals_pretokenize(text):
    assert count_ordinary_text(text, TEKKEN_PATTERN) == Counter(pretokenize(text, TEKKEN_PATTERN))


@settings(max_examples=300, deadline=None)
@given(tricky_text, st.integers(0, 60))
def test_safe_cut_never_changes_pretokens(text, limit):
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    specials = ["</s>"]
    cut = safe_cut(text, TEKKEN_PATTERN, specials, limit=limit)
    if cut:
        def pieces(part):
            return [x for p, is_special in split_specials(part, specials)
                    for x in ([p] if is_special else pretokenize(p, TEKKEN_PATTERN))]
        assert pieces(text[:cut]) + pieces(text[cut:]) == pieces(text)


def test_tekken_as_built_lazily_equals_tekken_built_with_every_check(library):
    """tekken() reads the ranks only (its merges when asked for); tekken_tokenizer() builds and checks all."""
    lazy, checked = tekken(), tekken_tokenizer(mistral_file(TEKKEN_FILE))
    assert repr(lazy) == repr(checked)
    text = corpus.load("languages")[:20_000]
    assert lazy.encode_ordinary(text) == checked.encode_ordinary(text) == library.encode(text, bos=False, eos=False)
    assert (lazy.vocab, lazy.special_tokens, lazy.pattern, lazy.ranks_by_id) == \
        (checked.vocab, checked.special_tokens, checked.pattern, checked.ranks_by_id)
    assert lazy._id_of == checked._id_of and lazy.merges == checked.merges


def test_decode_round_trips(library):
    text = corpus.load("languages")
    assert tekken().decode(library.encode(text, bos=False, eos=False)) == text


def _write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_small_tekken_file(tmp_path):
    """A hand-made file: ids are ranks plus the reserved count, merges recovered, specials named."""
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    vocab += [{"rank": 256, "token_bytes": base64.b64encode(b"ab").decode(), "token_str": "ab"},
              {"rank": 257, "token_bytes": base64.b64encode(b"abc").decode(), "token_str": "abc"}]
    config = {"pattern": r"\S+|\s+", "default_vocab_size": 258 + 3, "default_num_special_tokens": 3, "version": "v3"}
    specials = [{"rank": i, "token_str": name, "is_control": True} for i, name in enumerate(["<unk>", "<s>", "</s>"])]
    tok = tekken_tokenizer(_write(tmp_path / "t.json", {"config": config, "vocab": vocab, "special_tokens": specials}))
    assert tok.encode_ordinary("abc ab") == [260, 3 + 32, 259]
    assert tok.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}
    assert tok.merges == [(b"a", b"b"), (b"ab", b"c")]


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
