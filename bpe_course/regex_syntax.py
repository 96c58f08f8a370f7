"""A regex pattern read part by part, the way a regex engine reads it: one scanner for every rewrite.

A pre-tokenization pattern is rewritten three times: with tiktoken's Unicode classes spelt out
for ``regex`` and for ``re`` (``bpe_course.unicode_classes``), and for Hugging Face's Oniguruma
(``bpe_course.formats.hf``). Each rewrite walks the same parts:

* an escape: ``\\p{L}``, ``\\x{41}``, ``\\s``, ``\\r`` ...;
* a whole character class ``[...]``, classes nested in it included (:func:`class_items` reads its inside);
* a group's opening, ``(``, ``(?:``, ``(?i:``, ``(?>``, ``(?!`` ..., and its closing ``)``;
* a quantifier with its lazy ``?`` or possessive ``+``: ``*``, ``++``, ``?+``, ``{1,3}+``;
* any other single character (``|``, ``$``, a letter, a ``{`` that opens no repeat).

>>> pattern_parts(r"'(?i:[sdmt]|ll)| ?\\p{L}++|\\p{N}{1,3}+|[^\\s[a-z]]")  # doctest: +NORMALIZE_WHITESPACE
["'", '(?i:', '[sdmt]', '|', 'l', 'l', ')', '|', ' ', '?', '\\\\p{L}', '++', '|', '\\\\p{N}', '{1,3}+', '|',
 '[^\\\\s[a-z]]']
>>> class_items(r"[^\\r\\n\\p{L}\\p{N}]")
(True, ['\\\\r', '\\\\n', '\\\\p{L}', '\\\\p{N}'])
"""

from __future__ import annotations

import re
import sys
from array import array
from functools import lru_cache
from itertools import chain

import regex

_PART = re.compile(r"""
    \\[pPxN]\{[^}]*\}                        # an escape with braces: \p{L}, \x{41}
  | \\.                                      # any other escape
  | \((?:\?(?:P?<\w+>|<[=!]|[=!>:]|[\w-]+:?))?  # a group's opening: ( (?: (?i: (?> (?! (?<= (?P<name>
  | (?:[*+?]|\{\d+(?:,\d*)?\})[?+]?           # a quantifier, lazy or possessive
  | .                                        # a character ("[" too: read on by _class_end)
""", re.VERBOSE | re.DOTALL)
_ITEM = re.compile(r"\\[pPxN]\{[^}]*\}|\\.|.", re.DOTALL)  # an escape or a character, inside a class
QUANTIFIER = re.compile(r"(?:[*+?]|\{\d+(?:,\d*)?\})[?+]?")


def pattern_parts(pattern: str) -> list[str]:
    """``pattern`` cut into its parts (see above); ``"".join`` of them gives ``pattern`` back."""
    parts, i = [], 0
    while i < len(pattern):
        end = _class_end(pattern, i) if pattern[i] == "[" else _PART.match(pattern, i).end()  # type: ignore[union-attr]  # _PART matches any character
        parts.append(pattern[i:end])
        i = end
    return parts


def _class_end(pattern: str, start: int) -> int:
    """The index just past the character class that opens at ``start`` (nested ``[...]`` allowed)."""
    depth, i = 0, start
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1  # a "]" right after "[" or "[^" is a literal
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(pattern)


def class_items(part: str) -> tuple[bool, list[str]]:
    """Whether the class ``part`` is negated (``[^...]``), and its items: escapes, characters, nested classes."""
    negated = part.startswith("[^")
    inside = part[2 if negated else 1:-1]
    items, i = [], 0
    while i < len(inside):
        end = _class_end(inside, i) if inside[i] == "[" else _ITEM.match(inside, i).end()  # type: ignore[union-attr]  # _ITEM matches any character
        items.append(inside[i:end])
        i = end
    return negated, items


def is_quantifier(part: str) -> bool:
    """Whether ``part`` is a quantifier (``*``, ``+?``, ``{1,3}+`` ...)."""
    return QUANTIFIER.fullmatch(part) is not None


def is_possessive(part: str) -> bool:
    """Whether ``part`` is a possessive quantifier: ``++``, ``*+``, ``?+``, ``{1,3}+``."""
    return len(part) > 1 and part.endswith("+") and is_quantifier(part)


