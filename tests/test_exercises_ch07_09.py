"""Exercise checkers of chapters 07-09: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

import regex

from bpe_course.bytelevel import BYTE_TO_UNICODE, str_to_token
from bpe_course.exercises import ch07, ch08, ch09
from bpe_course.pretokenize import GPT2_PATTERN


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


# ---- chapter 07 ---------------------------------------------------------------------------------

def test_feedback_shows_verdict_and_hint():
    good, bad = ch07.correct("fine."), ch07.wrong("wrong.", "try this.")
    assert bool(good) and not bad
    assert repr(good) == "✅ Correct: fine."
    assert repr(bad) == "❌ Not yet. wrong.\nHint: try this." == str(bad)


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


# ---- chapter 08 ---------------------------------------------------------------------------------

def test_number_groups():
    for pattern in (r"\d{1,3}", r"\p{N}{1,3}", r"[0-9]{1,3}", r"\d\d?\d?"):
        assert ch08.check_number_groups(pattern).ok, pattern
    unbounded = ch08.check_number_groups(r"\d+")
    assert not unbounded.ok and "['123', '456', '7']" in unbounded.message and "maximum" in unbounded.hint and "{1,3}" not in unbounded.hint
    from_right = ch08.check_number_groups(r"\d{1,3}(?=(?:\d{3})*(?!\d))")
    assert not from_right.ok and "groups start at the left" in from_right.hint
    not_digits = ch08.check_number_groups(r"\w{1,3}")
    assert not not_digits.ok and "digits only" in not_digits.hint
    bounded = ch08.check_number_groups(r"\b\d{1,3}")
    assert not bounded.ok and "not matched at all" in bounded.hint
    assert "does not compile" in ch08.check_number_groups(r"(\d{1,3}").message
    assert "capturing group" in ch08.check_number_groups(r"(\d){1,3}").message


def test_gpt2_pieces():
    text = "  Don't   STOP's!"
    right = regex.findall(GPT2_PATTERN, text)
    assert ch08.check_gpt2_pieces(text, right).ok
    apostrophe = ch08.check_gpt2_pieces(text, [" ", " Don't", "   ", "STOP", "'s", "!"])
    assert not apostrophe.ok and "piece 0 is right, but piece 1, \" Don't\"" in apostrophe.message
    assert "' Don'," not in apostrophe.message  # the right piece is not given away
    assert "apostrophe" in apostrophe.hint
    spaces = ch08.check_gpt2_pieces(text, [" ", " Don", "'t", "   ", "STOP", "'s", "!"])
    assert not spaces.ok and "pieces 0 to 2 are right, but piece 3, '   '" in spaces.message and "last space" in spaces.hint
    upper = ch08.check_gpt2_pieces("IT'S", ["IT", "'S"])
    assert not upper.ok and "lower case only" in upper.hint
    lost = ch08.check_gpt2_pieces(text, ["Don't", "STOP's!"])
    assert not lost.ok and "join to" in lost.message
    assert ch08.gpt4_pieces("IT'S") == ["IT", "'S"]


# ---- chapter 09 ---------------------------------------------------------------------------------

def test_parse_merge():
    def right(line: str) -> tuple[bytes, bytes]:
        left, right_half = line.split(" ")
        return str_to_token(left), str_to_token(right_half)

    assert ch09.check_parse_merge(right).ok
    assert ch09.check_parse_merge(lambda line: list(right(line))).ok  # a list is fine too
    strings = ch09.check_parse_merge(lambda line: tuple(line.split(" ")))
    assert not strings.ok and "('Ġ', 't')" in strings.message and "printable alphabet" in strings.hint
    utf8 = ch09.check_parse_merge(lambda line: tuple(part.encode() for part in line.split(" ")))
    assert not utf8.ok and "c4 a0" in utf8.hint
    joined = ch09.check_parse_merge(lambda line: (str_to_token(line.replace(" ", "")),))
    assert not joined.ok and "exactly two tokens" in joined.hint
    crash = ch09.check_parse_merge(lambda line: line.split(" ")[2])
    assert not crash.ok and "IndexError" in crash.message


def test_merge_rank(gpt2_tok):
    pair = (b" to", b"ken")
    rank = gpt2_tok.merges.index(pair)
    right = ch09.check_merge_rank(pair, rank)
    assert right.ok and f"id 256 + {rank}" in right.message
    as_id = ch09.check_merge_rank(pair, 256 + rank)
    assert not as_id.ok and "id of the merged token" in as_id.message
    assert str(rank) not in as_id.hint and "256 +" not in as_id.hint  # points, does not compute the answer
    as_line = ch09.check_merge_rank(pair, rank + 2)
    assert not as_line.ok and "line number" in as_line.message
    other = ch09.check_merge_rank(pair, 5)
    assert not other.ok and "position" in other.hint and "merges.index" not in other.hint
    assert "not one of GPT-2's merges" in ch09.check_merge_rank((b"x", b"yz!"), 3).message


def test_lookalike_fix():
    assert ch08.check_lookalike_fix(ch08.LOOKALIKE_FIXED).ok
    assert ch08.check_lookalike_fix(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\d+| ?[^\s\w\d]+|\s+""").ok  # letters only
    starter = ch08.check_lookalike_fix(ch08.LOOKALIKE)
    assert not starter.ok and "still splits like the write-up's pattern" in starter.message
    reordered = ch08.check_lookalike_fix(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\d+| ?\w+| ?[^\s\w\d]+|\s+""")
    assert not reordered.ok and "utf8" in reordered.message
    assert not ch08.check_lookalike_fix(r"(\d+)").ok and not ch08.check_lookalike_fix("(").ok


def test_newline_id():
    from bpe_course import bytes_to_unicode
    assert ch09.check_newline_id(lambda e: e[bytes_to_unicode()[10]]).ok
    fallback = ch09.check_newline_id(lambda e: e.get("\n", e["<|endoftext|>"]))
    assert not fallback.ok and "<|endoftext|>" in fallback.message and "198" not in fallback.hint
    hard_coded = ch09.check_newline_id(lambda e: 198)
    assert not hard_coded.ok and "shuffled" in hard_coded.message
    assert not ch09.check_newline_id(lambda e: 1 / 0).ok
