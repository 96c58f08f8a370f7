"""Saving and loading tokenizers.

The project's own format (``format="bpe-course"``) is one human-readable JSON file::

    {
      "format": "bpe-course",
      "version": 1,
      "pattern": "<the pre-tokenization regex, or null for none>",
      "pattern_name": "gpt2",              # informational: gpt2, gpt4, none or custom
      "special_tokens": {"<|endoftext|>": 50256},
      "vocab": {"0": "!", "1": "\\"", ..., "256": "Ġt"},
      "merges": ["Ġ t", "Ġ a", "h e", ...]  # in creation order: merge k has rank k
    }

Token bytes are written in GPT-2's printable byte alphabet (``bpe_course.bytelevel``), so a
space shows as ``Ġ`` and a merge is two tokens joined by one space, exactly as in GPT-2's
``vocab.bpe``. ``vocab`` leaves out the special tokens, which have their own table.

GPT-2's file pair (``encoder.json`` + ``vocab.bpe``) is read by :func:`read_gpt2_files`, and a
``.tiktoken`` rank file by :func:`read_tiktoken_ranks`.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import tempfile
from pathlib import Path

from .bytelevel import str_to_token, token_to_str
from .pretokenize import pattern_name

FORMAT_NAME = "bpe-course"
FORMAT_VERSION = 1


class TokenizerFileError(ValueError):
    """A tokenizer file that cannot be read; the message names the file and the line or key."""


def save(tokenizer, path: str | os.PathLike, format: str = FORMAT_NAME) -> None:
    """Write ``tokenizer`` to ``path`` in ``format``; nothing is left half-written on failure."""
    path = Path(path)
    if format == FORMAT_NAME:
        _write_atomic(path, json.dumps(to_json(tokenizer), ensure_ascii=False, indent=1) + "\n")
    elif format == "gpt2":
        path.mkdir(parents=True, exist_ok=True)
        encoder, merges_text = gpt2_file_texts(tokenizer)
        _write_atomic(path / "encoder.json", encoder)
        _write_atomic(path / "vocab.bpe", merges_text)
    else:
        raise ValueError(f"unknown tokenizer format {format!r}; known: {FORMAT_NAME!r}, 'gpt2'")


def load(path: str | os.PathLike, format: str | None = None):
    """Read a tokenizer saved by :func:`save`; the format is detected when not given."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no tokenizer at {path}")
    format = format or detect_format(path)
    if format == FORMAT_NAME:
        return from_json(_read_json(path), path)
    if format == "gpt2":
        from .tokenizer import Tokenizer
        vocab, merges, specials = read_gpt2_files(path / "encoder.json", path / "vocab.bpe")
        return Tokenizer(vocab, merges, specials, pattern="gpt2")
    raise ValueError(f"unknown tokenizer format {format!r}; known: {FORMAT_NAME!r}, 'gpt2'")


def detect_format(path: Path) -> str:
    if path.is_dir():
        if (path / "encoder.json").exists() and (path / "vocab.bpe").exists():
            return "gpt2"
        raise TokenizerFileError(f"{path}: a directory without encoder.json + vocab.bpe; cannot tell its format")
    head = path.read_bytes()[:200]
    if b'"format"' in head and FORMAT_NAME.encode() in head:
        return FORMAT_NAME
    raise TokenizerFileError(f"{path}: not a file format this version can detect; pass format=...")


def to_json(tokenizer) -> dict:
    special_ids = set(tokenizer.special_tokens.values())
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "pattern": tokenizer.pattern,
        "pattern_name": pattern_name(tokenizer.pattern) or "custom",
        "special_tokens": dict(tokenizer.special_tokens),
        "vocab": {str(i): token_to_str(t) for i, t in sorted(tokenizer.vocab.items()) if i not in special_ids},
        "merges": [f"{token_to_str(a)} {token_to_str(b)}" for a, b in tokenizer.merges],
    }


