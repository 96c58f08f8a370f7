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

import time
from collections.abc import Iterable, Iterator
from functools import lru_cache

import regex

from .regex_syntax import can_cut_at_spaces
from .unicode_classes import splitter

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

# Meta's Llama 3 (2024), as llama-models gives it to tiktoken (llama_models/llama3/tokenizer.py): cl100k's
# pattern as tiktoken wrote it before its possessive rewrite, so the same alternatives in the same order,
# but no ``\s++$`` and newlines taken in runs (``\s*[\r\n]+``). Its pieces differ from GPT4_PATTERN's
# only in whitespace that ends the text. Llama 4's pattern is GPT4O_PATTERN, character for character.
LLAMA3_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
                  r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")

# Mistral's Tekken (tekken_240911.json's config.pattern): GPT-4o's without its contractions, one digit a
# piece. mistral-common runs it through tiktoken, so it too splits by tiktoken's Unicode tables.
TEKKEN_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
    r"""\p{N}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])

_WHITESPACE = regex.compile(r"\s")  # the patterns' own idea of whitespace (Unicode White_Space)

# A pattern read from a file may backtrack exponentially (``(a|a)+b`` on thirty a's runs for
# ages); no single match of a custom pattern may take longer than this (the regex module's timeout).
PIECE_SECONDS = 10.0
# ... and no whole call much longer than twice that plus this much per million characters: a pattern
# whose every match is quick can still take minutes on a few kilobytes (``\w+(?=\t)|.`` rescans the
# rest of a word at every letter: quadratic). Sensible patterns take under 1 s per million characters,
# so the budget leaves them a wide margin and still stops a runaway in seconds (see pattern_budget).
SECONDS_PER_MILLION = 10.0

PATTERNS: dict[str, str | None] = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "gpt4o": GPT4O_PATTERN,
                                   "llama3": LLAMA3_PATTERN, "none": None}
# The patterns whose letters, marks, digits and spaces follow tiktoken's Unicode tables (bpe_course.unicode_classes):
# GPT-2's, GPT-4's and GPT-4o's, Tekken's, which mistral-common runs through tiktoken, and Llama 3's, which
# llama-models runs through tiktoken. Each is split by the fast splitter, may be cut at a space between two
# non-spaces (safe_cut), and needs no time limit.
TIKTOKEN_PATTERNS = (GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, TEKKEN_PATTERN, LLAMA3_PATTERN)


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


def pattern_budget(n_chars: int) -> float:
    """The CPU seconds a custom pattern may spend on a text of ``n_chars`` characters in one call:
    twice ``PIECE_SECONDS`` (a slow piece has its full limit, after a first stretch of quick ones) plus
    ``SECONDS_PER_MILLION`` per million characters. The budget is checked each time the piece limit
    runs out, so a call ends at most ``PIECE_SECONDS`` after its budget is spent.

    >>> pattern_budget(0), pattern_budget(2_000_000)
    (20.0, 40.0)
    """
    return 2 * PIECE_SECONDS + SECONDS_PER_MILLION * n_chars / 1e6


class PatternTimeoutError(ValueError):
    """A pre-tokenization pattern that ran longer than ``PIECE_SECONDS`` on one piece of text, or longer than
    :func:`pattern_budget` allows on the whole text (``budget`` is then that many seconds)."""

    def __init__(self, pattern: str, text: str, position: int, budget: float | None = None) -> None:
        self.pattern, self.position, self.budget = pattern, position, budget
        if budget is None:
            what = f"ran for more than {PIECE_SECONDS:g} s looking for one piece at character {position}"
        else:
            what = (f"ran for more than {budget:.3g} s of CPU time on {len(text):,} characters (its budget: "
                    f"{2 * PIECE_SECONDS:g} s + {SECONDS_PER_MILLION:g} s per million characters) and got only to "
                    f"character {position}")
        super().__init__(f"pre-tokenization pattern {pattern!r} {what} ({text[position:position + 40]!r}); it "
                         "backtracks too much to be used (e.g. (a|a)+ tries every way to split a run of a's)")


def pretokenize_lazily(text: str, pattern: str | None) -> Iterator[str]:
    """:func:`pretokenize`'s pieces one at a time, for a text whose pieces would not fit in memory as a list.

    >>> list(pretokenize_lazily("a b!", r"[a-z]+"))
    ['a', ' ', 'b', '!']
    """
    if pattern is None:
        return iter([text] if text else [])
    if pattern in TIKTOKEN_PATTERNS:
        return (match.group() for match in splitter(text, pattern).finditer(text))
    return _iter_with_gaps(compiled_pattern(pattern), text)


def _with_gaps(compiled: regex.Pattern, text: str) -> list[str]:
    """The matches of ``compiled`` in ``text`` and the stretches between them, in order, none empty."""
    return list(_iter_with_gaps(compiled, text))


def _iter_with_gaps(compiled: regex.Pattern, text: str) -> Iterator[str]:
    """:func:`_with_gaps`, one piece at a time."""
    start = 0
    for match in _matches(compiled, text):
        if match.start() > start:
            yield text[start:match.start()]
        if match.end() > match.start():
            yield match.group()
        start = match.end()
    if start < len(text):
        yield text[start:]


def _matches(compiled: regex.Pattern, text: str) -> Iterator[regex.Match]:
    """``compiled.finditer(text)``, raising :class:`PatternTimeoutError` when one match takes over ``PIECE_SECONDS``
    or the whole scan over :func:`pattern_budget` of the text.

    subtle: the regex module's ``timeout=`` bounds a whole ``finditer``, not one match, and counts
    the process's CPU time. So each time it runs out, the scan starts again where the last match
    ended, with a new timeout; a timeout without a single match in between is one piece taking too
    long. A timeout after matches, once the call's CPU time is past its budget, is the whole text
    taking too long, however quick each match was. (Restarted at the end of an empty match, the
    scan finds that empty match again: it is skipped.)
    """
    budget, started = pattern_budget(len(text)), time.process_time()
    position, last = 0, (-1, -1)  # the span of the last match given out
    while True:
        found = False
        try:
            for match in compiled.finditer(text, position, timeout=PIECE_SECONDS):
                if match.span() == last:
                    continue
                found, last = True, match.span()
                yield match
            return
        except TimeoutError:
            if not found:
                raise PatternTimeoutError(compiled.pattern, text, position) from None
            position = last[1]
            if time.process_time() - started > budget:
                raise PatternTimeoutError(compiled.pattern, text, position, budget) from None


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
    The end of a special token is always safe. A pattern of its own is cut there too when
    :func:`bpe_course.regex_syntax.can_cut_at_spaces` proves the same of it and a piece starts at the
    space; for other patterns we only trust special tokens.

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
    spans = [m.span() for m in finder.finditer(text, 0, limit + longest, overlapped=True)] if finder else []
    ends_ok = set(specials if split_off is None else split_off)
    best = max((end for start, end in spans
                if end <= limit and text[start:end] in ends_ok and not _inside(end, spans)), default=0)
    own = pattern is not None and pattern not in TIKTOKEN_PATTERNS
    if pattern is not None and (not own or can_cut_at_spaces(pattern)):
        i = text.rfind(" ", best + 1, limit + 1)
        while i > best:
            if not _WHITESPACE.match(text, i - 1) and not _WHITESPACE.match(text, i + 1) and not _inside(i, spans) \
                    and (not own or _piece_starts_at(pattern, text, i)):
                return i
            i = text.rfind(" ", best + 1, i)
    return best


def _piece_starts_at(pattern: str, text: str, i: int) -> bool:
    """For a pattern of its own that ``can_cut_at_spaces``: whether a piece starts at the space ``text[i]``
    whatever follows ``text`` -- so that no stretch the pattern leaves unmatched runs across the cut.

    subtle: by can_cut_at_spaces' rules, an attempt at ``i`` takes the space, then non-spaces, and
    stops at the next whitespace: it reads nothing past that. So when that whitespace is in ``text``,
    the attempt here is the attempt in any longer text.
    """
    after = _WHITESPACE.search(text, i + 2)
    if after is None:
        return False
    try:
        found = compiled_pattern(pattern).match(text, i, timeout=PIECE_SECONDS)
    except TimeoutError:
        return False
    return found is not None and found.end() > i


def _inside(i: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < i < end for start, end in spans)
