"""Encoding files to a .npy of ids: the same ids as encode(), any number of workers, flat memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bpe_course import CorpusError, cl100k, corpus, gpt2
from bpe_course.encode_files import encode_files

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("texts")
    texts = {"docs.txt": corpus.load("python_docs"), "lang.txt": corpus.load("languages"),
             "specials.txt": f"one{EOT}two {EOT} three", "empty.txt": ""}
    paths = []
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


def expected_ids(tok, paths, separator=None, **mode) -> list[int]:
    ids = []
    for path in paths:
        ids += tok.encode(path.read_text(encoding="utf-8"), **mode)
        if separator:
            ids.append(tok.special_tokens[separator])
    return ids


@pytest.mark.parametrize("workers", [1, 2])
def test_ids_equal_encode_with_a_separator(files, tmp_path, workers):
    tok = gpt2()
    n = encode_files(tok, files, tmp_path / "ids.npy", separator=EOT, workers=workers)
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16 and n == len(ids)
    assert ids.tolist() == expected_ids(tok, files, EOT, allowed_special="all")


def test_big_files_are_shared_out_and_give_the_same_ids(files, tmp_path):
    tok = gpt2()
    encode_files(tok, files[:1], tmp_path / "one.npy", workers=1)
    encode_files(tok, files[:1], tmp_path / "four.npy", workers=4)  # python_docs is cut into 4 ranges
    assert np.array_equal(np.load(tmp_path / "one.npy"), np.load(tmp_path / "four.npy"))


def test_ids_above_65535_make_a_uint32_array(files, tmp_path):
    tok = cl100k()
    encode_files(tok, files[1:3], tmp_path / "ids.npy", specials="text")
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint32
    assert ids.tolist() == expected_ids(tok, files[1:3], disallowed_special=())


@pytest.mark.parametrize("workers", [1, 2])
def test_a_wide_vocab_whose_ids_all_fit_16_bits_makes_a_uint16_array(tmp_path, workers):
    """cl100k's workers write 32-bit parts (its ids need them); the ids found all fit 16 bits: narrowed."""
    tok = cl100k()
    paths = []
    for k, text in enumerate(["Hello world, hello again. " * 3000, "The cat sat on the mat.\n" * 2000]):
        paths.append(tmp_path / f"t{k}.txt")
        paths[-1].write_text(text, encoding="utf-8")
    expected = expected_ids(tok, paths, allowed_special="all")
    assert max(expected) < 1 << 16 <= max(tok.vocab)
    encode_files(tok, paths, tmp_path / "ids.npy", workers=workers)
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16 and ids.tolist() == expected


def test_special_token_modes_and_bad_arguments(files, tmp_path):
    tok = gpt2()
    with pytest.raises(ValueError, match="special token '<|endoftext|>'"):
        encode_files(tok, files[2:3], tmp_path / "x.npy", specials="error")
    with pytest.raises(ValueError, match="separator '<eot>' is not a special token"):
        encode_files(tok, files, tmp_path / "x.npy", separator="<eot>")
    with pytest.raises(ValueError, match="specials must be one of"):
        encode_files(tok, files, tmp_path / "x.npy", specials="maybe")
    with pytest.raises(FileNotFoundError, match="no such file"):
        encode_files(tok, [tmp_path / "missing.txt"], tmp_path / "x.npy")
    assert not (tmp_path / "x.npy").exists()


def test_a_bad_byte_names_the_file_and_offset(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café au lait".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin1\.txt: not valid UTF-8 at byte offset 3 \(byte 0xe9\)"):
        encode_files(gpt2(), [bad], tmp_path / "x.npy")
    data = corpus.load("python_docs").encode("utf-8")  # cut into 4 ranges: the bad byte is in the last one
    bad.write_bytes(data[:-1000] + b"\xff" + data[-999:])
    with pytest.raises(CorpusError, match=rf"latin1\.txt: not valid UTF-8 at byte offset {len(data) - 1000} "):
        encode_files(gpt2(), [bad], tmp_path / "x.npy", workers=4)  # its offset in the file, not in its range


def test_memory_does_not_grow_with_the_file(tmp_path):
    """Peak memory (the process's high-water mark) for a file and for the same file four times over."""
    text = corpus.load("python_docs")
    peaks = {}
    for copies in (1, 4):
        path = tmp_path / f"x{copies}.txt"
        path.write_text(text * copies, encoding="utf-8")
        code = ("import resource, sys; from bpe_course import gpt2; from bpe_course.encode_files import encode_files; "
                "tok = gpt2(); tok.encode('warm'); before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
                f"encode_files(tok, [sys.argv[1]], sys.argv[2], workers=1); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)")
        done = subprocess.run([sys.executable, "-c", code, str(path), str(tmp_path / "o.npy")], capture_output=True,
                              text=True, check=True)
        peaks[copies] = int(done.stdout.strip())  # KB above the loaded tokenizer
    text_kb = len(text.encode()) * 4 / 1024
    assert peaks[4] < peaks[1] + text_kb / 2, (peaks, text_kb)  # four times the text, not four times the memory


def test_the_command_line_writes_the_same_array(files, tmp_path):
    from bpe_course.cli import main
    out = tmp_path / "cli.npy"
    assert main(["encode", "--input", *map(str, files), "--separator", EOT, "--specials", "allow", "-o", str(out)]) == 0
    assert np.load(out).tolist() == expected_ids(gpt2(), files, EOT, allowed_special="all")
    for bad in (["encode", "--input", str(files[0])], ["encode", "--input", str(files[0]), "-o", "x.txt"],
                ["encode", "hello", "-o", str(out)], ["encode", "hi", "--input", str(files[0]), "-o", str(out)]):
        with pytest.raises(SystemExit) as stop:
            main(bad)
        assert stop.value.code == 2
