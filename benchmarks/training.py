"""The training sections: every corpus at every size and vocabulary size, growth to 50 MB, and scale.

bpe_course's ``train_bpe(Path(f), V)`` against HF ``tokenizers`` (``BpeTrainer`` + ``ByteLevel``, its
default threads), each run in a fresh process (child.py), interleaved round by round, the trainer that goes
first turning from round to round. On every corpus HF also runs serially (``TOKENIZERS_PARALLELISM=false``),
and every run's CPU time is kept: our learning is one process, and HF's default run hands work to its
thread pool, which costs as well as gives.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from . import report, texts
from .corpus import prefix_file
from .runner import run_child

MB = 1_000_000
TRAINERS = ("ours", "hf")
ONE_THREAD = "hf1"  # HF on one thread (the train section's corpora; not growth or scale)
# subtle: HF's trainer hands each merge's walk to its thread pool when parallelism is on. RAYON_NUM_THREADS=1
# keeps the pool, with one thread: every merge then waits for a hand-over between two threads, and that run
# took 2.0-2.8 times the default's time. TOKENIZERS_PARALLELISM=false runs HF's serial iterators instead.
ONE_THREAD_ENV = {"TOKENIZERS_PARALLELISM": "false"}
CORPUS_TRAINERS = (*TRAINERS, ONE_THREAD)  # the train section's, in the order of its rows
# One file to train on: (size in MB as labelled, path, bytes).
Sized = tuple[float, Path, int]


def parse_sizes(spec: str) -> list[float | str]:
    """``"1,2,4,all"`` -> ``[1.0, 2.0, 4.0, "all"]`` ("all": the whole corpus)."""
    return [x.strip() if x.strip() == "all" else float(x) for x in spec.split(",") if x.strip()]


def corpus_files(case: str, base: Path, out: Path, sizes: list[float | str], end: bytes = b"\n\n") -> list[Sized]:
    """A file for each size: a prefix of ``base`` cut after ``end``, or ``base`` itself ("all", or too big).

    subtle: a size at or above the corpus's own is the whole corpus, labelled with its real size,
    and appears once however many sizes asked for it.
    """
    total = base.stat().st_size
    files: dict[Path, Sized] = {}
    for size in sizes:
        if size == "all" or size * MB >= total:
            files[base] = (round(total / MB, 3), base, total)
        else:
            path = out / f"{case}_{size:g}MB.txt"
            files[path] = (size, path, prefix_file(base, path, int(size * MB), end))
    return sorted(files.values(), key=lambda f: f[2])


def count_distinct(files: list[Sized]) -> dict[Path, int]:
    """The number of distinct GPT-2 pre-tokens of each file, counted by bpe_course in a child process."""
    res = run_child({"task": "distinct", "paths": [str(path) for _, path, _ in files]})
    return dict(zip((path for _, path, _ in files), res["counts"]))


def describe_sizes(case: str, files: list[Sized], distinct: dict[Path, int]) -> list[str]:
    """One line per size: bytes and distinct pre-tokens (why corpora of one size differ)."""
    return [f"  {case} {mb:g} MB: {size:,} bytes, {distinct[path]:,} distinct GPT-2 pre-tokens "
            f"({distinct[path] / (size / MB):,.0f} per MB)" for mb, path, size in files]


def train_task(tool: str, path: Path, vocab_size: int, pss: bool = False) -> dict:
    return {"task": "train", "tool": tool, "path": str(path), "vocab_size": vocab_size, "pss": pss}


def bench_corpus(case: str, files: list[Sized], vocab_sizes: list[int], distinct: dict[Path, int],
                 rounds: int) -> list[dict]:
    """Ours and HF on every size and vocabulary size of one corpus, interleaved over ``rounds``."""
    results: dict[tuple[str, float, int], list[dict]] = {}
    for r in range(rounds):
        for mb, path, _ in files:
            for vocab_size in vocab_sizes:
                turn = r % len(CORPUS_TRAINERS)
                for tool in CORPUS_TRAINERS[turn:] + CORPUS_TRAINERS[:turn]:  # who goes first turns round by round
                    print(f"  train {case} round {r + 1}/{rounds}: {tool} on {mb:g} MB, vocab {vocab_size:,}",
                          flush=True)
                    env = ONE_THREAD_ENV if tool == ONE_THREAD else None
                    results.setdefault((tool, mb, vocab_size), []).append(
                        run_child(train_task(tool, path, vocab_size), env=env))
    rows = []
    for mb, path, size in files:
        for vocab_size in vocab_sizes:
            runs = {tool: results[(tool, mb, vocab_size)] for tool in CORPUS_TRAINERS}
            ours, hf, hf1 = (report.summarize("train", tool, mb, size, runs[tool], case=case, vocab_size=vocab_size,
                                              distinct_pretokens=distinct[path]) for tool in runs)
            report.set_ratio(ours, ours["median_s"], hf["median_s"], "time ours/HF")
            report.set_ratio(hf1, ours["median_s"], hf1["median_s"], "time ours/HF on one thread")
            ours["note"] = (f"{runs['ours'][0]['merges']} merges (HF {runs['hf'][0]['merges']}); "
                            f"CPU time ours/HF {median_cpu(runs['ours']) / median_cpu(runs['hf']):.2f}; "
                            f"{rss_ratios(ours, hf)}")
            hf["note"] = f"CPU time / time {median_cpu(runs['hf']) / hf['median_s']:.2f}"  # the cores it kept busy
            hf1["note"] = (f"HF with {', '.join(f'{k}={v}' for k, v in ONE_THREAD_ENV.items())}; "
                           f"its time / HF's on every core {hf1['median_s'] / hf['median_s']:.2f}; "
                           f"CPU time ours/HF on one thread {median_cpu(runs['ours']) / median_cpu(runs['hf1']):.2f}")
            rows += [ours, hf, hf1]
    return rows


def median_cpu(runs: list[dict]) -> float:
    """The median CPU time of a trainer's runs (its own threads and its workers)."""
    return statistics.median(r["cpu_s"] for r in runs)


