"""Mistral's Tekken file (``tekken_240911.json``) as plain data: ranks, the regex, special tokens.

A Tekken file is JSON: ``config`` (``pattern``, ``default_vocab_size``, ``default_num_special_tokens``),
``vocab`` (one entry per rank, ``token_bytes`` in base64) and, in newer files, ``special_tokens``.
Its ranks start at 0 as in a ``.tiktoken`` file; a token's id is its rank plus the number of
reserved special ids (1,000 in ``tekken_240911.json``), which come first.

>>> import json, base64, tempfile, pathlib
>>> vocab = [{"rank": r, "token_bytes": base64.b64encode(bytes([r])).decode()} for r in range(256)]
>>> config = {"pattern": r"\\S+|\\s+", "default_vocab_size": 256 + 3, "default_num_special_tokens": 3}
>>> specials = [{"rank": i, "token_str": s} for i, s in enumerate(["<unk>", "<s>", "</s>"])]
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = pathlib.Path(tmp) / "tekken.json"
...     _ = path.write_text(json.dumps({"config": config, "vocab": vocab, "special_tokens": specials}))
...     ranks, pattern, specials = read_tekken(path)
>>> len(ranks), pattern, specials
(256, '\\\\S+|\\\\s+', {'<unk>': 0, '<s>': 1, '</s>': 2})
"""

from __future__ import annotations

import base64
import os
from typing import Any, TypeVar

from ..errors import TokenizerFileError
from ..files import decode_utf8, read_bytes_limited
from .common import parse_json

TEKKEN_KEYS = ("(a Tekken file has config.pattern, config.default_vocab_size, config.default_num_special_tokens "
               "and vocab, a list of {rank, token_bytes})")
T = TypeVar("T")
MAX_TEKKEN_BYTES = 1 << 28  # 256 MiB: a larger Tekken file is refused unread (tekken_240911.json is 19 MB)

# A Tekken file of version v3 without a "special_tokens" list (tekken_240911.json) reserves its first
# ids for these, in this order, and names the rest <SPECIAL_20>, <SPECIAL_21>... (mistral-common's
# Tekkenizer.DEPRECATED_SPECIAL_TOKENS and SPECIAL_TOKEN_TEMPLATE).
TEKKEN_SPECIALS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                   "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                   "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]


def read_tekken(path: str | os.PathLike, data: bytes | None = None) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """A Tekken file's ranks (the ``default_vocab_size`` minus the reserved ids), regex and special tokens
    (``data``: the file's bytes, when the caller has read them already).

    A file that mistral-common would not read, or would read otherwise, is refused with one line
    naming the file and the JSON place: a value of the wrong type, a rank out of place, ``token_bytes`` that is not base64 (Python's
    decoder would drop the bad characters and read another token), the 256 single bytes not first.
    """
    if data is None:
        data = read_bytes_limited(path, TokenizerFileError, MAX_TEKKEN_BYTES, "Tekken file")  # never /dev/zero, 10 GB
    try:
        top = parse_json(decode_utf8(data, path, TokenizerFileError), path)
    except TokenizerFileError as exc:
        raise TokenizerFileError(f"{path}: not a Tekken JSON file ({str(exc).removeprefix(f'{path}: ')})") from None
    top = _tekken_value(path, top, "", dict)
    for key in ("config", "vocab"):
        if key not in top:
            raise TokenizerFileError(f"{path}: no key {key!r} {TEKKEN_KEYS}")
    config = _tekken_value(path, top["config"], "config", dict)
    for key in ("pattern", "default_vocab_size", "default_num_special_tokens"):
        if key not in config:
            raise TokenizerFileError(f"{path}: no key 'config.{key}' {TEKKEN_KEYS}")
    pattern = _tekken_value(path, config["pattern"], "config.pattern", str)
    n_vocab = _tekken_value(path, config["default_vocab_size"], "config.default_vocab_size", int)
    n_special = _tekken_value(path, config["default_num_special_tokens"], "config.default_num_special_tokens", int)
    entries = _tekken_value(path, top["vocab"], "vocab", list)
    if not 0 <= n_vocab - n_special <= len(entries):
        raise TokenizerFileError(f"{path}: config.default_vocab_size - config.default_num_special_tokens is "
                                 f"{n_vocab - n_special:,}, but vocab has {len(entries):,} entries (mistral-common "
                                 "refuses the file too)")
    ranks: dict[bytes, int] = {}
    for position, entry in enumerate(entries[:n_vocab - n_special]):
        where = f"vocab[{position}]"
        entry = _tekken_value(path, entry, where, dict)
        if _tekken_value(path, entry.get("rank"), f"{where}.rank", int) != position:
            raise TokenizerFileError(f"{path}: {where} has rank {entry['rank']}, expected {position}")
        encoded = _tekken_value(path, entry.get("token_bytes"), f"{where}.token_bytes", str)
        try:
            token = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise TokenizerFileError(f"{path}: {where}.token_bytes {encoded[:40]!r} is not base64") from None
        if not token or (position < 256 and token != bytes([position])):
            raise TokenizerFileError(f"{path}: {where}.token_bytes is {token!r}; " + (
                "a token has at least one byte" if not token else f"the first 256 ranks are the single bytes in "
                                                                  f"order, so rank {position} is {bytes([position])!r}"))
        if token in ranks:
            raise TokenizerFileError(f"{path}: {where} holds the token {token!r} of vocab[{ranks[token]}] again")
        ranks[token] = position
    if "special_tokens" in top:
        specials = _tekken_value(path, top["special_tokens"], "special_tokens", list)
        names: list[str] = []
        for position, entry in enumerate(specials):
            where = f"special_tokens[{position}]"
            entry = _tekken_value(path, entry, where, dict)
            name = _tekken_value(path, entry.get("token_str"), f"{where}.token_str", str)
            if _tekken_value(path, entry.get("rank"), f"{where}.rank", int) != position:
                raise TokenizerFileError(f"{path}: {where} has rank {entry['rank']}, expected {position}")
            if not name or name in names:
                raise TokenizerFileError(f"{path}: {where} is {name!r}, " + ("empty" if not name else
                                         f"the name of special_tokens[{names.index(name)}] too"))
            names.append(name)
    else:
        names = list(TEKKEN_SPECIALS)
    if not 0 <= len(names) <= n_special:
        raise TokenizerFileError(f"{path}: {len(names)} special tokens but only {n_special} reserved ids "
                                 "(config.default_num_special_tokens)")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), n_special)]
    return ranks, pattern, {name: i for i, name in enumerate(names)}


def _tekken_value(path: str | os.PathLike, value: Any, where: str, kind: type[T]) -> T:
    """``value``, read from a Tekken file at ``where``, if it is of the JSON type ``kind`` (an int: not a bool,
    never negative); else a ``TokenizerFileError`` naming the file, the place and what it found."""
    wrong_number = isinstance(value, bool) or (isinstance(value, int) and value < 0)  # JSON's true; a negative rank
    if isinstance(value, kind) and not wrong_number:
        return value
    wanted = {dict: "a JSON object", list: "a JSON list", str: "a string", int: "a whole number of at least 0"}[kind]
    found = ("missing (or null)" if value is None else str(value).lower() if isinstance(value, bool) else
             f"a string ({value[:40]!r})" if isinstance(value, str) else f"a number ({value})" if isinstance(
                 value, (int, float)) else f"a JSON {'object' if isinstance(value, dict) else 'list'}")
    raise TokenizerFileError(f"{path}: {where or 'the file'} is {found}, not {wanted} {TEKKEN_KEYS}")
