"""A saved tokenizer as a real tiktoken.Encoding (bpe_course.interop): tiktoken gives our ids."""

from __future__ import annotations

import pytest

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.interop import tiktoken_encoding

SPECIALS = ["<|endoftext|>", "<|pad|>"]
TEXT = corpus.load("languages")[:3000] + " <|endoftext|> x<|pad|>y 🙂\n\n"


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "none"])
def test_tiktoken_gives_our_ids(tmp_path, pattern):
    tok = Tokenizer(*train_bpe(corpus.load("python_docs")[:20_000], 400, SPECIALS, pattern=pattern), SPECIALS,
                    pattern=pattern)
    tok.save(tmp_path / "mine.tiktoken", format="tiktoken")
    enc = tiktoken_encoding(tmp_path / "mine.tiktoken")
    assert enc.name == "mine" and enc.n_vocab == tok.n_vocab == 400
    assert enc.encode(TEXT, allowed_special="all") == tok.encode(TEXT, allowed_special="all")
    assert enc.encode_ordinary(TEXT) == tok.encode_ordinary(TEXT)
    assert tiktoken_encoding(tmp_path / "mine.tiktoken", name="other").name == "other"


def test_a_file_saved_again_at_the_same_path_is_read_again(tmp_path, monkeypatch):
    """tiktoken's own loader caches by path; the bridge reads the file itself each time."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "t.tiktoken"
    for n in (300, 270):
        Tokenizer(*train_bpe(corpus.load("python_docs")[:10_000], n)).save(path, format="tiktoken")
        assert tiktoken_encoding(path).n_vocab == n
