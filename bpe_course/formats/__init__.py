"""Tokenizer files in four formats, as plain data: the format detected on load.

====================  ==================================================  =====================================
``format=``           what is written                                     read by
====================  ==================================================  =====================================
``"bpe-course"``      one versioned JSON file (default name               ``Tokenizer.load``
                      ``bpe_course.json``), everything exact
``"hf"``              Hugging Face ``tokenizer.json``                     ``tokenizers.Tokenizer.from_file``
``"tiktoken"``        ``tokenizer.tiktoken`` ranks + ``.tiktoken.json``   ``tiktoken.load.load_tiktoken_bpe``
                      sidecar (pattern, specials)
``"gpt2"``            a directory with ``encoder.json`` + ``vocab.bpe``   GPT-2's own code, HF ``BPE.from_file``
====================  ==================================================  =====================================

Each format lives in its own module (``native``, ``hf``, ``tiktoken_bpe``, ``gpt2``), whose
docstring gives its exact behaviour. Two more modules read vendors' files that are never written
here: ``tekken`` (Mistral's Tekken JSON: ranks, regex, specials) and ``sentencepiece`` (a
SentencePiece ``.model``: pieces, scores, kinds, normaliser settings). Formats read and write plain data (:class:`TokenizerData`:
vocab, merges, special tokens, pattern) and never build a ``Tokenizer``; ``Tokenizer.save`` and
``Tokenizer.load`` are the only places that cross that line. ``save(data, path)`` writes into
``path``; when ``path`` is an existing directory, a file format goes to its default file name
inside it. ``load(path)`` accepts a file, or a directory holding exactly one saved tokenizer.
Every broken file raises :class:`~bpe_course.errors.TokenizerFileError` naming the file and the
line or JSON key.

A save is all or nothing (:func:`save`): killed at any moment, it leaves the complete old
tokenizer or the complete new one, and the other files in the folder as they were. A two-file
pair mixed up by hand (a GPT-2 ``encoder.json`` beside another tokenizer's ``vocab.bpe``, a
``.tiktoken`` file beside another's sidecar) is refused on loading, naming both files.

>>> import tempfile, pathlib
>>> from bpe_course import GPT2_PATTERN
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
>>> data = TokenizerData(vocab, [(b"o", b"w"), (b"l", b"ow")], {}, GPT2_PATTERN)
>>> with tempfile.TemporaryDirectory() as tmp:
...     for fmt in FORMATS:
...         save(data, pathlib.Path(tmp) / fmt, format=fmt)
...         print(fmt, detect_format(pathlib.Path(tmp) / fmt), load(pathlib.Path(tmp) / fmt) == data)
bpe-course bpe-course True
hf hf True
tiktoken tiktoken True
gpt2 gpt2 True
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import cast

from ..bpe import merges_from_ranks
from ..errors import TokenizerFileError
from ..files import current_file, file_names, read_utf8, write_atomic
from .common import TokenizerData, parse_json
from .gpt2 import gpt2_file_texts, load_gpt2, read_gpt2_files, save_gpt2
from .hf import load_hf, save_hf
from .native import FORMAT_NAME, FORMAT_VERSION, from_json, to_json, to_json_text
from .sentencepiece import SentencePieceModel, read_model
from .tekken import read_tekken
from .tiktoken_bpe import (NO_PATTERN_FOR_TIKTOKEN, SIDECAR_FORMAT, Recover, load_tiktoken, read_tiktoken_ranks,
                           save_tiktoken, sidecar_path)

__all__ = ["FORMATS", "FORMAT_NAME", "FORMAT_VERSION", "DEFAULT_FILENAMES", "NO_PATTERN_FOR_TIKTOKEN", "SentencePieceModel",
           "TokenizerData",
           "detect_format", "from_json", "gpt2_file_texts", "load", "read_gpt2_files", "read_model", "read_tekken",
           "read_tiktoken_ranks", "save", "to_json"]

FORMATS = ("bpe-course", "hf", "tiktoken", "gpt2")
# The file each format is written to inside a directory ("gpt2" is the directory itself).
DEFAULT_FILENAMES = {"bpe-course": "bpe_course.json", "hf": "tokenizer.json", "tiktoken": "tokenizer.tiktoken"}
_TIKTOKEN_LINE = re.compile(rb"^[A-Za-z0-9+/=]+ \d+\r?$")
PASS_FORMAT = "pass format=..."  # the hint for Python callers (the command line leaves it out)


def save(tokenizer, path: str | os.PathLike, format: str = FORMAT_NAME, recover: Recover = merges_from_ranks) -> None:
    """Write ``tokenizer`` (anything with vocab, merges, special_tokens, pattern) to ``path`` in ``format``.

    A save is all or nothing, whatever moment it fails or the process is killed at: the files are
    written under temporary names beside their targets and renamed into place, and the two-file
    formats (``gpt2``, ``tiktoken``) change both files as one (see
    :func:`bpe_course.files.write_files_atomic`), so what is on disk is always the complete old
    tokenizer or the complete new one. Other files in the folder are never touched.
    """
    path = Path(path)
    _check_format(format)
    if format == "gpt2":
        save_gpt2(tokenizer, path)
        return
    if path.is_dir():
        path = path / DEFAULT_FILENAMES[format]
    if format == FORMAT_NAME:
        write_atomic(path, to_json_text(tokenizer))
    elif format == "hf":
        save_hf(tokenizer, path)
    else:
        save_tiktoken(tokenizer, path, recover)


def load(path: str | os.PathLike, format: str | None = None, recover: Recover = merges_from_ranks) -> TokenizerData:
    """Read a tokenizer saved in any of :data:`FORMATS`; the format is detected when not given.

    ``recover`` turns a ``.tiktoken`` file's ranks into merges (:func:`bpe_course.bpe.merges_from_ranks`
    unless the caller passes a faster equivalent, as ``Tokenizer.load`` does).
    """
    path = Path(path)
    if not current_file(path).exists():
        raise FileNotFoundError(f"no tokenizer at {path}")
    if format is not None:
        _check_format(format)
    format, target, data = _resolve(path, format)
    if format == FORMAT_NAME:
        return from_json(parse_json(read_utf8(target, TokenizerFileError), target) if data is None else data, target)
    if format == "hf":
        return load_hf(target, data)
    if format == "tiktoken":
        return load_tiktoken(target, recover=recover)
    return load_gpt2(target)


def detect_format(path: str | os.PathLike) -> str:
    """The format of a saved tokenizer: by file names first, then by the file's content."""
    return _resolve(Path(path), None)[0]


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(f"unknown tokenizer format {format!r}; known: {', '.join(map(repr, FORMATS))}")


