"""SentencePiece's BPE encoding, rebuilt: code points, scores, the dummy-prefix ``▁``, byte fallback.

LLaMA 1-2 and Mistral 7B do not use byte-level BPE. Their ``.model`` file is a SentencePiece
model: a list of *pieces* (strings of code points), each with a score and a kind. Encoding

1. normalises the text as the file says (here: a ``▁`` in front, every space written ``▁``),
2. splits it into code points (a user-defined piece, such as ``[REFERENCE_DOC_1]``, stays whole),
3. merges, again and again, the adjacent pair whose joined string is the piece with the
   **highest score** (the leftmost pair on a tie), until no adjacent pair is a piece,
4. writes a symbol the vocabulary lacks as the ``<0xNN>`` pieces of its UTF-8 bytes (byte fallback).

There is no merge list: step 3 ranks by the score of the piece a merge would make.

>>> model = SentencePieceModel(pieces=["<unk>", "<s>", "</s>", "▁", "l", "o", "w", "lo", "low", "▁low"],
...                            scores=[0, 0, 0, -1, -2, -3, -4, -5, -6, -7],
...                            kinds=["unknown", "control", "control"] + ["normal"] * 7)
>>> bpe = SentencePieceBPE(model)
>>> bpe.normalize("low low")
'▁low▁low'
>>> [bpe.pieces[i] for i in bpe.encode("low low")]
['▁low', '▁low']
>>> [bpe.pieces[i] for i in bpe.encode("lox")]   # no '▁lo', and no 'x' nor byte fallback
['▁', 'lo', '<unk>']
"""

from __future__ import annotations

import heapq
import math
import operator
import os
import re
from collections.abc import Sequence
from itertools import chain, repeat
from typing import cast

from ..errors import TokenizerFileError
from ..formats.sentencepiece import SPACE, SentencePieceModel, read_model

SEGMENT_CACHE_LIMIT = 50_000  # segments remembered between calls; the cache is emptied when full
LONG_SEGMENT = 64  # longer segments (and those holding a user-defined piece) are merged with the priority queue


def byte_piece(byte: int) -> str:
    """The byte-fallback piece of one byte.

    >>> byte_piece(10), byte_piece(0xE2)
    ('<0x0A>', '<0xE2>')
    """
    return f"<0x{byte:02X}>"


def best_pair(symbols: Sequence[str], score_of: dict[str, float], frozen: frozenset[int] = frozenset()) -> int | None:
    """Where the next merge happens: the left index of the adjacent pair whose join scores highest.

    The leftmost wins a tie; a pair with a frozen symbol never counts; ``None`` when no adjacent
    pair joins into a piece.

    >>> best_pair(["l", "o", "w"], {"lo": -5.0, "ow": -3.0})
    1
    """
    best, best_score = None, float("-inf")
    for i in range(len(symbols) - 1):
        if i in frozen or i + 1 in frozen:
            continue
        score = score_of.get(symbols[i] + symbols[i + 1])
        if score is not None and score > best_score:
            best, best_score = i, score
    return best


def merge_by_score(symbols: list[str], score_of: dict[str, float], frozen: frozenset[int] = frozenset()) -> list[str]:
    """SentencePiece's BPE, plainly: merge the best-scoring adjacent pair until none is a piece.

    ``frozen`` holds the positions of symbols that never merge (user-defined pieces). Quadratic:
    the reference that :func:`heap_merge_by_score` is checked against.

    >>> merge_by_score(list("▁low"), {"lo": -5.0, "low": -6.0, "▁low": -7.0, "ow": -9.0})
    ['▁low']
    """
    symbols = list(symbols)
    while (i := best_pair(symbols, score_of, frozen)) is not None:
        symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
        frozen = frozenset(f - 1 if f > i else f for f in frozen)  # the symbols after i moved one place left
    return symbols


