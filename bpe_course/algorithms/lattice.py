"""The score of every segmentation: a token model's probability of a text, summed over all the ways to cut it.

Chapter 16 scores a text by the probability a model gives to *one* sequence of tokens, the one the
tokenizer produces (the canonical segmentation). But a model over token ids gives probability to
every sequence of vocabulary tokens, and many of them spell the same bytes: " the" is also " t" +
"he". The probability of the *bytes* is the sum over all of them (Cao & Rimell, 2021), so the
canonical score is only an upper bound on the bits the model needs:

    bits(bytes) = -log2 sum_{s spells bytes} p(s)  <=  -log2 p(canonical s)

The sum has exponentially many terms, but an n-gram model only looks ``n - 1`` tokens back, so a
forward pass over the **lattice** of every vocabulary token that matches the text adds them up
exactly, position by position, keeping one number per (position, context) pair. Two contexts the
model cannot tell apart are one state (:func:`context_prefixes`), which keeps the pass small.

The segmentations are disjoint events for a model without an end token: no segmentation of the
bytes is a proper prefix of another (tokens are never empty), so the sum is a probability.

>>> from bpe_course.algorithms import KneserNey
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
>>> model = KneserNey([256, 256, 97, 98], order=2, n_vocab=257)
>>> [s for s in segmentations(b"abab", {t: i for i, t in vocab.items()})]
[[97, 98, 97, 98], [97, 98, 256], [256, 97, 98], [256, 256]]
>>> total = sum(2 ** -model.bits(s) for s in segmentations(b"abab", {t: i for i, t in vocab.items()}))
>>> abs(marginal_bits(model, b"abab", vocab) - -math.log2(total)) < 1e-9
True
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate

from .lm import KneserNey
from ..pretokenize import pretokenize, resolve_pattern

Context = tuple[int, ...]


def segmentations(data: bytes, ids: Mapping[bytes, int]) -> Iterator[list[int]]:
    """Every sequence of ids whose tokens spell ``data`` (brute force: exponentially many; for checking).

    >>> list(segmentations(b"aa", {b"a": 0, b"aa": 1}))
    [[0, 0], [1]]
    """
    if not data:
        yield []
        return
    for j in range(1, len(data) + 1):
        if (i := ids.get(data[:j])) is not None:
            for rest in segmentations(data[j:], ids):
                yield [i, *rest]


def token_lattice(data: bytes, ids: Mapping[bytes, int], longest: int,
                  boundaries: set[int] | None = None) -> list[list[tuple[int, int]]]:
    """For each byte offset, the ``(end, id)`` of every vocabulary token that starts there.

    With ``boundaries`` (the offsets where pre-tokens start and end), a token may not cross one:
    only the segmentations that respect the pre-tokenizer.

    >>> token_lattice(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4}, 2)
    [[(1, 0), (2, 3)], [(2, 1), (3, 4)], [(3, 2)]]
    >>> token_lattice(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4}, 2, boundaries={0, 1, 3})
    [[(1, 0)], [(2, 1), (3, 4)], [(3, 2)]]
    """
    n = len(data)
    out: list[list[tuple[int, int]]] = []
    for i in range(n):
        edges = []
        for j in range(i + 1, min(n, i + longest) + 1):
            if boundaries is not None and j - 1 > i and (j - 1) in boundaries:
                break  # subtle: the token data[i:j] would contain the boundary j-1 strictly inside it
            if (t := ids.get(data[i:j])) is not None:
                edges.append((j, t))
        if not edges:
            raise ValueError(f"byte {data[i]:#04x} at offset {i} is not in the vocabulary: no segmentation exists")
        out.append(edges)
    return out


def context_prefixes(model: KneserNey) -> frozenset[Context]:
    """Every prefix of every context the model has counts for (:meth:`KneserNey.contexts`): the histories worth remembering.

    The model's probability of the next token depends on the longest suffix of the history that it
    saw as a context; a later token can only extend a history that is the start of a seen context.
    So a history can be cut to its longest suffix in this set without changing any probability
    now or later: that suffix is the forward pass's state.

    >>> model = KneserNey([0, 1, 2], order=3, n_vocab=3)  # (0,) starts the context (0, 1) but is none itself
    >>> sorted(model.contexts()), sorted(context_prefixes(model))
    ([(), (0, 1), (1,)], [(), (0,), (0, 1), (1,)])
    """
    out: set[Context] = {()}  # subtle: even a model that saw no context (one training token) has the empty history
    for ctx in model.contexts():
        out.update(ctx[:j] for j in range(len(ctx) + 1))
    return frozenset(out)


_REMEMBERED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _remembered(model: KneserNey) -> tuple[frozenset[Context], dict[tuple[Context, int], tuple[Context, float]]]:
    """The model's states (:func:`context_prefixes`) and the steps already taken from them,
    ``(state, token) -> (next state, probability)``: kept while the model lives, so scoring a second
    text with the same model (clean, then misspelled) reuses what the first computed."""
    if (found := _REMEMBERED.get(model)) is None:
        found = _REMEMBERED[model] = (context_prefixes(model), {})
    return found


def _pretoken_boundaries(data: bytes, pattern: str | None) -> set[int] | None:
    """The byte offsets where ``pattern``'s pre-tokens of ``data`` start and end (None without a pattern)."""
    if pattern is None:
        return None
    boundaries, at = {0}, 0
    for piece in pretokenize(data.decode("utf-8"), resolve_pattern(pattern)):
        at += len(piece.encode("utf-8"))
        boundaries.add(at)
    return boundaries


