"""Counting pre-tokens fast, with exactly the counts of :func:`bpe_course.pretokenize.pretokenize`.

Running the GPT-2 regex over every word of a big corpus is the slow part of counting: each
match builds a string in the ``regex`` module. Most of that work is repeated, because natural
text repeats its words. So for the GPT-2 and GPT-4 patterns :class:`SegmentCounter`

1. cuts the text before every *anchor* -- a space followed by a non-space character -- with a
   one-character-lookahead ``re`` split, which runs at C speed;
2. counts the resulting *segments* with ``collections.Counter`` (C speed as well);
3. runs the real pattern once per *distinct* segment: all segments seen ``n`` times are joined
   into one string and matched in one ``findall``, and its pre-tokens are counted ``n`` times.

subtle: why that is exact. Before an anchor space there is always a pre-token boundary (no
alternative of either pattern lets a match that started further left swallow a space that is
followed by a non-space: letters, digits and symbols stop at whitespace, and a whitespace run
``\\s+(?!\\S)`` gives back its last space). Neither pattern looks behind, so the matches after
the boundary depend only on the text to the right, and matches inside one segment look at most
two characters past its end: the anchor space and the non-space after it. A segment followed by
*any* anchor is therefore cut exactly as in the original text. In the joined string every segment
is followed by the next segment's anchor, the last one by the sentinel ``" x"`` (whose pre-token
we drop). Only a text's first segment (it has no leading anchor) and its last one (``$`` sees
the real end) are matched on their own.

>>> from bpe_course.pretokenize import GPT2_PATTERN, pretokenize
>>> text = "Hello  world!\\n  it's 2024 -- yes\\t no \\n"
>>> count_ordinary_text(text, GPT2_PATTERN) == Counter(pretokenize(text, GPT2_PATTERN))
True
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from itertools import islice

from ..pretokenize import TIKTOKEN_PATTERNS, pretokenize

# Unicode White_Space: what the GPT patterns' ``\s`` matches (``re``'s own ``\s`` follows
# ``str.isspace``, which differs, e.g. on U+001C..U+001F). tests check this list against both.
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_ANCHOR = re.compile(f" (?=[^{WHITE_SPACE}])")
BLOCK_CHARS = 1 << 18  # segments are cut out of at most this many characters at a time (bounds memory)
GROUP_SEGMENTS = 1 << 14  # distinct segments matched in one findall (bounds memory)
HELD_SEGMENTS = 1 << 17  # distinct segments held before they are turned into pre-token counts (bounds memory)
_SENTINEL = " x"


# ---- counting ---------------------------------------------------------------------------------
def count_ordinary_text(text: str, pattern: str | None, counts: Counter[str] | None = None) -> Counter[str]:
    """Add the pre-token counts of ``text`` (ordinary text, no special tokens) to ``counts``."""
    counter = SegmentCounter(pattern)
    counter.add(text)
    return counter.finish(Counter() if counts is None else counts)


class SegmentCounter:
    """Accumulates the segments of many texts, then turns them into pre-token counts at once.

    subtle: distinct *segments* are not bounded by the vocabulary as distinct pre-tokens are (a word
    at the end of a line joins the first word of the next: "sea.\nThe"), so a few gigabytes of text
    hold millions of them. Once :data:`HELD_SEGMENTS` are held they are turned into pre-token counts
    and dropped, so memory stays flat however much text is added; counts add up, so the result is
    the same.
    """

    def __init__(self, pattern: str | None) -> None:
        self.pattern = pattern
        self.segments: Counter[str] = Counter()  # middle segments, without their anchor space
        self.alone: Counter[str] = Counter()  # texts (or a text's last segment) matched on their own
        self.heads: Counter[str] = Counter()  # first segments, followed by an anchor in their text
        self.counted: Counter[str] = Counter()  # pre-token counts of the segments already turned into them

    def add(self, text: str) -> None:
        """Count one whole ordinary text (its start and end are the real start and end)."""
        if not text:
            return
        first = _ANCHOR.search(text) if self.pattern in TIKTOKEN_PATTERNS else None
        if first is None:
            self.alone[text] += 1
            self._bound_memory()  # many small documents
            return
        last = _last_anchor(text)
        if first.start():
            self.heads[text[:first.start()]] += 1
        split, update, start = _ANCHOR.split, self.segments.update, first.start()
        while start < last:
            stop = last
            if last - start > BLOCK_CHARS:
                found = _ANCHOR.search(text, start + BLOCK_CHARS, last)
                stop = found.start() if found else last
            update(islice(split(text[start:stop]), 1, None))  # [0] is the "" before the leading anchor
            start = stop
            self._bound_memory()
        self.alone[text[last:]] += 1

    def finish(self, counts: Counter[str]) -> Counter[str]:
        """Add the pre-token counts of everything added so far to ``counts``; return ``counts``.

        The counter is empty afterwards.
        """
        self._match(counts)
        counts.update(self.counted)
        self.counted.clear()
        return counts

    def _bound_memory(self) -> None:
        """Turn the texts held into pre-token counts once there are more than :data:`HELD_SEGMENTS`."""
        if len(self.segments) + len(self.alone) + len(self.heads) > HELD_SEGMENTS:
            self._match(self.counted)

    def _match(self, counts: Counter[str]) -> None:
        """Run the pattern over each distinct text held, once, add its pre-tokens times its count to
        ``counts``, and drop the texts.

        subtle: they are emptied in place, not replaced: add() holds on to ``self.segments.update``.
        """
        if self.pattern is None:  # no pattern: every text is one pre-token
            counts.update(self.alone)
            self.alone.clear()
            return
        for text, n in self.alone.items():
            _add(counts, pretokenize(text, self.pattern), n)
        for head, n in self.heads.items():
            _add(counts, pretokenize(head + _SENTINEL, self.pattern)[:-1], n)
        by_count: dict[int, list[str]] = defaultdict(list)
        for segment, n in self.segments.items():
            by_count[n].append(segment)
        for held in self.segments, self.alone, self.heads:
            held.clear()
        for n, group in by_count.items():
            for k in range(0, len(group), GROUP_SEGMENTS):  # a bounded list of pre-tokens at a time
                found = pretokenize(" " + " ".join(group[k:k + GROUP_SEGMENTS]) + _SENTINEL, self.pattern)
                if found[-1] != _SENTINEL:  # cannot happen for the GPT patterns (see the module docstring)
                    raise AssertionError(f"segment joining broke at {found[-2:]!r}")
                _add(counts, found[:-1], n)


def _add(counts: Counter[str], pretokens: list[str], times: int) -> None:
    if times == 1:
        counts.update(pretokens)
    else:
        for pretoken, k in Counter(pretokens).items():
            counts[pretoken] += k * times


def _last_anchor(text: str) -> int:
    """Position of the last anchor space in ``text`` (the caller knows there is one)."""
    i = text.rfind(" ")
    while not _ANCHOR.match(text, i):
        i = text.rfind(" ", 0, i)
    return i
