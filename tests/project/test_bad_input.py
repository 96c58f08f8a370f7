"""Bad input to the engine: a clear error naming the problem, never a hang, a silent wrong answer or lost text."""

from __future__ import annotations

import base64
import importlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import regex
from hypothesis import HealthCheck, given, settings, strategies as st

from strategies import tricky_text, valid_text

from bpe_course import Tokenizer, TokenizerFileError, gpt2, train_bpe
from bpe_course.errors import CorpusError


SPECIAL = "<|endoftext|>"


@pytest.fixture(scope="module")
def small():
    """Trained with the special token's text as ordinary text, so "|>." and the like are tokens."""
    vocab, merges = train_bpe("low lower <|endoftext|>. lowest <|endoftext|>!\n newer " * 20, 330)
    vocab[len(vocab)] = SPECIAL.encode()
    return Tokenizer(vocab, merges, [SPECIAL])


# ---- special tokens -------------------------------------------------------------------------
def test_an_empty_special_token_is_refused_everywhere(small, tmp_path):
    vocab = dict(small.vocab)
    vocab[len(vocab)] = b""
    with pytest.raises(ValueError, match="non-empty str, got ''"):
        Tokenizer(vocab, small.merges, {"": len(vocab) - 1})
    with pytest.raises(ValueError, match="non-empty str, got ''"):
        Tokenizer(small.vocab, small.merges, [""])
    with pytest.raises(ValueError, match="non-empty str, got ''"):
        train_bpe("some text", 300, [""])
    small.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    data["special_tokens"] = {"": 9999}
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"t\.json: special_tokens: a special token must be a non-empty"):
        Tokenizer.load(tmp_path / "t.json")


def test_a_pattern_read_from_a_file_that_does_not_compile_names_the_file(small, tmp_path):
    small.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    data["pattern"] = "(unclosed"
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"t\.json: pre-tokenization pattern does not compile"):
        Tokenizer.load(tmp_path / "t.json")


# ---- encode_iterable == encode, in every special-token mode -----------------------------------
@pytest.fixture()
def short_stream_chunks(monkeypatch):
    import bpe_course.tokenizer as tokenizer_module
    monkeypatch.setattr(tokenizer_module, "STREAM_CHUNK", 7)  # look for a cut after a few characters


MODES = [dict(allowed_special="all"), dict(disallowed_special=()), dict(allowed_special="all", disallowed_special=()),
         dict(allowed_special={SPECIAL})]

# subtle: a special token's end is only tried as a cut when no space cut lies after it: hence the long tails
pieces = st.lists(st.one_of(tricky_text, st.sampled_from([SPECIAL, ".", " ", "\n", SPECIAL + ".", "a" + SPECIAL,
                                                           SPECIAL + "." + "z" * 16, SPECIAL + "!\n" * 9])),
                  max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=pieces, cuts=st.lists(st.integers(0, 400), max_size=6), mode=st.sampled_from(MODES))
def test_encode_iterable_equals_encode_in_every_mode(small, short_stream_chunks, parts, cuts, mode):
    text = "".join(parts)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    assert list(small.encode_iterable(chunks, **mode)) == small.encode(text, **mode)


def test_encode_iterable_with_specials_as_text_on_gpt2():
    """The case first seen: GPT-2, <|endoftext|> beside punctuation, cut into lines, encoded as text."""
    tok = gpt2()
    text = "".join(f"line {k}<|endoftext|>.\n" if k % 3 else f"x<|endoftext|>!{k}\n" for k in range(3000))
    lines = text.splitlines(keepends=True)
    assert list(tok.encode_iterable(lines, disallowed_special=())) == tok.encode(text, disallowed_special=())


# ---- a custom pattern never loses text -------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(valid_text, st.sampled_from([r"\w+", r"[a-z]+", r"\d", r"x*"]))
def test_a_pattern_that_does_not_cover_the_text_keeps_the_gaps(text, pattern):
    vocab, merges = train_bpe("ab ab abc a b! " * 3 + text, 280, pattern=pattern)
    tok = Tokenizer(vocab, merges, pattern=pattern)
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode(tok.encode("a b!")) == "a b!"


