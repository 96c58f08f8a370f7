"""False-positive floor: a tokenizer trained on English and code only, inferred over all 22 categories.

    ../../.venv/bin/python mixture_null.py SEEDS > results/null.jsonl
How much of the mix does the program give to the 17 other languages when the truth is 0?
Same settings as mixture_apply.py (both halves interleaved, 300 KB caps, T = 300) except that the
tokenizer is trained on the A halves, so the samples overlap its training text by half.
"""
import json
import sys

import numpy as np

from bpe_course.algorithms.mixture import infer_mixture, text_trajectory, weighted_counts
from bpe_course.train import count_pretokens, train_counts

import categories as cat
from mixture_apply import documents

TRAINED = ["don_quixote", "les_miserables", "python_docs", "python_code", "eng"]
T = 300

if __name__ == "__main__":
    lo, hi = map(int, sys.argv[1].split("-"))
    docs = {k: documents(k) for k in cat.ALL}
    for seed in range(lo, hi + 1):
        rng = np.random.default_rng(seed)
        shares = dict(zip(TRAINED, rng.dirichlet([1] * len(TRAINED)).tolist()))
        counts = {k: dict(count_pretokens(list(cat.halves(k)[0]))) for k in TRAINED}
        merges = train_counts(weighted_counts(counts, shares), 256 + T).merges
        trajs = {k: text_trajectory(d, merges) for k, d in docs.items()}
        found = infer_mixture(trajs, merges).weights
        other = sum(v for k, v in found.items() if k not in TRAINED)
        print(json.dumps({"seed": seed, "truth": shares, "found": found, "other_languages": other}), flush=True)
