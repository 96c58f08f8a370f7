"""Rényi efficiency and tokens per byte against bits per byte, on chapter 16's and 17's tokenizers.

    ../../.venv/bin/python intrinsic_experiments.py > results/intrinsic.json

Groups: ch16's vocabulary sweep (orders 2, 3, 4), ch16's pattern sweep (prose and code, order 3),
ch17's variants (order 3), and all order-3 pipelines on don_quixote's first 100 KB held out pooled.
Per group: each metric's Spearman and Kendall correlation with bits per byte over the tokenizers,
on the whole held-out text and in 1,000 paired bootstrap resamples of its paragraphs.
"""
from __future__ import annotations

import json
import math
import sys
import time
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from scipy.sparse import csr_matrix

from bpe_course import Tokenizer, corpus
from scipy.stats import kendalltau, spearmanr


def spearman(x, y):  # nan for a constant list, as the research runs had it
    return float(spearmanr(x, y).statistic)


def kendall_tau(x, y):
    return float(kendalltau(x, y).statistic)
from bpe_course.algorithms.lm import KneserNey, fit_orders
from bpe_course.train import count_pretokens, train
from bpe_course.algorithms.variants import (Segmenter, fewest_tokens, picky_tokens_of, superbpe_tokens, sweep_superbpe,
                                 train_picky)
from bpe_course.algorithms.model_quality import vocab_points

B = 1000
ALPHAS = (1.0, 2.5)


class Scored:
    """One pipeline on one held-out text, per paragraph: bytes, tokens, token counts (sparse) and bits."""

    def __init__(self, name: str, ids: list[int], vocab: dict[int, bytes], probs: list[float], text: str,
                 n_vocab: int) -> None:
        data = text.encode()
        starts = [0]
        at = 0
        for p in text.split("\n\n")[:-1]:
            at += len(p.encode()) + 2
            starts.append(at)
        ends = list(accumulate(len(vocab[i]) for i in ids))
        begins = [e - len(vocab[i]) for e, i in zip(ends, ids)]
        para = [bisect_right(starts, b) - 1 for b in begins]  # the paragraph a token starts in
        n_par = len(starts)
        self.name, self.n_vocab = name, n_vocab
        self.bytes = np.diff(np.r_[starts, len(data)]).astype(float)
        self.tokens = np.bincount(para, minlength=n_par).astype(float)
        self.bits = np.bincount(para, weights=[-math.log2(p) for p in probs], minlength=n_par)
        self.counts = csr_matrix((np.ones(len(ids)), (para, ids)), shape=(n_par, n_vocab))

    def metrics(self, w: np.ndarray) -> dict[str, float]:
        """Bits per byte, tokens per byte and Rényi efficiencies with paragraph weights ``w`` (a resample)."""
        total_bytes = w @ self.bytes
        c = np.asarray(self.counts.T @ w).ravel()
        p = c[c > 0] / c.sum()
        out = {"bits per byte": (w @ self.bits) / total_bytes, "tokens per byte": (w @ self.tokens) / total_bytes}
        for a in ALPHAS:
            h = -(p * np.log2(p)).sum() if a == 1 else np.log2((p ** a).sum()) / (1 - a)
            out[f"renyi efficiency a={a}"] = h / math.log2(self.n_vocab)
        return out


def model_probs(train_ids, held_ids, order, n_vocab):
    return KneserNey(train_ids, order, n_vocab).token_probs(held_ids)


def ch16_sweep():
    book_train, heldout = corpus.train_heldout("don_quixote")
    train_text = book_train[:1_000_000]
    run = train(train_text, 256 + 8192, min_frequency=5)
    tok = Tokenizer(run.vocab, run.merges)
    groups = {f"ch16 vocabulary sweep, order {n}": [] for n in (2, 3, 4)}
    pooled = []
    held100 = heldout[:100_000]
    for k in vocab_points(len(tok.merges)):
        small = tok.truncated(k)
        train_ids, held_ids = small.encode_ordinary(train_text), small.encode_ordinary(heldout)
        for n, model in fit_orders(train_ids, [2, 3, 4], len(small.vocab)).items():
            groups[f"ch16 vocabulary sweep, order {n}"].append(
                Scored(f"{256 + k}", held_ids, small.vocab, model.token_probs(held_ids), heldout, len(small.vocab)))
            if n == 3:
                h = small.encode_ordinary(held100)
                pooled.append(Scored(f"ch16 {256 + k}", h, small.vocab, model.token_probs(h), held100,
                                     len(small.vocab)))
    return groups, pooled


