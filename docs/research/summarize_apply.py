"""Inferred mixes of the real tokenizers: families and top categories, point estimates and bootstrap ranges."""
import json
import sys

import numpy as np

import categories as cat

ENGLISH = {"eng", "python_docs", "don_quixote", "les_miserables"}
CODE = {"python_code"}


def families(w):
    return {"English": sum(w[k] for k in ENGLISH), "code": sum(w[k] for k in CODE),
            "other languages": sum(v for k, v in w.items() if k not in ENGLISH | CODE)}


for name in sys.argv[1:]:
    try:
        rows = [json.loads(l) for l in open(f"results/apply_{name}.jsonl") if l.startswith("{")]
    except FileNotFoundError:
        continue
    if not rows:
        continue
    point = {r["T"]: r for r in rows if r["replicate"] == -1}
    boots = [r for r in rows if r["replicate"] >= 0]
    print(f"== {name}: {len(boots)} bootstrap replicates at T={boots[0]['T'] if boots else '-'}")
    for T, r in sorted(point.items()):
        fam = families(r["weights"])
        print(f"  T={T}: " + ", ".join(f"{k} {v:.3f}" for k, v in fam.items())
              + f"  (LP {r['lp_seconds']:.1f}s, {r['constraints']} constraints, {r['rounds']} rounds; "
                f"trajectories {r['trajectory_seconds']:.1f}s; load {r['load_seconds']:.1f}s)")
    if boots:
        fb = [families(r["weights"]) for r in boots]
        for k in fb[0]:
            xs = np.array([f[k] for f in fb])
            print(f"  bootstrap {k}: median {np.median(xs):.3f}, 2.5-97.5% [{np.percentile(xs, 2.5):.3f}, "
                  f"{np.percentile(xs, 97.5):.3f}]")
        top = sorted(point[max(point)]["weights"].items(), key=lambda kv: -kv[1])[:8]
        for k, v in top:
            xs = np.array([r["weights"][k] for r in boots])
            print(f"    {k:16} {v:.3f}  [{np.percentile(xs, 2.5):.3f}, {np.percentile(xs, 97.5):.3f}]")
