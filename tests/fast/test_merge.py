"""The fast trainer (bpe_course.fast.merge) learns exactly the merges of the naive one (method="naive")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from strategies import tricky_corpus

from bpe_course import train_bpe


SPECIALS = ["<|endoftext|>", "<|end of text|>", "<|endoftext|><|endoftext|>"]


# ---- training ---------------------------------------------------------------------------------
@pytest.mark.parametrize("corpus,specials,vocab_size", [
    ("docs", (), 600), ("docs", tuple(SPECIALS), 550), ("tricky", tuple(SPECIALS), 500), ("runs", (), 400)])
def test_fast_equals_naive(docs_text, corpus, specials, vocab_size):
    text = {"docs": docs_text[:20_000], "tricky": tricky_corpus(docs_text[:25_000], seed=3),
            "runs": "aaaa ababab aaaaaaa abababa " * 50 + "=" * 300 + " -- " * 40 + "\n\n\n  " * 30}[corpus]
    assert train_bpe(text, vocab_size, specials) == train_bpe(text, vocab_size, specials, method="naive")


def test_a_word_listed_once_per_occurrence_is_read_once_per_merge():
    """A 100,000-letter word is listed under its pair 50,000 times; reading it once per listing made
    training on it quadratic (6 s instead of 0.05 s for 100,000 letters), so the walk reads it once."""
    from bpe_course.fast.merge import _merge_everywhere

    class CountingList(list):
        reads = 0

        def __getitem__(self, i):
            CountingList.reads += 1
            return super().__getitem__(i)

    word = "a" * 1_000
    words = CountingList([word, "ba"])
    pair_counts = {"aa": 999, "ba": 1}
    fresh = _merge_everywhere("aa", "Z", words, [1, 1], pair_counts, {"aa": [0] * 999 + [1]})
    assert CountingList.reads == 2  # each listed word once, however often it is listed
    assert list.__getitem__(words, 0) == "Z" * 500 and fresh == {"ZZ": 499}


TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=6), min_size=1, max_size=8), st.integers(20, 120))
def test_long_words_fast_equals_naive(pieces, repeat):
    """Long pre-tokens (pattern none): the fast loop visits a word once per merge however often it holds the pair."""
    text = "".join(pieces) * repeat
    assert train_bpe(text, 330, pattern="none") == train_bpe(text, 330, pattern="none", method="naive")


def test_fast_equals_naive_on_varied_text_in_many_scripts():
    """A novel and the UDHR in 18 languages: many distinct words, long multi-byte words, many counts
    tied low (the bucket queue's lists), and pairs whose counts fall below the level while queued."""
    from bpe_course import corpus
    text = corpus.load("don_quixote")[:15_000] + "\n".join(corpus.udhr(lang)["1"] for lang in corpus.UDHR_LANGUAGES)
    fast = train_bpe(text, 256 + 700)
    assert fast == train_bpe(text, 256 + 700, method="naive")
    assert len(fast[1]) == 700


@pytest.mark.parametrize("floor", [1, 2, 3, 8, 1000])
def test_the_queue_floor_never_changes_the_merges(monkeypatch, floor):
    """Pairs seen fewer than the floor wait outside the queue; training to the very end (every pair
    merged, down to pairs seen once) goes through every halving of the floor."""
    from bpe_course import corpus
    from bpe_course.fast import merge
    text = corpus.load("don_quixote")[:6_000] + "\n".join(corpus.udhr(lang)["1"] for lang in list(corpus.UDHR_LANGUAGES)[:6])
    naive = train_bpe(text, 10_000, method="naive")
    monkeypatch.setattr(merge, "QUEUE_FLOOR", floor)
    halvings, halve = [], merge.PairQueue._queue_below_floor

    def recorded(queue, pair_counts):
        halvings.append(queue.floor)
        halve(queue, pair_counts)

    monkeypatch.setattr(merge.PairQueue, "_queue_below_floor", recorded)
    assert train_bpe(text, 10_000) == naive
    assert len(naive[1]) < 10_000 - 256  # ran out of pairs: the last merges were of pairs seen once
    expected = []
    while floor > 1:
        expected.append(floor)
        floor //= 2
    assert halvings == expected


def test_training_leaves_the_cycle_collector_as_it_found_it():
    import gc
    from bpe_course.fast.merge import learn_fast

    class Stop(Exception):
        pass

    class Bar:  # a progress bar whose update fails half-way (as Ctrl-C would)
        def __init__(self):
            self.calls = 0

        def update(self):
            self.calls += 1
            assert not gc.isenabled()  # paused while learning
            if self.calls == 5:
                raise Stop

    words = {w.encode(): 1 for w in TOY.split()}
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            learn_fast(words, 3)
            assert gc.isenabled() == enabled
            with pytest.raises(Stop):
                learn_fast(words, 20, Bar())
            assert gc.isenabled() == enabled
    finally:
        gc.enable()
