"""A notebook opened in JupyterLab in a real browser, with the few moves the tests need.

Run All through the menu bar (Lab has no default shortcut for it), wait for the last cell,
find widgets by their ``bpe-...`` CSS classes, drive sliders and text boxes the way a person
does, collect the browser console's errors, and take element screenshots.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import BrowserContext, Locator, Page, expect

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "artifacts"
README_IMAGES = REPO / "docs" / "images"
UPDATE_SCREENSHOTS = "BPE_COURSE_UPDATE_SCREENSHOTS"  # set to 1 to rewrite docs/images/*.png
# How long to wait for one widget round trip or page load (Run All gets 3x): generous, for a busy
# 2-core machine; raise it with BPE_COURSE_BROWSER_TIMEOUT=<seconds> on a slower one.
TIMEOUT_MS = int(float(os.environ.get("BPE_COURSE_BROWSER_TIMEOUT", "90")) * 1000)
expect.set_options(timeout=TIMEOUT_MS)

# Console errors known to say nothing about the course, each with a comment saying why; any
# other error fails the test. None has been seen with JupyterLab 4.6 + ipywidgets 8.1 + Chromium 156.
HARMLESS_CONSOLE_ERRORS: list[re.Pattern[str]] = []
# An exception in a cell's output: a traceback, or a bare "SomeError: ..." line (syntax errors).
EXCEPTION_TEXT = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception|Interrupt)\b", re.M)




def prompts_are(condition: str) -> str:
    """A JS function: is ``condition`` true of ``prompts``, the visible notebook's code-cell prompt texts?"""
    return ("() => { const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
            ".jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim()); return " + condition + "; }")


