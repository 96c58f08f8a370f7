"""The learner's own copy of the chapters: copied once, updated with care, never overwritten when edited.

``bpe-course lab`` opens JupyterLab on a working folder, not on the stored chapters: a learner
edits and saves there, and the course can still be updated and tested. The rules, for each chapter:

* not in the folder yet: copied in (also a chapter that an update adds);
* in the folder and unchanged since it was copied: replaced by a newer version, if there is one;
* in the folder and edited by the learner: **kept**. If the course's version changed too, the new
  one is saved beside it as ``NN_name.updated.ipynb`` and one line says so.

"Unchanged" is decided by a small manifest in the folder (``.bpe-course-lab.json``) holding the
sha256 of each chapter as it was copied.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     src, work = pathlib.Path(tmp, "src"), pathlib.Path(tmp, "work")
...     src.mkdir()
...     _ = (src / "01_a.ipynb").write_text("v1")
...     first = prepare_workspace(src, work)
...     _ = (work / "01_a.ipynb").write_text("my notes")   # the learner edits ...
...     _ = (src / "01_a.ipynb").write_text("v2")          # ... and the course is updated
...     second = prepare_workspace(src, work)
...     kept = (work / "01_a.ipynb").read_text(), (work / "01_a.updated.ipynb").read_text()
>>> first
['copied 1 chapter into work']
>>> second
['kept your edited 01_a.ipynb; the updated chapter is beside it as 01_a.updated.ipynb']
>>> kept
('my notes', 'v2')
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .files import sha256_file, write_atomic

MANIFEST = ".bpe-course-lab.json"


def prepare_workspace(source: str | os.PathLike, target: str | os.PathLike) -> list[str]:
    """Bring the chapters of ``source`` into the learner's folder ``target``; return what was done, a line each."""
    source, target = Path(source), Path(target)
    chapters = sorted(source.glob("*.ipynb"))
    if not chapters:
        raise FileNotFoundError(f"no chapters (*.ipynb) in {source}")
    target.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(target)
    copied, lines = [], []
    for chapter in chapters:
        name, new = chapter.name, sha256_file(chapter)
        mine = target / name
        recorded = manifest.get(name)
        if not mine.exists():
            shutil.copyfile(chapter, mine)
            manifest[name] = new
            copied.append(name)
            continue
        current = sha256_file(mine)
        if current == new:
            manifest[name] = new
        elif current == recorded:  # the learner has not touched it: take the new version
            shutil.copyfile(chapter, mine)
            manifest[name] = new
            lines.append(f"updated {name}")
        elif new != recorded and manifest.get(f"{name} offered") != new:  # edited, and the course changed too
            beside = _free_name(target, name)
            shutil.copyfile(chapter, beside)
            manifest[f"{name} offered"] = new
            lines.append(f"kept your edited {name}; the updated chapter is beside it as {beside.name}")
    if copied:
        what = f"{len(copied)} chapter{'' if len(copied) == 1 else 's'}"
        lines.insert(0, f"copied {what} into {target.name}" if len(copied) == len(chapters) or not manifest
                     else f"added new {what}: {', '.join(copied)}")
    write_atomic(target / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return lines


def _read_manifest(target: Path) -> dict[str, str]:
    path = target / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return {}  # subtle: a damaged manifest only means every existing chapter counts as edited: kept
    return data if isinstance(data, dict) else {}


def _free_name(folder: Path, name: str) -> Path:
    """``NN_name.updated.ipynb``, or ``.updated-2``, ``-3``, ... if the learner has such a file already."""
    stem = name.removesuffix(".ipynb")
    candidate, k = folder / f"{stem}.updated.ipynb", 1
    while candidate.exists():
        k += 1
        candidate = folder / f"{stem}.updated-{k}.ipynb"
    return candidate


def default_workspace(notebooks: Path, cwd: Path | None = None) -> Path:
    """``my_notebooks/`` in a clone of the course (git-ignored), else ``bpe-course-notebooks/`` here."""
    top = notebooks.parent
    if (top / ".git").exists() and (top / "pyproject.toml").is_file():
        return top / "my_notebooks"
    return (cwd or Path.cwd()) / "bpe-course-notebooks"
