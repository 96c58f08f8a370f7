"""bpe_course.algorithms.variants against plain BPE (train_bpe / train_counts) and against naive references.

Each variant, switched off, must give train_bpe's merges exactly; optimal segmentation must never
give more tokens than merge-order encoding and must spell the same text.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st
from strategies import tricky_text

from bpe_course import Tokenizer, corpus, train_bpe
from bpe_course.algorithms.variants import (Merges, Segmenter, fewest_tokens, gini, intersection_over_self, is_superword,
                                 line_units, picky_tokens_of, superbpe_tokens, sweep_superbpe, train_parity,
                                 train_picky, train_plain, train_superbpe, vocab_of, word_sequences)
from bpe_course.pairs import apply_merge, best_pair, count_pairs
from bpe_course.pretokenize import GPT2_PATTERN, pretokenize
from bpe_course.train import count_pretokens, train_counts

# what the naive references of issue 32 use (tie rules, Picky BPE, per-unit scores)
import math
from collections import Counter
from random import Random
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from bpe_course import Tokenizer, corpus, count_pretokens, paragraph_bytes, train_bpe
from bpe_course.algorithms import (KneserNey, Merges, Segmenter, Sweep, bits_by_unit, bits_per_byte, fewest_tokens,
                                   tokens_by_unit, train_picky, vocab_points)
import importlib
import random
from hypothesis import HealthCheck
from bpe_course.algorithms.variants import (heap_merge_in_order, merge_in_order, merged_in_order, pair_ranks, split_bytes)


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


# ---- issue 32: the variants, Picky BPE and the per-unit scores against naive references ----

# ---------------------------------------------------------------- the shortest path's tie rules


def all_cuts(piece: bytes, vocab: set[bytes]) -> list[tuple[bytes, ...]]:
    """Every way to spell ``piece`` with tokens of ``vocab``: the slow, obvious enumeration."""
    if not piece:
        return [()]
    return [(piece[:j], *rest) for j in range(1, len(piece) + 1) if piece[:j] in vocab
            for rest in all_cuts(piece[j:], vocab)]


def shortest_cuts(piece: bytes, vocab: set[bytes]) -> list[tuple[bytes, ...]]:
    cuts = all_cuts(piece, vocab)
    fewest = min(map(len, cuts))
    return [c for c in cuts if len(c) == fewest]


def longest_first(cuts):
    """Of several cuts, the one whose first token is longest, then the second, ...: a lexicographic maximum."""
    return max(cuts, key=lambda c: [len(t) for t in c])


def longest_last(cuts):
    """The one whose last token is longest, then the one before it, ... (PathPiece's default)."""
    return max(cuts, key=lambda c: [len(t) for t in reversed(c)])


BYTES = {bytes([b]) for b in range(256)}
small_vocab = st.sets(st.binary(min_size=2, max_size=4).map(lambda b: bytes(x % 3 + 97 for x in b)), max_size=12)
small_piece = st.binary(min_size=0, max_size=9).map(lambda b: bytes(x % 3 + 97 for x in b))


@settings(max_examples=300, deadline=None)
@given(small_piece, small_vocab)
def test_each_deterministic_rule_keeps_the_shortest_cut_its_definition_names(piece, extra):
    vocab = BYTES | extra
    cuts = shortest_cuts(piece, vocab)
    assert tuple(fewest_tokens(piece, vocab)) == longest_first(cuts)
    assert tuple(fewest_tokens(piece, vocab, ties="longest last")) == longest_last(cuts)


@settings(max_examples=150, deadline=None)
@given(small_piece, small_vocab, st.integers(0, 10**6))
def test_random_ties_always_give_a_shortest_cut(piece, extra, seed):
    vocab = BYTES | extra
    assert tuple(fewest_tokens(piece, vocab, ties="random", rng=Random(seed))) in shortest_cuts(piece, vocab)


def test_random_ties_reach_every_shortest_cut_and_draw_the_last_token_evenly():
    vocab = BYTES | {b"ab", b"abc", b"cd", b"bcd"}  # abc+d, ab+cd, a+bcd: three last tokens of different widths
    drawn = Counter(tuple(fewest_tokens(b"abcd", vocab, ties="random", rng=Random(s))) for s in range(3000))
    assert set(drawn) == set(shortest_cuts(b"abcd", vocab))
    assert all(abs(n / 3000 - 1 / 3) < 0.04 for n in drawn.values())  # reservoir sampling: 1/3 each


def test_tie_rules_are_checked():
    with pytest.raises(ValueError, match="ties must be one of"):
        fewest_tokens(b"ab", BYTES, ties="shortest")
    with pytest.raises(ValueError, match="rng=Random"):
        fewest_tokens(b"ab", BYTES, ties="random")
    with pytest.raises(ValueError, match="offset 1"):
        fewest_tokens(b"ab", {b"a"}, ties="longest last")


def test_an_uncached_segmenter_cuts_each_occurrence_afresh():
    vocab = {i: bytes([i]) for i in range(256)} | {256: b" ab", 257: b" abc", 258: b"cd", 259: b" a", 260: b"bcd"}
    tokens = set(vocab.values())
    rng = Random(1)
    seg = Segmenter(vocab, lambda piece: fewest_tokens(piece, tokens, ties="random", rng=rng), cache=False)
    cuts = {tuple(seg.tokens(" abcd")) for _ in range(50)}
    assert len(cuts) == 3
    cached = Segmenter(vocab, lambda piece: fewest_tokens(piece, tokens, ties="random", rng=rng))
    assert len({tuple(cached.tokens(" abcd")) for _ in range(50)}) == 1


# ---------------------------------------------------------------- Picky BPE as its authors' code decides


def naive_picky(counts: dict[str, int], n_merges: int, threshold: float):
    """Picky BPE the slow way: words as token lists, every count recounted at every step.

    The pair chosen is plain BPE's (highest count, then the greatest pair); after merging it left to
    right, each part in order -- once for a pair (x, x) -- is removed when m / (r + m) > threshold, m the
    merges just made and r the part's occurrences now (pchizhov/picky_bpe, bpe_trainer.py: the part's
    frequency is lowered by the merges, by 2 m for (x, x), before the test). A removed token is split
    back into its halves, recursively while a half is removed too. Single bytes are never removed.
    """
    words = [([bytes([b]) for b in w.encode()], n) for w, n in counts.items()]
    made_of, alive, merges, removed = {}, [], [], []

    def occurrences(token):
        return sum(n * seq.count(token) for seq, n in words)

    def halves(token):
        a, b = made_of[token]
        return [q for h in (a, b) for q in ([h] if len(h) == 1 or h in alive else halves(h))]

    while len(alive) < n_merges:
        pairs = Counter()
        for seq, n in words:
            for p in zip(seq, seq[1:]):
                pairs[p] += n
        if not pairs:
            break
        pair = max(pairs, key=lambda p: (pairs[p], p))
        token = pair[0] + pair[1]
        made = 0
        for seq, n in words:
            i = 0
            while i < len(seq) - 1:
                if (seq[i], seq[i + 1]) == pair:
                    seq[i:i + 2] = [token]
                    made += n
                i += 1
        merges.append(pair)
        made_of[token] = pair
        if token in alive:
            alive.remove(token)
        alive.append(token)
        for part in dict.fromkeys(pair):
            score = made / (occurrences(part) + made)
            if len(part) > 1 and part in alive and score > threshold:
                alive.remove(part)
                for k, (seq, n) in enumerate(words):
                    words[k] = ([q for s in seq for q in (halves(part) if s == part else [s])], n)
                removed.append((len(merges) - 1, part, score))
    return merges, removed


def test_picky_removes_only_above_the_threshold_never_at_it():
    counts = {"abc": 3, "abd": 1}  # after (a, b) then (ab, c): IoS of ab = 3 / 4 exactly
    assert train_picky(counts, 2, 0.75).removed == []
    assert train_picky(counts, 2, 0.7).removed == [(1, b"ab", 0.75)]


def test_picky_scores_a_pair_of_a_token_with_itself_as_the_reference_does():
    # (ab, ab): 15 overlapping pairs, 10 merges made left to right, 2 ab left: 10 / (2 + 10), not 15 / 22
    counts = {"abababab": 5, "ab": 2}
    run = train_picky(counts, 2, 0.8)
    assert run.removed[:1] == [(1, b"ab", 10 / 12)]
    assert naive_picky(counts, 2, 0.8)[1][:1] == run.removed[:1]


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text("abc", min_size=1, max_size=7), st.integers(1, 6), min_size=1, max_size=8),
       st.integers(1, 12), st.sampled_from([0.5, 0.6, 0.75, 0.8, 0.9]))
