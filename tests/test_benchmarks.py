"""Smoke test: ``python -m benchmarks`` end to end on a tiny file with tiny settings (no timing asserts)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import report  # noqa: E402
from benchmarks.corpus import build_corpus, prefix_file, roff_to_text  # noqa: E402


def test_benchmark_runs_end_to_end(tmp_path, docs_text):
    text_file = tmp_path / "tiny.txt"
    text_file.write_text(docs_text[:60_000], encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", str(text_file), "--sizes", "0.02,0.04", "--vocab-size", "300",
         "--rounds", "1", "--naive-cap", "20", "--check-kb", "8", "--check-merges", "20", "--encode-mb", "0.01",
         "--long", "300,600", "--train-long", "2000,4000", "--stream-mb", "0.01,0.03", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "time ours/HF" in done.stdout and "throughput vs tiktoken" in done.stdout

    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == report.COLUMNS
        rows = list(reader)
    seen = {(r["section"], r["tool"]) for r in rows}
    assert {("train", "ours"), ("train", "hf"), ("train", "naive"), ("naive_check", "naive"), ("encode", "ours"),
            ("encode", "tiktoken"), ("encode", "hf"), ("long_piece", "ours"), ("long_piece", "tiktoken"),
            ("stream", "ours"), ("train_long", "ours"), ("train_long", "hf")} <= seen
    train_ours = [r for r in rows if r["section"] == "train" and r["tool"] == "ours"]
    assert [float(r["size_mb"]) for r in train_ours] == [0.02, 0.04]
    assert all(float(r["median_s"]) > 0 and float(r["ratio"]) > 0 for r in train_ours)
    check = next(r for r in rows if r["section"] == "naive_check")
    assert "fast == naive merges (20 merges): True" in check["note"]
    assert "ids ours == tiktoken: True" in next(r["note"] for r in rows if r["tool"] == "tiktoken")
    assert (out / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_slope_and_summary():
    assert abs(report.loglog_slope([(1, 2.0), (2, 4.0), (4, 8.0)]) - 1.0) < 1e-9
    row = report.summarize("train", "ours", 1, 10**6, [{"seconds": s, "rss_mb": 50, "worker_rss_mb": 0}
                                                     for s in (3.0, 1.0, 2.0)])
    assert (row["median_s"], row["min_s"], row["max_s"], row["mb_per_s"]) == (2.0, 1.0, 3.0, 0.5)


def test_corpus_is_deterministic_prose(tmp_path, monkeypatch):
    from benchmarks import corpus
    monkeypatch.setattr(corpus, "MAN_ROOT", tmp_path / "no-man-pages")  # keep the test quick
    first = build_corpus(tmp_path / "a.txt", 150_000)
    second = build_corpus(tmp_path / "b.txt", 150_000)
    assert first["sha256"] == second["sha256"] and first["bytes"] >= 150_000
    text = (tmp_path / "a.txt").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    assert len(set(paragraphs)) == len(paragraphs)  # no passage repeated
    size = prefix_file(tmp_path / "a.txt", tmp_path / "p.txt", 100_000)
    assert 90_000 < size <= 100_000 and (tmp_path / "p.txt").read_text(encoding="utf-8").endswith("\n\n")


def test_roff_to_text_keeps_the_prose():
    page = '.TH TAR 1\n.SH NAME\ntar \\- an archiving utility\n.PP\n\\fBtar\\fR stores files \\(em fast.\n.\\" comment\n'
    text = roff_to_text(page)
    assert "tar - an archiving utility" in text and "tar stores files — fast." in text and "comment" not in text
