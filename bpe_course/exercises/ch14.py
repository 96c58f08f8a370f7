"""Checkers for chapter 14 (when tokens bite).

>>> from bpe_course import gpt2
>>> check_single_token_numbers({1999, 2000, 2024}, [1999, 2000, 2024, 12345], gpt2()).ok
True
>>> check_heal(lambda tok, p: (tok.encode(p)[:-1], tok.decode_bytes(tok.encode(p)[-1:])), [gpt2()]).ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..tokenizer import Tokenizer
from .feedback import Feedback, correct, placeholder, wrong

HEAL_PROMPTS = ("https:", "The capital of France is ", "def main(", "a" * 7, "Hello world")


def check_single_token_numbers(answer: object, candidates: Sequence[int], tokenizer: Tokenizer) -> Feedback:
    """Exercise 14.1: which candidates are one token when written with a leading space."""
    if (empty := placeholder(answer)) is not None:
        return empty
    if not isinstance(answer, Iterable) or isinstance(answer, (str, bytes)):
        return wrong(f"answer a set of numbers, not a {type(answer).__name__}.", "e.g. {1999, 2024}")
    given = set(answer)
    if not all(isinstance(n, int) for n in given):
        return wrong("the set should hold whole numbers (ints).", "e.g. {1999, 2024}")
    expected = {n for n in candidates if len(tokenizer.encode_ordinary(f" {n}")) == 1}
    if given == expected:
        return correct(f"{sorted(expected)}: frequent numbers of GPT-2's training text became tokens, others not.")
    extra, missing = sorted(given - expected), sorted(expected - given)
    parts = ([f"{len(extra)} of yours take more than one token"] if extra else []) + \
            ([f"you left out {len(missing)} that are one token"] if missing else [])
    return wrong("; ".join(parts) + ".", 'len(tok.encode(" 2024")) — mind the leading space.')


def check_heal(heal: Callable[[Tokenizer, str], tuple[list[int], bytes]], tokenizers: Sequence[Tokenizer]) -> Feedback:
    """Exercise 14.2: ``heal(tok, prompt)`` -> (the ids without the last token, the last token's bytes)."""
    if not callable(heal):
        return wrong(f"expected a function, got {type(heal).__name__}.", "pass the function itself.")
    for tok in tokenizers:
        for prompt in HEAL_PROMPTS:
            ids = tok.encode(prompt)
            expected = (ids[:-1], tok.decode_bytes(ids[-1:]))
            try:
                got = heal(tok, prompt)
            except Exception as exc:  # the learner's code: report, never crash the notebook
                return wrong(f"on {prompt!r} your function raised {type(exc).__name__}: {exc}.",
                             "encode, then split off the last id.")
            if not (isinstance(got, tuple) and len(got) == 2):
                return wrong(f"on {prompt!r} return a pair (kept_ids, removed_bytes), not {got!r}.")
            kept, removed = got
            if list(kept) == ids and not removed:
                return wrong(f"on {prompt!r} nothing was removed.", "the last token is the one to take back.")
            if list(kept) != expected[0]:
                return wrong(f"on {prompt!r} you kept {len(list(kept))} ids; keep all but the last.")
            if removed != expected[1]:
                return wrong(f"on {prompt!r} the removed part should be the last token's bytes, not {removed!r}.",
                             "tok.decode_bytes([last_id]) gives them.")
    return correct("the prompt backs up by exactly one token; generation may then start with any token "
                   "that begins with the removed bytes.")
