"""Hypothesis strategies for text that stresses tokenizers."""

from __future__ import annotations

from hypothesis import strategies as st

# Pieces that exercise every alternative of the GPT-2 and GPT-4 patterns and the special tokens.
TRICKY_PIECES = [
    " ", "  ", "   ", "\n", "\n\n", "\r\n", "\t", " \n ", "\u00a0", "\u3000", "'s", "'S", "'ll", "'VE", "n't",
    "123", "1234567", " 42", "3.14", "hello", " world", "Hello", "ÉCOLE", "café", "e\u0301", "naïve",
    "日本語", "中文", "한국어", "🙃", "👩‍👩‍👧", "🇫🇷", "!!", "...", " -- ", "<|endoftext|>", "<|endoftext|><|endoftext|>",
    "<|", "|>", "\x00", "\x1f", "\u200b", "\ufeff", "ǅ", "ﬁ", "Ⅻ", "½", "٣", "\u2028",
]

# Every code point, lone surrogates included (tiktoken replaces them; so must we).
any_char = st.characters(exclude_categories=[])
tricky_text = st.lists(st.one_of(st.sampled_from(TRICKY_PIECES), st.text(any_char, max_size=4)),
                       max_size=24).map("".join)
text_with_surrogates = st.one_of(st.text(any_char, max_size=40), tricky_text)
valid_text = st.one_of(st.text(max_size=40), tricky_text.map(
    lambda s: s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))


@st.composite
def cuttings(draw, text_strategy=tricky_text):
    """A text and a list of pieces whose concatenation is that text."""
    text = draw(text_strategy)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    pieces, start = [], 0
    for cut in cuts + [len(text)]:
        pieces.append(text[start:cut])
        start = cut
    return text, pieces
