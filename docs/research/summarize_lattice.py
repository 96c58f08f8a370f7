"""Canonical vs marginal bits per byte with paired bootstrap intervals over held-out paragraphs (1,000 resamples)."""
import json
import sys

import numpy as np

B = 1000
rng = np.random.default_rng(2021)


def load(name):
    return json.load(open(f"results/lattice_{name}.json"))


def boot(rows, f):
    """f(list of weighted sums per row) -> number; returns point and 95% interval, same resamples for all rows."""
    n = rows[0]["n_paragraphs"]
    arr = {k: [np.array(r[k]) for r in rows] for k in ("canonical", "inside", "every", "paragraph_bytes")}
    def at(w):
        return {k: [w @ a for a in v] for k, v in arr.items()}
    point = f(at(np.ones(n)))
    draws = [f(at(np.bincount(rng.integers(0, n, n), minlength=n).astype(float))) for _ in range(B)]
    return point, np.percentile(draws, 2.5), np.percentile(draws, 97.5)


def fmt(t):
    return f"{t[0]:+.4f} [{t[1]:+.4f}, {t[2]:+.4f}]"


sweep = load("sweep")["rows"]
print("== ch16 sweep (don_quixote held-out, first", sweep[0]["bytes"], "bytes,", sweep[0]["n_paragraphs"], "paragraphs)")
print("vocab order canonical  inside  every   gap(canonical-every) [95% CI]   gap/canonical")
for r in sweep:
    one = [r]
    c, i, e = (sum(r[k]) / r["bytes"] for k in ("canonical", "inside", "every"))
    gap = boot(one, lambda s: (s["canonical"][0] - s["every"][0]) / s["paragraph_bytes"][0])
    print(f"{r['vocab_size']:5} {r['order']}   {c:.4f}   {i:.4f}  {e:.4f}   {fmt(gap)}   {(c - e) / c:.2%}")
# does the best vocabulary per order change?
for order in (2, 3, 4):
    rows = [r for r in sweep if r["order"] == order]
    best_c = min(rows, key=lambda r: sum(r["canonical"]))["vocab_size"]
    best_e = min(rows, key=lambda r: sum(r["every"]))["vocab_size"]
    # paired: how often (over resamples) each size is the best under the marginal
    n = rows[0]["n_paragraphs"]
    wins_c, wins_e = {}, {}
    for _ in range(B):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        bc = min(rows, key=lambda r: w @ np.array(r["canonical"]))["vocab_size"]
        be = min(rows, key=lambda r: w @ np.array(r["every"]))["vocab_size"]
        wins_c[bc] = wins_c.get(bc, 0) + 1
        wins_e[be] = wins_e.get(be, 0) + 1
    print(f"order {order}: best canonical {best_c}, best marginal {best_e}; bootstrap share of wins canonical {wins_c}, marginal {wins_e}")

drop = load("dropout")["rows"]
print("\n== ch16 dropout (vocab 2048, order 3, first", drop[0]["bytes"], "bytes)")
by = {(r["model"], r["text"]): r for r in drop}
for (m, t), r in by.items():
    c, i, e = (sum(r[k]) / r["bytes"] for k in ("canonical", "inside", "every"))
    gap = boot([r], lambda s: (s["canonical"][0] - s["every"][0]) / s["paragraph_bytes"][0])
    print(f"{m:20} {t:6} canonical {c:.4f} inside {i:.4f} every {e:.4f} gap {fmt(gap)}")
for t in ("clean", "typos"):
    d, k = by[("BPE-dropout p=0.1", t)], by[("deterministic", t)]
    for kind in ("canonical", "every"):
        res = boot([d, k], lambda s: (s[kind][0] - s[kind][1]) / s["paragraph_bytes"][0])
        print(f"dropout - deterministic, {t}, {kind}: {fmt(res)}")

few = load("fewest")["rows"]
print("\n== ch17 section 1 (1,280 tokens, order 3, first", few[0]["bytes"], "bytes)")
by = {r["model"]: r for r in few}
for m, r in by.items():
    c, i, e = (sum(r[k]) / r["bytes"] for k in ("canonical", "inside", "every"))
    gap = boot([r], lambda s: (s["canonical"][0] - s["every"][0]) / s["paragraph_bytes"][0])
    print(f"{m:15} canonical {c:.4f} inside {i:.4f} every {e:.4f} gap {fmt(gap)}")
for kind in ("canonical", "every"):
    res = boot([by["fewest tokens"], by["plain BPE"]], lambda s: (s[kind][0] - s[kind][1]) / s["paragraph_bytes"][0])
    print(f"fewest - plain, {kind}: {fmt(res)}")
print("\nrun times (s):", {n: round(load(n)["seconds"], 1) for n in ("sweep", "dropout", "fewest")})
