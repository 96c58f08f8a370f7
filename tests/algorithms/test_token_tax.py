"""The token tax (bpe_course.algorithms.token_tax, chapter 13): costs against direct measurement, and a mix
trained on its training articles only."""

from __future__ import annotations

from bpe_course import corpus, gpt2, train_bpe
from bpe_course.algorithms.token_tax import OWN_MIN_FREQUENCY, OWN_VOCAB_SIZE, relative_costs, summary, train_on_mix
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES, TRAIN_ARTICLES


def test_relative_costs_are_token_counts_divided_by_english():
    tok = gpt2()
    costs = relative_costs({"GPT-2": tok}, ["eng", "tam"], ["3", "7"])
    assert len(costs) == 4 and set(costs[costs["code"] == "eng"]["ratio"]) == {1.0}
    row = costs[(costs["code"] == "tam") & (costs["article"] == "7")].iloc[0]
    assert row["tokens"] == len(tok.encode(corpus.udhr("tam")["7"]))
    assert row["ratio"] == row["tokens"] / len(tok.encode(corpus.udhr("eng")["7"]))
    total = summary(costs).loc[("GPT-2", "Tamil"), "total ratio"]
    tam = sum(len(tok.encode(corpus.udhr("tam")[k])) for k in ("3", "7"))
    assert total == tam / sum(len(tok.encode(corpus.udhr("eng")[k])) for k in ("3", "7"))


def test_a_mix_trains_on_its_training_articles_only():
    tok = train_on_mix(MIXES["balanced"])
    docs = [corpus.udhr(code)[k] for code in corpus.UDHR_LANGUAGES for k in TRAIN_ARTICLES]
    vocab, merges = train_bpe(docs, OWN_VOCAB_SIZE, min_frequency=OWN_MIN_FREQUENCY)
    assert tok.merges == merges and len(merges) == OWN_VOCAB_SIZE - 256
    assert not set(HELDOUT_ARTICLES) & set(TRAIN_ARTICLES)
