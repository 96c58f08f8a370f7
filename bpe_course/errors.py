"""Every error the course raises on purpose, in one place.

Each is a ``ValueError`` (or, for the command line, an ``Exception``) whose message names what is
wrong and where: the file, the line or JSON key, the token id, the byte offset. A learner reads
one sentence, never a traceback from deep inside the package.
"""

from __future__ import annotations


class CorpusError(ValueError):
    """A corpus (a built-in one, a learner's file, a download) that cannot be used."""


class TokenizerFileError(ValueError):
    """A tokenizer file that cannot be read; the message names the file and the line or key."""


class HashMismatchError(ValueError):
    """A vocabulary file is not the file it claims to be (its sha256 differs)."""


class MissingPackageError(ImportError):
    """A named tokenizer's files come with a package that is not installed; the message says what to install."""


class CacheMismatch(ValueError):
    """A pretrained tokenizer's cache file is damaged, stale (other sources, version or byte order) or not a
    cache file; the caller rebuilds it from the source files (see :mod:`bpe_course.pretrained_cache`)."""


class CommandError(Exception):
    """A problem with what was given to the ``bpe-course`` command: exit status 1."""
