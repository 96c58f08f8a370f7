"""Widgets for chapters 2 and 3: watch pair counts and merges, one step or one slider notch at a time.

Both widgets are plain objects holding ipywidgets parts, so they can be driven from Python
(and tested) exactly as a learner drives them with the mouse:

>>> w = PairExplorer("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3)
>>> w.step()
('t', '</w>')
>>> w.merge_button.click(); w.merges
[('t', '</w>'), ('s', 't</w>')]
>>> "st&lt;/w&gt;" in w.words_html.value and "bpe-pair-bar" in w.bars_html.value
True
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import ipywidgets as widgets

from ..viz import chips_html
from ..algorithms.wordbpe import Pair, Word, apply_merge, best_pair, count_pairs, top_pairs, word_counts
from ..measures import n_vocab, shown, tokens_per_word, words

BAR_COLOUR, BEST_COLOUR = "#a0c4ff", "#ffadad"


def pair_label(pair: Pair) -> str:
    """How a pair is written on a bar: its two symbols with a visible plus between them.

    >>> pair_label(("t", "</w>"))
    't + </w>'
    """
    return f"{pair[0]} + {pair[1]}"


def pair_bars_html(top: list[tuple[Pair, int]]) -> str:
    """A horizontal bar chart built from divs: one row per pair, the best (first) one highlighted.

    Each row carries ``data-pair`` and ``data-count`` so tests and browsers can read the numbers.

    >>> html_text = pair_bars_html([(("a", "b"), 4), (("b", "c"), 2)])
    >>> html_text.count('class="bpe-pair-bar"'), 'data-count="2"' in html_text
    (2, True)
    >>> pair_bars_html([])
    '<div class="bpe-pair-bars"><i>no adjacent pairs left: every word is a single symbol</i></div>'
    """
    if not top:
        return '<div class="bpe-pair-bars"><i>no adjacent pairs left: every word is a single symbol</i></div>'
    highest = top[0][1]
    rows = []
    for rank, (pair, count) in enumerate(top):
        width = max(2, round(100 * count / highest))
        colour = BEST_COLOUR if rank == 0 else BAR_COLOUR
        label = html.escape(pair_label(pair))
        rows.append(
            f'<div class="bpe-pair-bar" data-pair="{html.escape(repr(pair))}" data-count="{count}" '
            'style="display:flex;align-items:center;margin:1px 0;font-family:monospace;font-size:13px">'
            f'<span style="width:11em;text-align:right;padding-right:6px;white-space:pre">{label}</span>'
            f'<span style="display:inline-block;width:{width * 2.5:.0f}px;height:14px;background:{colour}"></span>'
            f'<span style="padding-left:6px">{count}</span></div>'
        )
    return f'<div class="bpe-pair-bars">{"".join(rows)}</div>'


def word_list_html(words: Mapping[Word, int], max_words: int = 12) -> str:
    """The most frequent words with their current segmentation as chips and their counts.

    >>> "×5" in word_list_html({("l", "ow", "</w>"): 5})
    True
    """
    ranked = sorted(words.items(), key=lambda item: (-item[1], item[0]))[:max_words]
    rows = [
        '<div class="bpe-word-row" style="display:flex;align-items:center">'
        f'<span style="width:4em;font-family:monospace">×{count}</span>{chips_html(list(word), css_class="bpe-word")}</div>'
        for word, count in ranked
    ]
    hidden = len(words) - len(ranked)
    more = f'<div style="color:#666">… and {hidden} more words</div>' if hidden > 0 else ""
    return f'<div class="bpe-word-list" style="margin-left:2em">{"".join(rows)}{more}</div>'


class PairExplorer:
    """Count pairs, show the top ones as bars, and apply the best merge one click at a time.

    ``corpus`` is text (split on whitespace, ``</w>`` appended) or ready ``{word: count}``.
    The rule is exactly ``WordBPE.train``'s: the highest count wins, ties go to the
    lexicographically greatest pair, and nothing is merged once no pair occurs twice.

    Parts: ``merge_button`` ("apply best merge"), ``reset_button``, ``bars_html`` (top pairs),
    ``words_html`` (segmentations), ``status`` (what just happened), ``widget`` (the whole box).
    State: ``words`` (current segmentations with counts) and ``merges`` (applied so far).
    """

    def __init__(self, corpus: str | Mapping[Word, int], top_n: int = 10, max_words: int = 12) -> None:
        self.initial_words: dict[Word, int] = word_counts(corpus) if isinstance(corpus, str) else dict(corpus)
        self.top_n, self.max_words = top_n, max_words
        self.merge_button = widgets.Button(description="apply best merge", button_style="primary")
        self.merge_button.add_class("bpe-merge-button")
        self.reset_button = widgets.Button(description="reset")
        self.reset_button.add_class("bpe-reset-button")
        self.bars_html = widgets.HTML()
        self.bars_html.add_class("bpe-pair-bars-view")
        self.words_html = widgets.HTML()
        self.words_html.add_class("bpe-word-list-view")
        self.status = widgets.HTML()
        self.status.add_class("bpe-merge-status")
        self.merge_button.on_click(lambda _button: self.step())
        self.reset_button.on_click(lambda _button: self.reset())
        self.widget = widgets.VBox([
            widgets.HBox([self.merge_button, self.reset_button, self.status]),
            widgets.HBox([self.bars_html, self.words_html]),
        ])
        self.widget.add_class("bpe-pair-explorer")
        self.reset()

    def reset(self) -> None:
        """Back to single characters, no merges."""
        self.words = dict(self.initial_words)
        self.merges: list[Pair] = []
        self.counts = count_pairs(self.words)
        self._render("Every word is split into characters plus &lt;/w&gt;. Click <b>apply best merge</b>.")

    def best(self) -> Pair | None:
        """The pair the next step would merge, or None if no pair occurs at least twice."""
        if not self.counts:
            return None
        pair = best_pair(self.counts)
        return pair if self.counts[pair] >= 2 else None

    def step(self) -> Pair | None:
        """Apply the best merge everywhere and return it (None, changing nothing, if training would stop)."""
        pair = self.best()
        if pair is None:
            self._render("No pair occurs at least twice: training stops here.")
            return None
        count = self.counts[pair]
        self.words = apply_merge(self.words, pair)
        self.merges.append(pair)
        self.counts = count_pairs(self.words)
        new = html.escape(pair[0] + pair[1])
        self._render(f"Merge {len(self.merges)}: <code>{html.escape(pair_label(pair))}</code> → "
                     f"<code>{new}</code> (it occurred {count:,} times).")
        return pair

    def _render(self, message: str) -> None:
        self.bars_html.value = pair_bars_html(top_pairs(self.counts, self.top_n))
        self.words_html.value = word_list_html(self.words, self.max_words)
        self.status.value = f'<span class="bpe-merge-message">{message}</span>'
        self.merge_button.disabled = self.best() is None

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class MergeSlider:
    """Re-tokenize a sample text live as a slider sets how many merges the tokenizer may use.

    ``bpe`` is a trained ``WordBPE`` (or a byte-level ``Tokenizer``: anything with ``truncated(k)``
    and ``merges``). Parts: ``slider`` (0..len(bpe.merges), CSS ``bpe-merge-slider``, wide enough
    for one merge per few pixels), ``exact`` (a number box for any count, ``bpe-merge-exact``),
    ``back`` / ``forward`` (one merge less / more, ``bpe-merge-back`` / ``bpe-merge-forward``),
    ``text`` (the sample, ``bpe-sample-text``), ``chips`` (tokens as chips, ``bpe-chips``), ``stats``
    (vocab size and tokens per word, ``bpe-stats``), ``last_merge`` and ``widget``. The slider, the
    box and the buttons always show the same count.
    """

    def __init__(self, bpe, sample_text: str, merges: int | None = None) -> None:
        self.bpe = bpe
        self._truncated: dict[int, object] = {}
        n = len(bpe.merges)
        self.slider = widgets.IntSlider(value=n if merges is None else merges, min=0, max=n,
                                        description="merges", continuous_update=True,
                                        layout=widgets.Layout(width="520px"))
        self.slider.add_class("bpe-merge-slider")
        self.exact = widgets.BoundedIntText(value=self.slider.value, min=0, max=n, description="exactly",
                                            layout=widgets.Layout(width="170px")).add_class("bpe-merge-exact")
        self.back = widgets.Button(description="◀ −1", tooltip="one merge less",
                                   layout=widgets.Layout(width="60px")).add_class("bpe-merge-back")
        self.forward = widgets.Button(description="+1 ▶", tooltip="one merge more",
                                      layout=widgets.Layout(width="60px")).add_class("bpe-merge-forward")
        self.text = widgets.Text(value=sample_text, description="text", layout=widgets.Layout(width="95%"))
        self.text.add_class("bpe-sample-text")
        self.chips, self.stats, self.last_merge = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.chips.add_class("bpe-chips")
        self.stats.add_class("bpe-stats")
        self.last_merge.add_class("bpe-last-merge")
        self.slider.observe(lambda _change: self.update(), names="value")
        self.exact.observe(lambda change: self.set_merges(change["new"]), names="value")
        self.back.on_click(lambda _button: self.set_merges(self.slider.value - 1))
        self.forward.on_click(lambda _button: self.set_merges(self.slider.value + 1))
        self.text.observe(lambda _change: self.update(), names="value")
        self.widget = widgets.VBox([self.text, widgets.HBox([self.slider, self.back, self.forward, self.exact]),
                                    self.stats, self.last_merge, self.chips])
        self.widget.add_class("bpe-merge-slider-box")
        self.update()

    def set_merges(self, k: int) -> None:
        """Show ``k`` merges (kept within 0..all), as the slider, the box or a button would."""
        self.slider.value = max(self.slider.min, min(self.slider.max, k))

    def tokenizer_at(self, k: int):
        """``bpe.truncated(k)``, remembered so sliding back and forth is instant."""
        if k not in self._truncated:
            self._truncated[k] = self.bpe.truncated(k)
        return self._truncated[k]

    def tokens_at(self, k: int, text: str | None = None) -> tuple[list, list[int]]:
        """The sample's tokens (symbols for WordBPE, bytes for a Tokenizer) and ids with ``k`` merges."""
        tok, text = self.tokenizer_at(k), self.text.value if text is None else text
        if hasattr(tok, "tokenize"):  # character-level WordBPE
            symbols = tok.tokenize(text)
            return symbols, [tok.token_to_id[s] for s in symbols]
        ids = tok.encode_ordinary(text)
        return tok.token_bytes(ids), ids

    def stats_at(self, k: int, text: str | None = None) -> dict[str, float]:
        """``n_vocab``, ``tokens``, ``words`` and ``tokens_per_word`` of the sample with ``k`` merges
        (the meanings of :mod:`bpe_course.measures`)."""
        text = self.text.value if text is None else text
        tokens, _ = self.tokens_at(k, text)
        return {"n_vocab": n_vocab(self.tokenizer_at(k).vocab), "tokens": len(tokens), "words": words(text),
                "tokens_per_word": tokens_per_word(len(tokens), text)}

    def update(self) -> None:
        """Redraw the chips, the stats line and the last merge for the current slider and text."""
        k = self.slider.value
        self.exact.value = k
        self.back.disabled, self.forward.disabled = k <= self.slider.min, k >= self.slider.max
        tokens, ids = self.tokens_at(k)
        self.chips.value = chips_html(tokens, ids, keep_words=True)  # a word's chips stay on one line
        s = self.stats_at(k)
        self.stats.value = (f'<span class="bpe-stats-line">vocab size {s["n_vocab"]} · {s["tokens"]} tokens '
                            f'for {s["words"]} words · {shown(s["tokens_per_word"])} tokens per word</span>')
        if k == 0:
            self.last_merge.value = "<i>no merges: single characters</i>"
        else:
            a, b = self.bpe.merges[k - 1]
            left, right = (html.escape(x.decode("utf-8", "replace") if isinstance(x, bytes) else x) for x in (a, b))
            self.last_merge.value = f"merge {k}: <code>{left} + {right}</code> → <code>{left}{right}</code>"

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
