"""Where does a category the attacker lacks go? Train on a mix with English novels, infer without them.

    ../../.venv/bin/python mixture_omitted.py SEEDS > results/omitted.jsonl
"""
import json
import sys

import numpy as np

from bpe_course.algorithms.mixture import infer_mixture, text_trajectory, weighted_counts
from bpe_course.train import count_pretokens, train_counts

import categories as cat

KNOWN = ["eng", "python_docs", "python_code", "fra", "spa", "deu_1996", "rus", "cmn_hans"]
HIDDEN = ["don_quixote", "les_miserables"]
T = 300
SIZE = 30_000

if __name__ == "__main__":
    lo, hi = map(int, sys.argv[1].split("-"))
    for seed in range(lo, hi + 1):
        rng = np.random.default_rng(seed)
        hidden_share = float(rng.uniform(0.3, 0.7))
        rest = rng.dirichlet([1] * len(KNOWN)) * (1 - hidden_share)
        shares = dict(zip(KNOWN, rest.tolist())) | {k: hidden_share / 2 for k in HIDDEN}
        counts = {k: dict(count_pretokens(list(cat.halves(k)[0]))) for k in shares}
        merges = train_counts(weighted_counts(counts, shares), 256 + T).merges
        trajs = {k: text_trajectory(cat.sample(cat.halves(k)[1], SIZE), merges) for k in KNOWN}
        found = infer_mixture(trajs, merges).weights
        known_total = sum(shares[k] for k in KNOWN)
        print(json.dumps({"seed": seed, "hidden_share": hidden_share, "truth": shares, "found": found,
                          "truth_renormalised": {k: shares[k] / known_total for k in KNOWN}}), flush=True)
