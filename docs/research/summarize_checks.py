"""The two calibration checks of the application: a hidden category (omitted.jsonl) and English-only truth (null.jsonl)."""
import json

import numpy as np

rows = [json.loads(l) for l in open("results/omitted.jsonl") if l.startswith("{")]
print(f"== hidden English novels ({len(rows)} seeds; novels hold 0.33-0.68 of the mix, inferred without them, T=300, 30 KB samples)")
LAT, ENG, OTH = ["fra", "spa", "deu_1996"], ["eng", "python_docs"], ["rus", "cmn_hans"]
for name, group in (("English (eng + python_docs)", ENG), ("Latin-script languages (fra, spa, deu)", LAT),
                    ("rus + cmn_hans", OTH), ("python_code", ["python_code"])):
    d = np.array([sum(r["found"][k] for k in group) - sum(r["truth_renormalised"][k] for k in group) for r in rows])
    print(f"  {name:40} found - truth (renormalised to the known categories): mean {d.mean():+.3f}, "
          f"range [{d.min():+.3f}, {d.max():+.3f}]")
rows = [json.loads(l) for l in open("results/null.jsonl") if l.startswith("{")]
other = np.array([r["other_languages"] for r in rows])
print(f"\n== English and code only, inferred over all 22 categories ({len(rows)} seeds, T=300, 300 KB caps)")
print(f"  share given to the 17 absent languages: mean {other.mean():.3f}, range [{other.min():.3f}, {other.max():.3f}]")
