"""What the speed-ups must not change: counts, merges, ids, and bounded memory (no timings here)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_course import Tokenizer, count_pretokens, tokenizer, train_bpe
from bpe_course.fast import count as fast_count, parallel as parallel_count
from bpe_course.fast.count import SegmentCounter, count_ordinary_text
from bpe_course.bpe import byte_ranker, merge_by_rank, merge_bytes
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, pretokenize, split_specials
from bpe_course.unicode_classes import TABLE_OF_CLASS, exact_pattern, fast_splitter
from strategies import TRICKY_PIECES, tricky_text

SPECIALS = ["<|endoftext|>", "<|end of text|>", "<|endoftext|><|endoftext|>"]
PATTERNS = [GPT2_PATTERN, GPT4_PATTERN]


def reference_counts(text: str, specials=(), pattern=GPT2_PATTERN) -> Counter:
    """Counting the obvious way: split out the specials, run the pattern over every piece."""
    counts = Counter()
    for piece, is_special in split_specials(text, specials):
        if not is_special:
            counts.update(pretokenize(piece, pattern))
    return counts


def tricky_corpus(docs_text: str, seed: int = 0) -> str:
    """Prose with special tokens, odd whitespace and rare characters sprinkled in."""
    rng = random.Random(seed)
    paragraphs = docs_text.split("\n\n")
    extras = TRICKY_PIECES + SPECIALS + [" \n", "\n ", "  \t", "\u3000x", "x\u00a0y", "\U0002CEA2 z", " 'll"]
    for k in range(0, len(paragraphs), 3):
        paragraphs[k] = rng.choice(extras) + paragraphs[k] + rng.choice(extras)
    return "\n\n".join(paragraphs)


# ---- counting ----------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tricky_text, max_size=6).map(" ".join), st.sampled_from(PATTERNS))
def test_segment_counting_equals_pretokenize(text, pattern):
    assert count_ordinary_text(text, pattern) == Counter(pretokenize(text, pattern))


@pytest.mark.parametrize("pattern", PATTERNS)
def test_parallel_counting_equals_serial_with_specials_and_tricky_whitespace(docs_text, pattern):
    text = tricky_corpus(docs_text)
    expected = reference_counts(text, SPECIALS, pattern)
    for workers in (1, 2, 3):
        assert count_pretokens(text, SPECIALS, pattern, workers=workers) == expected


@pytest.mark.parametrize("pattern", PATTERNS)
def test_file_counting_in_blocks_and_workers_equals_serial(docs_text, tmp_path, monkeypatch, pattern):
    # Small blocks so that block ends fall inside words, multi-byte characters and special tokens.
    monkeypatch.setattr(parallel_count, "STREAM_BYTES", 4099)
    text = tricky_corpus(docs_text, seed=1)
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    expected = reference_counts(text, SPECIALS, pattern)
    for workers in (1, 2, 3):
        assert count_pretokens(path, SPECIALS, pattern, workers=workers) == expected


def test_counting_other_patterns_and_documents(docs_text):
    text = tricky_corpus(docs_text)[:50_000]
    for pattern in (r"\w+|\W", None):
        assert count_pretokens(text, SPECIALS, pattern, workers=2) == reference_counts(text, SPECIALS, pattern)
    docs = text.split("\n\n")
    assert count_pretokens(docs, SPECIALS) == sum((reference_counts(d, SPECIALS) for d in docs), Counter())


def test_segment_blocks_do_not_change_counts(docs_text, monkeypatch):
    monkeypatch.setattr(fast_count, "BLOCK_CHARS", 997)
    text = tricky_corpus(docs_text, seed=2)[:100_000].replace("<|", "< |")
    for pattern in PATTERNS:
        counter = SegmentCounter(pattern)
        counter.add(text)
        assert counter.finish(Counter()) == Counter(pretokenize(text, pattern))


def test_white_space_is_the_patterns_white_space():
    every = "".join(map(chr, range(0x3001)))
    ours = set(regex.findall(f"[{fast_count.WHITE_SPACE}]", every))
    assert ours == set(regex.findall(r"\s", "".join(map(chr, range(0x110000)))))
    from bpe_course import unicode_tables
    spans = [run.partition("-") for run in unicode_tables.WHITESPACE.split()]
    assert {chr(c) for a, _, b in spans for c in range(int(a, 16), int(b or a, 16) + 1)} == ours


@settings(max_examples=200, deadline=None)
@given(tricky_text, st.sampled_from(PATTERNS))
def test_pretokenize_fast_path_equals_tiktoken_tables(text, pattern):
    """The plain pattern, used when no character needs tiktoken's tables, splits as the tables do."""
    assert pretokenize(text, pattern) == exact_pattern(pattern).findall(text)


