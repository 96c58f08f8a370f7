"""Checkers for chapter 14 (when tokens bite).

>>> check_groups(groups_from_the_right).ok
True
>>> print(check_groups(lambda digits: [digits[i:i + 3] for i in range(0, len(digits), 3)]))
❌ Not yet. your groups for '1000' are ['100', '0']: a group other than the first has fewer than 3 digits.
Hint: count the groups from the last digit, as thousands separators do.
>>> from bpe_course import gpt2
>>> check_healed(healed, [gpt2()]).ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..tokenizer import Tokenizer
from .feedback import FUNCTION, IDS, Feedback, Kind, correct, expect, expect_all, returned, short, wrong

TOKENIZERS = Kind("a list of Tokenizers", lambda v: isinstance(v, (list, tuple)) and bool(v) and all(
    isinstance(t, Tokenizer) for t in v), "list(tokenizers.values())")
GROUPS = Kind("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), '["1", "234"]')

DIGIT_STRINGS = ("7", "42", "999", "1000", "1234", "12345", "123456", "1234567", "1000000", "99999999", "3141592653")

# (prompt, what the model goes on to write): the prompt ends where a longer token would have continued.
HEAL_CASES = (("https:", "//example.com"), ("The capital of France is ", "Paris"), ("def main(", "):"),
              ("Hello wor", "ld"), ("x = 1", "000"), ("Hello  ", "world"), ("    ", "return"), ("New Yor", "k City"))


def groups_from_the_right(digits: str) -> list[str]:
    """A run of digits cut in groups of three counted from the right, as thousands separators cut it.

    >>> groups_from_the_right("1234567")
    ['1', '234', '567']
    """
    head = len(digits) % 3 or 3
    return [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]


def _group_problem(digits: str, got: list[str]) -> str:
    """What is wrong with ``got`` as right-to-left groups of ``digits``, said without the answer."""
    if "".join(got) != digits:
        return "joined together they do not give the digits back."
    if any(not g for g in got):
        return "one group is empty."
    if any(len(g) > 3 for g in got):
        return "a group has more than 3 digits."
    if any(len(g) != 3 for g in got[1:]):
        return "a group other than the first has fewer than 3 digits."
    return "there are more groups than needed."


def check_groups(my_groups: Callable[[str], list[str]]) -> Feedback:
    """Exercise 14.1: ``my_groups(digits)`` cuts a digit string into groups of three from the right."""
    if (problem := expect(my_groups, FUNCTION)) is not None:
        return problem
    for digits in DIGIT_STRINGS:
        try:
            got = my_groups(digits)
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"my_groups({digits!r}) raised {type(exc).__name__}: {exc}.",
                         "the first group is the short one, if any")
        if (problem := returned(got, GROUPS, f"my_groups({digits!r})")) is not None:
            return problem
        if got != groups_from_the_right(digits):
            return wrong(f"your groups for {digits!r} are {short(got)}: {_group_problem(digits, got)}",
                         "count the groups from the last digit, as thousands separators do.")
    return correct(f"all {len(DIGIT_STRINGS)} numbers: the last three digits are always one group, so the units, "
                   "thousands and millions always land in the same place.")


def healed(tok: Tokenizer, prompt: str, continuation: str) -> list[int]:
    """Token healing, with the longest matching token standing in for the model's first choice (exercise 14.2)."""
    ids = tok.encode_ordinary(prompt)
    kept, removed = ids[:-1], tok.vocab[ids[-1]]
    wanted = removed + continuation.encode("utf-8")
    first = max((i for i, t in tok.vocab.items() if t.startswith(removed) and wanted.startswith(t)
                 and i not in tok.special_tokens.values()), key=lambda i: (len(tok.vocab[i]), -i))
    rest = wanted[len(tok.vocab[first]):].decode("utf-8")
    return kept + [first] + tok.encode_ordinary(rest)


def check_healed(my_healed: Callable[[Tokenizer, str, str], list[int]], tokenizers: Sequence[Tokenizer]) -> Feedback:
    """Exercise 14.2: ``my_healed(tok, prompt, continuation)`` -> the healed ids of the prompt and what follows."""
    if (problem := expect_all((my_healed, FUNCTION, None), (tokenizers, TOKENIZERS, "tokenizers"))) is not None:
        return problem
    for tok in tokenizers:
        for prompt, continuation in HEAL_CASES:
            call = f"my_healed(tok, {prompt!r}, {continuation!r})"
            try:
                got = my_healed(tok, prompt, continuation)
            except Exception as exc:  # the learner's code: report, never crash the notebook
                return wrong(f"{call} raised {type(exc).__name__}: {exc}.", "use heal() from the chapter for the start")
            if (problem := returned(got, IDS, call)) is not None:
                return problem
            got = list(got)
            expected = healed(tok, prompt, continuation)
            if got == expected:
                continue
            kept = tok.encode_ordinary(prompt)[:-1]
            if any(i not in tok.vocab for i in got):
                return wrong(f"{call} gave an id that is not in the tokenizer's vocabulary.")
            if tok.decode_bytes(got) != (prompt + continuation).encode("utf-8"):
                return wrong(f"{call}: your ids do not decode to the prompt followed by the continuation.",
                             "nothing may be lost or added: the healed text is the same text")
            if got[:len(kept)] != kept:
                return wrong(f"{call}: the prompt's ids before its last token must stay as they are.")
            first = got[len(kept)] if len(got) > len(kept) else None
            removed = tok.vocab[tok.encode_ordinary(prompt)[-1]]
            if first is None or not tok.vocab[first].startswith(removed):
                return wrong(f"{call}: the first token after the kept ones must start with the removed bytes "
                             f"{removed!r}.")
            if len(tok.vocab[first]) < len(tok.vocab[expected[len(kept)]]):
                return wrong(f"{call}: a longer allowed token than your {tok.vocab[first]!r} also matches the text.",
                             "among the allowed tokens, take the longest that the text starts with")
            return wrong(f"{call}: after the first new token, encode what is left of the text as usual.")
    return correct("the prompt backs up one token, and the first new token is free to be the long one the text "
                   "would have had without the cut.")
