"""The set-up files agree: pyproject.toml, environment.yml, Makefile, .ci/run and README."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_dependencies() -> set[str]:
    """Every package ``pip install -e .[dev]`` asks for (dev names the other extras)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    names = [*project["dependencies"], *(r for group in extras.values() for r in group)]
    return {_name(r) for r in names} - {"bpe-course"}


def test_dev_brings_every_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    itself = next(r for r in extras["dev"] if _name(r) == "bpe-course")
    assert set(itself[itself.index("[") + 1:itself.index("]")].split(",")) == set(extras) - {"dev"}


def environment_dependencies() -> set[str]:
    names, in_deps = set(), False
    for line in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
        elif in_deps and re.match(r"\s+- [A-Za-z]", line):
            names.add(_name(line.split("- ", 1)[1]))
    return names - {"python", "pip", "pip:"}


def test_environment_yml_lists_the_same_packages_as_pyproject():
    assert environment_dependencies() == pyproject_dependencies()


def test_the_interop_extra_brings_llama_models_pinned_and_no_torch():
    """llama-models' plain install keeps torch in its own extra; after make install neither torch nor any of
    its packages is here, and the files the registry hash-checks are those of the pinned version."""
    import importlib.metadata
    import importlib.util
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert "llama-models==0.3.0" in extras["interop"]
    assert importlib.metadata.version("llama-models") == "0.3.0"
    assert [m for m in ("torch", "torchvision", "fairscale") if importlib.util.find_spec(m) is not None] == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make lab" in readme
    assert re.search(r"^make test$", ci, re.M)


def test_makefile_sets_up_from_scratch():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-m venv" in makefile and 'pip install -q -e ".[dev]"' in makefile
    assert re.search(r"^test: \$\(STAMP\)", makefile, re.M) and re.search(r"^lab: \$\(STAMP\)", makefile, re.M)


def _fake_bin(folder: Path, **scripts: str) -> dict[str, str]:
    """A PATH of stand-in commands (``name -> shell body``) plus the shell's own tools, nothing else."""
    import os
    import shutil
    folder.mkdir()
    for name, body in scripts.items():
        (folder / name).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name).chmod(0o755)
    for tool in ("env", "id"):
        if not (folder / tool).exists():
            (folder / tool).symlink_to(shutil.which(tool))
    return {"PATH": str(folder), "HOME": os.environ.get("HOME", "/tmp")}


def test_make_test_installs_chromium_when_missing(tmp_path):
    """make test's first step installs Chromium with apt-get when none is there, and does nothing when one is."""
    import subprocess
    log = tmp_path / "apt.log"
    script = ["/bin/bash", str(ROOT / "tools" / "install_chromium.sh")]
    env = _fake_bin(tmp_path / "bin", **{"apt-get": f'echo "$*" >> {log}', "id": "echo 0"})
    done = subprocess.run(script, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["update -qq", "install -y -qq chromium"]

    log.unlink()
    env = _fake_bin(tmp_path / "bin2", **{"apt-get": f'echo "$*" >> {log}', "chromium": "exit 0"})
    assert subprocess.run(script, env=env, capture_output=True).returncode == 0 and not log.exists()

    env = _fake_bin(tmp_path / "bin3")  # no Chromium, no apt-get: a clear failure, never a silent pass
    done = subprocess.run(script, env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "BPE_COURSE_CHROMIUM" in done.stderr
    assert re.search(r"^test: \$\(STAMP\) browser$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
