"""Checkers for chapter 14 (when tokens bite).

>>> from bpe_course import gpt2
>>> check_single_token_numbers({1999, 2000, 2024}, [1999, 2000, 2024, 12345], gpt2()).ok
True
>>> check_heal(lambda tok, p: (tok.encode(p)[:-1], tok.decode_bytes(tok.encode(p)[-1:])), [gpt2()]).ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..tokenizer import Tokenizer
from .feedback import FUNCTION, Feedback, Kind, correct, expect_all, wrong

INTS = Kind("a set of whole numbers", lambda v: isinstance(v, (set, frozenset, list, tuple)) and all(
    isinstance(n, int) and not isinstance(n, bool) for n in v), "{1999, 2024}")
TOKENIZER = Kind("a Tokenizer", lambda v: isinstance(v, Tokenizer), "gpt2()", "pass one of the chapter's tokenizers")
TOKENIZERS = Kind("a list of Tokenizers", lambda v: isinstance(v, (list, tuple)) and bool(v) and all(
    isinstance(t, Tokenizer) for t in v), "list(tokenizers.values())")

HEAL_PROMPTS = ("https:", "The capital of France is ", "def main(", "a" * 7, "Hello world")


def check_single_token_numbers(answer: object, candidates: Sequence[int], tokenizer: Tokenizer) -> Feedback:
    """Exercise 14.1: which candidates are one token when written with a leading space."""
    problem = expect_all((answer, INTS, None), (candidates, INTS, "candidates"), (tokenizer, TOKENIZER, "tokenizer"))
    if problem is not None:
        return problem
    given = set(answer)
    expected = {n for n in candidates if len(tokenizer.encode_ordinary(f" {n}")) == 1}
    if given == expected:
        return correct(f"{sorted(expected)}: frequent numbers of GPT-2's training text became tokens, others not.")
    extra, missing = sorted(given - expected), sorted(expected - given)
    parts = ([f"{len(extra)} of yours {'takes' if len(extra) == 1 else 'take'} more than one token"] if extra else []) \
        + ([f"you left out {len(missing)} that {'is' if len(missing) == 1 else 'are'} one token"] if missing else [])
    return wrong("; ".join(parts) + ".", 'len(tok.encode(" 2024")) — mind the leading space.')


def check_heal(heal: Callable[[Tokenizer, str], tuple[list[int], bytes]], tokenizers: Sequence[Tokenizer]) -> Feedback:
    """Exercise 14.2: ``heal(tok, prompt)`` -> (the ids without the last token, the last token's bytes)."""
    if (problem := expect_all((heal, FUNCTION, None), (tokenizers, TOKENIZERS, "tokenizers"))) is not None:
        return problem
    for tok in tokenizers:
        for prompt in HEAL_PROMPTS:
            ids = tok.encode(prompt)
            expected = (ids[:-1], tok.decode_bytes(ids[-1:]))
            try:
                got = heal(tok, prompt)
            except Exception as exc:  # the learner's code: report, never crash the notebook
                return wrong(f"on {prompt!r} your function raised {type(exc).__name__}: {exc}.",
                             "encode, then split off the last id.")
            if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], (bytes, bytearray))
                    and isinstance(got[0], (list, tuple))):
                return wrong(f"on {prompt!r} heal returned {type(got).__name__}, not a pair (a list of ids, bytes).",
                             "return ids[:-1], tok.decode_bytes(...)")
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
