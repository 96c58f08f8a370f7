"""bpe_course.algorithms.lattice: the forward pass against brute force over every segmentation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.algorithms.lattice import (marginal_bits, marginal_by_unit, marginal_log_probs, segmentations,
                                           token_across, token_lattice)
from bpe_course.algorithms.lm import KneserNey
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
    return tok, KneserNey(tok.encode(train_text), order, tok.n_vocab)


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


def naive_contexts(ids: list[int], order: int) -> set[tuple[int, ...]]:
    """The contexts an interpolated Kneser-Ney model of ``order`` has counts for, read off ``ids`` directly.

    The top level counts every n-gram; each lower level k counts the k-grams that some token precedes
    (continuations). A context is an n-gram without its last token.
    """
    out = set()
    for k in range(1, order + 1):
        first = 0 if k == order else 1
        out |= {tuple(ids[i:i + k - 1]) for i in range(first, len(ids) - k + 1)}
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.integers(1, 4), st.data())
def test_kneser_ney_contexts_are_the_seen_contexts_and_decide_every_probability(ids, order, data):
    model = KneserNey(ids, order, 5)
    contexts = model.contexts()
    assert contexts == naive_contexts(ids, order)
    # the lattice's premise: a history scores every token as its longest suffix among the contexts does
    history = data.draw(st.lists(st.integers(0, 4), max_size=order - 1))
    suffix = next((tuple(history[j:]) for j in range(len(history) + 1) if tuple(history[j:]) in contexts), ())
    for w in range(5):
        assert model.prob(w, history) == model.prob(w, list(suffix))


def test_a_model_that_saw_no_context_still_sums_every_segmentation():
    """A model trained on one token has no context at any level: the only state is the empty history (no hang)."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    model = KneserNey([256], 3, 257)
    assert model.contexts() == set()
    assert marginal_bits(model, b"abab", vocab) == pytest.approx(brute_force_bits(model, b"abab", vocab), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(models(), st.lists(st.text(ALPHABET, min_size=1, max_size=4), min_size=1, max_size=3))
def test_bits_by_unit_are_differences_of_prefix_sums_and_add_up_to_the_whole(model_and_tok, parts):
    tok, model = model_and_tok
    text = "".join(parts)
    sizes = [len(p.encode()) for p in parts]
    data = text.encode()
    cuts = [sum(sizes[:k]) for k in range(1, len(sizes))]
    spans = [cut for cut in cuts if any(data[i:i + len(t)] == t for t in tok.vocab.values()
                                        for i in range(max(0, cut - len(t) + 1), cut))]
    if spans:  # a token could cross a unit's start: the units would lose segmentations, so the call must refuse
        with pytest.raises(ValueError, match=f"starts at byte offset {spans[0]:,}"):
            marginal_by_unit(model, text, tok.vocab, sizes)
        return
    units = marginal_by_unit(model, text, tok.vocab, sizes)
    assert [n for _, n in units] == sizes
    assert sum(b for b, _ in units) == pytest.approx(marginal_bits(model, text, tok.vocab), abs=1e-9)
    data, at = text.encode(), 0
    before = 0.0
    for (bits, n) in units:
        at += n
        prefix = brute_force_bits(model, data[:at], tok.vocab)
        assert bits == pytest.approx(prefix - before, abs=1e-9)
        before = prefix
    with pytest.raises(ValueError, match="add up to the text's"):
        marginal_by_unit(model, text, tok.vocab, [*sizes, 1])


def test_a_token_that_could_cross_a_unit_start_is_named():
    """A paragraph that starts with a space after a newline, and a vocabulary holding b"\\n ": refuse, naming the cut."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"\n "}
    model = KneserNey([97, 10, 256, 98], 2, 257)
    text = "a\n\n b\n"
    with pytest.raises(ValueError, match=r"unit 2 of 2 starts at byte offset 3, but the vocabulary token b'\\n ' \(id 256\)"):
        marginal_by_unit(model, text, vocab, [3, 3])
    # the same text cut before the newline has no token across the cut, and the units add up to the whole
    units = marginal_by_unit(model, text, vocab, [2, 4])
    assert sum(b for b, _ in units) == pytest.approx(marginal_bits(model, text, vocab), abs=1e-9)
    # inside GPT-2's pre-tokens no token crosses "\n" | " b", so the first cut is allowed there
    assert token_across(text.encode(), vocab, 3, pattern="gpt2") is None
    marginal_by_unit(model, text, vocab, [3, 3], pattern="gpt2")


def test_token_across_agrees_with_a_naive_search():
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bca", 258: b"cab"}
    data = b"abcabcab"
    for cut in range(1, len(data)):
        naive = [(i, vocab_id) for i in range(cut) for vocab_id, t in vocab.items()
                 if len(t) > cut - i and data[i:i + len(t)] == t]
        found = token_across(data, vocab, cut)
        assert (found is None) == (not naive)
        if found is not None:
            assert found in naive
