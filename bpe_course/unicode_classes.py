"""tiktoken's Unicode classes spelt out, so that its patterns split text exactly as tiktoken splits it.

tiktoken's patterns use classes such as ``\\p{L}`` (letters), ``\\p{N}`` (digits) and ``\\s``. Which
characters they hold depends on the Unicode version of the regex engine: the Rust crate inside
tiktoken knows an older one than the ``regex`` package may, so ``\\p{L}`` can differ on a few
thousand recently assigned characters, and ``\\p{Lu}``, ``\\p{Lo}`` ... on characters whose category
changed since (U+0295 "ʕ" is Ll to tiktoken 0.14, Lo to newer Unicode). So the patterns never run
with an engine's own classes: each class is spelt out from tiktoken's own tables
(``bpe_course.unicode_tables``, generated from tiktoken), for ``regex`` by :func:`exact_pattern`,
and for the standard library's ``re``, three times faster, by :func:`fast_splitter`.
:func:`splitter` picks the quickest that is exact for a given text. Patterns are read with
``bpe_course.regex_syntax``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

import regex

from .regex_syntax import class_items, is_possessive, pattern_parts

# Each class the tiktoken patterns use, as written in a pattern, and its table in unicode_tables.
TABLE_OF_CLASS = {
    r"\p{L}": "LETTERS", r"\p{N}": "NUMBERS", r"\s": "WHITESPACE",
    r"\p{Lu}": "UPPERCASE_LETTERS", r"\p{Ll}": "LOWERCASE_LETTERS", r"\p{Lt}": "TITLECASE_LETTERS",
    r"\p{Lm}": "MODIFIER_LETTERS", r"\p{Lo}": "OTHER_LETTERS", r"\p{M}": "MARKS",
}


@lru_cache(maxsize=None)
def _class_bodies() -> dict[str, str]:
    """tiktoken's classes as character-class bodies such as ``\\U00000041-\\U0000005A``, by escape."""
    return {escape: "".join(f"\\U{a:08X}" + (f"-\\U{b:08X}" if b != a else "") for a, b in zip(starts, ends))
            for escape, (starts, ends) in _tiktoken_classes().items()}


@lru_cache(maxsize=8)
def exact_pattern(pattern: str) -> regex.Pattern:
    """``pattern`` with its classes (``\\p{L}``, ``\\p{Lu}``, ``\\s``, ``\\S`` ...) spelt out from tiktoken's tables.

    >>> from bpe_course.pretokenize import GPT4O_PATTERN
    >>> exact_pattern(GPT4O_PATTERN).findall("HelloWorld")
    ['Hello', 'World']
    """
    body = _class_bodies()
    out = []
    for part in pattern_parts(pattern):
        if part in TABLE_OF_CLASS:
            part = "[" + body[part] + "]"
        elif part == r"\S":
            part = "[^" + body[r"\s"] + "]"
        elif part.startswith("["):
            negated, items = class_items(part)
            if r"\S" in items or any(item.startswith("[") for item in items):
                raise ValueError(f"cannot spell out \\S or a nested class inside the class {part!r}")
            part = ("[^" if negated else "[") + "".join(body.get(item, item) for item in items) + "]"
        out.append(part)
    return regex.compile("".join(out))


@lru_cache(maxsize=None)
def _tiktoken_classes() -> dict[str, tuple[list[int], list[int]]]:
    """tiktoken's tables by class escape, as sorted (starts, ends) lists for bisect."""
    from . import unicode_tables
    tables = {}
    for escape, name in TABLE_OF_CLASS.items():
        runs = getattr(unicode_tables, name).split()
        spans = [(int(a, 16), int(b or a, 16)) for a, _, b in (run.partition("-") for run in runs)]
        tables[escape] = ([a for a, _ in spans], [b for _, b in spans])
    return tables


_REGEX_CLASSES = {escape: regex.compile(escape) for escape in TABLE_OF_CLASS}


