"""Reading and writing files carefully: UTF-8 with the offset of a bad byte, sha256, atomic writes.

Every module that touches the disk goes through these three helpers, so each rule lives once:
a bad byte is reported with its offset, a file is hashed in blocks, and a write either happens
completely or not at all.

>>> decode_utf8(b"caf\\xc3\\xa9", "menu.txt", ValueError)
'café'
>>> decode_utf8(b"caf\\xe9", "menu.txt", ValueError)
Traceback (most recent call last):
...
ValueError: menu.txt: not valid UTF-8 at byte offset 3 (byte 0xe9)
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def decode_utf8(data: bytes, source: object, error: type[Exception], hint: str = "") -> str:
    """``data`` as UTF-8 text; a bad byte raises ``error`` naming ``source`` and the byte's offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{source}: not valid UTF-8 at byte offset {exc.start} (byte 0x{data[exc.start]:02x})"
                    f"{hint}") from None


def read_utf8(path: str | os.PathLike, error: type[Exception], hint: str = "") -> str:
    """A whole file as UTF-8 text: a missing file is ``FileNotFoundError``, a folder or bad byte ``error``."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise error(f"{path} is a directory, not a text file")
    return decode_utf8(path.read_bytes(), path, error, hint)


def sha256_file(path: str | os.PathLike) -> str:
    """The sha256 of a file as hex, read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so a failure leaves no half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if isinstance(data, str):
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(data)
        else:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # subtle: mkstemp makes 0600 files; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
