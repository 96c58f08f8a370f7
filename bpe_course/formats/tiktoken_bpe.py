"""tiktoken's rank file (``format="tiktoken"``): ``name.tiktoken`` plus a JSON sidecar ``name.tiktoken.json``.

A ``.tiktoken`` file has one line per ordinary token, ``<base64 of its bytes> <rank>``, in rank
order. For tiktoken a rank is both the token's id *and* its merge priority, and the file holds
nothing else, so the pattern and the special tokens are written beside it::

    {"format": "bpe-course-tiktoken", "version": 1, "pattern": "...", "pattern_name": "gpt4",
     "special_tokens": {"<|endoftext|>": 1256}, "ranks": 1256, "sha256": "<of name.tiktoken>"}

Loading rebuilds the merge list from the ranks (:func:`bpe_course.bpe.merges_from_ranks`, or the
function passed as ``recover``: the engine passes one that takes very long tokens in near-linear time).

Ids must be ranks. ``train_bpe``'s layout (bytes, then merges, then specials) and GPT-2's (bytes
in GPT-2's own order) both are: what matters is that the token made by merge ``k`` has a
smaller id than the one made by merge ``k + 1``, and that every multi-byte ordinary token is
made by exactly one merge. A tokenizer that breaks this (ids in some other order, or a token no
merge makes) cannot be written without changing its ids: :func:`save_tiktoken` raises and names
the culprit; ``Tokenizer.renumbered()`` gives the same tokenizer with rank ids (ids change, splits don't).

The two files are written as one change (:func:`bpe_course.files.write_files_atomic`): a save
killed at any moment leaves the old pair or the new one. A pair mixed up by hand is refused on
loading: the sidecar records how many ranks its ``.tiktoken`` file has, and its sha256.

Round trips keep vocab, ids, specials and pattern; the merge list is the one rebuilt from ranks,
which for every tokenizer we have tried (trained, GPT-2, cl100k) is the original list. Where it
is not, each merge still makes the same token, so encoding is unchanged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..bytelevel import token_to_str
from ..errors import TokenizerFileError
from ..bpe import first_merge_ranks, merges_from_ranks
from ..files import current_file, write_files_atomic
from ..pretokenize import pattern_name, resolve_pattern
from .common import MAX_ID, TokenizerData, is_id, read_json, special_token_bytes

Recover = Callable[[dict[bytes, int]], list[tuple[bytes, bytes]]]  # ranks -> merges (merges_from_ranks)

SIDECAR_FORMAT = "bpe-course-tiktoken"
SIDECAR_VERSION = 1
NO_PATTERN_FOR_TIKTOKEN = r"[\s\S]+"  # tiktoken needs some regex; this one keeps the text whole


def sidecar_path(path: str | os.PathLike) -> Path:
    """Where the pattern and specials of ``path`` live: ``name.tiktoken`` -> ``name.tiktoken.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def read_tiktoken_ranks(path: str | os.PathLike, data: bytes | None = None) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file: one ``<base64 token> <rank>`` per line (``data``: its bytes, if read already)."""
    return _read_ranks(Path(path), data)[0]


def _read_ranks(path: Path, data: bytes | None = None) -> tuple[dict[bytes, int], dict[int, int]]:
    """The ranks and, for each rank, its line number; every error names the file and line."""
    data = current_file(path).read_bytes() if data is None else data
    found = _read_plain_ranks(data)
    return found if found is not None else _read_ranks_by_line(path, data)


def _read_ranks_by_line(path: Path, data: bytes) -> tuple[dict[bytes, int], dict[int, int]]:
    """:func:`_read_ranks` a line at a time, naming the line of whatever is wrong."""
    ranks: dict[bytes, int] = {}
    line_of: dict[int, int] = {}
    lines = data.split(b"\n")
    if data and not data.endswith(b"\n") and len(lines[-1].split()) != 2:
        # subtle: a cut that leaves "<base64> <rank digits>" is caught later by the sidecar's rank count
        raise TokenizerFileError(f"{path}, line {len(lines)}: the file ends in the middle of a line "
                                 f"(truncated?): {lines[-1][:80]!r}")
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            if len(fields) != 2:
                raise ValueError("expected '<base64 token> <rank>'")
            if not (fields[1].isdigit() and len(fields[1]) <= len(str(MAX_ID)) and int(fields[1]) <= MAX_ID):
                raise ValueError(f"the rank is not ASCII digits from 0 to {MAX_ID}")  # int() takes "+1", "1_0"
            token, rank = base64.b64decode(fields[0], validate=True), int(fields[1])
        except (ValueError, binascii.Error) as exc:
            raise TokenizerFileError(f"{path}, line {n}: {exc}: {line[:80]!r}") from None
        if token in ranks:
            raise TokenizerFileError(f"{path}, line {n}: token {token!r} appears twice")
        if rank in line_of:
            raise TokenizerFileError(f"{path}, line {n}: rank {rank} is already used on line {line_of[rank]}")
        ranks[token] = rank
        line_of[rank] = n
    return ranks, line_of


# subtle: exactly base64.b64decode(s, validate=True), which since Python 3.11 is this strict C call
_B64DECODE: Callable[[bytes], bytes] = (
    partial(binascii.a2b_base64, **{"strict_mode": True}) if sys.version_info >= (3, 11)  # a 3.11 keyword
    else partial(base64.b64decode, validate=True))
_PLAIN_LINES = re.compile(rb"(?:[A-Za-z0-9+/]+={0,2} [0-9]{1,%d}\n)*" % len(str(MAX_ID)))


def _read_plain_ranks(data: bytes) -> tuple[dict[bytes, int], dict[int, int]] | None:
    """:func:`_read_ranks` for a file written as tiktoken writes one, every step in C; None for any other file.

    subtle: a file whose every line is ``<base64> <digits>\n`` (no blank line, one space, the base64
    in the alphabet ``b64decode(validate=True)`` checks) holds nothing the line-by-line reader would name
    but a base64 string of a wrong length, a rank too big, a token or a rank twice: each is checked here
    over the whole file, and any of them leaves the file to the line-by-line reader, which names it. A
    ``.tiktoken`` file of 200,000 lines is read about ten times faster.
    """
    if not _PLAIN_LINES.fullmatch(data):
        return None
    fields = data.split()
    try:
        tokens = list(map(_B64DECODE, fields[0::2]))
    except binascii.Error:
        return None
    ranks_read = list(map(int, fields[1::2]))
    if ranks_read and max(ranks_read) > MAX_ID:
        return None
    ranks = dict(zip(tokens, ranks_read))
    line_of = dict(zip(ranks_read, range(1, len(ranks_read) + 1)))
    if len(ranks) != len(tokens) or len(line_of) != len(tokens):
        return None
    return ranks, line_of


def check_ids_are_ranks(tokenizer) -> dict[bytes, int]:
    """The tokenizer's ordinary tokens as tiktoken ranks, or ``ValueError`` saying why its ids are not ranks."""
    special_ids = set(tokenizer.special_tokens.values())
    ranks = {t: i for i, t in tokenizer.vocab.items() if i not in special_ids}
    hint = ("; tokenizer.renumbered() gives the same tokenizer with ids that are "
            "ranks (the ids change), or save in the 'bpe-course' or 'hf' format")
    made = first_merge_ranks(tokenizer.merges)
    previous = -1
    for k, (a, b) in enumerate(tokenizer.merges):
        token = a + b
        if made[token] != k:
            raise ValueError(f"merges {made[token]} and {k} both make {token_to_str(token)!r}; in a .tiktoken "
                             f"file every token has one rank{hint}")
        if ranks[token] <= previous:
            raise ValueError(f"ids are not ranks: merge {k} makes {token_to_str(token)!r} with id {ranks[token]}, "
                             f"not above the id {previous} made by merge {k - 1}; tiktoken merges in id order"
                             f"{hint}")
        previous = ranks[token]
    unmade = [t for t in ranks if len(t) > 1 and t not in made]
    if unmade:
        raise ValueError(f"{len(unmade)} ordinary tokens (e.g. {token_to_str(unmade[0])!r}, id {ranks[unmade[0]]}) "
                         f"are made by no merge, but tiktoken would merge into them by their rank{hint}")
    return ranks