def rss_ratios(ours: dict, hf: dict) -> str:
    """Peak memory ours/HF: our main process alone, and with our largest worker (HF uses threads)."""
    hf_mem = hf["peak_rss_mb"]
    return (f"peak RSS ours/HF {ours['peak_rss_mb'] / hf_mem:.2f} (main), "
            f"{(ours['peak_rss_mb'] + ours['worker_rss_mb']) / hf_mem:.2f} (main+worker)")


def add_slopes(rows: list[dict], section: str = "train") -> None:
    """Note the log-log slope of time against size on the largest row of each corpus, trainer and vocabulary."""
    groups = {(r["case"], r["tool"], r["vocab_size"]) for r in rows if r["section"] == section}
    for case, tool, vocab_size in sorted(groups, key=str):
        points = report.training_points(rows, tool, section=section, case=case, vocab_size=vocab_size)
        slope = report.loglog_slope([(p[0], p[1]) for p in points])
        timed = [r for r in rows if r["section"] == section and (r["case"], r["tool"], r["vocab_size"]) ==
                 (case, tool, vocab_size) and r["median_s"] != ""]
        if slope is not None and timed:
            first, last = min(timed, key=lambda r: r["input_bytes"]), max(timed, key=lambda r: r["input_bytes"])
            last["note"] += (f"{'; ' if last['note'] else ''}log-log slope of time vs size {slope:.2f} "
                             f"({first['size_mb']:g}-{last['size_mb']:g} MB)")


def naive_rows(args, case: str, files: list[Sized], vocab_size: int, check: Sized) -> list[dict]:
    """The naive trainer once per size (until it hits the cap), and the fast == naive merges check."""
    check_mb, check_path, check_bytes = check
    res = run_child({"task": "agree_naive", "path": str(check_path), "vocab_size": 256 + args.check_merges},
                    args.naive_cap)
    row = report.summarize("naive_check", "naive", check_mb, check_bytes, [res] if res else [], case=case,
                           vocab_size=256 + args.check_merges)
    row["note"] = (f"fast == naive merges ({res['merges']} merges): {res['identical']}" if res
                   else f"> cap {args.naive_cap:g} s")
    rows = [row]
    capped = False
    for mb, path, size in files:
        if capped:
            rows.append(report.summarize("train", "naive", mb, size, [], "not run: > cap on a smaller size", case=case,
                                         vocab_size=vocab_size))
            continue
        print(f"  naive trainer on {mb:g} MB (cap {args.naive_cap:g} s)", flush=True)
        res = run_child(train_task("naive", path, vocab_size), args.naive_cap)
        capped = res is None
        rows.append(report.summarize("train", "naive", mb, size, [res] if res else [],
                                     f"> cap {args.naive_cap:g} s" if capped else "one run", case=case,
                                     vocab_size=vocab_size))
    return rows


