"""Tests for bpe_course.download. None of them reaches the internet: downloads go to a small HTTP server
on 127.0.0.1 started inside the test."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bpe_course import corpus, download as dl
from bpe_course.corpus import CorpusError


REPO = Path(__file__).resolve().parent.parent


PAYLOAD = random.Random(1234).randbytes(300_000)

PAYLOAD_SHA = hashlib.sha256(PAYLOAD).hexdigest()

CUT_AT = 100_000


class Handler(BaseHTTPRequestHandler):
    """Serves PAYLOAD with Range support; ``server.mode`` switches on the failure cases."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        server = self.server
        asked = self.headers.get("Range")
        server.ranges.append(asked)
        if server.mode == "missing":
            self.send_error(404)
            return
        if server.mode == "drip_headers":  # the status line, then one header byte at a time
            self._drip(b"HTTP/1.0 200 OK\r\nX-Slow: " + b"x" * 10_000)
            return
        body = PAYLOAD if server.mode != "wrong" else PAYLOAD[::-1]
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", asked or "")
        if match and server.mode != "ignore_range":
            start = int(match.group(1))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        chunk = body[start:]
        if server.mode == "short":
            chunk = chunk[:CUT_AT]
        if server.mode == "too_long":
            chunk = chunk + b"more"
        if server.mode not in ("endless", "unannounced_long", "unannounced_short"):
            self.send_header("Content-Length", str(len(chunk)))
        self.end_headers()
        if server.mode == "cut" or server.mode == "unannounced_short":
            chunk = chunk[:CUT_AT]
        elif server.mode == "unannounced_long":  # no Content-Length: the body ends when the connection does
            chunk = chunk + PAYLOAD[:1000]
        elif server.mode == "stall":
            self.wfile.write(chunk[:1000])
            self.wfile.flush()
            time.sleep(1.0)
            return
        elif server.mode == "endless":  # the whole file, then the same bytes again and again
            self._send_forever(chunk)
            return
        elif server.mode == "drip":  # a byte every 20 ms: never a pause long enough for the read timeout
            self._drip(chunk)
            return
        elif server.mode == "slow":  # 0.5 s in all, so that two downloads overlap
            for k in range(0, len(chunk), len(chunk) // 10 + 1):
                self.wfile.write(chunk[k:k + len(chunk) // 10 + 1])
                self.wfile.flush()
                time.sleep(0.05)
            return
        self.wfile.write(chunk)

    def _drip(self, data: bytes) -> None:
        try:
            for k in range(min(len(data), 500)):  # at most 10 s: a test that hangs fails instead
                self.wfile.write(data[k:k + 1])
                self.wfile.flush()
                time.sleep(0.02)
        except OSError:
            pass  # the client gave up: as it should

    def _send_forever(self, data: bytes) -> None:
        try:
            for _ in range(1000):  # 300 MB at most: a client that never stops fails the test, not the machine
                self.wfile.write(data)
            self.server.sent_all = True
        except OSError:
            pass  # the client stopped reading: as it should

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ThreadingHTTPServer]:
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.mode, httpd.ranges, httpd.sent_all = "ok", [], False
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/corpus.txt"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def fetch(server: ThreadingHTTPServer, cache: Path, **kwargs: object) -> Path:
    options = {"url": server.url, "sha256": PAYLOAD_SHA, "progress": False, "timeout": 5, **kwargs}
    return dl.download("corpus.txt", cache, **options)


def test_download_then_cached_without_network(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    path = fetch(server, tmp_path, progress=True)
    assert path == tmp_path / "corpus.txt" and path.read_bytes() == PAYLOAD
    assert not (tmp_path / "corpus.txt.part").exists() and server.ranges == [None]
    server.mode = "missing"  # any request now would fail
    assert corpus.download("corpus.txt", tmp_path, url=server.url, sha256=PAYLOAD_SHA, progress=False) == path
    assert server.ranges == [None]


def test_checksum_mismatch(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "wrong"
    with pytest.raises(CorpusError) as info:
        fetch(server, tmp_path)
    wrong = hashlib.sha256(PAYLOAD[::-1]).hexdigest()
    assert server.url in str(info.value) and PAYLOAD_SHA in str(info.value) and wrong in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_interrupted_download_resumes_with_range(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "cut"
    with pytest.raises(CorpusError, match="interrupted after 100,000 of 300,000 bytes"):
        fetch(server, tmp_path)
    assert (tmp_path / "corpus.txt.part").stat().st_size == CUT_AT
    server.mode = "ok"
    path = fetch(server, tmp_path)
    assert server.ranges == [None, f"bytes={CUT_AT}-"]
    assert path.read_bytes() == PAYLOAD and not (tmp_path / "corpus.txt.part").exists()


def test_server_ignoring_range_gives_full_download(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    (tmp_path / "corpus.txt.part").write_bytes(PAYLOAD[:CUT_AT])
    server.mode = "ignore_range"
    path = fetch(server, tmp_path)
    assert server.ranges == [f"bytes={CUT_AT}-"]  # asked to resume, got a 200 with everything
    assert path.read_bytes() == PAYLOAD


def test_server_down_is_a_quick_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(CorpusError) as info:
        dl.download("x.txt", tmp_path, url=f"http://127.0.0.1:{port}/x.txt", sha256="0" * 64, progress=False)
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert message.startswith(f"could not reach 127.0.0.1:{port}: ")
    assert "you appear to be offline" in message and "corpus.load(name)" in message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_stalled_server_times_out(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "stall"
    started = time.monotonic()
    with pytest.raises(CorpusError, match="no data for 0.3 s after 1,000 bytes"):
        fetch(server, tmp_path, timeout=0.3)
    assert time.monotonic() - started < 3


def test_http_error_and_unknown_name(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "missing"
    with pytest.raises(CorpusError, match="HTTP 404"):
        fetch(server, tmp_path)
    with pytest.raises(CorpusError, match="unknown download 'war-and-peace'; known: tinystories-valid"):
        dl.download("war-and-peace", tmp_path)
    with pytest.raises(CorpusError, match="plain file name"):
        dl.download("../evil.txt", tmp_path, url=server.url)


def test_unknown_hash_warns_and_records(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=f"observed sha256 {PAYLOAD_SHA}"):
        path = fetch(server, tmp_path, sha256=None)
    assert (tmp_path / "corpus.txt.sha256").read_text().split() == [PAYLOAD_SHA, "corpus.txt"]
    assert fetch(server, tmp_path, sha256=None) == path and len(server.ranges) == 1


def test_corrupt_cache_is_replaced(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    (tmp_path / "corpus.txt").write_bytes(b"not the file")
    with pytest.warns(UserWarning, match="does not match its sha256"):
        path = fetch(server, tmp_path)
    assert path.read_bytes() == PAYLOAD


def test_cache_dir_from_environment(
    server: ThreadingHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BPE_COURSE_CACHE", str(tmp_path / "cache"))
    assert fetch(server, None) == tmp_path / "cache" / "corpus.txt"


def test_known_sources_are_pinned() -> None:
    for name, source in dl.SOURCES.items():
        assert source.url.startswith("https://") and source.size, name
        assert source.sha256 and re.fullmatch("[0-9a-f]{64}", source.sha256), name


@pytest.fixture
def known(server: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> dl.Source:
    """The local server's file as a named source of known size, like the real SOURCES."""
    source = dl.Source(url=server.url, filename="local.txt", size=len(PAYLOAD), sha256=PAYLOAD_SHA, licence="test")
    monkeypatch.setitem(dl.SOURCES, "local", source)
    return source


def fetch_known(cache: Path, **kwargs: object) -> Path:
    return dl.download("local", cache, **{"progress": False, "timeout": 5, **kwargs})


def test_endless_body_stops_at_the_known_size(server: ThreadingHTTPServer, known: dl.Source, tmp_path: Path) -> None:
    server.mode = "endless"
    started = time.monotonic()
    with pytest.raises(CorpusError, match=r"the server sent more, but local\.txt is 300,000 bytes; the partial "
                                          r"download was deleted"):
        fetch_known(tmp_path)
    assert time.monotonic() - started < 5 and not server.sent_all
    assert list(tmp_path.iterdir()) == []


def test_endless_body_of_unknown_size_stops_at_max_bytes(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "endless"
    with pytest.raises(CorpusError, match=r"sent more, more than max_bytes=1,000,000 \(pass a larger max_bytes="):
        fetch(server, tmp_path, sha256=None, max_bytes=1_000_000)
    assert list(tmp_path.iterdir()) == [] and not server.sent_all
    server.mode = "ok"  # the limit is only a limit: a file below it downloads as before
    with pytest.warns(UserWarning, match="observed sha256"):
        assert fetch(server, tmp_path, sha256=None, max_bytes=len(PAYLOAD)).read_bytes() == PAYLOAD


@pytest.mark.parametrize("mode, message", [
    ("too_long", "the server announces 300,004 bytes, but local.txt is 300,000 bytes"),
    ("unannounced_long", "the server sent more, but local.txt is 300,000 bytes"),
    ("short", "the server announces 100,000 bytes, but local.txt is 300,000 bytes: this is not the expected file"),
])
def test_wrong_length_is_never_cached(
    server: ThreadingHTTPServer, known: dl.Source, tmp_path: Path, mode: str, message: str
) -> None:
    server.mode = mode
    with pytest.raises(CorpusError, match=re.escape(message) + ".*the partial download was deleted"):
        fetch_known(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_short_body_is_kept_to_resume_not_cached(
    server: ThreadingHTTPServer, known: dl.Source, tmp_path: Path
) -> None:
    server.mode = "unannounced_short"  # no Content-Length, and the connection ends a third of the way
    with pytest.raises(CorpusError, match="interrupted after 100,000 of 300,000 bytes; the part is kept"):
        fetch_known(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["local.txt.part"]
    server.mode = "ok"
    assert fetch_known(tmp_path).read_bytes() == PAYLOAD
    assert server.ranges == [None, f"bytes={CUT_AT}-"]


def test_announced_size_above_max_bytes_is_refused_before_reading(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"announces 300,000 bytes, more than max_bytes=1,000"):
        fetch(server, tmp_path, max_bytes=1000)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", ["drip", "drip_headers"])
def test_slow_drip_ends_at_the_deadline(server: ThreadingHTTPServer, tmp_path: Path, mode: str) -> None:
    server.mode = mode  # a byte every 20 ms: the 5 s read timeout never fires
    started = time.monotonic()
    with pytest.raises(CorpusError, match=r"not finished within deadline=0\.5 s \(\d+ bytes received\); the part "
                                          "is kept"):
        fetch(server, tmp_path, deadline=0.5)
    assert 0.5 <= time.monotonic() - started < 2


@pytest.mark.parametrize("option, value", [("deadline", 0), ("timeout", -1), ("max_bytes", "2 GB")])
def test_limits_must_be_positive_numbers(tmp_path: Path, option: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"{option} must be a positive number, got {value!r}"):
        dl.download("corpus.txt", tmp_path, url="http://127.0.0.1:9/x", **{option: value})


RACER = """
import json, sys, time
from bpe_course import download as dl
print("ready", flush=True)
sys.stdin.readline()  # both start together, once both have imported everything
start = time.monotonic()
path = dl.download("corpus.txt", sys.argv[1], url=sys.argv[2], sha256=sys.argv[3], progress=False, timeout=5)
print(json.dumps([str(path), start, time.monotonic()]))
"""


def overlapped(spans: list[tuple[float, float]]) -> bool:
    """Did the two calls run at the same time (each started before the other returned)?"""
    (a0, a1), (b0, b1) = spans
    return a0 < b1 and b0 < a1


def test_two_processes_download_the_same_file(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "slow"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), server.url, PAYLOAD_SHA], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    assert [racer.stdout.readline() for racer in racers] == ["ready\n"] * 2
    for racer in racers:
        racer.stdin.write("go\n")
        racer.stdin.flush()
    results = [racer.communicate(timeout=60) for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], [err for _, err in results]
    answers = [json.loads(out) for out, _ in results]
    assert overlapped([(start, end) for _, start, end in answers])  # (time.monotonic is system-wide on Linux)
    assert {path for path, _, _ in answers} == {str(tmp_path / "corpus.txt")}
    assert (tmp_path / "corpus.txt").read_bytes() == PAYLOAD
    assert server.ranges == [None]  # one fetched it; the other waited, then found it in the cache
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def race_in_threads(server: ThreadingHTTPServer, cache: Path) -> list[object]:
    results: list[object] = [None, None]
    spans: list[tuple[float, float]] = [(0.0, 0.0), (0.0, 0.0)]

    def run(k: int) -> None:
        start = time.monotonic()
        try:
            results[k] = fetch(server, cache)
        except Exception as exc:  # noqa: BLE001 -- the test reports it
            results[k] = exc
        spans[k] = (start, time.monotonic())

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert overlapped(spans)
    return results


def test_two_threads_download_the_same_file(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    server.mode = "slow"
    assert race_in_threads(server, tmp_path) == [tmp_path / "corpus.txt"] * 2
    assert server.ranges == [None] and (tmp_path / "corpus.txt").read_bytes() == PAYLOAD


def test_lock_file_fallback_without_fcntl(
    server: ThreadingHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dl, "fcntl", None)  # as on Windows: the lock file is created exclusively
    server.mode = "slow"
    assert race_in_threads(server, tmp_path) == [tmp_path / "corpus.txt"] * 2
    assert server.ranges == [None] and sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_stale_lock_file_is_removed(server: ThreadingHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dl, "fcntl", None)
    lock = tmp_path / "corpus.txt.lock"
    lock.write_text("12345\n")  # left behind by a download that crashed an hour ago
    os.utime(lock, (time.time() - 3600, time.time() - 3600))
    with pytest.warns(UserWarning, match=r"removing the stale lock .*corpus\.txt\.lock \(untouched for 3600 s\)"):
        assert fetch(server, tmp_path).read_bytes() == PAYLOAD
    assert not lock.exists()


@pytest.mark.parametrize("flock", [True, False])
def test_waiting_for_a_held_lock_ends_at_the_deadline(
    server: ThreadingHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flock: bool
) -> None:
    lock = tmp_path / "corpus.txt.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        if flock:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)  # another download holds it
        else:
            monkeypatch.setattr(dl, "fcntl", None)  # a fresh lock file: another download is working
        started = time.monotonic()
        with pytest.raises(CorpusError, match=r"corpus\.txt: another download of this file is still running "
                                              r"\(it holds .*corpus\.txt\.lock\); gave up waiting after deadline=0\.3 s"):
            fetch(server, tmp_path, deadline=0.3)
        assert time.monotonic() - started < 2 and server.ranges == []
    finally:
        os.close(fd)
