"""Checkers for chapter 12 (train your own and share it): a save/load round trip, how many words
are a single token, and a Hugging Face export that gives the same ids.

>>> def save_and_reload(tok, folder):
...     tok.save(folder / "mine.json")
...     return tok.load(folder / "mine.json")
>>> check_save_and_reload(save_and_reload)
✅ Correct: Reloaded from mine.json: same vocab (262 tokens), merges, special tokens and pattern, and the same ids on 4 texts.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ..pretokenize import pretokenize, resolve_pattern
from ..tokenizer import Tokenizer
from ..train import train_bpe
from .feedback import (FUNCTION, IDS, NUMBER, STR, Feedback, Kind, correct, expect, expect_all, far_off, returned, shown,
                       wrong)

# A small tokenizer the checkers build themselves, so a learner's answer is tried on fresh data.
PRACTICE_TEXT = ("Tokenizers are shared as files. A file written today must load tomorrow, "
                 "in another program, and give the very same ids.<|endoftext|>") * 4
PRACTICE_SPECIALS = ["<|endoftext|>", "<|pad|>"]
PRACTICE_TEXTS = [
    "first document<|endoftext|>second document<|pad|><|pad|>",
    "Shared files give the same ids.",
    "naïve café, 3.14 and 👍 too",
    "  spaces\n\n and\tnewlines  ",
]


def practice_tokenizer(vocab_size: int = 262) -> Tokenizer:
    """A tiny GPT-4-pattern tokenizer with two special tokens, trained on ``PRACTICE_TEXT``."""
    vocab, merges = train_bpe(PRACTICE_TEXT, vocab_size, PRACTICE_SPECIALS, pattern="gpt4")
    return Tokenizer(vocab, merges, PRACTICE_SPECIALS, pattern="gpt4")


def _files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ---------------------------------------------------------------- exercise 1: a round trip through a file

def _first_difference(original: Tokenizer, loaded: Tokenizer) -> str | None:
    """What differs between two tokenizers, in words, or None when nothing does."""
    if loaded.vocab != original.vocab:
        return f"the vocab differs ({len(loaded.vocab)} tokens instead of {len(original.vocab)})"
    if loaded.merges != original.merges:
        return f"the merges differ ({len(loaded.merges)} instead of {len(original.merges)})"
    if loaded.special_tokens != original.special_tokens:
        return f"the special tokens are {loaded.special_tokens}, not {original.special_tokens}"
    if loaded.pattern != original.pattern:
        return "the pre-tokenization pattern differs"
    for text in PRACTICE_TEXTS:
        if loaded.encode(text, allowed_special="all") != original.encode(text, allowed_special="all"):
            return f"the ids of {text!r} differ"
    return None


def check_save_and_reload(save_and_reload: Callable[[Tokenizer, Path], Tokenizer]) -> Feedback:
    """Exercise 1: ``save_and_reload(tok, folder)`` writes ``tok`` into ``folder`` and returns it read back."""
    if (problem := expect(save_and_reload, FUNCTION)) is not None:
        return problem
    original = practice_tokenizer()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        try:
            loaded = save_and_reload(original, folder)
        except Exception as exc:  # a learner's function may fail in any way: report it, don't crash
            return wrong(f"save_and_reload raised {type(exc).__name__}: {exc}",
                         "tok.save(folder / 'name.json') writes the project's format; Tokenizer.load(path) reads it. "
                         "(The 'gpt2' format cannot hold this tokenizer's GPT-4 pattern.)")
        written = _files_in(folder)
    tokenizer = Kind("a Tokenizer", lambda v: isinstance(v, Tokenizer), "Tokenizer.load(path)")
    if (problem := returned(loaded, tokenizer, "save_and_reload", "return what Tokenizer.load(path) gives")) is not None:
        return problem
    if not written:
        return wrong("nothing was written into the folder",
                     "save the tokenizer into a file inside folder first (section 4), then load that file")
    if loaded is original:
        return wrong(f"you wrote {', '.join(written)} but returned the original tokenizer, not the one read back",
                     "return Tokenizer.load(path) for the path you saved to")
    difference = _first_difference(original, loaded)
    if difference:
        return wrong(f"after the round trip {difference}",
                     "load the same file you saved, with Tokenizer.load(path) (the format is detected)")
    return correct(f"Reloaded from {', '.join(written)}: same vocab ({len(loaded.vocab)} tokens), merges, "
                   f"special tokens and pattern, and the same ids on {len(PRACTICE_TEXTS)} texts.")


# ---------------------------------------------------------------- exercise 2: words that are one token

def word_pretokens(text: str, pattern: str | None) -> list[str]:
    """The pre-tokens of ``text`` that contain at least one letter: its "words", with their space.

    >>> word_pretokens("Hi there, 42 cats!", "gpt4")
    ['Hi', ' there', ' cats']
    """
    return [p for p in pretokenize(text, resolve_pattern(pattern)) if any(c.isalpha() for c in p)]


def is_one_token(tok: Tokenizer, piece: str) -> bool:
    """Whether ``piece`` (one pre-token) is a single token of ``tok``."""
    return len(tok.encode_piece(piece.encode("utf-8"))) == 1


def single_token_fraction(tok: Tokenizer, text: str) -> float:
    """The fraction of ``text``'s word pre-tokens (every occurrence counts) that are one token."""
    words = word_pretokens(text, tok.pattern)
    return sum(is_one_token(tok, w) for w in words) / len(words)


