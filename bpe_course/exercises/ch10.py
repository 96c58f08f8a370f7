"""Checkers for chapter 10 (GPT-4's cl100k): recovering merges from ranks, GPT-4's digit groups,
a text where GPT-4 needs more tokens than GPT-2, and the fewest GPT-2 merges that make a word whole.

Each checker returns a :class:`Feedback`: truthy when the answer is right, and shown in a notebook
as its message (what is wrong, and a hint).

>>> check_toy_merges([(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"abc", b"d")])
✅ Correct: Every merge is what BPE over the lower ranks leaves.
"""

from __future__ import annotations


from ..pretokenize import GPT4_PATTERN, pretokenize
from ..bpe import merges_from_ranks
from ..pretrained import cl100k, gpt2
from ..tokenizer import Tokenizer
from ..viz import token_label
from .feedback import BYTES_PAIRS, INT, STR, STRINGS, Feedback, Kind, correct, expect, expect_all, shown as _shown, wrong


# ---------------------------------------------------------------- exercise 1: merges from a toy rank table

# Ranks as a .tiktoken file would give them: single bytes first, then tokens in the order they were made.
TOY_RANKS: dict[bytes, int] = {b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"ab": 4, b"abc": 5, b"cd": 6, b"abcd": 7}


def check_toy_merges(answer: list[tuple[bytes, bytes]]) -> Feedback:
    """Exercise 1: the merges behind ``TOY_RANKS``, one per multi-byte token, in rank order."""
    if (problem := expect(answer, BYTES_PAIRS, hint="one pair per token longer than one byte, in rank order, "
                                                    "like [(b'a', b'b'), ...]")) is not None:
        return problem
    expected = merges_from_ranks(TOY_RANKS)
    answer = [(bytes(a), bytes(b)) for a, b in answer]
    if len(answer) != len(expected):
        return wrong(f"you gave {len(answer)} merge{'' if len(answer) == 1 else 's'}; TOY_RANKS has {len(expected)} tokens longer than one byte, "
                     "and each was made by exactly one merge",
                     "single bytes are not merges; every other token is")
    by_rank = sorted((r, t) for t, r in TOY_RANKS.items() if len(t) > 1)
    for (rank, token), got, want in zip(by_rank, answer, expected):
        if got == want:
            continue
        if got[0] + got[1] != token:
            return wrong(f"merge for rank {rank} should make {token!r}, but {got[0]!r} + {got[1]!r} = "
                         f"{got[0] + got[1]!r}", "list the merges in rank order; each one joins into that rank's token")
        # subtle: the parts BPE does end with are the answer, so name only where the learner's split goes wrong.
        return wrong(f"{token!r} (rank {rank}): {got[0]!r} + {got[1]!r} does join to it, but BPE allowed only "
                     f"ranks below {rank} does not end with those two parts",
                     f"write {token!r} as single bytes and apply the joins one at a time, each time the adjacent "
                     f"pair whose joined token has the lowest rank, never a rank >= {rank}: which join comes "
                     f"first, and does it leave {got[1]!r} possible?")
    return correct("Every merge is what BPE over the lower ranks leaves.")


# ---------------------------------------------------------------- exercise 2: GPT-4's digit groups

DIGITS_TEXT = "Total: 1234567 items"


def check_digit_pretokens(answer: list[str]) -> Feedback:
    """Exercise 2: the pre-tokens GPT-4's regex cuts ``DIGITS_TEXT`` into."""
    if (problem := expect(answer, STRINGS, hint="list the pre-tokens in order, e.g. ['Total', ...]")) is not None:
        return problem
    expected = pretokenize(DIGITS_TEXT, GPT4_PATTERN)
    answer = list(answer)
    if answer == expected:
        return correct(f"GPT-4 cuts {DIGITS_TEXT!r} into {expected}: digits in groups of at most three, "
                       "from the left, and the space on its own.")
    if "".join(answer) != DIGITS_TEXT:
        return wrong(f"your pieces join to {''.join(answer)!r}, not to {DIGITS_TEXT!r}",
                     "pre-tokens cover the text exactly: nothing lost, nothing added")
    digits = [p for p in answer if any(ch.isdigit() for ch in p)]
    if any(p.startswith(" ") for p in digits):
        return wrong("a digit piece of yours starts with a space",
                     "find the alternative of GPT4_PATTERN that matches digits and compare it with GPT-2's "
                     "' ?\\p{N}+': can it take the space? If not, which alternative does take it?")
    if digits != [p for p in expected if p.isdigit()]:
        return wrong(f"your digit groups are {digits}, which is not how the regex cuts them",
                     "read the quantifier on GPT-4's digit alternative: how many digits can one match take, "
                     "and where does the regex engine start the next match?")
    return wrong(f"you gave {answer}; the regex gives a different cut of the letters or punctuation",
                 "letters take one optional leading non-letter (like a space); punctuation runs stand alone")


