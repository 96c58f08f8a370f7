"""What the command line prints and reads (bpe_course.cli_output)."""

from __future__ import annotations


def test_find_first_finds_a_text_cut_by_a_block_edge(tmp_path):
    from bpe_course.cli_output import find_first
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes("no specials here, ünïcödé only ".encode() * 3)
    second.write_bytes("Grüße <|pa".encode() + b" <|endoftext|> then <|pad|>")
    specials = ["<|endoftext|>", "<|pad|>"]
    oracle = second.read_bytes().find(b"<|endoftext|>")
    for block in range(1, 40):  # the token falls across every possible edge
        assert find_first([first, second], specials, block=block) == (str(second), oracle, "<|endoftext|>"), block
    assert find_first([first], specials, block=3) is None
