"""Checkers for chapter 15 (other designs).

>>> check_longest_match(wordpiece_reference).ok
True
>>> check_reachable(reachable).ok
True
>>> print(check_reachable(lambda piece, ranks: {tuple(piece[i:i + 1] for i in range(len(piece)))}))
❌ Not yet. for b'lower' you are missing 12 of the 13 segmentations; one of those has 1 piece.
Hint: any merge that could apply may be the only one not dropped, and all of them may be dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from tokenizers import models

from .feedback import FUNCTION, Feedback, Kind, correct, expect, returned, short, wrong

# A small WordPiece vocabulary of the checker's own; the words cover a whole-word hit, continuing pieces,
# a case where the longest start is not the piece BPE would choose, and two words WordPiece gives up on.
UNK = "[UNK]"
VOCAB = frozenset({UNK, "u", "un", "unl", "l", "lo", "low", "lower", "k", "kn", "knight", "e", "en", "enchant",
                   "##o", "##ow", "##ower", "##e", "##er", "##ers", "##ed", "##d", "##h", "##hood", "##s", "##w",
                   "##r", "##n", "##t", "##ter"})
WORDS = ("lower", "unlowered", "knighthood", "enchanters", "lowered", "low", "lowz", "z", "enchanter")

RANKS = {b"lo": 0, b"low": 1, b"er": 2, b"lower": 3, b"ow": 4, b"we": 5, b"wer": 6}
PIECES = (b"lower", b"lowerlower", b"owe", b"x", b"lowlow")

SEGMENTATIONS = Kind("a set of tuples of bytes", lambda v: isinstance(v, (set, frozenset)) and all(
    isinstance(t, tuple) and all(isinstance(b, bytes) for b in t) for t in v), '{(b"lo", b"w")}')
PIECE_LIST = Kind("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
                  '["un", "##l"]')


def wordpiece_reference(word: str, vocab: frozenset[str] | set[str]) -> list[str]:
    """Hugging Face's WordPiece model on one word: the oracle for exercise 15.1."""
    model = models.WordPiece(vocab={piece: i for i, piece in enumerate(sorted(vocab))}, unk_token=UNK)
    return [token.value for token in model.tokenize(word)]


def _spelled(pieces: list[str]) -> str:
    return "".join(p if i == 0 else p.removeprefix("##") for i, p in enumerate(pieces))


def _longest_fits(word: str, start: int, vocab: frozenset[str]) -> str | None:
    for end in range(len(word), start, -1):
        piece = word[start:end] if start == 0 else "##" + word[start:end]
        if piece in vocab:
            return piece
    return None


def _diagnose_pieces(word: str, expected: list[str], got: list[str]) -> Feedback:
    """Say what is wrong with ``got`` for ``word`` without giving the expected pieces away."""
    if expected == [UNK]:
        return wrong(f"for {word!r} you gave {short(got)}, but at some point of {word!r} no entry of the vocabulary "
                     "fits.", "reread what WordPiece does with the word when that happens")
    if got == [UNK]:
        return wrong(f"for {word!r} you gave up, but it can be cut into entries of the vocabulary.",
                     "a continuing piece is looked up with ## in front of it")
    if _spelled(got) != word:
        return wrong(f"your pieces for {word!r}, {short(got)}, do not spell the word again once the ## is taken off "
                     "the continuing pieces.", "each piece starts where the previous one ended")
    start = 0
    for i, piece in enumerate(got):
        if piece not in VOCAB:
            return wrong(f"for {word!r} your piece {piece!r} is not in the vocabulary.",
                         "the first piece has no ##; every later piece is looked up with ## in front")
        best = _longest_fits(word, start, VOCAB)
        if best is not None and len(best) > len(piece):
            return wrong(f"for {word!r} your piece number {i + 1}, {piece!r}, is not the longest entry that fits "
                         "at that point.", "try the longest candidate first, then shorter ones")
        start += len(piece.removeprefix("##")) if i else len(piece)
    return wrong(f"for {word!r} your pieces {short(got)} differ from WordPiece's.")


def check_longest_match(my_longest_match: Callable) -> Feedback:
    """Exercise 15.1: WordPiece's longest-match-first encoder for one word, against Hugging Face's."""
    if (problem := expect(my_longest_match, FUNCTION)) is not None:
        return problem
    for word in WORDS:
        expected = wordpiece_reference(word, VOCAB)
        try:
            got = my_longest_match(word, set(VOCAB))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"my_longest_match({word!r}, vocab) raised {type(exc).__name__}: {exc}.",
                         "at each point, look for the longest piece that is in vocab")
        if (problem := returned(got, PIECE_LIST, f"my_longest_match({word!r}, vocab)")) is not None:
            return problem
        if got != expected:
            return _diagnose_pieces(word, expected, got)
    return correct(f"your encoder agrees with Hugging Face's WordPiece on all {len(WORDS)} words, unknown ones "
                   "included.")


def reachable(piece: bytes, ranks: dict[bytes, int]) -> set[tuple[bytes, ...]]:
    """Every segmentation BPE-dropout can give ``piece`` for some 0 < p < 1 (the oracle for exercise 15.2).

    At each step the merge applied is the lowest-ranked among those not dropped, so any one merge
    that could apply can be the one applied (all the others dropped), and dropping them all stops.
    """
    start = tuple(piece[i:i + 1] for i in range(len(piece)))
    seen, todo = {start}, [start]
    while todo:
        parts = todo.pop()
        for i in range(len(parts) - 1):
            if parts[i] + parts[i + 1] in ranks:
                merged = parts[:i] + (parts[i] + parts[i + 1],) + parts[i + 2:]
                if merged not in seen:
                    seen.add(merged)
                    todo.append(merged)
    return seen


def check_reachable(my_reachable: Callable) -> Feedback:
    """Exercise 15.2: the set of segmentations BPE-dropout can produce for a piece."""
    if (problem := expect(my_reachable, FUNCTION)) is not None:
        return problem
    for piece in PIECES:
        expected = reachable(piece, RANKS)
        try:
            got = my_reachable(piece, dict(RANKS))
        except Exception as exc:  # the learner's code: report, never crash the notebook
            return wrong(f"my_reachable({piece!r}, ranks) raised {type(exc).__name__}: {exc}.",
                         "start from single bytes and follow every merge that could apply")
        if (problem := returned(got, SEGMENTATIONS, f"my_reachable({piece!r}, ranks)")) is not None:
            return problem
        if got == expected:
            continue
        for parts in sorted(got, key=len):
            if b"".join(parts) != piece:
                return wrong(f"for {piece!r} your segmentation {short(parts)} does not spell the piece.",
                             "merging joins neighbours; it never changes the bytes")
            if any(len(t) > 1 and t not in RANKS for t in parts):
                return wrong(f"for {piece!r} your segmentation {short(parts)} has a piece that is no token.",
                             "only a pair whose concatenation has a rank can merge")
        missing, extra = expected - got, got - expected
        if missing:
            fewest = min(len(parts) for parts in missing)
            return wrong(f"for {piece!r} you are missing {len(missing)} of the {len(expected)} segmentations; one of "
                         f"those has {fewest} piece{'s' if fewest != 1 else ''}.",
                         "any merge that could apply may be the only one not dropped, and all of them may be dropped.")
        return wrong(f"for {piece!r} {len(extra)} of your segmentations cannot come out of dropout, e.g. "
                     f"{short(sorted(extra)[0])}.", "every piece must be built by merging neighbours, one merge at a time")
    return correct(f"all {len(PIECES)} pieces: every segmentation dropout can draw, and no other. Plain BPE's is "
                   "one of them; p only changes how likely each is.")
