"""Tokenizers trained once and a text that stresses them, shared by the tests of the file formats."""

from __future__ import annotations

from functools import lru_cache

from bpe_course import Tokenizer, corpus, train_bpe

SPECIALS = ["<|endoftext|>", "<|pad|>", "<|endoftext|><|pad|>"]  # the third overlaps the first two
EDGE = ("  lead\tand trail  \r\n\n\n   x  \u00a0y\u3000z 12345678 ½² don't DON'T I'M we'LL 🙂👍🏽 e\u0301 Ġ Ċ "
        "\x00\x1f <|endoftext|><|pad|> a<|pad|>b <|endoftext|>  end   ")
TEXT = (corpus.load("python_docs")[:4000] + corpus.load("languages")[:4000] + corpus.load("numbers")[:1500]
        + corpus.load("python_code")[:3000] + EDGE)


@lru_cache(maxsize=None)
def trained(pattern: str, with_specials: bool) -> Tokenizer:
    text = corpus.load("python_docs")[:(60_000 if pattern != "none" else 6_000)]
    specials = SPECIALS if with_specials else []
    vocab, merges = train_bpe(text, 600 if pattern != "none" else 320, specials, pattern=pattern)
    return Tokenizer(vocab, merges, specials, pattern=pattern)


TRAINED = [("gpt2", True), ("gpt4", True), ("gpt4", False), ("none", True), ("none", False)]


def assert_same_tokenizer(loaded: Tokenizer, original: Tokenizer) -> None:
    assert loaded.vocab == original.vocab
    assert loaded.merges == original.merges
    assert loaded.special_tokens == original.special_tokens
    assert loaded.pattern == original.pattern
    assert loaded.encode(TEXT, allowed_special="all") == original.encode(TEXT, allowed_special="all")
