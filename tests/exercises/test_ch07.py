"""Chapter 7's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

from bpe_course.bytelevel import BYTE_TO_UNICODE
from bpe_course.exercises import ch07


def reference_utf8(code_point: int) -> bytes:
    """A hand-written UTF-8 encoder (the chapter's solution)."""
    if code_point < 0x80:
        return bytes([code_point])
    if code_point < 0x800:
        return bytes([0xC0 | code_point >> 6, 0x80 | code_point & 0x3F])
    if code_point < 0x10000:
        return bytes([0xE0 | code_point >> 12, 0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])
    return bytes([0xF0 | code_point >> 18, 0x80 | code_point >> 12 & 0x3F,
                  0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])


def test_utf8_length():
    text = "naïve café, 日本 🙃"
    right = ch07.check_utf8_length(text, len(text.encode("utf-8")))
    assert right.ok and "UTF-8 bytes" in right.message
    chars = ch07.check_utf8_length(text, len(text))
    assert not chars.ok and "number of characters" in chars.message
    assert "'ïé日本🙃'" in chars.hint  # names the characters that take more than one byte
    assert "too many" in ch07.check_utf8_length(text, 100).message
    assert "too few" in ch07.check_utf8_length(text, 17).message
    assert "no answer yet" in ch07.check_utf8_length(text, None).message


def test_byte_char():
    for byte in (0x00, 0x0A, 0x20, 0x41, 0x7F, 0xA0, 0xAD, 0xE9, 0xFF):
        assert ch07.check_byte_char(byte, BYTE_TO_UNICODE[byte]).ok
    own = ch07.check_byte_char(0xAD, chr(0xAD))
    assert not own.ok and "not printable" in own.message and "chr(256 + n)" in own.hint
    shifted = ch07.check_byte_char(0xAD, chr(256 + 0xAD))
    assert not shifted.ok and "only the unprintable bytes are counted" in shifted.message
    printable = ch07.check_byte_char(ord("A"), "Ġ")
    assert not printable.ok and "keeps its own character" in printable.message
    assert not ch07.check_byte_char(0x20, None).ok


def test_utf8_encoder():
    right = ch07.check_utf8_encoder(reference_utf8)
    assert right.ok and f"all {len(ch07.SAMPLE_CODE_POINTS)}" in right.message
    ascii_only = ch07.check_utf8_encoder(lambda cp: bytes([cp]))
    assert not ascii_only.ok and "U+0080" in ascii_only.message and "110xxxxx" in ascii_only.hint
    # a bug in the 3-byte case only: wrong mask on the middle byte
    def buggy(cp: int) -> bytes:
        if cp < 0x800:
            return reference_utf8(cp)
        if cp < 0x10000:
            return bytes([0xE0 | cp >> 12, 0x80 | cp >> 6, 0x80 | cp & 0x3F])
        return reference_utf8(cp)
    three = ch07.check_utf8_encoder(buggy)
    assert not three.ok and "(3 bytes)" in three.message and "ValueError" in three.message
    assert "mask with 0x3F" in three.hint
    crash = ch07.check_utf8_encoder(lambda cp: 1 / 0)
    assert not crash.ok and "ZeroDivisionError" in crash.message
