"""Chapter 21's checkers: right answers pass, wrong ones get a hint, and no feedback gives the answer away."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import scipy.stats

from bpe_course import Tokenizer, train_bpe
from bpe_course.algorithms.intrinsic import renyi_efficiency
from bpe_course.algorithms.lattice import marginal_bits
from bpe_course.algorithms.lm import KneserNey
from bpe_course.exercises.ch21 import (UNIGRAM_CASES, check_inside_pretokens, check_shannon_agreement,
                                       check_unigram_marginal, unigram_reference)


def spelled(x: float) -> list[str]:
    """The ways a checker could print the answer: 3 or 4 decimals, signed or not."""
    return [f"{x:{sign}.{d}f}" for d in (3, 4) for sign in ("", "+")]


def forward(probs, data):
    total = [1.0] + [0.0] * len(data)
    for j in range(1, len(data) + 1):
        for i in range(j):
            if (p := probs.get(data[i:j])) is not None:
                total[j] += total[i] * p
    return -math.log2(total[-1])


@pytest.mark.parametrize("case", UNIGRAM_CASES)
def test_the_unigram_reference_is_a_forward_pass(case):
    assert unigram_reference(*case) == pytest.approx(forward(*case), rel=1e-12)


def test_unigram_marginal_right_and_wrong():
    assert check_unigram_marginal(forward).ok

    def best_path(probs, data):  # the most probable segmentation only (Viterbi)
        best = [0.0] + [-math.inf] * len(data)
        for j in range(1, len(data) + 1):
            for i in range(j):
                if (p := probs.get(data[i:j])) is not None:
                    best[j] = max(best[j], best[i] + math.log2(p))
        return -best[-1]

    assert "most probable segmentation" in check_unigram_marginal(best_path).hint
    assert "nats" in check_unigram_marginal(lambda probs, data: forward(probs, data) * math.log(2)).hint
    assert "raised KeyError" in check_unigram_marginal(lambda probs, data: probs[b"zz"]).message


@pytest.fixture(scope="module")
def measured():
    text = "the cat sat on the mat, the dog sat on the log; " * 20
    out = {}
    for n_merges in (0, 10, 30, 60):
        vocab, merges = train_bpe(text, 256 + n_merges)
        tok = Tokenizer(vocab, merges)
        ids = tok.encode_ordinary(text)
        model = KneserNey(ids[: len(ids) // 2], 4, tok.n_vocab)
        bits = -sum(math.log2(p) for p in model.token_probs(ids))
        out[tok.n_vocab] = {"ids": ids, "canonical": {4: [(bits, len(text.encode()))]}}
    return out


def test_shannon_agreement_right_wrong_and_never_the_answer(measured):
    sizes = list(measured)
    shannon = [renyi_efficiency(Counter(measured[v]["ids"]), alpha=1, n_vocab=v) for v in sizes]
    bits = [measured[v]["canonical"][4][0][0] / measured[v]["canonical"][4][0][1] for v in sizes]
    answer = scipy.stats.spearmanr(shannon, bits).statistic
    assert check_shannon_agreement(round(answer, 2), measured).ok
    flipped = check_shannon_agreement(-answer, measured)
    assert (not flipped.ok and "sign" in flipped.message) or answer == 0
    feedback = check_shannon_agreement(0.123456, measured)
    assert not feedback.ok and not any(s in feedback.message + feedback.hint for s in spelled(answer))
    # the hints point at the slip, never at the recipe
    for wrong_answer in (0.123456, -answer):
        hint = check_shannon_agreement(wrong_answer, measured).hint
        assert not any(name in hint for name in ("renyi_efficiency", "spearman", "ratio_of_sums", "alpha=1"))
    assert "not a correlation" in check_shannon_agreement(3.0, measured).message
    assert "measured=" in check_shannon_agreement(0.5, {"x": 1}).message


def test_shannon_agreement_names_the_order_slip():
    """A sweep whose order-2 correlation differs from the order-4 one: answering with order 2 is diagnosed."""
    text = "the cat sat on the mat, the dog sat on the log; a bird flew over the hill and the cat ran. " * 12
    out = {}
    for n_merges in (0, 8, 20, 40, 70):
        vocab, merges = train_bpe(text, 256 + n_merges)
        tok = Tokenizer(vocab, merges)
        ids = tok.encode_ordinary(text)
        canonical = {}
        for order in (2, 4):
            model = KneserNey(ids[: len(ids) // 3], order, tok.n_vocab)
            canonical[order] = [(-sum(math.log2(p) for p in model.token_probs(ids)), len(text.encode()))]
        out[tok.n_vocab] = {"ids": ids, "canonical": canonical}
    sizes = list(out)
    shannon = [renyi_efficiency(Counter(out[v]["ids"]), alpha=1, n_vocab=v) for v in sizes]
    rho = {order: scipy.stats.spearmanr(shannon, [out[v]["canonical"][order][0][0] for v in sizes]).statistic
           for order in (2, 4)}
    assert check_shannon_agreement(rho[4], out).ok
    if abs(rho[2] - rho[4]) > 0.01:
        feedback = check_shannon_agreement(rho[2], out)
        assert not feedback.ok and "order-2" in feedback.hint
        assert not any(s in feedback.message + feedback.hint for s in spelled(rho[4]))


def test_inside_pretokens_right_wrong_and_never_the_answer():
    text = "the cat sat on the mat. the dog sat on the log. " * 30
    vocab, merges = train_bpe(text, 256 + 40)
    tok = Tokenizer(vocab, merges)
    model = KneserNey(tok.encode_ordinary(text), 3, tok.n_vocab)
    held = "the cat sat on the log. the dog sat on the mat."
    n = len(held.encode())
    inside = marginal_bits(model, held, tok.vocab, pattern="gpt2") / n
    every = marginal_bits(model, held, tok.vocab) / n
    assert check_inside_pretokens(round(inside, 4), model, held, tok.vocab).ok
    crossing = check_inside_pretokens(round(every, 5), model, held, tok.vocab)
    assert "every segmentation" in crossing.message and "pattern=" not in crossing.hint
    for wrong_answer in (inside + 0.05, every + 0.2):
        feedback = check_inside_pretokens(wrong_answer, model, held, tok.vocab)
        assert not feedback.ok and not any(s in feedback.message + feedback.hint for s in spelled(inside))
        # the hint points at the mistake, never at the call that fixes it
        assert "pattern=" not in feedback.hint and "marginal_bits(" not in feedback.hint
    assert "per byte" in check_inside_pretokens(inside * n, model, held, tok.vocab).message
    assert "model=" in check_inside_pretokens(1.0, "not a model", held, tok.vocab).message
