"""The learner's own copy of the chapters: copied once, updated with care, never overwritten when edited.

``bpe-course lab`` opens JupyterLab on a working folder, not on the stored chapters: a learner
edits and saves there, and the course can still be updated and tested. The rules, for each chapter:

* not in the folder yet: copied in (also a chapter that an update adds);
* in the folder and unchanged since it was copied: replaced by a newer version, if there is one;
* in the folder and edited by the learner: **kept**. If the course's version changed too, the new
  one is saved beside it as ``NN_name.updated.ipynb`` and one line says so.

"Unchanged" is decided by a small manifest in the folder (``.bpe-course-lab.json``) holding the
sha256 of each chapter as it was copied.

Each chapter in the folder that is exactly the course's version is marked trusted, as ``jupyter trust``
does (:func:`trust_chapters`): JupyterLab shows an untrusted notebook's widgets as plain text, and a
trusted one draws them from the widget state stored with the chapter, as they stood after the course
ran it — so a chapter opened and not run yet already shows its widgets. A chapter the learner edited
is left to JupyterLab, which signs what it saves.

Links are made right from the learner's folder: a chapter's link to a page of the course's
``docs/`` (``../docs/references.md``, right beside ``notebooks/`` in a clone) points at a copy of that
page put beside the chapters, which the same rules keep up to date (:func:`learner_links`).

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

import glob
import hashlib
import importlib.resources
import json
import os
import re
from pathlib import Path

from .files import sha256_file, write_atomic

MANIFEST = ".bpe-course-lab.json"
# A link from a chapter to a page of the course's docs/ folder, e.g. "](../docs/references.md#bpe)".
DOCS_LINK = re.compile(r"\]\(\.\./docs/([\w-]+\.md)(?=[)#])")


def learner_links(text: str) -> str:
    """A chapter's text with its links to ``../docs/NAME.md`` pointing at ``NAME.md`` beside it.

    >>> learner_links("see [the references](../docs/references.md#sennrich), or [A](https://a.example/docs/a.md)")
    'see [the references](references.md#sennrich), or [A](https://a.example/docs/a.md)'
    """
    return DOCS_LINK.sub(r"](\1", text)


def linked_docs(texts: list[str]) -> list[str]:
    """The ``docs/`` pages that these chapters' texts link to, by name, sorted.

    >>> linked_docs(["[r](../docs/references.md)", "[b](../docs/bad_input.md#x) [r](../docs/references.md)"])
    ['bad_input.md', 'references.md']
    """
    return sorted({name for text in texts for name in DOCS_LINK.findall(text)})


def docs_dir(source: Path) -> Path:
    """The course's ``docs/``: beside ``notebooks/`` in a clone, else inside the installed package."""
    beside = source.parent / "docs"
    if beside.is_dir():
        return beside
    return Path(str(importlib.resources.files("bpe_course") / "docs"))


def course_files(source: Path) -> dict[str, bytes]:
    """What goes into the learner's folder, by name: each chapter (links made right from there), then
    each ``docs/`` page a chapter links to."""
    chapters = sorted(source.glob("*.ipynb"))
    if not chapters:
        raise FileNotFoundError(f"no chapters (*.ipynb) in {source}")
    texts = {path.name: path.read_text(encoding="utf-8") for path in chapters}
    files = {name: learner_links(text).encode("utf-8") for name, text in texts.items()}
    docs = docs_dir(source)
    for name in linked_docs(list(texts.values())):
        page = docs / name
        if not page.is_file():
            raise FileNotFoundError(f"a chapter links to ../docs/{name}, which is not in {docs}")
        files[name] = page.read_bytes()
    return files


