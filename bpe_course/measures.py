"""What a tokenizer makes of a text, measured one way for the chapters, widgets, checkers and the command
line: one meaning per name.

* ``words`` -- whitespace-separated words, as ``str.split()`` finds them;
* ``tokens_per_word`` -- tokens / words (lower is better); ``nan`` for a text with no words;
* ``bytes_per_token`` -- UTF-8 bytes / tokens (higher is better); ``nan`` for no tokens;
* ``n_vocab`` -- largest id + 1, tiktoken's word: the ids a model needs, the rows of its embedding
  matrix (``Tokenizer.n_vocab``, ``SentencePieceBPE.n_vocab``, the ids a ``KneserNey`` model spreads
  probability over);
* ``vocab_entries`` -- how many tokens the vocabulary holds, ``len(vocab)``: fewer than ``n_vocab``
  where ids are unused (cl100k leaves 100256 and 100261-100275 empty) or where a tokenizer was cut to
  its first merges and keeps its special tokens' high ids.

``vocab_size`` has one meaning left: what a trainer is asked for, ``train_bpe(text, vocab_size)``
(256 bytes + merges + special tokens), which is the trained tokenizer's ``n_vocab`` when training
does not stop early.

subtle: a ratio with nothing under it is ``nan``, not 0 or the numerator: an empty text has no tokens
per word, and a 0 would read as the best tokenizer there is. :func:`shown` writes it as a dash.

>>> text_measures(5, "ab cdé")
{'tokens': 5, 'words': 2, 'tokens_per_word': 2.5, 'bytes_per_token': 1.4}
>>> text_measures(0, "")
{'tokens': 0, 'words': 0, 'tokens_per_word': nan, 'bytes_per_token': nan}
>>> shown(tokens_per_word(1, "   ")), shown(4 / 3)
('–', '1.33')
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["bytes_per_token", "n_vocab", "ratio", "shown", "text_measures", "tokens_per_word", "vocab_entries",
           "words"]

NO_VALUE = "–"  # how a widget shows a ratio with nothing under it


def words(text: str) -> int:
    """Whitespace-separated words: ``len(text.split())``."""
    return len(text.split())


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``; ``nan`` when there is nothing under it (see the subtle note above).

    >>> ratio(3, 2), math.isnan(ratio(3, 0))
    (1.5, True)
    """
    return numerator / denominator if denominator else math.nan


def tokens_per_word(n_tokens: int, text: str) -> float:
    """``n_tokens`` over ``text``'s words; ``nan`` when the text has no word.

    >>> tokens_per_word(3, "ab cd"), math.isnan(tokens_per_word(2, "\\n\\n"))
    (1.5, True)
    """
    return ratio(n_tokens, words(text))


def bytes_per_token(n_tokens: int, text: str) -> float:
    """``text``'s UTF-8 bytes over ``n_tokens``; ``nan`` when there is no token.

    >>> bytes_per_token(2, "né"), math.isnan(bytes_per_token(0, ""))
    (1.5, True)
    """
    return ratio(len(text.encode("utf-8")), n_tokens)


def text_measures(n_tokens: int, text: str) -> dict[str, float]:
    """``tokens``, ``words``, ``tokens_per_word`` and ``bytes_per_token`` of a text that took ``n_tokens``."""
    return {"tokens": n_tokens, "words": words(text), "tokens_per_word": tokens_per_word(n_tokens, text),
            "bytes_per_token": bytes_per_token(n_tokens, text)}


def n_vocab(vocab: Mapping[int, object]) -> int:
    """Largest id + 1: the ids (embedding rows) a model with this vocabulary needs.

    >>> n_vocab({0: b"a", 1: b"b", 7: b"<|end|>"}), vocab_entries({0: b"a", 1: b"b", 7: b"<|end|>"})
    (8, 3)
    """
    return max(vocab) + 1 if vocab else 0


def vocab_entries(vocab: Mapping[int, object]) -> int:
    """How many tokens the vocabulary holds, ``len(vocab)``."""
    return len(vocab)


def shown(value: float, digits: int = 2) -> str:
    """A ratio as a widget writes it: ``digits`` decimals, a dash when it is ``nan``."""
    return NO_VALUE if math.isnan(value) else f"{value:.{digits}f}"
