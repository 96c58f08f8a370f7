"""Each stored chapter holds exactly its source's cells, and every source is plain Python.

The course text lives in ``chapters/NN_name.py`` (percent format); ``tools/build_notebooks.py`` turns it into
``notebooks/NN_name.ipynb`` and executes it. An edit to one without rebuilding the other fails here, so the
text a learner opens is always the text a developer reviewed.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"
NOTEBOOKS = ROOT / "notebooks"


def _build_module():
    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _build_module()
SOURCES = sorted(CHAPTERS.glob("*.py"))


def stored_cells(path: Path) -> list[tuple[str, str]]:
    """The ``(kind, text)`` of each cell of a stored notebook, in the build script's terms."""
    cells = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            cells.append(("markdown", text))
            continue
        hidden = cell.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)
        tagged = "hide-input" in cell.get("metadata", {}).get("tags", [])
        assert hidden == tagged, f"{path.name}: a cell is collapsed without the hide-input tag, or the reverse"
        cells.append(("hide-input" if hidden else "code", text))
    return cells


def test_every_notebook_has_a_source_and_every_source_a_notebook():
    assert SOURCES, f"no chapter sources in {CHAPTERS}"
    assert {p.stem for p in SOURCES} == {p.stem for p in NOTEBOOKS.glob("*.ipynb")}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_source_is_valid_python(source):
    ast.parse(source.read_text(encoding="utf-8"), filename=str(source))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebook_holds_exactly_its_source(source):
    notebook = NOTEBOOKS / f"{source.stem}.ipynb"
    expected = BUILD.parse_cells(source.read_text(encoding="utf-8"))
    found = stored_cells(notebook)
    for i, (want, got) in enumerate(zip(expected, found)):
        assert want == got, (f"{notebook.name} cell {i} differs from {source.relative_to(ROOT)}: "
                             f"rebuild it with tools/build_notebooks.py {source.stem[:2]}")
    assert len(expected) == len(found), (f"{notebook.name} has {len(found)} cells, its source {len(expected)}: "
                                         f"rebuild it with tools/build_notebooks.py {source.stem[:2]}")


def test_a_changed_source_is_caught(tmp_path):
    """The comparison sees a one-character edit (so the test above can fail)."""
    source = SOURCES[0]
    cells = BUILD.parse_cells(source.read_text(encoding="utf-8"))
    edited = BUILD.parse_cells(source.read_text(encoding="utf-8").replace("# %% [markdown]\n# ", "# %% [markdown]\n#  x", 1))
    assert cells != edited
    assert cells == stored_cells(NOTEBOOKS / f"{source.stem}.ipynb")
