"""Varied text for the benchmark, besides the generated documentation corpus (corpus.py).

* **books**: the two public-domain novels of the shared corpora (``<corpora>/books``, by default
  ``../shared/corpora`` beside the project; see its README), *Les Misérables* then *Don Quixote*,
  joined by a blank line: 5.5 MB of English with about twice the distinct words per megabyte of
  the documentation corpus.
* **mixed**: the novels' paragraphs (one from each in turn) interleaved with every article of the
  Universal Declaration of Human Rights in its 18 languages (``<corpora>/udhr``) and the course's
  own short samples of 8 languages (``data/languages``), so that a fixed share of the bytes is not
  English. There is only about 260 KB of non-English text, so each non-English piece is used
  ``repeats`` times (in a new order each pass): the first pass lies in the first half of the file.
* **prose**: lines of sentences of the novels, for sizes the novels cannot give (200 MB, 2 GB).
  Every line opens with a pair of sentences no other line has, so no two lines are equal, and
  every word is a word of the novels: the vocabulary stays the books' own however big the file,
  which is what a test of flat memory needs (memory may grow with the distinct pre-tokens, not
  with the bytes).

Everything is deterministic: the same inputs and seed give the same bytes.
"""

from __future__ import annotations

import hashlib
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

SEED = 20240601
BOOK_FILES = {  # name -> sha256, as listed in the shared corpora's README
    "les_miserables_en.txt": "6ed6be33785e401fd1a3fd1136e93e6d9ba16f2968c376fa3d66bfb16a48a1ab",
    "don_quixote_en.txt": "be34e10472bce318af4fabd6d6efa49bf17d9dde880c73069656a1c19df0d5cc",
}
UDHR_NS = "{http://www.unhchr.ch/udhr}"
# The script (or language group) of each source: UDHR codes and data/languages file names.
SCRIPT = {"eng": "English", "novels": "English",
          "deu_1996": "Latin, not English", "fra": "Latin, not English", "spa": "Latin, not English",
          "swh": "Latin, not English", "tur": "Latin, not English", "vie": "Latin, not English",
          "yor": "Latin, not English", "de": "Latin, not English", "es": "Latin, not English",
          "fr": "Latin, not English", "rus": "Cyrillic", "ru": "Cyrillic", "ell_monotonic": "Greek",
          "arb": "Arabic", "ar": "Arabic", "amh": "Ethiopic", "hin": "Devanagari", "hi": "Devanagari",
          "ben": "Bengali", "tam": "Tamil", "cmn_hans": "Chinese and Japanese", "jpn": "Chinese and Japanese",
          "zh": "Chinese and Japanese", "ja": "Chinese and Japanese", "kor": "Korean"}
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"“‘(]?[A-Z])")


class MissingCorpora(SystemExit):
    """The shared corpora are not where the benchmark looks (a clean message, no traceback)."""


def default_corpora_dir(project_root: Path) -> Path:
    """``../shared/corpora`` beside the project (where the shared corpora's README says to look)."""
    return Path(project_root).resolve().parent / "shared" / "corpora"


def require(folder: Path, parts: list[str]) -> None:
    """Raise :class:`MissingCorpora` naming what is missing under ``folder`` and how to point elsewhere."""
    missing = [part for part in parts if not (Path(folder) / part).exists()]
    if missing:
        raise MissingCorpora(f"python -m benchmarks: error: the shared corpora are missing: "
                             f"{', '.join(str(Path(folder) / m) for m in missing)}. Pass --corpora-dir DIR (a "
                             f"folder with books/ and udhr/, as ../shared/corpora/README.md describes), or leave out "
                             f"what needs them (--corpora docs --sections train,naive,encode,long,train_long,stream)")


# ---- books ------------------------------------------------------------------------------------------
def build_books(corpora: Path, path: Path) -> dict:
    """Write the two novels, joined by a blank line, to ``path``; a description with each file's check."""
    require(corpora, [f"books/{name}" for name in BOOK_FILES])
    texts, checks = [], {}
    for name, expected in BOOK_FILES.items():
        data = (Path(corpora) / "books" / name).read_bytes()
        checks[name] = {"bytes": len(data), "sha256_as_listed": hashlib.sha256(data).hexdigest() == expected}
        texts.append(data.decode("utf-8").strip("\n"))
    data = ("\n\n".join(texts) + "\n").encode("utf-8")
    Path(path).write_bytes(data)
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "files": checks}


