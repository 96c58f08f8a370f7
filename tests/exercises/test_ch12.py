"""Chapter 12 checkers: right answers pass, plausible wrong ones fail with specific feedback and a hint."""

from __future__ import annotations

import pytest
import tokenizers

from exercises.feedback_checks import assert_wrong

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.exercises import ch12
from bpe_course.pretokenize import GPT4_PATTERN


def test_practice_tokenizer_has_specials_and_merges():
    tok = ch12.practice_tokenizer()
    assert set(tok.special_tokens) == set(ch12.PRACTICE_SPECIALS)
    assert len(tok.merges) == 262 - 256 - 2
    assert tok.pattern == GPT4_PATTERN


# ---------------------------------------------------------------- exercise 1

@pytest.mark.parametrize("fmt, name", [("bpe-course", "mine.json"), ("hf", "tokenizer.json"),
                                       ("tiktoken", "mine.tiktoken")])
def test_round_trip_right_in_every_format_that_fits(fmt, name):
    def save_and_reload(tok, folder):
        tok.save(folder / name, format=fmt)
        return Tokenizer.load(folder / name)

    fb = ch12.check_save_and_reload(save_and_reload)
    assert fb and repr(fb).startswith("✅ Correct:") and name in repr(fb)


def test_round_trip_wrong_answers():
    assert_wrong(ch12.check_save_and_reload(lambda tok, folder: tok), "nothing was written")

    def saves_but_returns_original(tok, folder):
        tok.save(folder / "t.json")
        return tok
    assert_wrong(ch12.check_save_and_reload(saves_but_returns_original), "returned the original", "t.json")

    def gpt2_files(tok, folder):
        tok.save(folder, format="gpt2")
        return Tokenizer.load(folder)
    assert_wrong(ch12.check_save_and_reload(gpt2_files), "raised ValueError", "GPT-4 pattern")

    def returns_none(tok, folder):
        tok.save(folder / "t.json")
    assert_wrong(ch12.check_save_and_reload(returns_none), "returned NoneType")

    def loads_a_smaller_one(tok, folder):
        tok.save(folder / "t.json")
        small = Tokenizer.load(folder / "t.json").truncated(2)
        return small
    feedback = ch12.check_save_and_reload(loads_a_smaller_one)
    assert_wrong(feedback, "after the round trip")


# ---------------------------------------------------------------- exercise 2

@pytest.fixture(scope="module")
def tok_and_text():
    train, heldout = corpus.train_heldout("python_docs")
    vocab, merges = train_bpe(train[:60_000], 700, ["<|endoftext|>"], pattern="gpt4")
    return Tokenizer(vocab, merges, ["<|endoftext|>"], pattern="gpt4"), heldout[:8_000]


def independent_fraction(tok, text, keep=lambda p: any(c.isalpha() for c in p), distinct=False, strip=False):
    """A second implementation, through encode_ordinary rather than the checker's encode_piece."""
    import regex
    pieces = [p for p in regex.findall(tok.pattern, text) if keep(p)]
    if distinct:
        pieces = sorted(set(pieces))
    if strip:
        pieces = [p.strip() for p in pieces]
    return sum(len(tok.encode_ordinary(p)) == 1 for p in pieces) / len(pieces)


def test_single_token_fraction_right(tok_and_text):
    tok, text = tok_and_text
    fraction = independent_fraction(tok, text)
    assert 0.2 < fraction < 0.95
    fb = ch12.check_single_token_fraction(fraction, tok, text)
    assert fb and f"{fraction:.1%}" in repr(fb)
    assert ch12.check_single_token_fraction(round(fraction, 4), tok, text)


def test_single_token_fraction_wrong_answers(tok_and_text):
    tok, text = tok_and_text
    right = independent_fraction(tok, text)
    assert_wrong(ch12.check_single_token_fraction(right * 100, tok, text), "percentage")
    assert_wrong(ch12.check_single_token_fraction(independent_fraction(tok, text, keep=lambda p: True), tok, text),
                 "all pre-tokens")
    assert_wrong(ch12.check_single_token_fraction(independent_fraction(tok, text, distinct=True), tok, text),
                 "distinct word once")
    assert_wrong(ch12.check_single_token_fraction(independent_fraction(tok, text, strip=True), tok, text),
                 "leading space")
    assert_wrong(ch12.check_single_token_fraction(0.0, tok, text), "0.0000 is not the fraction")
    assert_wrong(ch12.check_single_token_fraction(-2, tok, text), "not a fraction")
    assert_wrong(ch12.check_single_token_fraction("0.5", tok, text), "give a number")


# ---------------------------------------------------------------- exercise 3

def right_hf_ids(tok, folder, text):
    tok.save(folder / "tokenizer.json", format="hf")
    return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids


def test_hf_ids_right():
    fb = ch12.check_hf_ids(right_hf_ids)
    assert fb and "tokenizer.json" in repr(fb)


def test_hf_ids_wrong_answers():
    assert_wrong(ch12.check_hf_ids(lambda tok, folder, text: tok.encode(text, allowed_special="all")),
                 "nothing was written")
    assert_wrong(ch12.check_hf_ids(lambda tok, folder, text: []), "nothing was written")
    assert_wrong(ch12.check_hf_ids(lambda tok, folder, text: tok.encode(text)), "raised ValueError")

    def returns_encoding(tok, folder, text):
        tok.save(folder / "tokenizer.json", format="hf")
        return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text)
    assert_wrong(ch12.check_hf_ids(returns_encoding), "returned Encoding", ".ids")

    def specials_as_text(tok, folder, text):
        tok.save(folder / "tokenizer.json", format="hf")
        hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        hf.encode_special_tokens = True  # special tokens encoded as ordinary text: different ids
        return hf.encode(text).ids
    assert_wrong(ch12.check_hf_ids(specials_as_text), "<|endoftext|>", "first differ at position")
