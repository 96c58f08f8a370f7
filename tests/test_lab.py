"""The learner's own copy of the chapters: the copy rules, one case each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_course.lab import MANIFEST, default_workspace, prepare_workspace


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
