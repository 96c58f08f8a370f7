"""BPE-dropout (bpe_course.algorithms.dropout, chapter 15): p=0 is BPE, p=1 is bytes, every sample spells the text."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings, strategies as st

from strategies import valid_text

from bpe_course import corpus, gpt2
from bpe_course.algorithms.dropout import dropout_merge, dropout_tokens


@pytest.fixture(scope="module")
def gpt():
    return gpt2()


@settings(max_examples=100, deadline=None)
@given(text=valid_text, p=st.floats(0, 1), seed=st.integers(0, 10))
def test_every_sample_spells_the_text_with_vocabulary_tokens(gpt, text, p, seed):
    tokens = dropout_tokens(gpt, text, p, Random(seed))
    assert b"".join(tokens) == text.encode("utf-8")
    assert set(tokens) <= set(gpt.vocab.values())


def test_no_dropout_is_bpe_and_full_dropout_is_bytes(gpt):
    text = corpus.train_heldout("python_docs")[1][:20_000]
    assert dropout_tokens(gpt, text, 0.0, Random(0)) == [gpt.vocab[i] for i in gpt.encode_ordinary(text)]
    assert dropout_tokens(gpt, text, 1.0, Random(0)) == [text.encode()[i:i + 1] for i in range(len(text.encode()))]
    lengths = [len(dropout_tokens(gpt, text, p, Random(1))) for p in (0.0, 0.1, 0.3, 0.6)]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]  # more dropout, more tokens
    with pytest.raises(ValueError, match="p must be between 0 and 1"):
        dropout_merge(b"ab", {b"ab": 0}, 1.5, Random(0))
