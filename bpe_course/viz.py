"""Show tokens as coloured chips (HTML), the picture every chapter uses.

>>> html = chips_html([b"Hello", b" world"], ids=[15496, 995])
>>> "Hello" in html and 'title="id 995' in html
True
"""

from __future__ import annotations

import html as _html
from collections.abc import Sequence

# Eight light, distinct background colours; neighbouring tokens always differ.
PALETTE = ("#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#a0c4ff", "#ffadad")

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


def chips_html(tokens: Sequence[bytes | str], ids: Sequence[int] | None = None, *, css_class: str = "bpe-chips") -> str:
    """An HTML ``<div>`` with one coloured chip per token; hovering a chip shows its id."""
    chips = []
    for k, token in enumerate(tokens):
        title = f' title="id {ids[k]}"' if ids is not None else ""
        id_attr = f' data-id="{ids[k]}"' if ids is not None else ""
        style = CHIP_STYLE.format(bg=PALETTE[k % len(PALETTE)])
        chips.append(f'<span class="bpe-chip" style="{style}"{title}{id_attr}>{_html.escape(token_label(token))}</span>')
    return f'<div class="{css_class}" style="line-height:1.9">{"".join(chips)}</div>'


def encoded_chips_html(tokenizer, text: str, **encode_kwargs) -> str:
    """Encode ``text`` with a byte-level :class:`~bpe_course.Tokenizer` and draw it as chips."""
    ids = tokenizer.encode(text, **encode_kwargs)
    return chips_html(tokenizer.token_bytes(ids), ids)
