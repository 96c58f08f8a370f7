"""Chapter 17's variants against naive references written here (issue 32): the three tie rules of the
shortest path, Picky BPE's removal test as its authors' code has it, and the per-unit scores chapter 16
and 17 compare with the difference yardstick.

(Destination after the tests reorganisation: tests/algorithms/test_variants.py, test_lm.py and
test_model_quality.py.)
"""

from __future__ import annotations

import math
from collections import Counter
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import Tokenizer, corpus, count_pretokens, paragraph_bytes, train_bpe
from bpe_course.algorithms import (KneserNey, Merges, Segmenter, Sweep, bits_by_unit, bits_per_byte, fewest_tokens,
                                   tokens_by_unit, train_picky, vocab_points)

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