def test_picky_equals_the_naive_reference(counts, n, threshold):
    merges, removed = naive_picky(counts, n, threshold)
    run = train_picky(counts, n, threshold)
    assert run.merges == merges
    assert [(k, t) for k, t, _ in run.removed] == [(k, t) for k, t, _ in removed]
    assert [s for *_, s in run.removed] == pytest.approx([s for *_, s in removed])


def test_picky_equals_the_naive_reference_on_the_novel():
    counts = count_pretokens(corpus.load_text("don_quixote")[:20_000])
    merges, removed = naive_picky(counts, 120, 0.7)
    run = train_picky(counts, 120, 0.7)
    assert removed and run.merges == merges and [t for _, t, _ in run.removed] == [t for _, t, _ in removed]


# ---------------------------------------------------------------- scores split into held-out units


@pytest.fixture(scope="module")
def small():
    train, heldout = corpus.train_heldout("don_quixote")
    train, heldout = train[:60_000], heldout[:15_000]
    return Tokenizer(*train_bpe(train, 256 + 300)), train, heldout


def test_bits_by_unit_adds_up_to_bits_per_byte_and_splits_at_paragraphs(small):
    tok, train, heldout = small
    model = KneserNey(tok.encode_ordinary(train), 3, tok.n_vocab)
    ids = tok.encode_ordinary(heldout)
    paragraphs = paragraph_bytes(heldout)
    units = bits_by_unit(model, ids, tok.vocab, paragraphs)
    assert len(units) == len(paragraphs) > 10
    assert math.isclose(sum(b for b, _ in units) / sum(n for _, n in units), bits_per_byte(model, ids, heldout),
                        rel_tol=1e-12)
    # a paragraph's own bits: the tokens that start in it (here every paragraph starts a token: GPT-2's
    # pattern keeps "\n\n" apart from the next word)
    first = heldout.encode()[:paragraphs[0]]
    n_first = next(k for k in range(len(ids) + 1) if len(b"".join(tok.vocab[i] for i in ids[:k])) >= len(first))
    assert units[0] == (pytest.approx(-sum(math.log2(p) for p in model.token_probs(ids)[:n_first])), paragraphs[0])
    assert [t for t, _ in tokens_by_unit(ids, tok.vocab, paragraphs)][0] == n_first