def tiktoken_file_bytes(ranks: dict[bytes, int]) -> bytes:
    """The ``.tiktoken`` text: tokens in rank order, as tiktoken's own ``dump_tiktoken_bpe`` writes them."""
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n"
                    for t, r in sorted(ranks.items(), key=lambda item: item[1]))


def save_tiktoken(tokenizer, path: str | os.PathLike, recover: Recover = merges_from_ranks) -> None:
    """Write ``path`` (the ranks) and its sidecar (pattern, specials); raise if ids are not ranks."""
    path = Path(path)
    ranks = check_ids_are_ranks(tokenizer)
    try:
        recover(ranks)  # subtle: fail now rather than write a file that cannot be read back
    except ValueError as exc:
        raise ValueError(f"cannot write a .tiktoken file that loads back: {exc}") from None
    data = tiktoken_file_bytes(ranks)
    sidecar = {"format": SIDECAR_FORMAT, "version": SIDECAR_VERSION, "tiktoken_file": path.name,
               "pattern": tokenizer.pattern, "pattern_name": pattern_name(tokenizer.pattern) or "custom",
               "special_tokens": dict(tokenizer.special_tokens), "ranks": len(ranks),
               "sha256": hashlib.sha256(data).hexdigest()}
    write_files_atomic(path.parent, {path.name: data,
                                     sidecar_path(path).name: json.dumps(sidecar, ensure_ascii=False, indent=1) + "\n"})