# ---- loose types are refused at the door -----------------------------------------------------
def test_decode_checks_its_ids(small):
    with pytest.raises(TypeError, match=r"token ids are integers; got 1\.0 \(float\) at position 0"):
        small.decode([1.0])
    with pytest.raises(TypeError, match="got True"):
        small.decode([True])
    with pytest.raises(ValueError, match="unknown token id 1000000000 at position 1"):
        small.decode(iter([104, 10**9]))
    assert small.decode(np.array([104, 105])) == "hi"


def test_the_constructor_checks_types(small):
    with pytest.raises(ValueError, match=r"vocab id '0' is not a non-negative int"):
        Tokenizer({str(i): t for i, t in small.vocab.items()}, small.merges)
    with pytest.raises(ValueError, match="vocab id -1 is not a non-negative int"):
        Tokenizer({**small.vocab, -1: b"zz"}, small.merges)
    with pytest.raises(ValueError, match=r"vocab\[0\] is '\\x00' \(str\), not bytes"):
        Tokenizer({i: t.decode("latin-1") for i, t in small.vocab.items()}, small.merges)
    with pytest.raises(ValueError, match=r"merge 0 is \('l', 'o'\), not a pair of bytes"):
        Tokenizer(small.vocab, [("l", "o")])


# ---- training --------------------------------------------------------------------------------
def test_a_str_that_names_a_file_is_not_trained_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("corpus.txt").write_text("low lower lowest " * 50, encoding="utf-8")
    with pytest.raises(ValueError, match=r"'corpus\.txt' is the name of a file.*pathlib\.Path\('corpus\.txt'\)"):
        train_bpe("corpus.txt", 300)
    assert train_bpe(Path("corpus.txt"), 300)[1][0] == (b"o", b"w")  # the file itself trains
    assert train_bpe(["corpus.txt"], 300)[1]  # a list of documents: the string itself, deliberately


def test_training_replaces_lone_surrogates_as_encoding_does():
    text = "abc" + chr(0xD800) + "abc " * 20
    assert train_bpe(text, 270) == train_bpe(text.replace(chr(0xD800), "\ufffd"), 270)


def test_vocab_size_may_be_a_numpy_integer():
    assert train_bpe("low lower " * 10, np.int64(260)) == train_bpe("low lower " * 10, 260)
    with pytest.raises(TypeError, match="vocab_size must be an int, got float"):
        train_bpe("low lower", 300.0)


def test_no_environment_leak():
    assert os.environ.get("BPE_COURSE_DEBUG") is None  # the CLI tests rely on one-line errors


# ---- long tokens: saving and loading a .tiktoken file is near-linear (issue 27) ---------------------
def one_letter_tokenizer(n: int) -> Tokenizer:
    vocab, merges = train_bpe(["a" * n], 2000, pattern=None)
    return Tokenizer(vocab, merges, pattern=None)


def doubling_tokenizer(k: int) -> Tokenizer:
    """a, aa, aaaa, ... a * 2**k: a hostile file whose tokens double in length."""
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for j in range(k):
        half = b"a" * (1 << j)
        merges.append((half, half))
        vocab[len(vocab)] = half + half
    return Tokenizer(vocab, merges, pattern=None)


@pytest.mark.parametrize("make", [lambda: one_letter_tokenizer(50_000), lambda: doubling_tokenizer(16)],
                         ids=["50,000 of one letter", "doubling tokens up to 65,536 bytes"])
def test_tiktoken_files_with_long_tokens_save_and_load_quickly(make, tmp_path):
    import time
    tok = make()
    assert max(map(len, tok.vocab.values())) >= 50_000
    started = time.perf_counter()
    tok.save(tmp_path / "long.tiktoken", format="tiktoken")
    back = Tokenizer.load(tmp_path / "long.tiktoken")
    seconds = time.perf_counter() - started
    assert back.vocab == tok.vocab and back.merges == tok.merges
    assert seconds < 20, f"{seconds:.1f} s"  # was minutes: BPE re-run quadratically on every long token