def heap_merge_by_score(symbols: list[str], score_of: dict[str, float],
                        frozen: frozenset[int] = frozenset()) -> list[str]:
    """:func:`merge_by_score` with a priority queue over adjacent pairs, as SentencePiece does it.

    The queue orders pairs by score (highest first), then by the left symbol's position. A merge
    empties its right symbol and queues the two new pairs around the joined one; an entry whose
    symbols changed since it was queued is stale and skipped when it comes up.

    >>> heap_merge_by_score(list("▁low"), {"lo": -5.0, "low": -6.0, "▁low": -7.0, "ow": -9.0})
    ['▁low']
    """
    n = len(symbols)
    text = list(symbols)
    prev = list(range(-1, n - 1))
    nxt = [*range(1, n), -1]
    queue: list[tuple[float, int, int, int]] = []

    def push(left: int, right: int) -> None:
        if left == -1 or right == -1 or left in frozen or right in frozen:
            return
        score = score_of.get(text[left] + text[right])
        if score is not None:
            # subtle: the entry records the pair's length, so a symbol that grew since is seen as stale
            heapq.heappush(queue, (-score, left, right, len(text[left]) + len(text[right])))

    for i in range(n - 1):
        push(i, i + 1)
    while queue:
        _, left, right, size = heapq.heappop(queue)
        if not text[left] or not text[right] or nxt[left] != right or len(text[left]) + len(text[right]) != size:
            continue
        text[left] += text[right]
        text[right] = ""
        nxt[left] = nxt[right]
        if nxt[right] != -1:
            prev[nxt[right]] = left
        push(prev[left], left)
        push(left, nxt[left])
    return [t for t in text if t]


def loop_merge_by_score(symbols: list[str], rank_of: dict[str, float]) -> list[str]:
    """:func:`merge_by_score` written out for speed, for short segments without frozen symbols.

    ``rank_of`` is ``{piece: -score}``: the best pair is the *lowest* rank, so the loop is the one
    :func:`bpe_course.bpe.merge_bytes` runs, in C wherever it can be (``min``, ``list.index``).
    A pair that is no piece ranks ``math.inf``.

    subtle: quadratic in the segment's length, as the plain loop, but it calls no Python function per
    pair: for the words of a text (a few symbols each) several times faster than the priority queue.

    >>> loop_merge_by_score(list("▁low"), {"lo": 5.0, "low": 6.0, "▁low": 7.0, "ow": 9.0})
    ['▁low']
    """
    get, inf = rank_of.get, math.inf
    parts = list(symbols)
    ranks = list(map(get, map(operator.add, parts, parts[1:]), repeat(inf)))  # of parts k and k + 1
    best = min(ranks, default=inf)
    while best < inf:
        k = ranks.index(best)  # leftmost of equal scores, as SentencePiece
        merged = parts[k] = parts[k] + parts.pop(k + 1)
        del ranks[k]
        if k:
            ranks[k - 1] = get(parts[k - 1] + merged, inf)
        if k < len(ranks):
            ranks[k] = get(merged + parts[k + 1], inf)
        elif not k:
            break  # one part left
        best = min(ranks)
    return parts


# A letter or digit (str.isalnum: exactly re's \w without the underscore), and anything else but the visible space.
_ALNUM, _OTHER = r"[^\W_]", f"(?:[^\\w{SPACE}]|_)"


def _fine_segments(pieces) -> tuple[re.Pattern, re.Pattern | None]:
    """Segments cut also where letters or digits meet anything else, and the pairs of characters that forbid it.

    subtle: a merge only ever makes a piece, so no symbol can span two neighbouring characters that
    no piece holds side by side, and the two sides then merge exactly as they would alone (a pair
    across never scores, so it never changes which pair of a side goes first). In Mistral's and
    LLaMA's vocabularies pieces almost never mix letters or digits with other characters (v1: only
    ``².``), so "▁word," is "▁word" and "," -- and "▁word" is shared with "▁word." and "▁word". The
    second pattern finds the pairs that pieces do hold across that line; a text with one of them is
    cut as before, at the visible spaces only.

    >>> fine, joined = _fine_segments(["▁word", ",", "▁(", "².", "x"])
    >>> fine.findall("▁word,▁(word)▁▁")
    ['▁word', ',', '▁(', 'word', ')', '▁▁']
    >>> joined.findall("x².y ² .")
    ['².']
    """
    # subtle: joined by the visible space, which is neither, so no pair is made across two pieces
    held = set(re.findall(f"(?=({_ALNUM}{_OTHER}|{_OTHER}{_ALNUM}))", SPACE.join(pieces)))
    fine = re.compile(f"{SPACE}*(?:{_ALNUM}+|{_OTHER}+)|{SPACE}+")
    return fine, re.compile("|".join(map(re.escape, sorted(held)))) if held else None


