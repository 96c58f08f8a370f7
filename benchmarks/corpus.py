"""The benchmark's own corpus: a large, deterministic, natural-language text built offline.

Nothing is downloaded. The text comes from what a machine with this project already has:

1. Python's help topics (``pydoc_data.topics``, the prose of the language reference);
2. the docstrings of every module of the standard library and of the packages installed in the
   project's virtualenv (read with :mod:`ast`, never imported);
3. the English manual pages under ``/usr/share/man/man1`` ... ``man8`` (roff markup stripped).

Each source file is one *document*. Documents are cut into paragraphs; a paragraph seen before
anywhere (licence boilerplate, repeated parameter descriptions) is dropped, and so are doctest
blocks and paragraphs that are mostly not letters (tables, code). The documents are then put in a
fixed pseudo-random order (``random.Random(SEED)`` over their sorted names), so every prefix of
the corpus mixes all three sources, and written out until the requested size is reached.

The result depends on the machine (Python version, installed packages, man pages) but not on
chance: the same machine gives the same bytes. The benchmark records the file's size and sha256.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import random
import re
import sysconfig
from collections.abc import Callable
from functools import partial
from pathlib import Path

SEED = 20240601
VERSION = 2  # bump when the recipe changes: a cached corpus of another version is rebuilt
MAN_ROOT = Path("/usr/share/man")
MIN_LETTER_SHARE = 0.6  # a paragraph with fewer letters (vs non-space characters) is code or a table

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_ROFF_FONT = re.compile(r"\\f(?:\(..|\[[^\]]*\]|.)")
_ROFF_SIZE = re.compile(r"\\s[-+]?\d+")
_ROFF_STRING = re.compile(r"\\\*(?:\(..|\[[^\]]*\]|.)")
_ROFF_NAMED = re.compile(r"\\\((..)|\\\[([^\]]*)\]")
_ROFF_OTHER = re.compile(r"\\[&|^%:cdu0]")
_NAMED_CHARS = {"em": "—", "en": "–", "hy": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘",
                "cq": "’", "bu": "•", "co": "©", "rg": "®", "tm": "™", "mu": "×", "de": "°", "ga": "`",
                "ti": "~", "ha": "^", "rs": "\\", "lh": "☜", "rh": "☞", "<=": "≤", ">=": "≥", "->": "→"}
_TEXT_MACROS = {"B", "I", "BR", "RB", "BI", "IB", "IR", "RI", "SM", "SB", "SH", "SS", "IP", "TP", "Nm", "Nd",
                "Sh", "Ss", "Pa", "Ar", "Fl", "Xr", "Em", "Dq", "Sq", "Ql", "Li"}
_BREAK_MACROS = {"PP", "LP", "P", "sp", "TP", "IP", "SH", "SS", "Pp", "Sh", "Ss", "Bl", "El", "It"}


def docstrings(path: Path) -> str:
    """The docstrings of one ``.py`` file, in file order, separated by blank lines ("" if unparsable)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError, RecursionError):
        return ""
    return "\n\n".join(doc for node in ast.walk(tree)
                       if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                       and (doc := ast.get_docstring(node)))


def roff_to_text(source: str) -> str:
    """Strip roff/man markup well enough to leave the prose; paragraphs are separated by blank lines."""
    lines: list[str] = []
    in_definition = False
    for line in source.splitlines():
        if in_definition:
            in_definition = not line.startswith("..")
            continue
        if line.startswith((".\\\"", "'\\\"", '.\\"')) or line.startswith("\\\""):
            continue
        if line.startswith((".", "'")):
            name, _, args = line[1:].strip().partition(" ")
            if name in ("de", "de1", "am", "ig"):
                in_definition = True
                continue
            if name in _BREAK_MACROS:
                lines.append("")
            if name in _TEXT_MACROS and args:
                lines.append(args.replace('"', ""))
                if name in ("SH", "SS", "Sh", "Ss"):
                    lines.append("")
            continue
        lines.append(line)
    text = "\n".join(lines)
    text = _ROFF_FONT.sub("", text)
    text = _ROFF_SIZE.sub("", text)
    text = _ROFF_STRING.sub("", text)
    text = _ROFF_NAMED.sub(lambda m: _NAMED_CHARS.get(m.group(1) or m.group(2), ""), text)
    text = _ROFF_OTHER.sub("", text)
    return text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\\\n", "")


