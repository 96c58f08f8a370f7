"""The set-up files agree: pyproject.toml, environment.yml, Makefile, .ci/run and README."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make lab" in readme
    assert re.search(r"^make test$", ci, re.M)


def test_makefile_sets_up_from_scratch():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-m venv" in makefile and 'pip install -q -e ".[dev]"' in makefile
    assert re.search(r"^test: \$\(STAMP\)", makefile, re.M) and re.search(r"^lab: \$\(STAMP\)", makefile, re.M)
