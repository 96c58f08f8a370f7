"""bpe_course.algorithms.variants against plain BPE (train_bpe / train_counts) and against naive references.

Each variant, switched off, must give train_bpe's merges exactly; optimal segmentation must never
give more tokens than merge-order encoding and must spell the same text.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.pairs import apply_merge, best_pair, count_pairs
from bpe_course.pretokenize import GPT2_PATTERN, pretokenize
from bpe_course.train import count_pretokens, train_counts
from bpe_course.algorithms.variants import (Merges, Segmenter, fewest_tokens, gini, intersection_over_self, is_superword,
                                 line_units, picky_tokens_of, superbpe_tokens, sweep_superbpe, train_parity,
                                 train_picky, train_plain, train_superbpe, vocab_of, word_sequences)

from strategies import tricky_text


@pytest.fixture(scope="module")
def novel() -> str:
    return corpus.train_heldout("don_quixote")[0][:60_000]


@pytest.fixture(scope="module")
def novel_plain(novel):
    return train_bpe(novel, 256 + 300)


words = st.lists(st.sampled_from(["low", "lower", "newest", "widest", " the", "aaaa", "abab", "日本", "é", " ",
                                  ",", "of", "\n"]), min_size=1, max_size=40).map("".join)


# ---------------------------------------------------------------- the shared trainer

def test_merges_trainer_equals_train_counts_on_a_novel(novel, novel_plain):
    assert train_plain(count_pretokens(novel), 300) == novel_plain[1]


@settings(max_examples=60, deadline=None)
@given(words, st.integers(0, 30))
def test_merges_trainer_equals_train_counts_and_a_naive_recount(text, n):
    counts = count_pretokens(text)
    merges = train_plain(counts, n)
    assert merges == train_counts(counts, 256 + n).merges
    # and its counts after every merge are a full recount's
    m = Merges(word_sequences(counts))
    naive = dict(word_sequences(counts))
    for pair in merges:
        assert dict(m.pairs) == {p: c for p, c in count_pairs(naive).items() if c}
        assert m.best() == (best_pair(count_pairs(naive)), count_pairs(naive)[pair])
        m.merge(pair)
        naive = apply_merge(naive, pair)
        assert m.total_tokens() == sum(len(w) * c for w, c in naive.items())
        expected = Counter()
        for w, count in naive.items():
            for t in w:
                expected[t] += count
        assert m.tokens == expected


# ---------------------------------------------------------------- optimal segmentation

def naive_fewest(piece: bytes, vocab: set[bytes]) -> int:
    """Try every way to cut the piece (exponential: short pieces only)."""
    n = len(piece)
    best = n
    for cuts in product([False, True], repeat=max(n - 1, 0)):
        parts, start = [], 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                parts.append(piece[start:i])
                start = i
        parts.append(piece[start:])
        if all(p in vocab for p in parts):
            best = min(best, len(parts))
    return best if n else 0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=9), st.lists(st.binary(min_size=2, max_size=4), max_size=12))
def test_fewest_tokens_is_the_true_minimum(piece, extra):
    vocab = {bytes([b]) for b in range(256)} | set(extra)
    cut = fewest_tokens(piece, vocab)
    assert b"".join(cut) == piece and all(t in vocab for t in cut)
    assert len(cut) == naive_fewest(piece, vocab)


@pytest.fixture(scope="module")
def small_tokenizer() -> Tokenizer:
    return Tokenizer(*train_bpe(corpus.load("python_docs")[:40_000], 256 + 400))


@settings(max_examples=150, deadline=None)
@given(st.one_of(tricky_text, words, st.text(max_size=60)))
def test_optimal_never_more_tokens_than_merge_order_and_decodes_the_same(small_tokenizer, text):
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    vocab = set(small_tokenizer.vocab.values())
    seg = Segmenter(small_tokenizer.vocab, lambda piece: fewest_tokens(piece, vocab))
    ids = seg.encode(text)
    assert len(ids) <= len(small_tokenizer.encode_ordinary(text))
    assert seg.decode(ids) == text
    assert b"".join(small_tokenizer.vocab[i] for i in ids) == text.encode("utf-8")


def test_fewest_tokens_names_a_byte_missing_from_the_vocabulary():
    with pytest.raises(ValueError, match="byte 0x63 at offset 2"):
        fewest_tokens(b"abc", {b"a", b"b", b"ab"})


# ---------------------------------------------------------------- SuperBPE

def test_superbpe_with_the_transition_at_the_end_is_plain_bpe(novel, novel_plain):
    assert train_superbpe(novel, 300, 300).merges == novel_plain[1]


@settings(max_examples=40, deadline=None)
@given(words, st.integers(1, 25))
def test_superbpe_transition_at_the_end_equals_train_bpe_on_any_text(text, n):
    assert train_superbpe(text, n, n).merges == train_bpe(text, 256 + n)[1]


def test_superbpe_stage_one_is_plain_bpe_and_stage_two_crosses_words(novel, novel_plain):
    runs = sweep_superbpe(novel, 300, [100, 200, 300])
    for t, run in runs.items():
        assert run.merges[:t] == novel_plain[1][:t]
        assert len(run.merges) == 300
        assert all(not is_superword(a + b) for a, b in run.merges[:t])
        assert run == train_superbpe(novel, 300, t)
    assert runs[100].superwords() and b" of the" in runs[100].superwords()
    assert all(b"\n" not in a + b for a, b in runs[100].merges[100:])  # never across lines


def test_superbpe_encoding_replays_training(novel):
    run = train_superbpe(novel, 200, 120)
    tokens = superbpe_tokens(run, novel)
    assert b"".join(tokens) == novel.encode("utf-8")
    assert set(tokens) <= set(run.vocab().values())
    # training's own final cut of the text: stage 2 on the units, merges replayed one by one
    stage1 = {}
    for unit in line_units(novel, "gpt2"):
        for piece in unit:
            if piece not in stage1:
                stage1[piece] = _replay(piece, run.merges[:120])
    naive = Counter(tuple(s for piece in unit for s in stage1[piece]) for unit in line_units(novel, "gpt2"))
    for pair in run.merges[120:]:
        naive = Counter(apply_merge(dict(naive), pair))
    assert Counter(_units_of(tokens, novel)) == naive


def _replay(piece: bytes, merges) -> tuple[bytes, ...]:
    seq = {tuple(bytes([b]) for b in piece): 1}
    for pair in merges:
        seq = apply_merge(seq, pair)
    return next(iter(seq))


def _units_of(tokens: list[bytes], text: str) -> list[tuple[bytes, ...]]:
    """Cut a token list at the units' boundaries (their byte lengths)."""
    out, i = [], 0
    for unit in line_units(text, "gpt2"):
        n, taken = sum(map(len, unit)), []
        while n > 0:
            taken.append(tokens[i])
            n -= len(tokens[i])
            i += 1
        assert n == 0
        out.append(tuple(taken))
    return out


