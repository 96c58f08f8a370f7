"""Counting pre-tokens by segments (bpe_course.fast.count): the counts of pretokenize, whatever the
blocks and however many segments are held."""

from __future__ import annotations

from collections import Counter

import regex
from hypothesis import HealthCheck, given, settings, strategies as st

from strategies import o200k_text, tricky_corpus, tricky_text

from bpe_course import count_pretokens
from bpe_course.fast import count as fast_count
from bpe_course.fast.count import SegmentCounter, count_ordinary_text
from bpe_course.pretokenize import GPT2_PATTERN, GPT4O_PATTERN, GPT4_PATTERN, pretokenize


PATTERNS = [GPT2_PATTERN, GPT4_PATTERN]


# ---- counting ----------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tricky_text, max_size=6).map(" ".join), st.sampled_from(PATTERNS))
def test_segment_counting_equals_pretokenize(text, pattern):
    assert count_ordinary_text(text, pattern) == Counter(pretokenize(text, pattern))


def test_segment_blocks_do_not_change_counts(docs_text, monkeypatch):
    monkeypatch.setattr(fast_count, "BLOCK_CHARS", 997)
    text = tricky_corpus(docs_text, seed=2)[:100_000].replace("<|", "< |")
    for pattern in PATTERNS:
        counter = SegmentCounter(pattern)
        counter.add(text)
        assert counter.finish(Counter()) == Counter(pretokenize(text, pattern))


def test_white_space_is_the_patterns_white_space():
    every = "".join(map(chr, range(0x3001)))
    ours = set(regex.findall(f"[{fast_count.WHITE_SPACE}]", every))
    assert ours == set(regex.findall(r"\s", "".join(map(chr, range(0x110000)))))
    from bpe_course import unicode_tables
    spans = [run.partition("-") for run in unicode_tables.WHITESPACE.split()]
    assert {chr(c) for a, _, b in spans for c in range(int(a, 16), int(b or a, 16) + 1)} == ours


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(tricky_text, o200k_text), max_size=6).map(" ".join))
def test_segment_counting_equals_pretokenize_gpt4o(text):
    assert count_ordinary_text(text, GPT4O_PATTERN) == Counter(pretokenize(text, GPT4O_PATTERN))


def test_counting_in_flat_memory_gives_the_same_counts(monkeypatch, docs_text):
    """Held segments are turned into pre-token counts whenever there are too many: the counts do not change."""
    import regex
    from bpe_course import GPT2_PATTERN
    from bpe_course.fast import count
    text = docs_text[:40_000]
    documents = [text[k:k + 700] for k in range(0, len(text), 700)]
    expected = count_pretokens(text), count_pretokens(documents), count_pretokens(documents, pattern="none")
    assert expected[0] == Counter(regex.findall(GPT2_PATTERN, text))
    monkeypatch.setattr(count, "HELD_SEGMENTS", 50)
    monkeypatch.setattr(count, "BLOCK_CHARS", 2_000)
    seen = []
    match = count.SegmentCounter._match
    monkeypatch.setattr(count.SegmentCounter, "_match", lambda self, counts: (
        seen.append(len(self.segments) + len(self.alone) + len(self.heads)), match(self, counts))[-1])
    assert (count_pretokens(text), count_pretokens(documents), count_pretokens(documents, pattern="none")) == expected
    assert len(seen) > 20 and max(seen) < 50 + 2_000  # never more than the limit and one block's segments held
