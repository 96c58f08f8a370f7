"""Text to train on: the built-in offline corpora, the learner's own files, downloads.

The built-in corpora are frozen files in the repository's ``data/`` folder; every
:func:`load` checks the file against ``data/SHA256SUMS``, so a notebook's numbers never
depend on which Python is installed (Python's own docs change between versions).

>>> names()[:3]
['python_docs', 'python_code', 'numbers']
>>> load("languages/de").startswith("Am Samstagmorgen")
True
>>> train, heldout = train_heldout("python_docs")
>>> len(heldout) < len(train)
True
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from random import Random

from .download import download  # noqa: F401  (corpus.download(name): larger corpora, for learners online)
from .errors import CorpusError
from .files import read_text_blocks
from .resources import data_dir as data_dir_of_package

__all__ = ["ARTICLES", "HELDOUT_ARTICLES", "LANGUAGES", "MIXES", "TRAIN_ARTICLES", "UDHR_LANGUAGES", "download",
           "language_name", "load", "load_text", "misspell", "mix_text", "names", "path", "read_files",
           "read_text_file", "split_text", "train_heldout", "udhr"]

# subtle: module-level so tests (and the curious) can point it at a copy with monkeypatch.
DATA_DIR = data_dir_of_package()

RESAVE_OR_REPLACE = "; re-save the file as UTF-8, or read it with errors='replace'"

# ISO 639-1 code -> language of data/languages/<code>.txt (prose written for this course).
LANGUAGES = {"ar": "Arabic", "de": "German", "es": "Spanish", "fr": "French",
             "hi": "Hindi", "ja": "Japanese", "ru": "Russian", "zh": "Chinese (simplified)"}

# name -> file under data/ ("languages" is the exception: all language files joined).
_FILES = {
    "python_docs": "python_docs.txt",
    "python_code": "python_code.txt",
    "numbers": "numbers.txt",
    "don_quixote": "don_quixote.txt",
    **{f"languages/{code}": f"languages/{code}.txt" for code in LANGUAGES},
}
# Corpora whose train / held-out split is frozen in its own files (made by tools/make_data.py).
_SPLITS = {
    "python_docs": ("python_docs_train.txt", "python_docs_heldout.txt"),
    "python_code": ("python_code_train.txt", "python_code_heldout.txt"),
}

# The Universal Declaration of Human Rights in 18 languages (data/udhr/, "UDHR in Unicode"):
# file key -> (script, language). Every file has the same preamble and 30 articles, so they align.
UDHR_LANGUAGES = {
    "eng": ("Latin", "English"), "fra": ("Latin", "French"), "spa": ("Latin", "Spanish"),
    "deu_1996": ("Latin", "German"), "tur": ("Latin", "Turkish"), "vie": ("Latin", "Vietnamese"),
    "swh": ("Latin", "Swahili"), "yor": ("Latin", "Yoruba"), "ell_monotonic": ("Greek", "Greek"),
    "rus": ("Cyrillic", "Russian"), "arb": ("Arabic", "Arabic"), "hin": ("Devanagari", "Hindi"),
    "ben": ("Bengali", "Bengali"), "tam": ("Tamil", "Tamil"), "amh": ("Ethiopic", "Amharic"),
    "cmn_hans": ("Han", "Chinese (simplified)"), "jpn": ("Han + kana", "Japanese"), "kor": ("Hangul", "Korean"),
}
_UDHR_NS = "{http://www.unhchr.ch/udhr}"

DESCRIPTIONS = {
    "python_docs": "English prose: Python 3.11.7's help topics (pydoc_data.topics), ~466 KB",
    "python_code": "Python source: 12 pure-Python stdlib modules of CPython 3.11.7, ~410 KB",
    "numbers": "dates, prices, phone-like numbers, arithmetic and tables, ~3 KB",
    "don_quixote": "English prose: Cervantes' Don Quixote in John Ormsby's translation (public domain), ~2.3 MB",
    "languages": "all of languages/<code> below, one after another (~21 KB)",
    **{f"languages/{c}": f"{lang}: weather, a market, a journey, a recipe; ~2-4 KB" for c, lang in LANGUAGES.items()},
}


def read_text_file(path: str | os.PathLike, errors: str = "strict") -> str:
    """Read a UTF-8 text file. With ``errors="strict"`` a bad byte raises :class:`CorpusError`
    naming the file and the byte offset; ``"replace"`` turns bad bytes into U+FFFD instead.

    The file is read as training reads it (:func:`bpe_course.files.read_text_blocks`): a byte-order
    mark at the start of the file (U+FEFF, bytes ``EF BB BF``, which Windows Notepad writes) marks
    the file as UTF-8 and is not part of the text, so it is dropped; a U+FEFF anywhere else is kept.
    Offsets in errors are offsets in the file.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if path.is_dir():
        raise CorpusError(f"corpus path is a directory, not a text file: {path}")
    return "".join(read_text_blocks(path, CorpusError, errors=errors, hint=RESAVE_OR_REPLACE))


