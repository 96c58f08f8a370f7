"""The ``tiktoken_files`` section: saving and loading ``.tiktoken`` files whose tokens are long.

A ``.tiktoken`` file holds ranks only, so loading one rebuilds the merges by re-running BPE on
every token (``bpe_course.bpe.merges_from_ranks``); a token of 10,000 letters used to make that
quadratic (issue 27). The cases: a tokenizer trained on 10 KB, 100 KB and 1 MB of one letter, and a
hostile file whose tokens double in length (a, aa, aaaa, ... up to 131,072 bytes, 350 KB). Beside
ours: tiktoken reading the same file (ranks only, nothing to rebuild) and Hugging Face ``tokenizers``
reading the same tokenizer saved as ``tokenizer.json`` (its merges written out).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from . import report
from .runner import run_child

TOOLS = ("ours", "tiktoken", "hf")
ONE_LETTER_SIZES = (10_000, 100_000, 1_000_000)
DOUBLING_STEPS = 17  # a * 2**17 = 131,072 bytes: a 350 KB file


def build(case: str, n: int):
    """The tokenizer of a case: trained on ``n`` copies of one letter, or doubling tokens up to ``2**n`` bytes."""
    from bpe_course import Tokenizer, train_bpe
    if case == "one_letter":
        vocab, merges = train_bpe(["a" * n], 2000, pattern=None)
        return Tokenizer(vocab, merges, pattern=None)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for j in range(n):
        half = b"a" * (1 << j)
        merges.append((half, half))
        vocab[len(vocab)] = half + half
    return Tokenizer(vocab, merges, pattern=None)


def task(spec: dict) -> dict:
    """In a fresh process: build the case, then time ours saving and loading, or another library loading."""
    from bpe_course import Tokenizer
    tok = build(spec["case"], spec["n"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.tiktoken"
        start = time.perf_counter()
        tok.save(path, format="tiktoken")
        save_seconds = time.perf_counter() - start
        file_bytes = path.stat().st_size
        start = time.perf_counter()
        if spec["tool"] == "ours":
            back = Tokenizer.load(path)
            assert back.merges == tok.merges and back.vocab == tok.vocab
        elif spec["tool"] == "tiktoken":
            import tiktoken
            import tiktoken.load
            tiktoken.Encoding(name="long", pat_str=r"[\s\S]+", special_tokens={},
                              mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)))
        else:
            import tokenizers
            tok.save(Path(folder) / "tokenizer.json", format="hf")
            start = time.perf_counter()
            tokenizers.Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        load_seconds = time.perf_counter() - start
    return {"seconds": load_seconds, "save_seconds": save_seconds, "file_bytes": file_bytes,
            "longest_token": max(map(len, tok.vocab.values()))}


def bench(args) -> list[dict]:
    rows = []
    cases = [("one_letter", n, f"trained on {n:,} x 'a'") for n in ONE_LETTER_SIZES]
    cases.append(("doubling", DOUBLING_STEPS, f"doubling tokens a .. a x {1 << DOUBLING_STEPS:,}"))
    for case, n, label in cases:
        print(f"  tiktoken files: {label}", flush=True)
        results = {tool: run_child({"task": "tiktoken_file", "tool": tool, "case": case, "n": n}) for tool in TOOLS}
        size = results["ours"]["file_bytes"]
        longest = results["ours"]["longest_token"]
        for tool in TOOLS:
            r = results[tool]
            row = report.summarize("tiktoken_files", tool, round(size / 1e6, 3), size, [r],
                                   f"load; {label}, longest token {longest:,} bytes", case=case)
            rows.append(row)
            if tool == "ours":
                saved = dict(r, seconds=r["save_seconds"])
                rows.append(report.summarize("tiktoken_files", "ours_save", round(size / 1e6, 3), size, [saved],
                                             f"save; {label}", case=case))
        report.set_ratio(rows[-4], results["ours"]["seconds"], results["tiktoken"]["seconds"], "load time ours/tiktoken")
        report.set_ratio(rows[-1], results["hf"]["seconds"], results["tiktoken"]["seconds"], "load time HF/tiktoken")
    return rows
