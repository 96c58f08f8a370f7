"""One measurement, run in a fresh process: ``python -m benchmarks.child '<json task>'``.

Every measurement gets its own interpreter, so peak memory (``ru_maxrss``) belongs to that
measurement alone and no cache is warm unless the task warms it. The result is one JSON line
on stdout. Timings cover the work itself, not the interpreter start or the imports (the
``startup`` and ``processes`` tasks time exactly those). Tasks whose work forks workers can also
report the peak summed PSS of the whole process tree (memory.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from array import array
from contextlib import nullcontext
from pathlib import Path

from . import reference, tiktoken_files
from .memory import TreePss


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


def cpu_seconds() -> float:
    """CPU time (user + system) of this process's threads and of its children waited for so far.

    subtle: HF's trainer works in threads of this process, ours in forked workers that are waited for
    before training returns, so the two sums count the same thing: every core-second the training took.
    """
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def tiktoken_gpt2():
    """tiktoken's GPT-2 built offline from the same two files as ours (reference.py)."""
    return reference.build_tiktoken(reference.tiktoken_spec("gpt2", Path(".")))


def hf_gpt2():
    """Hugging Face's GPT-2 built offline from the same two files, with byte-level pre-tokenizer and decoder."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    spec = reference.tiktoken_spec("gpt2", Path("."))
    tok = Tokenizer(models.BPE.from_file(spec["encoder_json"], spec["vocab_bpe"]))
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
    """One training run; with ``"pss": true`` also the peak summed PSS of this process and its workers."""
    path, vocab_size = task["path"], task["vocab_size"]
    sampler = TreePss() if task.get("pss") else nullcontext()
    if task["tool"] in ("hf", "hf1"):  # hf1: the same, on one thread (training.ONE_THREAD_ENV)
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        with sampler:
            start, cpu = time.perf_counter(), cpu_seconds()
            tok.train([path], trainer)
            seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        result = {"seconds": seconds, "cpu_s": cpu, "merges": len(json.loads(tok.to_str())["model"]["merges"])}
    else:
        from bpe_course import train_bpe
        method = "naive" if task["tool"] == "naive" else "fast"
        with sampler:
            start, cpu = time.perf_counter(), cpu_seconds()
            _, merges = train_bpe(Path(path), vocab_size, method=method)
            seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        result = {"seconds": seconds, "cpu_s": cpu, "merges": len(merges)}
    if task.get("pss"):
        result["pss_mb"] = round(sampler.mb, 1)
    return result


def distinct(task: dict) -> dict:
    """The number of distinct GPT-2 pre-tokens of each file (``len`` of ``count_pretokens``)."""
    from bpe_course.train import count_pretokens
    return {"seconds": 0, "counts": [len(count_pretokens(Path(p))) for p in task["paths"]]}


def agree_naive(task: dict) -> dict:
    """Do the fast and the naive trainer learn the same merges on this (small) file?"""
    from bpe_course import train_bpe
    start = time.perf_counter()
    naive = train_bpe(Path(task["path"]), task["vocab_size"], method="naive")[1]
    seconds = time.perf_counter() - start
    fast = train_bpe(Path(task["path"]), task["vocab_size"])[1]
    return {"seconds": seconds, "merges": len(naive), "identical": fast == naive}


def cold_and_warm(encode_text, text: str, repeats: int) -> tuple[list[int], float, list[int], float]:
    """The first call's ids and seconds, then the last warm call's ids and the median of ``repeats`` warm calls."""
    start = time.perf_counter()
    ids = again = encode_text(text)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        again = encode_text(text)
        warm.append(time.perf_counter() - start)
    return ids, cold, again, statistics.median(warm)


def encode(task: dict) -> dict:
    """Throughput on prose: the first call on a new tokenizer, then warm calls (median)."""
    text = Path(task["path"]).read_text(encoding="utf-8")
    ids, cold, _, warm = cold_and_warm(encoder(task["tool"]), text, task["repeats"])
    return {"seconds": warm, "cold_seconds": cold, "tokens": len(ids)}


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


def ids_digest(ids: list[int]) -> str:
    """A short fingerprint of a list of ids (equal lists, equal fingerprints)."""
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:32]


def encode_pretrained(task: dict) -> dict:
    """GPT-2, cl100k or o200k by one encoder on prose: the first call on a new tokenizer, then warm calls."""
    text = Path(task["path"]).read_text(encoding="utf-8")
    encode_text = reference.build(task["tool"], task["name"], task.get("spec")).encode_ordinary
    ids, cold, again, warm = cold_and_warm(encode_text, text, task["repeats"])
    return {"seconds": warm, "cold_seconds": cold, "tokens": len(ids), "ids": ids_digest(ids),
            "warm_same_ids": again == ids}


def startup(task: dict) -> dict:
    """Importing the library and building one pretrained tokenizer in this fresh process (caches as the env says)."""
    start = time.perf_counter()
    if task["tool"] == "ours":
        import bpe_course  # noqa: F401
        imported = time.perf_counter()
        tok = reference.build_ours(task["name"])
    else:
        import tiktoken  # noqa: F401
        import tiktoken.load  # noqa: F401
        imported = time.perf_counter()
        tok = reference.build_tiktoken(task["spec"])
    built = time.perf_counter()
    return {"seconds": built - imported, "import_seconds": imported - start,
            "ids": tok.encode_ordinary("Hello world, start-up check.")}


def processes(task: dict) -> dict:
    """Wall time of whole commands, run in turn ``runs`` times each; each one's output (it must not vary)."""
    times: dict[str, list[float]] = {label: [] for label in task["commands"]}
    outputs: dict[str, str] = {}
    for _ in range(task["runs"]):
        for label, argv in task["commands"].items():
            env = {**os.environ, **task.get("env", {}).get(label, {})}
            start = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=task.get("cwd"))
            times[label].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise RuntimeError(f"{label}: {argv} failed:\n{done.stderr[-2000:]}")
            if outputs.setdefault(label, done.stdout.strip()) != done.stdout.strip():
                raise RuntimeError(f"{label}: the output changed from one run to the next")
    return {"seconds": 0, "times": times, "outputs": outputs}


