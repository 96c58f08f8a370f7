"""``python -m benchmarks [FILE ...]``: training and encoding speed and memory, side by side.

Trainers: bpe_course fast, bpe_course naive (capped), Hugging Face ``tokenizers``. Encoders of
GPT-2: bpe_course, tiktoken, and HF built from the same files. Every measurement runs in a fresh
process; trainers are interleaved round by round. Results: a table on stdout, ``results.csv``
and ``training.png`` in ``--out``. Without FILE the corpus is built offline (see corpus.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from . import report
from .corpus import VERSION, build_corpus, prefix_file

MB = 1_000_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text to use (joined); default: build a corpus")
    p.add_argument("--sizes", default="1,2,4,8,16", help="training sizes in MB (prefixes of the corpus)")
    p.add_argument("--vocab-size", type=int, default=10_000)
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds of each timing")
    p.add_argument("--naive-cap", type=float, default=120, help="seconds before the naive trainer is stopped")
    p.add_argument("--check-kb", type=float, default=128, help="size of the fast == naive merges check")
    p.add_argument("--check-merges", type=int, default=1000, help="merges in the fast == naive check")
    p.add_argument("--encode-mb", type=float, default=1, help="prose encoded in the encoder timings")
    p.add_argument("--long", default="200000,1250000",
                   help="lengths of the long pre-tokens: random letters, one emoji repeated (each also at half)")
    p.add_argument("--train-long", default="100000,400000",
                   help="training on long pre-tokens: characters of one repeated letter and of prose with no pattern")
    p.add_argument("--train-long-cap", type=float, default=120, help="seconds before a long-pre-token training stops")
    p.add_argument("--stream-mb", default="1,16", help="file sizes for encode_iterable's peak memory")
    p.add_argument("--out", default="benchmarks/out", help="folder for the corpus, results.csv, training.png")
    return p.parse_args(argv)


def run_child(task: dict, timeout: float | None = None) -> dict | None:
    """Run one measurement in a fresh interpreter; None if it hit ``timeout``."""
    try:
        done = subprocess.run([sys.executable, "-m", "benchmarks.child", json.dumps(task)], capture_output=True,
                              text=True, timeout=timeout, cwd=Path(__file__).resolve().parent.parent)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise RuntimeError(f"benchmark task {task['task']} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare_corpus(files: list[str], largest_mb: float, out: Path) -> tuple[Path, str]:
    """The text all sizes are cut from, and a line describing it."""
    out.mkdir(parents=True, exist_ok=True)
    if files:
        base = out / "input.txt"
        base.write_text("\n\n".join(Path(f).read_text(encoding="utf-8") for f in files), encoding="utf-8")
        return base, f"the given file(s) {', '.join(Path(f).name for f in files)}: {base.stat().st_size:,} bytes"
    base, meta_path = out / "corpus.txt", out / "corpus.json"
    want = int(largest_mb * MB)
    meta = json.loads(meta_path.read_text()) if meta_path.exists() and base.exists() else {}
    if meta.get("requested") != want or meta.get("version") != VERSION or meta.get("bytes") != base.stat().st_size:
        print(f"building the corpus ({want:,} bytes) from Python's docs, docstrings and man pages ...", flush=True)
        meta = build_corpus(base, want)
        meta["requested"] = want
        meta_path.write_text(json.dumps(meta, indent=1))
    parts = ", ".join(f"{k} {v / MB:.1f} MB" for k, v in sorted(meta["sources"].items()))
    return base, (f"generated corpus: {meta['bytes']:,} bytes from {meta['documents']:,} documents ({parts}), "
                  f"sha256 {meta['sha256'][:16]}...")


def sized(base: Path, out: Path, mb: float) -> tuple[Path, int]:
    path = out / f"prefix_{mb:g}MB.txt"
    return path, prefix_file(base, path, int(mb * MB))


def bench_training(args, base: Path, out: Path, sizes: list[float]) -> list[dict]:
    results: dict[tuple[str, float], list[dict]] = {}
    files = {mb: sized(base, out, mb) for mb in sizes}
    for r in range(args.rounds):
        for mb in sizes:
            for tool in ("ours", "hf"):
                print(f"  train round {r + 1}/{args.rounds}: {tool} on {mb:g} MB", flush=True)
                res = run_child({"task": "train", "tool": tool, "path": str(files[mb][0]), "vocab_size": args.vocab_size})
                results.setdefault((tool, mb), []).append(res)
    rows = []
    for mb in sizes:
        ours = report.summarize("train", "ours", mb, files[mb][1], results[("ours", mb)])
        hf = report.summarize("train", "hf", mb, files[mb][1], results[("hf", mb)])
        report.set_ratio(ours, ours["median_s"], hf["median_s"], "time ours/HF")
        hf_mem = hf["peak_rss_mb"]
        ours["note"] = (f"{results[('ours', mb)][0]['merges']} merges (HF {results[('hf', mb)][0]['merges']}); "
                        f"peak RSS ours/HF {ours['peak_rss_mb'] / hf_mem:.2f} (main), "
                        f"{(ours['peak_rss_mb'] + ours['worker_rss_mb']) / hf_mem:.2f} (main+worker)")
        rows += [ours, hf]
    rows += naive_rows(args, base, out, sizes, files)
    for tool in ("ours", "hf", "naive"):
        slope = report.loglog_slope([(p[0], p[1]) for p in report.training_points(rows, tool)])
        largest = [row for row in rows if row["section"] == "train" and row["tool"] == tool and row["median_s"] != ""]
        if slope is not None and largest:
            largest[-1]["note"] += f"; log-log slope of time vs size {slope:.2f}"
    return rows


def naive_rows(args, base: Path, out: Path, sizes: list[float], files: dict) -> list[dict]:
    rows = []
    check, check_bytes = sized(base, out, args.check_kb / 1000)
    res = run_child({"task": "agree_naive", "path": str(check), "vocab_size": 256 + args.check_merges}, args.naive_cap)
    row = report.summarize("naive_check", "naive", args.check_kb / 1000, check_bytes, [res] if res else [])
    row["note"] = (f"fast == naive merges ({res['merges']} merges): {res['identical']}" if res
                   else f"> cap {args.naive_cap:g} s")
    rows.append(row)
    capped = False
    for mb in sizes:
        if capped:
            rows.append(report.summarize("train", "naive", mb, files[mb][1], [], "not run: > cap on a smaller size"))
            continue
        print(f"  naive trainer on {mb:g} MB (cap {args.naive_cap:g} s)", flush=True)
        res = run_child({"task": "train", "tool": "naive", "path": str(files[mb][0]), "vocab_size": args.vocab_size},
                        args.naive_cap)
        capped = res is None
        rows.append(report.summarize("train", "naive", mb, files[mb][1], [res] if res else [],
                                     f"> cap {args.naive_cap:g} s" if capped else "one run"))
    return rows


def bench_encoding(args, base: Path, out: Path) -> list[dict]:
    path, size = sized(base, out, args.encode_mb)
    results: dict[str, list[dict]] = {}
    for r in range(args.rounds):
        for tool in ("ours", "tiktoken", "hf"):
            print(f"  encode round {r + 1}/{args.rounds}: {tool}", flush=True)
            results.setdefault(tool, []).append(run_child({"task": "encode", "tool": tool, "path": str(path),
                                                           "repeats": 3}))
    rows = {tool: report.summarize("encode", tool, args.encode_mb, size, res) for tool, res in results.items()}
    for tool in ("ours", "hf"):
        report.set_ratio(rows[tool], rows["tiktoken"]["median_s"], rows[tool]["median_s"],
                         "throughput vs tiktoken (warm)")
    cold = [r["cold_seconds"] for r in results["ours"]]
    rows["ours"]["note"] = f"first call on a new tokenizer {sorted(cold)[len(cold) // 2] / rows['ours']['median_s']:.2f}x warm"
    ids = run_child({"task": "compare_ids", "path": str(path)})
    rows["tiktoken"]["note"] = f"ids ours == tiktoken: {ids['ours_equals_tiktoken']}"
    rows["hf"]["note"] = f"ids HF == tiktoken: {ids['hf_equals_tiktoken']}" + (
        f" (first difference at {ids['hf_first_difference']})" if "hf_first_difference" in ids else "")
    return list(rows.values())


def bench_long(args) -> list[dict]:
    rows = []
    for kind, n in zip(("letters", "emoji"), (int(x) for x in args.long.split(","))):
        print(f"  long pre-tokens: {n // 2:,} and {n:,} x {kind}", flush=True)
        runs = {tool: run_child({"task": "long_piece", "tool": tool, "kind": kind, "n": n})["runs"]
                for tool in ("ours", "tiktoken")}
        for k in (0, 1):
            for tool in ("ours", "tiktoken"):
                r = runs[tool][k]
                r.update(rss_mb=0, worker_rss_mb=0)
                row = report.summarize("long_piece", tool, round(r["bytes"] / MB, 3), r["bytes"], [r],
                                       f"one pre-token of {r['chars']:,} {kind}")
                row["peak_rss_mb"] = row["worker_rss_mb"] = ""
                if tool == "ours":
                    report.set_ratio(row, r["seconds"], runs["tiktoken"][k]["seconds"], "time ours/tiktoken")
                if k and runs[tool][0]["seconds"] > 0:
                    row["note"] += f"; time x{r['seconds'] / runs[tool][0]['seconds']:.2f} for twice the length"
                rows.append(row)
    return rows


def bench_train_long(args) -> list[dict]:
    """Training time on long pre-tokens (Chinese lines, minified code, DNA): ours and HF, each capped."""
    rows = []
    for kind, note in (("letter", "one repeated letter: one GPT-2 pre-token"), ("none", "python_docs, no pre-tokenizer")):
        for n in (int(x) for x in args.train_long.split(",")):
            print(f"  training on long pre-tokens: {n:,} characters, {kind}", flush=True)
            result = {}
            for tool in ("ours", "hf"):
                result[tool] = run_child({"task": "train_long", "tool": tool, "kind": kind, "n": n, "vocab_size": 1000},
                                         timeout=args.train_long_cap)
                r = result[tool] or {"seconds": args.train_long_cap, "bytes": n}
                r.update(rss_mb=0, worker_rss_mb=0)
                capped = "" if result[tool] else f" (stopped at the {args.train_long_cap:.0f} s cap)"
                row = report.summarize("train_long", tool, round(n / MB, 3), n, [r], f"{note}, vocab 1,000{capped}")
                row["peak_rss_mb"] = row["worker_rss_mb"] = ""
                rows.append(row)
            if result["ours"] and result["hf"]:
                report.set_ratio(rows[-2], result["ours"]["seconds"], result["hf"]["seconds"], "time ours/HF")
    return rows


def bench_stream(args, base: Path, out: Path) -> list[dict]:
    rows = []
    available = base.stat().st_size / MB
    for mb in sorted({min(float(x), available) for x in args.stream_mb.split(",")}):
        path, size = sized(base, out, mb)
        print(f"  encode_iterable over {mb:g} MB", flush=True)
        res = run_child({"task": "stream", "path": str(path)})
        rows.append(report.summarize("stream", "ours", mb, size, [res], f"cache entries at the end: {res['cache_entries']:,}"))
    if len(rows) > 1:
        report.set_ratio(rows[-1], rows[-1]["peak_rss_mb"], rows[0]["peak_rss_mb"], "peak RSS vs the smallest file")
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    args = parse_args(argv)
    out = Path(args.out)
    sizes = sorted(float(x) for x in args.sizes.split(","))
    largest = max(sizes + [float(x) for x in args.stream_mb.split(",")] + [args.encode_mb])
    started = time.perf_counter()
    base, description = prepare_corpus(args.files, largest, out)
    available = base.stat().st_size / MB
    sizes = [mb for mb in sizes if mb <= available * 1.001] or [available]
    print(description, flush=True)
    rows = bench_training(args, base, out, sizes) + bench_encoding(args, base, out)
    rows += bench_long(args) + bench_train_long(args) + bench_stream(args, base, out)
    report.write_csv(rows, out / "results.csv")
    report.plot_training(rows, out / "training.png", f"BPE training, vocab {args.vocab_size:,}")
    print(f"\n{description}\n")
    report.print_table(rows)
    print(f"\nwrote {out / 'results.csv'} and {out / 'training.png'} in {time.perf_counter() - started:.0f} s")
    return rows


if __name__ == "__main__":
    main()