# ---- training ---------------------------------------------------------------------------------
@pytest.mark.parametrize("corpus,specials,vocab_size", [
    ("docs", (), 600), ("docs", tuple(SPECIALS), 550), ("tricky", tuple(SPECIALS), 500), ("runs", (), 400)])
def test_fast_equals_naive(docs_text, corpus, specials, vocab_size):
    text = {"docs": docs_text[:20_000], "tricky": tricky_corpus(docs_text[:25_000], seed=3),
            "runs": "aaaa ababab aaaaaaa abababa " * 50 + "=" * 300 + " -- " * 40 + "\n\n\n  " * 30}[corpus]
    assert train_bpe(text, vocab_size, specials) == train_bpe(text, vocab_size, specials, method="naive")


def test_file_and_text_train_the_same(docs_text, tmp_path):
    text = tricky_corpus(docs_text, seed=4)[:60_000]
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    assert train_bpe(path, 500, SPECIALS) == train_bpe(text, 500, SPECIALS)


# ---- encoding ---------------------------------------------------------------------------------
def test_encoder_cache_is_bounded(gpt2_tok, tiktoken_gpt2, monkeypatch):
    monkeypatch.setattr(tokenizer, "CACHE_LIMIT", 100)
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    rng = random.Random(5)
    for size in (30, 80, 150, 500, 40):  # some calls alone hold more distinct pieces than the limit
        words = [" " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
                 for _ in range(size)]
        text = "".join(words)
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
        assert len(tok._cache) <= 100


def test_encoder_cache_across_texts_split_three_ways(gpt2_tok, tiktoken_gpt2):
    """Latin-1 text, BMP text and text that needs tiktoken's tables share one cache of pieces: a
    piece's ids depend on the piece alone, however its text was split."""
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    texts = ["a\U0002CEA2:A b", "x \U0002CEA2:A", "\U0002CEA2:A", "x:A b caf\u00e9", "A\u0295b x:A \U0001F642"]
    for text in texts + texts[::-1]:
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([" the", " cat", "sat", ".", "\n", " on", " mat", "é", " zebra", "  "]),
                         max_size=12).map("".join), min_size=1, max_size=6))
def test_encoder_cache_across_calls_all_known_or_not(gpt2_tok, tiktoken_gpt2, texts):
    """Calls whose pieces are all known (taken without the set of new pieces), partly known, or new."""
    tok = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    for text in texts + texts[::-1]:
        assert tok.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


# Characters beyond the BMP that tiktoken counts as letters, digits or marks (the splitter's exact
# path), and some it counts as symbols (the fast path): emoji, a flag's tag characters.
ASTRAL_PIECES = ["\U0001D400", "\U0001D7D8\U0001D7D9", "\U00020000\U0002A6D6", "\U0002CEA2", "e\U000E0100",
                 "\U00010400\U00010428", "\U0001F642", "\U0001F3F4\U000E0067\U000E0062\U000E007F", "\U00010107"]
latin1_text = st.text(st.characters(max_codepoint=0xFF), max_size=40)
astral_text = st.lists(st.one_of(st.sampled_from(ASTRAL_PIECES + TRICKY_PIECES), st.text(max_size=3)),
                       max_size=16).map("".join)
# contractions, letter cases, digits after a space, newlines, runs of white space
CONTEXTS = ["x'{}s", "a{}B", " {}1", "{}\n ", "  {}x"]


def class_edges() -> set[int]:
    """Every first and last character of a run of tiktoken's tables, and its neighbours."""
    from bpe_course import unicode_tables
    edges = set()
    for table in TABLE_OF_CLASS.values():
        for run in getattr(unicode_tables, table).split():
            for end in run.split("-"):
                edges.update(int(end, 16) + d for d in (-1, 0, 1))
    return edges


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN])
def test_fast_splitter_equals_tiktoken_tables(pattern):
    """Both of its forms, in the contexts each class matters in: the Latin-1 one on every character it
    is used for, the BMP one on the edges of every class and a sample (and on some symbols beyond the
    BMP); the next test checks every BMP character against tiktoken's ids."""
    for below, sample in ((0x100, range(0x100)), (0x10000, {*range(0, 0x10000, 7), *class_edges()})):
        chars = [chr(c) for c in sorted(sample) if c < below and not 0xD800 <= c < 0xE000]
        if below > 0x100:
            chars += ["\U0001F642", "\U000E0067", "\U0001F1EB"]  # symbols to tiktoken too
        text = "".join(context.format(ch) for ch in chars for context in CONTEXTS)
        assert fast_splitter(pattern, below).findall(text) == exact_pattern(pattern).findall(text)


