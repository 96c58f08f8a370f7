"""Tests for bpe_course.corpus: the built-in corpora and their hashes, the learner's own files, the
train/held-out split."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course import corpus
from bpe_course.corpus import CorpusError


REPO = Path(__file__).resolve().parent.parent

FROZEN_PYTHON = sys.version_info[:3] == (3, 11, 7)


def test_every_corpus_loads_and_has_a_path() -> None:
    for name in corpus.names():
        text = corpus.load(name)
        assert isinstance(text, str) and len(text) > 500, name
        assert corpus.path(name).exists(), name


def test_sha256sums_cover_every_data_file() -> None:
    sums = {}
    for line in (REPO / "data" / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, relative = line.split("  ")
        sums[relative] = digest
    files = {p.relative_to(REPO / "data").as_posix() for p in (REPO / "data").rglob("*") if p.is_file()}
    assert files - {"README.md", "SHA256SUMS"} == set(sums)
    for relative, digest in sums.items():
        data = (REPO / "data" / relative).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, relative
        assert b"\r" not in data, relative
        data.decode("utf-8")


def test_sizes_and_languages() -> None:
    assert 400_000 < len(corpus.path("python_docs").read_bytes()) < 550_000
    assert 300_000 < len(corpus.path("python_code").read_bytes()) < 500_000
    for code in ("de", "es", "fr", "ru", "zh", "ja", "hi", "ar"):
        assert 2_000 <= len(corpus.path(f"languages/{code}").read_bytes()) <= 4_000, code
    assert "ß" in corpus.load("languages/de") and "。" in corpus.load("languages/ja")
    assert all(corpus.load(f"languages/{c}") in corpus.load("languages") for c in corpus.LANGUAGES)


@pytest.mark.skipif(not FROZEN_PYTHON, reason="data/ was frozen from Python 3.11.7's docs and stdlib")
def test_frozen_files_match_their_recipe() -> None:
    from pydoc_data.topics import topics

    assert corpus.load("python_docs") == "\n\n".join(topics.values())
    spec = importlib.util.spec_from_file_location("make_data", REPO / "tools" / "make_data.py")
    make_data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_data)
    assert make_data.main(["--check"]) == 0


def test_train_heldout_is_a_stable_split() -> None:
    for name in corpus.names():
        train, heldout = corpus.train_heldout(name)
        assert train and heldout and len(heldout) < len(train), name
        assert heldout[:200] not in train, name
        assert corpus.train_heldout(name) == (train, heldout)
    train, heldout = corpus.train_heldout("python_docs")
    assert 0.05 < len(heldout) / (len(train) + len(heldout)) < 0.2


def test_tampered_copy_names_file_and_hashes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "data"
    shutil.copytree(REPO / "data", copy)
    target = copy / "numbers.txt"
    expected = hashlib.sha256(target.read_bytes()).hexdigest()
    target.write_bytes(target.read_bytes().replace(b"391", b"392"))
    actual = hashlib.sha256(target.read_bytes()).hexdigest()
    monkeypatch.setattr(corpus, "DATA_DIR", copy)
    with pytest.raises(CorpusError) as info:
        corpus.load("numbers")
    message = str(info.value)
    assert str(target) in message and expected in message and actual in message
    assert corpus.load("languages/fr")  # the untouched files still load


def test_missing_data_dir_and_unknown_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CorpusError, match="did you mean 'python_docs'"):
        corpus.load("python_doc")
    with pytest.raises(CorpusError, match="'shakespeare' is neither an existing file nor a built-in corpus"):
        corpus.train_heldout("shakespeare")
    monkeypatch.setattr(corpus, "DATA_DIR", tmp_path / "nowhere")
    with pytest.raises(CorpusError, match="built-in corpora are missing"):
        corpus.load("numbers")


def test_file_without_a_sha256_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "data"
    shutil.copytree(REPO / "data", copy)
    sums = copy / "SHA256SUMS"
    sums.write_text("".join(l for l in sums.read_text().splitlines(True) if "numbers" not in l))
    monkeypatch.setattr(corpus, "DATA_DIR", copy)
    with pytest.raises(CorpusError, match="no line for 'numbers.txt'"):
        corpus.load("numbers")


def test_read_text_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        corpus.read_text_file(tmp_path / "nope.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"abc\xffdef")
    with pytest.raises(CorpusError, match=r"bad\.txt: not valid UTF-8 at byte offset 3 \(byte 0xff\)"):
        corpus.read_text_file(bad)
    assert corpus.read_text_file(bad, errors="replace") == "abc\ufffddef"
    with pytest.raises(CorpusError, match="directory"):
        corpus.read_text_file(tmp_path)


def test_read_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "b.txt").write_text("beta\n", encoding="utf-8")
    (tmp_path / "c.txt").write_bytes(b"ok\n\xc3(")
    assert corpus.read_files([tmp_path / "a.txt", str(tmp_path / "b.txt")]) == "alpha\nbeta\n"
    with pytest.raises(CorpusError, match=r"c\.txt: not valid UTF-8 at byte offset 3"):
        corpus.read_files([tmp_path / "a.txt", tmp_path / "c.txt"])
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        corpus.read_files([tmp_path / "a.txt", tmp_path / "missing.txt"])
    assert corpus.read_files([tmp_path / "c.txt"], errors="replace").endswith("\ufffd(")
    with pytest.raises(TypeError):
        corpus.read_files(str(tmp_path / "a.txt"))
    with pytest.raises(CorpusError, match="empty"):
        corpus.read_files([])


def test_load_text_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes\n", encoding="utf-8")
    assert corpus.load_text(text="raw text") == "raw text"
    assert corpus.load_text(notes) == "my own notes\n"
    assert corpus.load_text(str(notes)) == "my own notes\n"
    assert corpus.load_text([notes, notes]) == "my own notes\n\nmy own notes\n"
    assert corpus.load_text("languages/es") == corpus.load("languages/es")
    with pytest.raises(FileNotFoundError, match="notse.txt"):
        corpus.load_text(str(tmp_path / "notse.txt"))
    with pytest.raises(FileNotFoundError, match="'chapter1.txt'"):
        corpus.load_text("chapter1.txt")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        corpus.load_text(tmp_path / "missing.txt")
    with pytest.raises(CorpusError, match=r"load_text\(text=\.\.\.\)"):
        corpus.load_text("low lower lowest")
    with pytest.raises(CorpusError, match="did you mean 'numbers'"):
        corpus.load_text("number")
    with pytest.raises(TypeError):
        corpus.load_text()
    with pytest.raises(TypeError):
        corpus.load_text("numbers", text="x")
    monkeypatch.chdir(tmp_path)  # an existing file wins over a corpus of the same name
    (tmp_path / "numbers").write_text("1 2 3", encoding="utf-8")
    assert corpus.load_text("numbers") == "1 2 3"


def test_train_heldout_takes_a_name_or_a_file(tmp_path: Path) -> None:
    own = tmp_path / "notes.txt"
    own.write_text("".join(f"paragraph {k}\n\n" for k in range(10)), encoding="utf-8")
    train, heldout = corpus.train_heldout(own)
    assert (train, heldout) == corpus.split_text(own.read_text(encoding="utf-8"))
    assert heldout == "paragraph 9\n\n" and train.endswith("paragraph 8\n")
    assert corpus.train_heldout(str(own)) == (train, heldout)
    assert corpus.train_heldout("python_docs") == (corpus.load_text(corpus.path("python_docs").parent /
                                                                    "python_docs_train.txt"),
                                                   corpus.load_text(corpus.path("python_docs").parent /
                                                                    "python_docs_heldout.txt"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n", min_size=2, max_size=60), st.floats(0.01, 0.99))
def test_split_text_cuts_at_the_nearest_paragraph_break(text, fraction):
    breaks = [i for i in range(len(text) - 1) if text[i:i + 2] == "\n\n"]  # the obvious, slow reference
    if not breaks:
        with pytest.raises(CorpusError, match="without a paragraph break"):
            corpus.split_text(text, fraction)
        return
    target = len(text) * (1 - fraction)
    cut = min(breaks, key=lambda i: abs(i - target))
    assert corpus.split_text(text, fraction) == (text[:cut + 1], text[cut + 2:])


BOM = b"\xef\xbb\xbf"


def test_read_text_file_drops_a_leading_byte_order_mark_only(tmp_path):
    path = tmp_path / "notepad.txt"
    path.write_bytes(BOM + "héllo\ufeffworld".encode("utf-8"))
    assert corpus.read_text_file(path) == "héllo\ufeffworld"  # one inside the text is text
    assert corpus.read_text_file(path, errors="replace") == "héllo\ufeffworld"
    assert corpus.load_text(path) == "héllo\ufeffworld"
    path.write_bytes(BOM + b"caf\xe9")
    with pytest.raises(CorpusError, match=re.escape("not valid UTF-8 at byte offset 6 (byte 0xe9)")):
        corpus.read_text_file(path)  # offsets count the mark: they are offsets in the file


def test_misspell_makes_one_slip_per_hit_word_and_is_seeded():
    from random import Random

    from bpe_course.corpus import misspell

    text = corpus.load("don_quixote")[:20_000]
    assert misspell(text, 0.0, Random(1)) == text
    once, again = misspell(text, 0.3, Random(7)), misspell(text, 0.3, Random(7))
    assert once == again != text
    # runs of ASCII letters and what lies between them: a slip changes one letter run and nothing else
    before, after = re.split(r"([^A-Za-z]+)", text), re.split(r"([^A-Za-z]+)", once)
    assert len(before) == len(after)
    for old, new in zip(before, after):
        if old == new:
            continue
        # one slip: a swap of neighbours, or one letter dropped, doubled or replaced
        swapped = any(new == old[:i] + old[i + 1] + old[i] + old[i + 2:] for i in range(len(old) - 1))
        dropped = any(new == old[:i] + old[i + 1:] for i in range(len(old)))
        doubled = any(new == old[:i] + old[i] + old[i:] for i in range(len(old)))
        replaced = len(new) == len(old) and sum(a != b for a, b in zip(old, new)) == 1
        assert swapped or dropped or doubled or replaced, (old, new)
