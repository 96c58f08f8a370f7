"""Download a larger corpus once into a local cache (for learners who are online).

Nothing in the course needs this: the built-in corpora (:func:`bpe_course.corpus.load`) work
offline. A download goes to ``<cache>/<file>.part`` first, resumes an interrupted transfer
with an HTTP ``Range`` request, and is renamed into place only after its sha256 matches.
Only the standard library (urllib) and tqdm are used.

>>> sorted(SOURCES)
['tiny-shakespeare', 'tinystories-valid']
>>> default_cache_dir({"BPE_COURSE_CACHE": "/tmp/bpe"}).as_posix()
'/tmp/bpe'
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import CorpusError
from .files import sha256_file

if TYPE_CHECKING:
    import http.client

# subtle: urllib, http.client and tqdm are imported by the functions that use them: together they
# take 40 ms, a fifth of every start-up of the package (this module gives pretrained its cache folder).

CHUNK = 1 << 16


@dataclass(frozen=True)
class Source:
    """A downloadable file: where it is, what it is called in the cache, and how to check it."""

    url: str
    filename: str
    size: int | None  # bytes; None when not known
    sha256: str | None  # None when no trustworthy hash is known: download() then warns and records it
    licence: str


SOURCES = {
    # The TinyStories validation split (Eldan & Li, 2023). Size and sha256 are the Hugging Face
    # Git LFS metadata of TinyStories-valid.txt (unchanged between dataset revisions 5485261 and
    # f54c09f), as pinned in several public projects that verify this file.
    "tinystories-valid": Source(
        url="https://huggingface.co/datasets/roneneldan/TinyStories/resolve/main/TinyStories-valid.txt",
        filename="TinyStories-valid.txt",
        size=19_447_282,
        sha256="94e431816c4cce81ff71e4408ff8d3bda9a42e8d2663986697c3954288cb38b4",
        licence="CDLA-Sharing-1.0",
    ),
    # Karpathy's char-rnn "tiny shakespeare" (40,000 lines of Shakespeare). The repository
    # publishes no checksum; this sha256 and size are the ones independent public projects pin
    # for this exact URL (they agree), i.e. the file as it has been served since 2015.
    "tiny-shakespeare": Source(
        url="https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt",
        filename="tiny-shakespeare.txt",
        size=1_115_394,
        sha256="86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
        licence="Shakespeare's text is public domain; char-rnn repository MIT",
    ),
}


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$BPE_COURSE_CACHE`` if set, else ``~/.cache/bpe-course``."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("BPE_COURSE_CACHE") or Path.home() / ".cache" / "bpe-course").expanduser()


def resolve_source(name: str, url: str | None = None, sha256: str | None = None) -> Source:
    """The :class:`Source` for ``name``; ``url=`` / ``sha256=`` override or define one.

    >>> resolve_source("notes.txt", url="http://127.0.0.1:8000/n.txt").filename
    'notes.txt'
    """
    known = SOURCES.get(name)
    if known is None and url is None:
        raise CorpusError(f"unknown download {name!r}; known: {', '.join(SOURCES)} (or pass url=...)")
    if not name or Path(name).name != name or name in (".", ".."):
        raise CorpusError(f"download name {name!r} must be a plain file name (no folders)")
    sha = sha256.lower() if sha256 else (known.sha256 if known else None)
    if known is None:
        return Source(url=str(url), filename=name, size=None, sha256=sha, licence="unknown")
    return Source(url=url or known.url, filename=known.filename, size=known.size, sha256=sha, licence=known.licence)


def _unreachable(url: str, exc: BaseException) -> CorpusError:
    """The one error a learner without internet sees: short, and pointing at what works offline."""
    import urllib.parse
    host = urllib.parse.urlsplit(url).netloc or url
    reason = getattr(exc, "reason", None) or exc
    return CorpusError(
        f"could not reach {host}: {reason}; you appear to be offline (or {host} is down). "
        "The built-in corpora work offline: corpus.load(name), with a name from corpus.names()"
    )


def _open(source: Source, offset: int, timeout: float) -> http.client.HTTPResponse | None:
    """Start the transfer (asking for bytes ``offset``- when resuming); None means "restart from 0"."""
    import http.client
    import urllib.error
    import urllib.request
    request = urllib.request.Request(source.url, headers={"User-Agent": "bpe-course"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and offset:  # the .part is no prefix the server knows: start over
            return None
        raise CorpusError(f"{source.url}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        raise _unreachable(source.url, exc) from None


def _keep_part(url: str, part: Path, what: str) -> CorpusError:
    return CorpusError(f"{url}: {what}; the part is kept in {part}: run download() again to resume")


def _copy(response: http.client.HTTPResponse, part: Path, offset: int, total: int | None,
          source: Source, progress: bool, timeout: float) -> int:
    """Append the response body to ``part`` (from ``offset`` on), with a progress bar; bytes now in ``part``."""
    import http.client

    from tqdm.auto import tqdm
    received = offset
    bar = tqdm(total=total, initial=offset, unit="B", unit_scale=True, unit_divisor=1024,
               desc=source.filename, disable=not progress)
    with bar, open(part, "ab" if offset else "wb") as out:
        try:
            while chunk := response.read1(CHUNK):  # subtle: read1 returns what has arrived, not a full CHUNK
                out.write(chunk)
                received += len(chunk)
                bar.update(len(chunk))
        except TimeoutError:
            raise _keep_part(source.url, part, f"no data for {timeout} s after {received:,} bytes") from None
        except (OSError, http.client.HTTPException) as exc:
            raise _keep_part(source.url, part, f"connection lost after {received:,} bytes ({exc})") from None
    return received


def _fetch(source: Source, part: Path, progress: bool, timeout: float) -> None:
    """Bring ``part`` up to the complete file: resume it, or download it whole."""
    offset = part.stat().st_size if part.exists() else 0
    if source.size is not None and offset > source.size:
        offset = 0  # longer than the real file: cannot be a prefix of it
    if source.size is not None and offset == source.size:
        return  # complete already (a crash between download and rename); the hash decides
    response = _open(source, offset, timeout)
    if response is None:
        part.unlink()
        return _fetch(source, part, progress, timeout)
    with response:
        content_range = response.headers.get("Content-Range", "")
        if offset and response.status == 206 and not content_range.startswith(f"bytes {offset}-"):
            part.unlink()  # a 206 for some other range: ask again for everything
            return _fetch(source, part, progress, timeout)
        if response.status != 206:
            offset = 0  # subtle: a server that ignores Range answers 200 with the whole file: start over
        length = response.headers.get("Content-Length")
        total = offset + int(length) if length and length.isdigit() else source.size
        received = _copy(response, part, offset, total, source, progress, timeout)
    # subtle: urllib reports a connection closed early as a normal end of data, so count bytes.
    if total is not None and received < total:
        raise _keep_part(source.url, part, f"transfer interrupted after {received:,} of {total:,} bytes")


def _cached_ok(target: Path, source: Source) -> bool:
    """Does the cached file match the expected (or, with no known hash, the recorded) sha256?"""
    expected = source.sha256
    record = target.with_name(target.name + ".sha256")
    if expected is None and record.exists():
        expected = record.read_text(encoding="utf-8").split()[0]
    return expected is None or sha256_file(target) == expected


def download(
    name: str,
    cache_dir: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    url: str | None = None,
    sha256: str | None = None,
    timeout: float = 30,
) -> Path:
    """Download a corpus into the cache once and return its path; later calls need no network.

    ``name`` is one of :data:`SOURCES`, or any plain file name together with ``url=``.
    ``sha256=`` pins (or overrides) the expected hash; with no hash known the file is kept,
    a warning shows the observed hash, and it is recorded next to the file as ``<file>.sha256``.
    Every failure is a :class:`CorpusError` with a one-line reason: offline, HTTP error,
    stalled (``timeout`` seconds without data), interrupted (run again to resume), or a
    sha256 mismatch (the ``.part`` is deleted).
    """
    source = resolve_source(name, url, sha256)
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = folder / source.filename
    if target.exists():
        if _cached_ok(target, source):
            return target
        warnings.warn(f"{target} does not match its sha256; downloading it again", stacklevel=2)
        target.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    _fetch(source, part, progress, timeout)
    actual = sha256_file(part)
    if source.sha256 is None:
        target.with_name(target.name + ".sha256").write_text(f"{actual}  {source.filename}\n", encoding="utf-8")
        warnings.warn(
            f"{source.url}: no known sha256 to check it against; observed sha256 {actual} "
            f"(recorded in {target.name}.sha256; pass sha256=... to pin it)",
            stacklevel=2,
        )
    elif actual != source.sha256:
        part.unlink()
        raise CorpusError(
            f"{source.url}: sha256 mismatch (expected {source.sha256}, actual {actual}); "
            "the partial download was deleted"
        )
    os.replace(part, target)
    return target
