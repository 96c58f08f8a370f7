"""The learner's own copy of the chapters: the copy rules, one case each."""

from __future__ import annotations

import builtins
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from bpe_course.lab import MANIFEST, default_workspace, prepare_workspace
from bpe_course.lab import course_files


@pytest.fixture(autouse=True)
def own_jupyter_data_dir(tmp_path, monkeypatch):
    """``lab`` marks the chapters it copies trusted in Jupyter's signature store: a test's own, not the user's."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))


@pytest.fixture()
def course(tmp_path: Path) -> Path:
    source = tmp_path / "course"
    source.mkdir()
    for name in ("00_a.ipynb", "01_b.ipynb"):
        (source / name).write_text(f"{name} v1", encoding="utf-8")
    return source


def test_first_run_copies_everything_and_a_rerun_changes_nothing(course, tmp_path):
    work = tmp_path / "work"
    assert prepare_workspace(course, work) == ["copied 2 chapters into work"]
    assert (work / "01_b.ipynb").read_text(encoding="utf-8") == "01_b.ipynb v1"
    assert prepare_workspace(course, work) == []
    assert set(json.loads((work / MANIFEST).read_text())) == {"00_a.ipynb", "01_b.ipynb"}


def test_an_unchanged_copy_is_updated_and_a_new_chapter_added(course, tmp_path):
    work = tmp_path / "work"
    prepare_workspace(course, work)
    (course / "01_b.ipynb").write_text("01_b v2", encoding="utf-8")
    (course / "02_c.ipynb").write_text("02_c v1", encoding="utf-8")
    assert prepare_workspace(course, work) == ["added new 1 chapter: 02_c.ipynb", "updated 01_b.ipynb"]
    assert (work / "01_b.ipynb").read_text(encoding="utf-8") == "01_b v2"


def test_an_edited_chapter_is_never_overwritten(course, tmp_path):
    work = tmp_path / "work"
    prepare_workspace(course, work)
    (work / "00_a.ipynb").write_text("my work", encoding="utf-8")
    assert prepare_workspace(course, work) == []  # edited, course unchanged: nothing to say
    (course / "00_a.ipynb").write_text("00_a v2", encoding="utf-8")
    (work / "00_a.updated.ipynb").write_text("a file of mine", encoding="utf-8")  # even this name is taken
    lines = prepare_workspace(course, work)
    assert lines == ["kept your edited 00_a.ipynb; the updated chapter is beside it as 00_a.updated-2.ipynb"]
    assert (work / "00_a.ipynb").read_text(encoding="utf-8") == "my work"
    assert (work / "00_a.updated.ipynb").read_text(encoding="utf-8") == "a file of mine"
    assert (work / "00_a.updated-2.ipynb").read_text(encoding="utf-8") == "00_a v2"
    assert prepare_workspace(course, work) == []  # said once, not at every start


def test_a_damaged_manifest_keeps_everything(course, tmp_path):
    work = tmp_path / "work"
    prepare_workspace(course, work)
    (work / MANIFEST).write_text("{not json", encoding="utf-8")
    (course / "00_a.ipynb").write_text("00_a v2", encoding="utf-8")
    prepare_workspace(course, work)
    assert (work / "00_a.ipynb").read_text(encoding="utf-8") == "00_a.ipynb v1"  # kept, new one beside it
    assert (work / "00_a.updated.ipynb").read_text(encoding="utf-8") == "00_a v2"


def test_default_folders(tmp_path):
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("", encoding="utf-8")
    assert default_workspace(clone / "notebooks") == clone / "my_notebooks"
    assert default_workspace(tmp_path / "site-packages" / "bpe_course" / "notebooks", cwd=tmp_path) == \
        tmp_path / "bpe-course-notebooks"
    with pytest.raises(FileNotFoundError, match="no chapters"):
        prepare_workspace(tmp_path / "empty", tmp_path / "w")


# --------------------------------------------------------------------------- links from the learner's folder

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def broken_links(folder: Path) -> list[str]:
    """Every relative link in the markdown cells of ``folder``'s chapters that points at no file there."""
    broken = []
    for chapter in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        for k, cell in enumerate(nbformat.read(chapter, as_version=4).cells):
            if cell.cell_type != "markdown":
                continue
            prose = CODE_SPAN.sub("", cell.source)  # subtle: `c[t](p)` in a code span is code, not a link
            for url in LINK.findall(prose):
                parts = urlsplit(url)
                if parts.scheme or parts.netloc or not parts.path:  # another site, or a place on this page
                    continue
                if not (folder / unquote(parts.path)).exists():
                    broken.append(f"{chapter.name}, cell {k}: ({url})")
    return broken