def from_json(data: dict, source: Path | str = "<json>"):
    from .tokenizer import Tokenizer
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise TokenizerFileError(f"{source}: not a {FORMAT_NAME} tokenizer file (no \"format\": \"{FORMAT_NAME}\")")
    if data.get("version") != FORMAT_VERSION:
        raise TokenizerFileError(f"{source}: format version {data.get('version')!r}; this version reads "
                                 f"{FORMAT_VERSION}")
    for key, kind in (("vocab", dict), ("merges", list), ("special_tokens", dict)):
        if not isinstance(data.get(key), kind):
            raise TokenizerFileError(f"{source}: \"{key}\" is missing or is not a JSON {kind.__name__}")
    vocab = {}
    for key, text in data["vocab"].items():
        try:
            vocab[int(key)] = str_to_token(text)
        except (ValueError, TypeError) as exc:
            raise TokenizerFileError(f"{source}: vocab entry {key!r}: {exc}") from None
    merges = [_parse_merge(m, f"{source}: merges[{k}]") for k, m in enumerate(data["merges"])]
    specials = {}
    for s, i in data["special_tokens"].items():
        if not isinstance(i, int):
            raise TokenizerFileError(f"{source}: special token {s!r} has id {i!r}, not an integer")
        vocab[i] = s.encode("utf-8")
        specials[s] = i
    try:
        return Tokenizer(vocab, merges, specials, pattern=data.get("pattern"))
    except ValueError as exc:
        raise TokenizerFileError(f"{source}: {exc}") from None


def _parse_merge(line: object, where: str) -> tuple[bytes, bytes]:
    parts = line.split(" ") if isinstance(line, str) else []
    if len(parts) != 2 or not all(parts):
        raise TokenizerFileError(f"{where}: expected two tokens separated by one space, got {line!r}")
    try:
        return str_to_token(parts[0]), str_to_token(parts[1])
    except ValueError as exc:
        raise TokenizerFileError(f"{where}: {exc}") from None


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TokenizerFileError(f"{path}: not UTF-8 (byte offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg} (truncated or damaged?)") from None


def read_gpt2_files(encoder_json: Path, vocab_bpe: Path) -> tuple[dict[int, bytes], list, dict[str, int]]:
    """Parse GPT-2's ``encoder.json`` (token -> id) and ``vocab.bpe`` (merges, one per line).

    Tokens that are neither a single byte nor made by a merge (``<|endoftext|>``) are the specials.
    """
    encoder = _read_json(Path(encoder_json))
    if not isinstance(encoder, dict):
        raise TokenizerFileError(f"{encoder_json}: expected a JSON object mapping tokens to ids")
    vocab: dict[int, bytes] = {}
    for text, i in encoder.items():
        if not isinstance(i, int):
            raise TokenizerFileError(f"{encoder_json}: token {text!r} has id {i!r}, not an integer")
        try:
            vocab[i] = str_to_token(text)
        except ValueError:
            vocab[i] = text.encode("utf-8")  # a special token written in plain text
    lines = Path(vocab_bpe).read_text(encoding="utf-8").split("\n")
    merges = []
    for n, line in enumerate(lines, start=1):
        if not line or (n == 1 and line.startswith("#version")):
            continue
        merges.append(_parse_merge(line, f"{vocab_bpe}, line {n}"))
    made = {a + b for a, b in merges}
    specials = {t.decode("utf-8", "replace"): i for i, t in vocab.items() if len(t) > 1 and t not in made}
    known = set(vocab.values())
    for k, (a, b) in enumerate(merges):
        if a + b not in known:
            raise TokenizerFileError(f"{vocab_bpe}: the merge on line {_merge_line(lines, k)} makes "
                                     f"{token_to_str(a + b)!r}, which {encoder_json} does not have")
    return vocab, merges, specials


def _merge_line(lines: list[str], k: int) -> int:
    header = 1 if lines and lines[0].startswith("#version") else 0
    return k + 1 + header


def gpt2_file_texts(tokenizer) -> tuple[str, str]:
    """The text of ``encoder.json`` and ``vocab.bpe`` for ``tokenizer`` (GPT-2's layout)."""
    encoder = {token_to_str(t): i for i, t in sorted(tokenizer.vocab.items())
               if i not in set(tokenizer.special_tokens.values())}
    encoder.update(tokenizer.special_tokens)
    merges = "".join(f"{token_to_str(a)} {token_to_str(b)}\n" for a, b in tokenizer.merges)
    return json.dumps(encoder, ensure_ascii=False), "#version: 0.2\n" + merges


def read_tiktoken_ranks(path: str | os.PathLike) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file: one ``<base64 token> <rank>`` per line."""
    ranks: dict[bytes, int] = {}
    with open(path, "rb") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            fields = line.split()
            try:
                if len(fields) != 2:
                    raise ValueError("expected '<base64 token> <rank>'")
                token, rank = base64.b64decode(fields[0], validate=True), int(fields[1])
            except (ValueError, binascii.Error) as exc:
                raise TokenizerFileError(f"{path}, line {n}: {exc}: {line[:80]!r}") from None
            if token in ranks:
                raise TokenizerFileError(f"{path}, line {n}: token {token!r} appears twice")
            ranks[token] = rank
    return ranks


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
