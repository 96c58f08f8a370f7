"""Checkers for chapter 13 (the token tax).

>>> from bpe_course import corpus, gpt2
>>> text = corpus.udhr("swh")["1"]
>>> check_relative_cost(len(gpt2().encode(text)) / len(gpt2().encode(corpus.udhr("eng")["1"])), "swh", "1", gpt2()).ok
True
>>> check_utf8_bytes(3, corpus.udhr("tam")["1"]).ok
True
"""

from __future__ import annotations

from numbers import Real

from .. import corpus
from ..tokenizer import Tokenizer
from .feedback import Feedback, correct, placeholder, wrong


def _number(answer: object, what: str) -> Feedback | None:
    """Feedback for an answer that is not a number (None when it is one)."""
    if (empty := placeholder(answer)) is not None:
        return empty
    if isinstance(answer, bool) or not isinstance(answer, Real):
        return wrong(f"{what} should be a number, not {type(answer).__name__} {answer!r}.",
                     "compute it and assign the result, e.g. my_ratio = 2.5")
    return None


def check_relative_cost(answer: object, language: str, article: str, tokenizer: Tokenizer) -> Feedback:
    """Exercise 13.1: a language's tokens for one article divided by English's tokens for it."""
    if (problem := _number(answer, "the ratio")) is not None:
        return problem
    tokens = len(tokenizer.encode_ordinary(corpus.udhr(language)[article]))
    english = len(tokenizer.encode_ordinary(corpus.udhr("eng")[article]))
    expected = tokens / english
    if abs(answer - expected) < 0.005:
        return correct(f"{tokens} tokens against English's {english}: {expected:.2f}×.")
    if abs(answer - english / tokens) < 0.005:
        return wrong("that is the ratio the other way round.", "divide the language's tokens by English's.")
    if answer == 1.0:
        return wrong("1.0 is the starter value.", "encode both articles with the same tokenizer and divide.")
    return wrong(f"{answer:.3f} is not the ratio of the two token counts.",
                 "len(tokenizer.encode(text)) for each article, then the language's count / English's.")


def check_utf8_bytes(answer: object, text: str) -> Feedback:
    """Exercise 13.2: bytes per character of ``text`` in UTF-8, to the nearest whole number."""
    if (problem := _number(answer, "the number of bytes per character")) is not None:
        return problem
    measured = len(text.encode("utf-8")) / len(text)
    if round(measured) == answer:
        return correct(f"{measured:.2f} bytes per character: three for each character from U+0800 to U+FFFF, "
                       "one for each space or ASCII sign.")
    if answer == 1:
        return wrong("one byte per character is only ASCII's.", "which range of code points do Tamil letters fall in, "
                     "and how many bytes does UTF-8 use for that range (chapter 07)?")
    return wrong(f"{answer} is not it.", "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above.")