def prepare_workspace(source: str | os.PathLike, target: str | os.PathLike) -> list[str]:
    """Bring the chapters of ``source`` into the learner's folder ``target``; return what was done, a line each."""
    source, target = Path(source), Path(target)
    files = course_files(source)
    n_chapters = sum(name.endswith(".ipynb") for name in files)
    target.mkdir(parents=True, exist_ok=True)
    for name in [*files, MANIFEST]:  # subtle: what a run killed mid-write left: write_atomic's temporary files,
        stem, suffix = (glob.escape(part) for part in os.path.splitext(name))  # of NN_name.updated-2.ipynb too
        for litter in target.glob(f".{stem}*{suffix}.*.tmp"):
            litter.unlink(missing_ok=True)
    manifest = _read_manifest(target)
    had_manifest = bool(manifest)
    copied, lines = [], []
    for name, content in files.items():
        new = hashlib.sha256(content).hexdigest()
        mine = target / name
        recorded = manifest.get(name)
        if mine.exists() and name.endswith(".ipynb") and _cut_short(mine, content):
            # subtle: a copy cut short (by a run of an older lab that failed half-way) is no edit of the learner's,
            # who saves notebooks through Jupyter, whole: it is put aside and the chapter copied again
            aside = _free_name(target, name, "damaged")
            mine.rename(aside)
            lines.append(f"{name} was cut short (the start of the chapter, not a whole notebook); moved it aside "
                         f"as {aside.name}")
        if not mine.exists():
            _write(target, manifest, name, content, {name: new})
            copied.append(name)
            continue
        current = sha256_file(mine)
        if current == new:
            if recorded != new:
                _write(target, manifest, None, b"", {name: new})
        elif current == recorded:  # the learner has not touched it: take the new version
            _write(target, manifest, name, content, {name: new})
            lines.append(f"updated {name}")
        elif new != recorded and manifest.get(f"{name} offered") != new:  # edited, and the course changed too
            beside = _offered(target, name, new)  # subtle: a run killed before it recorded its offer made it already
            if beside is None:
                beside = _free_name(target, name)
                _write(target, manifest, beside.name, content, {f"{name} offered": new})
            else:
                _write(target, manifest, None, b"", {f"{name} offered": new})
            what = "chapter" if name.endswith(".ipynb") else "page"
            lines.append(f"kept your edited {name}; the updated {what} is beside it as {beside.name}")
    new_chapters = [name for name in copied if name.endswith(".ipynb")]
    if new_chapters:
        what = f"{len(new_chapters)} chapter{'' if len(new_chapters) == 1 else 's'}"
        lines.insert(0, f"copied {what} into {target.name}" if len(new_chapters) == n_chapters or not had_manifest
                     else f"added new {what}: {', '.join(new_chapters)}")
    trust_chapters([target / name for name, content in files.items() if name.endswith(".ipynb")
                    and sha256_file(target / name) == hashlib.sha256(content).hexdigest()])
    return lines


def trust_chapters(paths: list[Path]) -> int:
    """Sign these notebooks in Jupyter's signature store (``$JUPYTER_DATA_DIR/nbsignatures.db``), as
    ``jupyter trust`` does; return how many. Without nbformat (no Jupyter installed) there is nothing to do.

    subtle: only the course's own chapters, byte for byte as shipped, are signed here.
    """
    try:
        import nbformat
        from nbformat.sign import NotebookNotary
    except ImportError:
        return 0
    notary, signed = NotebookNotary(), 0
    for path in paths:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 -- not a notebook nbformat can read (bad JSON, an old format): not signed
            continue
        notary.sign(nb)
        signed += 1
    return signed


def _write(target: Path, manifest: dict[str, str], name: str | None, content: bytes, record: dict[str, str]) -> None:
    """Write one file into the learner's folder, whole or not at all, then record it in the manifest.

    subtle: each file is written through a temporary file and renamed into place (a full disk, a
    Ctrl-C or a kill leaves the file as it was, never half of it), and the manifest is written after
    each one, so a run stopped half-way leaves a folder that the next run finishes. A failure names
    the file.
    """
    path = target / (name or MANIFEST)
    try:
        if name is not None:
            write_atomic(path, content)
        manifest.update(record)
        path = target / MANIFEST
        write_atomic(path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise OSError(f"{path}: not written ({exc.strerror or exc}); it is as it was before, and running "
                      "'bpe-course lab' again copies what is missing") from exc


def _cut_short(path: Path, content: bytes) -> bool:
    """Whether ``path`` holds the start of ``content`` and no whole notebook: a copy that stopped half-way."""
    if path.stat().st_size >= len(content):
        return False
    data = path.read_bytes()
    if not content.startswith(data):
        return False
    try:
        return not isinstance(json.loads(data), dict)
    except ValueError:
        return True


def _read_manifest(target: Path) -> dict[str, str]:
    path = target / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return {}  # subtle: a damaged manifest only means every existing chapter counts as edited: kept
    return data if isinstance(data, dict) else {}


def _offered(folder: Path, name: str, digest: str) -> Path | None:
    """The ``NN_name.updated[-k].ipynb`` that holds the chapter of sha256 ``digest`` already, if there is one."""
    stem, suffix = os.path.splitext(name)
    for path in sorted(folder.glob(f"{glob.escape(stem)}.updated*{glob.escape(suffix)}")):
        if re.fullmatch(rf"{re.escape(stem)}\.updated(-\d+)?{re.escape(suffix)}", path.name) and \
                sha256_file(path) == digest:
            return path
    return None


def _free_name(folder: Path, name: str, kind: str = "updated") -> Path:
    """``NN_name.updated.ipynb`` (or ``.damaged``), or ``.updated-2``, ``-3``, ... if the learner has such a file
    already."""
    stem, suffix = os.path.splitext(name)
    candidate, k = folder / f"{stem}.{kind}{suffix}", 1
    while candidate.exists():
        k += 1
        candidate = folder / f"{stem}.{kind}-{k}{suffix}"
    return candidate


def default_workspace(notebooks: Path, cwd: Path | None = None) -> Path:
    """``my_notebooks/`` in a clone of the course (git-ignored), else ``bpe-course-notebooks/`` here."""
    top = notebooks.parent
    if (top / ".git").exists() and (top / "pyproject.toml").is_file():
        return top / "my_notebooks"
    return (cwd or Path.cwd()) / "bpe-course-notebooks"
