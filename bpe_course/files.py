"""Reading and writing files carefully: UTF-8 with the offset of a bad byte, sha256, atomic writes.

Every module that touches the disk goes through these helpers, so each rule lives once: a text
file is read a block at a time (:func:`read_text_blocks`), a leading byte-order mark is not text,
a bad byte is reported with its offset in the file, a file is hashed in blocks, and a write either happens
completely or not at all -- for one file (:func:`write_atomic`) and for several files that only
make sense together, such as GPT-2's ``encoder.json`` + ``vocab.bpe`` (:func:`write_files_atomic`,
read back through :func:`current_file`).

>>> decode_utf8(b"caf\\xc3\\xa9", "menu.txt", ValueError)
'café'
>>> decode_utf8(b"caf\\xe9", "menu.txt", ValueError)
Traceback (most recent call last):
...
ValueError: menu.txt: not valid UTF-8 at byte offset 3 (byte 0xe9)
"""

from __future__ import annotations

import codecs
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

# Inside a folder: the files of a save that has happened (was committed) but was not yet moved
# into place, because the process was killed. See write_files_atomic.
SAVING = ".bpe-course-saving"
LOCK = ".bpe-course.lock"  # inside a folder: held by the process saving into it (folder_lock)
UTF8_BOM = b"\xef\xbb\xbf"  # the byte-order mark U+FEFF in UTF-8: what Windows Notepad puts at the start of a file
BLOCK_BYTES = 1 << 20  # a text file is read and decoded this many bytes at a time


def not_utf8(source: object, offset: int, byte: int, hint: str = "") -> str:
    """The one message for a bad byte: what it is in, where, and which byte.

    >>> not_utf8("notes.txt", 3, 0xe9)
    'notes.txt: not valid UTF-8 at byte offset 3 (byte 0xe9)'
    """
    return f"{source}: not valid UTF-8 at byte offset {offset} (byte 0x{byte:02x}){hint}"