# ---- where a pattern may be cut: a space between two non-spaces ----------------------------------------
# A pattern read from a file (an HF tokenizer.json, Llama 3's, Qwen's ...) is usually GPT-like, and then a
# text may be cut before a space that follows a non-space, as the built-in patterns may be (see
# pretokenize.safe_cut): that is what lets a long input be encoded a part at a time. can_cut_at_spaces
# proves it from the pattern itself, for the patterns it can read; any other pattern is never cut.

_SINGLE_ESCAPE = re.compile(r"\\(?:[pP]\{[^}]*\}|[pP][A-Za-z]|x[0-9A-Fa-f]{2}|x\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|"
                            r"U[0-9A-Fa-f]{8}|N\{[^}]*\}|[sSdDwWtnrfvae0]|[^A-Za-z0-9])")
_ANCHORS = {"$", r"\Z", r"\z"}


@lru_cache(maxsize=64)
def can_cut_at_spaces(pattern: str) -> bool:
    """Whether ``pattern``'s pieces never change when its text is cut before a space that follows a non-space
    (a non-space being what the ``regex`` module's ``\\s`` does not match), checked on the pattern's structure.

    Three rules make it so, for every way the pattern can match, failed attempts included:

    1. nothing looks behind: no lookbehind, ``\\b``, ``\\B``, ``^``, ``\\A``, ``\\G`` or back-reference;
    2. no match takes a non-space and then a space: no character class that can take a non-space is
       followed, in any path through the pattern, by one that can take a space;
    3. a lookahead of one class, or ``$``, comes only first or right after a class of whitespace only.

    Then no attempt to match left of the cut reaches or sees past it, so the text left of it splits
    the same alone; and what is right of it splits the same because nothing looks behind. (The caller
    still checks that a piece starts at the cut.) Patterns it cannot read (verbose mode, unknown escapes,
    conditionals) are answered ``False``.

    >>> can_cut_at_spaces(r"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+")
    True
    >>> can_cut_at_spaces(r"[^\\n]+|\\n"), can_cut_at_spaces(r"\\w+(?= )|\\s"), can_cut_at_spaces(r"(?<=a) ?\\w+|\\s")
    (False, False, False)
    """
    try:
        tree, end = _parse_alt(pattern_parts(pattern), 0, False)
    except _Unreadable:
        return False
    if end != len(pattern_parts(pattern)):
        return False
    follow: dict[int, set[int]] = {}
    atoms: list[tuple[str, str, bool]] = []  # (kind: "class" | "peek", text, ignore case)
    _, first, _ = _glushkov(tree, atoms, follow)
    space, non_space = [], []
    for kind, text, ignore_case in atoms:
        if kind == "class":
            try:
                compiled = regex.compile(text, regex.IGNORECASE if ignore_case else 0)
            except regex.error:
                return False
            space.append(compiled.fullmatch(" ") is not None)
            non_space.append(compiled.search(_non_space_text()) is not None)
        else:
            space.append(False)
            non_space.append(False)
    for p in range(len(atoms)):
        after = set(follow.get(p, ()))
        for q in list(after):
            if atoms[q][0] == "peek":
                after |= follow.get(q, set())
        if atoms[p][0] == "class" and non_space[p]:
            if any(atoms[q][0] == "class" and space[q] for q in after):
                return False  # rule 2
            if any(atoms[q][0] == "peek" for q in follow.get(p, ())):
                return False  # rule 3: a lookahead or $ right after a non-space
        if atoms[p][0] == "peek" and any(atoms[q][0] == "peek" for q in follow.get(p, ())):
            return False
    return True


class _Unreadable(Exception):
    """A pattern can_cut_at_spaces does not read."""


