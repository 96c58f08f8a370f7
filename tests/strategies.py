"""Hypothesis strategies, and a corpus, of text that stresses tokenizers."""

from __future__ import annotations

import random

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


# Characters that each pattern alternative and class of o200k cares about: upper/lower/title case,
# modifier and other letters, combining marks, digits of several scripts, "/" and newlines,
# contractions in any case, CJK, emoji sequences.
O200K_PIECES = TRICKY_PIECES + [
    "HelloWorld", "XMLHttpRequest", "iPhone", "ǅungla", "ǈ", "ʰ", "ˈ", "々", "ー", "a\u0301", "\u0301",
    "\u0915\u094d\u0937", "\u0e01\u0e34", "'S", "'Re", "'LL", "'d", "I'M", "'ſ", "/", "//", "a/b", "!/\n",
    "1/2", "١٢٣٤", "𝟘𝟙𝟚𝟛", "2024-03-16", "東京タワー", "ｶﾀｶﾅ", "😀", "👍🏽", "🏳️‍🌈", "\u0295", "ʕ•ᴥ•ʔ",
]
o200k_text = st.lists(st.one_of(st.sampled_from(O200K_PIECES), st.text(any_char, max_size=4)),
                      max_size=24).map("".join)


def paired_surrogates(text: str) -> str:
    """``text`` as valid UTF-8 can hold it: lone surrogates become U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


CORPUS_SPECIALS = ["<|endoftext|>", "<|end of text|>", "<|endoftext|><|endoftext|>"]


def tricky_corpus(docs_text: str, seed: int = 0) -> str:
    """Prose with special tokens (:data:`CORPUS_SPECIALS`), odd whitespace and rare characters sprinkled in."""
    rng = random.Random(seed)
    paragraphs = docs_text.split("\n\n")
    extras = TRICKY_PIECES + CORPUS_SPECIALS + [" \n", "\n ", "  \t", "\u3000x", "x\u00a0y", "\U0002CEA2 z", " 'll"]
    for k in range(0, len(paragraphs), 3):
        paragraphs[k] = rng.choice(extras) + paragraphs[k] + rng.choice(extras)
    return "\n\n".join(paragraphs)
