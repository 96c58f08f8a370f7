"""Round 3 (issue 34), memory: the command streams tokenizers with a pattern of their own (Tekken in flat
memory; any other pattern holding only the text), the SentencePiece and Tekken readers refuse devices and
files larger than any model, and the widgets draw a bounded number of chips however long the text.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bpe_course import Tokenizer, TokenizerFileError, corpus, gpt2

MODULE = [sys.executable, "-m", "bpe_course"]
PEAK_RSS = """import resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""
GPT2_AS_WRITTEN_BY_HF = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def peak_rss_mb(stdin: Path, *args: str) -> int:
    status, mb = subprocess.run([sys.executable, "-c", PEAK_RSS, str(stdin), *MODULE, *args], capture_output=True,
                                text=True, timeout=900, check=True).stdout.split()
    assert status == "0"
    return int(mb)


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    """The same prose at 1 MB and 9 MB (many distinct words, so nothing is remembered whole)."""
    folder = tmp_path_factory.mktemp("texts")
    words = " ".join(corpus.load("python_docs").split())
    sizes = {}
    for mb in (1, 9):
        path = folder / f"{mb}mb.txt"
        with open(path, "w", encoding="utf-8") as f:
            for k in range(mb * 10**6 // len(words) + 1):
                f.write(f"part {k}: " + words + "\n")
        sizes[mb] = path
    return sizes


@pytest.fixture(scope="module")
def own_pattern_file(tmp_path_factory) -> Path:
    """GPT-2's vocabulary with GPT-2's pattern as Hugging Face writes it: a pattern of its own to the package."""
    tok = gpt2()
    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    Tokenizer(tok.vocab, tok.merges, tok.special_tokens, pattern=GPT2_AS_WRITTEN_BY_HF).save(path, format="hf")
    return path


def test_tekken_encodes_standard_input_and_files_in_flat_memory(texts, tmp_path):
    pytest.importorskip("mistral_common")
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", "tekken", "-")
    large = peak_rss_mb(texts[9], "encode", "--tokenizer", "tekken", "-")
    assert large < small + 40  # 8 MB more text; held whole, it took 17 MB a MB (136 MB more)
    out = tmp_path / "ids.npy"
    small = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[1]), "-o", str(out),
                        "--workers", "1")
    large = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[9]), "-o", str(out),
                        "--workers", "1", "--force")
    assert large < small + 40


def test_a_pattern_of_its_own_holds_the_text_but_not_its_pieces_and_ids(texts, own_pattern_file, tmp_path):
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", str(own_pattern_file), "-")
    large = peak_rss_mb(texts[9], "encode", "--tokenizer", str(own_pattern_file), "-")
    held = (sys.getsizeof(texts[9].read_text(encoding="utf-8")) - sys.getsizeof(texts[1].read_text(encoding="utf-8")))
    assert large - small < 3 * held / 2**20  # the text and its copy when joined (its pieces and ids as lists: 8x)
    ids = subprocess.run([*MODULE, "encode", "--tokenizer", str(own_pattern_file), "-"], input=texts[1].read_bytes(),
                         capture_output=True, timeout=600, check=True).stdout.split()
    tok = Tokenizer.load(own_pattern_file)
    assert list(map(int, ids)) == tok.encode(texts[1].read_text(encoding="utf-8"), allowed_special="all")


def test_streaming_a_pattern_of_its_own_equals_encoding_it_whole(own_pattern_file):
    tok = Tokenizer.load(own_pattern_file)
    text = ("It's 2024<|endoftext|> and  the  cat's\n\n 12 345 " * 20_000)
    lines = text.splitlines(keepends=True)
    for mode in ({"allowed_special": "all"}, {"disallowed_special": ()}):
        assert list(tok.encode_iterable(lines, **mode)) == tok.encode(text, **mode)
    with pytest.raises(ValueError, match="special token '<|endoftext|>' at character 9"):
        list(tok.encode_iterable(lines))


# ---- the model readers refuse what never ends, and what is larger than any model ------------------------
def readers():
    pytest.importorskip("sentencepiece")
    from bpe_course.mistral import read_tekken
    from bpe_course.sentencepiece_bpe import read_model
    return {"SentencePiece model": read_model, "Tekken file": read_tekken}


@pytest.mark.parametrize("what", ["SentencePiece model", "Tekken file"])
def test_a_device_or_a_huge_file_is_refused_unread_by_the_model_readers(tmp_path, what):
    read = readers()[what]
    with pytest.raises(TokenizerFileError, match=f"/dev/zero is a character device, not a {what} or a pipe"):
        read("/dev/zero")
    with pytest.raises(TokenizerFileError, match=f"{tmp_path} is a directory, not a {what}"):
        read(tmp_path)
    huge = tmp_path / "huge"
    with open(huge, "wb") as f:
        f.truncate(300 * 2**20)  # sparse: 300 MB to the reader, nothing on disk
    with pytest.raises(TokenizerFileError, match=f"huge: more than 268,435,456 bytes, larger than any {what}; not "
                                                 "read"):
        read(huge)


def test_a_pipe_is_still_read_by_the_model_readers(tmp_path):
    read = readers()["SentencePiece model"]
    from bpe_course.mistral import V1_FILE, mistral_file
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(mistral_file(V1_FILE).read_bytes()))
    writer.start()
    model = read(fifo)
    writer.join()
    assert len(model.pieces) == 32_000


# ---- widgets: a bounded number of chips, however long the text ------------------------------------------
def html_sizes(make_html, lengths=(20_000, 200_000)) -> list[int]:
    words = " ".join(corpus.load("python_docs").split())
    return [len(make_html(words[:n])) for n in lengths]


def test_the_chat_editor_draws_at_most_max_chips_for_a_long_message():
    pytest.importorskip("mistral_common")
    from bpe_course.viz import MAX_CHIPS
    from bpe_course.widgets.chat_prompt import ChatPromptEditor
    editor = ChatPromptEditor("user: hi", version="v3")

    def html(text):
        editor.messages.value = "user: " + text
        assert len(editor.ids) > 2 * MAX_CHIPS  # every id is still counted
        assert editor.chips.value.count('class="bpe-chip ') == MAX_CHIPS
        assert f"first {MAX_CHIPS:,} of {len(editor.ids):,} tokens shown" in editor.chips.value
        return editor.chips.value
    small, large = html_sizes(html)
    assert large < 1.1 * small  # was 24 MB for 200 KB, 10x the 20 KB one


def test_every_widget_drawing_chips_stops_at_max_chips():
    from bpe_course.variants import sweep_superbpe
    from bpe_course.viz import MAX_CHIPS, chips_html
    from bpe_course.widgets.superbpe import SuperBPEExplorer
    tokens = [b"a", b" b"] * 10_000
    drawn = chips_html(tokens, list(range(len(tokens))), show_ids=True, keep_words=True)
    assert drawn.count('class="bpe-chip"') == MAX_CHIPS and "first 1,500 of 20,000 tokens shown" in drawn
    runs = sweep_superbpe(corpus.load("python_docs")[:30_000], 200, [100, 200])
    explorer = SuperBPEExplorer(runs, {t: {"tokens per byte": 0.3, "bits per byte": 1.0} for t in runs})

    def html(text):
        explorer.text.value = text
        assert len(explorer.tokens) > MAX_CHIPS
        return explorer.chips.value
    small, large = html_sizes(html)
    assert large < 1.1 * small
