"""The package's house rules, read from its source: no import circle, imports only point down the floors.

Every ``import`` and ``from ... import`` counts, including those inside functions, so an import
moved into a function to get round a circle is still seen.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bpe_course"

# Floors, bottom up. A module may import from its own floor or any floor below, never above.
# CONTRIBUTING.md's layout lists the same floors (tested below).
FLOORS = [
    ("basics", {"bpe", "pairs", "pretokenize", "unicode_classes", "regex_syntax", "unicode_tables", "bytelevel",
                "measures", "compare", "files", "resources", "errors"}),
    ("texts", {"corpus", "download"}),
    ("fast", {"fast"}),
    ("formats", {"formats"}),
    ("engine", {"tokenizer", "train", "pretrained_cache"}),
    ("algorithms", {"algorithms"}),
    ("ready-made and at scale", {"pretrained", "chat", "encode_files", "scale"}),
    ("course", {"cli", "cli_output", "lab", "widgets", "exercises", "viz", "interop", "__main__"}),
]
FLOOR_OF = {name: k for k, (_, names) in enumerate(FLOORS) for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The ``bpe_course`` modules (or packages) that ``path`` imports, wherever the import stands."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + (node.module.split(".") if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "bpe_course":
                continue
            names = [f"{target}.{alias.name}" for alias in node.names]
            found |= {n for n in names if n in MODULES} or {target}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "bpe_course"}
    return found - {module_name(path), "bpe_course"}


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {name: imports_of(path) for name, path in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(u: str) -> None:
        index[u] = low[u] = len(index)
        stack.append(u)
        on_stack.add(u)
        for v in graph.get(u, ()):
            if v not in index:
                visit(v)
                low[u] = min(low[u], low[v])
            elif v in on_stack:
                low[u] = min(low[u], index[v])
        if low[u] == index[u]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == u:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    assert circles(GRAPH) == []


def floor(module: str) -> int:
    top = module.split(".")[1]
    assert top in FLOOR_OF, f"{module} is on no floor: add it to FLOORS in this test and to CONTRIBUTING's layout"
    return FLOOR_OF[top]


def test_imports_point_down_the_floors():
    upward = [f"{m} (floor {floor(m)}) imports {t} (floor {floor(t)})"
              for m, targets in GRAPH.items() if m != "bpe_course" for t in targets if floor(t) > floor(m)]
    assert upward == []


def test_formats_never_build_a_tokenizer():
    for name, targets in GRAPH.items():
        if name.startswith("bpe_course.formats"):
            assert not {t for t in targets if t.startswith(("bpe_course.tokenizer", "bpe_course.pretrained"))}, name


def reached_from(module: str) -> set[str]:
    """Every module that ``module`` imports, directly or through others."""
    seen, todo = set(), [module]
    while todo:
        for target in GRAPH.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def top(module: str) -> str:
    """The room a module is in: ``bpe_course.fast.piece`` is in ``fast``."""
    return module.split(".")[1] if "." in module else ""


COURSE = dict(FLOORS)["course"]


def test_course_and_formats_never_import_fast():
    """``fast/`` holds speed-ups only: what a chapter or a file format reads is the rule itself (``bpe``)."""
    assert sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if top(m) in COURSE | {"formats"}
                  for t in targets if top(t) == "fast") == []


ENGINE = dict(FLOORS)["engine"]


def test_the_engine_never_imports_the_algorithms_wing_or_a_widget():
    """The engine encodes and trains without anything a chapter builds beside it (``algorithms/``) or draws."""
    assert sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if top(m) in ENGINE
                  for t in targets if top(t) in {"algorithms", "widgets"}) == []


def test_only_widgets_and_the_chapters_use_widgets():
    """Checkers, the command line and the algorithms read measures and algorithms, never a widget module."""
    assert sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if top(m) != "widgets"
                  for t in targets if top(t) == "widgets") == []


def test_the_algorithms_wing_reads_only_what_is_below_it():
    """``algorithms/`` may read the engine, the formats, the texts and the basics; never the named tokenizers,
    the chat templates or anything of the course (its floor keeps that; this names the rule)."""
    above = {"pretrained", "chat", "encode_files", "scale"} | COURSE
    assert sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if top(m) == "algorithms"
                  for t in targets if top(t) in above) == []


def test_the_offline_engine_never_reaches_the_downloader():
    """Only the course, ``corpus`` (whose ``corpus.download`` is the learner's one door to the network) and the
    algorithms that read the built-in corpora do; the named tokenizers and everything of the engine stay offline."""
    online = COURSE | {"corpus", "download", "algorithms"}
    assert sorted(m for m in GRAPH if top(m) and top(m) not in online
                  and "bpe_course.download" in reached_from(m)) == []


def contributing_floors() -> list[tuple[str, set[str]]]:
    """CONTRIBUTING's layout: a line ``  N name: ...`` opens floor N; the names (``x.py``, ``folder/``)
    that start the lines below it are its rooms."""
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    floors: dict[int, tuple[str, set[str]]] = {}
    for line in text[text.index("\nbpe_course/\n"):text.index("\nchapters/")].splitlines():
        if opened := re.match(r"  (\d) ([^:]+):", line):
            rooms = floors.setdefault(int(opened[1]), (opened[2], set()))[1]
        elif listed := re.match(r"    ((?:\w+(?:\.py|/)(?:, )?)+)", line):
            rooms.update(re.findall(r"(\w+)(?:\.py|/)", listed[1]))
    return [floors[k] for k in sorted(floors)]


def test_contributing_lists_the_same_floors():
    assert contributing_floors() == FLOORS


def test_import_bpe_course_stays_light():
    """``import bpe_course`` needs none of the notebook libraries (they come with the [course] extra)."""
    heavy = ("pandas", "matplotlib", "ipywidgets", "IPython", "jupyter", "jupyterlab", "tiktoken", "tokenizers")
    code = ("import sys, bpe_course; print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))")
    out = subprocess.run([sys.executable, "-c", code, *heavy], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
