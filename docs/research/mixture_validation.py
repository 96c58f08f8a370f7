"""Validate data-mixture inference on mixes we choose: error against the truth by merges T and sample size S.

    ../../.venv/bin/python mixture_validation.py CONFIG SEEDS > results/validation_CONFIG.jsonl

CONFIG: languages5, languages10, large, mixed10. Each seed: a random set of categories, shares from
Dirichlet(1,...,1), a tokenizer trained (GPT-2 pattern) on the categories' A halves weighted to those
shares, then the mix inferred from B-half samples of S bytes, using the first T merges.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from bpe_course.algorithms.mixture import (dirichlet_shares, infer_mixture, log10_mse, mean_absolute_error,
                                           text_trajectory, weighted_counts)
from bpe_course.train import count_pretokens, train_counts

import categories as cat

CONFIGS = {
    "languages5": dict(pool=cat.LANGUAGES, n=5, sizes=[1000, 2000, None], merges=[30, 100, 300, 1000]),
    "languages10": dict(pool=cat.LANGUAGES, n=10, sizes=[1000, 2000, None], merges=[30, 100, 300]),
    "large": dict(pool=cat.LARGE, n=4, sizes=[3000, 10000, 30000, 100000], merges=[100, 300, 1000]),
    "mixed10": dict(pool=cat.ALL, n=10, sizes=[1000, 3000, None], merges=[100, 300]),
}

_counts: dict[str, dict[str, int]] = {}


def a_counts(name: str) -> dict[str, int]:
    if name not in _counts:
        _counts[name] = dict(count_pretokens(list(cat.halves(name)[0])))
    return _counts[name]


def run(config: str, seed: int):
    spec = CONFIGS[config]
    rng = np.random.default_rng(seed)
    names = [str(x) for x in rng.choice(spec["pool"], spec["n"], replace=False)]
    shares = dirichlet_shares(names, rng)
    t0 = time.perf_counter()
    run_ = train_counts(weighted_counts({k: a_counts(k) for k in names}, shares), 256 + max(spec["merges"]))
    merges = run_.merges
    train_s = time.perf_counter() - t0
    offset = int(rng.integers(0, 1000))
    for size in spec["sizes"]:
        t0 = time.perf_counter()
        trajs = {k: text_trajectory(cat.sample(cat.halves(k)[1], size, offset), merges) for k in names}
        traj_s = time.perf_counter() - t0
        for T in spec["merges"]:
            found = infer_mixture(trajs, merges[:T])
            uniform = {k: 1 / len(names) for k in names}
            yield ({"config": config, "seed": seed, "categories": names, "truth": shares, "size": size,
                         "sample_bytes": {k: trajs[k].n_bytes for k in names}, "T": T, "found": found.weights,
                         "mae": mean_absolute_error(shares, found.weights),
                         "log10_mse": log10_mse(shares, found.weights),
                         "uniform_mae": mean_absolute_error(shares, uniform), "slack": found.slack,
                         "constraints": found.constraints, "rounds": found.rounds, "steps_used": found.steps_used,
                         "lp_seconds": found.seconds, "trajectory_seconds": traj_s, "train_seconds": train_s})


if __name__ == "__main__":
    config, seeds = sys.argv[1], sys.argv[2]
    lo, hi = map(int, seeds.split("-"))
    for seed in range(lo, hi + 1):
        for row in run(config, seed):
            print(json.dumps(row), flush=True)