def decode_utf8(data: bytes, source: object, error: type[Exception], hint: str = "") -> str:
    """``data`` as UTF-8 text; a bad byte raises ``error`` naming ``source`` and the byte's offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(not_utf8(source, exc.start, data[exc.start], hint)) from None


def read_text_blocks(path: str | os.PathLike, error: type[Exception], start: int = 0, end: int | None = None, *,
                     block: int = BLOCK_BYTES, errors: str = "strict", hint: str = "") -> Iterator[str]:
    """The text of bytes ``start:end`` of the UTF-8 file ``path`` (to its end by default), a block at a time.

    The rules every reader of a text file keeps, written once:

    * a byte-order mark at the very start of the file (U+FEFF, bytes ``EF BB BF``, which Windows
      Notepad writes) says "UTF-8" and is not text, so it is skipped; a U+FEFF anywhere else is text;
    * a byte that is not UTF-8 raises ``error`` naming the file and the byte's offset *in the file*
      (a skipped mark counts its 3 bytes; the bytes as read, so a file rewritten meanwhile is named
      as it was read); ``errors="replace"`` makes such bytes U+FFFD instead;
    * a character cut in two by ``end`` is left out, so ``end`` may fall anywhere (a "first
      megabyte"); at the end of the file a cut character is a bad byte.

    Only one block of ``block`` bytes is in memory at a time, however big the file.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     notes = pathlib.Path(tmp) / "notes.txt"
    ...     _ = notes.write_bytes(UTF8_BOM + "café crème".encode("utf-8"))
    ...     list(read_text_blocks(notes, ValueError, block=4)), "".join(read_text_blocks(notes, ValueError, 0, 8))
    (['caf', 'é cr', 'ème'], 'café')
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    with open(path, "rb") as f:
        if pipe := _check_kind(path, os.fstat(f.fileno()).st_mode, error):
            if start:
                raise error(f"{path}: a pipe, which can only be read from its start")
            size = None  # subtle: a pipe has no size and cannot seek: it is read once, to its end
            data = f.read(len(UTF8_BOM))
            first = b"" if data == UTF8_BOM else data
            at = len(data) - len(first)
        else:
            size = os.fstat(f.fileno()).st_size
            end = size if end is None else min(end, size)
            f.seek(start)
            first = b""
            if start == 0 and f.read(len(UTF8_BOM)) != UTF8_BOM:
                f.seek(0)
            at = f.tell()
        while end is None or at < end:
            data = first + f.read(block if end is None else min(block, end - at) - len(first))
            first = b""
            if not data:  # the end of a pipe, or the file got shorter while it was read
                size = at if pipe else size
                break
            text = _decode(decoder, data, False, path, at, error, hint)
            at += len(data)
            if text:
                yield text
        if size is not None and at >= size:  # subtle: only at the end is a character left unfinished a bad byte
            if text := _decode(decoder, b"", True, path, at, error, hint):
                yield text


def check_text_file(path: str | os.PathLike, error: type[Exception]) -> None:
    """A path that text can be read from: a regular file or a pipe (``<(cat f)``, ``/dev/stdin``).

    Anything else is one line: ``FileNotFoundError`` when missing, ``error`` for a folder, and for a
    device or a socket (``/dev/zero`` never ends, and would be read until memory runs out).
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {path}") from None
    _check_kind(path, mode, error)


def _check_kind(path: str | os.PathLike, mode: int, error: type[Exception], what: str = "text file") -> bool:
    """True for a pipe, False for a regular file; anything else raises ``error`` saying what it is."""
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISFIFO(mode):
        return True
    kind = ("a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
    if stat.S_ISDIR(mode):
        raise error(f"{path} is a directory, not a {what}")
    raise error(f"{path} is {kind}, not a {what} or a pipe: it might never end, so it is not read")


def read_bytes_limited(path: str | os.PathLike, error: type[Exception], limit: int, what: str) -> bytes:
    """A whole file's bytes (a regular file or a pipe), refused with ``error`` when it is a device, a socket or a
    folder (as the text readers refuse them: ``/dev/zero`` never ends) or holds more than ``limit`` bytes,
    more than any ``what`` holds: only ``limit + 1`` bytes are ever read.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     big = pathlib.Path(tmp) / "big.model"
    ...     _ = big.write_bytes(b"x" * 11)
    ...     read_bytes_limited(big, ValueError, 10, "model")
    Traceback (most recent call last):
    ...
    ValueError: ...big.model: more than 10 bytes, larger than any model; not read
    """
    if os.path.isdir(path):
        raise error(f"{path} is a directory, not a {what}")
    with open(path, "rb") as f:
        _check_kind(path, os.fstat(f.fileno()).st_mode, error, what)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"{path}: more than {limit:,} bytes, larger than any {what}; not read")
    return data


def text_size(path: str | os.PathLike) -> int:
    """The size in bytes of a UTF-8 file's text: the file's size, less a leading byte-order mark."""
    with open(path, "rb") as f:
        return os.fstat(f.fileno()).st_size - (len(UTF8_BOM) if f.read(len(UTF8_BOM)) == UTF8_BOM else 0)


def _decode(decoder: codecs.IncrementalDecoder, data: bytes, final: bool, path: str | os.PathLike, at: int,
            error: type[Exception], hint: str) -> str:
    """``decoder.decode(data, final)`` for the bytes read at offset ``at`` of ``path``; a bad byte is an ``error``
    naming its offset in the file (the decoder's own error knows only its offset in ``data``)."""
    try:
        return decoder.decode(data, final)
    except UnicodeDecodeError as exc:
        # subtle: the decoder still holds the undecoded end of the bytes before (a character cut in
        # two); the failed call put them in front of ``data``, so offsets start that many bytes earlier.
        held = len(decoder.getstate()[0])
        raise error(not_utf8(path, at - held + exc.start, exc.object[exc.start], hint)) from None


def read_utf8(path: str | os.PathLike, error: type[Exception], hint: str = "") -> str:
    """A whole file as UTF-8 text, read by :func:`read_text_blocks` (a leading byte-order mark is not
    text): a missing file is ``FileNotFoundError``, a folder or a bad byte ``error``."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise error(f"{path} is a directory, not a text file")
    return "".join(read_text_blocks(path, error, hint=hint))


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
                f.flush()
                os.fsync(f.fileno())  # subtle: on disk before the rename, so a power cut cannot empty it
        else:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # subtle: mkstemp makes 0600 files; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_files_atomic(directory: str | os.PathLike, files: Mapping[str, str | bytes]) -> None:
    """Write ``files`` (``{name: text or bytes}``) into ``directory`` as one change.

    Whatever moment the process is killed at, a reader that opens each file through
    :func:`current_file` finds either all the old files or all the new ones, never a mix. Other
    files in ``directory`` (the learner's) are never touched. How:

    1. the new files are written into the hidden folder ``.bpe-course-saving.tmp`` inside
       ``directory`` (nobody reads there; a save killed now leaves the old files in charge);
    2. that folder is renamed to ``.bpe-course-saving``: one atomic rename, the moment the save
       happens (the commit). From now on :func:`current_file` reads the new files from there;
    3. the files are moved into place one by one (each move atomic), and the folder is removed.

    The next save into ``directory`` first finishes a committed save (:func:`finish_save`) and
    throws away an uncommitted one. One save at a time into a folder: two processes saving into
    the same folder at once are not supported. A text is written as UTF-8, its line ends as they are.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_files_atomic(tmp, {"a.txt": "one", "b.bin": b"two"})
    ...     sorted(p.name for p in pathlib.Path(tmp).iterdir()), current_file(pathlib.Path(tmp) / "b.bin").read_bytes()
    (['a.txt', 'b.bin'], b'two')
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    finish_save(directory)  # subtle: a committed save must land before a newer one, or it would win later
    staging = directory / (SAVING + ".tmp")
    if staging.is_dir():
        shutil.rmtree(staging)  # a save killed before its commit: never seen by anyone, so thrown away
    staging.mkdir()
    for name, data in files.items():
        if Path(name).name != name or name in (".", ".."):
            raise ValueError(f"write_files_atomic takes plain file names, not {name!r}")
        with open(staging / name, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
    _sync_folder(staging)
    os.replace(staging, directory / SAVING)  # the commit: from here on, readers see the new files
    _sync_folder(directory)
    finish_save(directory)


def finish_save(directory: str | os.PathLike) -> None:
    """Move the files of a committed but unfinished save (``.bpe-course-saving``) into place."""
    directory = Path(directory)
    pending = directory / SAVING
    if not pending.is_dir():
        return
    for staged in sorted(pending.iterdir()):
        os.replace(staged, directory / staged.name)
    _sync_folder(directory)
    pending.rmdir()


def current_file(path: str | os.PathLike) -> Path:
    """Where the current content of ``path`` is: ``path`` itself, or, after a save that was killed
    between its commit and its end, the new file still waiting in ``.bpe-course-saving``."""
    path = Path(path)
    staged = path.parent / SAVING / path.name
    return staged if staged.is_file() else path


def file_names(directory: str | os.PathLike, pattern: str) -> list[str]:
    """The names of the files in ``directory`` that match ``pattern`` (``"*.tiktoken"``), sorted,
    those of a committed but unfinished save included (see :func:`current_file`)."""
    directory = Path(directory)
    found = {p.name for folder in (directory, directory / SAVING) for p in folder.glob(pattern) if p.is_file()}
    return sorted(found)


def _sync_folder(directory: Path) -> None:
    """Make a folder's renames durable (POSIX); a no-op where a folder cannot be opened (Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # subtle: some file systems refuse fsync on a folder; the rename itself is still atomic
    finally:
        os.close(fd)


@contextmanager
def folder_lock(folder: str | os.PathLike, error: type[Exception], holder: str) -> Iterator[None]:
    """Hold ``folder/.bpe-course.lock`` for the block; if another process holds it, raise ``error`` at once.

    On POSIX the lock is ``fcntl.flock``, which the system lets go when its process ends, however
    it ends; elsewhere the lock file is created exclusively, and one left by a crash must be
    deleted by hand (the message names it). The file is removed when the block ends.
    ``holder`` says who holds it, for the message: "another 'bpe-course train' is saving to".
    """
    with _lock(Path(folder) / LOCK, error, f"{holder} {folder}", "folder"):
        yield


@contextmanager
def file_lock(path: str | os.PathLike, error: type[Exception], holder: str) -> Iterator[None]:
    """:func:`folder_lock` for one file that a command writes: ``.NAME.bpe-course.lock`` beside it.

    ``holder`` says who holds it: "another 'bpe-course encode' is writing".
    """
    path = Path(path)
    with _lock(path.parent / f".{path.name}{LOCK}", error, f"{holder} {path}", "name"):
        yield


@contextmanager
def _lock(path: Path, error: type[Exception], busy: str, other: str) -> Iterator[None]:
    """Hold the lock file ``path`` for the block; ``busy`` says who holds it, ``other`` what to choose instead."""
    try:
        import fcntl
    except ImportError:  # Windows
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise error(f"{busy} (it holds {path}; delete that file if no such command is running)") from None
        try:
            yield
        finally:
            os.close(fd)
            path.unlink(missing_ok=True)
        return
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise error(f"{busy} right now; wait for it to finish, or choose another {other}") from None
        try:
            yield
        finally:
            path.unlink(missing_ok=True)  # subtle: while still holding it, so no one takes a lock on a removed file
    finally:
        os.close(fd)
