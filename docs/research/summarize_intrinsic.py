"""Tables from results/intrinsic.json: each group's tokenizers and the metrics' rank correlations with bits per byte."""
import json

d = json.load(open("results/intrinsic.json"))
for group, g in d.items():
    if group == "seconds":
        continue
    print(f"== {group} ({len(g['tokenizers'])} tokenizers, {g['paragraphs']} paragraphs)")
    print(f"{'tokenizer':22} {'bits/byte':>9} {'tokens/byte':>11} {'Renyi a=2.5':>11} {'Shannon eff':>11}")
    for name, v in g["values"].items():
        print(f"{name:22} {v['bits per byte']:9.4f} {v['tokens per byte']:11.4f} {v['renyi efficiency a=2.5']:11.4f} "
              f"{v['renyi efficiency a=1.0']:11.4f}")
    for metric, c in g["correlations"].items():
        print(f"  {metric:24} Spearman {c['spearman']:+.3f} [{c['spearman_ci'][0]:+.3f}, {c['spearman_ci'][1]:+.3f}]"
              f"  Kendall {c['kendall']:+.3f} [{c['kendall_ci'][0]:+.3f}, {c['kendall_ci'][1]:+.3f}]")
    print()
print("run time (s):", round(d["seconds"], 1))