@dataclass
class LabServer:
    """Where the test server listens, its token, and the notebook copy it serves."""

    base: str
    token: str
    notebooks: Path
    log_path: Path

    def api(self, path: str) -> str:
        return f"{self.base}/api/{path}?token={self.token}"

    def request(self, method: str, path: str) -> object:
        req = urllib.request.Request(self.api(path), method=method)
        with urllib.request.urlopen(req, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


@dataclass
class LabPage:
    """One notebook open in its own browser tab."""

    lab: LabServer
    page: Page
    name: str
    console_errors: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def open(cls, lab: LabServer, browser: BrowserContext, name: str) -> LabPage:
        """Open ``name`` in Lab and wait until its kernel is started and idle."""
        started = time.monotonic()
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        opened = cls(lab, page, name)
        opened.timings["start"] = started
        page.on("pageerror", lambda error: opened.console_errors.append(f"pageerror: {error}"))
        page.on("console", lambda msg: opened.console_errors.append(f"console.error: {msg.text}")
                if msg.type == "error" else None)
        page.goto(f"{lab.base}/lab/tree/{name}?token={lab.token}&reset")  # reset: no saved layout
        expect(opened.notebook.locator(".jp-Cell").first).to_be_visible()
        # subtle: the toolbar's execution indicator says "idle" before the kernel even exists; Run
        # All clicked then races the session start-up and opens a "Select Kernel" dialog. The
        # status bar's kernel name only shows once the kernel is really there.
        expect(page.locator(".jp-StatusBar-Widget").filter(has_text=re.compile(r"Python 3 \(ipykernel\) \| Idle"))
               ).to_have_count(1)
        opened.timings["open"] = time.monotonic() - started
        return opened

    @property
    def notebook(self) -> Locator:
        """The visible notebook panel (everything a test looks for lives inside it)."""
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")

    def run_all(self) -> None:
        """Run > Run All Cells, then wait until every code cell has run, and check none raised."""
        started = time.monotonic()
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        self.page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        # subtle: the stored notebook already shows "[n]:" everywhere, so first wait for the run to
        # start (queued cells show "[*]:"), then for no cell to be queued or running any more (an
        # exception stops Run All, leaving the cells after it unrun).
        self.page.wait_for_function(prompts_are("prompts.some(text => text === '[*]:')"))
        self.page.wait_for_function(prompts_are("!prompts.some(text => text === '[*]:')"), timeout=3 * TIMEOUT_MS)
        expect(self.page.locator(".jp-Dialog")).to_have_count(0)  # no stray "Select Kernel" dialog
        # subtle: Lab 4 renders an exception as a stderr output, so look for the traceback's text.
        stderr = self.notebook.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        tracebacks = [text for text in stderr.all_inner_texts() if EXCEPTION_TEXT.search(text)]
        assert not tracebacks, f"{self.name}: Run All raised:\n" + "\n".join(tracebacks)
        prompts = self.page.evaluate(prompts_are("prompts"))
        assert all(re.fullmatch(r"\[\d+\]:", text) for text in prompts), f"{self.name}: not every cell ran: {prompts}"
        self.timings["run_all"] = time.monotonic() - started

    def widget(self, css_class: str) -> Locator:
        """The rendered widget views carrying ``css_class`` (e.g. ``bpe-merge-slider``)."""
        return self.notebook.locator(f".jp-OutputArea-output .{css_class}")

    def set_slider_by_keys(self, slider: Locator, key: str, presses: int, handle: int = 0) -> None:
        """Focus a slider handle (noUiSlider) and press an arrow key, one step per press."""
        knob = slider.locator(".noUi-handle").nth(handle)
        knob.focus()
        for _ in range(presses):
            knob.press(key)

    def type_into_readout(self, slider: Locator, text: str) -> None:
        """Type a value into a slider's readout (a contenteditable div in ipywidgets 8), then Enter."""
        slider.locator(".widget-readout").click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")
        slider.locator(".widget-readout").evaluate("readout => readout.blur()")  # as clicking elsewhere

    def unexpected_console_errors(self) -> list[str]:
        return [e for e in self.console_errors if not any(p.search(e) for p in HARMLESS_CONSOLE_ERRORS)]

    def assert_no_console_errors(self) -> None:
        errors = self.unexpected_console_errors()
        assert not errors, f"{self.name}: browser console errors:\n" + "\n".join(errors)

    def screenshot(self, locator: Locator, name: str, readme_image: str | None = None) -> Path:
        """Save an element screenshot to tests/artifacts/; with $BPE_COURSE_UPDATE_SCREENSHOTS=1, also
        (re)write docs/images/<readme_image>. Element shots, because Lab scrolls inside its panel."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(path), animations="disabled")
        if readme_image and os.environ.get(UPDATE_SCREENSHOTS) == "1":
            README_IMAGES.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, README_IMAGES / readme_image)
        return path

    def close(self) -> None:
        """Close the tab and shut the notebook's kernel down (it holds corpora and tokenizers)."""
        spent = {k: f"{v:.1f} s" for k, v in self.timings.items() if k != "start"}
        print(f"[browser] {self.name}: {spent}, in all {time.monotonic() - self.timings['start']:.1f} s")
        try:
            for session in self.lab.request("GET", "sessions"):
                if session.get("path") == self.name:
                    self.lab.request("DELETE", f"sessions/{session['id']}")
        finally:
            self.page.close()


# ---- reading what the page shows, and what the notebook was told to do -----------------------

def chip_labels(chips: Locator) -> list[str]:
    """The text on every token chip (``bpe_course.viz.token_label`` of each token) under ``chips``."""
    return chips.locator(".bpe-chip").all_inner_texts()


def chip_ids(chips: Locator) -> list[int]:
    """The ids behind the chips, read from their ``title="id N"`` tooltips."""
    titles = chips.locator(".bpe-chip").evaluate_all("spans => spans.map(s => s.getAttribute('title'))")
    assert all(t and t.startswith("id ") for t in titles), titles
    return [int(t.removeprefix("id ")) for t in titles]


def notebook_constants(name: str) -> dict[str, object]:
    """The literal settings a chapter's code cells assign at top level (``CORPUS = "python_docs"``,
    ``VOCAB_SIZE = 600``, ...), read from the stored notebook so a test follows the chapter's config.

    subtle: only assignments of literals count (``ast.literal_eval``); nothing is executed, and the
    first assignment of a name wins, as it is the config cell near the top.
    """
    import ast

    import nbformat

    constants: dict[str, object] = {}
    notebook = nbformat.read(REPO / "notebooks" / name, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:  # IPython magics
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    constants.setdefault(node.targets[0].id, ast.literal_eval(node.value))
                except ValueError:
                    pass
    return constants


def eventually(check, timeout_s: float = TIMEOUT_MS / 1000, every_s: float = 0.2):
    """Call ``check()`` until it stops raising AssertionError (the page may still be updating)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(every_s)
