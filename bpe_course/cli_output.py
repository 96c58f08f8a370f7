"""Terminal input and output for the ``bpe-course`` command: coloured tokens, tables, raw bytes.

>>> render_tokens([b"Hello", b" world", b"\\n"], color=False)
'[Hello][␣world][↵]'
>>> table = TokenTable("file", "tokenizer", "tokens", "bytes/token")
>>> table.add("a.txt", "gpt2", "1,234", "4.10")
>>> print(table.render())
file   tokenizer  tokens  bytes/token
a.txt  gpt2        1,234         4.10
"""

from __future__ import annotations

import codecs
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from .errors import CommandError
from .files import decode_utf8, not_utf8
from .viz import token_label

# 256-colour terminal backgrounds close to bpe_course.viz.PALETTE; text stays black on them.
ANSI_BACKGROUNDS = (223, 194, 159, 183, 225, 229, 153, 217)
RESET = "\x1b[0m"


def use_color(choice: str, stream: TextIO) -> bool:
    """``"always"``, ``"never"``, or ``"auto"``: colours on a terminal unless ``NO_COLOR`` is set."""
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


def render_tokens(tokens: list[bytes], color: bool, start: int = 0) -> str:
    """Each token's label (``␣`` for a space, ``↵`` for a newline, ``<0xNN>`` for a partial
    character) on a coloured background, or in ``[brackets]`` without colour. ``start``: how many
    tokens were shown before these (a stream shown in parts keeps its colours in turn)."""
    if not color:
        return "".join(f"[{token_label(t)}]" for t in tokens)
    return "".join(f"\x1b[30;48;5;{ANSI_BACKGROUNDS[k % len(ANSI_BACKGROUNDS)]}m{token_label(t)}{RESET}"
                   for k, t in enumerate(tokens, start))


class TokenTable:
    """A plain aligned text table: the first two columns left-aligned, the numbers right-aligned."""

    def __init__(self, *header: str) -> None:
        self.header = header
        self.rows: list[tuple[str, ...]] = []

    def add(self, *cells: object) -> None:
        self.rows.append(tuple(str(c) for c in cells))

    def render(self) -> str:
        rows = [self.header, *self.rows]
        sizes = [max(len(r[c]) for r in rows) for c in range(len(self.header))]
        return "\n".join("  ".join(cell.ljust(sizes[c]) if c < 2 else cell.rjust(sizes[c])
                                   for c, cell in enumerate(r)).rstrip() for r in rows)


def read_stdin_text() -> str:
    """All of standard input as UTF-8 text; a bad byte is reported with its offset."""
    if sys.stdin is None:  # subtle: started with standard input closed (`<&-`)
        raise CommandError("standard input is closed: give the text as arguments, or pipe it in")
    if sys.stdin.isatty():
        print("(reading from standard input; end with Ctrl-D)", file=sys.stderr)
    return decode_utf8(sys.stdin.buffer.read(), "standard input", CommandError)


def stdin_text_blocks(block: int = 1 << 20) -> Iterator[str]:
    """Standard input as UTF-8 text, a block at a time (flat memory); a bad byte is reported with its offset."""
    if sys.stdin is None:
        raise CommandError("standard input is closed: give the text as arguments, or pipe it in")
    if sys.stdin.isatty():
        print("(reading from standard input; end with Ctrl-D)", file=sys.stderr)
    decoder = codecs.getincrementaldecoder("utf-8")()
    at = 0
    while True:
        data = sys.stdin.buffer.read1(block) if hasattr(sys.stdin.buffer, "read1") else sys.stdin.buffer.read(block)
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            held = len(decoder.getstate()[0])
            raise CommandError(not_utf8("standard input", at - held + exc.start, exc.object[exc.start])) from None
        at += len(data)
        if text:
            yield text
        if not data:
            return


def write_bytes(data: bytes) -> None:
    """Write raw bytes to standard output, exactly."""
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def find_first(paths: Sequence[str | os.PathLike], texts: Sequence[str],
               block: int = 1 << 20) -> tuple[str, int, str] | None:
    """The first of ``texts`` in the files ``paths``: ``(file, byte offset, text)``, or ``None``.

    Reads a block at a time, so a file of any size takes little memory; a text cut in two by a
    block's edge is found too. (Searching the UTF-8 bytes finds exactly the text's occurrences in
    the decoded text: no character's bytes can start inside another character.)
    """
    wanted = [t.encode("utf-8") for t in texts if t]
    if not wanted:
        return None
    longest = max(map(len, wanted))
    find = re.compile(b"|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True))).search
    for path in paths:
        with open(path, "rb") as f:
            start, data = 0, b""  # `data` holds the file from byte `start` on
            while chunk := f.read(block):
                data += chunk
                if found := find(data):
                    return str(path), start + found.start(), found.group().decode("utf-8")
                keep = min(len(data), longest - 1)  # subtle: a text cut by the block's edge is found next time
                start, data = start + len(data) - keep, data[len(data) - keep:]
    return None