def test_superbpe_stage_two_starts_where_stage_one_ran_out():
    run = train_superbpe("ab ab ab", 5, 4)  # stage 1 has only 2 merges to make: a+b, then " "+ab
    assert run.transition == 2 and run.merges[:2] == train_bpe("ab ab ab", 256 + 4)[1]
    assert run.superwords() and b"".join(superbpe_tokens(run, "ab ab ab")) == b"ab ab ab"


def test_superbpe_refuses_a_transition_out_of_range():
    with pytest.raises(ValueError, match="transition"):
        train_superbpe("a b", 3, 4)


def test_is_superword():
    assert [is_superword(t) for t in (b" of the", b" the", b"  ", b", and", b"of ", b"a\nb")] == \
        [True, False, False, True, False, True]


# ---------------------------------------------------------------- Picky BPE

def test_picky_with_the_threshold_off_is_plain_bpe(novel, novel_plain):
    run = train_picky(count_pretokens(novel), 300, None)
    assert run.merges == novel_plain[1] and run.removed == []


@settings(max_examples=40, deadline=None)
@given(words, st.integers(0, 25))
def test_picky_off_equals_train_bpe_on_any_text(text, n):
    assert train_picky(count_pretokens(text), n, None).merges == train_bpe(text, 256 + n)[1]


