"""After Run All, an exercise a learner has not touched reads as an invitation ("✏️ Your turn"), not as a
failure: red "❌ Not yet" is for an answer the learner changed and is still wrong.

The cells are run in a real IPython shell, as JupyterLab's kernel runs them: the chapter's own
exercise cell, exactly as shipped, then the same cell edited.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from bpe_course.exercises.feedback import NOT_YET, YOUR_TURN

ROOT = Path(__file__).resolve().parent.parent


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
