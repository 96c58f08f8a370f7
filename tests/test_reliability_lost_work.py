"""Round 3 (issue 34), lost work: `encode -o` has a lock as `train -o` has; `lab` writes every file whole, so
a run stopped at any moment leaves nothing half-written that later runs would keep as the learner's; a
Ctrl-C says what was saved.
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bpe_course import Tokenizer, corpus, gpt2, train_bpe
from bpe_course.cli import main
from bpe_course.files import file_lock
from bpe_course.lab import MANIFEST, course_files, prepare_workspace

MODULE = [sys.executable, "-m", "bpe_course"]


@pytest.fixture()
def text_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("low lower lowest newer wider " * 300, encoding="utf-8")
    return path


# ---- encode -o: one writer at a time -------------------------------------------------------------------
def test_an_encode_into_a_file_another_encode_is_writing_fails_at_once(tmp_path, text_file, capsys):
    out = tmp_path / "ids.npy"
    with file_lock(out, RuntimeError, "a test holds"):  # what a first `bpe-course encode -o ids.npy` holds
        for force in ([], ["--force"]):
            assert main(["encode", "--input", str(text_file), "-o", str(out), *force]) == 1
            assert capsys.readouterr().err == (f"bpe-course: error: another 'bpe-course encode' is writing {out} "
                                               "right now; wait for it to finish, or choose another name\n")
    assert list(tmp_path.iterdir()) == [text_file]  # nothing written, the lock gone with its holder
    assert main(["encode", "--input", str(text_file), "-o", str(out)]) == 0
    assert len(np.load(out)) == len(gpt2().encode(text_file.read_text(encoding="utf-8")))


def test_two_encodes_into_one_file_at_once_the_second_fails_and_the_first_is_kept(tmp_path):
    big, small, out = tmp_path / "big.txt", tmp_path / "small.txt", tmp_path / "same.npy"
    big.write_text(corpus.load("python_docs") * 4, encoding="utf-8")
    small.write_text("only a few words\n", encoding="utf-8")
    first = subprocess.Popen([*MODULE, "encode", "--input", str(big), "-o", str(out), "--workers", "1"],
                             stderr=subprocess.PIPE, text=True)
    lock = tmp_path / ".same.npy.bpe-course.lock"
    deadline = time.monotonic() + 120
    while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lock.exists(), "the first encode never took its lock"
    second = subprocess.run([*MODULE, "encode", "--input", str(small), "-o", str(out)], capture_output=True, text=True,
                            timeout=300)
    assert first.wait(timeout=600) == 0
    assert second.returncode == 1 and "another 'bpe-course encode' is writing" in second.stderr
    assert len(np.load(out)) == len(gpt2().encode(big.read_text(encoding="utf-8"), allowed_special="all"))


# ---- lab: a stopped run leaves only whole files ----------------------------------------------------------
def fake_course(folder: Path, version: str) -> Path:
    folder.mkdir(exist_ok=True)
    for k in range(4):
        cell = {"cell_type": "code", "source": f"chapter {k} {version} " + "x = 1\n" * 3_000, "metadata": {}}
        (folder / f"0{k}_c.ipynb").write_text(json.dumps({"cells": [cell], "nbformat": 4}), encoding="utf-8")
    return folder


def lab_and_die(source: Path, work: Path, kill_at: int) -> bool:
    """``prepare_workspace`` in a forked child that ends itself at its ``kill_at``-th file-system call."""
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            calls = [0]

            def deadly(real):
                def call(*args, **kwargs):
                    calls[0] += 1
                    if calls[0] == kill_at:
                        os._exit(77)
                    return real(*args, **kwargs)
                return call
            for name in ("replace", "rename", "open", "fsync", "chmod", "unlink", "write"):
                setattr(os, name, deadly(getattr(os, name)))
            builtins.open = deadly(builtins.open)
            prepare_workspace(source, work)
        except BaseException:  # noqa: BLE001 -- reported by the exit status
            status = 3
        finally:
            os._exit(status)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    assert code in (0, 77), code
    return code == 0


def only_whole_files(work: Path, *versions: dict[str, bytes]) -> None:
    for path in work.iterdir():
        assert not path.name.endswith(".tmp") or path.name.startswith("."), path.name
        if path.suffix == ".ipynb":
            assert any(path.read_bytes() == v.get(path.name.replace(".updated", "")) for v in versions), path.name


def test_a_lab_run_killed_at_any_file_system_call_leaves_whole_chapters_and_the_next_run_finishes(tmp_path):
    old = course_files(fake_course(tmp_path / "old", "v1"))
    new_source = fake_course(tmp_path / "new", "v2")
    new = course_files(new_source)
    kill_at, finished = 0, False
    while not finished:
        kill_at += 1
        work = tmp_path / f"w{kill_at}"
        prepare_workspace(tmp_path / "old", work)
        (work / "01_c.ipynb").write_text("my own edits", encoding="utf-8")  # the learner's: kept through it all
        finished = lab_and_die(new_source, work, kill_at)
        only_whole_files(work, old, new, {"01_c.ipynb": b"my own edits"})
        prepare_workspace(new_source, work)  # the learner runs lab again: it finishes the update
        assert {p.name: p.read_bytes() for p in work.glob("*.ipynb")} == {
            **new, "01_c.ipynb": b"my own edits", "01_c.updated.ipynb": new["01_c.ipynb"]}
        assert not [p.name for p in work.iterdir() if p.name.endswith(".tmp")]
    assert kill_at > 10


def test_a_full_disk_names_the_file_and_leaves_no_half_chapter(tmp_path):
    source = fake_course(tmp_path / "course", "v1")
    work = tmp_path / "work"
    script = ("import resource, signal, sys\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # what a full disk is to a writer\n"
              "from bpe_course.lab import prepare_workspace\n"
              "prepare_workspace(sys.argv[1], sys.argv[2])\n")
    done = subprocess.run([sys.executable, "-c", script, str(source), str(work)], capture_output=True, text=True)
    assert done.returncode == 1
    assert f"OSError: {work / '00_c.ipynb'}: not written (File too large); it is as it was before" in done.stderr
    assert [p.name for p in work.iterdir()] == []  # no half chapter, no temporary file
    assert prepare_workspace(source, work) == ["copied 4 chapters into work"]


def test_a_chapter_cut_short_by_an_older_lab_is_put_aside_and_copied_again(tmp_path):
    source = fake_course(tmp_path / "course", "v1")
    files = course_files(source)
    work = tmp_path / "work"
    work.mkdir()
    (work / "02_c.ipynb").write_bytes(files["02_c.ipynb"][:5_000])  # what the old lab left after a full disk
    (work / "03_c.ipynb").write_text(json.dumps({"cells": [], "nbformat": 4}), encoding="utf-8")  # a learner's
    lines = prepare_workspace(source, work)
    assert "02_c.ipynb was cut short (the start of the chapter, not a whole notebook); moved it aside as " \
           "02_c.damaged.ipynb" in lines
    assert (work / "02_c.ipynb").read_bytes() == files["02_c.ipynb"]
    assert (work / "03_c.ipynb").read_bytes() != files["03_c.ipynb"]  # a whole notebook is the learner's: kept
    assert set(json.loads((work / MANIFEST).read_text())) >= {"00_c.ipynb", "01_c.ipynb", "02_c.ipynb"}


# ---- Ctrl-C says what was saved -----------------------------------------------------------------------
def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_during_trains_summary_says_the_tokenizer_is_saved(tmp_path, text_file, capsys, monkeypatch):
    monkeypatch.setattr(Tokenizer, "encode", interrupt)  # the summary's first encoding, after the save
    assert main(["train", str(text_file), "--vocab-size", "280", "-o", str(tmp_path / "tok")]) == 130
    saved = tmp_path / "tok" / "bpe_course.json"
    assert capsys.readouterr().err.splitlines()[-1] == ("bpe-course: interrupted during the summary; the tokenizer is "
                                                        f"saved (bpe-course) to {saved}")
    assert Tokenizer.load(saved).merges == Tokenizer(*train_bpe(text_file, 280)).merges  # stopped early: 18


def test_ctrl_c_before_the_save_says_only_interrupted_and_during_it_what_is_there(tmp_path, text_file, capsys,
                                                                                    monkeypatch):
    import bpe_course.cli as cli_module
    monkeypatch.setattr(cli_module, "train", interrupt)
    assert main(["train", str(text_file), "--vocab-size", "280", "-o", str(tmp_path / "tok"), "-q"]) == 130
    assert capsys.readouterr().err == "bpe-course: interrupted\n"  # nothing saved: nothing else to say
    monkeypatch.undo()
    real_save = Tokenizer.save

    def save_then_interrupt(self, *args, **kwargs):  # Ctrl-C as the save returns: the tokenizer is there
        real_save(self, *args, **kwargs)
        raise KeyboardInterrupt
    monkeypatch.setattr(Tokenizer, "save", save_then_interrupt)
    assert main(["train", str(text_file), "--vocab-size", "280", "-o", str(tmp_path / "tok2"), "-q"]) == 130
    saved = tmp_path / "tok2" / "bpe_course.json"
    assert capsys.readouterr().err == f"bpe-course: interrupted; the tokenizer is saved (bpe-course) to {saved}\n"
    assert Tokenizer.load(saved).merges == Tokenizer(*train_bpe(text_file, 280)).merges