def test_picky_removes_by_intersection_over_self_and_refills_the_vocabulary(novel, novel_plain):
    counts = count_pretokens(novel)
    run = train_picky(counts, 300, 0.9)
    assert run.removed and len(run.merges) == 300 + len(run.removed)
    assert len(run.alive) == len(set(run.alive)) == 300 and all(len(t) > 1 for _, t, _ in run.removed)
    assert all(score >= 0.9 for _, _, score in run.removed)
    # the first removal is the first merge of plain BPE with a multi-byte part of IoS >= 0.9
    m = Merges(word_sequences(counts))
    for k, pair in enumerate(novel_plain[1]):
        ios = {p: intersection_over_self(m.pairs[pair], m.tokens[p]) for p in set(pair) if len(p) > 1}
        if any(s >= 0.9 for s in ios.values()):
            first = (k, *max(ios.items(), key=lambda kv: kv[1]))
            break
        m.merge(pair)
    assert run.removed[0][:2] == first[:2] and run.merges[:first[0] + 1] == novel_plain[1][:first[0] + 1]
    # removed tokens are gone from the final segmentation unless made again
    final_tokens = {t for seq in run.final.values() for t in seq}
    assert final_tokens <= set(run.alive) | {bytes([b]) for b in range(256)}


def test_picky_encoding_replays_training(novel):
    run = train_picky(count_pretokens(novel), 200, 0.8)
    cut = picky_tokens_of(run)
    assert all(tuple(cut(piece)) == seq for piece, seq in run.final.items())
    assert set(run.vocab().values()) >= {t for seq in run.final.values() for t in seq}


# ---------------------------------------------------------------- parity-aware BPE

def test_parity_with_one_language_is_plain_bpe(novel, novel_plain):
    run = train_parity({"en": novel}, {"en": novel[:5000]}, 300)
    assert run.merges == novel_plain[1] and set(run.chosen_for) == {"en"}


@settings(max_examples=30, deadline=None)
@given(words, words, st.integers(0, 20))
def test_parity_one_language_equals_train_bpe_on_any_text(text, dev, n):
    assert train_parity({"x": text}, {"x": dev}, n).merges == train_bpe(text, 256 + n)[1]


def test_parity_chooses_for_the_worst_language_on_the_dev_text():
    langs = ["eng", "tam", "hin"]
    tr = {c: "\n".join(corpus.udhr(c)[str(k)] for k in range(1, 8)) for c in langs}
    dv = {c: corpus.udhr(c)["9"] for c in langs}
    run = train_parity(tr, dv, 120)
    # replay naively: recount each language's dev tokens before every merge
    dev_words = {c: dict(word_sequences(count_pretokens(dv[c]))) for c in langs}
    train_words = {c: dict(word_sequences(count_pretokens(tr[c]))) for c in langs}
    for pair, lang in zip(run.merges, run.chosen_for):
        sizes = {c: sum(len(w) * n for w, n in dev_words[c].items()) for c in langs}
        worst = max(langs, key=lambda c: sizes[c])
        assert lang == worst
        assert pair == best_pair(count_pairs(train_words[lang]))
        dev_words = {c: apply_merge(w, pair) for c, w in dev_words.items()}
        train_words = {c: apply_merge(w, pair) for c, w in train_words.items()}
    assert run.dev_tokens == {c: sum(len(w) * n for w, n in dev_words[c].items()) for c in langs}


def test_parity_refuses_mismatched_languages():
    with pytest.raises(ValueError, match="same languages"):
        train_parity({"a": "x"}, {"b": "x"}, 3)


def test_gini_against_a_sorted_formula():
    values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
    xs, n = sorted(values), len(values)
    expected = sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(xs)) / (n * sum(xs))
    assert gini(values) == pytest.approx(expected)
    assert gini([2.0] * 5) == 0.0
    with pytest.raises(ValueError):
        gini([])


def test_vocab_of_lays_ids_out_as_train_bpe(novel_plain):
    vocab, merges = novel_plain
    assert vocab_of(a + b for a, b in merges) == vocab


@pytest.mark.parametrize("call", [
    lambda: train_plain({"ab": 1}, -1),
    lambda: train_superbpe("a b", 2.5, 1),
    lambda: train_picky({"ab": 1}, True, None),
    lambda: train_parity({"x": "ab"}, {"x": "ab"}, "3"),
])
def test_a_bad_number_of_merges_is_named(call):
    with pytest.raises(ValueError, match="n_merges must be an int >= 0"):
        call()


@pytest.mark.parametrize("threshold", [0, 1.5, -0.2, "0.9", True])
def test_a_bad_picky_threshold_is_named(threshold):
    with pytest.raises(ValueError, match=r"threshold must be a number in \(0, 1\]"):
        train_picky({"ab": 1}, 3, threshold)
