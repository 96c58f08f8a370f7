"""Pre-tokenization: cut text into pieces that BPE merges never cross.

Two layers, applied in this order:

1. Special tokens (``<|endoftext|>`` ...) are split out first. They are never
   merged with anything and never seen by the regex.
2. The remaining ordinary text is cut by a regex into pre-tokens (words with
   their leading space, runs of digits, punctuation, whitespace).

>>> pretokenize("Hello world!! 123", GPT2_PATTERN)
['Hello', ' world', '!!', ' 123']
>>> pretokenize("Hello world!! 12345", GPT4_PATTERN)
['Hello', ' world', '!!', ' ', '123', '45']
>>> pretokenize("HelloWorld, 12345/6", GPT4O_PATTERN)
['Hello', 'World', ',', ' ', '123', '45', '/', '6']
>>> split_specials("a<|endoftext|>b", ["<|endoftext|>"])
[('a', False), ('<|endoftext|>', True), ('b', False)]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache

import regex

# GPT-2 (2019). The pattern string is the one tiktoken uses for "gpt2"/"r50k_base": the
# original release's pattern with possessive quantifiers, which behaves identically but
# backtracks less. Alternatives in order: contractions, letters, numbers, other symbols
# (each optionally with one leading space), then whitespace.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# GPT-4's cl100k_base (2023), as tiktoken uses it: case-insensitive contractions, numbers in
# groups of at most three digits, newlines kept apart from other whitespace.
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

# GPT-4o's o200k_base (2024), as tiktoken uses it (tiktoken_ext/openai_public.py): a word is an
# optional non-letter, upper-case-like letters, then lower-case-like ones (or the other way round),
# so "HelloWorld" is two words; contractions stick to the word; digits in groups of at most three;
# "/" and newlines stick to punctuation. Marks (\p{M}) count as letters of either case.
GPT4O_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])

_WHITESPACE = regex.compile(r"\s")  # the patterns' own idea of whitespace (Unicode White_Space)

PATTERNS: dict[str, str | None] = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "gpt4o": GPT4O_PATTERN, "none": None}
# The patterns whose letters, marks, digits and spaces follow tiktoken's Unicode tables (see below).
TIKTOKEN_PATTERNS = (GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN)


def resolve_pattern(pattern: str | None) -> str | None:
    """Turn ``"gpt2"``, ``"gpt4"``, ``"gpt4o"``, ``"none"``/``None`` or a regex string into a regex string (or None).

    >>> resolve_pattern("gpt2") == GPT2_PATTERN
    True
    >>> resolve_pattern("none") is None
    True
    """
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be 'gpt2', 'gpt4', 'gpt4o', 'none' or a regex string, "
                        f"not {type(pattern).__name__}")
    if pattern in PATTERNS:
        return PATTERNS[pattern]
    compiled_pattern(pattern)  # raises a clear error if it does not compile
    return pattern


def pattern_name(pattern: str | None) -> str | None:
    """The short name of a known pattern (``"gpt2"``, ``"gpt4"``, ``"gpt4o"``, ``"none"``), else None."""
    for name, known in PATTERNS.items():
        if known == pattern:
            return name
    return None


@lru_cache(maxsize=32)
def compiled_pattern(pattern: str) -> regex.Pattern:
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise ValueError(f"pre-tokenization pattern does not compile: {exc} in {pattern!r}") from None


def pretokenize(text: str, pattern: str | None) -> list[str]:
    """Cut ordinary text (no special tokens) into pre-tokens; ``None`` keeps it whole.

    Nothing is ever dropped: where a custom pattern leaves text unmatched, that text is a
    pre-token of its own, so ``"".join(pretokenize(text, pattern)) == text`` always.

    >>> pretokenize("a b!", r"[a-z]+")
    ['a', ' ', 'b', '!']

    For the GPT-2 and GPT-4 patterns, letters and digits are those of tiktoken's Unicode tables,
    so that text with recently assigned characters splits exactly as tiktoken splits it:

    >>> pretokenize("\U0002CEA2:A", GPT4_PATTERN)  # U+2CEA2 is no letter to tiktoken 0.14
    ['\U0002cea2:', 'A']
    """
    if pattern is None:
        return [text] if text else []
    if pattern in TIKTOKEN_PATTERNS:  # these match every character, so findall loses nothing
        return splitter(text, pattern).findall(text)
    return _with_gaps(compiled_pattern(pattern), text)


def _with_gaps(compiled: regex.Pattern, text: str) -> list[str]:
    """The matches of ``compiled`` in ``text`` and the stretches between them, in order, none empty."""
    pieces, start = [], 0
    for match in compiled.finditer(text):
        if match.start() > start:
            pieces.append(text[start:match.start()])
        if match.end() > match.start():
            pieces.append(match.group())
        start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def replace_lone_surrogates(text: str) -> str:
    """``text`` with lone surrogates (not valid in UTF-8) turned into U+FFFD, as tiktoken does.

    >>> replace_lone_surrogates("a" + chr(0xD800) + "b") == "a" + chr(0xFFFD) + "b"
    True
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # subtle: round-tripping through UTF-16 pairs up surrogate halves that belong together
        # (into one real character) and turns the lone ones into U+FFFD -- tiktoken's rule.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def check_special_tokens(special_tokens: Iterable[str], name: str = "special_tokens") -> list[str]:
    """Validate special tokens: non-empty ``str``, no duplicates; return them as a list.

    ``name`` is what the caller calls them (``--special`` on the command line).

    >>> check_special_tokens(["<|endoftext|>", ""])
    Traceback (most recent call last):
    ...
    ValueError: special_tokens: a special token must be a non-empty str, got ''
    """
    if isinstance(special_tokens, str):
        raise TypeError(f"{name} must be a list of strings, not the string {special_tokens!r}")
    specials = list(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"{name}: a special token must be a non-empty str, got {s!r}")
    if len(set(specials)) != len(specials):
        dupes = sorted({s for s in specials if specials.count(s) > 1})
        raise ValueError(f"{name}: special tokens must be distinct; repeated: {dupes}")
    return specials


