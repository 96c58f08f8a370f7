"""A wheel built from this repository works with no clone in reach: corpora, GPT-2, cl100k and the chapters.

Builds the wheel, installs it with only its core dependencies into a new virtualenv, and runs it
from an empty folder with a clean environment, so nothing of the clone can be imported or read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds and installs the wheel: make quick leaves it out

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import json, sys
import bpe_course
from bpe_course import corpus, gpt2, cl100k
assert "site-packages" in bpe_course.__file__, bpe_course.__file__
text = corpus.load("python_docs")
train, heldout = corpus.train_heldout("python_docs")
print(json.dumps({"module": bpe_course.__file__, "docs": len(text), "heldout": len(heldout),
                  "gpt2": gpt2().encode("Hello world"), "cl100k": cl100k().encode("Hello world"),
                  "udhr": len(corpus.udhr("tam")), "heavy": sorted(m for m in sys.modules
                  if m.split(".")[0] in ("pandas", "matplotlib", "ipywidgets", "jupyterlab", "tiktoken", "tokenizers"))}))
"""


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel, built verbosely once: ``(its path, everything the build printed)``."""
    wheels = tmp_path_factory.mktemp("wheels")
    done = run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(wheels), str(ROOT)], ROOT,
               dict(os.environ))
    return next(wheels.glob("bpe_course-*.whl")), done.stdout + done.stderr


def test_the_build_is_quiet_and_the_wheel_holds_every_data_file_and_chapter(built):
    wheel, log = built
    # setuptools' warnings for folders of data it was not told about (~70 lines each time a learner installs)
    for warning in ("would be ignored", "is absent from the `packages` configuration", "SetuptoolsDeprecationWarning"):
        assert warning not in log, f"the build warns: {warning!r}"
    inside = set(zipfile.ZipFile(wheel).namelist())
    data = {f"bpe_course/data/{p.relative_to(ROOT / 'data').as_posix()}" for p in (ROOT / "data").rglob("*")
            if p.is_file() and not p.name.startswith(".")}
    chapters = {f"bpe_course/notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    chapters.add("bpe_course/docs/references.md")  # chapters link to it; bpe-course lab copies it beside them
    assert any("/udhr/" in name for name in data) and any("/languages/" in name for name in data)
    assert data <= inside, sorted(data - inside)
    assert chapters <= inside, sorted(chapters - inside)


def test_a_wheel_installed_elsewhere_has_the_corpora_gpt2_cl100k_and_the_chapters(tmp_path, built):
    empty, env_dir = tmp_path / "empty", tmp_path / "venv"
    empty.mkdir()
    wheel = built[0]
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    run([str(python), "-m", "pip", "install", "-q", str(wheel)], empty, clean)  # the core dependencies only

    found = json.loads(run([str(python), "-c", CHECK], empty, clean).stdout)
    assert found["docs"] == len((ROOT / "data" / "python_docs.txt").read_text(encoding="utf-8"))
    assert found["gpt2"] == [15496, 995] and found["cl100k"] == [9906, 1917]
    assert found["udhr"] == 31 and found["heavy"] == []

    work = empty / "D"
    bpe_course = env_dir / "bin" / "bpe-course"
    run([str(bpe_course), "lab", "--dry-run", "--dir", str(work)], empty, clean)
    chapters = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(p.name for p in work.glob("*.ipynb")) == chapters
    assert (work / "references.md").read_bytes() == (ROOT / "docs" / "references.md").read_bytes()
    start = work / "00_start_here.ipynb"
    start.write_text(start.read_text(encoding="utf-8").replace("Start here", "Start here (my notes)"), encoding="utf-8")
    again = run([str(bpe_course), "lab", "--dry-run", "--dir", str(work)], empty, clean)
    assert "Start here (my notes)" in start.read_text(encoding="utf-8")
    assert again.stdout.split()[-1] == str(work)
