"""Fixtures for the browser tests: one JupyterLab server and one headless Chromium per session.

Each pytest process (each xdist worker, too) starts its own server on a free port of 127.0.0.1,
with its config, runtime, data, settings and workspace directories under pytest's tmp, serving a
temporary copy of ``notebooks/`` so a test run never touches the stored chapters. Chromium is
Debian's (``/usr/bin/chromium``), driven by the Python ``playwright`` package; nothing is
downloaded. ``make test`` installs Chromium first (``tools/install_chromium.sh``); run any other
way without it, the tests fail with a hint: a browser test is never skipped.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
TOKEN = "bpe-course-browser-tests"
CHROME_ARGS = ["--no-sandbox",  # needed when running as root (CI containers)
               "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
ENABLE_HINT = ("browser tests need Debian's Chromium (`make test` installs it; by hand: `sudo apt-get install "
               "chromium`, or set BPE_COURSE_CHROMIUM to a Chromium binary), plus the `playwright` Python "
               "package from `pip install -e .[dev]`; to leave them out on purpose: --ignore=tests/browser")

try:
    import playwright.sync_api  # noqa: F401
except ImportError as missing:
    raise ImportError(f"the `playwright` package is not installed: {ENABLE_HINT}") from missing

from .lab_page import LabPage, LabServer  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a notebook's widgets in JupyterLab in headless Chromium")


def find_chromium() -> str | None:
    """The Chromium binary to use: $BPE_COURSE_CHROMIUM, else the first one found on this machine."""
    if os.environ.get("BPE_COURSE_CHROMIUM"):
        return os.environ["BPE_COURSE_CHROMIUM"]
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None or not os.access(path, os.X_OK):
        pytest.fail(f"no Chromium found; {ENABLE_HINT}", pytrace=False)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_user_settings(settings_dir: Path) -> None:
    """Per-run JupyterLab settings: no "Jupyter news?" pop-up, and every cell kept in the DOM."""
    settings = {"apputils-extension/notification": '{"fetchNews": "false"}',
                # subtle: with the default windowing, cells far below the viewport are not rendered
                "notebook-extension/tracker": '{"windowingMode": "none"}'}
    for name, text in settings.items():
        path = settings_dir / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server and every kernel it started: they share its process group."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="session")
def lab(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A JupyterLab server on 127.0.0.1 serving a temporary copy of notebooks/."""
    started = time.monotonic()
    root = tmp_path_factory.mktemp("lab")
    notebooks = root / "notebooks"
    shutil.copytree(NOTEBOOKS, notebooks, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    _write_user_settings(root / "user-settings")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTER_DATA_DIR=str(root / "data"),  # the venv's kernelspec is still found via sys.prefix
               IPYTHONDIR=str(root / "ipython"), JUPYTER_PLATFORM_DIRS="1")
    port = _free_port()
    log_path = root / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             "--allow-root",  # CI containers run as root
             f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={notebooks}",
             f"--LabApp.workspaces_dir={root / 'workspaces'}", f"--LabApp.user_settings_dir={root / 'user-settings'}",
             "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--LabApp.extension_manager=readonly"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = LabServer(f"http://127.0.0.1:{port}", TOKEN, notebooks, log_path)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(server.api("status"), timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{log_path.read_text()}") from None
                time.sleep(0.25)
        print(f"[browser] JupyterLab up in {time.monotonic() - started:.1f} s; its log: {log_path}")
        yield server
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def browser(chromium_path: str):
    """One headless Chromium and one browser context (so Lab's scripts are cached across tests)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROME_ARGS)
        context = chromium.new_context(viewport={"width": 1400, "height": 1000})
        yield context
        context.close()
        chromium.close()


@pytest.fixture
def open_notebook(lab: LabServer, browser) -> Iterator:
    """``open_notebook("03_training_loop.ipynb")`` -> a :class:`LabPage`, closed (kernel shut down) after the test."""
    pages: list[LabPage] = []

    def opener(name: str) -> LabPage:
        if not (lab.notebooks / name).exists():
            pytest.fail(f"notebooks/{name} does not exist: build it with tools/build_notebooks.py", pytrace=False)
        page = LabPage.open(lab, browser, name)
        pages.append(page)
        return page

    yield opener
    for page in pages:
        page.close()
