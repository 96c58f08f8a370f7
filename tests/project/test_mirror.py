"""The tests mirror the package: each module ``bpe_course/X.py`` has ``tests/test_X.py`` and each
``bpe_course/F/X.py`` has ``tests/F/test_X.py``, which imports it; a package's ``__init__.py`` that
defines functions has ``tests/F/test_F.py``. Tests of what spans modules live in ``tests/project/``,
and the browser tests (``tests/browser/``) follow the chapters. A test file elsewhere must be named
after a module, so the next test of a module is written beside the others.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE, TESTS = ROOT / "bpe_course", ROOT / "tests"

# A module without a test file of its name: the reason must hold, or the module gets its file.
EXEMPT = {
    "bpe_course/__main__.py": "two lines that run cli.main: tests/test_cli.py runs every command as `python -m bpe_course`",
}
# The package's own __init__.py is its face: tests/project/test_face.py holds it still.
FACE = ("bpe_course/__init__.py", "tests/project/test_face.py")
NOT_MIRRORED = {"project", "browser"}  # folders of tests/ that follow the project or the chapters


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def defines_code(path: Path) -> bool:
    return any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) for node in ast.parse(path.read_text("utf-8")).body)


def expected_tests() -> dict[str, str]:
    """Each module of the package (by its path) and the test file that mirrors it."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        folder = relative.parent
        if path.name == "__init__.py":
            if folder == Path("."):
                found[FACE[0]] = FACE[1]
            elif defines_code(path):
                found[path.relative_to(ROOT).as_posix()] = (Path("tests") / folder / f"test_{folder.name}.py").as_posix()
            continue
        found[path.relative_to(ROOT).as_posix()] = (Path("tests") / folder / f"test_{path.stem}.py").as_posix()
    return found


def imports_module(test_file: Path, module: str) -> bool:
    """Does ``test_file`` import ``module`` (``import a.b``, ``from a.b import x``, ``from a import b``)?"""
    package, _, name = module.rpartition(".")
    for node in ast.walk(ast.parse(test_file.read_text("utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == module or a.name.startswith(module + ".") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == module or node.module.startswith(module + "."):
                return True
            if node.module == package and any(a.name == name for a in node.names):
                return True
    return False


def test_every_module_has_a_test_file_of_its_name_that_imports_it():
    missing, unrelated = [], []
    for module, test in expected_tests().items():
        if module in EXEMPT:
            continue
        if not (ROOT / test).is_file():
            missing.append(f"{module} -> {test}")
        elif module != FACE[0] and not imports_module(ROOT / test, module_name(ROOT / module)):
            unrelated.append(f"{test} does not import {module_name(ROOT / module)}")
    assert not missing, "modules without a test file of their name:\n" + "\n".join(missing)
    assert not unrelated, "\n".join(unrelated)


def test_the_exemptions_are_modules_without_a_test_file():
    for module in EXEMPT:
        assert (ROOT / module).is_file(), f"{module} is gone: drop its exemption"
        assert not (ROOT / expected_tests()[module]).is_file(), f"{module} has a test file now: drop its exemption"


def test_every_test_file_outside_project_and_browser_mirrors_a_module():
    mirrors = set(expected_tests().values())
    stray = [path.relative_to(ROOT).as_posix() for path in sorted(TESTS.rglob("test_*.py"))
             if path.relative_to(TESTS).parts[0] not in NOT_MIRRORED and path.relative_to(ROOT).as_posix() not in mirrors]
    assert not stray, "test files named after no module (move their tests to the module's file):\n" + "\n".join(stray)


def test_the_mirror_is_what_contributing_describes():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert re.search(r"tests/test_<module>\.py, tests/<folder>/test_<module>\.py", text)
    assert "tests/project/" in text