def ch16_patterns():
    book_train, heldout = corpus.train_heldout("don_quixote")
    texts = {"prose": (book_train[:500_000], heldout), "code": corpus.train_heldout("python_code")}
    groups = {}
    for kind, (text, held) in texts.items():
        rows = []
        for pattern in ("none", "gpt2", "gpt4", "gpt4o"):
            run = train(text, 2048, pattern=pattern, min_frequency=5)
            tok = Tokenizer(run.vocab, run.merges, pattern=pattern)
            ids, h = tok.encode_ordinary(text), tok.encode_ordinary(held)
            rows.append(Scored(pattern, h, tok.vocab, model_probs(ids, h, 3, len(tok.vocab)), held, len(tok.vocab)))
        groups[f"ch16 patterns, {kind}"] = rows
    return groups


def ch17_variants():
    book_train, book_heldout = corpus.train_heldout("don_quixote")
    train_text, held = book_train[:300_000], book_heldout[:100_000]
    run = train(train_text, 256 + 1024)
    plain = Tokenizer(run.vocab, run.merges)
    rows = []

    def add(name, vocab, enc_train, enc_held):
        ids, h = enc_train, enc_held
        rows.append(Scored(name, h, vocab, model_probs(ids, h, 3, len(vocab)), held, len(vocab)))

    add("plain BPE", plain.vocab, plain.encode_ordinary(train_text), plain.encode_ordinary(held))
    vocab_set = set(plain.vocab.values())
    longest = max(map(len, vocab_set))
    optimal = Segmenter(plain.vocab, lambda piece: fewest_tokens(piece, vocab_set, longest))
    add("fewest tokens", plain.vocab, optimal.encode(train_text), optimal.encode(held))
    for transition, srun in sweep_superbpe(train_text, 1024, (256, 512, 768)).items():
        vocab = srun.vocab()
        id_of = {t: i for i, t in vocab.items()}
        add(f"SuperBPE t={transition}", vocab, [id_of[t] for t in superbpe_tokens(srun, train_text)],
            [id_of[t] for t in superbpe_tokens(srun, held)])
    counts = count_pretokens(train_text)
    for threshold in (0.9, 0.7):
        prun = train_picky(counts, 1024, threshold)
        vocab = prun.vocab()
        cutter = Segmenter(vocab, picky_tokens_of(prun))
        add(f"Picky IoS>={threshold}", vocab, cutter.encode(train_text), cutter.encode(held))
    return {"ch17 variants": rows}, rows


def correlate(rows: list[Scored], rng: np.random.Generator) -> dict:
    n_par = len(rows[0].bytes)
    assert all(len(r.bytes) == n_par for r in rows)
    full = [r.metrics(np.ones(n_par)) for r in rows]
    names = [k for k in full[0] if k != "bits per byte"]

    def stats(ms):
        bits = [m["bits per byte"] for m in ms]
        return {k: (spearman([m[k] for m in ms], bits), kendall_tau([m[k] for m in ms], bits)) for k in names}

    point = stats(full)
    boots = {k: ([], []) for k in names}
    for _ in range(B):
        w = np.bincount(rng.integers(0, n_par, n_par), minlength=n_par).astype(float)
        for k, (rho, tau) in stats([r.metrics(w) for r in rows]).items():
            boots[k][0].append(rho)
            boots[k][1].append(tau)
    out = {"tokenizers": [r.name for r in rows], "paragraphs": n_par, "values": {r.name: m for r, m in zip(rows, full)},
           "correlations": {}}
    for k in names:
        rho, tau = boots[k]
        out["correlations"][k] = {
            "spearman": point[k][0], "spearman_ci": [float(np.nanpercentile(rho, 2.5)), float(np.nanpercentile(rho, 97.5))],
            "kendall": point[k][1], "kendall_ci": [float(np.nanpercentile(tau, 2.5)), float(np.nanpercentile(tau, 97.5))]}
    return out


if __name__ == "__main__":
    began = time.perf_counter()
    rng = np.random.default_rng(36)
    groups, pooled = ch16_sweep()
    groups |= ch16_patterns()
    variants, pooled_variants = ch17_variants()
    groups |= variants
    groups["pooled: order 3 on don_quixote's first 100 KB held out"] = pooled + pooled_variants
    result = {name: correlate(rows, rng) for name, rows in groups.items()}
    result["seconds"] = time.perf_counter() - began
    json.dump(result, sys.stdout, indent=1)
