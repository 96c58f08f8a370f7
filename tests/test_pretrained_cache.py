"""The start-up cache's file format (bpe_course.pretrained_cache): packed and unpacked, every byte checked."""

from __future__ import annotations

import pytest

from bpe_course import pretrained_cache


def test_every_byte_of_a_cache_file_is_checked(gpt2_tok):
    sources = {"encoder.json": "a" * 64, "vocab.bpe": "b" * 64}
    small = gpt2_tok.truncated(300)
    data = pretrained_cache.pack("gpt2", sources, small.vocab, small.merges, small.special_tokens, small.pattern)
    assert pretrained_cache.unpack(data, "gpt2", sources) == (small.vocab, small.merges, small.special_tokens,
                                                              small.pattern)
    for k in range(0, len(data), 97):
        damaged = data[:k] + bytes([data[k] ^ 0x20]) + data[k + 1:]
        with pytest.raises(pretrained_cache.CacheMismatch):
            pretrained_cache.unpack(damaged, "gpt2", sources)
    with pytest.raises(pretrained_cache.CacheMismatch, match="made for another name"):
        pretrained_cache.unpack(data, "cl100k", sources)


def same_tokenizer(a, b) -> bool:
    return (a.vocab, a.merges, a.special_tokens, a.pattern) == (b.vocab, b.merges, b.special_tokens, b.pattern)


# ---- a checked cache file: the tokenizer is built without its checks --------------------------------
def _shuffled_ids(tok):
    """The same tokenizer with the ids of its merged tokens shuffled: its ranks are no longer its ids."""
    import random
    from bpe_course import Tokenizer
    merged = [i for i, t in tok.vocab.items() if len(t) > 1 and i not in tok.special_tokens.values()]
    moved = dict(zip(merged, random.Random(7).sample(merged, len(merged))))
    vocab = {moved.get(i, i): t for i, t in tok.vocab.items()}
    return Tokenizer(vocab, tok.merges, tok.special_tokens, tok.pattern)


@pytest.mark.parametrize("by_id", [True, False])
def test_a_checked_cache_file_builds_the_same_tokenizer_without_the_checks(gpt2_tok, monkeypatch, by_id):
    from bpe_course import tokenizer as tokenizer_module
    tok = gpt2_tok.truncated(2000) if by_id else _shuffled_ids(gpt2_tok.truncated(2000))
    assert tok.ranks_by_id is by_id
    sources = {"encoder.json": "a" * 64, "vocab.bpe": "b" * 64}
    checked = pretrained_cache.pack_tokenizer("gpt2", sources, tok, "gpt2")
    unchecked = pretrained_cache.pack("gpt2", sources, tok.vocab, tok.merges, tok.special_tokens, "gpt2")
    text = "Hello world, it's 2024 -- the naïve café's tokens\n\n  spaced\tout"
    for data in (checked, unchecked):
        loaded = pretrained_cache.load_tokenizer(data, "gpt2", sources)
        assert same_tokenizer(loaded, tok) and loaded.ranks_by_id is by_id
        assert dict(loaded._rank) == dict(tok._rank) and loaded._id_of == tok._id_of
        assert loaded.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
        assert loaded.encode_ordinary_truncated(text, 500) == tok.encode_ordinary_truncated(text, 500)

    def no_checks(*args):
        raise AssertionError("the checks ran")
    monkeypatch.setattr(tokenizer_module, "_check_vocab", no_checks)
    assert same_tokenizer(pretrained_cache.load_tokenizer(checked, "gpt2", sources), tok)
    with pytest.raises(AssertionError, match="the checks ran"):  # a file that does not say it was checked
        pretrained_cache.load_tokenizer(unchecked, "gpt2", sources)