# ---------------------------------------------------------------- exercise 3: where GPT-4 loses to GPT-2


def check_gpt4_longer(text: str, gpt2_tok=None, gpt4_tok=None) -> Feedback:
    """Exercise 3: a text that GPT-4's tokenizer encodes in *more* tokens than GPT-2's."""
    encoder = Kind("a tokenizer (or None)", lambda v: v is None or callable(getattr(v, "encode", None)), "gpt2()",
                   "leave gpt2_tok and gpt4_tok out: the checker loads GPT-2's and GPT-4's tokenizers itself")
    checks = (text, STR, "text"), (gpt2_tok, encoder, "gpt2_tok"), (gpt4_tok, encoder, "gpt4_tok")
    if (problem := expect_all(*checks)) is not None:
        return problem
    if not text:
        return wrong("give a non-empty string", "try something with numbers in it")
    gpt2_tok = gpt2_tok or gpt2()
    gpt4_tok = gpt4_tok or cl100k()
    try:
        n2 = len(gpt2_tok.encode(text, disallowed_special=()))
        n4 = len(gpt4_tok.encode(text, disallowed_special=()))
    except Exception as exc:  # noqa: BLE001 -- a tokenizer passed in may fail in its own way
        return wrong(f"encoding {text!r} raised {type(exc).__name__}: {exc}",
                     "leave gpt2_tok and gpt4_tok out: the checker loads GPT-2's and GPT-4's tokenizers itself")
    if n4 > n2:
        return correct(f"{text!r} takes {n4} tokens with GPT-4 but only {n2} with GPT-2.")
    # subtle: point at where the two regexes disagree without naming a text that wins.
    if any(ch.isdigit() for ch in text):
        hint = ("your text has digits: compare the two tokenizers' pieces of one number in the playground. "
                "Which numbers does GPT-2 keep as a single token, and with what in front of them?")
    else:
        hint = ("of the three changes to the regex in section 4, two make GPT-4's pieces longer and one makes "
                "them shorter; build your text from the kind of characters that one cuts")
    return wrong(f"{text!r} takes {n4} tokens with GPT-4 and {n2} with GPT-2, so GPT-4 is "
                 f"{'as short' if n4 == n2 else 'shorter'}", hint)


# ---------------------------------------------------------------- exercise 4: how many merges make a word

WHOLE_WORD = " language"  # with its leading space, as it stands inside a sentence


def _pieces(tok: Tokenizer, k: int) -> tuple[int, str]:
    ids = tok.encode_ordinary_truncated(WHOLE_WORD, k)
    return len(ids), " | ".join(token_label(t) for t in tok.token_bytes(ids))


def check_fewest_merges(answer: int, gpt2_tok: Tokenizer | None = None) -> Feedback:
    """Exercise 4: the fewest of GPT-2's merges with which ``WHOLE_WORD`` is a single token."""
    maybe_tokenizer = Kind("a Tokenizer (or None)", lambda v: v is None or isinstance(v, Tokenizer), "gpt2()",
                           "leave gpt2_tok out: the checker loads GPT-2 itself")
    problem = expect_all((answer, INT, None), (gpt2_tok, maybe_tokenizer, "gpt2_tok"))
    if problem is not None:
        return problem
    tok = gpt2_tok or gpt2()
    if not 0 <= answer <= len(tok.merges):
        return wrong(f"a count of GPT-2's merges runs from 0 to {len(tok.merges):,}; {_shown(answer)} is outside that",
                     f"the slider goes from 0 to all {len(tok.merges):,}")
    count, shown = _pieces(tok, answer)
    if count > 1:
        return wrong(f"with {answer:,} merges {WHOLE_WORD!r} is still {count} tokens ({shown})",
                     "more merges: the word is one token only once the merge that makes it is kept")
    if answer > 0 and _pieces(tok, answer - 1)[0] == 1:
        return wrong(f"with {answer:,} merges {WHOLE_WORD!r} is one token, but fewer merges already make it one",
                     "find where it changes: try a count in the middle, keep the half where it changes, repeat")
    before = _pieces(tok, answer - 1)[1]
    return correct(f"with {answer - 1:,} merges {WHOLE_WORD!r} is {before}; merge number {answer:,} "
                   f"({token_label(tok.merges[answer - 1][0])} + {token_label(tok.merges[answer - 1][1])}) "
                   "makes it one token.")
