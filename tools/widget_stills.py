"""Still pictures of the chapters' widgets, for the course website (``make site``).

A widget needs a running kernel, or its state. The stored notebooks keep a pointer to each widget (an
``application/vnd.jupyter.widget-view+json`` output naming a model id), a one-line text repr, and the
widgets' state as it stood when the whole run ended (for JupyterLab; ``tools/build_notebooks.py``), not
right after each widget's own cell, which is what a still shows; the website drops that state and
draws stills instead. This script runs a temporary copy of each chapter that has a widget, exactly
as stored, and records the state of every widget model right after the cell that displays it, i.e.
the widget's first state as a learner sees it under that cell. It writes one JSON file per chapter
to ``docs/site/widget_stills/``; ``tools/build_site.py`` draws each widget from it as static HTML
(:func:`render_still`) with a line saying that the widget is live in JupyterLab.

Each record carries a key: the sha256 of the cell's source and of the widget's stored text repr.
The website build refuses a notebook whose widget cell no longer matches its record, and names
this script as the fix.

Usage::

    python tools/widget_stills.py            # every chapter with a widget
    python tools/widget_stills.py 03 09      # chapters whose name starts with 03 or 09
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import html
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
STILLS = ROOT / "docs" / "site" / "widget_stills"
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
MODEL_REF = re.compile(r"^IPY_MODEL_(.+)$")
# subtle: these state keys only tell a browser which JavaScript class to load; a still needs none of them.
DROPPED_KEYS = ("_model_module", "_model_module_version", "_view_module", "_view_module_version",
                "_view_count", "_view_name", "tabbable", "tooltip", "comm_id")


class StillError(Exception):
    """A widget still is missing, stale or cannot be drawn; the message says which and what to do."""


# --------------------------------------------------------------------------- which outputs are widgets


def cell_widgets(cell: dict) -> Iterator[tuple[int, int, dict]]:
    """``(k, output index, output)`` for the k-th widget view output of a cell.

    subtle: records use ``k``, not the output index: nbclient merges neighbouring stream outputs
    after a cell runs, which moves the indices of the outputs after them.
    """
    views = [(oi, o) for oi, o in enumerate(cell.get("outputs", [])) if VIEW_MIME in o.get("data", {})]
    for k, (oi, output) in enumerate(views):
        yield k, oi, output


def widget_outputs(nb: nbformat.NotebookNode) -> Iterator[tuple[int, int, int, dict]]:
    """``(cell index, k, output index, output)`` for every widget view output of a notebook, in order."""
    for ci, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for k, oi, output in cell_widgets(cell):
                yield ci, k, oi, output


def still_key(source: str, text_repr: str) -> str:
    """What a still depends on that the stored notebook shows: the cell's code and the widget's repr.

    >>> still_key("slider", "IntSlider(value=3)") == still_key("slider", "IntSlider(value=3)")
    True
    >>> still_key("slider", "IntSlider(value=3)") == still_key("slider", "IntSlider(value=4)")
    False
    """
    return hashlib.sha256(f"{source}\0{text_repr}".encode()).hexdigest()


def stills_path(notebook_name: str, stills_dir: Path = STILLS) -> Path:
    return stills_dir / f"{Path(notebook_name).stem}.json"


# --------------------------------------------------------------------------- capturing states


def _refs(value: Any) -> Iterator[str]:
    """Every model id referenced (as ``"IPY_MODEL_<id>"``) anywhere inside a state value."""
    if isinstance(value, str):
        match = MODEL_REF.match(value)
        if match:
            yield match.group(1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _refs(item)


def _rename(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        match = MODEL_REF.match(value)
        return f"IPY_MODEL_{names[match.group(1)]}" if match and match.group(1) in names else value
    if isinstance(value, dict):
        return {k: _rename(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rename(v, names) for v in value]
    return value


def snapshot(view_id: str, states: dict[str, dict], buffers: dict[str, dict]) -> dict:
    """The models reachable from ``view_id``, renamed ``m0, m1, ...`` in visiting order (stable diffs).

    >>> states = {"a": {"_model_name": "VBoxModel", "children": ["IPY_MODEL_b"]},
    ...           "b": {"_model_name": "HTMLModel", "value": "<b>hi</b>", "_view_count": None}}
    >>> snapshot("a", states, {})["models"]
    {'m0': {'_model_name': 'VBoxModel', 'children': ['IPY_MODEL_m1']}, 'm1': {'_model_name': 'HTMLModel', 'value': '<b>hi</b>'}}
    """
    order, seen, queue = [], {view_id}, [view_id]
    while queue:
        model_id = queue.pop(0)
        if model_id not in states:
            raise StillError(f"widget model {model_id} was referenced but never sent by the kernel")
        order.append(model_id)
        for ref in _refs(states[model_id]):
            if ref not in seen:
                seen.add(ref)
                queue.append(ref)
    names = {model_id: f"m{i}" for i, model_id in enumerate(order)}
    models, kept_buffers = {}, {}
    for model_id in order:
        # None is every optional property's default: leaving it out keeps the files small.
        state = {k: v for k, v in sorted(states[model_id].items()) if k not in DROPPED_KEYS and v is not None}
        models[names[model_id]] = _rename(copy.deepcopy(state), names)
        if buffers.get(model_id):
            kept_buffers[names[model_id]] = [dict(b) for b in buffers[model_id].values()]
    return {"view": "m0", "models": models, "buffers": kept_buffers}


def capture(notebook: Path, timeout: int = 600) -> dict:
    """Run a temporary copy of ``notebook`` and snapshot each widget right after its cell ran."""
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    stills: list[dict] = []

    with tempfile.TemporaryDirectory(prefix="bpe-stills-") as tmp:
        workdir = Path(tmp) / "notebooks"
        # subtle: chapters read and write files next to themselves; run in a copy, never in notebooks/.
        shutil.copytree(notebook.parent, workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                                resources={"metadata": {"path": str(workdir)}})

        def on_cell_executed(cell, cell_index: int, execute_reply) -> None:
            for k, _, output in cell_widgets(cell):
                view_id = output["data"][VIEW_MIME]["model_id"]
                record = {"cell_id": cell.get("id"), "cell_index": cell_index, "widget_index": k,
                          "key": still_key(cell.source, output["data"].get("text/plain", ""))}
                record.update(snapshot(view_id, client.widget_state, client.widget_buffers))
                stills.append(record)

        client.on_cell_executed = on_cell_executed
        client.execute()
    return {"notebook": notebook.name, "stills": stills}


def check_against_stored(captured: dict, stored: nbformat.NotebookNode) -> None:
    """The run must show the same widgets, in the same cells, as the stored notebook."""
    expected = [(stored.cells[ci].get("id"), k) for ci, k, _, _ in widget_outputs(stored)]
    got = [(s["cell_id"], s["widget_index"]) for s in captured["stills"]]
    if got != expected:
        raise StillError(f"{captured['notebook']}: the run displayed widgets at {got} but the stored notebook "
                         f"has them at {expected}; rebuild the notebook first (tools/build_notebooks.py)")


def write_stills(notebook: Path, stills_dir: Path = STILLS) -> Path:
    stored = nbformat.read(notebook, as_version=4)
    captured = capture(notebook)
    check_against_stored(captured, stored)
    for record, (ci, _, _, output) in zip(captured["stills"], widget_outputs(stored)):
        key = still_key(stored.cells[ci].source, output["data"].get("text/plain", ""))
        if record["key"] != key:
            # The record keeps the stored notebook's key; say so, as the still may not be what it shows.
            print(f"warning: {notebook.name}, cell {ci}: this run's widget repr differs from the stored one; "
                  f"if the chapter changed, rebuild it first (tools/build_notebooks.py)", file=sys.stderr)
            record["key"] = key
    path = stills_path(notebook.name, stills_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(captured, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- drawing a still as HTML


LIVE_LINE = ("A still picture of this widget as it stands right after this cell runs. "
             "The widget is live in JupyterLab: run <code>make lab</code>, open "
             "<code>{notebook}</code> (your own copy, in <code>my_notebooks/</code>) and run all cells.")


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


class StillRenderer:
    """Static HTML for a snapshot's widget tree: the same parts and values, nothing that moves.

    >>> still = {"view": "m0", "buffers": {}, "models": {
    ...     "m0": {"_model_name": "VBoxModel", "children": ["IPY_MODEL_m1", "IPY_MODEL_m2"]},
    ...     "m1": {"_model_name": "IntSliderModel", "description": "merges", "value": 5, "min": 0, "max": 10},
    ...     "m2": {"_model_name": "HTMLModel", "value": "<b>chips</b>", "_dom_classes": ["bpe-chips"]}}}
    >>> print(StillRenderer(still).html().replace("><", ">\\n<"))
    <div class="bpe-still-box bpe-still-vbox">
    <div class="bpe-still-widget bpe-still-slider">
    <span class="bpe-still-label">merges</span>
    <span class="bpe-still-track">
    <span class="bpe-still-fill" style="left:0.0%;width:50.0%">
    </span>
    <span class="bpe-still-handle" style="left:50.0%">
    </span>
    </span>
    <span class="bpe-still-readout">5</span>
    </div>
    <div class="bpe-still-widget bpe-still-html bpe-chips">
    <b>chips</b>
    </div>
    </div>
    """

    def __init__(self, still: dict) -> None:
        self.models: dict[str, dict] = still["models"]
        self.buffers: dict[str, list[dict]] = still.get("buffers", {})
        self.view: str = still["view"]

    def html(self) -> str:
        return self.render(self.view)

    def model(self, ref: str) -> dict:
        match = MODEL_REF.match(ref)
        name = match.group(1) if match else ref
        if name not in self.models:
            raise StillError(f"widget still refers to model {name!r}, which it does not contain")
        return self.models[name]

    def render(self, ref: str) -> str:
        state = self.model(ref)
        kind = state.get("_model_name", "?")
        draw = getattr(self, f"_draw_{kind.removesuffix('Model').lower()}", None)
        if draw is None:
            raise StillError(f"cannot draw a still of a {kind} widget yet: teach StillRenderer (tools/widget_stills.py)")
        return draw(ref.removeprefix("IPY_MODEL_"), state)

    # ---- helpers

    def _classes(self, state: dict, *own: str) -> str:
        return " ".join(["bpe-still-widget", *own, *state.get("_dom_classes", [])])

    def _style(self, state: dict) -> str:
        """The few Layout properties that change what a still looks like (sizes and margins)."""
        layout = self.model(state["layout"]) if isinstance(state.get("layout"), str) else {}
        rules = [f"{key.replace('_', '-')}:{layout[key]}" for key in
                 ("width", "max_width", "min_width", "height", "max_height", "margin", "padding")
                 if layout.get(key)]
        return f' style="{_esc(";".join(rules))}"' if rules else ""

    def _label(self, state: dict) -> str:
        text = state.get("description", "")
        return f'<span class="bpe-still-label">{_esc(text)}</span>' if text else ""

    def _wrap(self, state: dict, kind: str, inner: str) -> str:
        return f'<div class="{_esc(self._classes(state, kind))}"{self._style(state)}>{inner}</div>'

    # ---- containers

    def _box(self, state: dict, direction: str) -> str:
        children = "".join(self.render(child) for child in state.get("children", []))
        classes = " ".join(["bpe-still-box", f"bpe-still-{direction}", *state.get("_dom_classes", [])])
        return f'<div class="{_esc(classes)}"{self._style(state)}>{children}</div>'

    def _draw_vbox(self, _id: str, state: dict) -> str:
        return self._box(state, "vbox")

    def _draw_box(self, _id: str, state: dict) -> str:
        return self._box(state, "vbox")

    def _draw_hbox(self, _id: str, state: dict) -> str:
        return self._box(state, "hbox")

    # ---- text and HTML

    def _draw_html(self, _id: str, state: dict) -> str:
        # The widget's own HTML (chips, merge trees, tables), exactly as the kernel sent it.
        return self._wrap(state, "bpe-still-html", self._label(state) + state.get("value", ""))

    _draw_htmlmath = _draw_html

    def _draw_label(self, _id: str, state: dict) -> str:
        return self._wrap(state, "bpe-still-text-label", _esc(state.get("value", "")))

    def _draw_text(self, _id: str, state: dict) -> str:
        value = state.get("value", "") or state.get("placeholder", "")
        field = f'<span class="bpe-still-field">{_esc(value)}</span>'
        return self._wrap(state, "bpe-still-textbox", self._label(state) + field)

    def _draw_textarea(self, _id: str, state: dict) -> str:
        field = f'<span class="bpe-still-field bpe-still-area">{_esc(state.get("value", ""))}</span>'
        return self._wrap(state, "bpe-still-textarea", self._label(state) + field)

    # ---- controls

    def _draw_button(self, _id: str, state: dict) -> str:
        classes = ["bpe-still-button"]
        if state.get("button_style"):
            classes.append(f"bpe-still-button-{state['button_style']}")
        if state.get("disabled"):
            classes.append("bpe-still-disabled")
        return (f'<span class="{_esc(" ".join(classes + state.get("_dom_classes", [])))}"'
                f'{self._style(state)}>{_esc(state.get("description", ""))}</span>')

    def _draw_dropdown(self, _id: str, state: dict) -> str:
        labels, index = state.get("_options_labels", []), state.get("index")
        shown = labels[index] if isinstance(index, int) and 0 <= index < len(labels) else ""
        field = f'<span class="bpe-still-field bpe-still-select">{_esc(shown)}</span>'
        return self._wrap(state, "bpe-still-dropdown", self._label(state) + field)

    def _draw_togglebuttons(self, _id: str, state: dict) -> str:
        labels, index = state.get("_options_labels", []), state.get("index")
        buttons = "".join(f'<span class="bpe-still-button{" bpe-still-button-info" if k == index else ""}">'
                          f'{_esc(label)}</span>' for k, label in enumerate(labels))
        return self._wrap(state, "bpe-still-togglebuttons", self._label(state) + buttons)

    def _draw_selectionslider(self, _id: str, state: dict) -> str:
        labels, index = state.get("_options_labels", []), state.get("index") or 0
        last = max(len(labels) - 1, 1)
        shown = labels[index] if 0 <= index < len(labels) else ""
        inner = (self._label(state) + self._track(0, index, 0, last, [index])
                 + f'<span class="bpe-still-readout">{_esc(shown)}</span>')
        return self._wrap(state, "bpe-still-slider", inner)

    def _draw_boundedinttext(self, _id: str, state: dict) -> str:
        field = f'<span class="bpe-still-field">{_esc(state.get("value", ""))}</span>'
        return self._wrap(state, "bpe-still-textbox", self._label(state) + field)

    _draw_inttext = _draw_boundedinttext

    def _track(self, lo: float, hi: float, vmin: float, vmax: float, handles: list[float]) -> str:
        span = (vmax - vmin) or 1

        def pct(v: float) -> str:
            return f"{100 * (v - vmin) / span:.1f}%"

        parts = [f'<span class="bpe-still-fill" style="left:{pct(lo)};width:{100 * (hi - lo) / span:.1f}%"></span>']
        parts += [f'<span class="bpe-still-handle" style="left:{pct(h)}"></span>' for h in handles]
        return f'<span class="bpe-still-track">{"".join(parts)}</span>'

    def _draw_intslider(self, _id: str, state: dict) -> str:
        value, vmin, vmax = state.get("value", 0), state.get("min", 0), state.get("max", 100)
        inner = (self._label(state) + self._track(vmin, value, vmin, vmax, [value])
                 + f'<span class="bpe-still-readout">{_esc(value)}</span>')
        return self._wrap(state, "bpe-still-slider", inner)

    def _draw_floatslider(self, _id: str, state: dict) -> str:
        value, vmin, vmax = state.get("value", 0.0), state.get("min", 0.0), state.get("max", 1.0)
        shown = format(value, state.get("readout_format") or ".2f")  # as the slider's own readout writes it
        inner = (self._label(state) + self._track(vmin, value, vmin, vmax, [value])
                 + f'<span class="bpe-still-readout">{_esc(shown)}</span>')
        return self._wrap(state, "bpe-still-slider", inner)

    def _draw_checkbox(self, _id: str, state: dict) -> str:
        """A box, ticked or not, then its description.

        >>> StillRenderer({"view": "c", "models": {"c": {"_model_name": "CheckboxModel", "value": True,
        ...     "description": "␣ before it"}}}).html()
        '<div class="bpe-still-widget bpe-still-checkbox"><span class="bpe-still-tick">☑</span> ␣ before it</div>'
        """
        tick = "☑" if state.get("value") else "☐"
        return self._wrap(state, "bpe-still-checkbox",
                          f'<span class="bpe-still-tick">{tick}</span> {_esc(state.get("description", ""))}')

    def _draw_intrangeslider(self, _id: str, state: dict) -> str:
        (lo, hi), vmin, vmax = state.get("value", (0, 0)), state.get("min", 0), state.get("max", 100)
        inner = (self._label(state) + self._track(lo, hi, vmin, vmax, [lo, hi])
                 + f'<span class="bpe-still-readout">{_esc(lo)} – {_esc(hi)}</span>')
        return self._wrap(state, "bpe-still-slider", inner)

    _draw_floatrangeslider = _draw_intrangeslider

    def _draw_floatprogress(self, _id: str, state: dict) -> str:
        value, vmin, vmax = state.get("value", 0), state.get("min", 0), state.get("max", 100)
        fraction = 0.0 if vmax == vmin else max(0.0, min(1.0, (value - vmin) / (vmax - vmin)))
        style = state.get("bar_style") or "info"
        bar = (f'<span class="bpe-still-progress"><span class="bpe-still-progress-bar bpe-still-bar-{_esc(style)}" '
               f'style="width:{100 * fraction:.1f}%"></span></span>')
        return self._wrap(state, "bpe-still-progress-box", self._label(state) + bar)

    _draw_intprogress = _draw_floatprogress

    def _draw_image(self, model_id: str, state: dict) -> str:
        data = next((b["data"] for b in self.buffers.get(model_id, []) if b["path"] == ["value"]), None)
        if data is None:
            raise StillError(f"the still of Image widget {model_id} has no picture data")
        fmt = state.get("format", "png")
        size = "".join(f' {k}="{_esc(state[k])}"' for k in ("width", "height") if state.get(k))
        img = f'<img alt="the widget\'s picture" src="data:image/{_esc(fmt)};base64,{data}"{size}>'
        return self._wrap(state, "bpe-still-image", img)


def render_still(still: dict, notebook_name: str) -> str:
    """The still's HTML inside a figure, with the line saying where the widget is live."""
    body = StillRenderer(still).html()
    line = LIVE_LINE.format(notebook=_esc(notebook_name))
    return (f'<figure class="bpe-widget-still">\n<div class="bpe-widget-still-body">{body}</div>\n'
            f'<figcaption class="bpe-widget-still-caption">{line}</figcaption>\n</figure>\n')


