"""Canonical against marginal bits per byte (Cao & Rimell 2021) on chapter 16's and 17's setups.

    ../../.venv/bin/python lattice_experiments.py sweep|dropout|fewest HELDOUT_BYTES > results/lattice_X.json

Each run writes, per model, the bits of every held-out paragraph three ways: canonical (the
tokenizer's segmentation), marginal inside pre-tokens, marginal over every segmentation; the
analysis bootstraps over paragraphs (summarize_lattice.py).
"""
from __future__ import annotations

import json
import math
import re
import sys
import time
from bisect import bisect_right
from itertools import accumulate
from random import Random

from bpe_course.corpus import misspell
from bpe_course import Tokenizer, corpus
from bpe_course.algorithms.lattice import marginal_log_probs
from bpe_course.algorithms.lm import KneserNey, fit_orders
from bpe_course.train import train
from bpe_course.algorithms.variants import Segmenter, fewest_tokens
from bpe_course.algorithms.dropout import dropout_tokens
from bpe_course.algorithms.model_quality import vocab_points

LN2 = math.log(2)


def paragraphs_upto(text: str, n_bytes: int) -> str:
    """The first whole paragraphs of ``text`` holding at least ``n_bytes`` UTF-8 bytes."""
    out, total = [], 0
    for p in text.split("\n\n"):
        out.append(p)
        total += len(p.encode()) + 2
        if total >= n_bytes:
            break
    return "\n\n".join(out)


def paragraph_starts(data: bytes) -> list[int]:
    """Byte offsets where each paragraph after the first begins (just after a blank line)."""
    return [m.end() for m in re.finditer(rb"\n\n+", data)]


def per_paragraph(cum: list[float], n_bytes: int, starts: list[int]) -> list[float]:
    """Differences of cumulative bits at paragraph starts: each paragraph's bits given the text before it."""
    edges = [0.0, *cum]
    return [b - a for a, b in zip(edges, edges[1:])]


def canonical_cum(model: KneserNey, ids: list[int], vocab: dict[int, bytes], starts: list[int]) -> list[float]:
    """Cumulative canonical bits at each paragraph start and at the end (tokens never cross a blank line here)."""
    bits = [-math.log2(p) for p in model.token_probs(ids)]
    ends = list(accumulate(len(vocab[i]) for i in ids))
    cum = list(accumulate(bits))
    out = []
    for s in starts:
        k = bisect_right(ends, s)  # tokens ending at or before s
        assert k == 0 or ends[k - 1] == s, "a token crosses a paragraph start"
        out.append(cum[k - 1] if k else 0.0)
    return out + [cum[-1]]


def score(model: KneserNey, vocab: dict[int, bytes], text: str, ids: list[int], label: dict) -> dict:
    data = text.encode("utf-8")
    starts = paragraph_starts(data)
    t0 = time.perf_counter()
    inside = [-x / LN2 for x in marginal_log_probs(model, data, vocab, cuts=starts, pattern="gpt2")]
    t1 = time.perf_counter()
    every = [-x / LN2 for x in marginal_log_probs(model, data, vocab, cuts=starts)]
    t2 = time.perf_counter()
    canon = canonical_cum(model, ids, vocab, starts)
    lengths = per_paragraph([float(s) for s in starts] + [float(len(data))], len(data), starts)
    row = dict(label, bytes=len(data), n_paragraphs=len(starts) + 1, tokens=len(ids),
               canonical=per_paragraph(canon, len(data), starts), inside=per_paragraph(inside, len(data), starts),
               every=per_paragraph(every, len(data), starts), paragraph_bytes=lengths,
               seconds_inside=t1 - t0, seconds_every=t2 - t1)
    print(f"{label} canonical {canon[-1] / len(data):.4f} inside {inside[-1] / len(data):.4f} "
          f"every {every[-1] / len(data):.4f} ({t1 - t0:.1f}s, {t2 - t1:.1f}s)", file=sys.stderr, flush=True)
    return row


def chapter16_tokenizer():
    book_train, heldout = corpus.train_heldout("don_quixote")
    train_text = book_train[:1_000_000]
    run = train(train_text, 256 + 8192, min_frequency=5)
    return book_train, train_text, heldout, Tokenizer(run.vocab, run.merges)


def sweep(heldout_bytes: int) -> list[dict]:
    _, train_text, heldout, tok = chapter16_tokenizer()
    text = paragraphs_upto(heldout, heldout_bytes)
    rows = []
    for k in vocab_points(len(tok.merges)):
        small = tok.truncated(k)
        models = fit_orders(small.encode_ordinary(train_text), [2, 3, 4], len(small.vocab))
        ids = small.encode_ordinary(text)
        for n, model in models.items():
            rows.append(score(model, small.vocab, text, ids, {"experiment": "sweep", "merges": k,
                                                               "vocab_size": 256 + k, "order": n}))
    return rows


def dropout(heldout_bytes: int) -> list[dict]:
    book_train, _, heldout, tok = chapter16_tokenizer()
    drop_tok = tok.truncated(2048 - 256)
    id_of = {t: i for i, t in drop_tok.vocab.items()}
    drop_text = book_train[:500_000]
    clean_ids = drop_tok.encode_ordinary(drop_text)
    dropped_ids = [id_of[t] for t in dropout_tokens(drop_tok, drop_text, 0.1, Random(0))]
    models = {"deterministic": KneserNey(clean_ids, 3, len(drop_tok.vocab)),
              "BPE-dropout p=0.1": KneserNey(dropped_ids, 3, len(drop_tok.vocab))}
    text = paragraphs_upto(heldout, heldout_bytes)
    typo = misspell(text, 0.1, Random(16))
    rows = []
    for name, model in models.items():
        for kind, t in (("clean", text), ("typos", typo)):
            rows.append(score(model, drop_tok.vocab, t, drop_tok.encode_ordinary(t),
                              {"experiment": "dropout", "model": name, "text": kind}))
    return rows


def fewest(heldout_bytes: int) -> list[dict]:
    book_train, book_heldout = corpus.train_heldout("don_quixote")
    train_text = book_train[:300_000]
    run = train(train_text, 256 + 1024)
    plain = Tokenizer(run.vocab, run.merges)
    vocab_set = set(plain.vocab.values())
    longest = max(map(len, vocab_set))
    optimal = Segmenter(plain.vocab, lambda piece: fewest_tokens(piece, vocab_set, longest))
    text = paragraphs_upto(book_heldout, heldout_bytes)
    rows = []
    for name, enc in (("plain BPE", plain.encode_ordinary), ("fewest tokens", optimal.encode)):
        model = KneserNey(enc(train_text), 3, len(plain.vocab))
        rows.append(score(model, plain.vocab, text, enc(text), {"experiment": "fewest", "model": name}))
    return rows


if __name__ == "__main__":
    what, n_bytes = sys.argv[1], int(sys.argv[2])
    began = time.perf_counter()
    rows = {"sweep": sweep, "dropout": dropout, "fewest": fewest}[what](n_bytes)
    json.dump({"rows": rows, "seconds": time.perf_counter() - began}, sys.stdout)