# ---- a pattern from a file that backtracks for ages (issue 27) ------------------------------------------
def test_a_backtracking_pattern_in_a_file_is_an_error_naming_the_file_and_the_pattern(small, tmp_path, monkeypatch):
    import time
    pretokenize_module = importlib.import_module("bpe_course.pretokenize")  # the package's name is a function
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.5)
    vocab = {i: bytes([i]) for i in range(256)}
    Tokenizer(vocab, [], pattern=r" ?\w+|\s+").save(tmp_path / "tokenizer.json", format="hf")
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a|a)+b|[^a]+|a"
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    tok = Tokenizer.load(tmp_path / "tokenizer.json")
    assert tok.decode(tok.encode("ab cab xy")) == "ab cab xy"  # short runs are fine
    started = time.perf_counter()
    with pytest.raises(TokenizerFileError, match=r"tokenizer\.json: pre-tokenization pattern '\(a\|a\)\+b\|\[\^a\]\+\|a' "
                                                 r"ran for more than 0\.5 s looking for one piece at character 4 "):
        tok.encode("xyz " + "a" * 60 + "c")
    assert time.perf_counter() - started < 30


def test_a_pattern_is_timed_per_piece_not_per_text(monkeypatch):
    from bpe_course.pretokenize import pretokenize
    pretokenize_module = importlib.import_module("bpe_course.pretokenize")  # the package's name is a function
    monkeypatch.setattr(pretokenize_module, "PIECE_SECONDS", 0.05)  # the whole text takes longer than this
    text = "one two, three  x* " * 20_000
    assert pretokenize(text, r"\w+|x*|\s") == [p for p in regex.split(r"(\w+|\s)", text) if p]


# ---- a file's name and its format agree (issue 27) ----------------------------------------------------
def test_a_tiktoken_name_saves_the_tiktoken_format_and_loads_back(tmp_path):
    tok = Tokenizer(*train_bpe("low lower lowest newer " * 20, 300), [])
    tok.save(tmp_path / "mine.tiktoken")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.tiktoken", "mine.tiktoken.json"]
    back = Tokenizer.load(tmp_path / "mine.tiktoken")
    assert (back.vocab, back.merges, back.pattern) == (tok.vocab, tok.merges, tok.pattern)


def test_a_name_that_loads_as_another_format_is_refused_before_writing(small, tmp_path):
    for name, implied in (("mine.tiktoken", "tiktoken"), ("mine.tiktoken.json", "tiktoken"), ("vocab.bpe", "gpt2")):
        with pytest.raises(ValueError, match=rf"{name}: Tokenizer.load would read this name as the '{implied}' format, "
                                             r"not 'bpe-course'"):
            small.save(tmp_path / name, format="bpe-course")
    assert list(tmp_path.iterdir()) == []
    small.save(tmp_path / "mine.json")  # any other name: the bpe-course format, as before
    assert Tokenizer.load(tmp_path / "mine.json").vocab == small.vocab


def test_a_json_file_named_tiktoken_says_how_to_load_it(small, tmp_path):
    from bpe_course.formats.native import to_json_text
    (tmp_path / "old.tiktoken").write_text(to_json_text(small), encoding="utf-8")  # what tok.save wrote before
    with pytest.raises(TokenizerFileError, match=r"old\.tiktoken: JSON, not a \.tiktoken file .* format='bpe-course'"):
        Tokenizer.load(tmp_path / "old.tiktoken")
    assert Tokenizer.load(tmp_path / "old.tiktoken", format="bpe-course").vocab == small.vocab


# ---- wrong JSON types and values in tokenizer files: an error naming the file (issue 27) ---------------------
def hf_file(tmp_path, change=None, text=None):
    vocab, merges = train_bpe("low lower lowest newer " * 20, 300)
    tok = Tokenizer(vocab | {300: b"<s>"}, merges, ["<s>"], pattern=r" ?\w+|\s+|.")
    tok.save(tmp_path / "tokenizer.json", format="hf")
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    if change:
        change(data)
    (tmp_path / "tokenizer.json").write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    return tmp_path / "tokenizer.json"


