"""Download a larger corpus once into a local cache (for learners who are online).

Nothing in the course needs this: the built-in corpora (:func:`bpe_course.corpus.load`) work
offline. A download goes to ``<cache>/<file>.part`` first, resumes an interrupted transfer
with an HTTP ``Range`` request, and is renamed into place only after its sha256 matches.
Only the standard library (urllib) and tqdm are used.

What a server sends is never trusted to end by itself:

* a file of known size is read up to that size and no further; a server that announces or
  sends a different length is an error, and nothing is cached;
* a file of unknown size stops at ``max_bytes`` (default :data:`MAX_BYTES`, 2 GiB);
* every read waits at most ``timeout`` seconds, and the whole call, waiting for another
  download of the same file included, ends after ``deadline`` seconds (default :data:`DEADLINE`).

Two downloads of the same file (two notebooks, two processes) take turns: a lock file
``<cache>/<file>.lock`` lets one fetch while the other waits, then finds the file cached.

>>> sorted(SOURCES)
['tiny-shakespeare', 'tinystories-valid']
>>> MAX_BYTES == 2 * 1024**3, DEADLINE
(True, 3600.0)
"""

from __future__ import annotations

import http.client
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from .errors import CorpusError
from .files import sha256_file
from .resources import default_cache_dir

try:
    import fcntl
except ImportError:  # Windows: the lock falls back to creating the lock file exclusively
    fcntl = None  # type: ignore[assignment]

CHUNK = 1 << 16
MAX_BYTES = 2 * 1024**3  # a download whose size is not known stops here (override: max_bytes=)
DEADLINE = 3600.0  # seconds for one download() call, from start to the file in place (override: deadline=)
LOCK_POLL = 0.05  # seconds between two looks at a lock another download holds


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


def resolve_source(name: str, url: str | None = None, sha256: str | None = None) -> Source:
    """The :class:`Source` for ``name``; ``url=`` / ``sha256=`` override or define one.

    A ``sha256=`` that differs from a known source's pins another version of the file, so its
    known size no longer applies.

    >>> resolve_source("notes.txt", url="http://127.0.0.1:8000/n.txt").filename
    'notes.txt'
    >>> resolve_source("tiny-shakespeare").size, resolve_source("tiny-shakespeare", sha256="ab" * 32).size
    (1115394, None)
    """
    known = SOURCES.get(name)
    if known is None and url is None:
        raise CorpusError(f"unknown download {name!r}; known: {', '.join(SOURCES)} (or pass url=...)")
    if not name or Path(name).name != name or name in (".", ".."):
        raise CorpusError(f"download name {name!r} must be a plain file name (no folders)")
    sha = sha256.lower() if sha256 else (known.sha256 if known else None)
    if known is None:
        return Source(url=str(url), filename=name, size=None, sha256=sha, licence="unknown")
    size = known.size if sha == known.sha256 else None
    return Source(url=url or known.url, filename=known.filename, size=size, sha256=sha, licence=known.licence)


# ---------------------------------------------------------------- the overall deadline


def _shut(sock: socket.socket) -> None:
    try:
        # subtle: the plain socket's shutdown, also for an SSL socket (whose own shutdown would
        # tear down its TLS state under the reading thread's feet); a blocked read then returns.
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


