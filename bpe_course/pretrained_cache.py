"""The cache file of a pretrained tokenizer: its vocab, merges, specials and pattern, ready to use (plain data).

Recovering cl100k's or o200k's merges from their ranks takes seconds, parsing GPT-2's JSON a good
fraction of one; this file holds the result, so the next start-up only reads arrays. It is never
a source of truth: the header names the source files' sha256 it was made from, the whole file is
covered by a sha256, and anything that does not match makes :func:`unpack` raise
:class:`~bpe_course.errors.CacheMismatch` (the caller then rebuilds from the source).

Layout: the sha256 of everything after its line (64 hex digits and ``\\n``), one line of ASCII
JSON (the header), then the payload: five arrays of unsigned 32-bit integers (in the header's
byte order) or bytes::

    ids[n]      the token ids, in vocab order
    lengths[n]  the byte length of each token
    blob        the tokens' bytes, one after the other
    left[m]     where each merge's left part stands in vocab order (0 to n - 1; not its id)
    right[m]    where its right part stands

A file made from a :class:`~bpe_course.tokenizer.Tokenizer` that passed its checks says so in its
header (``"checked"``, with how that tokenizer ranks pairs), and :func:`load_tokenizer` then builds
it without running them again (:meth:`~bpe_course.tokenizer.Tokenizer.from_checked`): the checks were
most of the time of a start-up from the cache.

>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
>>> merges = [(b"o", b"w"), (b"l", b"ow")]
>>> data = pack("demo", {"demo.txt": "ab" * 32}, vocab, merges, {}, "gpt2")
>>> unpack(data, "demo", {"demo.txt": "ab" * 32}) == (vocab, merges, {}, "gpt2")
True
>>> unpack(data[:-1], "demo", {"demo.txt": "ab" * 32})
Traceback (most recent call last):
...
bpe_course.errors.CacheMismatch: the file's sha256 differs from the one it starts with (damaged)
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Callable
from functools import partial
from itertools import accumulate

from .errors import CacheMismatch
from .tokenizer import Tokenizer

FORMAT = "bpe-course-pretrained-cache"
VERSION = 3  # raise whenever the layout or what the loaders put into it changes: old files are then rebuilt


def pack(name: str, sources: dict[str, str], vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
         special_tokens: dict[str, int], pattern: str | None, ranks_by_id: bool | None = None) -> bytes:
    """The cache file's bytes for a tokenizer made from ``sources`` (file name -> sha256).

    ``ranks_by_id`` (:attr:`Tokenizer.ranks_by_id`) is given only for data that passed ``Tokenizer``'s
    checks (see :func:`pack_tokenizer`); the header then marks the file as checked.
    """
    special_ids = set(special_tokens.values())
    place = {token: k for k, (i, token) in enumerate(vocab.items()) if i not in special_ids}
    ids = array("I", vocab)
    lengths = array("I", map(len, vocab.values()))
    blob = b"".join(vocab.values())
    # subtle: positions, not ids, so that loading picks the parts out of a list (faster than a dict),
    # and each merge shares its parts' bytes objects with the vocab
    left = array("I", [place[a] for a, _ in merges])
    right = array("I", [place[b] for _, b in merges])
    payload = b"".join([ids.tobytes(), lengths.tobytes(), blob, left.tobytes(), right.tobytes()])
    header = {"format": FORMAT, "version": VERSION, "name": name, "sources": sources,
              "byteorder": sys.byteorder, "tokens": len(vocab), "merges": len(merges), "blob": len(blob),
              "special_tokens": special_tokens, "pattern": pattern}
    if ranks_by_id is not None:
        header["checked"] = {"ranks_by_id": bool(ranks_by_id)}
    body = json.dumps(header).encode("ascii") + b"\n" + payload
    return hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body


def pack_tokenizer(name: str, sources: dict[str, str], tokenizer: Tokenizer, pattern: str | None) -> bytes:
    """The cache file's bytes for ``tokenizer`` (built, so checked) with ``pattern``, made from ``sources``."""
    return pack(name, sources, tokenizer.vocab, tokenizer.merges, tokenizer.special_tokens, pattern,
                tokenizer.ranks_by_id)


