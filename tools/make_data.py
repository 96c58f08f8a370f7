"""Regenerate the frozen corpora in ``data/`` and ``data/SHA256SUMS``, deterministically.

Usage (from the repository root)::

    .venv/bin/python tools/make_data.py           # write the generated files and SHA256SUMS
    .venv/bin/python tools/make_data.py --check   # rebuild in memory, compare, write nothing

Two kinds of file live in ``data/``:

* generated: ``python_docs*.txt`` (the running Python's ``pydoc_data.topics``) and
  ``python_code*.txt`` (a fixed list of pure-Python stdlib modules). Their text depends on the
  exact Python version, so they are frozen: regenerating under another version is refused
  unless ``--force`` is given, and then every hash in SHA256SUMS (and data/README.md) changes.
* hand-written: ``languages/<iso code>.txt`` and ``numbers.txt``. They are their own source;
  this script only checks them (UTF-8, LF newlines, NFC, one final newline) and hashes them.

Every file is written as UTF-8 with LF newlines, so the bytes (and hashes) do not depend on the
platform.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import sysconfig
import unicodedata
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

# The Python whose docs and stdlib are frozen in data/. Changing it changes every generated hash.
GENERATED_WITH = (3, 11, 7)

# Every 10th topic goes to the held-out part: topics 6, 16, 26, ... (in pydoc_data's order).
# subtle: topics differ a lot in length (0.2-62 KB). With offset 9 the held-out part would be
# only 2% of the text; offset 6 was chosen so it is about 11% of the bytes, a usable held-out set.
HELDOUT_EVERY, HELDOUT_OFFSET = 10, 6

# Pure-Python stdlib modules (paths under Lib/). The held-out modules are whole other files,
# so held-out code is never a fragment of a file seen in training.
CODE_TRAIN = (
    "textwrap.py", "fractions.py", "heapq.py", "statistics.py", "json/decoder.py",
    "json/encoder.py", "shlex.py", "difflib.py", "argparse.py", "pprint.py",
)
CODE_HELDOUT = ("calendar.py", "csv.py")

# Files not generated here: written for the course, or (don_quixote.txt) copied once from outside; only checked and hashed.
HANDWRITTEN = ("numbers.txt", "don_quixote.txt",
               *(f"languages/{code}.txt" for code in ("ar", "de", "es", "fr", "hi", "ja", "ru", "zh")))
# Copied from their source with CRLF turned into LF and nothing else (some are not NFC): only hashed.
UDHR_CODES = ("amh", "arb", "ben", "cmn_hans", "deu_1996", "ell_monotonic", "eng", "fra", "hin", "jpn", "kor", "rus",
              "spa", "swh", "tam", "tur", "vie", "yor")
EXTERNAL = tuple(f"udhr/udhr_{code}.xml" for code in UDHR_CODES)


def python_docs_topics() -> list[str]:
    """The running Python's help topics, in the order ``pydoc_data.topics`` stores them."""
    from pydoc_data.topics import topics

    return list(topics.values())


def split_every(items: list[str], every: int, offset: int) -> tuple[list[str], list[str]]:
    """Deterministic split: item ``i`` is held out when ``i % every == offset``; order is kept.

    >>> split_every(list("abcdefg"), 3, 2)
    (['a', 'b', 'd', 'e', 'g'], ['c', 'f'])
    """
    train = [item for i, item in enumerate(items) if i % every != offset]
    heldout = [item for i, item in enumerate(items) if i % every == offset]
    return train, heldout


def docs_files() -> dict[str, str]:
    """``python_docs.txt`` is exactly ``"\\n\\n".join(topics)``; the split files join their topics the same way."""
    topics = python_docs_topics()
    train, heldout = split_every(topics, HELDOUT_EVERY, HELDOUT_OFFSET)
    return {
        "python_docs.txt": "\n\n".join(topics),
        "python_docs_train.txt": "\n\n".join(train),
        "python_docs_heldout.txt": "\n\n".join(heldout),
    }