# ---------------------------------------------------------------- built-in corpora


def names() -> list[str]:
    """The built-in corpora; ``languages`` is all ``languages/<iso code>`` files together."""
    return ["python_docs", "python_code", "numbers", "don_quixote", "languages", *(f"languages/{c}" for c in LANGUAGES)]


def data_dir() -> Path:
    """The folder holding the frozen corpora; a clear :class:`CorpusError` if it is not there."""
    folder = Path(DATA_DIR)
    if not (folder / "SHA256SUMS").is_file():
        raise CorpusError(
            f"the built-in corpora are missing: no {folder / 'SHA256SUMS'}. They come with the package "
            "(bpe_course.data) and, in a clone, in the repository's data/ folder; reinstall bpe-course, "
            "or use load_text(path) for your own files"
        )
    return folder


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """The hint for a mistyped name: ``"; did you mean 'x'?"``, or ``""`` when nothing is close.

    >>> did_you_mean("python_doc", names())
    "; did you mean 'python_docs'?"
    """
    close = difflib.get_close_matches(str(name), list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_name(name: str) -> None:
    if name not in names():
        raise CorpusError(f"unknown corpus {name!r}{did_you_mean(name, names())} (built-in corpora: "
                          f"{', '.join(names())})")


def path(name: str) -> Path:
    """Where a built-in corpus lives (for ``"languages"``: the folder of language files).

    >>> path("numbers").name
    'numbers.txt'
    """
    _check_name(name)
    return data_dir() / (_FILES[name] if name in _FILES else "languages")


def _expected_sha256(folder: Path) -> dict[str, str]:
    """``data/SHA256SUMS`` as ``{relative path: hex digest}``."""
    lines = (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    # subtle: sha256sum writes "<hash>  <file>", or "<hash> *<file>" in binary mode; accept both.
    return {rel.lstrip(" *"): digest.lower() for digest, _, rel in (line.partition(" ") for line in lines) if rel}


def _read_verified(relative: str) -> str:
    """Read ``data/<relative>``, check its sha256 against SHA256SUMS, decode it as UTF-8."""
    folder = data_dir()
    file = folder / relative
    expected = _expected_sha256(folder).get(relative)
    if expected is None:
        raise CorpusError(f"{file}: no line for {relative!r} in {folder / 'SHA256SUMS'}")
    if not file.is_file():
        raise CorpusError(f"{file}: built-in corpus file is missing")
    data = file.read_bytes()
    # subtle: checked on every load (cheap: ~1 ms for 0.5 MB), so an edit between loads is caught too.
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise CorpusError(
            f"{file}: sha256 mismatch (expected {expected}, actual {actual}); the frozen corpus was "
            "changed. Restore it from the repository, or regenerate data/ with tools/make_data.py"
        )
    return data.decode("utf-8")


def load(name: str) -> str:
    """The text of a built-in corpus, after checking its sha256.

    >>> load("languages").count("\\n\\n") > 40
    True
    """
    _check_name(name)
    if name == "languages":
        return "\n".join(load(f"languages/{code}") for code in LANGUAGES)
    return _read_verified(_FILES[name])


def udhr(language: str) -> dict[str, str]:
    """The Universal Declaration of Human Rights in one language, as ``{"preamble": ..., "1": ..., "30": ...}``.

    The 30 articles say the same thing in every language of :data:`UDHR_LANGUAGES`, so a tokenizer's
    cost can be compared article by article; the preamble is there too, except in the Amharic
    translation, which has none. Each part is its paragraphs joined by newlines (no titles).

    >>> articles = udhr("eng")
    >>> len(articles), articles["1"][:37]
    (31, 'All human beings are born free and eq')
    """
    if language not in UDHR_LANGUAGES:
        raise CorpusError(f"no UDHR text for {language!r}{did_you_mean(language, UDHR_LANGUAGES)} "
                          f"(available: {', '.join(UDHR_LANGUAGES)})")
    root = ET.fromstring(_read_verified(f"udhr/udhr_{language}.xml"))

    def paragraphs(element) -> str:
        return "\n".join((p.text or "").strip() for p in element.iter(_UDHR_NS + "para"))

    preamble = root.find(_UDHR_NS + "preamble")
    parts = {"preamble": paragraphs(preamble)} if preamble is not None else {}
    parts |= {article.get("number", ""): paragraphs(article) for article in root.iter(_UDHR_NS + "article")}
    return parts


# The UDHR's articles as chapters 13, 16 and 17 use them: a tokenizer of your own learns from
# articles 1-20 and is measured on 21-30, which it never saw.
ARTICLES = [str(k) for k in range(1, 31)]
TRAIN_ARTICLES = ARTICLES[:20]
HELDOUT_ARTICLES = ARTICLES[20:]
# Training mixes: how many copies of each language's training articles a mix holds.
MIXES: dict[str, dict[str, int]] = {
    "English only": {"eng": 1},
    "balanced": {code: 1 for code in UDHR_LANGUAGES},
    "English-heavy": {"eng": 17, **{code: 1 for code in UDHR_LANGUAGES if code != "eng"}},
}


def language_name(code: str) -> str:
    """A UDHR language's English name: ``language_name("tam") == "Tamil"``."""
    return UDHR_LANGUAGES[code][1]


def mix_text(mix: Mapping[str, int], articles: Sequence[str] = TRAIN_ARTICLES) -> list[str]:
    """The training documents of a mix: each language's articles, as many copies as the mix says.

    >>> len(mix_text({"eng": 2, "fra": 1}, ["1", "2"]))
    6
    """
    docs = []
    for code, copies in mix.items():
        text = udhr(code)
        docs += [text[k] for k in articles] * copies
    return docs


def split_text(text: str, heldout_fraction: float = 0.1) -> tuple[str, str]:
    """Cut ``text`` at the paragraph break (blank line) nearest to where its last
    ``heldout_fraction`` begins; the blank line itself goes to neither part.

    >>> split_text("a\\n\\nb\\n\\nc\\n\\nd\\n", 0.25)
    ('a\\n\\nb\\n\\nc\\n', 'd\\n')
    """
    target = len(text) * (1 - heldout_fraction)
    # subtle: the nearest break is the last one before int(target) or one of the first two from there on
    at = int(target)
    nearby = (text.rfind("\n\n", 0, at + 1), text.find("\n\n", at), text.find("\n\n", at + 1))
    breaks = [i for i in nearby if i >= 0]
    if not breaks:
        raise CorpusError("cannot split a text without a paragraph break (blank line)")
    cut = min(breaks, key=lambda i: (abs(i - target), i))
    return text[: cut + 1], text[cut + 2 :]


def train_heldout(source: str | os.PathLike) -> tuple[str, str]:
    """A stable (train, held-out) split of a built-in corpus, or of a file of yours.

    ``python_docs`` and ``python_code`` have frozen split files (whole help topics / whole
    modules held out); the other corpora are cut by :func:`split_text` (for ``"languages"``, each
    language separately, so every language appears in both parts). Anything else goes through
    :func:`load_text` (a path to your own UTF-8 file) and is cut 90/10 at a paragraph break.

    >>> train, heldout = train_heldout("python_code")
    >>> heldout.splitlines()[0]
    '# ===== Lib/calendar.py (CPython 3.11.7, Python Software Foundation License) ====='
    """
    if not isinstance(source, str) or not isinstance(find(source), str):
        return split_text(load_text(source))  # a file of yours
    if source in _SPLITS:
        train_file, heldout_file = _SPLITS[source]
        return _read_verified(train_file), _read_verified(heldout_file)
    if source == "languages":
        parts = [train_heldout(f"languages/{code}") for code in LANGUAGES]
        return "\n".join(t for t, _ in parts), "\n".join(h for _, h in parts)
    return split_text(load(source))


# ---------------------------------------------------------------- the learner's own text


def read_files(paths: Iterable[str | os.PathLike], errors: str = "strict") -> str:
    """Read several UTF-8 files and join them with ``"\\n"``; every error names its file."""
    if isinstance(paths, (str, os.PathLike)):
        raise TypeError("read_files takes a list of paths; for a single file use read_text_file(path)")
    paths = list(paths)
    if not paths:
        raise CorpusError("read_files: the list of files is empty")
    return "\n".join(read_text_file(p, errors=errors) for p in paths)


def _looks_like_path(source: str) -> bool:
    """True for strings a learner most likely meant as a file name.

    >>> _looks_like_path("notes/ch1.txt"), _looks_like_path("story.txt"), _looks_like_path("hello world")
    (True, True, False)
    """
    one_line = "\n" not in source and len(source) < 300
    return one_line and ("/" in source or os.sep in source or source.lower().endswith((".txt", ".md", ".text")))


def find(name: str) -> Path | str:
    """What a string naming a source of text means -- the one rule of :func:`load_text`,
    :func:`train_heldout` and the command line's ``FILE`` arguments: an existing file (or folder),
    as a ``Path``; else a built-in corpus, as its name (a file wins over a corpus of the same name).

    Anything else raises, never becoming text by a guess: ``FileNotFoundError`` if it looks like
    a path (contains ``/`` or ends in ``.txt``), else :class:`CorpusError` with the closest corpus
    name. (Where a function takes *text*, as ``train_bpe`` does, a ``str`` is the text itself.)

    >>> find("numbers")
    'numbers'
    >>> find("python_doc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_course.errors.CorpusError: 'python_doc' is neither an existing file nor a built-in corpus; did you mean ...
    """
    if os.path.exists(name):
        return Path(name)
    if name in names():
        return name
    if _looks_like_path(name):
        raise FileNotFoundError(f"no such file: {name!r} (relative paths start at {Path.cwd()})")
    shown = name if len(name) <= 60 else name[:57] + "..."
    raise CorpusError(f"{shown!r} is neither an existing file nor a built-in corpus{did_you_mean(name, names())} "
                      f"(built-in: {', '.join(names())})")


def load_text(
    source: str | os.PathLike | Iterable[str | os.PathLike] | None = None,
    *,
    text: str | None = None,
    errors: str = "strict",
) -> str:
    """Turn a corpus name, a file, several files, or (explicitly) a string into training text.

    The rule, in order:

    1. ``load_text(text="...")``: the string itself is the text (the only way to pass raw text).
    2. a ``Path`` (any ``os.PathLike``): that file.
    3. a list or tuple of paths: those files, via :func:`read_files`.
    4. a string: what :func:`find` says it names -- an existing file, else a built-in corpus
       (see :func:`names`). Any other string is an error: ``FileNotFoundError`` if it looks like a
       path (contains ``/`` or ends in ``.txt``), else :class:`CorpusError`. So a typo'd file name
       never silently becomes training text.

    >>> load_text(text="low lower lowest")
    'low lower lowest'
    >>> load_text("numbers") == load("numbers")
    True
    >>> load_text("python_doc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_course.errors.CorpusError: 'python_doc' is neither an existing file ...; did you mean 'python_docs'? ...
    """
    if (source is None) == (text is None):
        raise TypeError("load_text takes exactly one of: a corpus name or file path, or text='...'")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text= must be a str, not {type(text).__name__}")
        return text
    if isinstance(source, os.PathLike):
        return read_text_file(source, errors=errors)
    if isinstance(source, (list, tuple)):
        return read_files(source, errors=errors)
    if not isinstance(source, str):
        raise TypeError(f"load_text needs a str, a Path or a list of paths, not {type(source).__name__}")
    try:
        found = find(source)
    except CorpusError as exc:
        raise CorpusError(f"{exc}. To use a string itself as training text, call load_text(text=...)") from None
    return read_text_file(found, errors=errors) if isinstance(found, Path) else load(found)


SLIPS = ("swap", "drop", "double", "replace")  # misspell's four kinds of typo


def misspell(text: str, rate: float, rng: Random) -> str:
    """``text`` with seeded typos: each word of three ASCII letters or more is hit with probability ``rate``
    by one slip -- two neighbouring letters swapped, one dropped, one doubled or one replaced by a common letter.
    Chapters 16 and 21 score models on held-out text misspelled this way; the same ``rng`` seed gives the same text.

    >>> misspell("the knight rode on", 1.0, Random(3))
    'tthe knihgt roode on'
    >>> misspell("the knight", 0.0, Random(3))
    'the knight'
    """
    def slip(match: re.Match) -> str:
        word = match.group()
        if rng.random() >= rate:
            return word
        i = rng.randrange(len(word) - 1)
        kind = rng.choice(SLIPS)
        if kind == "swap":
            return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if kind == "drop":
            return word[:i] + word[i + 1:]
        if kind == "double":
            return word[:i] + word[i] + word[i:]
        return word[:i] + rng.choice("etaoinshrdlu") + word[i + 1:]
    return re.sub(r"[A-Za-z]{3,}", slip, text)
