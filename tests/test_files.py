"""Reading and writing files (bpe_course.files): UTF-8 read a block at a time, the offset of a bad byte,
a byte-order mark, sha256, atomic writes and the lock of a folder.

The oracles: Python's own ``bytes.decode`` of the whole file (the text, or the offset of the first bad
byte), ``hashlib`` on the whole file, and a second process that tries to take a held lock.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import threading

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course import TokenizerFileError
from bpe_course.errors import CorpusError
from bpe_course.files import (SAVING, UTF8_BOM, check_text_file, current_file, decode_utf8, file_names, folder_lock,
                              read_text_blocks, read_utf8, sha256_file, text_size, write_atomic, write_files_atomic)

# Bytes that make valid UTF-8 and bytes that break it, mixed: every kind of place a block edge can fall.
good_chars = st.text(st.characters(exclude_categories=["Cs"]), max_size=6).map(lambda s: s.encode("utf-8"))
bad_bytes = st.sampled_from([b"\xff", b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xf0\x9f\x99", b"\xc0\xaf"])
file_bytes = st.lists(st.one_of(good_chars, good_chars, good_chars, bad_bytes), max_size=12).map(b"".join)


def first_bad_byte(data: bytes) -> int | None:
    """Where Python's decoder of the whole file finds the first bad byte (None: the file is UTF-8)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=file_bytes, block=st.integers(1, 9), marked=st.booleans())
def test_blocks_give_the_whole_files_text_or_the_offset_of_its_first_bad_byte(tmp_path, data, block, marked):
    path = tmp_path / "notes.txt"
    path.write_bytes((UTF8_BOM if marked else b"") + data)
    bad = first_bad_byte(data)
    if bad is None:
        blocks = list(read_text_blocks(path, CorpusError, block=block))
        assert "".join(blocks) == data.decode("utf-8") and all(blocks)
        assert read_utf8(path, CorpusError) == data.decode("utf-8")
    else:
        offset = bad + (len(UTF8_BOM) if marked else 0)  # offsets are in the file: the mark counts
        with pytest.raises(CorpusError, match=rf"notes\.txt: not valid UTF-8 at byte offset {offset} "
                                              rf"\(byte 0x{data[bad]:02x}\)$"):
            "".join(read_text_blocks(path, CorpusError, block=block))
    replaced = "".join(read_text_blocks(path, CorpusError, block=block, errors="replace"))
    assert replaced == data.decode("utf-8", "replace")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=30), first=st.integers(0, 30),
       end=st.integers(0, 130))
def test_a_range_that_ends_inside_a_character_leaves_it_out(tmp_path, text, first, end):
    """A range starts at a character and may end anywhere: a character cut by its end is not in it."""
    data = text.encode("utf-8")
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    starts = [len(text[:k].encode("utf-8")) for k in range(len(text) + 1)]  # where each character starts
    start = starts[min(first, len(text))]
    end = max(start, min(end, len(data)))
    whole_to = max(b for b in starts if b <= end)  # the last character that ends by `end`
    assert "".join(read_text_blocks(path, CorpusError, start, end, block=3)) == data[start:whole_to].decode("utf-8")


def test_a_mark_is_skipped_only_at_the_start_and_counted_in_sizes(tmp_path):
    path = tmp_path / "notepad.txt"
    path.write_bytes(UTF8_BOM + "a\ufeffb".encode("utf-8"))
    assert read_utf8(path, CorpusError) == "a\ufeffb"  # one inside the text is text
    assert text_size(path) == len("a\ufeffb".encode("utf-8")) == path.stat().st_size - 3
    assert "".join(read_text_blocks(path, CorpusError, 3, None)) == "a\ufeffb"  # a range starting after it


def test_decode_utf8_names_the_source_and_the_offset():
    assert decode_utf8("naïve".encode("utf-8"), "x", ValueError) == "naïve"
    with pytest.raises(KeyError, match=r"stdin: not valid UTF-8 at byte offset 4 \(byte 0xfe\); re-save it"):
        decode_utf8(b"abcd\xfe", "stdin", KeyError, "; re-save it")


def test_what_is_not_a_text_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file: .*nope.txt"):
        check_text_file(tmp_path / "nope.txt", CorpusError)
    with pytest.raises(CorpusError, match="is a directory, not a text file"):
        check_text_file(tmp_path, CorpusError)
    with pytest.raises(CorpusError, match="/dev/null is a character device, not a text file or a pipe"):
        check_text_file("/dev/null", CorpusError)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_utf8(tmp_path / "nope.txt", CorpusError)
    with pytest.raises(CorpusError, match="is a directory"):
        read_utf8(tmp_path, CorpusError)