def test_a_sweep_keeps_each_rows_units(small):
    tok, train, heldout = small
    sweep = Sweep(tok, train, heldout, vocab_points(300))
    data = sweep.measure([2, 3])
    for _, row in data.iterrows():
        units = sweep.units(int(row["n_vocab"]), int(row["order"]))
        k = int(row["merges"])
        model = KneserNey(sweep.encoded[k][0], int(row["order"]), int(row["n_vocab"]))
        fresh = bits_by_unit(model, sweep.encoded[k][1], tok.vocab, paragraph_bytes(heldout))
        assert [n for _, n in units] == [n for _, n in fresh]
        assert all(math.isclose(a, b, rel_tol=1e-9) for (a, _), (b, _) in zip(units, fresh))
        assert math.isclose(sum(b for b, _ in units) / sum(n for _, n in units), row["bits_per_byte"], rel_tol=1e-12)
    with pytest.raises(KeyError, match="measure it first"):
        sweep.units(512, 4)


# ---------------------------------------------------------------- SuperBPE's released stage-2 limits


def naive_stage2(text: str, n_merges: int, transition: int, allows) -> list[tuple[bytes, bytes]]:
    """SuperBPE with a stage-2 rule, the slow way: every count recounted, a refused pair never merged again."""
    from bpe_course.algorithms import line_units
    from bpe_course.algorithms.variants import train_plain

    merges = train_plain(count_pretokens(text), transition)
    ranks = {pair: k for k, pair in enumerate(merges)}

    def stage1(piece: bytes) -> list[bytes]:
        from bpe_course.algorithms.variants import merge_in_order, split_bytes
        return merge_in_order(split_bytes(piece), ranks)

    lines = [[s for piece in line for s in stage1(piece)] for line in line_units(text, "gpt2")]
    refused = set()
    while len(merges) < n_merges:
        counts = {}
        for line in lines:
            for pair in zip(line, line[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        candidates = [p for p in counts if p not in refused]
        if not candidates:
            break
        pair = max(candidates, key=lambda p: (counts[p], p))
        if not allows(pair[0] + pair[1]):
            refused.add(pair)
            continue
        merges.append(pair)
        for k, line in enumerate(lines):
            out, i = [], 0
            while i < len(line):
                if i + 1 < len(line) and (line[i], line[i + 1]) == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(line[i])
                    i += 1
            lines[k] = out
    return merges


LIMIT_TEXT = ("Note: the cat sat on the mat and then it sat on the hat.\n"
              "Note: the dog sat on the log and then it sat on the frog.\n") * 30


def test_stage2_limits_equal_the_naive_reference_and_refuse_what_they_should():
    from bpe_course.algorithms import released_stage2_allows, train_superbpe, words_in
    run = train_superbpe(LIMIT_TEXT, 120, 40, allows=released_stage2_allows)
    assert run.merges == naive_stage2(LIMIT_TEXT, 120, 40, released_stage2_allows)
    free = train_superbpe(LIMIT_TEXT, 120, 40)
    assert free.merges == naive_stage2(LIMIT_TEXT, 120, 40, lambda token: True)
    made = [a + b for a, b in run.merges[40:]]
    assert all(words_in(t) <= 4 and b": " not in t for t in made)
    assert any(words_in(a + b) > 4 or b": " in a + b for a, b in free.merges[40:])  # the limits bite on this text


def test_a_forbidden_pair_is_never_offered_again():
    m = Merges({(b"a", b"b", b"c"): 3, (b"a", b"b"): 2, (b"b", b"c"): 1})
    assert m.best() == ((b"a", b"b"), 5)
    m.forbid((b"a", b"b"))
    assert m.best() == ((b"b", b"c"), 4)
    m.merge((b"b", b"c"))
    assert m.best() == ((b"a", b"bc"), 3)
    m.merge((b"a", b"bc"))
    assert m.pairs == {(b"a", b"b"): 2} and m.best() is None  # the one pair left is forbidden


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


variants_module = importlib.import_module("bpe_course.algorithms.variants")


# ---- SuperBPE: a line is merged with a heap ------------------------------------------------------------
class CountingRank(float):
    """A rank that counts how often it is compared: the work of a merge loop, without a clock.

    subtle: a float subclass, so that Python asks it first even when the other side is a plain
    float (the plain loop's ``inf`` for a pair that is no merge)."""

    compared = 0

    def _count(op):
        def compare(self, other):
            CountingRank.compared += 1
            return op(float(self), float(other) if isinstance(other, float) else other)
        return compare

    __lt__, __le__ = _count(float.__lt__), _count(float.__le__)
    __gt__, __ge__ = _count(float.__gt__), _count(float.__ge__)
    __eq__, __ne__ = _count(float.__eq__), _count(float.__ne__)
    __hash__ = float.__hash__


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"b", b"c", b"ab", b" "]), max_size=90),
       st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"ab", b"abc", b" ", b"a "]),
                          st.sampled_from([b"a", b"b", b"c", b"ab", b"ba", b" "])), max_size=12, unique=True))
