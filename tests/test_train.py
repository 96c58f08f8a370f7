"""Byte-level training: the fast trainer learns exactly the naive reference's merges."""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from strategies import tricky_corpus

from bpe_course import CorpusError, Tokenizer, count_pretokens, train_bpe


TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3

CODE = Path(__file__).read_text(encoding="utf-8")  # some Python source


def reference_merges(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    """The simplest possible BPE, written independently of the package: the whole text is one
    sequence of bytes except that merges may not cross a space-initial word boundary."""
    import regex
    from bpe_course import GPT2_PATTERN
    words = [[bytes([b]) for b in w.encode()] for w in regex.findall(GPT2_PATTERN, text)]
    merges = []
    for _ in range(n_merges):
        pairs = Counter(p for w in words for p in zip(w, w[1:]))
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        for w in words:
            i = 0
            while i < len(w) - 1:
                if (w[i], w[i + 1]) == best:
                    w[i:i + 2] = [w[i] + w[i + 1]]
                i += 1
    return merges


def test_toy_corpus_first_merges_by_hand():
    _, merges = train_bpe(TOY, 256 + 4)
    # ' w'... counts: "es" 9 (newest 6 + widest 3), "st" 9, " l" 7 ... ties go to the greatest pair.
    assert merges[0] == (b"s", b"t") and merges[1] == (b"e", b"st")
    assert merges == reference_merges(TOY, 4)


@pytest.mark.parametrize("vocab_size", [256, 300, 600])
@pytest.mark.parametrize("corpus", ["toy", "docs", "code"])
@pytest.mark.parametrize("specials", [(), ("<|endoftext|>", "<|pad|>")])
def test_fast_equals_naive(corpus, vocab_size, specials, docs_text):
    text = {"toy": TOY, "docs": docs_text[:60_000], "code": CODE}[corpus]
    if specials:
        text = "<|endoftext|>".join([text[:3000], text[3000:9000], "<|pad|>" + text[9000:]])
    fast = train_bpe(text, vocab_size + len(specials), specials, method="fast")
    naive = train_bpe(text, vocab_size + len(specials), specials, method="naive")
    assert fast == naive
    if not specials:
        assert fast[1] == reference_merges(text, vocab_size - 256)


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "none"])
def test_patterns_fast_equals_naive(pattern, docs_text):
    text = docs_text[:20_000] if pattern != "none" else docs_text[:3_000]
    assert train_bpe(text, 400, pattern=pattern) == train_bpe(text, 400, pattern=pattern, method="naive")


@settings(max_examples=1000, deadline=None)
@given(st.text(st.sampled_from("ab c\n'1é🙃"), max_size=60), st.integers(256, 300))
def test_fast_equals_naive_property(text, vocab_size):
    assert train_bpe(text, vocab_size) == train_bpe(text, vocab_size, method="naive")


def test_layout_and_specials_never_merge():
    text = "hello<|endoftext|>hello<|endoftext|>hello"
    vocab, merges = train_bpe(text, 256 + 10 + 1, ["<|endoftext|>"])
    assert [vocab[i] for i in range(256)] == [bytes([i]) for i in range(256)]
    assert all(vocab[256 + k] == a + b for k, (a, b) in enumerate(merges))
    assert vocab[max(vocab)] == b"<|endoftext|>"
    assert not any(b"<|" in a + b for a, b in merges)
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"])
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


def test_stops_when_no_pair_is_left():
    vocab, merges = train_bpe("abc", 1000)
    assert merges == [(b"b", b"c"), (b"a", b"bc")] and len(vocab) == 258


def test_empty_corpus_gives_byte_tokenizer():
    vocab, merges = train_bpe("", 1000, ["<|eos|>"])
    assert merges == [] and len(vocab) == 257
    assert Tokenizer(vocab, merges, ["<|eos|>"]).encode("hi") == [104, 105]


def test_sources_path_and_iterable_agree(tmp_path, docs_text):
    text = docs_text[:20_000]
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    assert train_bpe(path, 300) == train_bpe(text, 300)
    docs = text.split("\n\n")
    assert count_pretokens(docs) == sum((count_pretokens(d) for d in docs), Counter())


@pytest.mark.parametrize("size,specials,message", [
    (255, (), "at least 256"), (257, ("<|a|>", "<|b|>"), "at least 256 .* = 258")])
def test_vocab_size_too_small(size, specials, message):
    with pytest.raises(ValueError, match=message):
        train_bpe("text", size, specials)


def test_bad_arguments():
    with pytest.raises(TypeError, match="vocab_size must be an int"):
        train_bpe("text", 300.0)
    with pytest.raises(ValueError, match="method must be"):
        train_bpe("text", 300, method="quick")
    with pytest.raises(ValueError, match="distinct"):
        train_bpe("text", 300, ["<|a|>", "<|a|>"])
    with pytest.raises(TypeError, match="list of strings"):
        train_bpe("text", 300, "<|a|>")


