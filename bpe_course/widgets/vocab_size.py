"""Chapter 06: tokens per word against vocabulary size, as data, as a plot, and as a widget.

One training run per corpus gives every smaller vocabulary too: BPE's merges for a smaller
vocabulary are a prefix of those for a bigger one, so ``Tokenizer.truncated(k)`` is exactly what
training with ``k`` merges would give.

>>> merge_counts(0, 1000, 4)
[0, 179, 483, 1000]
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure

from .. import corpus
from ..tokenizer import Tokenizer
from ..train import train_bpe
from ..viz import figure_png
from ..measures import n_vocab, text_measures

# the chapter's own corpus first, then the others it measures
DEFAULT_CORPORA = ("don_quixote", "python_docs", "python_code", "languages")
MAX_MERGES = 8192
# The numbers' meanings are bpe_course.measures' (n_vocab: largest id + 1).
COLUMNS = ["corpus", "tokenizer", "merges", "n_vocab", "tokens", "words", "tokens_per_word", "bytes_per_token"]


@lru_cache(maxsize=8)
def trained_tokenizer(source: str, max_merges: int = MAX_MERGES, min_frequency: int = 1) -> Tokenizer:
    """A byte-level tokenizer (GPT-2 pattern) trained once on ``source``'s training part.

    With ``min_frequency`` it has fewer merges when the text runs out of pairs seen that often.
    """
    train, _ = corpus.train_heldout(source)
    vocab, merges = train_bpe(train, 256 + max_merges, min_frequency=min_frequency)
    return Tokenizer(vocab, merges)


def merge_counts(lo: int, hi: int, n_points: int = 10) -> list[int]:
    """About ``n_points`` merge counts from ``lo`` to ``hi``, evenly spaced on a log scale of
    vocabulary size (256 + merges), so they spread out on a log x axis."""
    if not 0 <= lo <= hi:
        raise ValueError(f"need 0 <= lo <= hi, got lo={lo}, hi={hi}")
    if n_points < 2 or lo == hi:
        return sorted({lo, hi})
    ratio = ((256 + hi) / (256 + lo)) ** (1 / (n_points - 1))
    return sorted({round((256 + lo) * ratio**i) - 256 for i in range(n_points)} | {lo, hi})


def measure(tok: Tokenizer, text: str) -> dict[str, float]:
    """:func:`~bpe_course.measures.text_measures` of ``text`` encoded by ``tok`` (special-token text as text)."""
    return text_measures(len(tok.encode_ordinary(text)), text)


def curve(tok: Tokenizer, heldout: str, merges: Iterable[int], name: str = "") -> pd.DataFrame:
    """One row per merge count: the truncated tokenizer's numbers on ``heldout``."""
    rows = []
    for k in merges:
        k = min(k, len(tok.merges))  # subtle: training can stop early, when no pair is left
        small = tok.truncated(k)
        rows.append({"corpus": name, "tokenizer": "trained", "merges": k, "n_vocab": n_vocab(small.vocab),
                     **measure(small, heldout)})
    return pd.DataFrame(rows, columns=COLUMNS).drop_duplicates("merges", ignore_index=True)


def reference_rows(heldout: str, references: Mapping[str, Tokenizer], name: str = "") -> pd.DataFrame:
    """The same numbers for ready-made tokenizers (GPT-2, GPT-4), at their vocabulary sizes.

    subtle: ``n_vocab`` is the largest id plus one, the rows an embedding matrix needs; cl100k has
    unused ids, so this is more than ``len(vocab)``.
    """
    rows = [{"corpus": name, "tokenizer": label, "merges": len(tok.merges), "n_vocab": n_vocab(tok.vocab),
             **measure(tok, heldout)} for label, tok in references.items()]
    return pd.DataFrame(rows, columns=COLUMNS)


