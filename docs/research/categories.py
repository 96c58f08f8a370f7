"""The course's categories of text, each cut into two disjoint halves: A trains tokenizers, B is the attacker's sample.

Categories: the UDHR's 18 languages (A: preamble and articles 1-15, B: articles 16-30), Python code
(python_code, modules dealt alternately), English technical prose (python_docs, paragraph blocks dealt
alternately) and two novels (don_quixote from data/, les_miserables from shared/corpora; blocks of 40
paragraphs dealt alternately).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from bpe_course import corpus

BOOKS = Path("/work/shared/corpora/books")


def _deal(parts: list[str]) -> tuple[list[str], list[str]]:
    return parts[0::2], parts[1::2]


def _blocks(text: str, size: int) -> list[str]:
    paras = [p for p in text.split("\n\n") if p.strip()]
    return ["\n\n".join(paras[i:i + size]) for i in range(0, len(paras), size)]


@lru_cache(maxsize=None)
def halves(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(A documents, B documents) of category ``name``."""
    if name in corpus.UDHR_LANGUAGES:
        parts = corpus.udhr(name)
        a = [parts[k] for k in ["preamble", *map(str, range(1, 16))] if k in parts]
        b = [parts[str(k)] for k in range(16, 31)]
        return tuple(a), tuple(b)
    if name == "python_code":
        text = corpus.load("python_code")
        modules = [m for m in re.split(r"(?m)^(?=# ===== )", text) if m.strip()]
        a, b = _deal(modules)
        return tuple(a), tuple(b)
    if name == "python_docs":
        a, b = _deal(_blocks(corpus.load("python_docs"), 10))
        return tuple(a), tuple(b)
    if name == "don_quixote":
        a, b = _deal(_blocks(corpus.load("don_quixote"), 40))
        return tuple(a), tuple(b)
    if name == "les_miserables":
        a, b = _deal(_blocks((BOOKS / "les_miserables_en.txt").read_text(encoding="utf-8"), 40))
        return tuple(a), tuple(b)
    raise KeyError(name)


LANGUAGES = list(corpus.UDHR_LANGUAGES)
LARGE = ["don_quixote", "les_miserables", "python_code", "python_docs"]
ALL = LANGUAGES + LARGE


def n_bytes(docs) -> int:
    return sum(len(d.encode("utf-8")) for d in docs)


def sample(docs, size: int | None, offset: int = 0) -> list[str]:
    """Whole documents from ``offset`` on (wrapping round) until at least ``size`` bytes (all if None)."""
    docs = list(docs)
    if size is None:
        return docs
    out, total, k = [], 0, offset
    while total < size and len(out) < len(docs):
        d = docs[k % len(docs)]
        out.append(d)
        total += len(d.encode("utf-8"))
        k += 1
    if total > size:  # cut the last document so the sample is exactly `size` bytes (at a character)
        extra = total - size
        last = out[-1].encode("utf-8")
        out[-1] = last[:len(last) - extra].decode("utf-8", errors="ignore")
    return out


if __name__ == "__main__":
    for name in ALL:
        a, b = halves(name)
        print(f"{name:16} A {n_bytes(a):>9,} bytes in {len(a):4} docs   B {n_bytes(b):>9,} bytes in {len(b):4} docs")
