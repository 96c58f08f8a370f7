"""Chapter 18's checkers (bpe_course.exercises.ch18): the chapter's solutions pass, common mistakes get a pointed
hint, and no message gives the answer away (the text a stream should show, the Difference to return)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from bpe_course import corpus
from bpe_course.compare import compare
from bpe_course.exercises.ch18 import (LINES, check_line_units, check_stream, expected_difference, held_back,
                                       line_units, reference_stream, stream_cases)
from bpe_course.pretrained import mistral_v1, tekken

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "18_open_models_and_chat.py"


def solution(name: str) -> str:
    """The chapter's solution for ``def name(...)``, taken from its <details> block (imports above it too)."""
    text = CHAPTER.read_text(encoding="utf-8")
    block = re.search(rf"# ```python\n((?:# [^\n]*\n|#\n)*?# def {name}\(.*?)# ```", text, re.S)
    assert block, f"no solution for {name} in the chapter"
    return "\n".join(line[2:] for line in block.group(1).splitlines())


def test_the_chapters_solutions_pass():
    scope = {"ours": {"v1": mistral_v1()}, "tek": tekken(), "texts": {"python_code": corpus.load("python_code")},
             "compare": compare, "LINES": LINES}
    exec(solution("stream_text"), scope)
    exec(solution("line_units_verdict"), scope)
    assert check_stream(scope["stream_text"]).ok
    assert check_line_units(scope["line_units_verdict"]()).ok


def each_alone(ids):
    """The starter: each id decoded on its own (the dummy prefix dropped every time, bytes split)."""
    return [mistral_v1().decode([i]) for i in ids]


def differences(ids):
    """decode(ids[:k]) minus what was shown: shows U+FFFD for characters still arriving, then cannot take it back."""
    out, shown = [], ""
    for k in range(1, len(ids) + 1):
        text = mistral_v1().decode(ids[:k])
        out.append(text[len(shown):] if text.startswith(shown) else text)
        shown = text
    return out


def everything_last(ids):
    return [""] * (len(ids) - 1) + [mistral_v1().decode(ids)] if ids else []


def holds_every_byte(ids):
    """Holds back every byte piece until a piece of text comes: right for cut characters, late for lone bytes."""
    sp, out, shown = mistral_v1(), [], ""
    for k in range(1, len(ids) + 1):
        if sp.model.kinds[ids[k - 1]] == "byte" and k < len(ids):
            out.append("")
            continue
        text = sp.decode(ids[:k])
        out.append(text[len(shown):])
        shown = text
    return out


def holds_what_is_not_whole(ids):
    """Holds back every U+FFFD at the end while byte pieces arrive: waits for bytes that can never be a character."""
    sp, out, shown = mistral_v1(), [], ""
    for k in range(1, len(ids) + 1):
        text = sp.decode(ids[:k])
        hold = len(text) - len(text.rstrip("\ufffd")) if sp.model.kinds[ids[k - 1]] == "byte" and k < len(ids) else 0
        certain = text[:len(text) - hold]
        out.append(certain[len(shown):])
        shown = certain
    return out


def never_flushes(ids):
    """Holds back the bytes of a cut character even after the last id: the stream's end never shows them."""
    sp, out, shown = mistral_v1(), [], ""
    for k in range(1, len(ids) + 1):
        text = sp.decode(ids[:k])
        certain = text[:len(text) - held_back(sp, ids[:k])]
        out.append(certain[len(shown):])
        shown = certain
    return out