def shortfall_note(source: str, learned: int, lo: int, hi: int, min_frequency: int) -> str:
    """What to say when a corpus learned fewer merges than the range asks for ("" when it has enough).

    >>> shortfall_note("languages", 521, 1024, 5056, 5)  # doctest: +NORMALIZE_WHITESPACE
    'languages has no pair seen at least 5 times after 521 merges, so its curve stops there (vocabulary 777),
     before this range starts: it shows one point, outside the range.'
    >>> shortfall_note("python_docs", 8192, 0, 8192, 1)
    ''
    """
    if learned >= hi:
        return ""
    rule = f"no pair seen at least {min_frequency} times" if min_frequency > 1 else "no pair left to merge"
    where = ("before this range starts: it shows one point, outside the range" if learned < lo
             else f"short of the range's end ({hi:,} merges)")
    return (f"{source} has {rule} after {learned:,} merges, so its curve stops there "
            f"(vocabulary {256 + learned:,}), {where}.")


def corpus_tokenizer(source: str, hi: int = MAX_MERGES, max_merges: int = MAX_MERGES,
                     trained: Mapping[str, Tokenizer] | None = None, min_frequency: int = 1) -> Tokenizer:
    """The tokenizer a corpus's curve is cut from: ``trained[source]`` if given, else trained (cached)."""
    return (trained or {}).get(source) or trained_tokenizer(source, max(max_merges, hi), min_frequency)


def vocab_size_data(sources: Sequence[str], lo: int = 0, hi: int = MAX_MERGES, n_points: int = 10,
                    references: Mapping[str, Tokenizer] | None = None, max_merges: int = MAX_MERGES,
                    trained: Mapping[str, Tokenizer] | None = None, min_frequency: int = 1) -> pd.DataFrame:
    """Curves for several corpora plus the reference tokenizers' points. Each corpus is trained
    once, for ``max_merges`` merges of pairs seen at least ``min_frequency`` times (cached; or
    taken from ``trained``, keyed by corpus), and truncated to each merge count in ``lo..hi`` --
    never beyond the merges it really learned."""
    frames = []
    for source in sources:
        _, heldout = corpus.train_heldout(source)
        tok = corpus_tokenizer(source, hi, max_merges, trained, min_frequency)
        frames.append(curve(tok, heldout, merge_counts(lo, hi, n_points), source))
        if references:
            frames.append(_cached_references(source, references))
    return pd.concat(frames, ignore_index=True)


_REFERENCE_CACHE: dict[tuple[str, str, int], pd.DataFrame] = {}


def _cached_references(source: str, references: Mapping[str, Tokenizer]) -> pd.DataFrame:
    parts = []
    for label, tok in references.items():
        key = (source, label, id(tok))
        if key not in _REFERENCE_CACHE:
            _REFERENCE_CACHE[key] = reference_rows(corpus.train_heldout(source)[1], {label: tok}, source)
        parts.append(_REFERENCE_CACHE[key])
    return pd.concat(parts, ignore_index=True)