def describe_books(meta: dict) -> str:
    files = ", ".join(f"{name} {c['bytes']:,} bytes{'' if c['sha256_as_listed'] else ' (sha256 NOT as listed)'}"
                      for name, c in meta["files"].items())
    return f"books: {meta['bytes']:,} bytes ({files}), sha256 {meta['sha256'][:16]}..."


# ---- mixed ------------------------------------------------------------------------------------------
def udhr_articles(path: Path) -> list[str]:
    """The 30 articles of one UDHR file, each its paragraphs joined by newlines (the preamble is left out)."""
    root = ET.parse(path).getroot()
    return ["\n".join((p.text or "").strip() for p in article.iter(UDHR_NS + "para"))
            for article in root.iter(UDHR_NS + "article")]


def udhr_code(path: Path) -> str:
    return Path(path).stem.removeprefix("udhr_")


def language_samples(folder: Path) -> list[tuple[str, str]]:
    """``(language, paragraph)`` of every sample in ``data/languages`` (file name = language code)."""
    return [(path.stem, paragraph.strip()) for path in sorted(Path(folder).glob("*.txt"))
            for paragraph in _PARAGRAPH_BREAK.split(path.read_text(encoding="utf-8")) if paragraph.strip()]


def mixed_pieces(corpora: Path, samples: Path) -> list[tuple[str, str]]:
    """``(source, text)``: every UDHR article in every language, then every language-sample paragraph."""
    require(corpora, ["udhr"])
    files = sorted((Path(corpora) / "udhr").glob("udhr_*.xml"))
    if not files:
        raise MissingCorpora(f"python -m benchmarks: error: no udhr_*.xml in {Path(corpora) / 'udhr'}")
    pieces = [(udhr_code(f), text) for f in files for text in udhr_articles(f) if text.strip()]
    return pieces + language_samples(samples)


def novel_paragraphs(corpora: Path) -> Iterator[str]:
    """The novels' paragraphs, one from each in turn (then the rest of the longer one)."""
    require(corpora, [f"books/{name}" for name in BOOK_FILES])
    books = [[p.strip("\n") for p in _PARAGRAPH_BREAK.split((Path(corpora) / "books" / name).read_text("utf-8"))
              if p.strip()] for name in BOOK_FILES]
    for k in range(max(map(len, books))):
        for book in books:
            if k < len(book):
                yield book[k]


def build_mixed(corpora: Path, samples: Path, path: Path, share: float = 0.25, repeats: int = 2,
                seed: int = SEED) -> dict:
    """Write novels' paragraphs interleaved with the non-English pieces so ``share`` of the bytes are not English.

    Each pass puts all pieces (UDHR articles in 18 languages, language samples) in a new
    pseudo-random order; before each piece, English paragraphs are added until English holds
    ``1 - share`` of what is written, so every prefix has about the same mix. Stops when the
    passes are done (topped up with English) or the novels run out.
    """
    pieces = mixed_pieces(corpora, samples)
    udhr_codes = {udhr_code(f) for f in (Path(corpora) / "udhr").glob("udhr_*.xml")}
    english = novel_paragraphs(corpora)
    by_script: dict[str, int] = {}
    out: list[str] = []
    english_bytes = other_bytes = 0

    def add(source: str, text: str) -> None:
        nonlocal english_bytes, other_bytes
        size = len(text.encode("utf-8")) + 2
        out.append(text + "\n\n")
        by_script[SCRIPT[source]] = by_script.get(SCRIPT[source], 0) + size
        if SCRIPT[source] == "English":
            english_bytes += size
        else:
            other_bytes += size

    def top_up(target_other: int) -> bool:
        """Add novel paragraphs until English is its share of the total; False if the novels ran out."""
        while english_bytes < target_other * (1 - share) / share:
            paragraph = next(english, None)
            if paragraph is None:
                return False
            add("novels", paragraph)
        return True

    order = []
    for k in range(repeats):
        shuffled = pieces[:]
        random.Random(seed + k).shuffle(shuffled)
        order += shuffled
    for source, text in order:
        upcoming = 0 if SCRIPT[source] == "English" else len(text.encode("utf-8")) + 2
        if not top_up(other_bytes + upcoming):
            break
        add(source, text)
    else:
        top_up(other_bytes)
    data = "".join(out).encode("utf-8")
    Path(path).write_bytes(data)
    unique = sum(len(t.encode("utf-8")) + 2 for s, t in pieces if SCRIPT[s] != "English")
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "by_script": by_script,
            "non_english_unique_bytes": unique, "repeats": repeats, "share": share,
            "udhr_languages": len({s for s, _ in pieces if s in udhr_codes}),
            "sample_languages": len({s for s, _ in pieces if s not in udhr_codes})}