def encode_files_task(task: dict) -> dict:
    """Text files to one ``.npy`` of ids: ``bpe_course.encode_files`` or tiktoken's ``encode_ordinary_batch``.

    The same job on both sides: read the files, encode each (a document: no token spans two),
    write the ids one after another as ``uint16`` (``uint32`` if an id needs it). The tokenizer
    is built before the clock starts; peak memory is the summed PSS of this process and its workers.
    subtle: tiktoken encodes the documents on threads (``num_threads=8``, its default) and hands
    back Python lists, so it holds every id as a Python int before NumPy packs them.
    """
    paths, out = [Path(p) for p in task["paths"]], Path(task["out"])
    tok = reference.build(task["tool"], task["name"], task.get("spec"))
    if task["tool"] == "ours":
        from bpe_course.encode_files import encode_files
        with TreePss() as pss:
            start = time.perf_counter()
            count = encode_files(tok, paths, out)
            seconds = time.perf_counter() - start
    else:
        import numpy as np
        with TreePss() as pss:
            start = time.perf_counter()
            batches = tok.encode_ordinary_batch([p.read_text(encoding="utf-8") for p in paths])
            count = sum(map(len, batches))
            wide = max((max(b) for b in batches if b), default=0) >= 1 << 16
            dtype = np.uint32 if wide else np.uint16
            np.save(out, np.concatenate([np.asarray(batch, dtype=dtype) for batch in batches]))
            seconds = time.perf_counter() - start
    return {"seconds": seconds, "tokens": count, "pss_mb": round(pss.mb, 1)}


def vendor_encode(task: dict) -> dict:
    """Tekken or SentencePiece v1, ours or the vendor's library, on prose: the first call on a new encoder, then
    warm calls (median). Building the encoder (reading its file) is not timed."""
    text = Path(task["path"]).read_text(encoding="utf-8")
    from bpe_course.pretrained import named_file
    if task["name"] == "tekken":
        if task["tool"] == "ours":
            from bpe_course.pretrained import tekken
            encode_text = tekken().encode_ordinary
        else:
            from mistral_common.tokens.tokenizers.tekken import Tekkenizer
            library = Tekkenizer.from_file(str(named_file("tekken")))
            encode_text = lambda t: library.encode(t, bos=False, eos=False)  # noqa: E731
    else:
        if task["tool"] == "ours":
            from bpe_course.algorithms.sentencepiece_bpe import SentencePieceBPE
            encode_text = SentencePieceBPE.from_file(named_file("mistral-v1")).encode
        else:
            import sentencepiece
            encode_text = sentencepiece.SentencePieceProcessor(model_file=str(named_file("mistral-v1"))).encode
    ids, cold, again, warm = cold_and_warm(encode_text, text, task["repeats"])
    return {"seconds": warm, "cold_seconds": cold, "tokens": len(ids), "ids": ids_digest(ids),
            "warm_same_ids": again == ids}


def lm_order5(task: dict) -> dict:
    """Chapter 16's sweep (its text, tokenizer and vocabulary sizes), orders 2-4 measured, then timed: the models of
    order 5 fitted and scored at every size, and the explorer moved from order 3 to 5 (the plot redrawn)."""
    from bpe_course import Tokenizer, corpus
    from bpe_course.train import train as train_run
    from bpe_course.algorithms.model_quality import Sweep, vocab_points
    from bpe_course.widgets.model_quality import ModelQualityExplorer
    book_train, heldout_text = corpus.train_heldout("don_quixote")
    train_text = book_train[:task["chars"]]
    run = train_run(train_text, 256 + 8192, min_frequency=5)
    tok = Tokenizer(run.vocab, run.merges)
    sweep = Sweep(tok, train_text, heldout_text, vocab_points(len(tok.merges)))
    sweep.measure((2, 3, 4))
    explorer = ModelQualityExplorer(sweep, order=3)
    start = time.perf_counter()
    data = sweep.measure([5])
    measured = time.perf_counter()
    explorer.order.value = 5
    moved = time.perf_counter()
    return {"seconds": moved - start, "measure_seconds": measured - start,
            "train_tokens": [len(sweep.encoded[k][0]) for k in sweep.merges],
            "bits": [round(b, 6) for b in data["bits_per_byte"]]}


TASKS = {"train": train, "train_long": train_long, "agree_naive": agree_naive, "encode": encode, "long_piece": long_piece,
         "stream": stream, "compare_ids": compare_ids, "distinct": distinct, "encode_pretrained": encode_pretrained,
         "startup": startup, "processes": processes, "encode_files": encode_files_task,
         "tiktoken_file": tiktoken_files.task, "vendor_encode": vendor_encode, "lm_order5": lm_order5}


def main() -> None:
    task = json.loads(sys.argv[1])
    result = TASKS[task["task"]](task)
    result.update(peak_rss_mb())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
