"""The checkers' shared Feedback and runner (bpe_course.exercises.feedback).

After Run All, an exercise a learner has not touched reads as an invitation ("✏️ Your turn"), not as a
failure: red "❌ Not yet" is for an answer the learner changed and is still wrong. Those cells are run
in a real IPython shell, as JupyterLab's kernel runs them: the chapter's own exercise cell, exactly as
shipped, then the same cell edited.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exercises.feedback_checks import assert_wrong
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from bpe_course.exercises import ch07
from bpe_course.exercises.feedback import NOT_YET, YOUR_TURN, run_cases


def test_run_cases_reports_exceptions_instead_of_raising():
    def broken(x):
        raise KeyError("boom")

    assert_wrong(run_cases(broken, [(1,)], lambda x: x, name="f", hint="look again"), "f(1) raised KeyError", "look again")


def test_run_cases_rejects_non_functions():
    assert_wrong(run_cases(42, [(1,)], lambda x: x, name="f"), "expected a function, got int")


def test_feedback_shows_verdict_and_hint():
    good, bad = ch07.correct("fine."), ch07.wrong("wrong.", "try this.")
    assert bool(good) and not bad
    assert repr(good) == "✅ Correct: fine."
    assert repr(bad) == "❌ Not yet. wrong.\nHint: try this." == str(bad)


ROOT = Path(__file__).resolve().parents[2]


def chapter_cell(notebook: str, contains: str) -> str:
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    (source,) = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and contains in "".join(c["source"])]
    return source


@pytest.fixture()
def shell():
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    try:
        yield shell
    finally:
        InteractiveShell.clear_instance()  # subtle: else every later checker in this process thinks it runs in IPython


def run(shell: InteractiveShell, source: str, store_history: bool = True):
    result = shell.run_cell(source, store_history=store_history)
    assert result.success, result.error_in_exec or result.error_before_exec
    return result.result


def test_an_untouched_exercise_is_your_turn_and_a_changed_wrong_one_is_not_yet(shell):
    run(shell, chapter_cell("03_training_loop.ipynb", "from bpe_course.exercises.ch03 import"))
    starter = chapter_cell("03_training_loop.ipynb", "check_stop(merges=STOP_VOCAB_SIZE")
    untouched = run(shell, starter)
    assert not untouched.ok and untouched.message.startswith(YOUR_TURN), untouched.message
    assert "❌" not in untouched.message and "assumes training always reaches vocab_size" in untouched.message
    wrong = run(shell, starter.replace("check_stop(merges=STOP_VOCAB_SIZE,", "check_stop(merges=3,"))
    assert not wrong.ok and wrong.message.startswith(NOT_YET), wrong.message
    trained = "from bpe_course.algorithms.wordbpe import WordBPE\nstopped = WordBPE.train(STOP_CORPUS, STOP_VOCAB_SIZE)\n"
    right = run(shell, trained + "check_stop(merges=len(stopped.merges), vocab_size=len(stopped.vocab))")
    assert right.ok and right.message.startswith("✅")


def test_a_starter_function_is_your_turn_until_it_is_edited(shell):
    run(shell, chapter_cell("03_training_loop.ipynb", "from bpe_course.exercises.ch03 import"))
    starter = chapter_cell("03_training_loop.ipynb", "check_learn_merges(learn_merges)")
    assert run(shell, starter).message.startswith(YOUR_TURN)
    edited = starter.replace("    return merges", "    return merges[:1]")
    assert edited != starter and run(shell, edited).message.startswith(NOT_YET)
    assert run(shell, "\n\n" + starter.replace("\n", "\r\n") + "\n").message.startswith(YOUR_TURN)  # as typed again
    assert run(shell, starter, store_history=False).message.startswith(YOUR_TURN)  # as nbval runs a cell
    assert run(shell, edited, store_history=False).message.startswith(NOT_YET)


def test_outside_ipython_nothing_is_a_starter():
    from bpe_course.exercises.ch03 import STOP_VOCAB_SIZE, check_stop
    assert check_stop(merges=STOP_VOCAB_SIZE, vocab_size=STOP_VOCAB_SIZE).message.startswith(NOT_YET)