def check_single_token_fraction(fraction: float, tok: Tokenizer, text: str) -> Feedback:
    """Exercise 2: the fraction of ``text``'s words (pre-tokens with a letter) that ``tok`` keeps whole."""
    tokenizer = Kind("a Tokenizer", lambda v: isinstance(v, Tokenizer), "tok", "pass the tokenizer you trained")
    if (problem := expect(fraction, NUMBER, hint="give a number: a float between 0 and 1")) is not None:
        return problem
    if far_off(fraction):
        return wrong(f"{shown(fraction)} is far from any fraction", "give a fraction between 0 and 1")
    if (problem := expect_all((tok, tokenizer, "tok"), (text, STR, "text"))) is not None:
        return problem
    words = word_pretokens(text, tok.pattern)
    if not words:
        return wrong("the text has no words (pre-tokens with a letter)", "use the held-out text")
    expected = single_token_fraction(tok, text)
    close = lambda value: abs(fraction - value) < 5e-4  # noqa: E731 -- a one-line tolerance test
    if close(expected):
        return correct(f"{expected:.1%} of the {len(words):,} words are a single token; the other "
                       f"{1 - expected:.1%} are cut into two or more.")
    if 1 < fraction <= 100 and abs(fraction / 100 - expected) < 5e-4:
        return wrong(f"{fraction} looks like a percentage", "give a fraction between 0 and 1")
    every = pretokenize(text, tok.pattern)
    distinct = sorted(set(words))
    if close(sum(is_one_token(tok, p) for p in every) / len(every)):
        return wrong("that is the fraction over all pre-tokens, spaces and punctuation included",
                     "keep only pre-tokens with a letter: any(c.isalpha() for c in piece)")
    if close(sum(is_one_token(tok, w) for w in distinct) / len(distinct)):
        return wrong("you counted each distinct word once; every occurrence should count",
                     "loop over all word pre-tokens, repeats included")
    stripped = [w.strip() for w in words]
    if close(sum(is_one_token(tok, w) for w in stripped) / len(stripped)):
        return wrong("you stripped the leading space; in running text a word is encoded with its space",
                     "encode each pre-token as it is, e.g. ' the', not 'the'")
    if not 0 <= fraction <= 1:
        return wrong(f"{fraction} is not a fraction", "a number between 0 and 1")
    return wrong(f"{fraction:.4f} is not the fraction of the {len(words):,} words that are one token",
                 "cut the text with the tokenizer's own pattern, keep the pieces that hold a letter (each "
                 "occurrence, with its space), and count those that encode to a single id")


# ---------------------------------------------------------------- exercise 3: the same ids from Hugging Face

def check_hf_ids(hf_ids: Callable[[Tokenizer, Path, str], list[int]]) -> Feedback:
    """Exercise 3: ``hf_ids(tok, folder, text)`` exports ``tok`` to ``folder`` in Hugging Face's format,
    loads it with the ``tokenizers`` library and returns that library's ids for ``text``."""
    if (problem := expect(hf_ids, FUNCTION)) is not None:
        return problem
    tok = practice_tokenizer()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for text in PRACTICE_TEXTS:
            ours = tok.encode(text, allowed_special="all")
            try:
                got = hf_ids(tok, folder, text)
            except Exception as exc:  # report, don't crash
                return wrong(f"hf_ids(tok, folder, {text!r}) raised {type(exc).__name__}: {exc}",
                             "section 5 takes two steps: save with the Hugging Face format into the folder, then "
                             "load that file with the tokenizers library and encode; which of your steps raised?")
            if (problem := returned(got, IDS, "hf_ids", "a tokenizers.Encoding holds the ids in its .ids attribute")) \
                    is not None:
                return problem
            written = _files_in(folder)
            if not written:
                return wrong("nothing was written into the folder, so no library loaded an export",
                             "save with format='hf' first, then load that file with tokenizers.Tokenizer.from_file")
            got = list(got)
            if got != ours:
                k = next((i for i, (a, b) in enumerate(zip(got, ours)) if a != b), min(len(got), len(ours)))
                return wrong(f"for {text!r} you returned {len(got)} ids and ours are {len(ours)}; they first "
                             f"differ at position {k}",
                             "load the tokenizer.json you just wrote (not another file), and encode the text as "
                             "given; Hugging Face always treats special tokens as special, like "
                             "allowed_special='all'")
    return correct(f"the tokenizers library gave our ids on all {len(PRACTICE_TEXTS)} texts, special tokens "
                   f"included (files written: {', '.join(written)}).")