def read_sidecar(path: Path) -> dict:
    """The checked sidecar of ``path``: pattern, special tokens, rank count and sha256."""
    side = current_file(sidecar_path(path))
    if not side.is_file():
        with open(current_file(path), "rb") as f:
            if f.read(4096).lstrip()[:1] == b"{":
                raise TokenizerFileError(f"{path}: JSON, not a .tiktoken file (an older tok.save(name) wrote the "
                                         "bpe-course format under this name): load it with format='bpe-course'")
        raise TokenizerFileError(
            f"{path}: a .tiktoken file holds ranks only, and its pattern and special tokens ({side.name}) are "
            "missing. For OpenAI's cl100k_base.tiktoken use bpe_course.cl100k(); for another file call "
            "bpe_course.Tokenizer(*bpe_course.formats.tiktoken_bpe.load_tiktoken(path, pattern=..., special_tokens={...}))")
    data = read_json(side)
    if not isinstance(data, dict) or data.get("format") != SIDECAR_FORMAT:
        raise TokenizerFileError(f"{side}: not a .tiktoken sidecar (no \"format\": \"{SIDECAR_FORMAT}\")")
    if data.get("version") != SIDECAR_VERSION:
        raise TokenizerFileError(f"{side}: version {data.get('version')!r}; this version reads {SIDECAR_VERSION}")
    if not isinstance(data.get("special_tokens"), dict):
        raise TokenizerFileError(f"{side}: \"special_tokens\" is missing or is not a JSON object")
    if "pattern" not in data or not isinstance(data["pattern"], (str, type(None))):
        raise TokenizerFileError(f"{side}: \"pattern\" is missing or is not a regex string or null")
    return data


def load_tiktoken(path: str | os.PathLike, pattern: str | None = None,
                  special_tokens: dict | None = None, recover: Recover = merges_from_ranks) -> TokenizerData:
    """Read a ``.tiktoken`` file (and its sidecar).

    The pattern and specials come from the sidecar, unless ``pattern`` is given (``"gpt2"``,
    ``"gpt4"``, ``"none"`` or a regex): then the sidecar is not read and ``special_tokens``
    (``{text: id}``, default none) is used -- the way to read a bare ``.tiktoken`` file.
    """
    path = Path(path)
    if not current_file(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    side = read_sidecar(path) if pattern is None else None
    data = current_file(path).read_bytes()
    ranks, line_of = _read_ranks(path, data)
    where_specials = "special_tokens"
    if side is not None:
        pattern, special_tokens = side["pattern"], side["special_tokens"]
        where_specials = f"{sidecar_path(path)}: special_tokens"
        if side.get("ranks") != len(ranks):
            raise TokenizerFileError(f"{path}: {len(ranks)} ranks, but {sidecar_path(path).name} says "
                                     f"{side.get('ranks')!r}: the file is truncated or is not the one saved with it")
        if side.get("sha256") and hashlib.sha256(data).hexdigest() != side["sha256"]:
            raise TokenizerFileError(f"{path}: its sha256 differs from the one in {sidecar_path(path).name}: the "
                                     "file changed since it was saved")
    else:
        pattern = resolve_pattern(pattern)
    vocab = {rank: token for token, rank in ranks.items()}
    specials = {}
    for s, i in (special_tokens or {}).items():
        if not is_id(i) or i in vocab:
            raise TokenizerFileError(f"{where_specials}[{s!r}] has id {i!r}, which is not a "
                                     f"free integer from 0 to {MAX_ID} (ranks use it, or it is not one)")
        vocab[i] = special_token_bytes(s, where_specials)
        specials[s] = i
    try:
        merges = recover(ranks)
    except ValueError as exc:
        found = re.search(r"\(rank (\d+)\)", str(exc))
        where = f"{path}, line {line_of[int(found.group(1))]}" if found else str(path)
        raise TokenizerFileError(f"{where}: {exc}") from None
    return TokenizerData(vocab, merges, specials, pattern)
