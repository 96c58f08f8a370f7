"""Chapter 9's checkers: right answers pass, typical wrong ones get specific feedback."""

from __future__ import annotations

from bpe_course.bytelevel import str_to_token
from bpe_course.exercises import ch09


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


def test_newline_id():
    from bpe_course import bytes_to_unicode
    assert ch09.check_newline_id(lambda e: e[bytes_to_unicode()[10]]).ok
    fallback = ch09.check_newline_id(lambda e: e.get("\n", e["<|endoftext|>"]))
    assert not fallback.ok and "<|endoftext|>" in fallback.message and "198" not in fallback.hint
    hard_coded = ch09.check_newline_id(lambda e: 198)
    assert not hard_coded.ok and "shuffled" in hard_coded.message
    assert not ch09.check_newline_id(lambda e: 1 / 0).ok
