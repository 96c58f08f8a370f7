"""Build the stored chapters from their sources, then execute them.

Each chapter's source is a plain Python file in ``chapters/`` written in the
"percent" cell format::

    # %% [markdown]
    # # A heading
    # Some prose.

    # %%
    print("a code cell")

    # %% [hide-input]
    print(f"a sentence composed from {n} numbers")  # shown collapsed: the reader reads the output

A ``[hide-input]`` cell is stored with its source collapsed (``jupyter.source_hidden``) and the
``hide-input`` tag, which JupyterLab and a static site both honour.

This script turns every source into ``notebooks/<same name>.ipynb`` and executes
it top to bottom in a fresh kernel (working directory ``notebooks/``), so the
stored notebook is exactly a clean "Restart & Run All". nbval then re-runs it
in CI and compares.

The stored notebook keeps the state of every widget it shows, as it stood when the run ended
(the notebook metadata ``widgets``, ipywidgets' ``application/vnd.jupyter.widget-state+json``),
so JupyterLab draws each widget of a chapter that was opened but not run yet, instead of
"Error displaying widget: model not found" (:func:`keep_shown_widgets`). Models no output shows
are left out, and the ids are renamed after the chapter and their order, so a rebuild changes
only what really changed.

Usage::

    python tools/build_notebooks.py            # every chapter
    python tools/build_notebooks.py 03 07      # chapters whose name starts with 03 or 07
    python tools/build_notebooks.py --no-run 03  # write the .ipynb without executing
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "chapters"
OUT = ROOT / "notebooks"
# A code cell marked "[hide-input]" (or jupytext's 'tags=["hide-input"]') is stored with its source hidden.
CELL_MARK = re.compile(r'^# %%(?:\s*\[(?P<kind>markdown|hide-input)\]|\s+tags=\["(?P<tag>hide-input)"\])?\s*$')


def parse_cells(source: str) -> list[tuple[str, str]]:
    """Split percent-format text into ``(kind, text)`` cells; ``kind`` is markdown, code or hidden
    (a code cell marked ``# %% tags=["hide-input"]``, e.g. one that writes sentences about numbers).

    >>> parse_cells("# %% [markdown]\\n# # Title\\n# prose\\n\\n# %%\\nx = 1\\n# %% [hide-input]\\nprint(x)\\n")
    [('markdown', '# Title\\nprose'), ('code', 'x = 1'), ('hide-input', 'print(x)')]
    """
    cells: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        mark = CELL_MARK.match(line)
        if mark:
            cells.append((mark.group("kind") or mark.group("tag") or "code", []))
        elif cells:
            cells[-1][1].append(line)
    out = []
    for kind, lines in cells:
        if kind == "markdown":
            # subtle: "#" alone is an empty prose line; "# text" loses exactly one space.
            lines = [l[2:] if l.startswith("# ") else l.lstrip("#") for l in lines]
        text = "\n".join(lines).strip("\n")
        if text:
            out.append((kind, text))
    return out


VIEW_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"
MODEL_REF = re.compile(r"^IPY_MODEL_(.+)$")


def _refs(value: Any) -> Iterator[str]:
    """The model ids a widget state refers to (``"IPY_MODEL_<id>"``), wherever they stand in it."""
    if isinstance(value, str):
        if match := MODEL_REF.match(value):
            yield match.group(1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        match = MODEL_REF.match(value)
        return f"IPY_MODEL_{names[match.group(1)]}" if match and match.group(1) in names else value
    if isinstance(value, dict):
        return {k: _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value


def keep_shown_widgets(nb: nbformat.NotebookNode, stem: str) -> int:
    """Keep in ``nb.metadata.widgets`` the state of each widget an output shows (and of the models it holds:
    its children, layouts, styles), renamed ``uuid5(stem, k)`` in the order they are met; return how many.

    subtle: nbclient saves every model the kernel ever made, including those of a widget driven from
    code and never shown; they are dropped, and a notebook without a shown widget has no ``widgets``.

    >>> nb = nbformat.v4.new_notebook()
    >>> nb.cells = [nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output(
    ...     "display_data", data={VIEW_MIME: {"model_id": "a1", "version_major": 2, "version_minor": 0}})])]
    >>> nb.metadata["widgets"] = {STATE_MIME: {"version_major": 2, "version_minor": 0, "state": {
    ...     "a1": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_b2"]}},
    ...     "b2": {"model_name": "HTMLModel", "state": {"value": "hi"}},
    ...     "c3": {"model_name": "HTMLModel", "state": {"value": "never shown"}}}}}
    >>> keep_shown_widgets(nb, "03_x")
    2
    >>> first = nb.cells[0].outputs[0]["data"][VIEW_MIME]["model_id"]
    >>> state = nb.metadata["widgets"][STATE_MIME]["state"]
    >>> first == uuid.uuid5(uuid.NAMESPACE_URL, "bpe-course/03_x/0").hex, len(state)
    (True, 2)
    >>> state[first]["state"]["children"] == ["IPY_MODEL_" + uuid.uuid5(uuid.NAMESPACE_URL, "bpe-course/03_x/1").hex]
    True
    """
    saved = nb.metadata.pop("widgets", {}).get(STATE_MIME, {})
    states = saved.get("state", {})
    views = [output["data"][VIEW_MIME] for cell in nb.cells if cell.cell_type == "code"
             for output in cell.get("outputs", []) if VIEW_MIME in output.get("data", {})]
    order: list[str] = []
    queue = [view["model_id"] for view in views]
    seen = set(queue)
    while queue:
        model_id = queue.pop(0)
        if model_id not in states:
            raise RuntimeError(f"{stem}: an output shows widget model {model_id}, whose state the run did not save")
        order.append(model_id)
        for ref in _refs(states[model_id]):
            if ref not in seen:
                seen.add(ref)
                queue.append(ref)
    if not order:
        return 0
    names = {model_id: uuid.uuid5(uuid.NAMESPACE_URL, f"bpe-course/{stem}/{k}").hex for k, model_id in enumerate(order)}
    for view in views:
        view["model_id"] = names[view["model_id"]]
    nb.metadata["widgets"] = {STATE_MIME: {"version_major": saved.get("version_major", 2),
                                           "version_minor": saved.get("version_minor", 0),
                                           "state": {names[m]: _renamed(states[m], names) for m in order}}}
    return len(order)


def build(src: Path, run: bool = True, timeout: int = 600) -> float:
    """Write ``notebooks/<src.stem>.ipynb`` from ``src``; execute it; return seconds taken."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, text in parse_cells(src.read_text(encoding="utf-8")):
        if kind == "markdown":
            nb.cells.append(new_markdown_cell(text))
        elif kind == "hide-input":
            nb.cells.append(new_code_cell(text, metadata={"jupyter": {"source_hidden": True}, "tags": ["hide-input"]}))
        else:
            nb.cells.append(new_code_cell(text))
    # Stable ids keep diffs small between rebuilds.
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{src.stem[:2]}-{i:03d}"
    seconds = 0.0
    if run:
        # subtle: the cells are stored before they run: an exercise's checker tells a starter from an answer
        # by finding its cell, as shipped, among the stored chapters' cells (bpe_course.exercises.feedback)
        nbformat.write(nb, OUT / f"{src.stem}.ipynb")
        started = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(OUT)}}).execute()
        seconds = time.perf_counter() - started
    keep_shown_widgets(nb, src.stem)
    nbformat.write(nb, OUT / f"{src.stem}.ipynb")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="only chapters whose name starts with one of these")
    parser.add_argument("--no-run", action="store_true", help="write notebooks without executing them")
    args = parser.parse_args(argv)
    sources = sorted(SRC.glob("*.py"))
    if args.prefixes:
        sources = [s for s in sources if s.name.startswith(tuple(args.prefixes))]
    if not sources:
        print(f"no chapter sources matched {args.prefixes} in {SRC}", file=sys.stderr)
        return 2
    for src in sources:
        seconds = build(src, run=not args.no_run)
        print(f"{src.stem}: {'written' if args.no_run else f'executed in {seconds:.1f} s'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