def _resolve(path: Path, format: str | None) -> tuple[str, Path, dict | None]:
    """``(format, the file or directory to read, the parsed JSON if we already read it)``."""
    if path.is_dir():
        return _resolve_dir(path, format)
    if format == "gpt2" or (format is None and path.name in ("encoder.json", "vocab.bpe")):
        return "gpt2", path.parent, None
    if path.name.endswith(".tiktoken.json") and format in (None, "tiktoken"):
        return "tiktoken", path.with_name(path.name[:-len(".json")]), None
    if format == "tiktoken" or (format is None and path.suffix == ".tiktoken"):
        return "tiktoken", path, None
    head = current_file(path).read_bytes()[:4096]
    if head.lstrip()[:1] != b"{":
        first = head.split(b"\n", 1)[0]
        if format is None and _TIKTOKEN_LINE.match(first):
            return "tiktoken", path, None
        if format is None:
            raise TokenizerFileError(f"{path}: not a tokenizer file this version can recognise (not JSON, not "
                                     "'<base64> <rank>' lines); " + PASS_FORMAT)
    data = parse_json(read_utf8(current_file(path), TokenizerFileError), path)
    found = _json_format(data)
    if format is None and found is None:
        raise TokenizerFileError(f"{path}: JSON that is neither a bpe-course tokenizer (\"format\": "
                                 f"\"{FORMAT_NAME}\") nor a Hugging Face tokenizer.json (\"model\"); " + PASS_FORMAT)
    if found == "tiktoken":
        return "tiktoken", path.with_name(path.name.removesuffix(".json")), None
    return format or cast(str, found), path, data  # found is None only with a format given (raised above)


def _json_format(data: object) -> str | None:
    if not isinstance(data, dict):
        return None
    if data.get("format") == FORMAT_NAME:
        return FORMAT_NAME
    if data.get("format") == SIDECAR_FORMAT:
        return "tiktoken"
    return "hf" if "model" in data else None


def _resolve_dir(path: Path, format: str | None) -> tuple[str, Path, dict | None]:
    found = {}
    if all(current_file(path / name).is_file() for name in ("encoder.json", "vocab.bpe")):
        found["gpt2"] = path
    for fmt in ("bpe-course", "hf"):
        if (path / DEFAULT_FILENAMES[fmt]).is_file():
            found[fmt] = path / DEFAULT_FILENAMES[fmt]
    ranks = [path / name for name in file_names(path, "*.tiktoken")
             if current_file(sidecar_path(path / name)).is_file()]
    if len(ranks) == 1 or (ranks and format == "tiktoken"):
        found["tiktoken"] = ranks[0]
    if format is not None:
        if format not in found:
            where = "encoder.json + vocab.bpe" if format == "gpt2" else DEFAULT_FILENAMES[format]
            raise TokenizerFileError(f"{path}: a directory without a {format} tokenizer ({where})")
        return format, found[format], None
    if len(found) != 1:
        what = "no saved tokenizer" if not found else f"tokenizers in several formats ({', '.join(found)})"
        raise TokenizerFileError(f"{path}: a directory with {what}; give the file itself, or {PASS_FORMAT} "
                                 f"(file names: encoder.json + vocab.bpe, {', '.join(DEFAULT_FILENAMES.values())})")
    (format, target), = found.items()
    return format, target, None
