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
