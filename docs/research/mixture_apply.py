"""Infer the training mixes of GPT-2, cl100k, o200k and Tekken over the course's 22 categories.

    ../../.venv/bin/python mixture_apply.py gpt2|cl100k|o200k|tekken REPLICATES > results/apply_NAME.jsonl

Samples: each category's whole text (both halves), documents interleaved A/B and capped at CAP bytes.
Point estimates at several T; then REPLICATES bootstrap replicates at T_BOOT (documents resampled with
replacement within each category), for an error bar from sampling the categories' text.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from bpe_course import cl100k, gpt2, o200k
from bpe_course.algorithms.mixture import infer_mixture, text_trajectory
from bpe_course import tekken

import categories as cat

CAP = 300_000
TS = (100, 300)
T_BOOT = 300
TOKENIZERS = {"gpt2": gpt2, "cl100k": cl100k, "o200k": o200k, "tekken": tekken}


def documents(name: str) -> list[str]:
    a, b = cat.halves(name)
    docs = [d for pair in zip(a, b) for d in pair] + list(a[len(b):]) + list(b[len(a):])
    return cat.sample(docs, CAP)


def infer(docs_by_cat, merges, pattern, T_values):
    t0 = time.perf_counter()
    trajs = {k: text_trajectory(d, merges, pattern) for k, d in docs_by_cat.items()}
    traj_s = time.perf_counter() - t0
    for T in T_values:
        found = infer_mixture(trajs, merges[:T])
        yield T, found, traj_s, {k: t.n_bytes for k, t in trajs.items()}


if __name__ == "__main__":
    name, replicates = sys.argv[1], int(sys.argv[2])
    t0 = time.perf_counter()
    tok = TOKENIZERS[name]()
    load_s = time.perf_counter() - t0
    merges = tok.merges[:max(TS)]
    docs = {k: documents(k) for k in cat.ALL}
    for T, found, traj_s, sizes in infer(docs, merges, tok.pattern, TS):
        print(json.dumps({"tokenizer": name, "replicate": -1, "T": T, "weights": found.weights, "slack": found.slack,
                          "constraints": found.constraints, "rounds": found.rounds, "steps_used": found.steps_used,
                          "lp_seconds": found.seconds, "trajectory_seconds": traj_s, "load_seconds": load_s,
                          "sample_bytes": sizes}), flush=True)
    rng = np.random.default_rng(36)
    for r in range(replicates):
        boot = {k: [d[i] for i in rng.integers(0, len(d), len(d))] for k, d in docs.items()}
        for T, found, traj_s, sizes in infer(boot, merges, tok.pattern, [T_BOOT]):
            print(json.dumps({"tokenizer": name, "replicate": r, "T": T, "weights": found.weights,
                              "slack": found.slack, "constraints": found.constraints, "rounds": found.rounds,
                              "lp_seconds": found.seconds, "trajectory_seconds": traj_s}), flush=True)
