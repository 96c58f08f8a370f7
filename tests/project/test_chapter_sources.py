"""Each stored chapter holds exactly its source's cells, and every source is plain Python.

The course text lives in ``chapters/NN_name.py`` (percent format); ``tools/build_notebooks.py`` turns it into
``notebooks/NN_name.ipynb`` and executes it. An edit to one without rebuilding the other fails here, so the
text a learner opens is always the text a developer reviewed.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
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


VIEW_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebook_stores_the_state_of_every_widget_it_shows(source):
    """Opened before it is run, a chapter draws each widget from this state (JupyterLab would say "Error
    displaying widget: model not found" without it); only what the outputs show is kept, under stable ids."""
    notebook = json.loads((NOTEBOOKS / f"{source.stem}.ipynb").read_text(encoding="utf-8"))
    views = [o["data"][VIEW_MIME]["model_id"] for c in notebook["cells"] if c["cell_type"] == "code"
             for o in c["outputs"] if VIEW_MIME in o.get("data", {})]
    states = notebook["metadata"].get("widgets", {}).get(STATE_MIME, {}).get("state", {})
    rebuild = f"rebuild it with tools/build_notebooks.py {source.stem[:2]}"
    if not views:
        assert not states, f"{source.stem}: stores widget state but shows no widget; {rebuild}"
        return
    reached, queue = set(), list(views)
    while queue:
        model_id = queue.pop()
        assert model_id in states, f"{source.stem}: widget model {model_id} is shown but its state is not stored; {rebuild}"
        if model_id not in reached:
            reached.add(model_id)
            queue += [ref[len("IPY_MODEL_"):] for ref in _strings(states[model_id]) if ref.startswith("IPY_MODEL_")]
    assert reached == set(states), f"{source.stem}: stores {len(set(states) - reached)} models no output shows; {rebuild}"
    assert set(states) == {BUILD.uuid.uuid5(BUILD.uuid.NAMESPACE_URL, f"bpe-course/{source.stem}/{k}").hex
                           for k in range(len(states))}, f"{source.stem}: widget ids are not the stable ones; {rebuild}"


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


NAVIGATION = re.compile(r"^\[[^\]]+\]\(\d\d_\w+\.ipynb\)( · \[[^\]]+\]\(\d\d_\w+\.ipynb\))*$")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_chapter_ends_with_the_navigation_it_starts_with(source):
    """A learner at the end of a chapter finds the same previous / start / next links as at its top."""
    cells = BUILD.parse_cells(source.read_text(encoding="utf-8"))
    top = [line for line in cells[0][1].splitlines() if NAVIGATION.match(line)]
    assert top, f"{source.name}: no navigation line under the title"
    kind, text = cells[-1]
    assert kind == "markdown" and text.splitlines()[-1] == top[0], \
        f"{source.name} does not end with its navigation line: {top[0]}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_after_run_all_every_untouched_exercise_is_your_turn(source):
    """Stored after Run All, each exercise still holds its starter: it says "✏️ Your turn", never "❌ Not yet"."""
    notebook = json.loads((NOTEBOOKS / f"{source.stem}.ipynb").read_text(encoding="utf-8"))
    outputs = ["".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")) for c in notebook["cells"]
               if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [text for text in outputs if "❌ Not yet" in text], \
        f"{source.stem} shows '❌ Not yet' after Run All; rebuild it with tools/build_notebooks.py {source.stem[:2]}"
