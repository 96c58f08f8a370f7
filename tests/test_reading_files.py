"""Training on a learner's file: a bad byte is named with its offset, a byte-order mark is not text.

The oracle for an offset is Python's own ``bytes.decode`` of the whole file; training must give
the same offset while reading the file a block at a time (blocks made tiny here, so that bad
bytes fall on every kind of place: inside a block, on a block's edge, inside a character cut in
two by the edge, at the very end, and in a forked worker's part of the file).
"""

from __future__ import annotations

import pathlib
import re

import pytest

from bpe_course import CorpusError, corpus, train_bpe
from bpe_course.fast import parallel
from bpe_course.train import count_pretokens

BOM = b"\xef\xbb\xbf"
GERMAN = corpus.load("languages/de")
GOOD = ("Grüße aus Köln — naïve café, 東京 and 🙂 emoji; plain ASCII words too.\n" * 40).encode("utf-8")


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 bytes, and workers from 1 KB on, so small files take every path a big one takes."""
    monkeypatch.setattr(parallel, "STREAM_BYTES", 64)
    monkeypatch.setattr(parallel, "EXPLICIT_MIN_CHARS", 1024)

    def whole_file(self):
        raise AssertionError(f"{self} was read whole")  # a file of many GB must never be
    monkeypatch.setattr(pathlib.Path, "read_bytes", whole_file)


def bad_offset(data: bytes) -> int:
    """Where Python's own decoder of the whole file finds the first bad byte."""
    with pytest.raises(UnicodeDecodeError) as found:
        data.decode("utf-8")
    return found.value.start


def damaged(at: int, bad: bytes = b"\xff", data: bytes = GOOD) -> bytes:
    return data[:at] + bad + data[at + len(bad):]


FIRST_MULTIBYTE = GOOD.index("ü".encode())
CASES = {
    "first block": damaged(10),
    "first byte of a block": damaged(128),
    "last byte of a block": damaged(191),
    "a character cut by a block's edge, then a bad continuation": damaged(
        next(i for i in range(64, len(GOOD), 64) if GOOD[i - 1] >= 0xC0), b"\x41"),
    "a lone continuation byte": damaged(FIRST_MULTIBYTE + 1, b"\x80\x80"),
    "an encoded surrogate": damaged(700, b"\xed\xa0\x80"),
    "truncated in the last character": GOOD + "€".encode()[:2],
    "deep in the second half (a worker's part)": damaged(len(GOOD) * 3 // 4),
    "after a byte-order mark": BOM + damaged(300),
}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("case", CASES)
def test_a_bad_byte_is_named_with_its_offset_in_the_file(tmp_path, small_blocks, case, workers):
    data = CASES[case]
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    offset = bad_offset(data)
    message = rf"notes\.txt: not valid UTF-8 at byte offset {offset} \(byte 0x{data[offset]:02x}\)"
    with pytest.raises(CorpusError, match=message):
        count_pretokens(path, workers=workers)


def test_a_file_rewritten_while_it_is_read(tmp_path, small_blocks, monkeypatch):
    """Valid when training starts, damaged after the first block is counted: the error names the bytes as read."""
    path = tmp_path / "notes.txt"
    path.write_bytes(GOOD * 8)  # subtle: past the 8 KB that Python's file object reads ahead
    real_add_text, calls = parallel.add_text, []

    def add_text_then_rewrite(*args):
        if not calls:
            with open(path, "r+b") as f:  # another program saves the file, same size, one byte now bad
                f.seek(20_000)
                f.write(b"\xfe")
        calls.append(1)
        real_add_text(*args)

    monkeypatch.setattr(parallel, "add_text", add_text_then_rewrite)
    with pytest.raises(CorpusError, match=r"notes\.txt: not valid UTF-8 at byte offset 20000 \(byte 0xfe\)"):
        count_pretokens(path, workers=1)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_byte_order_mark_is_not_learned(tmp_path, small_blocks, workers):
    text = GERMAN
    plain, marked = tmp_path / "plain.txt", tmp_path / "notepad.txt"
    plain.write_bytes(text.encode("utf-8"))
    marked.write_bytes(BOM + text.encode("utf-8"))
    assert count_pretokens(marked, workers=workers) == count_pretokens(plain, workers=workers)
    vocab, merges = train_bpe(marked, 400)
    assert not any(BOM in token for token in vocab.values())
    assert (vocab, merges) == train_bpe(plain, 400)


def test_read_text_file_drops_a_leading_byte_order_mark_only(tmp_path):
    path = tmp_path / "notepad.txt"
    path.write_bytes(BOM + "héllo\ufeffworld".encode("utf-8"))
    assert corpus.read_text_file(path) == "héllo\ufeffworld"  # one inside the text is text
    assert corpus.read_text_file(path, errors="replace") == "héllo\ufeffworld"
    assert corpus.load_text(path) == "héllo\ufeffworld"
    path.write_bytes(BOM + b"caf\xe9")
    with pytest.raises(CorpusError, match=re.escape("not valid UTF-8 at byte offset 6 (byte 0xe9)")):
        corpus.read_text_file(path)  # offsets count the mark: they are offsets in the file