def steps(data):
    return data["pre_tokenizer"]["pretokenizers"]


@pytest.mark.parametrize("change, message", [
    (lambda d: d.__setitem__("pre_tokenizer", "ByteLevel"), r"pre_tokenizer is a string \('ByteLevel'\), not a JSON object"),
    (lambda d: d.__setitem__("pre_tokenizer", 3), r"pre_tokenizer is a number \(3\), not a JSON object"),
    (lambda d: d["pre_tokenizer"].__setitem__("pretokenizers", "ByteLevel"),
     r"pre_tokenizer\.pretokenizers is a string \('ByteLevel'\), not a JSON list of steps"),
    (lambda d: d["pre_tokenizer"].__setitem__("pretokenizers", {"a": 1}), r"pre_tokenizer\.pretokenizers is an object"),
    (lambda d: steps(d).__setitem__(0, "Split"), r"pre_tokenizer\.pretokenizers\[0\] is a string \('Split'\)"),
    (lambda d: steps(d).__setitem__(1, None), r"pre_tokenizer\.pretokenizers\[1\] is null \(None\)"),
    (lambda d: steps(d)[0]["pattern"].__setitem__("Regex", 5), r"pre_tokenizer: Split's pattern\.Regex is a number \(5\), not a regex"),
    (lambda d: steps(d)[0]["pattern"].__setitem__("Regex", ["a"]), r"pre_tokenizer: Split's pattern\.Regex is a list"),
    (lambda d: d["model"]["vocab"].__setitem__("low", 10**40), r"model\.vocab\['low'\]: id 1000.* is not an integer from 0 "
                                                                r"to 4294967295"),
    (lambda d: d["added_tokens"][0].__setitem__("id", 2**32), r"added_tokens\[0\]: expected an object with \"id\""),
    (lambda d: d["added_tokens"][0].__setitem__("content", "<\ud800>"),
     r"added_tokens: special token '<\\ud800>' has a lone surrogate \('\\ud800' at character 1\)"),
])
def test_wrong_json_types_and_values_in_an_hf_file_name_the_file(tmp_path, change, message):
    path = hf_file(tmp_path, change)
    with pytest.raises(TokenizerFileError, match=r"tokenizer\.json: " + message):
        Tokenizer.load(path)


def test_numbers_and_nesting_json_cannot_read_name_the_file(tmp_path):
    text = hf_file(tmp_path).read_text(encoding="utf-8")
    path = hf_file(tmp_path, text=text.replace('"low": ', '"low": ' + "9" * 5000 + ', "zz": ', 1))
    with pytest.raises(TokenizerFileError, match=r"tokenizer\.json: JSON this reader refuses: Exceeds the limit"):
        Tokenizer.load(path)
    for deep in ('{"model": ' * 100_000 + "1" + "}" * 100_000, "[" * 100_000 + "]" * 100_000):
        (tmp_path / "deep.json").write_text(deep, encoding="utf-8")
        with pytest.raises(TokenizerFileError, match=r"deep\.json: JSON nested too deeply to read"):
            Tokenizer.load(tmp_path / "deep.json", format="hf")
    (tmp_path / "deep.tiktoken").write_bytes(base64.b64encode(b"a") + b" 0\n")
    (tmp_path / "deep.tiktoken.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"deep\.tiktoken\.json: JSON nested too deeply to read"):
        Tokenizer.load(tmp_path / "deep.tiktoken")


@pytest.mark.parametrize("change, message", [
    (lambda d: d["vocab"].__setitem__("\u0663", "a"), r"vocab key '٣' is not a token id \(ASCII digits, 0 to 4294967295\)"),
    (lambda d: d["vocab"].__setitem__("9" * 5000, "a"), r"vocab key '9999.*\.\.\. \(5,002 characters\) is not a token id"),
    (lambda d: d["vocab"].__setitem__("+7", "a"), r"vocab key '\+7' is not a token id"),
    (lambda d: d["special_tokens"].__setitem__("<\ud800>", 999), r"special_tokens: special token '<\\ud800>' has a lone "
                                                                 r"surrogate"),
    (lambda d: d["special_tokens"].__setitem__("<x>", 2**32), r"special_tokens\['<x>'\] has id 4294967296, not an integer"),
])
def test_bad_values_in_a_native_file_name_the_file(small, tmp_path, change, message):
    small.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    change(data)
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"t\.json: " + message):
        Tokenizer.load(tmp_path / "t.json")


