"""A save killed at any moment leaves the complete old tokenizer or the complete new one.

Fault injection: a forked child saves with the file-system calls a save makes (``os.replace``,
``os.rename``, ``os.open``, ``os.fsync``, ``os.mkdir``, ``os.rmdir``, ``os.unlink``, ``open``)
patched to end the process with ``os._exit`` at the N-th call -- just before it, or just after
it -- for every N until the save gets through. After each kill the parent loads what is on disk
and checks it is exactly the old tokenizer or exactly the new one (for a first save: nothing, or
the new one); then it saves again, as a learner would, and checks that this save lands whole,
that no helper file stays behind and that the learner's other files in the folder are untouched.
"""

from __future__ import annotations

import builtins
import os
import random
import shutil
from functools import lru_cache
from pathlib import Path

import pytest

from bpe_course import Tokenizer, TokenizerFileError, corpus, formats, train_bpe
from bpe_course.files import SAVING

KILLED = 77  # the exit status of a child killed on purpose
OS_CALLS = ("replace", "rename", "open", "fsync", "mkdir", "rmdir", "unlink")
LEARNERS_FILE = "notes.txt"


@lru_cache(maxsize=None)
def tokenizers() -> tuple[Tokenizer, Tokenizer, Tokenizer]:
    """Old (144 merges), new (244 merges and a special token) and a third one of a different size."""
    text = corpus.load("python_docs")[:20_000]
    old = Tokenizer(*train_bpe(text, 256 + 144))
    new = Tokenizer(*train_bpe(text, 256 + 245, ["<|endoftext|>"]), ["<|endoftext|>"])
    third = Tokenizer(*train_bpe(corpus.load("python_code")[:20_000], 256 + 190))
    return old, new, third


def state(folder: Path):
    """What loading ``folder`` gives: a tokenizer's data, or ``None`` when there is no tokenizer at all."""
    try:
        tok = Tokenizer.load(folder)
    except (FileNotFoundError, TokenizerFileError) as exc:
        assert "no saved tokenizer" in str(exc) or "no tokenizer at" in str(exc), exc  # never a broken pair
        return None
    return tok.vocab, tok.merges, tok.special_tokens, tok.pattern


def save_and_die(tokenizer: Tokenizer, folder: Path, fmt: str, kill_at: int, after: bool) -> bool:
    """Save in a forked child that ends itself at file-system call ``kill_at``; True if it got through."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 0
        try:
            calls = [0]

            def deadly(real):
                def call(*args, **kwargs):
                    calls[0] += 1
                    if calls[0] == kill_at and not after:
                        os._exit(KILLED)
                    try:
                        return real(*args, **kwargs)
                    finally:  # subtle: also after a call that raised (mkdir of a folder that exists)
                        if calls[0] == kill_at and after:
                            os._exit(KILLED)
                return call

            for name in OS_CALLS:
                setattr(os, name, deadly(getattr(os, name)))  # os.fsync: the no-op of no_disk_waits
            builtins.open = deadly(builtins.open)
            tokenizer.save(folder, format=fmt)
        except BaseException:  # noqa: BLE001 -- any failure is reported by the exit status
            status = 3
        finally:
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(wait_status)
    assert code in (0, KILLED), f"the saving child failed (status {code}) at call {kill_at}"
    return code == 0


@pytest.fixture(autouse=True)
def no_disk_waits(monkeypatch):
    """``os.fsync`` does nothing here: it guards against power cuts, not kills, and waits ~5 ms a call.
    (It still counts as a place to die.)"""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def loaded_data(tokenizer: Tokenizer, fmt: str, tmp: Path):
    """The tokenizer as ``fmt`` reads it back (the tiktoken format rebuilds merges from ranks)."""
    folder = tmp / f"clean-{fmt}-{len(tokenizer.vocab)}"
    folder.mkdir(exist_ok=True)
    tokenizer.save(folder, format=fmt)
    return state(folder)


def listing(folder: Path) -> set[str]:
    """The names in ``folder``, leaving out a single-file save's temporary file (``.name.XXXX.tmp``) that a
    kill can leave behind: it is never read, and it is the only thing a killed save may leave."""
    return {p.name for p in folder.iterdir() if not (p.name.startswith(".") and p.name.endswith(".tmp")
                                                    and not p.name.startswith(SAVING))}


@pytest.mark.parametrize("fmt", formats.FORMATS)
@pytest.mark.parametrize("first_save", [False, True], ids=["replacing", "first save"])
def test_a_killed_save_leaves_the_old_or_the_new_tokenizer(tmp_path, fmt, first_save):
    old, new, _ = tokenizers()
    expected_old = None if first_save else loaded_data(old, fmt, tmp_path)
    expected_new = loaded_data(new, fmt, tmp_path)
    assert expected_new != expected_old
    template = tmp_path / "template"
    template.mkdir()
    (template / LEARNERS_FILE).write_text("my own notes\n", encoding="utf-8")
    if not first_save:
        old.save(template, format=fmt)
    clean = set(listing(template))
    seen = set()
    for after in (False, True):
        kill_at = 0
        while True:
            kill_at += 1
            folder = tmp_path / f"k{int(after)}-{kill_at}"
            shutil.copytree(template, folder)
            finished = save_and_die(new, folder, fmt, kill_at, after)
            found = state(folder)
            assert found in (expected_old, expected_new), f"killed {'after' if after else 'before'} call {kill_at}"
            seen.add("old" if found == expected_old else "new")
            new.save(folder, format=fmt)  # the learner saves again: it lands whole, and leaves nothing behind
            assert state(folder) == expected_new
            assert (folder / LEARNERS_FILE).read_text(encoding="utf-8") == "my own notes\n"
            names = listing(folder)
            assert not any(n.startswith(SAVING) for n in names), names
            assert names == (clean | {p.name for p in (tmp_path / f"clean-{fmt}-{len(new.vocab)}").iterdir()}), names
            shutil.rmtree(folder)
            if finished:
                break
        assert kill_at > 3  # the save made several file-system calls, and each was a place to die
    assert seen == {"old", "new"}  # both outcomes happened: the kills fell before and after the commit


@pytest.mark.parametrize("fmt", ["gpt2", "tiktoken"])
def test_saves_killed_one_after_another(tmp_path, fmt):
    """Kills at random moments of a run of saves: each load gives the tokenizer before the save or the one saved."""
    tokens = tokenizers()
    expected = [loaded_data(t, fmt, tmp_path) for t in tokens]
    folder = tmp_path / "work"
    folder.mkdir()
    tokens[0].save(folder, format=fmt)
    current = expected[0]
    rng = random.Random(16)
    for step in range(30):
        k = rng.randrange(3)
        finished = save_and_die(tokens[k], folder, fmt, rng.randint(1, 24), rng.random() < 0.5)
        found = state(folder)
        assert found in (current, expected[k]), f"step {step}"
        assert not finished or found == expected[k]
        current = found