def token_across(data: bytes, vocab: Mapping[int, bytes], cut: int, n_vocab: int | None = None,
                 pattern: str | None = None) -> tuple[int, int] | None:
    """The ``(start, id)`` of a vocabulary token that spells bytes of ``data`` on both sides of offset ``cut``, or None.

    With ``pattern``, only a token inside one pre-token counts (the lattice allows no other).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"\\n "}
    >>> token_across(b"a\\n\\n b", vocab, 3), token_across(b"a\\n\\nb", vocab, 3)
    ((2, 256), None)
    """
    ids = {t: i for i, t in vocab.items() if n_vocab is None or i < n_vocab}
    return _token_across(data, ids, max(map(len, ids)), _pretoken_boundaries(data, pattern), cut)


def _token_across(data: bytes, ids: Mapping[bytes, int], longest: int, boundaries: set[int] | None,
                  cut: int) -> tuple[int, int] | None:
    """:func:`token_across` with the vocabulary's ``{token: id}``, its longest token and the pre-token
    boundaries made already (a caller asking about many cuts makes them once)."""
    for start in range(max(0, cut - longest + 1), cut):
        if boundaries is not None and any(b in boundaries for b in range(start + 1, cut)):
            continue  # subtle: a token from here would already cross a pre-token boundary before the cut
        for end in range(cut + 1, min(len(data), start + longest) + 1):
            if boundaries is not None and (end - 1) in boundaries and end - 1 > start:
                break
            if (i := ids.get(data[start:end])) is not None:
                return start, i
    return None


def marginal_log_probs(model: KneserNey, data: bytes, vocab: Mapping[int, bytes], cuts: Sequence[int] = (),
                       pattern: str | None = None) -> list[float]:
    """``ln P(data[:c])`` summed over every segmentation, for each offset ``c`` in ``cuts`` and for the end.

    ``pattern`` (a pre-tokenization pattern) keeps only the segmentations inside its pre-tokens.
    A forward pass: ``forward[j][state]`` is the log probability of all segmentations of
    ``data[:j]`` that leave the model in ``state`` (the history cut to :func:`context_prefixes`).
    """
    if not data:
        raise ValueError("the marginal of an empty text is 1: there is nothing to score")
    ids = {t: i for i, t in vocab.items() if i < model.n_vocab}
    boundaries = _pretoken_boundaries(data, pattern)
    lattice = token_lattice(data, ids, max(map(len, ids)), boundaries)
    keep, steps = _remembered(model)
    top, prob = model.order - 1, model.prob
    # subtle: forward[j] holds probabilities relative to exp(scale[j]), so no product of hundreds of
    # probabilities underflows; a contribution from position j to k is rescaled by exp(scale[j] - scale[k]),
    # a factor within a few tokens' probability of 1, as k is at most the longest token past j.
    forward: list[dict[Context, float] | None] = [None] * (len(data) + 1)
    scale: list[float] = [0.0] * (len(data) + 1)
    forward[0] = {(): 1.0}
    wanted, out = set(cuts), {}
    for j in range(len(data)):
        here = forward[j]
        forward[j] = None  # subtle: each position is read once, then freed: memory stays at the longest token's span
        if not here:
            if j in wanted:
                out[j] = -math.inf
            continue
        total = sum(here.values())
        base = scale[j] + math.log(total)  # renormalise: the states of position j now add up to 1
        if j in wanted:
            out[j] = base
        for end, w in lattice[j]:
            target = forward[end]
            if target is None:
                target = forward[end] = {}
                scale[end] = base
            factor = math.exp(base - scale[end]) / total
            for state, q in here.items():
                if (step := steps.get((state, w))) is None:
                    full = (*state, w)[-top:] if top else ()
                    while full not in keep:
                        full = full[1:]
                    step = steps[state, w] = (full, prob(w, state))
                nxt, p = step
                target[nxt] = target.get(nxt, 0.0) + q * p * factor
    last = forward[len(data)] or {}
    end_log = scale[len(data)] + math.log(sum(last.values())) if last else -math.inf
    return [out.get(c, -math.inf) for c in cuts] + [end_log]