def load_tokenizer(data: bytes, name: str, sources: dict[str, str]) -> Tokenizer:
    """The tokenizer a cache file holds (with its pattern): without ``Tokenizer``'s checks when the file says
    they were passed, else with them. Raises :class:`CacheMismatch` as :func:`unpack` does."""
    vocab, merges, specials, pattern, header = _read(data, name, sources)
    checked = header.get("checked")
    if isinstance(checked, dict) and isinstance(checked.get("ranks_by_id"), bool):
        return Tokenizer.from_checked(vocab, merges, specials, pattern, checked["ranks_by_id"], header["merges"])
    return Tokenizer(vocab, merges(), specials, pattern)


def unpack(data: bytes, name: str, sources: dict[str, str]
           ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int], str | None]:
    """``(vocab, merges, special_tokens, pattern)`` from a cache file made by :func:`pack` from the same sources.

    Raises :class:`CacheMismatch` saying why when the file is not exactly that.
    """
    vocab, merges, specials, pattern, _ = _read(data, name, sources)
    return vocab, merges(), specials, pattern


def _read(data: bytes, name: str, sources: dict[str, str]
          ) -> tuple[dict[int, bytes], Callable[[], list], dict[str, int], str | None, dict]:
    """:func:`unpack`'s result, with a function that makes the merges (they are made when first needed:
    encoding never needs them), and the file's header."""
    body = memoryview(data)[65:]
    if len(data) < 65 or data[64:65] != b"\n" or hashlib.sha256(body).hexdigest().encode("ascii") != data[:64]:
        raise CacheMismatch("the file's sha256 differs from the one it starts with (damaged)")
    end = data.find(b"\n", 65)
    try:
        header = json.loads(data[65:end]) if end > 0 else None
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested 100,000 deep: not our header
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CacheMismatch("not a pretrained-tokenizer cache file")
    expected = {"version": VERSION, "name": name, "sources": sources, "byteorder": sys.byteorder}
    stale = [key for key, value in expected.items() if header.get(key) != value]
    if stale:
        raise CacheMismatch(f"made for another {', '.join(stale)}")
    payload = memoryview(data)[end + 1:]
    try:
        n, m, n_blob, specials = header["tokens"], header["merges"], header["blob"], header["special_tokens"]
        pattern = header["pattern"]
        if (len(payload) != 8 * n + n_blob + 8 * m or not isinstance(specials, dict)
                or not isinstance(pattern, (str, type(None)))):
            raise CacheMismatch("the header's sizes do not add up")
        ids, lengths = array("I"), array("I")
        ids.frombytes(payload[:4 * n])
        lengths.frombytes(payload[4 * n:8 * n])
        blob = payload[8 * n:8 * n + n_blob].tobytes()
        left, right = array("I"), array("I")
        left.frombytes(payload[8 * n + n_blob:8 * n + n_blob + 4 * m])
        right.frombytes(payload[8 * n + n_blob + 4 * m:])
        ends = list(accumulate(lengths))
        if ends and ends[-1] != n_blob:
            raise CacheMismatch("the token lengths do not add up to the blob")
        tokens = list(map(blob.__getitem__, map(slice, [0, *ends], ends)))  # subtle: in C, not a loop of slices
        vocab = dict(zip(ids, tokens))
        if m and max(max(left), max(right)) >= n:
            raise CacheMismatch("a merge's part is no token of the file")
        merges = partial(_merges, tokens, left, right)
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CacheMismatch):
            raise
        raise CacheMismatch(f"inconsistent contents ({type(exc).__name__}: {exc})") from None
    return vocab, merges, specials, pattern, header


def _merges(tokens: list[bytes], left: array, right: array) -> list[tuple[bytes, bytes]]:
    """The merges of a cache file, from where their parts stand among its tokens."""
    return list(zip(map(tokens.__getitem__, left), map(tokens.__getitem__, right)))