@lru_cache(maxsize=None)
def unicode_disagreements() -> frozenset[str]:
    """Every character that ``regex`` and tiktoken put in different classes, by scanning all of Unicode.

    For tests: text made of them is split as tiktoken splits it only if the tables are used (1 s).
    """
    every = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))  # no surrogates
    differ: set[str] = set()
    for escape, (starts, ends) in _tiktoken_classes().items():
        theirs = {chr(c) for a, b in zip(starts, ends) for c in range(a, b + 1)}
        differ |= set(_REGEX_CLASSES[escape].findall(every)) ^ theirs
    return frozenset(differ)


# ---- the fast splitter: tiktoken's patterns run by the standard library's `re` ------------------
# subtle: `re` runs these patterns about three times faster than `regex`, but it has no \p{..}, and its
# \s is str.isspace (which holds U+001C..U+001F, Unicode's White_Space does not). So every class is
# spelt out from tiktoken's tables as a set of characters -- of the Basic Multilingual Plane only:
# `re` checks the characters of a set beyond U+FFFF range by range, hundreds of ranges for each
# character the set does not hold, which made it slower than `regex`. Every character beyond U+FFFF
# counts as a symbol, in no class: right for emoji, wrong for the rare ones tiktoken calls letters,
# digits or marks (CJK extension B, mathematical letters ...). A text with one of those is split
# with :func:`exact_pattern` instead (see :func:`needs_exact`). Compiling sets of all the BMP's
# letters takes `re` 5-20 ms, so a text of Latin-1 characters only (U+0000-U+00FF, most European
# text) gets a pattern whose sets stop at U+00FF: it compiles in about a millisecond.

_LATIN1, _BMP_END = 0x100, 0x10000
_ASTRAL = "\\U00010000-\\U0010FFFF"  # every character beyond the BMP, as a class body
_ASTRAL_CHAR = re.compile(f"[{_ASTRAL}]")
_LITERAL_ESCAPES = {"\\r": "\r", "\\n": "\n", "\\t": "\t"}


def splitter(text: str, pattern: str) -> re.Pattern | regex.Pattern:
    """The quickest compiled form of tiktoken's ``pattern`` that splits ``text`` exactly as tiktoken does.

    Sets that stop at U+00FF for Latin-1 text, else sets of the BMP, else (a letter, digit or mark
    beyond the BMP) :func:`exact_pattern`.

    >>> from bpe_course.pretokenize import GPT2_PATTERN
    >>> splitter("café", GPT2_PATTERN) is fast_splitter(GPT2_PATTERN, 0x100)
    True
    """
    try:
        text.encode("latin-1")
        return fast_splitter(pattern, _LATIN1)
    except UnicodeEncodeError:
        return exact_pattern(pattern) if needs_exact(text, pattern) else fast_splitter(pattern, _BMP_END)


@lru_cache(maxsize=16)
def fast_splitter(pattern: str, below: int = _BMP_END) -> re.Pattern:
    """A pattern of ``pretokenize.TIKTOKEN_PATTERNS`` for ``re``, its classes spelt out for the characters below ``below``.

    ``below`` is U+10000 (the BMP; the characters beyond it count as symbols, see above) or U+0100
    (for text of Latin-1 characters only). Possessive quantifiers are made greedy.

    >>> from bpe_course.pretokenize import GPT4_PATTERN
    >>> fast_splitter(GPT4_PATTERN).findall("I'M 12345 ok\\u00a0\\u00a0\\nx")
    ['I', "'M", ' ', '123', '45', ' ok', '\\xa0\\xa0\\n', 'x']
    """
    return re.compile(_for_re(pattern, below))


def _for_re(pattern: str, below: int) -> str:
    """The text of :func:`fast_splitter`'s pattern.

    subtle: Python 3.10's ``re`` knows no possessive quantifiers (``++``, ``?+``), so they become
    greedy. In tiktoken's patterns that changes no match: nothing after them in their alternative
    can fail (``[\\r\\n]*``, the end of the alternative), except in ``\\s++$``, where giving back
    whitespace cannot help ``$`` match; and ``[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++`` giving back its first
    character leaves a non-letter where a letter must start.
    """
    out: list[str] = []
    for part in pattern_parts(pattern):
        if part.startswith("["):
            negated, items = class_items(part)
            part = _spelt_class(tuple(items), negated, below)
        elif part in TABLE_OF_CLASS or part == r"\S":
            part = _spelt_class((part,), False, below)
        elif is_possessive(part):
            part = part[:-1]
        out.append(part)
    return "".join(out)


