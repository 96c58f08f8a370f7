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
from hypothesis import given, settings, strategies as st

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
    """The same prose at 1 MB and 5 MB (many distinct words, so nothing is remembered whole)."""
    folder = tmp_path_factory.mktemp("texts")
    words = " ".join(corpus.load("python_docs").split())
    sizes = {}
    for mb in (1, 5):
        path = folder / f"{mb}mb.txt"
        with open(path, "w", encoding="utf-8") as f:
            for k in range(mb * 10**6 // len(words) + 1):
                f.write(f"part {k}: " + words + "\n")
        sizes[mb] = path
    return sizes


def gpt2_with_pattern(folder: Path, pattern: str) -> Path:
    tok = gpt2()
    path = folder / "tokenizer.json"
    Tokenizer(tok.vocab, tok.merges, tok.special_tokens, pattern=pattern).save(path, format="hf")
    return path


@pytest.fixture(scope="module")
def own_pattern_file(tmp_path_factory) -> Path:
    """GPT-2's vocabulary with GPT-2's pattern as Hugging Face writes it: a pattern of its own to the package."""
    return gpt2_with_pattern(tmp_path_factory.mktemp("tok"), GPT2_AS_WRITTEN_BY_HF)


@pytest.fixture(scope="module")
def uncuttable_file(tmp_path_factory) -> Path:
    """A pattern that keeps each word with the spaces after it: no place is known where its text may be cut."""
    return gpt2_with_pattern(tmp_path_factory.mktemp("tok"), r"\S+\s*|\s+")


def test_tekken_encodes_standard_input_and_files_in_flat_memory(texts, tmp_path):
    pytest.importorskip("mistral_common")
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", "tekken", "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", "tekken", "-")
    assert large < small + 30  # 4 MB more text; held whole, it took 17 MB a MB (68 MB more)
    out = tmp_path / "ids.npy"
    small = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[1]), "-o", str(out),
                        "--workers", "1")
    large = peak_rss_mb(Path(os.devnull), "encode", "--tokenizer", "tekken", "--input", str(texts[5]), "-o", str(out),
                        "--workers", "1", "--force")
    assert large < small + 30


def test_a_gpt_like_pattern_of_its_own_streams_in_flat_memory(texts, own_pattern_file):
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", str(own_pattern_file), "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", str(own_pattern_file), "-")
    assert large < small + 30  # held whole, its text, pieces and ids took 18 MB a MB (72 MB more)
    ids = subprocess.run([*MODULE, "encode", "--tokenizer", str(own_pattern_file), "-"], input=texts[1].read_bytes(),
                         capture_output=True, timeout=600, check=True).stdout.split()
    tok = Tokenizer.load(own_pattern_file)
    assert list(map(int, ids)) == tok.encode(texts[1].read_text(encoding="utf-8"), allowed_special="all")


def test_a_pattern_that_cannot_be_cut_holds_the_text_but_not_its_pieces_and_ids(texts, uncuttable_file):
    small = peak_rss_mb(texts[1], "encode", "--tokenizer", str(uncuttable_file), "-")
    large = peak_rss_mb(texts[5], "encode", "--tokenizer", str(uncuttable_file), "-")
    held = (sys.getsizeof(texts[5].read_text(encoding="utf-8")) - sys.getsizeof(texts[1].read_text(encoding="utf-8")))
    assert large - small < 3 * held / 2**20  # the text and its copy when joined (its pieces and ids as lists: 8x)


def test_streaming_a_pattern_of_its_own_equals_encoding_it_whole(own_pattern_file, uncuttable_file):
    text = ("It's 2024<|endoftext|> and  the  cat's\n\n 12 345 " * 20_000)
    lines = text.splitlines(keepends=True)
    for path in (own_pattern_file, uncuttable_file):
        tok = Tokenizer.load(path)
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


# ---- a pattern of its own is cut where its structure proves it safe ----------------------------------------
ATOMS = [" ", r"\s", r"\S", "a", "b", "[ab]", r"\w", ".", "[^a]", "!", r"\n", "[ a]", r"\p{L}", "[^\\s\\p{L}]"]
QUANTIFIERS = ["", "+", "*", "?", "{1,2}", "++", "*?"]


GPT_LIKE = [r" ?\w+", r" ?\p{L}+", r"\s+(?!\S)", r"\s+", r" ?[^\s\w]+", r"\s*\n", r" ?\S", r"'s|'t"]


@st.composite
def own_patterns(draw) -> str:
    alternatives = draw(st.lists(st.sampled_from(GPT_LIKE), max_size=4))
    for _ in range(draw(st.integers(0 if alternatives else 1, 3))):
        items = [draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)) for _ in range(draw(st.integers(1, 3)))]
        if draw(st.booleans()):
            items = ["(?:" + "|".join(items) + ")" + draw(st.sampled_from(["", "+", "?"]))]
        alternatives.append("".join(items) + draw(st.sampled_from(["", "", r"(?!\S)", "$", "(?=a)", r"(?=\s)"])))
    return "|".join(alternatives)


pieces_of_text = st.lists(st.sampled_from(["a", "b", " ", "  ", "\n", "!", "ab ", " a", "é", "\t", " ab", " b!", "a b",
                                          "'s"]), max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(own_patterns(), pieces_of_text, pieces_of_text, st.integers(0, 120))
def test_a_cut_found_in_a_buffer_is_safe_whatever_text_follows(pattern, buffer, more, limit):
    """The property streaming rests on, for random patterns: where safe_cut cuts a buffer, the pieces of
    the buffer with any text after it are the pieces of the two sides, each split alone."""
    from bpe_course.pretokenize import pretokenize, safe_cut
    cut = safe_cut(buffer, pattern, limit=limit)
    if cut:
        whole = buffer + more
        assert pretokenize(whole[:cut], pattern) + pretokenize(whole[cut:], pattern) == pretokenize(whole, pattern)


@pytest.mark.parametrize("pattern, cut", [
    (GPT2_AS_WRITTEN_BY_HF, True),  # Hugging Face's GPT-2
    (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|"
     r"\s+", True),  # Llama 3's (cl100k's, without possessive quantifiers)
    (r"\s*\S+", True), (r"\w+|.", True), (r"\s+$|.", True),
    (r"[^\n]+|\n", False), (r"\w+(?= )|\s", False), (r"(?<=a) ?\w+|\s", False), (r"\S+\s*", False), (r"\w+$|.", False),
    (r"(?x) \w+ | \s", False),
])
def test_which_patterns_of_their_own_are_cut(pattern, cut):
    from bpe_course.regex_syntax import can_cut_at_spaces
    assert can_cut_at_spaces(pattern) is cut