class SentencePieceBPE:
    """Encode text into a SentencePiece BPE model's ids, exactly as the ``sentencepiece`` library does.

    subtle (speed): no piece of Mistral's or LLaMA's vocabulary has a ``▁`` after another character,
    so no merge can cross the start of a run of ``▁``; the normalised text is cut there into
    segments (``▁▁hello``, ``▁world``) encoded independently and remembered. A model whose pieces
    break that rule is encoded whole, which gives the same ids, only slower.
    """

    def __init__(self, model: SentencePieceModel) -> None:
        if len(model.pieces) != len(model.scores) or len(model.pieces) != len(model.kinds):
            raise ValueError(f"{model.source}: {len(model.pieces)} pieces but {len(model.scores)} scores "
                             f"and {len(model.kinds)} kinds")
        if "unused" in model.kinds:
            raise TokenizerFileError(f"{model.source}: piece {model.kinds.index('unused')} is an 'unused' piece, "
                                     "which SentencePiece re-splits; this rebuild does not")
        self.model = model
        self.pieces: list[str] = list(model.pieces)
        # What SentencePiece's BPE may merge into and look up: normal and user-defined pieces.
        self.id_of: dict[str, int] = {p: i for i, (p, k) in enumerate(zip(model.pieces, model.kinds))
                                      if k in ("normal", "user_defined")}
        self.score_of: dict[str, float] = {p: model.scores[i] for p, i in self.id_of.items()}
        self._rank_of: dict[str, float] = {p: -score for p, score in self.score_of.items()}  # loop_merge_by_score's
        self.user_defined: list[str] = sorted((p for p, k in zip(model.pieces, model.kinds) if k == "user_defined"),
                                              key=len, reverse=True)
        self._user_regex = re.compile("|".join(map(re.escape, self.user_defined))) if self.user_defined else None
        self.byte_ids: dict[int, int] = {}
        if model.byte_fallback:
            byte_id = {p: i for i, (p, k) in enumerate(zip(model.pieces, model.kinds)) if k == "byte"}
            missing = [b for b in range(256) if byte_piece(b) not in byte_id]
            if missing:
                raise TokenizerFileError(f"{model.source}: byte_fallback is on but piece {byte_piece(missing[0])} "
                                         f"is missing ({len(missing)} of the 256 byte pieces are)")
            self.byte_ids = {b: byte_id[byte_piece(b)] for b in range(256)}
        self.control: dict[str, int] = {p: i for i, (p, k) in enumerate(zip(model.pieces, model.kinds))
                                        if k in ("control", "unknown")}
        cuttable = all(re.fullmatch(f"{SPACE}*[^{SPACE}]*", p) for p in self.id_of)
        self._segments = re.compile(f"{SPACE}+[^{SPACE}]*|[^{SPACE}]+" if cuttable else ".+", re.DOTALL)
        self._fine_segments: re.Pattern[str] | None = None
        self._joined: re.Pattern[str] | None = None
        if cuttable and not self.user_defined:
            self._fine_segments, self._joined = _fine_segments(self.id_of)
        self._cache: dict[str, tuple[int, ...]] = {}
        self._canonical: dict[int, int] | None = None  # see canonical_id

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> SentencePieceBPE:
        return cls(read_model(path))

    def __repr__(self) -> str:
        return f"SentencePieceBPE({len(self.pieces)} pieces from {self.model.source})"

    @property
    def n_vocab(self) -> int:
        """Largest id + 1 (the pieces are numbered from 0 without a gap): the rows of a model's embedding."""
        return len(self.pieces)

    def normalize(self, text: str) -> str:
        """The text as the model sees it: ``▁`` for each space, one ``▁`` in front (the dummy prefix; at the
        end with ``treat_whitespace_as_suffix``) unless the text is empty; with ``remove_extra_whitespaces``,
        no space at either end and none repeated."""
        _check_text(text)
        model = self.model
        if model.remove_extra_whitespaces:
            text = re.sub(" +", " ", text).strip(" ")
        if not text:
            return ""
        space = SPACE if model.escape_whitespaces else " "
        if model.add_dummy_prefix and not model.treat_whitespace_as_suffix:
            text = " " + text
        if model.escape_whitespaces:
            text = text.replace(" ", SPACE)
        if model.remove_extra_whitespaces:
            # subtle: SentencePiece strips trailing spaces *after* escaping them, so a typed ▁ at the end
            # goes too (a typed ▁ at the start stays: leading spaces are stripped before escaping)
            text = text.rstrip(space)
        if model.add_dummy_prefix and model.treat_whitespace_as_suffix:
            text += space  # subtle: the "dummy prefix" becomes a suffix, added after the trailing spaces went
        return text

    def split(self, normalized: str) -> tuple[list[str], frozenset[int]]:
        """Code points, with each user-defined piece kept whole (and frozen: it never merges)."""
        if self._user_regex is None:
            return list(normalized), frozenset()
        symbols: list[str] = []
        frozen: set[int] = set()
        at = 0
        for found in self._user_regex.finditer(normalized):
            symbols.extend(normalized[at:found.start()])
            frozen.add(len(symbols))
            symbols.append(found.group())
            at = found.end()
        symbols.extend(normalized[at:])
        return symbols, frozenset(frozen)

    def ids_of_symbols(self, symbols: Sequence[str]) -> list[int]:
        """Each symbol's id; a symbol the vocabulary lacks becomes its bytes' pieces (or ``<unk>``)."""
        ids: list[int] = []
        for symbol in symbols:
            found = self.id_of.get(symbol)
            if found is not None:
                ids.append(found)
            elif self.byte_ids:
                ids.extend(self.byte_ids[b] for b in symbol.encode("utf-8"))
            else:
                ids.append(self.model.unk_id)
        return ids

    def encode_segment(self, segment: str) -> tuple[int, ...]:
        cached = self._cache.get(segment)
        if cached is None:
            cached = self._merged(segment)
            if len(self._cache) >= SEGMENT_CACHE_LIMIT:
                self._cache.clear()
            self._cache[segment] = cached
        return cached

    def _merged(self, segment: str) -> tuple[int, ...]:
        """The ids of one segment not seen before."""
        symbols, frozen = self.split(segment)
        if frozen or len(symbols) > LONG_SEGMENT:
            parts = heap_merge_by_score(symbols, self.score_of, frozen)
        else:
            parts = loop_merge_by_score(symbols, self._rank_of)
        ids = list(map(self.id_of.get, parts))
        return tuple(cast("list[int]", ids) if None not in ids else self.ids_of_symbols(parts))

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (no ``<s>``: add ``bos_id`` yourself, as the library's ``add_bos`` does).

        subtle: as :meth:`bpe_course.tokenizer.Tokenizer.encode_ordinary` does, each distinct segment
        is merged once and the ids of all of them are strung together in C.
        """
        normalized = self.normalize(text)
        cutter = self._fine_segments
        if cutter is None or (self._joined is not None and self._joined.search(normalized)):
            cutter = self._segments
        segments = cutter.findall(normalized)
        cache = distinct = self._cache
        missing = set(segments).difference(cache)
        if missing:
            if len(cache) + len(missing) > SEGMENT_CACHE_LIMIT:
                cache.clear()
                missing = set(segments)
                if len(missing) > SEGMENT_CACHE_LIMIT:
                    distinct = {}  # more distinct segments than the cache may hold: kept for this call only
            for segment in missing:
                distinct[segment] = self._merged(segment)
        ids = list(chain.from_iterable(map(distinct.__getitem__, segments)))
        if not self.byte_ids and self.model.unk_id in ids:
            # subtle: without byte fallback SentencePiece writes a run of unknown symbols as one <unk>
            unk = self.model.unk_id
            ids = [i for k, i in enumerate(ids) if i != unk or k == 0 or ids[k - 1] != unk]
        return ids

    def encode_as_pieces(self, text: str) -> list[str]:
        return [self.pieces[i] for i in self.encode(text)]

    def decode(self, ids: Sequence[int]) -> str:
        """Text back from any ids, as the library's ``decode`` writes it (``sentencepiece_processor.cc``).

        * a control piece (``<s>``, ``[INST]``...) is written as nothing, ``<unk>`` as the model's
          ``unk_surface`` (`` ⁇ `` unless the file says otherwise);
        * a run of byte pieces is read as UTF-8 one character at a time, and each byte that starts no
          whole character is written as U+FFFD on its own: ``<0xEF>``, ``<0xAC>`` cut from a three-byte
          character give two replacement characters, where Python's ``decode(errors="replace")`` gives one;
        * ``▁`` is read as a space, except that the first piece of text may drop one ``▁``, the dummy
          prefix: only a normal piece does, and only while nothing has been written and no earlier piece
          dropped one. A leading ``<0x20>`` or ``<unk>`` keeps its space.

        So decoding the ids of a model's output one at a time, or cut anywhere, gives the library's text.

        subtle: the library turns each id into its piece and the piece back into an id, and a control piece
        wins over a normal piece of the same text (``ModelInterface::PieceToId``); :meth:`canonical_id` does
        the same.
        """
        kinds, model = self.model.kinds, self.model
        strip_prefix = model.add_dummy_prefix or model.remove_extra_whitespaces
        out: list[str] = []
        pending = bytearray()  # byte pieces not yet read as UTF-8
        at_start = True  # may the next piece drop a ▁; once not, never again
        written = dropped = False  # has any text been written; did the piece before drop a ▁
        for position, i in enumerate(ids):
            if isinstance(i, bool) or not hasattr(type(i), "__index__"):  # NumPy integers pass; 1.0 and True do not
                raise ValueError(f"id {i!r} ({type(i).__name__}) at position {position} is not an integer; ids of "
                                 f"this model run from 0 to {len(self.pieces) - 1}")
            i = operator.index(i)
            if not 0 <= i < len(self.pieces):
                raise ValueError(f"id {i!r} at position {position} is not an id of this model "
                                 f"(0 to {len(self.pieces) - 1})")
            i = self.canonical_id(i)
            if kinds[i] == "byte":
                pending.append(int(self.pieces[i][3:5], 16))
                continue
            if pending:
                out.append(utf8_by_character(pending))
                written = written or bool(out[-1])
                pending.clear()
            at_start = at_start and not written and not dropped
            dropped = False
            if kinds[i] == "control":
                continue
            if kinds[i] == "unknown":
                out.append(model.unk_surface)
            else:
                piece = self.pieces[i]
                if at_start and strip_prefix and piece.startswith(SPACE):
                    piece = piece[1:]
                    dropped = not model.remove_extra_whitespaces  # then every leading ▁ goes
                out.append(piece.replace(SPACE, " "))
            written = written or bool(out[-1])
        if pending:
            out.append(utf8_by_character(pending))
        return "".join(out)

    def canonical_id(self, i: int) -> int:
        """The id the library decodes ``i`` as: the id of ``i``'s piece, a control, unknown or byte piece
        first (``ModelInterface::PieceToId``). Only a model with a piece spelled twice has ids for which
        it differs."""
        if self._canonical is None:
            reserved: dict[str, int] = {}
            normal: dict[str, int] = {}
            for k, (piece, kind) in enumerate(zip(self.pieces, self.model.kinds)):
                (normal if kind in ("normal", "user_defined", "unused") else reserved).setdefault(piece, k)
            self._canonical = {k: reserved.get(p, normal.get(p, k)) for k, p in enumerate(self.pieces)
                               if reserved.get(p, normal.get(p, k)) != k}
        return self._canonical.get(i, i)


REPLACEMENT = "\ufffd"


def utf8_by_character(data: bytes | bytearray) -> str:
    """Bytes read as UTF-8 the way sentencepiece reads byte pieces: character by character, each byte that
    starts no whole, valid character written as one U+FFFD.

    >>> utf8_by_character("€".encode()[:2]), utf8_by_character(b"a\\xffb"), utf8_by_character("é".encode())
    ('\ufffd\ufffd', 'a\ufffdb', 'é')
    """
    try:
        return bytes(data).decode("utf-8")  # valid UTF-8: the same characters either way
    except UnicodeDecodeError:
        pass
    out, k, n = [], 0, len(data)
    while k < n:
        lead = data[k]
        size = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else \
            4 if lead >> 3 == 0b11110 else 0
        if size and k + size <= n:
            try:
                out.append(bytes(data[k:k + size]).decode("utf-8"))  # strict: no overlong form, no surrogate
                k += size
                continue
            except UnicodeDecodeError:
                pass
        out.append(REPLACEMENT)
        k += 1
    return "".join(out)


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"text has a lone surrogate {text[e.start]!r} at character {e.start}, which is no "
                         "Unicode character; SentencePiece refuses such text too") from None
