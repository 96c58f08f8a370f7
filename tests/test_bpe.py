"""BPE's rule (bpe_course.bpe): which merge first made a token, and the rule against tiktoken's own files."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from bpe_course import gpt2
from bpe_course.bpe import byte_ranker, first_merge_ranks, merge_by_rank, merge_bytes, merges_from_ranks


symbols = st.sampled_from([b"a", b"b", b"ab", b"ba", b"c"])


@given(st.lists(st.tuples(symbols, symbols), max_size=30))
def test_first_merge_ranks_keeps_the_first_merge_of_each_token(merges):
    expected: dict[bytes, int] = {}
    for rank, (a, b) in enumerate(merges):
        if a + b not in expected:
            expected[a + b] = rank
    ranks = first_merge_ranks(merges)
    assert ranks == expected
    assert list(ranks) == list(expected)  # in creation order


def test_first_merge_ranks_of_gpt2_are_its_ids_in_merge_order():
    tok = gpt2()
    ranks = first_merge_ranks(tok.merges)
    assert len(ranks) == len(tok.merges) == 50_000  # no token of GPT-2 is made twice
    ids = [tok.encode_piece(token)[0] for token in ranks]
    assert ids == sorted(ids)
    assert tok.first_merge_ranks() == ranks


def test_merges_from_ranks_recovers_gpt2s_merges():
    tok = gpt2()
    ranks = {token: i for i, token in tok.vocab.items() if i not in tok.special_tokens.values()}
    assert merges_from_ranks(ranks) == tok.merges


def test_a_token_bpe_cannot_make_gets_a_split_into_two_older_tokens_and_tiktoken_s_ids():
    """Llama 3's case in small: BPE over lower ranks leaves ".:.:" as '.', ':.', ':', yet the rank file lists it.
    Its merge is a split into two tokens of lower rank, and encoding gives tiktoken's ids; with no such split
    the file is refused, naming the token and its rank."""
    import tiktoken
    from bpe_course import Tokenizer
    ranks = {bytes([b]): b for b in range(256)} | {b":.": 256, b".:": 257, b".:.:": 258}
    assert merges_from_ranks(ranks)[-1] == (b".:", b".:")
    ours = Tokenizer({r: t for t, r in ranks.items()}, merges_from_ranks(ranks), pattern="none")
    theirs = tiktoken.Encoding("toy", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    for text in [".:.:", "..:.:", ".:.:.:", ":.:.", "x.:.:x", ".:" * 7]:
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), text
    import pytest
    with pytest.raises(ValueError, match=r"token b'abc' \(rank 256\) cannot be built from two lower-ranked tokens"):
        merges_from_ranks({bytes([b]): b for b in range(256)} | {b"abc": 256})


@settings(max_examples=500, deadline=None)
@given(st.binary(min_size=1, max_size=40))
def test_merge_bytes_is_merge_by_rank(gpt2_tok, piece):
    ranks = gpt2_tok.first_merge_ranks()
    expected = merge_by_rank([piece[i:i + 1] for i in range(len(piece))], byte_ranker(ranks))
    assert merge_bytes(piece, ranks) == expected
    by_id = {token: i for i, token in gpt2_tok.vocab.items() if i not in gpt2_tok.special_tokens.values()}
    assert merge_bytes(piece, by_id) == expected  # ranked by id: the same order