def test_every_link_works_from_the_learners_folder_and_from_notebooks(tmp_path):
    work = tmp_path / "my_notebooks"
    prepare_workspace(ROOT / "notebooks", work)
    stored = broken_links(ROOT / "notebooks")
    assert stored == [], stored
    assert broken_links(work) == []
    # the chapters do link outside their folder, to the references, which came along
    linking = [p.name for p in (ROOT / "notebooks").glob("*.ipynb") if "](../docs/references.md" in p.read_text()]
    assert linking, "no chapter links ../docs/references.md any more: this test checks nothing"
    assert (work / "references.md").read_bytes() == (ROOT / "docs" / "references.md").read_bytes()
    for name in linking:
        text = (work / name).read_text(encoding="utf-8")
        assert "../docs/" not in text and "](references.md" in text, name


def test_the_copied_references_follow_the_same_rules(tmp_path):
    course = tmp_path / "course"
    (course / "notebooks").mkdir(parents=True)
    (course / "docs").mkdir()
    chapter = course / "notebooks" / "00_a.ipynb"
    chapter.write_text('{"source": "see [refs](../docs/refs.md#x)"}', encoding="utf-8")
    (course / "docs" / "refs.md").write_text("# refs v1", encoding="utf-8")
    work = tmp_path / "work"
    assert prepare_workspace(course / "notebooks", work) == ["copied 1 chapter into work"]
    assert (work / "00_a.ipynb").read_text(encoding="utf-8") == '{"source": "see [refs](refs.md#x)"}'
    assert (work / "refs.md").read_text(encoding="utf-8") == "# refs v1"
    assert prepare_workspace(course / "notebooks", work) == []  # a rewritten chapter counts as unchanged
    (work / "refs.md").write_text("# refs, my notes", encoding="utf-8")
    (course / "docs" / "refs.md").write_text("# refs v2", encoding="utf-8")
    assert prepare_workspace(course / "notebooks", work) == [
        "kept your edited refs.md; the updated page is beside it as refs.updated.md"]
    (course / "docs" / "refs.md").unlink()
    with pytest.raises(FileNotFoundError, match=r"links to \.\./docs/refs\.md"):
        prepare_workspace(course / "notebooks", work)


def test_the_course_chapters_are_marked_trusted_and_an_edited_one_is_not(tmp_path, monkeypatch):
    """JupyterLab shows an untrusted notebook's widgets as text; the course's own chapters are signed as
    ``jupyter trust`` signs them, in the signature store of the JupyterLab that opens them."""
    from nbformat.sign import NotebookNotary

    data_dir = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data_dir))
    work = tmp_path / "work"
    prepare_workspace(ROOT / "notebooks", work)
    notary = NotebookNotary(data_dir=str(data_dir))
    chapters = sorted(work.glob("*.ipynb"))
    assert chapters and all(notary.check_signature(nbformat.read(p, as_version=4)) for p in chapters)
    edited = nbformat.read(work / "00_start_here.ipynb", as_version=4)
    edited.cells[0].source += "\nmy notes"
    nbformat.write(edited, work / "00_start_here.ipynb")
    assert not notary.check_signature(nbformat.read(work / "00_start_here.ipynb", as_version=4))
    prepare_workspace(ROOT / "notebooks", work)  # an edited chapter is not signed by the course
    assert not notary.check_signature(nbformat.read(work / "00_start_here.ipynb", as_version=4))


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


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