def test_every_bmp_character_encodes_as_tiktoken(gpt2_tok, cl100k_tok, o200k_tok, tiktoken_gpt2, tiktoken_cl100k,
                                                tiktoken_o200k):
    text = "".join(context.format(chr(c)) for c in range(0x10000) if not 0xD800 <= c < 0xE000
                   for context in CONTEXTS)
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k), (o200k_tok, tiktoken_o200k)):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(latin1_text, astral_text))
def test_latin1_and_astral_text_encode_as_tiktoken(gpt2_tok, cl100k_tok, o200k_tok, tiktoken_gpt2,
                                                   tiktoken_cl100k, tiktoken_o200k, text):
    """The splitter's three paths: Latin-1 text, BMP text, text with letters beyond the BMP."""
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k), (o200k_tok, tiktoken_o200k)):
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


@settings(max_examples=500, deadline=None)
@given(st.binary(min_size=1, max_size=40))
def test_merge_bytes_is_merge_by_rank(gpt2_tok, piece):
    ranks = gpt2_tok.first_merge_ranks()
    expected = merge_by_rank([piece[i:i + 1] for i in range(len(piece))], byte_ranker(ranks))
    assert merge_bytes(piece, ranks) == expected
    assert merge_bytes(piece, gpt2_tok._rank) == expected  # ranked by id: the same order


def test_ids_that_do_not_follow_the_merges(gpt2_tok, docs_text):
    """Ids in any order: pairs are then ranked by merge, not by id, and the ids are those of the vocab."""
    shuffled = list(gpt2_tok.vocab)
    random.Random(8).shuffle(shuffled)
    new_id = dict(zip(gpt2_tok.vocab, shuffled))
    tok = Tokenizer({new_id[i]: t for i, t in gpt2_tok.vocab.items()}, gpt2_tok.merges,
                    {s: new_id[i] for s, i in gpt2_tok.special_tokens.items()})
    assert tok._rank is not tok._id_of
    text = tricky_corpus(docs_text, seed=9)[:100_000] + "\U0001F642" * 100 + " x" * 70
    assert tok.encode_ordinary(text) == [new_id[i] for i in gpt2_tok.encode_ordinary(text)]


@pytest.mark.parametrize("text", ["\U0001F642" * 3000, "ab" * 4000, "a" * 5001, "\U0001F642a\u00e9" * 700,
                                  "x" + "\U0001F469\u200d\U0001F469\u200d\U0001F467" * 500])
def test_long_pieces_equal_tiktoken(gpt2_tok, cl100k_tok, tiktoken_gpt2, tiktoken_cl100k, text):
    for ours, theirs in ((gpt2_tok, tiktoken_gpt2), (cl100k_tok, tiktoken_cl100k)):
        fresh = Tokenizer(ours.vocab, ours.merges, ours.special_tokens, ours.pattern)
        assert fresh.encode_ordinary(text) == theirs.encode_ordinary(text)


def test_prose_equals_tiktoken(gpt2_tok, tiktoken_gpt2, docs_text):
    fresh = Tokenizer(gpt2_tok.vocab, gpt2_tok.merges, gpt2_tok.special_tokens)
    text = tricky_corpus(docs_text, seed=6)
    assert fresh.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
    assert fresh.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)  # warm: from the cache


def test_stream_file_equals_encode(gpt2_tok, docs_text, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(tricky_corpus(docs_text, seed=7)[:200_000], encoding="utf-8")
    with open(path, encoding="utf-8") as lines:
        streamed = list(gpt2_tok.encode_iterable(lines, disallowed_special=()))
    assert streamed == gpt2_tok.encode(Path(path).read_text(encoding="utf-8"), disallowed_special=())


def test_a_word_listed_once_per_occurrence_is_read_once_per_merge():
    """A 100,000-letter word is listed under its pair 50,000 times; reading it once per listing made
    training on it quadratic (6 s instead of 0.05 s for 100,000 letters), so the walk reads it once."""
    from bpe_course.fast.merge import _merge_everywhere

    class CountingList(list):
        reads = 0

        def __getitem__(self, i):
            CountingList.reads += 1
            return super().__getitem__(i)

    word = "a" * 1_000
    words = CountingList([word, "ba"])
    pair_counts = {"aa": 999, "ba": 1}
    fresh = _merge_everywhere("aa", "Z", words, [1, 1], pair_counts, {"aa": [0] * 999 + [1]})
    assert CountingList.reads == 2  # each listed word once, however often it is listed
    assert list.__getitem__(words, 0) == "Z" * 500 and fresh == {"ZZ": 499}