@pytest.mark.parametrize("rank", [b"\xd9\xa3", b"1_0", b"+5", b"9" * 11, b"4294967296"])
def test_a_tiktoken_rank_is_ascii_digits_within_32_bits(tmp_path, rank):
    from bpe_course.formats.tiktoken_bpe import load_tiktoken
    lines = [base64.b64encode(bytes([b])) + b" " + str(b).encode() for b in range(256)]
    lines.append(base64.b64encode(b"ab") + b" " + rank)
    (tmp_path / "r.tiktoken").write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(TokenizerFileError, match=r"r\.tiktoken, line 257: the rank is not ASCII digits from 0 to 4294967295"):
        load_tiktoken(tmp_path / "r.tiktoken", pattern="gpt2")


# ---- a learner's tokenizer of any depth: no recursion (issue 27) ----------------------------------------------
def test_a_merge_tree_10000_merges_deep_is_built_drawn_and_compared():
    from bpe_course.widgets.merge_trees import merge_tree, merge_tree_html, merge_tree_svg, tree_layout
    merges = [(b"a" * k, b"a") for k in range(1, 10_001)]  # (a, a), (aa, a), (aaa, a), ...: one token per depth
    token = b"a" * 10_001
    tree = merge_tree(token, merges)
    assert tree.height() == 10_000 and len(tree.leaves()) == 10_001 and len(tree.inner_nodes()) == 10_000
    assert tree == merge_tree(token, merges) and tree != merge_tree(token[:-1], merges)
    assert len(tree_layout(tree)) == 20_001
    assert merge_tree_html(tree).count("bpe-merge-node") == 20_001
    assert merge_tree_svg(tree).startswith("<svg")
    data = tree.to_data()
    assert data["rank"] == 9_999 and data["children"][1] == {"token": b"a", "rank": None, "children": []}
    assert repr(tree) == f"MergeNode(token={token!r}, rank=9999, children=({token[:-1]!r}, b'a'))"
    hash(tree)


# ---- the command line and the corpus readers: round 2 (issue 27) ------------------------------------------------
MODULE = [sys.executable, "-m", "bpe_course"]


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*MODULE, *args], capture_output=True, timeout=300, **kwargs)


def one_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, result.stderr.decode()[-2000:]
    return lines[0]


@pytest.fixture()
def text_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("low lower lowest newer wider <|endoftext|> " * 200, encoding="utf-8")
    return path


def test_a_device_is_refused_as_a_corpus_with_one_line_and_a_pipe_still_trains(tmp_path, text_file):
    for args in (["train", "/dev/zero", "--vocab-size", "300", "-o", str(tmp_path / "o")], ["stats", "/dev/zero"],
                 ["encode", "--input", "/dev/zero", "-o", str(tmp_path / "ids.npy")]):
        result = cli(*args)
        assert result.returncode == 1
        assert "/dev/zero is a character device, not a text file or a pipe" in one_line(result)
    assert not (tmp_path / "o").exists()  # a refused run leaves no empty folder behind
    with pytest.raises(CorpusError, match="/dev/zero is a character device"):
        train_bpe(Path("/dev/zero"), 300)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(text_file.read_bytes()))
    writer.start()
    result = cli("train", str(fifo), "--vocab-size", "300", "-o", str(tmp_path / "from_pipe"), "-q")
    writer.join()
    assert result.returncode == 0, result.stderr
    expected = Tokenizer(*train_bpe(text_file, 300))
    assert Tokenizer.load(tmp_path / "from_pipe").merges == expected.merges


