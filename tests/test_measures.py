"""One meaning per name: the measures the widgets, the command line and the checkers use
(bpe_course.measures), against counts made here by hand and by tiktoken."""

from __future__ import annotations

import math

import pytest

from bpe_course import Tokenizer, measures, train_bpe
from bpe_course.measures import bytes_per_token, n_vocab, shown, text_measures, tokens_per_word, vocab_entries, words


def test_ratios_against_gpt2_and_tiktoken(gpt2_tok, tiktoken_gpt2):
    text = "Tokenizers count naïve words, 東京 too.\n  And code: x = 1"
    n = len(tiktoken_gpt2.encode_ordinary(text))
    assert n == len(gpt2_tok.encode_ordinary(text))
    assert words(text) == 11  # Tokenizers count naïve words, 東京 too. And code: x = 1
    assert tokens_per_word(n, text) == n / 11
    assert bytes_per_token(n, text) == len(text.encode("utf-8")) / n
    assert text_measures(n, text) == {"tokens": n, "words": 11, "tokens_per_word": n / 11,
                                      "bytes_per_token": len(text.encode("utf-8")) / n}


@pytest.mark.parametrize("text, n_tokens", [("", 0), ("   \n\t", 2), ("", 3)])
def test_nothing_under_a_ratio_is_nan_and_shown_as_a_dash(text, n_tokens):
    numbers = text_measures(n_tokens, text)
    assert math.isnan(numbers["tokens_per_word"]) and shown(numbers["tokens_per_word"]) == "–"
    if n_tokens == 0:
        assert math.isnan(numbers["bytes_per_token"])
    else:
        assert numbers["bytes_per_token"] == len(text.encode()) / n_tokens


def test_n_vocab_counts_ids_and_vocab_entries_counts_tokens(gpt2_tok, cl100k_tok, tiktoken_gpt2, tiktoken_cl100k):
    assert n_vocab(gpt2_tok.vocab) == tiktoken_gpt2.n_vocab == vocab_entries(gpt2_tok.vocab) == 50257
    assert n_vocab(cl100k_tok.vocab) == tiktoken_cl100k.n_vocab == 100277  # ids 100256, 100261-100275 unused
    assert vocab_entries(cl100k_tok.vocab) == 100261
    cut = cl100k_tok.truncated(1000)  # keeps its special tokens' high ids
    assert vocab_entries(cut.vocab) == 256 + 1000 + len(cl100k_tok.special_tokens)
    assert n_vocab(cut.vocab) == 100277
    trained = Tokenizer(*train_bpe("low lower lowest " * 20, 256 + 5))
    assert n_vocab(trained.vocab) == vocab_entries(trained.vocab) == 261  # train_bpe's vocab_size argument
    assert n_vocab({}) == 0


def test_one_module_measures_for_every_widget():
    """No widget computes these ratios itself any more: each imports them from measures."""
    import inspect

    from bpe_course.widgets import merge_count, merges, vocab_size as vocab_widget
    for module in (merge_count, merges, vocab_widget):
        source = inspect.getsource(module)
        assert "from ..measures import" in source, module.__name__
        assert "len(text.split())" not in source and ".encode(\"utf-8\")) /" not in source, module.__name__
    assert not hasattr(merge_count, "text_numbers") and not hasattr(merge_count, "find_o200k")
    assert measures.NO_VALUE == "–"