def test_the_reference_stream_joins_to_decode_on_random_ids():
    """Byte pieces mixed with any pieces, streams ending inside a character included: joined, decode(ids); and
    nothing shown before the end is ever changed by a later id (each prefix is a prefix of the final text)."""
    sp = mistral_v1()
    rng = random.Random(1)
    byte = [i for i, kind in enumerate(sp.model.kinds) if kind == "byte"]
    ends_inside = 0
    for _ in range(3_000):
        ids = [rng.choice(byte) if rng.random() < 0.6 else rng.randrange(len(sp.pieces))
               for _ in range(rng.randint(1, 8))]
        pieces = reference_stream(sp, ids)
        assert "".join(pieces) == sp.decode(ids), [sp.pieces[i] for i in ids]
        for k in range(1, len(ids)):  # what was shown after id k stays the start of every later decode
            assert sp.decode(ids).startswith("".join(pieces[:k]))
        ends_inside += sp.decode(ids) != "".join(never_flushes(ids))
    assert ends_inside > 100  # the random streams do end inside characters: the flush is exercised


def test_stream_mistakes_get_their_hint():
    assert "the stream ends after the last id" in check_stream(never_flushes).message
    assert "add up to decode(ids)" in check_stream(each_alone).message
    assert "add up to decode(ids)" in check_stream(differences).message
    assert "a piece's text is final at once" in check_stream(everything_last).message
    late = check_stream(holds_every_byte)
    assert not late.ok and "hold back text that no later id can change" in late.message
    assert "as soon as its last byte arrives" in late.message
    assert "show its U+FFFD at once" in check_stream(holds_what_is_not_whole).message
    assert "one string per id" in check_stream(lambda ids: ["".join(each_alone(ids))]).message


def test_stream_feedback_never_shows_the_expected_text():
    sp = mistral_v1()
    for wrong in (each_alone, differences, everything_last, holds_every_byte):
        message = check_stream(wrong).message
        for _, ids in stream_cases():
            for k, piece in enumerate(reference_stream(sp, ids)):
                if piece.strip() and piece not in wrong(ids):
                    assert repr(piece) not in message and f"'{piece}'" not in message


def test_line_units_mistakes_get_their_hint():
    tekken_units, v1_units = line_units()
    assert "opposite sign" in check_line_units(compare(v1_units, tekken_units, unit="", words=("fewer", "more"),
                                                       relative=True)).message
    assert "relative=True" in check_line_units(compare(tekken_units, v1_units)).message
    paragraphs = compare(tekken_units[::2], v1_units[::2], relative=True)  # other units: another estimate
    assert "first LINES non-empty lines" in check_line_units(paragraphs).message
    coarse = expected_difference()
    other = compare(tekken_units, v1_units, relative=True, words=("fewer", "more"), level=0.5)
    assert coarse.estimate == other.estimate and "interval" in check_line_units(other).message


def test_line_units_feedback_never_shows_the_expected_numbers():
    want = expected_difference()
    tekken_units, v1_units = line_units()
    for wrong in (compare(v1_units, tekken_units, relative=True), compare(tekken_units, v1_units),
                  compare(tekken_units[::2], v1_units[::2], relative=True)):
        message = check_line_units(wrong).message
        assert want.verdict not in message
        for x in (want.estimate, want.low, want.high):
            assert f"{x:.4f}" not in message and f"{100 * x:.1f}%" not in message


def test_odd_answers_get_feedback_not_errors():
    for odd in (None, "0.1", 0.1, [0.1], expected_difference):
        feedback = check_line_units(odd)
        assert not feedback.ok and "Difference" in feedback.message
    for odd in (None, "ids", [1.5], [[1]], 3):
        feedback = check_stream(lambda ids, odd=odd: odd)
        assert not feedback.ok and "Not yet" in feedback.message
    assert "raised ZeroDivisionError" in check_stream(lambda ids: 1 / 0).message


def test_line_units_feedback_never_explains_why_the_lead_shrinks():
    """Exercise 18.2 asks the learner to find where the tokens go: no message, right or wrong, names it."""
    tekken_units, v1_units = line_units()
    answers = [compare(v1_units, tekken_units, relative=True), compare(tekken_units, v1_units),
               compare(tekken_units[::2], v1_units[::2], relative=True), expected_difference()]
    for answer in answers:
        message = check_line_units(answer).message.lower()
        for clue in ("line break", "newline", "\\n", "<0x0a>", "indent", "punctuation", "prefix"):
            assert clue not in message, (clue, message)
