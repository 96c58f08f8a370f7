"""A chapter opened in JupyterLab and not run yet: each widget is drawn from the state stored with the
notebook (tools/build_notebooks.py keeps it), as it stood after the chapter's own Run All; never
"Error displaying widget: model not found", nor the widget's text repr.

The chapters are opened as a learner gets them: copied into a folder by ``bpe-course lab``'s
``prepare_workspace``, which marks them trusted in this JupyterLab's signature store (an untrusted
notebook's widgets are shown as text). What each widget shows is read from the notebook's own
stored state (the slider's value, the chips' HTML), so the test follows the chapter.
"""

from __future__ import annotations

import html
import json
import os
import re
from unittest import mock

import pytest
from playwright.sync_api import expect

from bpe_course.lab import prepare_workspace

from .lab_page import REPO, chip_labels, eventually

pytestmark = pytest.mark.browser

VIEW_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"


def stored(name: str) -> tuple[int, dict[str, dict]]:
    """How many widget views the stored notebook shows, and its stored widget states by model id."""
    nb = json.loads((REPO / "notebooks" / name).read_text(encoding="utf-8"))
    views = sum(VIEW_MIME in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"])
    return views, nb["metadata"].get("widgets", {}).get(STATE_MIME, {}).get("state", {})


def state_with_class(states: dict[str, dict], css_class: str) -> dict:
    (found,) = [s["state"] for s in states.values() if css_class in s["state"].get("_dom_classes", [])]
    return found


@pytest.fixture(scope="module")
def learner_folder(lab) -> str:
    """The chapters as ``bpe-course lab`` prepares them, inside the folder the test server serves."""
    data_dir = lab.notebooks.parent / "data"  # the server's JUPYTER_DATA_DIR (tests/browser/conftest.py)
    with mock.patch.dict(os.environ, {"JUPYTER_DATA_DIR": str(data_dir)}):
        prepare_workspace(REPO / "notebooks", lab.notebooks / "learner")
    return "learner"


@pytest.mark.parametrize("name, slider, chips", [
    ("03_training_loop.ipynb", "bpe-merge-slider", "bpe-chips"),
    ("16_what_a_tokenizer_does_to_a_model.ipynb", "bpe-mq-order", None),
    ("17_beyond_greedy_bpe.ipynb", "bpe-superbpe-transition", "bpe-superbpe-chips"),
])
def test_an_unrun_chapter_draws_its_widgets_from_the_stored_state(open_notebook, learner_folder, name, slider, chips):
    views, states = stored(name)
    assert views and states, f"{name} stores no widget state: rebuild it (tools/build_notebooks.py {name[:2]})"
    nb = open_notebook(f"{learner_folder}/{name}")  # opened, kernel idle, nothing run
    outputs = nb.notebook.locator(".jp-OutputArea-output")
    expect(nb.notebook.locator(f".jp-OutputArea-output .{slider}")).to_have_count(1)
    expect(outputs.filter(has_text="Error displaying widget")).to_have_count(0)
    expect(outputs.filter(has_text=re.compile(r"^\s*(VBox|HBox|Box)\(children="))).to_have_count(0)  # not the text repr
    expect(nb.notebook.locator(".jp-OutputArea-output .jupyter-widgets.widget-container")).not_to_have_count(0)
    want = state_with_class(states, slider)
    readout = nb.widget(slider).locator(".widget-readout")
    shown = want.get("_options_labels", [None])[want["index"]] if "index" in want else str(want["value"])
    expect(readout).to_have_text(shown)
    if chips:
        stored_html = state_with_class(states, chips)["value"]
        want_labels = [html.unescape(label) for label in re.findall(r'class="bpe-chip"[^>]*>([^<]*)<', stored_html)]
        assert want_labels

        def check() -> None:
            assert chip_labels(nb.widget(chips)) == want_labels

        eventually(check)
    nb.screenshot(nb.widget(slider).locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]"),
                  f"stored_{name[:2]}.png")
    nb.assert_no_console_errors()