# ---- Unicode versions ----------------------------------------------------------------------
# subtle: `regex` may know newer Unicode than the Rust regex crate inside tiktoken, so \p{L} can
# differ on a few thousand recently assigned characters, and \p{Lu}, \p{Lo} ... on characters
# whose category changed since (U+0295 "ʕ" is Ll to tiktoken 0.14, Lo to newer Unicode). So the
# tiktoken patterns never run with `regex`'s own classes: their classes are spelt out from
# tiktoken's own tables (bpe_course/unicode_tables.py), for `re` by fast_splitter() (below), and
# for `regex` by exact_pattern(), which splits the rare text fast_splitter() cannot, ten times slower.

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

    >>> exact_pattern(GPT4O_PATTERN).findall("HelloWorld")
    ['Hello', 'World']
    """
    body, out, in_class, i = _class_bodies(), [], False, 0
    # subtle: longest escape first, so that \p{Lu} is never read as \p{L} followed by "u}".
    escapes = sorted([*TABLE_OF_CLASS, r"\S"], key=len, reverse=True)
    while i < len(pattern):
        for escape in escapes:
            if pattern.startswith(escape, i):
                cls = body[r"\s" if escape == r"\S" else escape]
                out.append(cls if in_class else (f"[^{cls}]" if escape == r"\S" else f"[{cls}]"))
                i += len(escape)
                break
        else:
            ch = pattern[i:i + 2] if pattern[i] == "\\" else pattern[i]
            in_class = (in_class or ch == "[") and ch != "]"
            out.append(ch)
            i += len(ch)
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
_PATTERN_TOKEN = re.compile(r"\\p\{\w+\}|\\.|\[\^?|.", re.DOTALL)  # escapes, class openers, characters
_LITERAL_ESCAPES = {"\\r": "\r", "\\n": "\n", "\\t": "\t"}


def splitter(text: str, pattern: str) -> re.Pattern | regex.Pattern:
    """The quickest compiled form of tiktoken's ``pattern`` that splits ``text`` exactly as tiktoken does.

    Sets that stop at U+00FF for Latin-1 text, else sets of the BMP, else (a letter, digit or mark
    beyond the BMP) :func:`exact_pattern`.

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
    """A pattern of :data:`TIKTOKEN_PATTERNS` for ``re``, its classes spelt out for the characters below ``below``.

    ``below`` is U+10000 (the BMP; the characters beyond it count as symbols, see above) or U+0100
    (for text of Latin-1 characters only). Possessive quantifiers are made greedy.

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
    tokens = _PATTERN_TOKEN.findall(pattern)
    k = 0
    while k < len(tokens):
        token = tokens[k]
        if token.startswith("["):
            end = tokens.index("]", k + 1)
            out.append(_spelt_class(tuple(tokens[k + 1:end]), token == "[^", below))
            k = end + 1
            continue
        if token in TABLE_OF_CLASS or token == r"\S":
            out.append(_spelt_class((token,), False, below))
        elif not (token == "+" and k and tokens[k - 1] in ("+", "*", "?", "}")):  # a possessive's "+"
            out.append(token)
        k += 1
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
        elif item == "-" or (item.startswith("\\") and item not in _LITERAL_ESCAPES and item[1:].isalnum()):
            raise ValueError(f"cannot spell out {item!r} in a class for re")  # a range, or \d, \w ...
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


@lru_cache(maxsize=64)
def specials_regex(specials: tuple[str, ...]) -> regex.Pattern | None:
    """One regex matching any of ``specials``; where they overlap, the longest wins.

    >>> specials_regex(("<|a|>", "<|a|><|a|>")).findall("<|a|><|a|><|a|>")
    ['<|a|><|a|>', '<|a|>']
    """
    if not specials:
        return None
    # subtle: alternation is leftmost-first, so sorting longest first makes the longest win.
    ordered = sorted(set(specials), key=lambda s: (-len(s), s))
    return regex.compile("|".join(regex.escape(s) for s in ordered))


def split_specials(text: str, specials: Iterable[str]) -> list[tuple[str, bool]]:
    """Split ``text`` into ``(piece, is_special)`` runs, specials matched longest first."""
    found = specials_regex(tuple(sorted(set(specials))))
    if found is None:
        return [(text, False)] if text else []
    pieces: list[tuple[str, bool]] = []
    start = 0
    for match in found.finditer(text):
        if match.start() > start:
            pieces.append((text[start:match.start()], False))
        pieces.append((match.group(), True))
        start = match.end()
    if start < len(text):
        pieces.append((text[start:], False))
    return pieces


def safe_cut(text: str, pattern: str | None, specials: Iterable[str] = (), limit: int | None = None,
             split_off: Iterable[str] | None = None) -> int:
    """The largest position ``i <= limit`` where ``text`` may be cut without changing its pre-tokens.

    Pre-tokenizing ``text[:i]`` and ``text[i:]`` separately gives exactly the pre-tokens of
    ``text`` -- whatever text follows -- for the GPT-2 and GPT-4 patterns. Returns 0 if there is none.
    No cut falls inside one of ``specials``; the end of one is a safe cut only if it is split off
    (``split_off``, default all of ``specials``): a special token encoded as ordinary text is not.

    subtle: a single space between two non-space characters is such a place. No alternative of
    either pattern lets a match that started on the left swallow that space (letters, digits and
    symbols stop at whitespace; whitespace runs cannot start at a non-space), and every match
    starting at the space depends only on the text to its right (neither pattern looks behind).
    The end of a special token is always safe. For other patterns we only trust special tokens.

    >>> safe_cut("one two", GPT2_PATTERN)
    3
    >>> safe_cut("one  two three", GPT2_PATTERN, limit=7)
    0
    """
    specials = tuple(sorted(set(specials)))
    longest = max((len(s) for s in specials), default=1)
    # subtle: a special token that starts before i and ends after the text is impossible when
    # i <= len(text) - longest, so the specials we can see are all the specials there are.
    limit = len(text) - longest if limit is None else min(limit, len(text) - longest)
    if limit <= 0:
        return 0
    # subtle: overlapping occurrences too, since tiktoken's scan may pass over one special token
    # and then find another that starts inside it (see Tokenizer._allowed_specials_in).
    finder = specials_regex(specials)
    spans = [m.span() for m in finder.finditer(text, 0, limit + longest, overlapped=True)] if specials else []
    ends_ok = set(specials if split_off is None else split_off)
    best = max((end for start, end in spans
                if end <= limit and text[start:end] in ends_ok and not _inside(end, spans)), default=0)
    if pattern in TIKTOKEN_PATTERNS:
        i = text.rfind(" ", best + 1, limit + 1)
        while i > best:
            if not _WHITESPACE.match(text, i - 1) and not _WHITESPACE.match(text, i + 1) and not _inside(i, spans):
                return i
            i = text.rfind(" ", best + 1, i)
    return best


def _inside(i: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < i < end for start, end in spans)
