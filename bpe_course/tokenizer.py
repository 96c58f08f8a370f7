"""The byte-level BPE tokenizer: encode text to ids and decode ids back.

>>> from bpe_course.train import train_bpe
>>> vocab, merges = train_bpe("low low low lower lowest", 259)
>>> tok = Tokenizer(vocab, merges)
>>> tok.encode("low lowest")
[257, 258, 101, 115, 116]
>>> tok.decode(tok.encode("low lowest"))
'low lowest'
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain, compress, islice, repeat
from pathlib import Path

from .errors import TokenizerFileError
from .bpe import first_merge_ranks, merge_bytes, merges_from_ranks
from .fast.piece import encode_long_piece, joinable_pairs, merge_any_length
from .pretokenize import (PatternTimeoutError, check_special_tokens, pattern_name, pretokenize, pretokenize_lazily,
                          replace_lone_surrogates, resolve_pattern, safe_cut, specials_regex)

LONG_PIECE = 64  # longer pieces are cut into independent parts, long parts merged with a heap (O(n log n))
CACHE_LIMIT = 50_000  # pre-tokens remembered between calls; the cache is emptied when full
SHOWN_SPECIALS = 8  # special tokens a repr names; the rest are counted
STREAM_CHUNK = 1 << 16  # characters gathered before encode_iterable looks for a safe cut
STREAM_PIECES = 1 << 14  # pieces encoded at a time when a text is encoded lazily (no safe cut known)


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges of a rank-only vocabulary (:func:`bpe_course.bpe.merges_from_ranks`), very long tokens
    included in near-linear time: what every reader of a rank file in the package uses."""
    return merges_from_ranks(ranks, merge=merge_any_length)


