"""Checkers for chapter 13 (the token tax).

>>> from bpe_course import corpus, gpt2
>>> text = corpus.udhr("swh")["1"]
>>> check_relative_cost(len(gpt2().encode(text)) / len(gpt2().encode(corpus.udhr("eng")["1"])), "swh", "1", gpt2()).ok
True
>>> check_utf8_bytes(3, corpus.udhr("tam")["1"]).ok
True
"""

from __future__ import annotations

from .. import corpus
from ..tokenizer import Tokenizer
from .feedback import INT, NUMBER, STR, Feedback, Kind, correct, expect_all, wrong

TOKENIZER = Kind("a Tokenizer", lambda v: isinstance(v, Tokenizer), "gpt2()", "pass one of the chapter's tokenizers")


def check_relative_cost(answer: object, language: str, article: str, tokenizer: Tokenizer) -> Feedback:
    """Exercise 13.1: a language's tokens for one article divided by English's tokens for it."""
    # subtle: not `a or b`: a Feedback is falsy when it says "not yet"
    problem = expect_all((answer, NUMBER, None), (language, STR, "language"), (article, STR, "article"),
                         (tokenizer, TOKENIZER, "tokenizer"))
    if problem is not None:
        return problem
    if language not in corpus.UDHR_LANGUAGES or article not in corpus.udhr("eng"):
        return wrong(f"there is no article {article!r} in language {language!r}.",
                     f"languages: {', '.join(corpus.UDHR_LANGUAGES)}; articles '1' to '30'")
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
    problem = expect_all((answer, INT, None), (text, STR, "text"))
    if problem is not None:
        return problem
    if not text:
        return wrong("the text is empty.", "pass udhr['tam']['1']")
    measured = len(text.encode("utf-8")) / len(text)
    if round(measured) == answer:
        return correct(f"{measured:.2f} bytes per character: three for each character from U+0800 to U+FFFF, "
                       "one for each space or ASCII sign.")
    if answer == 1:
        return wrong("one byte per character is only ASCII's.", "which range of code points do Tamil letters fall in, "
                     "and how many bytes does UTF-8 use for that range (chapter 07)?")
    return wrong(f"{answer} is not it.", "UTF-8 uses 1 byte up to U+007F, 2 up to U+07FF, 3 up to U+FFFF, 4 above.")
