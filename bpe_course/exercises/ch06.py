"""Checkers for chapter 06 (how big should the vocabulary be?).

>>> check_embedding_params(50257 * 768, {0: b"a", 50256: b"<|endoftext|>"}, 768).ok
True
"""

from __future__ import annotations

from collections.abc import Mapping

from ..wordbpe import SPECIALS, WordBPE
from .feedback import DICT, INT, NUMBER, STR, Feedback, Kind, correct, expect, expect_all, short, wrong

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
                         f"WordBPE.train takes a vocab_size: 4 specials + {alphabet_size} characters + '</w>' "
                         f"+ {n} merges = {alphabet_size + 5 + n}")
        on_train = tokens_per_word(WordBPE.train(train_text, alphabet_size + 5 + n), train_text)
        if abs(got - on_train) <= 0.005:
            return wrong(f"answers[{n}] = {got:.3f} is measured on the training text",
                         "measure on the held-out text: the training text flatters the tokenizer")
        return wrong(f"answers[{n}] = {got:.3f} is off",
                     f"train with vocab_size = {alphabet_size + 5} + {n} (specials, characters and '</w>' come "
                     "first), then divide len(bpe.tokenize(eval_text)) by len(eval_text.split())")
    summary = ", ".join(f"{n} merges: {expected[n]:.2f}" for n in MERGE_COUNTS)
    savings = ", ".join(f"{(expected[a] - expected[b]) / (b - a):.3f} per merge from {a} to {b}"
                        for a, b in zip(MERGE_COUNTS, MERGE_COUNTS[1:]))
    return correct(f"{summary} tokens per word. Tokens per word saved: {savings}.")


def _as_vocab_size(train_text: str, eval_text: str, n: int, alphabet_size: int) -> float | None:
    """What a learner gets by passing ``vocab_size=n`` (None if that is too small to train)."""
    if n < alphabet_size + 5:
        return None
    return tokens_per_word(WordBPE.train(train_text, n), eval_text)


def check_embedding_params(answer: int, vocab: Mapping[int, object], d_model: int) -> Feedback:
    """Is ``answer`` the size of the embedding matrix for this vocabulary and model width?

    An embedding matrix has one row per id, up to the largest id, whether or not every id is used.
    """
    vocab_kind = Kind("a dict from ids to tokens", lambda v: isinstance(v, Mapping) and all(map(INT.accepts, v)),
                      '{0: b"a", 1: b"b"}', "pass the tokenizer's vocab, e.g. cl100k_vocab")
    if (problem := expect_all((vocab, vocab_kind, "vocab"), (d_model, INT, "d_model"))) is not None:
        return problem
    if not vocab:
        return wrong("vocab is empty", "pass the vocabulary of the tokenizer, e.g. cl100k_vocab")
    if (problem := expect(answer, NUMBER, hint="rows × columns of the matrix")) is not None:
        return problem
    rows = max(vocab) + 1
    expected = rows * d_model
    if answer == expected:
        return correct(f"{rows:,} rows × {d_model:,} columns = {expected:,} parameters.")
    if answer == len(vocab) * d_model:
        return wrong(f"{len(vocab):,} × {d_model:,} counts the tokens, but ids run up to {max(vocab):,}",
                     "a token's id is its row number: the matrix needs max(vocab) + 1 rows, even for unused ids")
    if answer == rows + d_model:
        return wrong("You added the two sizes", "each of the rows holds d_model numbers: multiply")
    if answer == 2 * expected:
        return wrong("That counts the matrix twice",
                     "count only the input embedding here (GPT-2 reuses it as its output layer anyway)")
    return wrong(f"{answer:,} is not rows × d_model", "rows = max(vocab) + 1; columns = d_model")
