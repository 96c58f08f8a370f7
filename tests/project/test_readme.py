"""Keep the README true: its examples are run here and must print what it shows."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DURATION = re.compile(r"\d+(\.\d+)? s\b")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def console_examples() -> list[tuple[str, str]]:
    """``(command, expected output)`` for every ``$ command`` line of the console blocks, in order."""
    examples = []
    for block in blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            examples.append((command, output))
    return examples


def test_python_examples_run():
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = [e for block in blocks("python") for e in parser.get_examples(block)]
    assert len(examples) >= 5
    test = doctest.DocTest(examples, {}, "README.md", str(ROOT / "README.md"), 0, None)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_console_examples_print_what_the_readme_shows(tmp_path):
    examples = console_examples()
    assert len(examples) >= 6
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1")
    for command, expected in examples:
        run = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, f"{command!r} failed:\n{run.stderr}"
        # subtle: piped `decode` prints the exact bytes, with no final newline; a terminal adds one.
        assert DURATION.sub("D", run.stdout).rstrip("\n") == DURATION.sub("D", expected).rstrip("\n"), command


def test_the_two_commands_and_ci():
    commands = [line.strip() for line in blocks("bash")[0].splitlines() if line.strip() and not line.startswith("#")]
    assert commands == ["make lab", "make test"]
    for target in ("lab", "test"):
        dry = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stderr
    assert "bpe-course lab" in subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True).stdout
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(), re.M)


def test_conda_steps_name_real_files():
    steps = blocks("bash")[1]
    assert "environment.yml" in steps and (ROOT / "environment.yml").exists()
    assert "bpe-course lab" in steps


@pytest.mark.parametrize("link", sorted(set(re.findall(r"\]\(((?:notebooks|docs)/[^)#]+|CONTRIBUTING\.md)\)", README))))
def test_links_point_at_files(link):
    assert (ROOT / link).exists(), link


def test_every_chapter_is_in_the_table():
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"(notebooks/{notebook.name})" in README, notebook.name


def test_the_chapter_count_in_words_is_the_real_one():
    """The opening sentence counts the chapters (00-89) and the appendices (90 and up) as the site does."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)
    names = [p.name for p in (ROOT / "notebooks").glob("*.ipynb")]
    appendices = sum(site.is_appendix(name) for name in names)
    opening = " ".join(README.split("\n\n")[1].split())
    assert f"in {site.in_words(len(names) - appendices)} Jupyter notebooks" in opening
    assert f"(and {site.in_words(appendices)} appendices)" in opening
