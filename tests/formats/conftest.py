"""Fixtures of the format tests: no tiktoken cache, and GPT-2 and cl100k saved once in every format."""

from __future__ import annotations

import pytest

from bpe_course import formats


@pytest.fixture(autouse=True)
def no_tiktoken_cache(monkeypatch):
    """tiktoken caches files by path in $TMPDIR/data-gym-cache; "" turns that off."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")


@pytest.fixture(scope="session")
def saved_big(tmp_path_factory, gpt2_tok, cl100k_tok):
    """GPT-2 and cl100k saved once in every format that holds them."""
    folder = tmp_path_factory.mktemp("big")
    for name, tok in (("gpt2", gpt2_tok), ("cl100k", cl100k_tok)):
        for fmt in ("hf", "tiktoken") + (("gpt2",) if name == "gpt2" else ()):
            formats.save(tok, folder / f"{name}.{fmt}", format=fmt)
    return folder