def plot_vocab_size(data: pd.DataFrame, title: str = "Vocabulary size against tokens on held-out text") -> Figure:
    """Two panels, log x axis: tokens per word and bytes per token; references as marked points
    with a dotted line at their level. Returns the figure (not shown through pyplot)."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    colours = dict(zip(data["corpus"].unique(), ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")))
    markers: dict[str, str] = {}
    for ax, column, label in zip(axes, ("tokens_per_word", "bytes_per_token"),
                                 ("tokens per word (lower is better)", "bytes per token (higher is better)")):
        for source, rows in data.groupby("corpus", sort=False):
            colour = colours[source]
            trained = rows[rows["tokenizer"] == "trained"]
            ax.plot(trained["n_vocab"], trained[column], "o-", color=colour, label=f"{source}: trained BPE")
            for _, ref in rows[rows["tokenizer"] != "trained"].iterrows():
                marker = markers.setdefault(ref["tokenizer"], "s^Dv"[len(markers) % 4])
                ax.axhline(ref[column], color=colour, linestyle=":", linewidth=1)
                ax.plot([ref["n_vocab"]], [ref[column]], marker, color=colour, markersize=8,
                        label=f"{source}: {ref['tokenizer']}")
        ax.set_xscale("log")
        ax.set_xlabel("vocabulary size (256 bytes + merges), log scale")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    return fig


def explorer_title(source: str, lo: int, hi: int, learned: int) -> str:
    """The explorer's plot title; it says so when the corpus learned fewer merges than the range's end.

    >>> explorer_title("languages", 1024, 5056, 521)
    'languages: 1024–5056 merges, held-out text (it learned only 521)'
    """
    return f"{source}: {lo}–{hi} merges, held-out text" + (f" (it learned only {learned:,})" if learned < hi else "")


class VocabSizeExplorer:
    """Choose a corpus and a range of merge counts; the plot and ``.data`` follow.

    Parts: ``.corpus`` (Dropdown, CSS ``bpe-corpus-choice``), ``.range`` (IntRangeSlider of merge
    counts, ``bpe-range``), ``.status`` (a Label that says when it is working, ``bpe-vocab-status``),
    ``.note`` (HTML, ``bpe-vocab-note``: says when the corpus ran out of merges before the range's end,
    else empty; the same sentence is ``.shortfall``), ``.image`` (the plot as PNG, ``bpe-vocab-plot``),
    ``.data`` (the plotted numbers, a DataFrame), ``.learned`` (the merges the chosen corpus's tokenizer
    has), ``.figure``, ``.box``. A change made while an update runs is drawn right after it: the plot
    always ends on the last choice. ``trained`` (``{corpus: Tokenizer}``) hands over tokenizers already
    trained (for ``max_merges``, at ``min_frequency``), so they are not trained again.
    """

    def __init__(self, corpora: Sequence[str] = DEFAULT_CORPORA, max_merges: int = MAX_MERGES,
                 references: Mapping[str, Tokenizer] | None = None, n_points: int = 10,
                 min_frequency: int = 1, *, value: str | None = None,
                 trained: Mapping[str, Tokenizer] | None = None) -> None:
        self.max_merges, self.references, self.n_points = max_merges, references, n_points
        self.min_frequency, self.trained = min_frequency, dict(trained or {})
        if value is not None and value not in corpora:
            raise ValueError(f"value {value!r} is not one of the corpora {list(corpora)}")
        self.corpus = widgets.Dropdown(options=list(corpora), value=value or corpora[0],
                                       description="corpus").add_class("bpe-corpus-choice")
        self.range = widgets.IntRangeSlider(value=(0, max_merges), min=0, max=max_merges, step=16,
                                            description="merges", continuous_update=False,
                                            layout=widgets.Layout(width="500px")).add_class("bpe-range")
        self.image = widgets.Image(format="png").add_class("bpe-vocab-plot")
        self.status = widgets.Label("").add_class("bpe-vocab-status")
        self.note = widgets.HTML("").add_class("bpe-vocab-note")
        self._holding = False
        self.corpus.observe(lambda _: self.update(), names="value")
        self.range.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([widgets.HBox([self.corpus, self.range, self.status]), self.note, self.image])
        self.update()

    def show(self, corpus: str | None = None, merges: tuple[int, int] | None = None) -> None:
        """Set the corpus and the range together, redrawing once (as the user would in two steps)."""
        self._holding = True
        try:
            if corpus is not None:
                self.corpus.value = corpus
            if merges is not None:
                self.range.value = merges
        finally:
            self._holding = False
        self.update()

    def update(self) -> None:
        """Recompute ``.data`` for the chosen corpus and range, and redraw."""
        if self._holding:
            return
        chosen = (self.corpus.value, self.range.value)
        (source, (lo, hi)) = chosen
        self.status.value = f"training and measuring {source}…"
        try:
            self.data = vocab_size_data([source], lo, hi, self.n_points, self.references, self.max_merges,
                                        trained=self.trained, min_frequency=self.min_frequency)
            self.learned = len(corpus_tokenizer(source, hi, self.max_merges, self.trained, self.min_frequency).merges)
            self.shortfall = shortfall_note(source, self.learned, lo, hi, self.min_frequency)
            self.figure = plot_vocab_size(self.data, explorer_title(source, lo, hi, self.learned))
            self.image.value = figure_png(self.figure)
            self.note.value = (f'<span style="color:#8a4b00">⚠ {html.escape(self.shortfall)}</span>'
                               if self.shortfall else "")
        finally:
            self.status.value = ""
        if (self.corpus.value, self.range.value) != chosen:  # subtle: changed while we drew: draw the latest
            self.update()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