PEAK_RSS = """import resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


def peak_rss_mb(stdin: Path, *args: str) -> int:
    status, mb = subprocess.run([sys.executable, "-c", PEAK_RSS, str(stdin), *MODULE, *args], capture_output=True,
                                text=True, timeout=600, check=True).stdout.split()
    assert status == "0"
    return int(mb)


def test_encode_from_standard_input_and_stats_stream_in_flat_memory(tmp_path, text_file):
    big = tmp_path / "big.txt"
    words = [f"w{k % 7919}x{k % 13}" for k in range(200_000)]
    with open(big, "w", encoding="utf-8") as f:
        for k in range(10):  # ~16 MB; holding its text and every id took over 300 MB
            f.write(" ".join(words[k:] + words[:k]) + "\n")
    # --specials allow: the sample types <|endoftext|>, which GPT-2's own library (tiktoken) refuses by default
    small_stdin = peak_rss_mb(text_file, "encode", "-", "--specials", "allow")
    small_stats = peak_rss_mb(Path(os.devnull), "stats", str(text_file))
    assert peak_rss_mb(big, "encode", "-", "--specials", "allow") < small_stdin + 60
    assert peak_rss_mb(Path(os.devnull), "stats", str(big)) < small_stats + 60
    ids = cli("encode", "-", "--specials", "allow", input=text_file.read_bytes()).stdout.split()
    assert list(map(int, ids)) == gpt2().encode(text_file.read_text(encoding="utf-8"), allowed_special="all")


def test_scale_takes_its_arguments_as_train_bpe_does(tmp_path, text_file):
    from bpe_course.scale import check_paths, train_with_dask
    with pytest.raises(TypeError, match="special_tokens must be a list of strings, not the string '<s>'"):
        train_with_dask([text_file], 300, "<s>")
    with pytest.raises(CorpusError, match=f"{tmp_path} is a directory, not a text file"):
        check_paths(str(tmp_path))  # a folder: one path, not the letters of its name
    with pytest.raises(CorpusError, match="/dev/zero is a character device"):
        check_paths(["/dev/zero"])
    with pytest.raises(FileNotFoundError, match="no such file: nope.txt"):
        check_paths("nope.txt")
    assert check_paths(str(text_file)) == [text_file]


@pytest.mark.parametrize("args", [
    ["train", "x.txt", "--vocab-size", "\u0663\u0660\u0660", "-o", "o"],  # Arabic-Indic 300
    ["train", "x.txt", "--vocab-size", "300", "--min-frequency", "\uff12", "-o", "o"],  # fullwidth 2
    ["train", "x.txt", "--vocab-size", "+300", "-o", "o"],
    ["encode", "--input", "x.txt", "-o", "ids.npy", "--workers", "\u0663"],
    ["decode", "\u0663"],
    ["decode", "9" * 5000],
])
def test_the_command_line_reads_only_ascii_numbers(capsys, args):
    from bpe_course.cli import main
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert re.search(r"error: .*(whole number|not a token id)", capsys.readouterr().err)


@pytest.fixture()
def no_long_work(monkeypatch):
    """The long work of encode --input and train, replaced by a failure: a refusal must come before it."""
    import bpe_course.cli as cli_module

    def long_work(*args, **kwargs):
        raise AssertionError("the long work started")
    monkeypatch.setattr(cli_module, "encode_files", long_work)
    monkeypatch.setattr(cli_module, "train", long_work)


def test_encode_checks_its_output_before_encoding_and_replaces_only_with_force(tmp_path, text_file, capsys,
                                                                                no_long_work):
    from bpe_course.cli import main
    (tmp_path / "ids.npy").write_bytes(b"the learner's own file")
    (tmp_path / "folder.npy").mkdir()
    for out, message in ((tmp_path / "folder.npy", "a folder; give the name of the file"),
                         (tmp_path / "missing" / "ids.npy", "the folder .*missing does not exist"),
                         (tmp_path / "ids.npy", "the file exists; pass --force to replace it")):
        assert main(["encode", "--input", str(text_file), "-o", str(out)]) == 1
        assert re.search(f"bpe-course: error: -o .*{message}", capsys.readouterr().err)
    assert (tmp_path / "ids.npy").read_bytes() == b"the learner's own file"


def test_encode_force_replaces_and_a_killed_encode_leaves_no_workers_and_its_litter_is_cleaned(tmp_path, text_file):
    (tmp_path / "ids.npy").write_bytes(b"old")
    assert cli("encode", "--input", str(text_file), "-o", str(tmp_path / "ids.npy"), "--force",
               "--specials", "allow").returncode == 0  # the sample types <|endoftext|>: tiktoken's default refuses it
    assert len(np.load(tmp_path / "ids.npy")) == len(gpt2().encode(text_file.read_text(encoding="utf-8"),
                                                                   allowed_special="all"))
    big = tmp_path / "big.txt"
    with open(big, "w", encoding="utf-8") as f:
        for k in range(40):
            f.write(" ".join(f"w{(k * 7 + j) % 10007}q" for j in range(100_000)) + "\n")
    proc = subprocess.Popen([*MODULE, "encode", "--input", str(big), "-o", str(tmp_path / "big.npy"), "--workers", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children_file = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while time.monotonic() < deadline and not workers and proc.poll() is None:
        time.sleep(0.05)
        workers = [int(p) for p in children_file.read_text().split()] if children_file.exists() else []
    assert workers, "the encoding workers never started"
    proc.kill()
    proc.wait()
    litter = list(tmp_path.glob(".encode-*"))
    assert litter  # the parts of the killed run
    for pid in workers:
        for _ in range(100):
            if not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"worker {pid} outlived its killed parent")
    assert cli("encode", "--input", str(text_file), "-o", str(tmp_path / "again.npy"), "--specials", "allow").returncode == 0
    assert list(tmp_path.glob(".encode-*")) == []  # the next run removed them


def test_train_gpt2_refuses_an_impossible_special_token_before_training(tmp_path, text_file, capsys, no_long_work):
    from bpe_course.cli import main
    out = tmp_path / "o"
    assert main(["train", str(text_file), "--vocab-size", "300", "--special", "EOT", "--format", "gpt2",
                 "-o", str(out)]) == 1
    assert re.search(r"bpe-course: error: --format gpt2: special token 'EOT' .* is not written like a special "
                     r"token \(<\.\.\.> or \[\.\.\.\]\).*use another --format", capsys.readouterr().err)
    assert not out.exists()


def test_two_trainings_into_one_folder_the_second_fails_with_one_line(tmp_path, text_file, capsys, no_long_work):
    from bpe_course.cli import main
    from bpe_course.files import folder_lock
    out = tmp_path / "o"
    out.mkdir()
    with folder_lock(out, RuntimeError, "a test holds"):  # what a first `bpe-course train -o o` holds while it works
        assert main(["train", str(text_file), "--vocab-size", "300", "-o", str(out)]) == 1
    assert capsys.readouterr().err == (f"bpe-course: error: another 'bpe-course train' is saving a tokenizer to {out} "
                                       "right now; wait for it to finish, or choose another folder\n")
    assert list(out.iterdir()) == []  # the lock is gone with its holder


def test_an_id_too_large_for_the_command_lines_arrays_is_refused_at_load(small, tmp_path):
    small.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    data["special_tokens"] = {SPECIAL: 2**32}
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    result = cli("encode", "--tokenizer", str(tmp_path / "t.json"), "hello")
    assert result.returncode == 1
    assert one_line(result).endswith(f"t.json: special_tokens['{SPECIAL}'] has id 4294967296, not an integer from 0 "
                                     "to 4294967295")


def test_encode_files_refuses_ids_its_arrays_cannot_hold_before_encoding(tmp_path, text_file):
    from bpe_course.encode_files import encode_files
    vocab = {i: bytes([i]) for i in range(256)} | {2**32: SPECIAL.encode()}
    tok = Tokenizer(vocab, [], {SPECIAL: 2**32})
    with pytest.raises(ValueError, match=r"token id 4294967296 does not fit the \.npy's uint32 ids"):
        encode_files(tok, [text_file], tmp_path / "ids.npy")
    assert list(tmp_path.iterdir()) == [text_file]