@lru_cache(maxsize=64)
def _spelt_class(items: tuple[str, ...], negated: bool, below: int) -> str:
    """One class (``[^\\r\\n\\p{L}\\p{N}]``, ``\\s`` ...) from tiktoken's tables, for the characters below ``below``."""
    if not any(item in TABLE_OF_CLASS or item == r"\S" for item in items):
        return ("[^" if negated else "[") + "".join(items) + "]"  # no Unicode class: as it is
    every = (1 << below) - 1  # a set of characters is a bitset: bit c stands for chr(c)
    held, astral = 0, r"\S" in items  # astral: whether the class holds the characters beyond the BMP
    for item in items:
        if item in TABLE_OF_CLASS or item == r"\S":
            bits = _table_bits(r"\s" if item == r"\S" else item, below)
            held |= bits ^ every if item == r"\S" else bits
        elif item == "-" or item.startswith("[") or (item.startswith("\\") and item not in _LITERAL_ESCAPES
                                                      and item[1:].isalnum()):
            raise ValueError(f"cannot spell out {item!r} in a class for re")  # a range, a nested class, \d ...
        else:
            held |= 1 << ord(_LITERAL_ESCAPES.get(item, item[-1]))
    if negated:
        held, astral = held ^ every, not astral
    # subtle: `re` builds a set's table one listed character at a time, in Python, so the smaller
    # side is listed: "all but these" for the letter classes (50,000 of the BMP's 65,536).
    if held.bit_count() > below // 2:
        return "[^" + _class_body(held ^ every) + ("" if astral else _ASTRAL) + "]"
    return "[" + _class_body(held) + (_ASTRAL if astral else "") + "]"


@lru_cache(maxsize=None)
def _table_bits(escape: str, below: int) -> int:
    """The characters below ``below`` of tiktoken's class ``escape`` (``\\p{L}`` ...), as a bitset."""
    bits = 0
    for a, b in zip(*_tiktoken_classes()[escape]):
        if a >= below:
            break
        bits |= ((1 << (min(b, below - 1) - a + 1)) - 1) << a
    return bits


def _class_body(bits: int) -> str:
    """A bitset as ranges of a class body, such as ``\\x09-\\x0d\\x20\\x85``."""
    body = []
    for run in re.finditer("1+", format(bits, "b")[::-1]):  # bit c is character c
        first, last = run.start(), run.end() - 1
        body.append(_class_char(first) + ("" if last == first else "-" + _class_char(last)))
    return "".join(body)


def _class_char(code: int) -> str:
    """A character as a class may hold it: itself, unless it is ASCII punctuation, a control or a surrogate."""
    char = chr(code)
    if code < 0x80:
        return char if char.isalnum() else f"\\x{code:02x}"
    return f"\\u{code:04x}" if 0xD800 <= code < 0xE000 else char


def needs_exact(text: str, pattern: str) -> bool:
    """Whether :func:`fast_splitter` could split ``text`` otherwise than tiktoken: a character beyond
    the BMP that ``pattern``'s classes hold.

    >>> from bpe_course.pretokenize import GPT4_PATTERN
    >>> needs_exact("a\\U0001F642b", GPT4_PATTERN), needs_exact("a\\U0001D400b", GPT4_PATTERN)  # emoji, bold A
    (False, True)
    """
    # subtle: only a character beyond the BMP takes two UTF-16 units; this asks 50 times faster than a search
    if len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text):
        return False
    return any(_in_classes(ch, pattern) for ch in set(_ASTRAL_CHAR.findall(text)))


@lru_cache(maxsize=4096)
def _in_classes(ch: str, pattern: str) -> bool:
    """Whether one of the classes ``pattern`` uses holds ``ch``, by tiktoken's tables."""
    code = ord(ch)
    for escape, (starts, ends) in _tiktoken_classes().items():
        if escape in pattern or (escape == r"\s" and r"\S" in pattern):
            k = bisect_right(starts, code) - 1
            if k >= 0 and code <= ends[k]:
                return True
    return False