def marginal_bits(model: KneserNey, data: bytes | str, vocab: Mapping[int, bytes], pattern: str | None = None) -> float:
    """The bits the model needs for ``data`` counting every segmentation: ``-log2`` of the summed probability.

    With ``pattern`` (a pre-tokenization pattern, e.g. ``"gpt2"``), only the segmentations whose tokens
    stay inside its pre-tokens count.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    return -marginal_log_probs(model, data, vocab, pattern=pattern)[-1] / math.log(2)


def marginal_by_unit(model: KneserNey, text: str, vocab: Mapping[int, bytes], unit_bytes: Sequence[int],
                     pattern: str | None = None) -> list[tuple[float, int]]:
    """The marginal bits of ``text`` per held-out unit (paragraph), ``[(bits, bytes), ...]``, for the yardstick.

    A unit's bits are ``-log2 P(text up to its end) + log2 P(text up to its start)``, prefix
    probabilities summed over every segmentation that ends a token there; they add up to
    :func:`marginal_bits` of the whole text exactly. ``unit_bytes`` are the units' UTF-8 lengths
    (:func:`bpe_course.compare.paragraph_bytes`).

    subtle: a segmentation with a token across a unit's start counts in the whole text but in no
    prefix; a cut that some vocabulary token could cross (say ``b"\\n "`` when a paragraph starts with a
    space) raises a ValueError naming the unit and the byte offset, rather than lose those segmentations.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    >>> model = KneserNey([256, 97, 98, 256], order=2, n_vocab=257)
    >>> units = marginal_by_unit(model, "abab", vocab, [2, 2])
    >>> [n for _, n in units], abs(sum(b for b, _ in units) - marginal_bits(model, "abab", vocab)) < 1e-9
    ([2, 2], True)
    """
    data = text.encode("utf-8")
    if sum(unit_bytes) != len(data) or any(n <= 0 for n in unit_bytes):
        raise ValueError(f"the units' lengths must be positive and add up to the text's {len(data):,} bytes, "
                         f"got {len(unit_bytes)} units holding {sum(unit_bytes):,}")
    starts = list(accumulate(unit_bytes[:-1]))
    ids = {t: i for i, t in vocab.items() if i < model.n_vocab}
    longest, boundaries = max(map(len, ids)), _pretoken_boundaries(data, pattern)
    for k, cut in enumerate(starts, start=2):  # units counted from 1: the first has no start to cross
        if (across := _token_across(data, ids, longest, boundaries, cut)) is not None:
            start, i = across
            raise ValueError(
                f"unit {k} of {len(unit_bytes)} starts at byte offset {cut:,}, but the vocabulary token {vocab[i]!r} (id {i}) can cover "
                f"bytes {start:,}–{start + len(vocab[i]) - 1:,}, across that start: the segmentations using it would "
                "be lost from every unit; cut the text where no token can cross (e.g. before a paragraph's first "
                "non-space byte)")
    logs = marginal_log_probs(model, data, vocab, cuts=starts, pattern=pattern)
    out, before = [], 0.0
    for lp, n in zip(logs, unit_bytes):
        out.append(((before - lp) / math.log(2), n))
        before = lp
    return out