class _Watchdog:
    """Ends a download at its deadline: when the time is up, every connection it opened is shut,
    which wakes a read blocked in any phase (connecting, headers, body, a slow drip of bytes)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._end = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._guard = threading.Lock()
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        with self._guard:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._guard:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> _Watchdog:
        self._timer = threading.Timer(self.remaining(), self._expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener (proxies and redirects as usual) whose every connection this watchdog watches."""
        watch = self.watch

        def watched(connection_class: type) -> type:
            class Watched(connection_class):
                def connect(self) -> None:
                    super().connect()
                    watch(self.sock)

            return Watched

        class HTTP(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        class HTTPS(urllib.request.HTTPSHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        return urllib.request.build_opener(HTTP, HTTPS)


# ---------------------------------------------------------------- one download of a file at a time


class _Lock:
    """``<file>.lock``: held by the one download() of ``<file>`` that runs; others wait for it.

    On POSIX an ``fcntl.flock`` on the lock file (the kernel drops it when its process dies).
    Elsewhere the lock file is created exclusively; its holder touches it while it works, so a
    lock file nobody touched for ``stale_after`` seconds was left by a crash and is removed.
    """

    def __init__(self, path: Path, dog: _Watchdog, stale_after: float) -> None:
        self.path, self.dog, self.stale_after = path, dog, stale_after
        self.fd: int | None = None
        self._touched = 0.0

    def __enter__(self) -> _Lock:
        while self.fd is None:
            self.fd = self._try_flock() if fcntl is not None else self._try_create()
            if self.fd is None:
                if self.dog.remaining() <= 0:
                    raise CorpusError(
                        f"{self.path.with_suffix('')}: another download of this file is still running "
                        f"(it holds {self.path}); gave up waiting after deadline={self.dog.seconds:g} s"
                    )
                time.sleep(min(LOCK_POLL, self.dog.remaining()))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is None:
            return
        if fcntl is not None:
            # subtle: unlink while still holding the lock; a waiter that then locks the unlinked
            # file notices (see _try_flock) and locks the new one instead.
            self.path.unlink(missing_ok=True)
            os.close(self.fd)
        else:
            os.close(self.fd)  # subtle: Windows cannot delete a file that is still open
            self.path.unlink(missing_ok=True)
        self.fd = None

    def _try_flock(self) -> int | None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except OSError as exc:  # a file system without locks (some network shares)
            os.close(fd)
            raise CorpusError(f"cannot lock {self.path} ({exc}); set BPE_COURSE_CACHE to a local folder") from None
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            current = None
        if current is None or not os.path.samestat(os.fstat(fd), current):
            os.close(fd)  # the file we locked was released and removed meanwhile: try again
            return None
        return fd

    def _try_create(self) -> int | None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                idle = time.time() - self.path.stat().st_mtime
            except FileNotFoundError:
                return None  # released just now: try again
            if idle > self.stale_after:
                # subtle: the holder touches it as data arrives (each read waits at most `timeout`),
                # so only a lock idle for stale_after (minutes) is removed. Two waiters removing
                # the same stale lock at the same instant could still both go ahead: accepted, as
                # that needs a crashed download and two new ones within a poll of each other.
                warnings.warn(f"removing the stale lock {self.path} (untouched for {idle:.0f} s)", stacklevel=4)
                self.path.unlink(missing_ok=True)
            return None
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._touched = time.monotonic()
        return fd

    def touch(self) -> None:
        """Show that the holder is alive (only the lock-file fallback needs it), at most once a second."""
        if fcntl is None and time.monotonic() - self._touched >= 1:
            self._touched = time.monotonic()
            try:
                os.utime(self.path)
            except OSError:
                pass


# ---------------------------------------------------------------- the transfer


@dataclass
class _Transfer:
    """One download in progress: what to fetch, where to, and its limits."""

    source: Source
    part: Path
    progress: bool
    timeout: float
    max_bytes: int
    dog: _Watchdog
    tick: Callable[[], None]

    @property
    def limit(self) -> int:
        """The most bytes the file may have: its known size, else ``max_bytes``."""
        return self.source.size if self.source.size is not None else self.max_bytes

    def keep_part(self, what: str) -> CorpusError:
        """The error for a transfer that may resume later: the ``.part`` stays."""
        if self.dog.expired:
            what = f"not finished within deadline={self.dog.seconds:g} s ({self._size():,} bytes received)"
        return CorpusError(f"{self.source.url}: {what}; the part is kept in {self.part}: run download() again to resume")

    def drop_part(self, what: str) -> CorpusError:
        """The error for a transfer that cannot be the file: the ``.part`` is deleted."""
        self.part.unlink(missing_ok=True)
        return CorpusError(f"{self.source.url}: {what}; the partial download was deleted")

    def too_long(self, amount: str) -> CorpusError:
        if self.source.size is not None:
            return self.drop_part(f"the server {amount}, but {self.source.filename} is {self.source.size:,} bytes")
        return self.drop_part(f"the server {amount}, more than max_bytes={self.max_bytes:,} "
                              "(pass a larger max_bytes= if the file really is that large)")

    def _size(self) -> int:
        return self.part.stat().st_size if self.part.exists() else 0


def _unreachable(url: str, exc: BaseException) -> CorpusError:
    """The one error a learner without internet sees: short, and pointing at what works offline."""
    import urllib.parse
    host = urllib.parse.urlsplit(url).netloc or url
    reason = getattr(exc, "reason", None) or exc
    return CorpusError(
        f"could not reach {host}: {reason}; you appear to be offline (or {host} is down). "
        "The built-in corpora work offline: corpus.load(name), with a name from corpus.names()"
    )


def _open(job: _Transfer, offset: int) -> http.client.HTTPResponse | None:
    """Start the transfer (asking for bytes ``offset``- when resuming); None means "restart from 0"."""
    request = urllib.request.Request(job.source.url, headers={"User-Agent": "bpe-course"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        return job.dog.opener().open(request, timeout=job.timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and offset:  # the .part is no prefix the server knows: start over
            return None
        raise CorpusError(f"{job.source.url}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        if job.dog.expired:
            raise job.keep_part("") from None
        raise _unreachable(job.source.url, exc) from None


def _announced(response: http.client.HTTPResponse, offset: int) -> int | None:
    """The whole file's size as the response states it (Content-Range, else Content-Length), if it does."""
    content_range = response.headers.get("Content-Range", "")
    total = content_range.rpartition("/")[2]
    if response.status == 206 and total.isdigit():
        return int(total)
    length = response.headers.get("Content-Length", "")
    return offset + int(length) if length.isdigit() else None


def _copy(job: _Transfer, response: http.client.HTTPResponse, offset: int, total: int | None) -> int:
    """Append the response body to the part (from ``offset`` on), never past ``job.limit``; bytes now in it."""
    received, limit = offset, job.limit
    bar = tqdm(total=total, initial=offset, unit="B", unit_scale=True, unit_divisor=1024,
               desc=job.source.filename, disable=not job.progress)
    with bar, open(job.part, "ab" if offset else "wb") as out:
        try:
            # subtle: read1 returns what has arrived, not a full CHUNK; asking for one byte past
            # the limit tells "ends exactly at the limit" from "goes on" without reading more.
            while received <= limit and (chunk := response.read1(min(CHUNK, limit + 1 - received))):
                out.write(chunk)
                received += len(chunk)
                bar.update(len(chunk))
                job.tick()
        except TimeoutError:
            raise job.keep_part(f"no data for {job.timeout} s after {received:,} bytes") from None
        except (OSError, http.client.HTTPException) as exc:
            raise job.keep_part(f"connection lost after {received:,} bytes ({exc})") from None
    return received


def _fetch(job: _Transfer) -> None:
    """Bring the part up to the complete file: resume it, or download it whole."""
    part = job.part
    offset = part.stat().st_size if part.exists() else 0
    if offset > job.limit:
        offset = 0  # longer than the real file can be: cannot be a prefix of it
    if job.source.size is not None and offset == job.source.size:
        return  # complete already (a crash between download and rename); the hash decides
    response = _open(job, offset)
    if response is None:
        part.unlink()
        return _fetch(job)
    with response:
        content_range = response.headers.get("Content-Range", "")
        if offset and response.status == 206 and not content_range.startswith(f"bytes {offset}-"):
            part.unlink()  # a 206 for some other range: ask again for everything
            return _fetch(job)
        if response.status != 206:
            offset = 0  # subtle: a server that ignores Range answers 200 with the whole file: start over
        announced = _announced(response, offset)
        if announced is not None and announced > job.limit:
            raise job.too_long(f"announces {announced:,} bytes")
        if announced is not None and job.source.size is not None and announced != job.source.size:
            raise job.drop_part(f"the server announces {announced:,} bytes, but {job.source.filename} is "
                                f"{job.source.size:,} bytes: this is not the expected file")
        total = job.source.size if job.source.size is not None else announced
        received = _copy(job, response, offset, total)
    if received > job.limit:
        raise job.too_long("sent more")
    # subtle: urllib reports a connection closed early as a normal end of data, so count bytes.
    if total is not None and received < total:
        raise job.keep_part(f"transfer interrupted after {received:,} of {total:,} bytes")
    if job.dog.expired:  # the watchdog may have cut a body of unknown length: it is not complete
        raise job.keep_part("")


def _cached_ok(target: Path, source: Source) -> bool:
    """Does the cached file match the expected (or, with no known hash, the recorded) sha256?"""
    expected = source.sha256
    record = target.with_name(target.name + ".sha256")
    if expected is None and record.exists():
        expected = record.read_text(encoding="utf-8").split()[0]
    return expected is None or sha256_file(target) == expected


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def download(
    name: str,
    cache_dir: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    url: str | None = None,
    sha256: str | None = None,
    timeout: float = 30,
    deadline: float = DEADLINE,
    max_bytes: int = MAX_BYTES,
) -> Path:
    """Download a corpus into the cache once and return its path; later calls need no network.

    ``name`` is one of :data:`SOURCES`, or any plain file name together with ``url=``.
    ``sha256=`` pins (or overrides) the expected hash; with no hash known the file is kept,
    a warning shows the observed hash, and it is recorded next to the file as ``<file>.sha256``.

    Limits: each read waits at most ``timeout`` seconds; the whole call (waiting for another
    download of the same file included) takes at most ``deadline`` seconds; a file of unknown
    size may have at most ``max_bytes`` bytes, a known one exactly its size.

    Every failure is a :class:`CorpusError` with a one-line reason: offline, HTTP error,
    stalled (``timeout``), too slow (``deadline``), interrupted (run again to resume: the
    ``.part`` is kept), too long or of the wrong size, or a sha256 mismatch (the ``.part`` is
    deleted). Nothing but a complete, checked file is ever put in the cache.
    """
    _positive("timeout", timeout)
    _positive("deadline", deadline)
    _positive("max_bytes", max_bytes)
    source = resolve_source(name, url, sha256)
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = folder / source.filename
    if target.exists() and _cached_ok(target, source):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_name(target.name + ".lock")
    with _Watchdog(deadline) as dog, _Lock(lock_path, dog, stale_after=max(120.0, 4 * timeout)) as lock:
        if target.exists():
            if _cached_ok(target, source):
                return target  # another download finished it while this one waited
            warnings.warn(f"{target} does not match its sha256; downloading it again", stacklevel=2)
            target.unlink()
        part = target.with_name(target.name + ".part")
        _fetch(_Transfer(source, part, progress, timeout, int(max_bytes), dog, lock.touch))
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
