"""Bridges to the real libraries: a saved tokenizer as a ``tiktoken.Encoding``.

``tiktoken`` is an optional dependency (``pip install bpe-course[interop]``), imported only when
a bridge is used, so ``import bpe_course`` never needs it.
"""

from __future__ import annotations

import os
from pathlib import Path

from .formats.tiktoken_bpe import NO_PATTERN_FOR_TIKTOKEN, read_sidecar, read_tiktoken_ranks


def tiktoken_encoding(path: str | os.PathLike, name: str | None = None):
    """A real ``tiktoken.Encoding`` for a saved ``.tiktoken`` file and its sidecar.

    subtle: tiktoken's own ``load_tiktoken_bpe(path)`` caches files by *path* in
    ``$TMPDIR/data-gym-cache``; a file re-saved at the same path is then read stale unless you
    pass ``expected_hash=`` (the sidecar's ``sha256``). This reads the file directly.
    """
    import tiktoken  # an optional dependency: only this bridge needs it
    path = Path(path)
    side = read_sidecar(path)
    return tiktoken.Encoding(name=name or path.stem, pat_str=side["pattern"] or NO_PATTERN_FOR_TIKTOKEN,
                             mergeable_ranks=read_tiktoken_ranks(path), special_tokens=side["special_tokens"])
