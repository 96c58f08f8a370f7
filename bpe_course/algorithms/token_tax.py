"""The token tax (chapters 13 and 16): what the same text costs in tokens, language by language.

The Universal Declaration of Human Rights says the same thing in every language of
:data:`bpe_course.corpus.UDHR_LANGUAGES`, article by article, so a tokenizer's cost for a language
can be put next to its cost for English on the same content (:func:`relative_costs`), and a
tokenizer of your own can be trained on a mix of languages (:func:`train_on_mix`):

>>> from bpe_course import gpt2
>>> costs = relative_costs({"GPT-2": gpt2()}, ["eng", "fra"], ["1"])
>>> costs[["language", "tokens", "english_tokens", "ratio"]].to_dict("records")[1]
{'language': 'French', 'tokens': 61, 'english_tokens': 33, 'ratio': 1.8484848484848484}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import pandas as pd

from .. import corpus
from ..corpus import ARTICLES, language_name, mix_text
from ..tokenizer import Tokenizer
from ..train import train_bpe

OWN_VOCAB_SIZE = 256 + 300  # small enough that every mix, English alone too, learns it from pairs seen twice
OWN_MIN_FREQUENCY = 2


def relative_costs(tokenizers: Mapping[str, Tokenizer], languages: Iterable[str] = tuple(corpus.UDHR_LANGUAGES),
                   articles: Sequence[str] = ARTICLES) -> pd.DataFrame:
    """One row per (tokenizer, language, article): its tokens, English's tokens for it, and the ratio."""
    english = corpus.udhr("eng")
    rows = []
    for label, tok in tokenizers.items():
        english_tokens = {k: len(tok.encode_ordinary(english[k])) for k in articles}
        for code in languages:
            text = corpus.udhr(code)
            for k in articles:
                tokens = len(tok.encode_ordinary(text[k]))
                rows.append({"tokenizer": label, "language": language_name(code), "code": code,
                             "script": corpus.UDHR_LANGUAGES[code][0], "article": k, "tokens": tokens,
                             "english_tokens": english_tokens[k], "ratio": tokens / english_tokens[k]})
    return pd.DataFrame(rows)


def summary(costs: pd.DataFrame) -> pd.DataFrame:
    """Per tokenizer and language: the ratio of all tokens to English's, and the median article ratio."""
    grouped = costs.groupby(["tokenizer", "language"], sort=False)
    return pd.DataFrame({"total ratio": grouped["tokens"].sum() / grouped["english_tokens"].sum(),
                         "median article ratio": grouped["ratio"].median()})


@lru_cache(maxsize=8)
def _trained(mix_items: tuple[tuple[str, int], ...], vocab_size: int, min_frequency: int) -> Tokenizer:
    vocab, merges = train_bpe(mix_text(dict(mix_items)), vocab_size, min_frequency=min_frequency)
    return Tokenizer(vocab, merges)


def train_on_mix(mix: Mapping[str, int], vocab_size: int = OWN_VOCAB_SIZE,
                 min_frequency: int = OWN_MIN_FREQUENCY) -> Tokenizer:
    """A byte-level tokenizer trained on a mix's training articles (cached per mix)."""
    return _trained(tuple(sorted(mix.items())), vocab_size, min_frequency)
