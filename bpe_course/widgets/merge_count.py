"""Chapter 10: a byte-level tokenizer grown back merge by merge, from raw bytes to all of GPT-2 or cl100k.

A slider sets how many merges the tokenizer may use. With ``k`` merges it is exactly
``tok.truncated(k)``: merge ``k`` has rank ``k``, so for GPT-2 and cl100k this is tiktoken with only
the ranks below ``256 + k`` -- what training would have made after ``k`` merges. The merges are
counted in merge order, not by id: Mistral's Tekken gives a token the id rank + 1,000 (its first
1,000 ids are reserved for special tokens), and its first ``k`` merges are still the ranks below
``256 + k``. The slider is
log-scaled (its notches are 0, 1, 2, 5, 10, 20, 50, ... and "all"), so 0 to 100,000 merges fits
under one thumb; the box beside it takes any exact count.

Everything can be driven from Python, as a learner drives it with the mouse:

>>> from bpe_course import Tokenizer, train_bpe
>>> tok = Tokenizer(*train_bpe("low low low lower lowest", 259))
>>> w = MergeCountSlider({"mine": tok}, " lowest")
>>> w.merges, w.ids                      # all 3 merges: " low" is one token
(3, [258, 101, 115, 116])
>>> w.exact.value = 1                    # type an exact count
>>> w.merges, w.ids, w.slider.value
(1, [32, 108, 256, 101, 115, 116], 1)
>>> w.slider.value = 0                   # or move the slider: single bytes
>>> w.ids == list(b" lowest")
True
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import TypedDict, Union, cast

import ipywidgets as widgets

from .. import pretrained
from ..tokenizer import Tokenizer
from ..viz import MAX_CHIPS, chips_html, token_label
from ..measures import shown, text_measures

TokenizerSource = Union[Tokenizer, Callable[[], Tokenizer]]  # a tokenizer, or a function loading one on demand


class Shown(TypedDict, total=False):
    """What the slider shows (empty before the first draw)."""

    name: str
    merges: int
    n_merges: int
    text: str
    ids: list[int]
    numbers: dict[str, float]
    vocab_entries: int

CACHE_SIZE = 256  # encodings remembered, keyed by (tokenizer, merges, text): sliding back is instant
MERGE_NOTCHES = (1, 2, 5)  # times each power of ten: 0, 1, 2, 5, 10, 20, 50, ...


def merge_steps(n_merges: int) -> list[int]:
    """The slider's notches for a tokenizer with ``n_merges`` merges: 0, 1, 2, 5, 10, 20, 50, ... below
    ``n_merges``, then ``n_merges`` itself (all of them).

    >>> merge_steps(1244)
    [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1244]
    >>> merge_steps(50_000)[-3:], len(merge_steps(100_000))
    ([10000, 20000, 50000], 17)
    >>> merge_steps(0)
    [0]
    """
    if n_merges < 0:
        raise ValueError(f"n_merges must be >= 0, got {n_merges}")
    steps, power = [0], 1
    while power < n_merges:
        steps += [m * power for m in MERGE_NOTCHES if m * power < n_merges]
        power *= 10
    return steps + [n_merges] if n_merges else steps


def step_label(k: int, n_merges: int) -> str:
    """How a notch is written on the slider's readout.

    >>> step_label(1000, 50_000), step_label(50_000, 50_000)
    ('1,000', 'all 50,000')
    """
    return f"all {k:,}" if k == n_merges else f"{k:,}"


def made_counts(tok: Tokenizer) -> list[int]:
    """``counts[k]``: how many distinct tokens the first ``k`` merges make (two merges may make the same bytes).

    >>> made_counts(Tokenizer({**{b: bytes([b]) for b in range(256)}, 256: b"ab"}, [(b"a", b"b"), (b"a", b"b")]))
    [0, 1, 1]
    """
    made: set[bytes] = set()
    counts = [0]
    for a, b in tok.merges:
        made.add(a + b)
        counts.append(len(made))
    return counts


def truncated_numbers(tok: Tokenizer, text: str, merge_counts: Iterable[int]) -> list[dict[str, float]]:
    """One row per merge count ``k`` (clamped to the tokenizer's merges): ``merges``, ``vocab_entries``
    (the tokens ``tok.truncated(k)`` holds: bytes, tokens its merges made, special tokens) and the
    :func:`~bpe_course.measures.text_measures` of ``tok.truncated(k)`` on ``text``.

    subtle: not ``n_vocab`` (largest id + 1): a cut tokenizer keeps its special tokens' high ids.
    Special-token text is encoded as ordinary text, as everywhere in this widget.
    """
    counts = made_counts(tok)
    rows = []
    for k in merge_counts:
        k = min(k, len(tok.merges))
        ids = tok.encode_ordinary_truncated(text, k)
        rows.append({"merges": k, "vocab_entries": 256 + counts[k] + len(tok.special_tokens),
                     **text_measures(len(ids), text)})
    return rows


def course_tokenizers(own: Tokenizer | None = None, own_name: str = "your tokenizer") -> dict[str, TokenizerSource]:
    """The presets: your own tokenizer (if given), then every named byte-level tokenizer installed here
    (:func:`bpe_course.pretrained.loaders`: GPT-2, GPT-4 (cl100k), GPT-4o (o200k) and, with the
    ``interop`` extra, Mistral's Tekken and Meta's Llama 3 and Llama 4), each loaded only when first chosen.

    >>> list(course_tokenizers())[:3]
    ['GPT-2', 'GPT-4 (cl100k)', 'GPT-4o (o200k)']
    """
    found: dict[str, TokenizerSource] = {own_name: own} if own is not None else {}
    # cast: the byte-level loaders build Tokenizers (loaders() is typed for every kind)
    return found | cast(dict[str, TokenizerSource], pretrained.loaders("byte-level"))


class MergeCountSlider:
    """Choose a tokenizer, slide its number of merges from 0 to all, watch the text's tokens follow.

    ``tokenizers`` maps a button name to a :class:`~bpe_course.Tokenizer` or to a function that loads
    one (called the first time that button is chosen; see :func:`course_tokenizers`). Parts, each
    with a CSS class for the browser:

    * ``text`` -- the ``Textarea`` with the text (``bpe-mc-text``);
    * ``choice`` -- ``ToggleButtons``, one per tokenizer (``bpe-mc-choice``);
    * ``slider`` -- a ``SelectionSlider`` over :func:`merge_steps` (``bpe-mc-slider``); a count typed
      into ``exact`` that is not a notch becomes one, so the readout always shows the exact count;
    * ``exact`` -- a ``BoundedIntText`` for any count from 0 to all (``bpe-mc-exact``);
    * ``status`` -- "updating…" while it works, then what is shown (``bpe-mc-status``);
    * ``stats`` -- tokens, words, tokens per word, bytes per token, the tokens the cut vocabulary holds
      (``vocab_entries``; ``bpe-mc-stats``);
    * ``last_merge`` -- the last merge still used (``bpe-mc-last-merge``);
    * ``chips`` -- the tokens as chips, hover for the id (``bpe-mc-chips``).

    State after each update: ``merges``, ``ids``, ``tokens``, ``numbers``, ``tokenizer``, ``name``, and
    ``message`` (the status line as plain text).
    Special-token text is encoded as ordinary text: special tokens are not merges.

    Switching tokenizer keeps the merge count (clamped to the new tokenizer's), except that "all"
    stays "all". A change made while an update runs (a slow first load of cl100k, say) is never
    lost: the update starts again until what it shows is what the controls say (the last value wins).
    """

    def __init__(self, tokenizers: Mapping[str, TokenizerSource], text: str = "", *,
                 choice: str | None = None, merges: int | None = None) -> None:
        if not tokenizers:
            raise ValueError("MergeCountSlider needs at least one tokenizer, e.g. {'GPT-2': bpe_course.gpt2()}")
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        self.sources: dict[str, TokenizerSource] = dict(tokenizers)
        if choice is not None and choice not in self.sources:
            raise ValueError(f"choice {choice!r} is not one of the tokenizers {list(self.sources)}")
        if merges is not None and (isinstance(merges, bool) or not isinstance(merges, int) or merges < 0):
            raise ValueError(f"merges must be a non-negative int (or None for all), got {merges!r}")
        self._loaded: dict[str, Tokenizer] = {}
        self._made: dict[str, list[int]] = {}
        self._encoded: OrderedDict[tuple[str, int, str], list[int]] = OrderedDict()
        self._wanted: int | None = merges  # the merge count asked for; None: all
        self._configured: str | None = None  # the tokenizer the slider's notches are laid out for
        self._syncing = self._updating = self._stale = False
        self.shown: Shown = {}
        self.notches: list[int] = []  # the slider's merge counts
        self.message = ""

        self.text = widgets.Textarea(value=text, placeholder="Type or paste any text here",
                                     layout=widgets.Layout(width="100%", height="70px")).add_class("bpe-mc-text")
        names = list(self.sources)
        self.choice = widgets.ToggleButtons(options=names, value=choice or names[0],
                                            style={"button_width": "auto"}).add_class("bpe-mc-choice")
        self.slider = widgets.SelectionSlider(options=[("0", 0)], value=0, description="merges",
                                              continuous_update=True, layout=widgets.Layout(width="520px")
                                              ).add_class("bpe-mc-slider")
        self.exact = widgets.BoundedIntText(value=0, min=0, max=0, description="exactly",
                                            layout=widgets.Layout(width="190px")).add_class("bpe-mc-exact")
        self.status = widgets.HTML().add_class("bpe-mc-status")
        self.stats = widgets.HTML().add_class("bpe-mc-stats")
        self.last_merge = widgets.HTML().add_class("bpe-mc-last-merge")
        self.chips = widgets.HTML(layout=widgets.Layout(width="100%")).add_class("bpe-mc-chips")
        self.widget = widgets.VBox([self.text, self.choice, widgets.HBox([self.slider, self.exact]), self.status,
                                    self.stats, self.last_merge, self.chips]).add_class("bpe-merge-count")

        self.slider.observe(self._on_slider, names="value")
        self.exact.observe(self._on_exact, names="value")
        self.choice.observe(self._on_choice, names="value")
        self.text.observe(lambda _change: self.update(), names="value")
        self.update()

    # ---- the controls ---------------------------------------------------------------------
    def _on_slider(self, change: dict) -> None:
        if not self._syncing:
            self._wanted = change["new"]
            self.update()

    def _on_exact(self, change: dict) -> None:
        if not self._syncing:
            self._wanted = change["new"]
            self.update()

    def _on_choice(self, change: dict) -> None:
        if not self._syncing:
            self.update()

    def set_merges(self, k: int) -> None:
        """Show ``k`` merges (any count; more than the tokenizer has means all), as typing it in ``exact``."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"the merge count must be a non-negative int, got {k!r}")
        self._wanted = k
        self.update()

    def tokenizer_named(self, name: str) -> Tokenizer:
        """The tokenizer behind a button, loaded (once) if it was given as a function."""
        if name not in self._loaded:
            source = self.sources[name]
            if not isinstance(source, Tokenizer):
                self._set_status("busy", f"loading {name}… (only the first time)")
                source = source()
                if not isinstance(source, Tokenizer):
                    raise TypeError(f"loading {name!r} gave {type(source).__name__}, not a bpe_course Tokenizer")
            self._loaded[name] = source
            self._made[name] = made_counts(source)
        return self._loaded[name]

    def _lay_out(self, name: str, n: int, k: int) -> None:
        """Lay the slider's notches out (plus ``k`` if it is not one) and set it and the exact box to ``k``.

        Notches change only for another tokenizer or a typed count that is no notch, never while the
        slider moves, so a key press in flight always means the notch the learner saw.

        subtle: changing a SelectionSlider's options resets it to the first one, firing its observers;
        ``_syncing`` tells them the change is ours. And ipywidgets 8.1's slider view does not widen or
        narrow its track when the options and the index change in one message, so the browser gets
        three: the index to 0, then the options (index still 0), then the index of ``k``.
        """
        self._syncing = True
        try:
            if self._configured != name or k not in self.notches:
                self.notches = sorted(set(merge_steps(n)) | {k})
                self.slider.index = 0
                with self.slider.hold_sync():
                    self.slider.options = [(step_label(s, n), s) for s in self.notches]
            self.slider.value = k
            with self.exact.hold_sync():
                self.exact.max = n
                self.exact.value = k
        finally:
            self._syncing = False
        self._configured = name

    # ---- updating ---------------------------------------------------------------------------
    def update(self) -> None:
        """Redraw for what the controls say now; again if they changed meanwhile (the last value wins)."""
        if self._updating:
            self._stale = True  # subtle: called from inside an update (a control moved meanwhile): redo after
            return
        self._updating = True
        try:
            while True:
                self._stale = False
                drawn = self._render()  # False when the chosen tokenizer did not load (the status says why)
                shown = (self.shown.get("name"), self.shown.get("merges"), self.shown.get("text"))
                if not self._stale and (not drawn or shown == (self.choice.value, self._wanted, self.text.value)):
                    break
        finally:
            self._updating = False

    def _render(self) -> bool:
        name, text = self.choice.value, self.text.value
        self._set_status("busy", f"updating: {name}…")
        try:
            tok = self.tokenizer_named(name)
        except (OSError, ValueError, TypeError) as exc:
            self._set_status("error", f"could not load {name}: {exc}")
            if self.shown and self.choice.value == name:  # the buttons go back to what is shown
                self._syncing = True
                try:
                    self.choice.value = self.shown["name"]
                finally:
                    self._syncing = False
            return False
        n = len(tok.merges)
        was, k = self.shown, self._wanted
        if k is None or k > n or (was and was["name"] != name and was["merges"] == was["n_merges"]):
            k = n  # subtle: "all" stays all when switching tokenizer, whatever the count was
        self._wanted = k
        self._lay_out(name, n, k)
        ids = self.encode(name, k, text)
        self.shown = {"name": name, "merges": k, "n_merges": n, "text": text, "ids": ids,
                      "numbers": text_measures(len(ids), text),
                      "vocab_entries": 256 + self._made[name][k] + len(tok.special_tokens)}
        self.stats.value = self._stats_html()
        self.last_merge.value = self._last_merge_html(tok, k)
        shown = ids[:MAX_CHIPS]
        more = f'<div style="color:#666">first {MAX_CHIPS:,} tokens shown</div>' if len(ids) > MAX_CHIPS else ""
        self.chips.value = chips_html(tok.token_bytes(shown), shown) + more
        self._set_status("ready", f"{name} with {k:,} of {n:,} merges")
        return True

    def encode(self, name: str, k: int, text: str) -> list[int]:
        """``tokenizer_named(name).truncated(k).encode_ordinary(text)``, computed cheaply and remembered."""
        key = (name, k, text)
        if key in self._encoded:
            self._encoded.move_to_end(key)
            return self._encoded[key]
        ids = self.tokenizer_named(name).encode_ordinary_truncated(text, k)
        self._encoded[key] = ids
        if len(self._encoded) > CACHE_SIZE:
            self._encoded.popitem(last=False)
        return ids

    def _set_status(self, kind: str, message: str) -> None:
        self.message = message
        mark = {"busy": "⏳", "ready": "✓", "error": "⚠"}[kind]
        self.status.value = (f'<span class="bpe-mc-{kind}" style="font-family:sans-serif;font-size:13px;'
                             f'color:{"#a00" if kind == "error" else "#555"}">{mark} {html.escape(message)}</span>')

    def _stats_html(self) -> str:
        s, vocab = self.numbers, self.shown["vocab_entries"]
        parts = [f'<span class="bpe-mc-tokens">{s["tokens"]:,}</span> tokens',
                 f'<span class="bpe-mc-words">{s["words"]:,}</span> words',
                 f'<span class="bpe-mc-tpw">{shown(s["tokens_per_word"])}</span> tokens per word',
                 f'<span class="bpe-mc-bpt">{shown(s["bytes_per_token"])}</span> bytes per token',
                 f'vocabulary <span class="bpe-mc-vocab">{vocab:,}</span>']
        return f'<div style="font-family:sans-serif;font-size:13px">{" · ".join(parts)}</div>'

    @staticmethod
    def _last_merge_html(tok: Tokenizer, k: int) -> str:
        if k == 0:
            return "<i>no merges: every byte is a token of its own</i>"
        a, b = (html.escape(token_label(x)) for x in tok.merges[k - 1])
        joined = html.escape(token_label(tok.merges[k - 1][0] + tok.merges[k - 1][1]))
        return f"the last merge kept, number {k:,}: <code>{a}</code> + <code>{b}</code> → <code>{joined}</code>"

    # ---- what is shown ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The tokenizer shown."""
        return self.shown["name"]

    @property
    def tokenizer(self) -> Tokenizer:
        """The whole tokenizer shown (all its merges; the chips use the first ``merges`` of them)."""
        return self._loaded[self.shown["name"]]

    @property
    def merges(self) -> int:
        """How many merges the shown tokens use."""
        return self.shown["merges"]

    @property
    def ids(self) -> list[int]:
        """The shown text's ids with the shown number of merges."""
        return self.shown["ids"]

    @property
    def tokens(self) -> list[bytes]:
        """The shown tokens' bytes."""
        return self.tokenizer.token_bytes(self.ids)

    @property
    def numbers(self) -> dict[str, float]:
        """Tokens, words, tokens per word and bytes per token of what is shown."""
        return self.shown["numbers"]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
