"""Chapter 16's sweep (bpe_course.algorithms.model_quality): its numbers against tokenizers and models built
separately."""

from __future__ import annotations

import pytest

from bpe_course import Tokenizer, train_bpe
from bpe_course.algorithms.lm import KneserNey
from bpe_course.algorithms.model_quality import best_rows, prefix_covering, vocab_points


def test_vocab_points_double_the_vocabulary():
    assert vocab_points(0) == [0]
    assert vocab_points(600) == [0, 256, 600]
    assert vocab_points(3840) == [0, 256, 768, 1792, 3840]
    assert [256 + k for k in vocab_points(4000)][:5] == [256, 512, 1024, 2048, 4096]
    with pytest.raises(ValueError):
        vocab_points(-1)


def test_prefix_covering_is_the_shortest_start_holding_the_bytes():
    tok = Tokenizer(*train_bpe("low low lower lowest", 262))
    ids = tok.encode_ordinary("low low lower lowest")
    for n in range(1, 22):
        got = prefix_covering(tok, ids, n)
        assert len(tok.decode_bytes(got)) >= min(n, 20)
        assert len(got) == len(ids) or len(tok.decode_bytes(got[:-1])) < n


def test_sweep_rows_match_tokenizers_and_models_built_alone(small_sweep, sweep_texts):
    train, heldout = sweep_texts
    data = small_sweep.measure([1, 3])
    assert list(data["merges"].unique()) == [0, 256, 600] and set(data["order"]) == {1, 3}
    for k in (256, 600):
        tok = Tokenizer(*train_bpe(train, 256 + k))  # trained again, not truncated
        ids, held = tok.encode_ordinary(train), tok.encode_ordinary(heldout)
        model = KneserNey(ids, 3, 256 + k)
        row = data.query("order == 3 and merges == @k").iloc[0]
        assert row["bits_per_byte"] == pytest.approx(model.bits(held) / len(heldout.encode("utf-8")), rel=1e-12)
        assert row["tokens_per_word"] == len(held) / len(heldout.split())
        assert row["train_tokens"] == len(ids) and row["n_vocab"] == 256 + k
    bytes_row = data.query("order == 1 and merges == 0").iloc[0]
    assert bytes_row["heldout_tokens"] == len(heldout.encode("utf-8"))


def test_a_smaller_training_size_uses_a_prefix_and_is_remembered(small_sweep):
    small = small_sweep.measure([2], train_bytes=10_000)
    assert (small["train_bytes"] == 10_000).all()
    for _, row in small.iterrows():
        assert row["train_tokens"] == len(prefix_covering(small_sweep.tok, small_sweep.encoded[row["merges"]][0], 10_000))
    full = small_sweep.measure([2])
    assert (full["train_tokens"] > small["train_tokens"]).all()
    assert len(small_sweep.data) == len(small_sweep.data.drop_duplicates(["merges", "order", "train_bytes"]))
    assert small_sweep.measure([2], train_bytes=10_000).equals(small)


def test_best_rows_pick_the_fewest_bits(small_sweep):
    data = small_sweep.measure([1, 3])
    best = best_rows(data)
    for _, row in best.iterrows():
        assert row["bits_per_byte"] == data[data["order"] == row["order"]]["bits_per_byte"].min()