def load_stills(notebook_name: str, stills_dir: Path = STILLS) -> dict[tuple[str, int], dict]:
    """``{(cell id, k): record}`` for one chapter (k: the k-th widget of the cell); empty if no file."""
    path = stills_path(notebook_name, stills_dir)
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(s["cell_id"], s["widget_index"]): s for s in data["stills"]}


def replace_widget_outputs(nb: nbformat.NotebookNode, notebook_name: str, stills_dir: Path = STILLS) -> int:
    """Swap each widget view output of ``nb`` (a copy) for its still; return how many were swapped.

    Raises :class:`StillError`, naming the notebook, the cell and the command to run, if a still is
    missing or was recorded for different code.
    """
    stills = load_stills(notebook_name, stills_dir)
    fix = f"run `python tools/widget_stills.py {notebook_name[:2]}` to record it again"
    swapped = 0
    for ci, k, oi, output in list(widget_outputs(nb)):
        cell = nb.cells[ci]
        record = stills.get((cell.get("id"), k))
        where = f"{notebook_name}, cell {ci} (id {cell.get('id')}), output {oi}"
        if record is None:
            raise StillError(f"{where}: no widget still in {stills_path(notebook_name, stills_dir)}; {fix}")
        if record["key"] != still_key(cell.source, output["data"].get("text/plain", "")):
            raise StillError(f"{where}: the widget still was recorded for other code or another first state; {fix}")
        cell.outputs[oi] = nbformat.v4.new_output(
            "display_data", data={"text/html": render_still(record, notebook_name)}, metadata={})
        swapped += 1
    return swapped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="only chapters whose name starts with one of these")
    args = parser.parse_args(argv)
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.prefixes:
        notebooks = [nb for nb in notebooks if nb.name.startswith(tuple(args.prefixes))]
    with_widgets = [p for p in notebooks if any(widget_outputs(nbformat.read(p, as_version=4)))]
    if not with_widgets:
        print(f"no chapter with a widget matched {args.prefixes or 'any'}", file=sys.stderr)
        return 2
    for path in with_widgets:
        started = time.perf_counter()
        out = write_stills(path)
        print(f"{path.name}: {out.relative_to(ROOT)} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
