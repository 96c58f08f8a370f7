"""The "gpt2" format (bpe_course.formats.gpt2: encoder.json and vocab.bpe), checked with the real libraries that read them.

Every file we write is loaded by ``tiktoken`` and Hugging Face ``tokenizers`` and must give our ids; every file read back must give the same
tokenizer (vocab, merges, specials, pattern, ids)."""

from __future__ import annotations

import filecmp

import pytest
import tiktoken
import tiktoken.load
import tokenizers

from formats.samples import TEXT, assert_same_tokenizer, trained

from bpe_course import Tokenizer, TokenizerFileError, corpus, train_bpe
from bpe_course.formats.gpt2 import gpt2_file_texts
from bpe_course.pretrained import named_file


# ---- gpt2 --------------------------------------------------------------------------------------
def test_gpt2_files_written_back_byte_for_byte(saved_big):
    for name in ("encoder.json", "vocab.bpe"):
        assert filecmp.cmp(saved_big / "gpt2.gpt2" / name, named_file("gpt2", name), shallow=False)


def test_gpt2_format_round_trip_and_real_readers(tmp_path):
    tok = Tokenizer(*train_bpe(corpus.load("python_docs")[:60_000], 600, ["<|endoftext|>"]), ["<|endoftext|>"])
    tok.save(tmp_path, format="gpt2")
    assert_same_tokenizer(Tokenizer.load(tmp_path), tok)
    encoder, merges = str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")
    # tiktoken's reader expects GPT-2's byte order for single bytes unless told to take the file's ids
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(merges, encoder, clobber_one_byte_tokens=True)
    assert ranks == {t: i for i, t in tok.vocab.items() if i != 599}
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(encoder, merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)  # HF's GPT-2 regex
    assert hf.encode(TEXT).ids == tok.encode_ordinary(TEXT)


def test_gpt2_format_refuses_other_patterns(tmp_path):
    with pytest.raises(ValueError, match="no place for a pre-tokenization pattern"):
        trained("gpt4", True).save(tmp_path, format="gpt2")


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines.__setitem__(3, lines[3].replace(" ", "")), r"vocab\.bpe, line 4: expected two tokens"),
    (lambda lines: lines.__setitem__(3, lines[3].split(" ")[0] + " qqqqq"),
     r"vocab\.bpe, line 4: the merge's right part 'qqqqq' is not in the vocabulary"),
    (lambda lines: lines.__setitem__(-1, "Ġ"), r"vocab\.bpe, line \d+: the file ends without a newline"),
])
def test_gpt2_malformed_merges_name_the_line(tmp_path, damage, message):
    trained("gpt2", True).save(tmp_path, format="gpt2")
    merges = tmp_path / "vocab.bpe"
    lines = merges.read_text(encoding="utf-8").split("\n")
    damage(lines)
    merges.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=message):
        Tokenizer.load(tmp_path)


def test_gpt2_not_utf8_and_bad_json(tmp_path):
    trained("gpt2", True).save(tmp_path, format="gpt2")
    (tmp_path / "vocab.bpe").write_bytes(b"#version: 0.2\nh e\n\xff x\n")
    with pytest.raises(TokenizerFileError, match=r"vocab\.bpe: not valid UTF-8 at byte offset 18"):
        Tokenizer.load(tmp_path)
    (tmp_path / "encoder.json").write_text('{"a": 0, "b": ', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"encoder\.json: not valid JSON at line 1, column 15"):
        Tokenizer.load(tmp_path)


def test_a_gpt2_pair_that_does_not_belong_together_is_refused(tmp_path):
    text = corpus.load("python_docs")[:20_000]
    small, big = (Tokenizer(*train_bpe(text, n)) for n in (256 + 144, 256 + 244))
    small.save(tmp_path / "old", format="gpt2")
    big.save(tmp_path / "new", format="gpt2")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "vocab.bpe").write_bytes((tmp_path / "old" / "vocab.bpe").read_bytes())
    (mixed / "encoder.json").write_bytes((tmp_path / "new" / "encoder.json").read_bytes())
    with pytest.raises(TokenizerFileError, match=r"encoder\.json: token .* is made by no merge of .*vocab\.bpe .*do not "
                                                 r"belong together"):
        Tokenizer.load(mixed)
    (mixed / "vocab.bpe").write_bytes((tmp_path / "new" / "vocab.bpe").read_bytes())  # new merges, old encoder
    (mixed / "encoder.json").write_bytes((tmp_path / "old" / "encoder.json").read_bytes())
    with pytest.raises(TokenizerFileError, match=r"vocab\.bpe, line 146: the merge's result .* is not in the "
                                                 r"vocabulary \(.*encoder\.json\): the two files do not belong"):
        Tokenizer.load(mixed)


def test_gpt2_save_refuses_what_would_not_read_back(tmp_path):
    """GPT-2's files tell special tokens apart only by their look; what the rule would misread is not written."""
    vocab, merges = train_bpe("low low lower lowest", 260)
    for specials, extra, message in ((["ENDOFTEXT"], {}, r"special token 'ENDOFTEXT' \(id 260\) is made by no "
                                                         r"merge and is not written like a special token"),
                                     ([], {260: b"xyz"}, r"ordinary token 'xyz' \(id 260\) is made by no merge"),
                                     ([], {260: b"<b>"}, r"ordinary token '<b>' \(id 260\) is made by no merge, so "
                                                         r"GPT-2's files would read it back as a special token")):
        full = {**vocab, **extra, **{260 + k: s.encode() for k, s in enumerate(specials)}}
        with pytest.raises(ValueError, match=message):
            Tokenizer(full, merges, specials).save(tmp_path / "t", format="gpt2")
        assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())
    fine = Tokenizer({**vocab, 260: b"<|end|><|pad|>", 261: "\u2400".encode()}, merges, ["<|end|><|pad|>", "\u2400"])
    fine.save(tmp_path / "fine", format="gpt2")  # bracketed, or outside the byte alphabet: read back as specials
    assert_same_tokenizer(Tokenizer.load(tmp_path / "fine"), fine)


def test_pretrained_readers_are_importable_from_formats(gpt2_tok):
    from bpe_course.formats import gpt2_file_texts as public, read_gpt2_files, read_tiktoken_ranks  # noqa: F401
    assert public is gpt2_file_texts
    encoder_text, merges_text = gpt2_file_texts(gpt2_tok)
    assert merges_text.startswith("#version: 0.2\nĠ t\n") and encoder_text.endswith('"<|endoftext|>": 50256}')
