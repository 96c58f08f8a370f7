"""Show tokens as coloured chips (HTML), the picture every chapter uses; and plain ticks for a log axis.

>>> html = chips_html([b"Hello", b" world"], ids=[15496, 995])
>>> "Hello" in html and 'title="id 995' in html
True
"""

from __future__ import annotations

import html as _html
import io
import math
from collections.abc import Sequence

# Eight light, distinct background colours; neighbouring tokens always differ.
PALETTE = ("#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#a0c4ff", "#ffadad")

# The most chips a widget draws: a long text is summed up in counts, and its chips stop here, so a 200 KB
# message is not 24 MB of HTML sent to the browser (issue 34). merge_count and playground stop at it too.
MAX_CHIPS = 1500

CHIP_STYLE = ("display:inline-block;margin:1px;padding:1px 3px;border-radius:4px;"
              "font-family:monospace;font-size:13px;white-space:pre;color:#000;background:{bg}")


def token_label(token: bytes | str) -> str:
    """How one token is written on its chip: visible spaces and newlines, bytes that are not
    whole UTF-8 characters as ``<0xNN>``.

    >>> token_label(b" the"), token_label(b"\\n"), token_label(b"\\xf0\\x9f")
    ('␣the', '↵', '<0xF0><0x9F>')
    """
    if isinstance(token, bytes):
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return "".join(f"<0x{b:02X}>" for b in token)
    else:
        text = token
    return text.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥").replace("\r", "␍")


ID_STYLE = "display:block;padding:0 2px;font-family:monospace;font-size:9px;line-height:1.1;color:#555"


def word_groups(tokens: Sequence[bytes | str]) -> list[list[int]]:
    """The positions of ``tokens``, grouped so a line may break only where the text has a space or a
    line break: a group starts at a token that begins with whitespace or follows one that ends with it,
    or with the end-of-word mark ``</w>`` of chapters 02-04's trainer.

    >>> word_groups([b"Hello", b",", b" un", b"low", b"ered", b" ", b"\\n", b"x"])
    [[0, 1], [2, 3, 4], [5], [6], [7]]
    >>> word_groups(["s", "p", "lit", "s</w>", "un", "f", "a</w>"])
    [[0, 1, 2, 3], [4, 5, 6]]
    """
    groups: list[list[int]] = []
    after_space = True
    for k, token in enumerate(tokens):
        text = token.decode("utf-8", "replace") if isinstance(token, bytes) else token
        if after_space or text[:1].isspace():
            groups.append([])
        groups[-1].append(k)
        after_space = text[-1:].isspace() or text.endswith("</w>")
    return groups


def chips_html(tokens: Sequence[bytes | str], ids: Sequence[int] | None = None, *, css_class: str = "bpe-chips",
               show_ids: bool = False, keep_words: bool = False, limit: int = MAX_CHIPS) -> str:
    """An HTML ``<div>`` with one coloured chip per token; hovering a chip shows its id.

    ``show_ids`` writes each id under its chip (as tiktokenizer lists them); ``keep_words`` lets a
    line break only between words (:func:`word_groups`), never inside one. Only the first ``limit``
    tokens are drawn, and a line says how many there are (:func:`more_line`).

    >>> print(chips_html([b" un", b"lowered"], [555, 17768], show_ids=True, keep_words=True))  # doctest: +ELLIPSIS
    <div class="bpe-chips" ...><span class="bpe-word-group" style="white-space:nowrap;..."><span class="bpe-chip-box" ...><span class="bpe-chip" ... data-id="555">␣un</span><span class="bpe-chip-id" ...>555</span></span><span class="bpe-chip-box" ...>...17768</span></span></span></div>
    """
    total = len(tokens)
    tokens = tokens[:limit]
    chips = []
    for k, token in enumerate(tokens):
        title = f' title="id {ids[k]}"' if ids is not None else ""
        id_attr = f' data-id="{ids[k]}"' if ids is not None else ""
        style = CHIP_STYLE.format(bg=PALETTE[k % len(PALETTE)])
        chip = f'<span class="bpe-chip" style="{style}"{title}{id_attr}>{_html.escape(token_label(token))}</span>'
        if show_ids and ids is not None:
            chip = (f'<span class="bpe-chip-box" style="display:inline-block;vertical-align:top;text-align:center">{chip}'
                    f'<span class="bpe-chip-id" style="{ID_STYLE}">{ids[k]}</span></span>')
        chips.append(chip)
    if keep_words:
        chips = ['<span class="bpe-word-group" style="white-space:nowrap;display:inline-block">'
                 + "".join(chips[k] for k in group) + "</span>" for group in word_groups(tokens)]
    return f'<div class="{css_class}" style="line-height:1.9">{"".join(chips)}</div>' + more_line(total, limit)


def more_line(total: int, limit: int = MAX_CHIPS) -> str:
    """The line under chips that stopped at ``limit`` of ``total`` tokens (nothing when all are drawn).

    >>> more_line(1200), more_line(2000, 1500)
    ('', '<div class="bpe-chips-more" style="color:#666">first 1,500 of 2,000 tokens shown</div>')
    """
    if total <= limit:
        return ""
    return f'<div class="bpe-chips-more" style="color:#666">first {limit:,} of {total:,} tokens shown</div>'


def encoded_chips_html(tokenizer, text: str, **encode_kwargs) -> str:
    """Encode ``text`` with a byte-level :class:`~bpe_course.Tokenizer` and draw it as chips."""
    ids = tokenizer.encode(text, **encode_kwargs)
    return chips_html(tokenizer.token_bytes(ids), ids)


def nice_ticks(lo: float, hi: float) -> list[float]:
    """Ticks for a log axis from ``lo`` to ``hi``: 1, 2 and 5 times each power of ten (..., 0.5, 1, 2, 5,
    10, 20, ...), so a ratio axis reads "1, 2, 5, 10, 20" rather than only 10⁰ and 10¹.

    >>> nice_ticks(0.8, 25)
    [1, 2, 5, 10, 20]
    >>> nice_ticks(0.3, 1.5)
    [0.5, 1]
    """
    if not 0 < lo <= hi:
        raise ValueError(f"a log axis needs 0 < lo <= hi, got lo={lo}, hi={hi}")
    ticks, power = [], 10.0 ** math.floor(math.log10(lo))
    while power <= hi:
        for m in (1, 2, 5):
            tick = round(m * power, 12)
            if lo <= tick <= hi:
                ticks.append(int(tick) if tick == int(tick) else tick)
        power *= 10
    return ticks


def nice_log_axis(ax, axis: str = "y") -> list[float]:
    """Put a matplotlib axis on a log scale with plain ticks at :func:`nice_ticks` over its range
    (call it after plotting); returns the ticks."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    getattr(ax, f"set_{axis}scale")("log")
    which = ax.yaxis if axis == "y" else ax.xaxis
    ticks = nice_ticks(*sorted(getattr(ax, f"get_{axis}lim")()))
    which.set_major_locator(FixedLocator(ticks))
    which.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    which.set_minor_formatter(NullFormatter())
    return ticks


def figure_png(fig, dpi: int = 80) -> bytes:
    """A matplotlib figure as PNG bytes, for an ``ipywidgets.Image`` (the widgets redraw their plots this way)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
