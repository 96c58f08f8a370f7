"""bpe_course.algorithms.lattice: the forward pass against brute force over every segmentation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.algorithms.lattice import marginal_bits, marginal_log_probs, segmentations, token_lattice
from bpe_course.lm import KneserNey
from bpe_course.pretokenize import pretokenize, resolve_pattern

ALPHABET = "ab c"


def brute_force_bits(model: KneserNey, data: bytes, vocab: dict[int, bytes], boundaries: set[int] | None = None) -> float:
    """-log2 of the sum of 2^-bits over every segmentation (inside pre-tokens when ``boundaries`` are given)."""
    ids = {t: i for i, t in vocab.items()}
    total = 0.0
    for seg in segmentations(data, ids):
        if boundaries is not None:
            ends, at = set(), 0
            for i in seg:
                ends.add(at)
                at += len(vocab[i])
            # a segmentation respects the pre-tokens when every boundary is a token boundary
            if not boundaries <= ends | {len(data)}:
                continue
        total += 2.0 ** -model.bits(seg)
    return -math.log2(total)


def boundaries_of(text: str, pattern: str) -> set[int]:
    out, at = {0}, 0
    for piece in pretokenize(text, resolve_pattern(pattern)):
        at += len(piece.encode("utf-8"))
        out.add(at)
    return out


@st.composite
def models(draw):
    train_text = draw(st.text(ALPHABET, min_size=20, max_size=80))
    n_merges = draw(st.integers(0, 12))
    vocab, merges = train_bpe(train_text, 256 + n_merges)
    tok = Tokenizer(vocab, merges)
    order = draw(st.integers(1, 4))
    return tok, KneserNey(tok.encode(train_text), order, len(tok.vocab))


@settings(max_examples=150, deadline=None)
@given(models(), st.text(ALPHABET, min_size=1, max_size=9))
def test_forward_pass_equals_the_sum_over_every_segmentation(model_and_tok, text):
    tok, model = model_and_tok
    data = text.encode()
    assert marginal_bits(model, data, tok.vocab) == pytest.approx(brute_force_bits(model, data, tok.vocab), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(models(), st.text(ALPHABET, min_size=1, max_size=9))
def test_inside_pretokens_equals_the_sum_over_segmentations_that_respect_them(model_and_tok, text):
    tok, model = model_and_tok
    data = text.encode()
    expected = brute_force_bits(model, data, tok.vocab, boundaries_of(text, "gpt2"))
    assert marginal_bits(model, data, tok.vocab, pattern="gpt2") == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(models(), st.text(ALPHABET, min_size=2, max_size=9), st.data())
def test_prefix_probabilities_at_cuts(model_and_tok, text, data):
    tok, model = model_and_tok
    raw = text.encode()
    cut = data.draw(st.integers(1, len(raw) - 1))
    at_cut, whole = marginal_log_probs(model, raw, tok.vocab, cuts=[cut])
    assert -at_cut / math.log(2) == pytest.approx(brute_force_bits(model, raw[:cut], tok.vocab), abs=1e-9)
    assert -whole / math.log(2) == pytest.approx(brute_force_bits(model, raw, tok.vocab), abs=1e-9)


def test_the_marginal_never_costs_more_than_the_canonical_segmentation():
    train, heldout = corpus.train_heldout("python_docs")
    vocab, merges = train_bpe(train[:60_000], 256 + 300)
    tok = Tokenizer(vocab, merges)
    text = heldout[:3000]
    for order in (1, 2, 3, 4):
        model = KneserNey(tok.encode(train[:60_000]), order, len(vocab))
        canonical = model.bits(tok.encode(text))
        inside = marginal_bits(model, text, vocab, pattern="gpt2")
        everywhere = marginal_bits(model, text, vocab)
        assert everywhere <= inside + 1e-6 <= canonical + 2e-6


def test_a_byte_missing_from_the_vocabulary_is_named():
    with pytest.raises(ValueError, match="byte 0x63 at offset 2 is not in the vocabulary"):
        token_lattice(b"abc", {b"a": 0, b"b": 1}, 1)
    model = KneserNey([0, 1], 1, 2)
    with pytest.raises(ValueError, match="empty text"):
        marginal_bits(model, b"", {0: b"a", 1: b"b"})
