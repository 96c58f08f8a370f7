"""Where things are (bpe_course.resources): the corpora and chapters of a clone, the cache folder, and a
package face whose names load on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bpe_course.resources import data_dir, default_cache_dir, notebooks_dir

ROOT = Path(__file__).resolve().parents[1]


def test_in_a_clone_the_data_and_chapters_are_the_repositorys():
    assert data_dir() == ROOT / "data" and notebooks_dir() == ROOT / "notebooks"
    assert (data_dir() / "SHA256SUMS").is_file() and sorted(notebooks_dir().glob("*.ipynb"))


def test_the_cache_folder_follows_the_environment(tmp_path):
    assert default_cache_dir({"BPE_COURSE_CACHE": str(tmp_path)}) == tmp_path
    assert default_cache_dir({"BPE_COURSE_CACHE": "~/elsewhere"}) == Path.home() / "elsewhere"
    assert default_cache_dir({}) == default_cache_dir({"BPE_COURSE_CACHE": ""}) == Path.home() / ".cache" / "bpe-course"


LAZY = """import sys
import bpe_course.widgets as widgets
assert "ipywidgets" not in sys.modules and "bpe_course.widgets.playground" not in sys.modules
assert "Playground" in widgets.__all__ and "Playground" in dir(widgets)
playground = widgets.Playground
assert playground.__module__ == "bpe_course.widgets.playground" and "ipywidgets" in sys.modules
assert "bpe_course.widgets.token_tax" not in sys.modules  # only the module that holds the name
try:
    widgets.NoSuchWidget
except AttributeError as exc:
    print(exc)
"""


def test_a_lazy_face_imports_a_module_only_when_one_of_its_names_is_asked_for():
    done = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "module 'bpe_course.widgets' has no attribute 'NoSuchWidget'\n"


@pytest.mark.parametrize("package", ["bpe_course.algorithms", "bpe_course.widgets"])
def test_every_name_of_a_lazy_face_loads(package):
    import importlib
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
