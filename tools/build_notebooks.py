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
from pathlib import Path

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
    seconds = 0.0
    if run:
        started = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(OUT)}}).execute()
        seconds = time.perf_counter() - started
    # Stable ids keep diffs small between rebuilds.
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{src.stem[:2]}-{i:03d}"
    nb.metadata.pop("widgets", None)
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
