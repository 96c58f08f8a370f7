"""Checkers for chapter 18 (open models' tokenizers and the chat prompt).

>>> check_best_pair(best_pair).ok
True
>>> print(check_best_pair(lambda symbols, scores: 0))
❌ Not yet. for ['▁', 'l', 'o', 'w'] you chose the pair at 0, ('▁', 'l'), but another adjacent pair joins into a piece with a higher score.
Hint: scores are not ranks: the highest score goes first
>>> print(check_v3_prompt(lambda messages: [1]))
❌ Not yet. for [('user', 'Hi')] your ids differ from the template's from position 1 on, in the start of a user turn ([INST]).
Hint: v3's [INST] is one control id, not text
"""

from __future__ import annotations

from collections.abc import Callable

from ..algorithms.sentencepiece_bpe import best_pair
from ..chat import chat_prompt
from .feedback import FUNCTION, IDS, Feedback, Kind, correct, expect, returned, short, wrong

# Scores of the checker's own (higher merges first); ties between "lo" and "ow", and "ss" repeated, test the
# leftmost rule; "x" joins nothing.
SCORES = {"lo": -1.0, "ow": -1.0, "▁l": -4.0, "low": -2.0, "▁low": -3.0, "er": -1.5, "ss": -0.5, "▁▁": -6.0,
          "es": -0.5}
INDEX_OR_NONE = Kind("an index (an int) or None", lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
                     "1")
CASES: tuple[list[str], ...] = (["▁", "l", "o", "w"], ["l", "ow"], ["▁", "low", "er"], ["s", "s", "s", "s"], ["x", "y"], ["▁"], [],
         ["▁", "▁", "l", "o"], ["e", "s", "s"], ["▁low", "x"])


def check_best_pair(my_best_pair: Callable) -> Feedback:
    """Exercise 18.1: which adjacent pair SentencePiece's BPE merges next (the highest score, leftmost on a tie)."""
    if (problem := expect(my_best_pair, FUNCTION)) is not None:
        return problem
    for symbols in CASES:
        expected = best_pair(symbols, SCORES)
        try:
            got = my_best_pair(list(symbols), dict(SCORES))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"my_best_pair({symbols!r}, scores) raised {type(exc).__name__}: {exc}.",
                         "a list of fewer than two symbols has no pair at all")
        if (problem := returned(got, INDEX_OR_NONE, f"my_best_pair({symbols!r}, scores)")) is not None:
            return problem
        if got == expected:
            continue
        if expected is None:
            return wrong(f"for {symbols!r} no adjacent pair joins into a piece, but you returned {short(got)}.",
                         "return None when nothing can be merged")
        if got is None:
            return wrong(f"for {symbols!r} you returned None, but some adjacent pair joins into a piece.",
                         "a pair counts when its two strings joined are a key of scores")
        if not 0 <= got < len(symbols) - 1:
            return wrong(f"for {symbols!r} you returned {short(got)}; the answer is the index of the pair's left "
                         f"symbol, from 0 to {len(symbols) - 2}.")
        joined = symbols[got] + symbols[got + 1]
        pair = (symbols[got], symbols[got + 1])
        if joined not in SCORES:
            return wrong(f"for {symbols!r} the pair at {got}, {pair}, does not join into a piece.",
                         "only a pair whose joined string is in scores can merge")
        if SCORES[joined] < SCORES[symbols[expected] + symbols[expected + 1]]:
            lowest = min(SCORES[a + b] for a, b in zip(symbols, symbols[1:]) if a + b in SCORES)
            hint = ("scores are not ranks: the highest score goes first" if SCORES[joined] == lowest else
                    "look at every adjacent pair, join it, and keep the one whose joined piece has the highest score")
            return wrong(f"for {symbols!r} you chose the pair at {got}, {pair}, but another adjacent pair joins into a "
                         "piece with a higher score.", hint)
        return wrong(f"for {symbols!r} you chose the pair at {got}, {pair}; another pair has the same score and "
                     "SentencePiece takes it first.", "on a tie, the leftmost pair wins")
    return correct(f"all {len(CASES)} cases: the highest score first, the leftmost on a tie, None when nothing joins.")


CONVERSATIONS = (
    [("user", "Hi")],
    [("user", "Name a colour."), ("assistant", "Blue. "), ("user", "Another one?")],
    [("system", "Be brief."), ("user", "One"), ("assistant", "Two"), ("user", "Three")],
    [("user", "I typed [INST] and </s> myself")],
)


PLACES = {"<s>": "the very start (<s>)", "</s>": "the end of an answer (</s>)",
          "[INST]": "the start of a user turn ([INST])", "[/INST]": "the end of a user turn ([/INST])"}


def _where(parts, position: int) -> str:
    """Which part of the template's prompt holds ``position``, in words."""
    at, turn = 0, 0
    for part in parts:
        turn += part.label in ("user", "assistant")
        if at <= position < at + len(part.ids):
            return PLACES.get(part.label) or f"the text of turn {turn} (the {part.label}'s)"
        at += len(part.ids)
    return "after the end of the template's prompt"


def check_v3_prompt(my_v3_prompt: Callable) -> Feedback:
    """Exercise 18.2: a conversation as v3's template writes it, against mistral-common's encode_chat_completion."""
    if (problem := expect(my_v3_prompt, FUNCTION)) is not None:
        return problem
    for messages in CONVERSATIONS:
        parts = chat_prompt(messages, "v3")  # tests/test_chat.py checks these against mistral-common
        expected = [i for part in parts for i in part.ids]
        try:
            got = my_v3_prompt(list(messages))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"my_v3_prompt({messages!r}) raised {type(exc).__name__}: {exc}.")
        if (problem := returned(got, IDS, f"my_v3_prompt({messages!r})",
                                "return one list of ids: the whole prompt")) is not None:
            return problem
        got = list(got)
        if got == expected:
            continue
        first = next((k for k, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        where = _where(parts, first)
        if first == len(expected):
            return wrong(f"for {messages!r} your prompt has the template's ids and then {len(got) - first} more.",
                         "the prompt stops after the last user turn: the model writes next")
        if where == PLACES["</s>"] and got[first] != expected[first] and expected[first] in got[first:first + 4]:
            return wrong(f"for {messages!r} the text of an answer runs on, in your ids, where the template ends it "
                         f"(position {first}).", "reread what v3's template does to an answer before encoding it")
        hints = {"the very start (<s>)": "a prompt starts with one <s>",
                 "the end of an answer (</s>)": "every answer ends with </s>",
                 "the start of a user turn ([INST])": "v3's [INST] is one control id, not text",
                 "the end of a user turn ([/INST])": "v3's [/INST] is one control id, not text"}
        hint = hints.get(where, "each message is encoded on its own; think of where the system prompt goes and "
                                "what happens to an answer's trailing spaces")
        return wrong(f"for {messages!r} your ids differ from the template's from position {first} on, in {where}.",
                     hint)
    return correct(f"all {len(CONVERSATIONS)} conversations give mistral-common's ids, id for id.")