def man_text(path: Path) -> str:
    """The prose of one man page ("" for a page that is only a link, or not UTF-8)."""
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        source = raw.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile):
        return ""
    return "" if source.lstrip().startswith(".so ") else roff_to_text(source)


def all_documents() -> list[tuple[str, Callable[[], str]]]:
    """``(name, read)`` for every document of every source, each source in sorted order.

    Reading is deferred: only the documents the requested size needs are ever parsed.
    """
    from pydoc_data.topics import topics
    docs: list[tuple[str, Callable[[], str]]] = [(f"topic:{n}", partial(topics.get, n)) for n in sorted(topics)]
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    roots = [stdlib]
    purelib = Path(sysconfig.get_paths()["purelib"])
    if purelib != stdlib and stdlib not in purelib.parents:  # a virtualenv: its own packages too
        roots.append(purelib)
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if root == stdlib and ("site-packages" in rel.parts or "dist-packages" in rel.parts):
                continue  # packages installed into the base Python differ from machine to machine
            docs.append((f"py:{rel}", partial(docstrings, path)))
    for section in range(1, 9):
        folder = MAN_ROOT / f"man{section}"
        if folder.is_dir():
            docs += [(f"man:{path.relative_to(MAN_ROOT)}", partial(man_text, path)) for path in sorted(folder.iterdir())]
    return docs


def _is_prose(paragraph: str) -> bool:
    if paragraph.lstrip().startswith((">>>", "...", "$ ", "# ")):
        return False
    visible = sum(1 for c in paragraph if not c.isspace())
    letters = sum(1 for c in paragraph if c.isalpha())
    return visible >= 20 and letters >= MIN_LETTER_SHARE * visible


def build_corpus(path: str | Path, size_bytes: int, seed: int = SEED) -> dict:
    """Write at least ``size_bytes`` of deduplicated prose to ``path`` (if the sources allow).

    Returns a description: ``{"path", "bytes", "sha256", "documents", "sources"}``.
    """
    docs = all_documents()
    random.Random(seed).shuffle(docs)
    seen: set[str] = set()
    out: list[str] = []
    written, used, sources = 0, 0, {}
    for name, read in docs:
        kept = []
        for paragraph in _PARAGRAPH_BREAK.split(read()):
            paragraph = "\n".join(line.rstrip() for line in paragraph.strip("\n").splitlines())
            key = " ".join(paragraph.split())
            if key and key not in seen and _is_prose(paragraph):
                seen.add(key)
                kept.append(paragraph)
        if not kept:
            continue
        chunk = "\n\n".join(kept) + "\n\n"
        out.append(chunk)
        written += len(chunk.encode("utf-8"))
        used += 1
        kind = name.split(":", 1)[0]
        sources[kind] = sources.get(kind, 0) + len(chunk.encode("utf-8"))
        if written >= size_bytes:
            break
    data = "".join(out).encode("utf-8")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(data)
    return {"path": str(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "documents": used, "sources": sources, "version": VERSION, "seed": seed}


def prefix_file(source: str | Path, path: str | Path, size_bytes: int, end: bytes = b"\n\n") -> int:
    """Write the first ~``size_bytes`` of ``source`` to ``path``, cut after an ``end`` (a paragraph's); its size."""
    data = Path(source).read_bytes()
    if len(data) > size_bytes:
        cut = data.rfind(end, 0, size_bytes)
        data = data[:cut + len(end)] if cut > 0 else data[:size_bytes]
        data = data.decode("utf-8", errors="ignore").encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)
