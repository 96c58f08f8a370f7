"""Checkers for chapter 04 (encoding and decoding). Each returns chapter 1's :class:`Feedback`:
truthy when the answer is right, and displayed in a notebook as its message.

>>> check_segmentation(["slow", "est</w>"]).ok
False
>>> check_segmentation(TOY_BPE.tokenize_word("slowest")).ok
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

from ..algorithms.wordbpe import EOW, WordBPE, merge_pair
from .feedback import (FUNCTION, STR, STR_PAIRS, STRINGS, Feedback, correct, expect, expect_all, returned, short,
                       wrong)

# Sennrich et al. (2016)'s example word counts, the toy corpus of chapters 01-04.
TOY_CORPUS = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
TOY_BPE = WordBPE.train(TOY_CORPUS, vocab_size=1000)


# ---------------------------------------------------------------- exercise 1: segment a word by hand

def check_segmentation(answer: Sequence[str], word: str = "slowest") -> Feedback:
    """Is ``answer`` the toy tokenizer's segmentation of ``word``?"""
    if (problem := expect(answer, STRINGS, hint='write the symbols as a list, e.g. ["l", "ow", ...]')) is not None:
        return problem
    if (problem := expect(word, STR, "word")) is not None:
        return problem
    if not word or any(ch.isspace() for ch in word):
        return wrong(f"word={word!r} is not one word", 'leave word out: the exercise asks about "slowest"')
    expected = TOY_BPE.tokenize_word(word)
    answer = list(answer)
    if answer == expected:
        return correct(f"{word!r} → {expected}: {len(expected)} tokens, none of them seen as a whole word in training.")
    if "".join(answer).replace(EOW, "") != word:
        return wrong(f"Your symbols spell {''.join(answer).replace(EOW, '')!r}, not {word!r}",
                     "every character of the word must appear exactly once, in order")
    if not answer or not answer[-1].endswith(EOW):
        return wrong("The last symbol must carry the end-of-word marker </w>",
                     "a word starts as its characters plus a separate '</w>'; merges may join it to the end")
    unknown = [s for s in answer if s not in TOY_BPE.token_to_id]
    if unknown:
        return wrong(f"{unknown[0]!r} is not a token of the toy vocabulary",
                     f"the learned merges are {TOY_BPE.merges}; only their results (and single characters) exist")
    if len(answer) > len(expected):
        return wrong(f"You have {len(answer)} symbols; BPE ends with fewer",
                     "walk through the merges in order and apply each one everywhere it fits: which of them "
                     "can still fire on your symbols?")
    return wrong(f"{answer} is a valid split into tokens, but not the one BPE produces",
                 "BPE does not look for the fewest tokens: it replays the merges in the order they were learned")


# ---------------------------------------------------------------- exercise 2: encode a whole text

ENCODE_CASES = ["lowest", "low lower  lowest", "newer\nwidest\t wide", "  slow  ", ""]


def check_encode_text(encode_text: Callable[[str, Sequence[tuple[str, str]]], list[str]]) -> Feedback:
    """Does ``encode_text(text, merges)`` split on whitespace and encode every word, as ``WordBPE.tokenize``?"""
    if (problem := expect(encode_text, FUNCTION, hint="Pass your function itself: check_encode_text(encode_text) "
                                                      "— no parentheses after the name")) is not None:
        return problem
    for text in ENCODE_CASES:
        expected = TOY_BPE.tokenize(text)
        try:
            got = encode_text(text, list(TOY_BPE.merges))
        except Exception as exc:  # the learner's code may raise anything
            return wrong(f"encode_text({text!r}, merges) raised {type(exc).__name__}: {exc}",
                         "text.split() (no argument) gives the words and never an empty string")
        if isinstance(got, tuple):
            got = list(got)
        if isinstance(got, list) and got and isinstance(got[0], list):
            return wrong(f"encode_text({text!r}, merges) returned one list per word, not a list of strings: {short(got)}",
                         "return one flat list of symbols: extend a single list word by word")
        if (problem := returned(got, STRINGS, f"encode_text({text!r}, merges)")) is not None:
            return problem
        if got == expected:
            continue
        if isinstance(got, list) and "" in got:
            return wrong(f"encode_text({text!r}, merges) contains an empty symbol: {got}",
                         'text.split(" ") makes empty words between two spaces; text.split() does not')
        if isinstance(got, list) and any(isinstance(s, str) and any(ch.isspace() for ch in s) for s in got):
            return wrong(f"encode_text({text!r}, merges) = {got}: a symbol contains whitespace",
                         "split the text into words with text.split() first, then encode each word")
        if isinstance(got, list) and sum(str(s).endswith(EOW) for s in got) != len(text.split()):
            return wrong(f"encode_text({text!r}, merges) = {got}: not one '</w>' per word",
                         "every word starts as its characters plus '</w>', before any merge")
        return wrong(f"encode_text({text!r}, merges) returned {got!r}, expected {expected!r}",
                     "encode each word with the chapter's encode_word(word, merges) and join the results")
    return correct(f"all {len(ENCODE_CASES)} texts match WordBPE.tokenize, including runs of spaces and the empty text.")


# ---------------------------------------------------------------- exercise 3: when order matters

def encode_in_order(word: str, merges: Sequence[tuple[str, str]]) -> list[str]:
    """Apply each merge, in list order, to all its occurrences."""
    symbols: tuple[str, ...] = (*word, EOW)
    for pair in merges:
        symbols = merge_pair(symbols, cast(tuple[str, str], tuple(pair)))  # a learner's pair may be a list
    return list(symbols)


def encode_by_rank(word: str, merges: Sequence[tuple[str, str]]) -> list[str]:
    """Repeatedly merge the adjacent pair with the lowest rank (leftmost on ties)."""
    ranks: dict[tuple[str, str], int] = {}
    for k, pair in enumerate(merges):
        ranks.setdefault(cast(tuple[str, str], tuple(pair)), k)
    symbols = [*word, EOW]
    while len(symbols) > 1:
        rank, i = min((ranks.get(pair, math.inf), i) for i, pair in enumerate(zip(symbols, symbols[1:])))
        if rank == math.inf:
            break
        symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols


def check_order_matters(merges: Sequence[tuple[str, str]], word: str) -> Feedback:
    """Do the two encoders disagree on ``word`` with this merge list? (They cannot for merges BPE learned.)"""
    if (problem := expect_all((merges, STR_PAIRS, "merges"), (word, STR, "word"))) is not None:
        return problem
    if not word or any(ch.isspace() for ch in word):
        return wrong(f"The word must be one non-empty word without spaces, got {word!r}", 'e.g. word = "abc"')
    try:
        pairs = [(a, b) for a, b in merges]
    except (TypeError, ValueError):
        return wrong("The merges must be a list of (left, right) pairs of strings", 'e.g. [("a", "b"), ("ab", "c")]')
    if not all(isinstance(a, str) and isinstance(b, str) and a and b for a, b in pairs):
        return wrong("Every merge must join two non-empty strings", 'e.g. [("a", "b"), ("ab", "c")]')
    in_order, by_rank = encode_in_order(word, pairs), encode_by_rank(word, pairs)
    if in_order == by_rank:
        return wrong(f"Both encoders give {in_order}",
                     "the two encoders agree on every list training could produce (section 2, point 1). "
                     "Which property of a trained list does point 1 rely on? Write a list without it")
    return correct(f"in order → {in_order}, by rank → {by_rank}. BPE training never produces such a list: "
                   "a merge can only use symbols that already exist, so the parts always come first.")
