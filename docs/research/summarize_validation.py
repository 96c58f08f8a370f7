"""Summarise validation runs: mean absolute error (and log10 MSE) by T and S with 95% bootstrap intervals over seeds."""
import json, sys
import numpy as np
import pandas as pd

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
df = pd.DataFrame(rows)
df["size"] = df["size"].fillna(-1).astype(int)
NOVELS = {"don_quixote", "les_miserables"}


def grouped(d):
    """Shares with the two novels summed into one category, English books."""
    out = {k: v for k, v in d.items() if k not in NOVELS}
    if NOVELS & set(d):
        out["novels"] = sum(v for k, v in d.items() if k in NOVELS)
    return out


ENGLISH = {"eng", "python_docs", "don_quixote", "les_miserables"}


def families(d):
    return {"English": sum(v for k, v in d.items() if k in ENGLISH), "code": d.get("python_code", 0.0),
            "other languages": sum(v for k, v in d.items() if k not in ENGLISH | {"python_code"})}


df["family_abs_err_other"] = [abs(families(f)["other languages"] - families(t)["other languages"])
                              for f, t in zip(df["found"], df["truth"])]
df["family_bias_other"] = [families(f)["other languages"] - families(t)["other languages"]
                           for f, t in zip(df["found"], df["truth"])]
df["mae_novels_merged"] = [np.mean([abs(grouped(f)[k] - grouped(t)[k]) for k in grouped(t)])
                           for f, t in zip(df["found"], df["truth"])]
rng = np.random.default_rng(0)

def ci(x):
    x = np.asarray(x)
    boots = [rng.choice(x, len(x)).mean() for _ in range(2000)]
    return f"{x.mean():.4f} [{np.percentile(boots, 2.5):.4f}, {np.percentile(boots, 97.5):.4f}]"

for config, g in df.groupby("config"):
    print(f"== {config}: {g['seed'].nunique()} seeds; uniform-guess MAE {ci(g.drop_duplicates('seed')['uniform_mae'])}")
    out = g.groupby(["size", "T"]).agg(mae=("mae", ci), mae_novels_merged=("mae_novels_merged", ci),
                                          max_err=("found", "size"),
                                          log10_mse=("log10_mse", lambda x: f"{np.mean(x):.2f}"),
                                          lp_s=("lp_seconds", lambda x: f"{np.mean(x):.1f}"),
                                          traj_s=("trajectory_seconds", lambda x: f"{np.mean(x):.2f}"),
                                          constraints=("constraints", "mean"))
    out = out.drop(columns="max_err")
    if config.startswith("mixed"):
        fam = g.groupby(["size", "T"]).agg(other_languages_abs_err=("family_abs_err_other", ci),
                                           other_languages_bias=("family_bias_other", ci))
        out = out.join(fam)
    print(out.to_string())
