"""tiktoken's Unicode classes spelt out (bpe_course.unicode_classes): the exact pattern, the fast
splitter in its Latin-1 and BMP forms, and where the `regex` module disagrees, against tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from strategies import TRICKY_PIECES, o200k_text, tricky_text

from bpe_course.pretokenize import GPT2_PATTERN, GPT4O_PATTERN, GPT4_PATTERN, pretokenize
from bpe_course.unicode_classes import TABLE_OF_CLASS, exact_pattern, fast_splitter, unicode_disagreements


def test_exact_pattern_follows_tiktoken_tables():
    new_letter = "\U0002CEA2"  # assigned after the Unicode version of tiktoken's tables
    assert new_letter in unicode_disagreements()
    assert pretokenize(f"a{new_letter}b", GPT2_PATTERN) == ["a", new_letter, "b"]
    assert exact_pattern(GPT2_PATTERN).findall("hello world") == ["hello", " world"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(tricky_text, o200k_text))
def test_fast_pattern_equals_tiktoken_tables_on_ordinary_text(text):
    assert pretokenize(text, GPT4O_PATTERN) == exact_pattern(GPT4O_PATTERN).findall(text)


PATTERNS = [GPT2_PATTERN, GPT4_PATTERN]


@settings(max_examples=200, deadline=None)
@given(tricky_text, st.sampled_from(PATTERNS))
def test_pretokenize_fast_path_equals_tiktoken_tables(text, pattern):
    """The plain pattern, used when no character needs tiktoken's tables, splits as the tables do."""
    assert pretokenize(text, pattern) == exact_pattern(pattern).findall(text)


# Characters beyond the BMP that tiktoken counts as letters, digits or marks (the splitter's exact
# path), and some it counts as symbols (the fast path): emoji, a flag's tag characters.
ASTRAL_PIECES = ["\U0001D400", "\U0001D7D8\U0001D7D9", "\U00020000\U0002A6D6", "\U0002CEA2", "e\U000E0100",
                 "\U00010400\U00010428", "\U0001F642", "\U0001F3F4\U000E0067\U000E0062\U000E007F", "\U00010107"]

latin1_text = st.text(st.characters(max_codepoint=0xFF), max_size=40)

astral_text = st.lists(st.one_of(st.sampled_from(ASTRAL_PIECES + TRICKY_PIECES), st.text(max_size=3)),
                       max_size=16).map("".join)

# contractions, letter cases, digits after a space, newlines, runs of white space
CONTEXTS = ["x'{}s", "a{}B", " {}1", "{}\n ", "  {}x"]


def class_edges() -> set[int]:
    """Every first and last character of a run of tiktoken's tables, and its neighbours."""
    from bpe_course import unicode_tables
    edges = set()
    for table in TABLE_OF_CLASS.values():
        for run in getattr(unicode_tables, table).split():
            for end in run.split("-"):
                edges.update(int(end, 16) + d for d in (-1, 0, 1))
    return edges


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN])
def test_fast_splitter_equals_tiktoken_tables(pattern):
    """Both of its forms, in the contexts each class matters in: the Latin-1 one on every character it
    is used for, the BMP one on the edges of every class and a sample (and on some symbols beyond the
    BMP); the next test checks every BMP character against tiktoken's ids."""
    for below, sample in ((0x100, range(0x100)), (0x10000, {*range(0, 0x10000, 7), *class_edges()})):
        chars = [chr(c) for c in sorted(sample) if c < below and not 0xD800 <= c < 0xE000]
        if below > 0x100:
            chars += ["\U0001F642", "\U000E0067", "\U0001F1EB"]  # symbols to tiktoken too
        text = "".join(context.format(ch) for ch in chars for context in CONTEXTS)
        assert fast_splitter(pattern, below).findall(text) == exact_pattern(pattern).findall(text)


def test_every_bmp_character_encodes_as_tiktoken(gpt2_tok, cl100k_tok, o200k_tok, tiktoken_gpt2, tiktoken_cl100k,
                                                tiktoken_o200k):
    text = "".join(context.format(chr(c)) for c in range(0x10000) if not 0xD800 <= c < 0xE000
                   for context in CONTEXTS)
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k), (o200k_tok, tiktoken_o200k)):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(latin1_text, astral_text))
def test_latin1_and_astral_text_encode_as_tiktoken(gpt2_tok, cl100k_tok, o200k_tok, tiktoken_gpt2,
                                                   tiktoken_cl100k, tiktoken_o200k, text):
    """The splitter's three paths: Latin-1 text, BMP text, text with letters beyond the BMP."""
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k), (o200k_tok, tiktoken_o200k)):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
