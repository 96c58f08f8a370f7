"""Checkers for chapter 06 (how big should the vocabulary be?).

>>> check_embedding_params(lambda vocab, d_model: (max(vocab) + 1) * d_model, {0: b"a", 50256: b"<|endoftext|>"}).ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..algorithms.wordbpe import SPECIALS, WordBPE
from .feedback import (DICT, FUNCTION, INT, NUMBER, STR, Feedback, Kind, correct, count, expect, expect_all, returned,
                       short, wrong)

MERGE_COUNTS = (10, 30, 100)


def tokens_per_word(bpe: WordBPE, text: str) -> float:
    """Average number of WordBPE tokens per whitespace-separated word of ``text``."""
    return len(bpe.tokenize(text)) / len(text.split())


def expected_tokens_per_word(train_text: str, eval_text: str,
                             merge_counts: tuple[int, ...] = MERGE_COUNTS) -> dict[int, float]:
    """The answer: train with each number of merges, count tokens per word of ``eval_text``."""
    alphabet = {ch for word in train_text.split() for ch in word}
    base = len(SPECIALS) + len(alphabet) + 1  # specials + characters + </w>
    bpe = WordBPE.train(train_text, vocab_size=base + max(merge_counts))
    # subtle: training for fewer merges gives a prefix of these merges, so truncating is the same
    return {n: tokens_per_word(bpe.truncated(min(n, len(bpe.merges))), eval_text) for n in merge_counts}


def check_tokens_per_word(answers: Mapping[int, float], train_text: str, eval_text: str) -> Feedback:
    """Are ``answers[n]`` the tokens per word of ``eval_text`` after training with n merges on ``train_text``?"""
    if (problem := expect(answers, DICT, hint="answers = {n: tokens_per_word for n in (10, 30, 100)}")) is not None:
        return problem
    if (problem := expect_all((train_text, STR, "train_text"), (eval_text, STR, "eval_text"))) is not None:
        return problem
    if not train_text.split() or not eval_text.split():
        empty = "train_text" if not train_text.split() else "eval_text"
        return wrong(f"{empty} has no words", "pass the chapter's texts: exercise_train and exercise_heldout")
    missing = [n for n in MERGE_COUNTS if n not in answers]
    if missing:
        return wrong(f"No answer for {missing[0]} merges (your keys: {short([*answers], 60)})",
                     "use the numbers of merges 10, 30 and 100 as the keys")
    expected = expected_tokens_per_word(train_text, eval_text)
    alphabet_size = len({ch for word in train_text.split() for ch in word})
    for n in MERGE_COUNTS:
        got = answers[n]
        if (problem := expect(got, NUMBER, f"answers[{n}]", "divide the number of tokens by the number of words")) \
                is not None:
            return problem
        if abs(got - expected[n]) <= 0.005:
            continue
        if abs(got - 1 / expected[n]) <= 0.005:
            return wrong(f"answers[{n}] = {got:.3f} looks like words per token", "tokens per word = tokens / words")
        as_vocab = _as_vocab_size(train_text, eval_text, n, alphabet_size)
        if as_vocab is not None and abs(got - as_vocab) <= 0.005:
            return wrong(f"answers[{n}] = {got:.3f} is what vocab_size={n} gives, not {n} merges",
                         "a vocabulary holds more than the merged tokens: train once with a small vocab_size "
                         "and compare len(bpe.vocab) with len(bpe.merges)")
        on_train = tokens_per_word(WordBPE.train(train_text, alphabet_size + 5 + n), train_text)
        if abs(got - on_train) <= 0.005:
            return wrong(f"answers[{n}] = {got:.3f} is measured on the training text",
                         "measure on the held-out text: the training text flatters the tokenizer")
        return wrong(f"answers[{n}] = {got:.3f} is off",
                     f"before measuring, check the tokenizer you measure: is len(bpe.merges) == {n}? Then "
                     "count every token of the held-out text and every word of it")
    summary = ", ".join(f"{n} merges: {expected[n]:.2f}" for n in MERGE_COUNTS)
    savings = ", ".join(f"{(expected[a] - expected[b]) / (b - a):.3f} per merge from {a} to {b}"
                        for a, b in zip(MERGE_COUNTS, MERGE_COUNTS[1:]))
    return correct(f"{summary} tokens per word. Tokens per word saved: {savings}.")


def _as_vocab_size(train_text: str, eval_text: str, n: int, alphabet_size: int) -> float | None:
    """What a learner gets by passing ``vocab_size=n`` (None if that is too small to train)."""
    if n < alphabet_size + 5:
        return None
    return tokens_per_word(WordBPE.train(train_text, n), eval_text)


EMBEDDING_CASES: list[tuple[str, dict[int, bytes], int]] = [
    ("ids 0 to 3, no gaps", {i: bytes([97 + i]) for i in range(4)}, 5),
    ("ids 0, 1, 2 and 7", {0: b"a", 1: b"b", 2: b"c", 7: b"<|end|>"}, 3),
    ("ids 5 and 6 only", {5: b"x", 6: b"y"}, 4),
]


def check_embedding_params(embedding_params: Callable[[Mapping[int, object], int], int],
                           vocab: Mapping[int, object], d_model: int = 4096) -> Feedback:
    """Does ``embedding_params(vocab, d_model)`` give the size of the embedding matrix, for small
    vocabularies (with and without gaps in their ids) and for ``vocab``?

    An embedding matrix has one row per id, up to the largest id, whether or not every id is used.
    """
    vocab_kind = Kind("a dict from ids to tokens", lambda v: isinstance(v, Mapping) and all(map(INT.accepts, v)),
                      '{0: b"a", 1: b"b"}', "pass the tokenizer's vocab, e.g. cl100k_vocab")
    problem = expect_all((embedding_params, FUNCTION, None), (vocab, vocab_kind, "vocab"), (d_model, INT, "d_model"))
    if problem is not None:
        return problem
    if not vocab:
        return wrong("vocab is empty", "pass the vocabulary of the tokenizer, e.g. cl100k_vocab")
    cases: list[tuple[str, Mapping[int, object], int]] = [*EMBEDDING_CASES,
                                                          ("the vocab you passed", dict(vocab), d_model)]
    for name, case, width in cases:
        shown = f"embedding_params(<{name}>, {count(width)})"
        try:
            got = embedding_params(case, width)
        except Exception as exc:  # a learner's function may fail in any way: report it, don't crash
            return wrong(f"{shown} raised {type(exc).__name__}: {exc}",
                         "the function gets a dict {id: token} and the model width d_model")
        if (problem := returned(got, NUMBER, shown, "return one number: rows × columns")) is not None:
            return problem
        rows = max(case) + 1
        expected = rows * width
        if got == expected:
            continue
        if got == len(case) * width:
            return wrong(f"{shown} = {count(got)}: that counts the tokens ({len(case):,} of them)",
                         "a model finds a token's row by its id. Which rows must exist for the largest id "
                         "to have one? Look at the ids themselves, not how many there are")
        if got == (rows - 1) * width:
            return wrong(f"{shown} = {count(got)}: one row short", "which number does the first id have?")
        if got in (rows + width, len(case) + width):
            return wrong(f"{shown} = {count(got)}: you added the two sizes", "each row holds d_model numbers")
        if got == 2 * expected:
            return wrong(f"{shown} = {count(got)} counts the matrix twice",
                         "count only the input embedding here (GPT-2 reuses it as its output layer anyway)")
        return wrong(f"{shown} = {count(got)} is not the size of the matrix",
                     "work this case out by hand: which ids does a model look up, and how many numbers per id?")
    rows = max(vocab) + 1
    return correct(f"right on all {len(EMBEDDING_CASES) + 1} vocabularies; for yours, {count(rows)} rows × "
                   f"{count(d_model)} columns = {count(rows * d_model)} parameters ({count(rows - len(vocab))} of the "
                   "rows belong to no token).")