def test_missing_and_non_utf8_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        train_bpe(tmp_path / "nope.txt", 300)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café au lait".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin1\.txt: not valid UTF-8 at byte offset 3"):
        train_bpe(bad, 300)


# ---- min_frequency and why training stopped ----------------------------------------------------
@pytest.mark.parametrize("min_frequency", [1, 2, 5])
def test_min_frequency_fast_equals_naive_with_counts_and_reason(docs_text, min_frequency):
    from bpe_course.train import train
    text = docs_text[:30_000]
    fast = train(text, 2000, min_frequency=min_frequency)
    naive = train(text, 2000, min_frequency=min_frequency, method="naive")
    assert fast == naive
    assert all(c >= min_frequency for c in fast.merge_counts)


def test_min_frequency_cuts_the_unrestricted_run_where_counts_drop(docs_text):
    """Training with min_frequency=N is the unrestricted run up to its first merge seen fewer than N times."""
    from bpe_course.train import STOP_NO_PAIR, STOP_VOCAB_SIZE, train
    text = docs_text[:30_000]
    full = train(text, 10_000)
    assert full.stop_reason == STOP_NO_PAIR and min(full.merge_counts) == 1
    first_rare = next(k for k, c in enumerate(full.merge_counts) if c < 3)
    cut = train(text, 10_000, min_frequency=3)
    assert cut.merges == full.merges[:first_rare] and cut.merge_counts == full.merge_counts[:first_rare]
    assert cut.stop_reason == (f"the most frequent pair left occurs {full.merge_counts[first_rare]} times, "
                               "fewer than min_frequency=3")
    assert train(text, 300).stop_reason == STOP_VOCAB_SIZE
    assert train_bpe(text, 10_000, min_frequency=3) == (cut.vocab, cut.merges)


def test_merge_counts_are_the_pair_counts_at_each_step():
    from bpe_course.pairs import apply_merge, count_pairs
    from bpe_course.train import train
    text = "low lower lowest newer newest wider widest " * 3
    run = train(text, 300)
    words = {tuple(bytes([b]) for b in w.encode()): n for w, n in count_pretokens(text).items()}
    for merge, count in zip(run.merges, run.merge_counts):
        assert count_pairs(words)[merge] == count
        words = apply_merge(words, merge)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_min_frequency_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="min_frequency must be a positive int"):
        train_bpe("low lower", 300, min_frequency=bad)


def test_training_on_a_file_does_not_hold_the_file(tmp_path, docs_text):
    """The same text four times over: the same distinct pre-tokens, so the same memory (the file is streamed)."""
    import subprocess
    import sys
    peaks = {}
    for copies in (1, 4):
        path = tmp_path / f"x{copies}.txt"
        path.write_text(docs_text * copies * 2, encoding="utf-8")
        code = ("import resource, sys, pathlib; from bpe_course import count_pretokens; "
                "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
                "count_pretokens(pathlib.Path(sys.argv[1]), workers=1); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)")
        done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
        peaks[copies] = int(done.stdout)
    one_copy_kb = len(docs_text.encode()) * 2 / 1024
    assert peaks[4] < peaks[1] + one_copy_kb, (peaks, one_copy_kb)  # 3 more copies of the text cost less than one


def test_a_leading_byte_order_mark_is_not_learned(tmp_path):
    text = "low lower lowest newer newest\n" * 40
    plain, marked = tmp_path / "plain.txt", tmp_path / "bom.txt"
    plain.write_text(text, encoding="utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    vocab, merges = train_bpe(marked, 300)
    assert (vocab, merges) == train_bpe(plain, 300)
    assert not any(b"\xef\xbb" in token for token in vocab.values())
    from bpe_course import corpus
    assert corpus.load_text(marked) == text


def test_each_door_checks_the_arguments_once_before_any_text_is_read(monkeypatch, tmp_path):
    train_module = importlib.import_module("bpe_course.train")  # the package's name `train` is the function
    calls = []
    real = train_module.check_special_tokens
    monkeypatch.setattr(train_module, "check_special_tokens", lambda *a: calls.append(1) or real(*a))
    assert train_bpe("low lower lowest", 260, ["<s>"]) == train_module.train("low lower lowest", 260, ["<s>"])[:2]
    assert calls == [1, 1]  # once for train_bpe, once for train: never again inside
    train_module.train_counts(count_pretokens("low lower"), 260, ["<s>"])
    assert len(calls) == 4  # count_pretokens' door, train_counts' door
    missing = Path(tmp_path / "missing.txt")
    for bad, message in ({"method": "quick"}, "method must be"), ({"min_frequency": 0}, "min_frequency must be"):
        with pytest.raises(ValueError, match=message):  # not FileNotFoundError: nothing was read yet
            train_bpe(missing, 300, **bad)


SPECIALS = ["<|endoftext|>", "<|end of text|>", "<|endoftext|><|endoftext|>"]


def test_file_and_text_train_the_same(docs_text, tmp_path):
    text = tricky_corpus(docs_text, seed=4)[:60_000]
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    assert train_bpe(path, 500, SPECIALS) == train_bpe(text, 500, SPECIALS)