def _parse_alt(parts: list[str], i: int, ignore_case: bool) -> tuple[tuple, int]:
    """``("alt", [seq, ...])`` from ``parts[i:]`` up to an unmatched ``)`` or the end."""
    seqs: list = []
    items: list = []
    while i < len(parts) and parts[i] != ")":
        part = parts[i]
        if part == "|":
            seqs.append(("seq", items))
            items, i = [], i + 1
            continue
        if part.startswith("("):
            opening = part
            if opening in ("(", "(?:", "(?>") or re.fullmatch(r"\(\?P?<\w+>", opening):
                node, i = _parse_alt(parts, i + 1, ignore_case)
            elif re.fullmatch(r"\(\?[imsx-]*:", opening):
                flags = opening[2:-1]
                if set(flags) - set("i-") or "-" in flags:
                    raise _Unreadable  # dot-all, verbose, multi-line, or flags turned off
                node, i = _parse_alt(parts, i + 1, True)
            elif opening in ("(?=", "(?!"):
                inner, i = _parse_alt(parts, i + 1, ignore_case)
                if not (len(inner[1]) == 1 and len(inner[1][0][1]) == 1 and inner[1][0][1][0][0] == "atom"):
                    raise _Unreadable  # a lookahead of more than one class
                node = ("peek", inner[1][0][1][0][1], ignore_case)
            else:
                raise _Unreadable  # lookbehind, conditionals, inline flags, comments
            if i >= len(parts) or parts[i] != ")":
                raise _Unreadable
            i += 1
        elif part in _ANCHORS:
            node, i = ("peek", part, ignore_case), i + 1
        elif part.startswith("["):
            node, i = ("atom", part, ignore_case), i + 1
        elif part.startswith("\\"):
            if not _SINGLE_ESCAPE.fullmatch(part):
                raise _Unreadable  # \b, \A, \G, back-references, \X, \K ...
            node, i = ("atom", part, ignore_case), i + 1
        elif is_quantifier(part) or part in ("^",):
            raise _Unreadable  # a quantifier with nothing before it, or a start anchor
        else:
            node, i = ("atom", part, ignore_case), i + 1
        if i < len(parts) and is_quantifier(parts[i]):
            if node[0] == "peek":
                raise _Unreadable
            low, high = _bounds(parts[i])
            node, i = ("repeat", node, low, high), i + 1
        items.append(node)
    seqs.append(("seq", items))
    return ("alt", seqs), i


def _bounds(quantifier: str) -> tuple[int, int | None]:
    """A quantifier's least and most repeats (``None``: no most)."""
    if quantifier.startswith("{"):
        low, comma, high = quantifier[1:quantifier.index("}")].partition(",")
        return int(low), (int(high) if high else None) if comma else int(low)
    return {"*": (0, None), "+": (1, None), "?": (0, 1)}[quantifier[0]]  # the lazy ? or possessive + after it


def _glushkov(node: tuple, atoms: list, follow: dict[int, set[int]]) -> tuple[bool, set[int], set[int]]:
    """``(nullable, first positions, last positions)`` of ``node``, numbering its atoms and peeks into ``atoms``
    and adding to ``follow`` which position may come right after which (Glushkov's construction)."""
    kind = node[0]
    if kind in ("atom", "peek"):
        atoms.append(("class" if kind == "atom" else "peek", node[1], node[2]))
        p = len(atoms) - 1
        return kind == "peek", {p}, {p}  # subtle: a peek takes no character, so what follows it follows through
    if kind == "repeat":
        _, inner, low, high = node
        nullable, first, last = _glushkov(inner, atoms, follow)
        if high is None or high > 1:
            for p in last:
                follow.setdefault(p, set()).update(first)
        return nullable or low == 0, first, last
    if kind == "alt":
        nullable, first, last = False, set(), set()
        for seq in node[1]:
            n, f, l_ = _glushkov(seq, atoms, follow)
            nullable, first, last = nullable or n, first | f, last | l_
        return nullable, first, last
    nullable, first, last = True, set(), set()  # a sequence
    for item in node[1]:
        n, f, l_ = _glushkov(item, atoms, follow)
        for p in last:
            follow.setdefault(p, set()).update(f)
        first = first | f if nullable else first
        last = last | l_ if n else l_
        nullable = nullable and n
    return nullable, first, last


_NON_SPACE: list[str] = []


def _non_space_text() -> str:
    """Every character the ``regex`` module's ``\\s`` does not match, once each (built on first use)."""
    if not _NON_SPACE:  # subtle: as 32-bit code points decoded at once, a tenth of a second, not a second
        codes = array("I", chain(range(0xD800), range(0xE000, 0x110000)))  # every character but the surrogates
        every = codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
        _NON_SPACE.append(regex.sub(r"\s", "", every))
    return _NON_SPACE[0]
