"""Round 3 (issue 34), hangs and super-linear time: a budget for a whole regex call, SuperBPE encoding and
optimal segmentation near-linear in a line and in a run of one byte.

No timing asserts: growth is measured in operations (lookups counted at two sizes), and the regex
budget, which is a time limit by nature, is asserted by what it raises (a runaway pattern stops, a
sane one on a large text does not).
"""

from __future__ import annotations

import importlib
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course import Tokenizer, TokenizerFileError, corpus
from bpe_course.variants import (fewest_tokens, heap_merge_in_order, merge_in_order, merged_in_order, pair_ranks,
                                 split_bytes, superbpe_tokens, train_superbpe)

pretokenize_module = importlib.import_module("bpe_course.pretokenize")  # the package's name is a function
variants_module = importlib.import_module("bpe_course.variants")


# ---- a regex budget for the whole call ---------------------------------------------------------------
def file_with_pattern(tmp_path, pattern: str):
    vocab = {i: bytes([i]) for i in range(256)}
    Tokenizer(vocab, [], pattern=r" ?\w+|\s+").save(tmp_path / "tokenizer.json", format="hf")
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = pattern
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return Tokenizer.load(tmp_path / "tokenizer.json")


@pytest.mark.parametrize("pattern, text", [
    (r"\w+(?=\t)|.", "a" * 20_000),  # quadratic: each match rescans the rest of the word, each is quick
    (r"(?:a|a){1,14}b|.", "a" * 3_000),  # 2**14 ways at every a: each match quick, the whole text not
])
def test_a_pattern_whose_every_match_is_quick_is_stopped_by_the_budget_of_the_call(tmp_path, monkeypatch,
                                                                                      pattern, text):
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.2)  # budget: 0.4 s + 10 s per million characters
    tok = file_with_pattern(tmp_path, pattern)
    assert tok.decode(tok.encode("ab cab\txy")) == "ab cab\txy"
    with pytest.raises(TokenizerFileError, match=rf"tokenizer\.json: pre-tokenization pattern .* ran for more than "
                                                 rf"0\.[0-9]+ s of CPU time on {len(text):,} characters \(its budget"):
        tok.encode(text)  # without a budget for the call: minutes (50 s for the first at 20,000, 4x per doubling)


def test_the_budget_grows_with_the_text_so_a_sane_pattern_is_never_stopped(monkeypatch):
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.01)  # budget: 0.02 s + 10 s per million characters
    text = corpus.load("python_docs")[:400_000] * 3
    pattern = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # GPT-2's, no possessives
    pieces = pretokenize_module.pretokenize(text, pattern)
    assert "".join(pieces) == text and len(pieces) > 200_000
    assert pretokenize_module.pattern_budget(len(text)) == 0.02 + 10 * len(text) / 1e6


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
