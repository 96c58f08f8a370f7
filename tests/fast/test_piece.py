"""Long pieces and long tokens (bpe_course.fast.piece): the same merges as the plain loop of
bpe_course.bpe, and the same ids as tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from strategies import valid_text

from bpe_course import Tokenizer, gpt2, train_bpe
from bpe_course.tokenizer import LONG_PIECE


symbol_bytes = st.sampled_from([b"a", b"b", b"c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(symbol_bytes, min_size=2, max_size=4).map(b"".join), max_size=12, unique=True),
       st.lists(symbol_bytes, min_size=0, max_size=40).map(b"".join), st.integers(0, 20))
def test_the_long_token_merges_leave_the_parts_of_the_plain_loop(tokens, piece, limit):
    from bpe_course.bpe import merge_bytes
    from bpe_course.fast.piece import heap_merge_bytes, pass_merge_bytes
    ranks = {t: r for r, t in enumerate(tokens)}  # in any order: ranks need not respect lengths here
    expected = merge_bytes(piece, ranks, limit=limit)
    assert heap_merge_bytes(piece, ranks, limit=limit) == expected
    assert pass_merge_bytes(piece, ranks, limit=limit) in (None, expected)


def test_merges_recovered_the_long_way_are_gpt2s_and_cl100ks(monkeypatch):
    import bpe_course.fast.piece as piece
    from bpe_course import cl100k
    from bpe_course.bpe import merges_from_ranks
    monkeypatch.setattr(piece, "LONG_TOKEN", 1)  # every token through pass_merge_bytes / heap_merge_bytes
    for tok in gpt2(), cl100k():
        ranks = {t: i for i, t in tok.vocab.items() if i not in tok.special_tokens.values()}
        assert merges_from_ranks(ranks, merge=piece.merge_any_length) == tok.merges


PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SPECIALS = ["<|endoftext|>", "<|endoftext|><|endoftext|>", "<|pad|>"]


@pytest.fixture(scope="module")
def trained(docs_text) -> Tokenizer:
    vocab, merges = train_bpe(docs_text[:100_000], 256 + 500 + len(SPECIALS), SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


def reference_piece_merge(tok: Tokenizer, piece: bytes) -> list[int]:
    """tiktoken's rule, written plainly: merge the leftmost lowest-ranked adjacent pair."""
    rank = {a + b: k for k, (a, b) in reversed(list(enumerate(tok.merges)))}
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while True:
        ranked = [(rank[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in rank]
        if not ranked:
            break
        _, i = min(ranked)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    id_of = {token: i for i, token in tok.vocab.items() if i not in tok.special_tokens.values()}
    return [id_of[p] for p in parts]


@PROPERTY
@given(valid_text)
def test_long_piece_heap_merge_equals_reference(gpt2_tok, trained, text):
    """A piece longer than LONG_PIECE bytes takes the long path (bpe_course.fast.piece.encode_long_piece)."""
    piece = (text * 12).encode("utf-8")
    piece *= 1 + LONG_PIECE // max(len(piece), 1)
    if len(piece) > 1:
        for tok in (gpt2_tok, trained):
            whole = [i for i, token in tok.vocab.items() if token == piece]  # a piece that is a token is that token
            assert tok.encode_piece(piece) == (whole or reference_piece_merge(tok, piece))


@pytest.mark.parametrize("text", ["\U0001F642" * 3000, "ab" * 4000, "a" * 5001, "\U0001F642a\u00e9" * 700,
                                  "x" + "\U0001F469\u200d\U0001F469\u200d\U0001F467" * 500])
def test_long_pieces_equal_tiktoken(gpt2_tok, cl100k_tok, tiktoken_gpt2, tiktoken_cl100k, text):
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k)):
        fresh = Tokenizer(ours.vocab, ours.merges, ours.special_tokens, ours.pattern)
        assert fresh.encode_ordinary(text) == theirs.encode_ordinary(text)
