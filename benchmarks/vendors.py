"""Mistral's tokenizers against the vendors' own libraries, and chapter 16's language models (issue 37).

* ``vendors``: Tekken (``bpe_course.pretrained.tekken``) against mistral-common's ``Tekkenizer``, and
  SentencePiece v1 (``mistral_v1``) against the ``sentencepiece`` library, on the same megabyte
  of the books and of the mixed corpus: the first call on a new encoder (for SentencePiece, text
  it has not seen) and warm calls; all ids compared.
* ``lm``: chapter 16's explorer moved to order 5 for the first time: Kneser-Ney models fitted and
  scored at every vocabulary size of the chapter's sweep (``Sweep.measure([5])``), then the plot
  redrawn (``ModelQualityExplorer``); the sweep itself (training, encoding, orders 2-4) is untimed.

Every measurement runs in a fresh process (child.py), rounds interleaved.
"""

from __future__ import annotations

from pathlib import Path

from . import report
from .runner import run_child

VENDOR_CASES = {"tekken": ("warm", "Tekken warm: time ours/mistral-common"),
                "sp_v1": ("cold", "SentencePiece v1, text not seen before: time ours/sentencepiece")}


def bench_vendors(args, texts: dict[str, tuple[Path, int]]) -> list[dict]:
    """Tekken and SentencePiece v1 against their vendors' libraries on each text, interleaved over the rounds."""
    results: dict[tuple[str, str, str], list[dict]] = {}
    for r in range(args.rounds):
        for corpus, (path, _) in texts.items():
            for name in VENDOR_CASES:
                for tool in ("ours", "lib"):
                    print(f"  vendors round {r + 1}/{args.rounds}: {tool} {name} on {corpus}", flush=True)
                    results.setdefault((name, corpus, tool), []).append(run_child(
                        {"task": "vendor_encode", "tool": tool, "name": name, "path": str(path), "repeats": 3}))
    rows = []
    for corpus, (_, size) in texts.items():
        for name, (timing, meaning) in VENDOR_CASES.items():
            pair = {tool: results[(name, corpus, tool)] for tool in ("ours", "lib")}
            if timing == "cold":
                pair = {tool: [{**r, "seconds": r["cold_seconds"]} for r in res] for tool, res in pair.items()}
            found = {tool: report.summarize("vendors", tool, round(size / 1e6, 3), size, res,
                                            case=f"{name} {timing}, {corpus}") for tool, res in pair.items()}
            report.set_ratio(found["ours"], found["ours"]["median_s"], found["lib"]["median_s"], meaning)
            same = len({r["ids"] for res in pair.values() for r in res}) == 1
            found["lib"]["note"] = f"{pair['lib'][0]['tokens']:,} ids; ours == the library's: {same}"
            rows += found.values()
    return rows


def bench_lm(args) -> list[dict]:
    """Chapter 16's first move to order 5, in fresh processes: fitting and scoring, then the plot."""
    runs = []
    for r in range(args.rounds):
        print(f"  lm round {r + 1}/{args.rounds}: chapter 16's sweep, first move to order 5", flush=True)
        runs.append(run_child({"task": "lm_order5", "chars": args.lm_chars}))
    fit = report.summarize("lm", "ours", "", "", [{**r, "seconds": r["measure_seconds"]} for r in runs],
                           case="order 5: fit and score")
    move = report.summarize("lm", "ours", "", "", runs, case="order 5: first move (fit, score, plot)")
    sizes = runs[0]["train_tokens"]
    fit["note"] = (f"{len(sizes)} vocabulary sizes, {sum(sizes):,} training tokens in all "
                   f"({', '.join(f'{n:,}' for n in sizes)}); Sweep.measure([5])")
    move["note"] = f"ModelQualityExplorer.order 3 -> 5; bits per byte at order 5: {runs[0]['bits']}"
    return [fit, move]
