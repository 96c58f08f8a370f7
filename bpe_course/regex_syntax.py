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
