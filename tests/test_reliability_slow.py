"""Round 3 (issue 34), slow: Tekken's warm encoding against mistral-common's, as the benchmark shows it.

No timing asserts: the benchmark's tekken section runs end to end on a small text, its rows hold both
tools' times and their ratio, and the ids of the two are the same. (The speed itself is Tekken's
pattern running through the package's splitter, as o200k's does: see test_reliability_wrong_answers.)
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmark_measures_tekken_against_mistral_common(tmp_path):
    pytest.importorskip("mistral_common")
    corpora = tmp_path / "corpora"
    (corpora / "books").mkdir(parents=True)
    paragraphs = (ROOT / "data" / "don_quixote.txt").read_text(encoding="utf-8").split("\n\n")
    for name, part in (("les_miserables_en.txt", paragraphs[200:400]), ("don_quixote_en.txt", paragraphs[3000:3200])):
        (corpora / "books" / name).write_text("\n\n".join(part) + "\n", encoding="utf-8")
    shutil.copytree(ROOT / "data" / "udhr", corpora / "udhr")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--sections", "tekken", "--rounds", "1",
                           "--encoders-mb", "0.05", "--corpora-dir", str(corpora), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["section"] == "tekken"]
    by = {(r["case"], r["tool"]): r for r in rows}
    assert set(by) == {(f"tekken {s}", t) for s in ("warm", "cold") for t in ("ours", "mistral-common")}
    assert "ids ours == mistral-common: True" in by[("tekken warm", "mistral-common")]["note"]
    warm = by[("tekken warm", "ours")]
    assert warm["ratio_meaning"] == "time ours/mistral-common (warm)" and float(warm["ratio"]) > 0
    assert float(warm["ratio"]) == pytest.approx(float(warm["median_s"]) / float(
        by[("tekken warm", "mistral-common")]["median_s"]), rel=0.01)