class Tokenizer:
    """A byte-level BPE tokenizer over one data model: ``vocab``, ``merges``, special tokens, pattern.

    ``special_tokens`` is a list of strings already in ``vocab`` (as their UTF-8 bytes), or a
    ``{token: id}`` mapping. ``pattern`` is ``"gpt2"``, ``"gpt4"``, ``"gpt4o"``, ``"none"`` or a regex.
    """

    _merges: list[tuple[bytes, bytes]] | None  # None until made (see the merges property)
    _recover_merges: Callable[[], list[tuple[bytes, bytes]]] | None  # what makes them, until then
    _n_merges: int | None  # how many there will be, until then

    def __init__(self, vocab: Mapping[int, bytes], merges: Iterable[tuple[bytes, bytes]],
                 special_tokens: Iterable[str] | Mapping[str, int] = (), pattern: str | None = "gpt2") -> None:
        self.vocab: dict[int, bytes] = _check_vocab(vocab)
        self.merges: list[tuple[bytes, bytes]] = _check_merges(merges)
        self.pattern: str | None = resolve_pattern(pattern)
        self.special_tokens: dict[str, int] = self._find_specials(special_tokens)
        special_ids = set(self.special_tokens.values())
        # subtle: start-up speed (o200k has 200,000 tokens): the checks below run as whole-collection
        # operations in C, and only when one fails does a plain loop look for the culprit to name.
        self._id_of: dict[bytes, int] = _ordinary_ids(self.vocab, special_ids)
        missing = [b for b in range(256) if bytes([b]) not in self._id_of]
        if missing:
            raise ValueError(f"vocab lacks {len(missing)} of the 256 single bytes (first missing: byte {missing[0]}); "
                             "a byte-level tokenizer needs them all")
        made = [a + b for a, b in self.merges]
        known = self._id_of.__contains__
        if not (all(map(known, made)) and all(map(known, chain.from_iterable(self.merges)))):
            _name_unknown_part(self.merges, self._id_of)
        self._rank: dict[bytes, int] = _pair_ranks(self.merges, made, self._id_of)  # what encoding ranks a pair by
        self._start_caches()

    def _start_caches(self) -> None:
        self._merge_rank: dict[bytes, int] | None = None  # made on first use, see first_merge_ranks
        self._cache: dict[str, tuple[int, ...]] = {}  # pre-token -> ids; never more than CACHE_LIMIT
        self._joinable: bytes | None = None  # built on the first long piece (see _independent_parts)
        self._source: str | None = None  # the file it was loaded from, named when its pattern fails

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges, ``(left, right)`` pairs of tokens in creation order.

        subtle: a tokenizer made by :meth:`from_checked` from a rank file it can trust (cl100k's and
        o200k's, by their sha256) or from a start-up cache file makes this list only when it is first
        asked for. Encoding never needs it (a pair ranks as the token it makes), and recovering it from
        100,000-200,000 ranks takes seconds: tiktoken never builds it at all.
        """
        if self._merges is None:
            assert self._recover_merges is not None  # subtle: one of the two is always set
            self._merges = self._recover_merges()
            self._recover_merges = None
        return self._merges

    @merges.setter
    def merges(self, merges: list[tuple[bytes, bytes]]) -> None:
        self._merges, self._recover_merges = merges, None

    def _merge_count(self) -> int:
        """``len(self.merges)``, without making the list."""
        return self._n_merges if self._merges is None and self._n_merges is not None else len(self.merges)

    @property
    def ranks_by_id(self) -> bool:
        """Whether encoding ranks a pair by the id of the token it makes (ids grow with the merges, see
        ``_pair_ranks``): what a start-up cache file records, so that :meth:`from_checked` need not work it out."""
        return self._rank is self._id_of

    @classmethod
    def from_checked(cls, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]] | Callable[[], list],
                     special_tokens: dict[str, int], pattern: str | None, ranks_by_id: bool,
                     n_merges: int | None = None) -> Tokenizer:
        """A tokenizer from data known to pass ``Tokenizer(...)``'s checks, without running them again.

        For a start-up cache file (:mod:`bpe_course.pretrained_cache`), which holds a tokenizer that
        was built and checked when the file was made and is verified whole by its sha256 on every load,
        and for a rank file whose sha256 is that of a file known to pass them (``pretrained``). The checks
        are most of the time of building cl100k or o200k; give this nothing else.

        ``merges`` may be a function that makes the list (called once, when :attr:`merges` is first
        read; ``n_merges`` is then its length).
        """
        self = cls.__new__(cls)
        self.vocab, self.pattern = vocab, resolve_pattern(pattern)
        if callable(merges):
            self._merges, self._recover_merges, self._n_merges = None, merges, n_merges
        else:
            self.merges = merges
        self.special_tokens = dict(special_tokens)
        self._id_of = _ordinary_ids(vocab, set(special_tokens.values()))
        self._rank = self._id_of if ranks_by_id else first_merge_ranks(self.merges)
        self._start_caches()
        return self

    def _find_specials(self, special_tokens: Iterable[str] | Mapping[str, int]) -> dict[str, int]:
        if isinstance(special_tokens, Mapping):
            found = dict(special_tokens)
            check_special_tokens(found)
            for s, i in found.items():
                if self.vocab.get(i) != s.encode("utf-8"):
                    raise ValueError(f"special token {s!r}: vocab id {i} holds {self.vocab.get(i)!r}, not its bytes")
            return found
        if isinstance(special_tokens, str):
            raise TypeError(f"special_tokens must be a list of strings, not the string {special_tokens!r}")
        by_bytes = {t: i for i, t in sorted(self.vocab.items())}  # highest id wins: specials come last
        found = {}
        for s in check_special_tokens(special_tokens):
            if s.encode("utf-8") not in by_bytes:
                raise ValueError(f"special token {s!r} is not in the vocab")
            found[s] = by_bytes[s.encode("utf-8")]
        return found

    def __repr__(self) -> str:
        name = pattern_name(self.pattern) or "custom"
        specials = list(self.special_tokens)
        if len(specials) > SHOWN_SPECIALS:  # subtle: Llama 4 has 2,048, a 60 KB repr
            specials = [*specials[:SHOWN_SPECIALS - 1], f"... {len(specials) - SHOWN_SPECIALS + 1:,} more"]
        return (f"Tokenizer(n_vocab={self.n_vocab}, merges={self._merge_count()}, "
                f"special_tokens={specials}, pattern={name!r})")

    @property
    def n_vocab(self) -> int:
        """Largest id + 1, as tiktoken's ``Encoding.n_vocab``: the rows of a model's embedding matrix.

        ``len(tok.vocab)`` counts the tokens themselves; it is smaller where ids are unused (cl100k
        leaves 100256 and 100261-100275 empty) or where a cut tokenizer keeps its specials' high ids.
        """
        return max(self.vocab) + 1 if self.vocab else 0

    def truncated(self, n_merges: int) -> Tokenizer:
        """The same tokenizer with only its first ``n_merges`` merges (ids of kept tokens unchanged).

        A BPE vocabulary is a prefix property: training for fewer merges gives exactly these merges,
        so this is how a slider or a vocab-size plot gets many tokenizers from one training run.
        """
        if not 0 <= n_merges <= len(self.merges):
            raise ValueError(f"n_merges must be between 0 and {len(self.merges)}, got {n_merges}")
        kept = {a + b for a, b in self.merges[:n_merges]}
        special_ids = set(self.special_tokens.values())
        vocab = {i: t for i, t in self.vocab.items() if len(t) == 1 or t in kept or i in special_ids}
        return Tokenizer(vocab, self.merges[:n_merges], self.special_tokens, self.pattern)

    # ---- encoding ------------------------------------------------------------------------
    def encode(self, text: str, *, allowed_special: Iterable[str] | str = frozenset(),
               disallowed_special: Iterable[str] | str = "all") -> list[int]:
        """Encode ``text``, with tiktoken's rules for special tokens.

        By default a registered special token in the text raises ``ValueError``.
        ``allowed_special="all"`` (or a set) encodes those as their ids; ``disallowed_special=()``
        encodes the others as ordinary text. Where specials overlap, the longest wins.
        """
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        text = _check_text(text)
        _refuse_disallowed(text, disallowed)
        if not allowed:
            return self.encode_ordinary(text)
        ids: list[int] = []
        start = 0
        for found in self._allowed_specials_in(text, allowed):
            ids.extend(self.encode_ordinary(text[start:found.start()]))
            ids.append(self.special_tokens[found.group()])
            start = found.end()
        ids.extend(self.encode_ordinary(text[start:]))
        return ids

    def _allowed_specials_in(self, text: str, allowed: set[str]) -> Iterator:
        """The allowed special tokens in ``text``, found the way tiktoken finds them.

        subtle: the search looks for *any* special token, longest first. One that is not allowed
        is passed over by looking again one character further on, so with ``<|e|>`` allowed and
        ``<|e|><|e|>`` not, ``<|e|><|e|><|e|>`` is ordinary text followed by one ``<|e|>``.
        """
        finder = specials_regex(tuple(sorted(self.special_tokens)))
        if finder is None:  # no special tokens at all
            return
        found = finder.search(text)
        while found:
            if found.group() in allowed:
                yield found
                found = finder.search(text, found.end())
            else:
                found = finder.search(text, found.start() + 1)

    def _special_sets(self, allowed, disallowed) -> tuple[set[str], set[str]]:
        known = set(self.special_tokens)
        allowed = known if allowed == "all" else set(allowed)
        unknown = allowed - known
        if unknown:
            raise ValueError(f"allowed_special names {sorted(unknown)}, which are not special tokens of this "
                             f"tokenizer (it has {sorted(known)})")
        disallowed = known - allowed if disallowed == "all" else set(disallowed)
        return allowed, disallowed

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` treating special-token text as ordinary text."""
        return self._ids_of_pieces(self._pretokenize(_check_text(text)))

    def _ids_of_pieces(self, pieces: list[str]) -> list[int]:
        """The ids of a text's pieces, strung together."""
        cache = distinct = self._cache
        if cache:
            # subtle: a text whose pieces are all known (most of a text seen before) has nothing to add, so
            # that is tried first, without the set of its distinct pieces; a new piece stops it at once
            try:
                return list(chain.from_iterable(map(cache.__getitem__, pieces)))
            except KeyError:
                pass
        missing = set(pieces).difference(cache)
        if missing:
            if len(cache) + len(missing) > CACHE_LIMIT:
                cache.clear()
                missing = set(pieces)
                if len(missing) > CACHE_LIMIT:
                    distinct = {}  # more distinct pieces than the cache may hold: keep them for this call only
            self._encode_new(missing, distinct)
        # subtle: each distinct piece was encoded once; the ids of all of them are strung together in C
        return list(chain.from_iterable(map(distinct.__getitem__, pieces)))

    def _pretokenize(self, text: str) -> list[str]:
        """``pretokenize`` with this tokenizer's pattern; a pattern that backtracks for ages names its file."""
        try:
            return pretokenize(text, self.pattern)
        except PatternTimeoutError as exc:
            if self._source is None:
                raise
            raise TokenizerFileError(f"{self._source}: {exc}") from None

    def _encode_new(self, pieces: Iterable[str], into: dict[str, tuple[int, ...]]) -> None:
        """Add the ids of each of ``pieces`` to ``into``.

        subtle: most pieces are one token, so all are first entered as such in bulk, at C speed
        (``zip(whole)`` makes the 1-tuples); only the few that are no token are looped over.
        """
        pieces = list(pieces)
        raw = list(map(str.encode, pieces))  # UTF-8
        whole = list(map(self._id_of.get, raw))
        into.update(zip(pieces, zip(whole)))  # type: ignore[arg-type]  # a None (no token) is replaced just below
        for k in compress(range(len(pieces)), map(operator.is_, whole, repeat(None))):
            into[pieces[k]] = tuple(self._merged(raw[k]))

    def encode_piece(self, piece: bytes) -> list[int]:
        """BPE inside one pre-token: merge the adjacent pair of lowest merge rank until none is left.

        subtle: like tiktoken, a pair's rank is the rank of the token its bytes concatenate to,
        and a piece that is a token is that token, however BPE would have split it.
        """
        whole = self._id_of.get(piece)
        return [whole] if whole is not None else self._merged(piece)

    def _merged(self, piece: bytes) -> list[int]:
        """The ids of a piece that is no token, BPE over its bytes."""
        if len(piece) > LONG_PIECE:
            return self._encode_long_piece(piece)
        return list(map(self._id_of.__getitem__, merge_bytes(piece, self._rank)))

    def _encode_long_piece(self, piece: bytes) -> list[int]:
        """The same merges as :meth:`encode_piece`, in near-linear time (see ``bpe_course.fast.piece``)."""
        if self._joinable is None:
            self._joinable = joinable_pairs(self._id_of)
        return encode_long_piece(piece, self._rank, self._id_of, self._joinable, self.encode_piece, LONG_PIECE)

    def first_merge_ranks(self) -> dict[bytes, int]:
        """Which merge first made each token, ``{token: rank}`` (:func:`bpe_course.bpe.first_merge_ranks`).

        Made once per tokenizer, on first use: a limit counted in merges, a stepper or BPE-dropout
        ranks pairs by it. Treat it as read-only.
        """
        if self._merge_rank is None:
            # subtle: when encoding does not rank by id, its ranks are these already
            self._merge_rank = first_merge_ranks(self.merges) if self._rank is self._id_of else self._rank
        return self._merge_rank

    def encode_ordinary_truncated(self, text: str, n_merges: int) -> list[int]:
        """Exactly ``self.truncated(n_merges).encode_ordinary(text)``, without building that tokenizer.

        BPE allowed only the merges of rank below ``n_merges`` splits text as the truncated tokenizer
        does, and the truncated tokenizer keeps its tokens' ids, so nothing new is built: a slider can
        move over cl100k's 100,000 merges at the cost of encoding the text.

        >>> from bpe_course.train import train_bpe
        >>> tok = Tokenizer(*train_bpe("low low low lower lowest", 259))
        >>> tok.merges
        [(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
        >>> [tok.encode_ordinary_truncated(" low", k) for k in range(4)]
        [[32, 108, 111, 119], [32, 108, 256], [32, 257], [258]]
        >>> tok.encode_ordinary_truncated(" low", 2) == tok.truncated(2).encode_ordinary(" low")
        True
        """
        if isinstance(n_merges, bool) or not hasattr(type(n_merges), "__index__"):
            raise TypeError(f"n_merges must be an int, got {n_merges!r}")
        n_merges = operator.index(n_merges)  # subtle: a NumPy integer (a slider's value, an array's) is an int
        if not 0 <= n_merges <= len(self.merges):
            raise ValueError(f"n_merges must be between 0 and {len(self.merges)}, got {n_merges}")
        merge_ranks = self.first_merge_ranks()
        ranks, id_of = _RanksBelow(merge_ranks, n_merges), self._id_of

        def encode_piece(piece: bytes) -> list[int]:
            # subtle: the whole-piece shortcut only for a token the truncated tokenizer has: a single
            # byte or one made by a kept merge (truncated() drops tokens no kept merge makes).
            if len(piece) == 1 or ranks.get(piece) is not None:
                return [id_of[piece]]
            if len(piece) > LONG_PIECE:
                if self._joinable is None:
                    self._joinable = joinable_pairs(id_of)
                # subtle: the full vocab's joinable table lists more pairs than the truncated one's;
                # cutting at fewer places is still exact (each part still merges as it would alone).
                # (the ignore: a _RanksBelow is read, like the dict it stands for, only through .get)
                return encode_long_piece(piece, ranks, id_of, self._joinable, encode_piece, LONG_PIECE)  # type: ignore[arg-type]
            return [id_of[part] for part in merge_bytes(piece, merge_ranks, limit=n_merges)]

        done: dict[str, list[int]] = {}
        ids: list[int] = []
        for piece in self._pretokenize(_check_text(text)):
            if piece not in done:
                done[piece] = encode_piece(piece.encode("utf-8"))
            ids.extend(done[piece])
        return ids

    def encode_iterable(self, texts: Iterable[str], *, allowed_special: Iterable[str] | str = frozenset(),
                        disallowed_special: Iterable[str] | str = "all") -> Iterator[int]:
        """Yield the ids of the concatenation of ``texts`` lazily, e.g. over the lines of a big file.

        The result is exactly ``encode("".join(texts))`` however the text is cut. Memory stays
        bounded by the longest stretch without a safe cut (for GPT-2/GPT-4 patterns: a space
        between two non-space characters, or the end of a special token).
        """
        for ids in self._encode_blocks(texts, allowed_special=allowed_special, disallowed_special=disallowed_special):
            yield from ids

    def _encode_blocks(self, texts: Iterable[str], *, allowed_special: Iterable[str] | str = frozenset(),
                       disallowed_special: Iterable[str] | str = "all") -> Iterator[list[int]]:
        """:meth:`encode_iterable`'s ids a list at a time, one list per stretch of text cut safely: for a
        caller that stores them in bulk (``bpe_course.encode_files``), with no Python step per id."""
        allowed, _ = self._special_sets(allowed_special, disallowed_special)  # fail early on bad arguments
        specials = tuple(self.special_tokens)
        parts: list[str] = []
        size, next_try = 0, STREAM_CHUNK
        for text in texts:
            parts.append(_check_text(text))
            size += len(text)
            if size < next_try:
                continue
            buffer = "".join(parts)
            # subtle: a cut never falls inside any special token's text, but only the end of one that is
            # split off (allowed) is a pre-token boundary; encoded as ordinary text, "<|x|>." is one piece.
            cut = safe_cut(buffer, self.pattern, specials, split_off=allowed)
            if cut:
                yield self.encode(buffer[:cut], allowed_special=allowed_special, disallowed_special=disallowed_special)
                buffer = buffer[cut:]
            parts, size = [buffer], len(buffer)
            next_try = size + STREAM_CHUNK if cut else 2 * size  # subtle: doubling keeps it linear
        # subtle: with a pattern of its own (no known safe cut) the whole text ends up here; its pieces and ids
        # are made a batch at a time, so memory holds the text, not the ~17 bytes a character of both as lists
        yield from self._encode_lazily("".join(parts), allowed_special, disallowed_special)

    def _encode_lazily(self, text: str, allowed_special, disallowed_special) -> Iterator[list[int]]:
        """``encode(text)``'s ids a list at a time, its pieces found and encoded ``STREAM_PIECES`` at a time
        (``text`` went through ``_check_text`` already, a part at a time: no second copy of it is made here)."""
        if len(text) < STREAM_CHUNK:
            yield self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
            return
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        _refuse_disallowed(text, disallowed)
        start = 0
        for found in self._allowed_specials_in(text, allowed) if allowed else ():
            yield from self._ordinary_lazily(text[start:found.start()])
            yield [self.special_tokens[found.group()]]
            start = found.end()
        yield from self._ordinary_lazily(text[start:])

    def _ordinary_lazily(self, text: str) -> Iterator[list[int]]:
        try:
            pieces = pretokenize_lazily(text, self.pattern)
            while batch := list(islice(pieces, STREAM_PIECES)):
                yield self._ids_of_pieces(batch)
        except PatternTimeoutError as exc:
            if self._source is None:
                raise
            raise TokenizerFileError(f"{self._source}: {exc}") from None

    # ---- decoding ------------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of a sequence of ids; an unknown id raises ``ValueError`` naming it."""
        vocab = self.vocab
        ids = list(ids)  # subtle: an iterator could not be looked at again to name a bad id
        if not set(map(type, ids)) <= {int}:
            ids = [_token_id(i, k) for k, i in enumerate(ids)]  # NumPy integers pass; 1.0, "1" and True do not
        try:
            return b"".join([vocab[i] for i in ids])
        except KeyError:
            bad = next(k for k, i in enumerate(ids) if i not in vocab)
            raise ValueError(f"unknown token id {ids[bad]!r} at position {bad}: "
                             f"ids run from {min(vocab)} to {max(vocab)}") from None

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode ids to text; bytes that are not valid UTF-8 become U+FFFD (``errors="replace"``)."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def token_bytes(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each token, e.g. to show where the boundaries fall."""
        return [self.decode_bytes([i]) for i in ids]

    def renumbered(self) -> Tokenizer:
        """The same tokenizer with ids laid out as ranks: bytes 0-255 in byte order, merges, then specials.

        Encoding splits text exactly as before; only the numbers change (a ``.tiktoken`` file needs
        this layout). Tokens no merge makes are dropped, and a merge that makes an already-made
        token is dropped (it never fired anyway).
        """
        vocab = {b: bytes([b]) for b in range(256)}
        made = self.first_merge_ranks().items()  # in creation order
        merges = [self.merges[rank] for token, rank in made if len(token) > 1]  # a single byte is no merge's
        vocab.update(enumerate((a + b for a, b in merges), start=len(vocab)))
        specials = {}
        for s in sorted(self.special_tokens, key=self.special_tokens.__getitem__):
            specials[s] = len(vocab)
            vocab[len(vocab)] = s.encode("utf-8")
        return Tokenizer(vocab, merges, specials, self.pattern)

    # ---- saving and loading (the formats themselves are plain data: bpe_course.formats) ----
    def save(self, path, format: str | None = None) -> None:
        """Write this tokenizer to ``path`` in one of ``bpe_course.formats.FORMATS``.

        Without ``format``, the name decides: ``name.tiktoken`` is written as ``"tiktoken"``, any
        other name as ``"bpe-course"``. A name that loading would read as another format than the
        one asked for (``x.tiktoken`` as JSON, ``vocab.bpe``) is refused: the name and the format agree.
        """
        from . import formats  # subtle: here, not at the top: encoding alone never needs the file formats
        format = _format_for_name(Path(path), format)
        formats.save(self, path, format=format, recover=recover_merges)

    @classmethod
    def load(cls, path, format: str | None = None) -> Tokenizer:
        """Read a tokenizer saved in any format; a file whose data is inconsistent names the file."""
        from . import formats
        data = formats.load(path, format=format, recover=recover_merges)
        try:
            tokenizer = cls(*data)
        except ValueError as exc:
            raise TokenizerFileError(f"{path}: {exc}") from None
        tokenizer._source = str(path)
        return tokenizer


def _format_for_name(path: Path, format: str | None) -> str:
    """The format to save ``path`` in: ``format``, else the one its name implies; a disagreement is refused."""
    name = path.name
    if name.endswith((".tiktoken", ".tiktoken.json")):
        implied = "tiktoken"
    elif name in ("encoder.json", "vocab.bpe"):
        implied = "gpt2"
    else:
        implied = None
    if format is None:
        format = "bpe-course" if implied in (None, "gpt2") else implied
    if implied not in (None, format) and not path.is_dir():
        if implied == "gpt2":
            hint = "the gpt2 format writes a folder: save to the folder that is to hold encoder.json and vocab.bpe"
        else:
            hint = "a .tiktoken name holds the tiktoken format (ranks, with a .tiktoken.json sidecar)"
        raise ValueError(f"{path}: Tokenizer.load would read this name as the {implied!r} format, not {format!r} "
                         f"({hint}); pass format={implied!r} or choose another name")
    return format


class _RanksBelow:
    """A read-only view of a ``{token: rank}`` table that knows only the ranks below ``limit``."""

    def __init__(self, ranks: Mapping[bytes, int], limit: int) -> None:
        self.ranks, self.limit = ranks, limit

    def get(self, token: bytes, default: int | None = None) -> int | None:
        rank = self.ranks.get(token)
        return rank if rank is not None and rank < self.limit else default


def _refuse_disallowed(text: str, disallowed: set[str]) -> None:
    """tiktoken's rule: a special token in the text that is not allowed raises ``ValueError`` (naming where)."""
    if disallowed and (finder := specials_regex(tuple(sorted(disallowed)))) is not None:
        found = finder.search(text)
        if found:
            raise ValueError(
                f"the text contains the special token {found.group()!r} at character {found.start()}. "
                f"To encode it as the special token, pass allowed_special={{{found.group()!r}}} (or 'all'); "
                "to encode it as ordinary text, pass disallowed_special=()")


def _check_text(text: str) -> str:
    """Reject non-str input; replace lone surrogates the way tiktoken does."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return replace_lone_surrogates(text)


def _token_id(value: object, position: int) -> int:
    """``value`` as a token id: an ``int`` or anything that is one (a NumPy integer); never a float or bool."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"token ids are integers; got {value!r} ({type(value).__name__}) at position {position}")
    return operator.index(value)  # type: ignore[arg-type]  # its type has __index__: checked above


def _check_vocab(vocab: Mapping[int, bytes]) -> dict[int, bytes]:
    """``vocab`` as a dict, refusing ids that are not non-negative ints and tokens that are not bytes."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict {{id: bytes}}, not {type(vocab).__name__}")
    out = dict(vocab)
    if not out or (set(map(type, out)) == {int} and min(out) >= 0 and set(map(type, out.values())) == {bytes}):
        return out  # the usual case, checked at C speed; otherwise the loop below names the culprit
    out = {}
    for i, token in vocab.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ValueError(f"vocab id {i!r} is not a non-negative int (vocab is {{id: token bytes}})")
        if not isinstance(token, (bytes, bytearray)):
            raise ValueError(f"vocab[{i}] is {token!r} ({type(token).__name__}), not bytes; write b'...' "
                             "or encode a str with .encode('utf-8')")
        out[i] = bytes(token)
    return out


def _check_merges(merges: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``merges`` as a list of pairs of bytes, naming the first merge that is not one."""
    merges = list(merges)
    if (set(map(type, merges)) <= {tuple} and set(map(len, merges)) <= {2}
            and set(map(type, chain.from_iterable(merges))) <= {bytes}):
        return merges  # the usual case, checked at C speed; otherwise the loop below names the culprit
    out = []
    for k, merge in enumerate(merges):
        if not (isinstance(merge, (tuple, list)) and len(merge) == 2
                and all(isinstance(part, (bytes, bytearray)) for part in merge)):
            raise ValueError(f"merge {k} is {merge!r}, not a pair of bytes such as (b'l', b'ow')")
        out.append((bytes(merge[0]), bytes(merge[1])))
    return out


def _ordinary_ids(vocab: dict[int, bytes], special_ids: set[int]) -> dict[bytes, int]:
    """``{token bytes: id}`` for the ordinary tokens; ``ValueError`` if two ordinary ids hold the same bytes."""
    id_of = dict(zip(vocab.values(), vocab.keys()))
    if len(id_of) == len(vocab):  # no bytes twice: the specials' bytes map to the specials' ids
        for i in special_ids:
            del id_of[vocab[i]]
        return id_of
    # subtle: a special token may share its bytes with an ordinary one; only ordinary repeats are errors
    id_of = {token: i for i, token in vocab.items() if i not in special_ids}
    if len(id_of) != len(vocab) - len(special_ids):
        _name_repeated_token(vocab, special_ids)
    return id_of


def _pair_ranks(merges: list[tuple[bytes, bytes]], made: list[bytes], id_of: dict[bytes, int]) -> dict[bytes, int]:
    """``{token: rank}`` for encoding: a pair ranks as the first merge that makes the token it concatenates to.

    subtle: where ids grow with the merges and every token but the single bytes is made by one
    (GPT-2, cl100k, o200k, ``train_bpe``), ranking by id is ranking by merge, so ``id_of`` itself
    serves: no second dict of 200,000 tokens to build at start-up, and a first encoding looks
    its pairs and its ids up in one dict, whose memory it then has in cache.
    """
    ids = list(map(id_of.__getitem__, made))
    if len(made) + 256 == len(id_of) and all(map(operator.lt, ids, ids[1:])) and min(map(len, made), default=2) > 1:
        return id_of
    return first_merge_ranks(merges)


def _name_repeated_token(vocab: dict[int, bytes], special_ids: set[int]) -> None:
    """Raise ``ValueError`` naming the first ordinary token that ``vocab`` holds under two ids."""
    first: dict[bytes, int] = {}
    for i, token in vocab.items():
        if i not in special_ids:
            if token in first:
                raise ValueError(f"vocab has the same bytes {token!r} under ids {first[token]} and {i}")
            first[token] = i


def _name_unknown_part(merges: list[tuple[bytes, bytes]], id_of: dict[bytes, int]) -> None:
    """Raise ``ValueError`` naming the first merge whose parts or result are not in the vocab."""
    for k, (a, b) in enumerate(merges):
        for part in (a, b, a + b):
            if part not in id_of:
                raise ValueError(f"merge {k} ({a!r}, {b!r}): {part!r} is not in the vocab")