def code_block(module: str) -> str:
    """One stdlib file with its header line; always ends with exactly one newline."""
    source_path = Path(sysconfig.get_paths()["stdlib"]) / module
    # subtle: read as bytes and decode, so no newline translation can sneak in.
    source = source_path.read_bytes().decode("utf-8").rstrip("\n") + "\n"
    version = ".".join(map(str, sys.version_info[:3]))
    header = f"# ===== Lib/{module} (CPython {version}, Python Software Foundation License) =====\n"
    return header + source


def code_files() -> dict[str, str]:
    """The code corpus: every module, then the train-only and held-out-only parts; blank line between files."""
    train = "\n".join(code_block(m) for m in CODE_TRAIN)
    heldout = "\n".join(code_block(m) for m in CODE_HELDOUT)
    return {
        "python_code.txt": train + "\n" + heldout,
        "python_code_train.txt": train,
        "python_code_heldout.txt": heldout,
    }


def check_handwritten(name: str, data: bytes) -> list[str]:
    """Problems with a hand-written file (empty list when it is fine).

    >>> check_handwritten("x.txt", "caf\\u00e9\\n".encode())
    []
    >>> check_handwritten("x.txt", b"a\\r\\nb")
    ['x.txt: has CR characters (use LF newlines)', 'x.txt: must end with exactly one newline']
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [f"{name}: not UTF-8 at byte offset {exc.start}"]
    problems = []
    if "\r" in text:
        problems.append(f"{name}: has CR characters (use LF newlines)")
    if unicodedata.normalize("NFC", text) != text:
        problems.append(f"{name}: not NFC-normalized")
    if not text.endswith("\n") or text.endswith("\n\n"):
        problems.append(f"{name}: must end with exactly one newline")
    return problems


def sha256sums(files: dict[str, bytes]) -> str:
    """``sha256sum`` format, sorted by path, so ``cd data && sha256sum -c SHA256SUMS`` works.

    >>> sha256sums({"a.txt": b""})
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.txt\\n'
    """
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items()))


def build(data_dir: Path) -> tuple[dict[str, bytes], list[str]]:
    """Every data file's bytes (generated ones rebuilt, hand-written ones read), plus any problems."""
    files = {name: text.encode("utf-8") for name, text in {**docs_files(), **code_files()}.items()}
    problems: list[str] = []
    for name in HANDWRITTEN:
        path = data_dir / name
        if not path.is_file():
            problems.append(f"{name}: missing (hand-written files are not generated)")
            continue
        files[name] = path.read_bytes()
        problems += check_handwritten(name, files[name])
    for name in EXTERNAL:
        path = data_dir / name
        if path.is_file():
            files[name] = path.read_bytes()
        else:
            problems.append(f"{name}: missing (copied from ../shared/corpora, see data/README.md)")
    return files, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with data/SHA256SUMS; write nothing")
    parser.add_argument("--force", action="store_true", help=f"write even if this is not Python {GENERATED_WITH}")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)

    here = tuple(sys.version_info[:3])
    if here != GENERATED_WITH:
        print(f"note: this is Python {here}, the frozen files came from {GENERATED_WITH}; generated files will differ")
        if not (args.check or args.force):
            print("refusing to overwrite the frozen corpora; use --force to re-freeze them deliberately")
            return 2
    files, problems = build(args.data_dir)
    for problem in problems:
        print("problem:", problem)
    sums = sha256sums(files)
    sums_path = args.data_dir / "SHA256SUMS"
    if args.check:
        stored = sums_path.read_text(encoding="utf-8") if sums_path.exists() else ""
        differ = sorted(set(stored.splitlines()) ^ set(sums.splitlines()))
        for line in differ:
            print("differs:", line)
        print("ok: data/ matches SHA256SUMS" if not (differ or problems) else "data/ does NOT match")
        return 1 if differ or problems else 0
    if problems:
        return 1
    for name, data in files.items():
        path = args.data_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            print(f"wrote {name} ({len(data):,} bytes)")
    sums_path.write_bytes(sums.encode("utf-8"))
    print(f"wrote SHA256SUMS ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
