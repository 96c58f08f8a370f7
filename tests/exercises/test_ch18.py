"""Chapter 18's checkers: the chapter's solutions pass, common mistakes get a pointed hint, and no message
gives the expected answer away."""

from __future__ import annotations

import re
from pathlib import Path

from bpe_course.exercises.ch18 import CASES, CONVERSATIONS, SCORES, check_best_pair, check_v3_prompt
from bpe_course.chat import chat_ids
from bpe_course.pretrained import mistral_v3 as sentencepiece_v3
from bpe_course.algorithms.sentencepiece_bpe import best_pair

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "18_open_models_and_chat.py"


def solution(name: str) -> str:
    """The chapter's solution for ``def name(...)``, taken from its <details> block."""
    text = CHAPTER.read_text(encoding="utf-8")
    block = re.search(rf"# ```python\n(# def {name}\(.*?)# ```", text, re.S)
    assert block, f"no solution for {name} in the chapter"
    return "\n".join(line[2:] for line in block.group(1).splitlines())


def test_the_chapters_solutions_pass():
    scope = {"ours": {"v3": sentencepiece_v3()}}
    exec(solution("my_best_pair"), scope)
    exec(solution("my_v3_prompt"), scope)
    assert check_best_pair(scope["my_best_pair"]).ok
    assert check_v3_prompt(scope["my_v3_prompt"]).ok


def lowest_score(symbols, scores):
    """A learner who reads scores as ranks (lowest first)."""
    found = [(scores[a + b], i) for i, (a, b) in enumerate(zip(symbols, symbols[1:])) if a + b in scores]
    return min(found)[1] if found else None


def rightmost_on_tie(symbols, scores):
    best, best_score = None, float("-inf")
    for i in range(len(symbols) - 1):
        score = scores.get(symbols[i] + symbols[i + 1])
        if score is not None and score >= best_score:
            best, best_score = i, score
    return best


def test_best_pair_mistakes_get_their_hint():
    assert "scores are not ranks" in check_best_pair(lowest_score).message
    assert "leftmost" in check_best_pair(rightmost_on_tie).message
    assert "return None" in check_best_pair(lambda s, sc: 0).message or not check_best_pair(lambda s, sc: 0).ok
    crashes = check_best_pair(lambda s, sc: s[5])
    assert not crashes.ok and "raised IndexError" in crashes.message
    assert "a function" in check_best_pair(None).message


def test_best_pair_never_names_the_expected_index():
    for wrong in (lowest_score, rightmost_on_tie, lambda s, sc: 0, lambda s, sc: None):
        feedback = check_best_pair(wrong)
        case = next(c for c in CASES if wrong(list(c), dict(SCORES)) != best_pair(c, SCORES))
        expected = best_pair(case, SCORES)
        assert f"at {expected}," not in feedback.message and f"should be {expected}" not in feedback.message


def _v3_without(change: str):
    sp = sentencepiece_v3()

    def prompt(messages):
        system = "\n\n".join(text for role, text in messages if role == "system")
        turns = [(role, text) for role, text in messages if role != "system"]
        users = [i for i, (role, _) in enumerate(turns) if role == "user"]
        ids = [] if change == "bos" else [1]
        for i, (role, text) in enumerate(turns):
            if role == "user":
                where = users[0] if change == "system first" else users[-1]
                text = f"{system}\n\n{text}" if system and i == where else text
                begin = sp.encode("[INST]") if change == "inst as text" else [sp.control["[INST]"]]
                ids += begin + sp.encode(text) + [sp.control["[/INST]"]]
            else:
                ids += sp.encode(text if change == "no rstrip" else text.rstrip(" "))
                ids += [] if change == "eos" else [2]
        return ids
    return prompt


def test_v3_prompt_mistakes_are_located():
    assert "the very start (<s>)" in check_v3_prompt(_v3_without("bos")).message
    assert "[INST] is one control id" in check_v3_prompt(_v3_without("inst as text")).message
    assert "every answer ends with </s>" in check_v3_prompt(_v3_without("eos")).message
    assert "what v3's template does to an answer" in check_v3_prompt(_v3_without("no rstrip")).message
    assert "system prompt" in check_v3_prompt(_v3_without("system first")).message
    assert check_v3_prompt(_v3_without("none")).ok


def test_v3_prompt_feedback_shows_no_ids():
    feedback = check_v3_prompt(_v3_without("inst as text"))
    expected = chat_ids(list(CONVERSATIONS[0]), "v3")
    assert str(expected) not in feedback.message and str(expected[1:4]) not in feedback.message


def test_odd_results_get_feedback_not_errors():
    for odd in ("1", 1.0, True, [1], -1, 99):
        feedback = check_best_pair(lambda s, sc, odd=odd: odd)
        assert not feedback.ok and "Not yet" in feedback.message
    for odd in (None, "ids", [1.5], (1, 3), [[1]]):
        feedback = check_v3_prompt(lambda m, odd=odd: odd)
        assert not feedback.ok and "Not yet" in feedback.message
    assert "raised ZeroDivisionError" in check_v3_prompt(lambda m: 1 / 0).message