def describe_mixed(meta: dict) -> str:
    total = sum(meta["by_script"].values())
    other = total - meta["by_script"].get("English", 0)
    parts = ", ".join(f"{script} {size / total:.1%}" for script, size in
                      sorted(meta["by_script"].items(), key=lambda item: -item[1]))
    return (f"mixed: {meta['bytes']:,} bytes, {other / total:.1%} not English ({parts}); "
            f"UDHR in {meta['udhr_languages']} languages, samples of {meta['sample_languages']}; "
            f"the {meta['non_english_unique_bytes']:,} bytes of non-English text "
            f"(UDHR articles, language samples) are used {meta['repeats']} times, in a new order each time "
            f"(the first time within the first 1/{meta['repeats']} of the file); sha256 {meta['sha256'][:16]}...")


# ---- generated prose ---------------------------------------------------------------------------------
def book_sentences(corpora: Path) -> list[str]:
    """The novels' sentences of at least four words, each on one line (hard line breaks undone)."""
    require(corpora, [f"books/{name}" for name in BOOK_FILES])
    sentences = []
    for name in BOOK_FILES:
        for paragraph in _PARAGRAPH_BREAK.split((Path(corpora) / "books" / name).read_text(encoding="utf-8")):
            flat = " ".join(paragraph.split())
            sentences += [s for s in _SENTENCE_END.split(flat) if len(s.split()) >= 4]
    return sentences


def prose_line(rng: random.Random, sentences: list[str], number: int, first: list[int], second: list[int]) -> str:
    """Line ``number``: a pair of sentences no other line starts with, then zero to four random ones.

    subtle: with ``n`` sentences, ``number`` is ``a + n * q`` for one ``(a, q)``; the pair is
    ``(first[a], second[(a + q) % n])``, and since ``first`` and ``second`` are permutations the
    pairs never repeat for the first ``n * n`` lines (2.5 billion for the novels: more than 2 GB).
    """
    n = len(sentences)
    a, q = number % n, number // n
    if q >= n:
        raise ValueError(f"more than {n * n:,} lines would repeat a pair of sentences")
    picked = [sentences[first[a]], sentences[second[(a + q) % n]]]
    picked += [rng.choice(sentences) for _ in range(rng.randint(0, 4))]
    return " ".join(picked)


def write_prose(path: Path, size_bytes: int, sentences: list[str], seed: int = SEED) -> dict:
    """Write lines of :func:`prose_line` until ``path`` holds at least ``size_bytes``; its description."""
    rng, digest = random.Random(seed), hashlib.sha256()
    sentences = list(dict.fromkeys(sentences))  # each sentence once, so that distinct pairs make distinct lines
    first, second = list(range(len(sentences))), list(range(len(sentences)))
    rng.shuffle(first)
    rng.shuffle(second)
    written = lines = 0
    with open(path, "wb") as f:
        while written < size_bytes:
            data = (prose_line(rng, sentences, lines, first, second) + "\n").encode("utf-8")
            f.write(data)
            digest.update(data)
            written += len(data)
            lines += 1
    return {"bytes": written, "lines": lines, "sha256": digest.hexdigest(), "seed": seed}


def describe_prose(meta: dict, sentences: int) -> str:
    return (f"prose: {meta['bytes']:,} bytes, {meta['lines']:,} lines of 2-6 sentences of the novels' {sentences:,} "
            f"(seed {meta['seed']}), each line opening with a pair of sentences no other line has, so every line "
            f"differs and every word is the novels'; sha256 {meta['sha256'][:16]}...")