def test_the_heap_merge_leaves_the_parts_of_the_plain_loop(symbols, pairs):
    ranks = {pair: rank for rank, pair in enumerate(pairs)}
    assert heap_merge_in_order(symbols, ranks) == merge_in_order(symbols, ranks)
    assert merged_in_order(symbols, ranks) == merge_in_order(symbols, ranks)


def count_superbpe_comparisons(run, text: str, monkeypatch) -> int:
    monkeypatch.setattr(variants_module, "pair_ranks",
                        lambda merges: {pair: CountingRank(r) for pair, r in pair_ranks(merges).items()})
    CountingRank.compared = 0
    tokens = superbpe_tokens(run, text)
    assert b"".join(tokens) == text.encode("utf-8")
    return CountingRank.compared


def test_superbpe_encoding_is_near_linear_in_the_length_of_a_line(monkeypatch):
    text = corpus.load("python_docs")[:120_000]
    run = train_superbpe(text, 400, transition=200)
    line = " ".join(text.split())  # one paragraph per line: here, one line of 100,000 characters
    short, long = line[:12_000], line[:48_000]
    small = count_superbpe_comparisons(run, short, monkeypatch)
    large = count_superbpe_comparisons(run, long, monkeypatch)
    assert large < 6 * small  # 4x the line, about 4x the rank comparisons (the plain loop: about 16x)
    # and the tokens are those of the plain loop, stage 1 per piece and stage 2 over the whole line
    first, second = pair_ranks(run.merges[:run.transition]), pair_ranks(run.merges[run.transition:])
    units = variants_module.line_units(long, run.pattern)
    expected = [t for unit in units for t in merge_in_order(
        [s for piece in unit for s in merge_in_order(split_bytes(piece), first)], second)]
    assert superbpe_tokens(run, long) == expected


# ---- optimal segmentation: linear in a run of one byte ------------------------------------------------
class CountingSet(set):
    lookups = 0

    def __contains__(self, item):
        CountingSet.lookups += 1
        return super().__contains__(item)