def test_a_pipe_is_read_from_its_start_to_its_end(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = "é" * 5000 + "🙂"
    writer = subprocess.Popen([sys.executable, "-c", f"open({str(fifo)!r}, 'wb').write({(UTF8_BOM + text.encode()) !r})"])
    try:
        assert "".join(read_text_blocks(fifo, CorpusError, block=7)) == text
    finally:
        writer.wait(timeout=60)


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, (1 << 20) + 7])
def test_sha256_file_is_hashlibs(tmp_path, size):
    data = os.urandom(size)
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_write_atomic_writes_whole_files_with_the_usual_mode_and_leaves_nothing_else(tmp_path, monkeypatch):
    write_atomic(tmp_path / "deep" / "a.txt", "line\r\nnext\n")
    write_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "deep" / "a.txt").read_bytes() == b"line\r\nnext\n"  # text as given: no newline translation
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "b.bin").stat().st_mode) == 0o666 & ~umask

    def refused(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(tmp_path / "b.bin", b"new")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "deep"]  # no temporary file left


def test_a_committed_save_is_read_and_finished_by_the_next(tmp_path):
    write_files_atomic(tmp_path, {"a.txt": "old a", "b.txt": "old b"})
    (tmp_path / "mine.md").write_text("the learner's", encoding="utf-8")
    staged = tmp_path / SAVING  # as a save killed after its commit leaves it
    staged.mkdir()
    (staged / "a.txt").write_text("new a", encoding="utf-8")
    (staged / "b.txt").write_text("new b", encoding="utf-8")
    assert current_file(tmp_path / "a.txt").read_text(encoding="utf-8") == "new a"
    assert file_names(tmp_path, "*.txt") == ["a.txt", "b.txt"]
    write_files_atomic(tmp_path, {"c.txt": "c"})
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == {
        "a.txt": "new a", "b.txt": "new b", "c.txt": "c", "mine.md": "the learner's"}
    with pytest.raises(ValueError, match="plain file names, not '../x'"):
        write_files_atomic(tmp_path, {"../x": "escape"})


HOLD = """import sys
from bpe_course.files import folder_lock
try:
    with folder_lock(sys.argv[1], RuntimeError, "another test holds"):
        print("took it")
except RuntimeError as exc:
    print(exc)
"""


def test_a_held_folder_lock_is_refused_to_another_process_and_let_go_after(tmp_path):
    def other() -> str:
        return subprocess.run([sys.executable, "-c", HOLD, str(tmp_path)], capture_output=True, text=True,
                              check=True).stdout.strip()

    with folder_lock(tmp_path, RuntimeError, "another test holds"):
        assert other() == f"another test holds {tmp_path} right now; wait for it to finish, or choose another folder"
    assert other() == "took it"
    assert list(tmp_path.iterdir()) == []  # the lock file goes with its holder


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


# ---- the model readers refuse what never ends, and what is larger than any model ------------------------
def readers():
    pytest.importorskip("sentencepiece")
    from bpe_course.formats.tekken import read_tekken
    from bpe_course.formats.sentencepiece import read_model
    return {"SentencePiece model": read_model, "Tekken file": read_tekken}


@pytest.mark.parametrize("what", ["SentencePiece model", "Tekken file"])
def test_a_device_or_a_huge_file_is_refused_unread_by_the_model_readers(tmp_path, what):
    read = readers()[what]
    with pytest.raises(TokenizerFileError, match=f"/dev/zero is a character device, not a {what} or a pipe"):
        read("/dev/zero")
    with pytest.raises(TokenizerFileError, match=f"{tmp_path} is a directory, not a {what}"):
        read(tmp_path)
    huge = tmp_path / "huge"
    with open(huge, "wb") as f:
        f.truncate(300 * 2**20)  # sparse: 300 MB to the reader, nothing on disk
    with pytest.raises(TokenizerFileError, match=f"huge: more than 268,435,456 bytes, larger than any {what}; not "
                                                 "read"):
        read(huge)


def test_a_pipe_is_still_read_by_the_model_readers(tmp_path):
    read = readers()["SentencePiece model"]
    from bpe_course.pretrained import named_file
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(named_file("mistral-v1").read_bytes()))
    writer.start()
    model = read(fifo)
    writer.join()
    assert len(model.pieces) == 32_000