# ---- growth: generated prose of unique lines, 1 to 50 MB ---------------------------------------------
def bench_growth(args, corpora: Path, out: Path) -> tuple[list[dict], list[str]]:
    """Ours and HF once per size on generated prose; the log-log slope of time against size for each."""
    sizes = sorted(float(x) for x in args.growth_mb.split(","))
    sentences = texts.book_sentences(corpora)
    big = out / "prose_growth.txt"
    print(f"  generating {max(sizes):g} MB of prose ...", flush=True)
    files: list[Sized] = []
    try:
        meta = texts.write_prose(big, int(max(sizes) * MB), sentences, args.seed)
        files = corpus_files("prose", big, out, sizes, end=b"\n")
        distinct = count_distinct(files)
        lines = [texts.describe_prose(meta, len(sentences))] + describe_sizes("prose", files, distinct)
        print("\n".join(lines), flush=True)
        rows = []
        for mb, path, size in files:
            result = {}
            for tool in TRAINERS:
                print(f"  growth: {tool} on {mb:g} MB of prose, vocab {args.growth_vocab:,}", flush=True)
                result[tool] = run_child(train_task(tool, path, args.growth_vocab), args.growth_cap)
            for tool in TRAINERS:
                res = result[tool]
                rows.append(report.summarize("growth", tool, mb, size, [res] if res else [],
                                             f"one run{'' if res else f'; > cap {args.growth_cap:g} s'}",
                                             case="prose", vocab_size=args.growth_vocab,
                                             distinct_pretokens=distinct[path]))
            if result["ours"] and result["hf"]:
                report.set_ratio(rows[-2], result["ours"]["seconds"], result["hf"]["seconds"], "time ours/HF")
        add_slopes(rows, "growth")
    finally:
        for path in {big, *(path for _, path, _ in files)}:  # generated, never kept
            path.unlink(missing_ok=True)
    return rows, lines


# ---- scale: 200 MB (and 2 GB) of prose, memory of the whole process tree ---------------------------
def bench_scale(args, corpora: Path, out: Path) -> tuple[list[dict], list[str]]:
    """Ours and HF once on 200 MB (and 2 GB) of generated prose: time and peak summed PSS; files deleted after."""
    sizes = sorted(float(x) for x in args.scale_mb.split(",")) + ([2000.0] if args.scale_2gb else [])
    sentences = texts.book_sentences(corpora)
    rows, lines = [], []
    for mb in sorted(set(sizes)):
        path = out / f"prose_scale_{mb:g}MB.txt"
        print(f"  generating {mb:g} MB of prose ...", flush=True)
        result: dict[str, dict | None] = {}
        try:
            meta = texts.write_prose(path, int(mb * MB), sentences, args.seed)
            distinct = count_distinct([(mb, path, meta["bytes"])])
            lines.append(f"{texts.describe_prose(meta, len(sentences))}; {distinct[path]:,} distinct GPT-2 pre-tokens")
            print(lines[-1], flush=True)
            for tool in TRAINERS:
                print(f"  scale: {tool} on {mb:g} MB, vocab {args.scale_vocab:,} (cap {args.scale_cap:g} s)",
                      flush=True)
                result[tool] = run_child(train_task(tool, path, args.scale_vocab, pss=True), args.scale_cap)
                res = result[tool]
                rows.append(report.summarize("scale", tool, mb, meta["bytes"], [res] if res else [],
                                             f"one run{'' if res else f'; > cap {args.scale_cap:g} s'}", case="prose",
                                             vocab_size=args.scale_vocab, distinct_pretokens=distinct[path]))
            if result["ours"] and result["hf"]:
                ours, hf = rows[-2], rows[-1]
                report.set_ratio(ours, ours["median_s"], hf["median_s"], "time ours/HF")
                ours["note"] += (f"; peak PSS ours/HF {ours['peak_pss_mb'] / hf['peak_pss_mb']:.2f}"
                                 f"; CPU time ours/HF {result['ours']['cpu_s'] / result['hf']['cpu_s']:.2f}")
            rows.append(encode_to_ids(args, path, mb, meta["bytes"], out))
        finally:
            path.unlink(missing_ok=True)
    add_growth_of_memory(rows)
    return rows, lines


def encode_to_ids(args, path: Path, mb: float, size: int, out: Path) -> dict:
    """The whole file to a ``.npy`` of GPT-2 ids with ``encode_files`` (what ``bpe-course encode --input F -o
    ids.npy`` runs): time and peak summed PSS, which must not grow with the file."""
    npy = out / "ids_scale.npy"
    print(f"  scale: encode_files, gpt2, {mb:g} MB to {npy.name}", flush=True)
    try:
        res = run_child({"task": "encode_files", "tool": "ours", "name": "gpt2", "paths": [str(path)], "out": str(npy)},
                        args.scale_cap)
    finally:
        npy.unlink(missing_ok=True)
    return report.summarize("scale_encode", "ours", mb, size, [res] if res else [],
                            f"encode_files to .npy, one run; {res['tokens']:,} ids" if res else f"> cap {args.scale_cap:g} s",
                            case="prose, gpt2")


def add_growth_of_memory(rows: list[dict]) -> None:
    """On each scale row above the smallest size: its peak PSS over the smallest size's (same trainer)."""
    for section, tool in [("scale", tool) for tool in TRAINERS] + [("scale_encode", "ours")]:
        timed = sorted((r for r in rows if r["section"] == section and r["tool"] == tool and r["peak_pss_mb"] != ""),
                       key=lambda r: r["size_mb"])
        for row in timed[1:]:
            row["note"] += (f"; peak PSS at {row['size_mb']:g} MB / at {timed[0]['size_mb']:g} MB: "
                            f"{row['peak_pss_mb'] / timed[0]['peak_pss_mb']:.2f}")