def fewest_count_naive(piece: bytes, vocab) -> list[bytes]:
    """The test's own shortest path, every length at every position, with fewest_tokens' tie rule."""
    n = len(piece)
    best, first = [0] * (n + 1), [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        best[i] = n + 1
        for j in range(n, i, -1):
            if piece[i:j] in vocab and best[j] + 1 < best[i]:
                best[i], first[i] = best[j] + 1, j - i
    out, i = [], 0
    while i < n:
        out.append(piece[i:i + first[i]])
        i += first[i]
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([b"a", b"b", b" "]), min_size=1, max_size=14).map(b"".join).flatmap(
    lambda unit: st.tuples(st.just(unit), st.integers(1, 6))),
       st.lists(st.lists(st.sampled_from([b"a", b"b", b" "]), min_size=2, max_size=9).map(b"".join), max_size=20))
def test_the_run_aware_search_finds_the_cut_of_the_plain_search(monkeypatch, unit_and_copies, extra):
    monkeypatch.setattr(variants_module, "LONG_PIECE_BYTES", 0)  # every piece through the run-aware search
    monkeypatch.setattr(variants_module, "LONG_RUN", 3)  # and runs of 3 are long
    unit, copies = unit_and_copies
    piece = unit * copies
    vocab = {bytes([b]) for b in range(256)} | set(extra)
    assert fewest_tokens(piece, vocab) == fewest_count_naive(piece, vocab)


def lookups_for(piece: bytes, vocab: set[bytes]) -> int:
    CountingSet.lookups = 0
    cut = fewest_tokens(piece, CountingSet(vocab))
    assert b"".join(cut) == piece
    return CountingSet.lookups


@pytest.mark.parametrize("vocab", [
    {bytes([b]) for b in range(256)} | {b"a" * (1 << k) for k in range(1, 15)},  # a, aa, aaaa, ... (BPE on a run)
    {bytes([b]) for b in range(256)} | {b"a" * k for k in range(2, 300)} | {b" aaa", b"aaa!", b"a" * 40 + b"!"},
], ids=["doubling runs", "every run to 300"])
def test_optimal_segmentation_is_linear_in_a_run_of_one_byte(vocab):
    small = lookups_for(b" " + b"a" * 5_000 + b"!", vocab)
    large = lookups_for(b" " + b"a" * 20_000 + b"!", vocab)
    assert large < 5 * small + 1_000  # 4x the run, about 4x the lookups (before: 16x at least, and each slice long)
    for piece in (b" " + b"a" * 700 + b"!", b"a" * 333, b"a" * 41 + b"!" + b"a" * 300):
        assert fewest_tokens(piece, vocab) == fewest_count_naive(piece, vocab)


def test_a_long_piece_of_prose_is_cut_as_the_plain_search_cuts_it():
    text = corpus.load("python_docs")[:3_000].encode("utf-8")
    vocab = {bytes([b]) for b in range(256)}
    rng = random.Random(0)
    for _ in range(3_000):
        start = rng.randrange(len(text) - 12)
        vocab.add(text[start:start + rng.randint(2, 12)])
    vocab |= {b" " * 40, b"=" * 30 + b"\n", b"x" + b"-" * 20}
    piece = text[:600] + b" " * 100 + b"=" * 45 + b"\n" + b"x" + b"-" * 20 + text[600:900]
    assert fewest_tokens(piece, vocab) == fewest_count_naive(piece, vocab)


# ---- text where counts are taken --------------------------------------------------------------------------
@pytest.mark.parametrize("train", [lambda c: train_plain(c, 5), lambda c: train_picky(c, 5, 0.9), Merges],
                         ids=["train_plain", "train_picky", "Merges"])
@pytest.mark.parametrize("given_value, kind", [("low lower lowest", "str"), (["low", "lower"], "list"),
                                               (b"low", "bytes")])
def test_text_where_counts_are_taken_says_what_to_pass(train, given_value, kind):
    with pytest.raises(TypeError, match=rf"(counts must be pre-token counts|sequences must be).*{kind}"):
        train(given_value)


def test_counts_of_the_wrong_types_are_named():
    with pytest.raises(TypeError, match=r"counts must map pre-tokens \(str\) to counts \(int\); got b'low': 3"):
        train_plain({b"low": 3}, 5)
    with pytest.raises(TypeError, match=r"got 'low': 2\.5"):
        train_picky({"low": 2.5}, 5, 0.9)
    assert train_plain(count_pretokens("low lower lowest " * 3), 3) == train_bpe("low lower lowest " * 3, 259)[1]
