"""GPT-2's printable alphabet for bytes, so that every token can be written as a string.

GPT-2 stores its vocabulary as JSON strings. Raw bytes such as a space or a newline would be
awkward there, so each of the 256 byte values is given a visible character: the printable
ASCII and Latin-1 bytes stand for themselves and the other 68 bytes (controls, space, ...) are
moved up to code points 256, 257, ... in byte order.

>>> BYTE_TO_UNICODE[ord(" ")], BYTE_TO_UNICODE[ord("\\n")], BYTE_TO_UNICODE[ord("A")]
('Ġ', 'Ċ', 'A')
>>> token_to_str(b" hello"), str_to_token("Ġhello")
('Ġhello', b' hello')
"""

from __future__ import annotations


def bytes_to_unicode() -> dict[int, str]:
    """Map every byte value 0..255 to a printable character (GPT-2's table)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    shifted = 0
    for b in range(256):
        if b not in table:
            # subtle: the unprintable bytes are numbered in byte order from 256 up.
            table[b] = chr(256 + shifted)
            shifted += 1
    return dict(sorted(table.items()))


BYTE_TO_UNICODE: dict[int, str] = bytes_to_unicode()
UNICODE_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_UNICODE.items()}


def token_to_str(token: bytes) -> str:
    """Write token bytes in GPT-2's alphabet."""
    return "".join(BYTE_TO_UNICODE[b] for b in token)


def str_to_token(text: str) -> bytes:
    """Inverse of :func:`token_to_str`; raises ValueError on a character outside the alphabet."""
    try:
        return bytes(UNICODE_TO_BYTE[c] for c in text)
    except KeyError as exc:
        raise ValueError(f"{text!r} is not in GPT-2's byte alphabet (character {exc.args[0]!r})") from None
