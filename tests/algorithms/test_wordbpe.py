"""Tests for bpe_course.algorithms.wordbpe: character-level BPE with </w> (chapters 1-6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from bpe_course.algorithms.wordbpe import (EOW, MergeStep, SPECIALS, STOP_NO_PAIR, STOP_VOCAB_SIZE, UNK, WordBPE,
                                           apply_merge, count_pairs, top_pairs, word_counts)


TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3

CAT = "the cat sat on the mat " * 10

# database=None: no example database on disk; deadline=None: no flaky failures on a busy machine.
PROPERTY = settings(max_examples=1000, database=None, deadline=None)


def naive_merges(corpus: str, max_merges: int) -> list[tuple[str, str]]:
    """Recount every pair from scratch after every merge."""
    words: dict[tuple[str, ...], int] = {}
    for w in corpus.split():
        key = tuple(w) + ("</w>",)
        words[key] = words.get(key, 0) + 1
    merges = []
    while len(merges) < max_merges:
        counts: dict[tuple[str, str], int] = {}
        for word, freq in words.items():
            for i in range(len(word) - 1):
                counts[word[i], word[i + 1]] = counts.get((word[i], word[i + 1]), 0) + freq
        if not counts:
            break
        # highest count first; among equal counts the greatest pair
        ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        best, count = ranked[0]
        if count < 2:
            break
        merges.append(best)
        new_words = {}
        for word, freq in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_words[tuple(out)] = freq
        words = new_words
    return merges


# Few letters, so pairs repeat and training does real work; "<", "/", ">" let "</w>" appear in text.
LETTERS = "abcw</>"

# Some text repeated k times plus some more text: repeated words give pairs that occur often.
# (A few st.text draws are much cheaper for hypothesis to generate than a list of words.)
corpus_st = st.builds(
    lambda repeated, k, rest: " ".join([repeated] * k + [rest]),
    st.text(alphabet=LETTERS + " ", max_size=30), st.integers(1, 4), st.text(alphabet=LETTERS + " ", max_size=30),
).filter(lambda c: EOW not in c)


def test_toy_first_merges_by_hand():
    bpe = WordBPE.train(TOY, 20)  # 15 base tokens + 5 merges
    # 1: t+</w>, s+t, e+s tie at 9, ("t", "</w>") is greatest.  2: s+t</w> and e+s tie at 9.
    # 3: e+st</w> (9) beats w+e (8).  4: l+o and o+w tie at 7.  5: l+ow (7).
    assert bpe.merges == [("t", "</w>"), ("s", "t</w>"), ("e", "st</w>"), ("o", "w"), ("l", "ow")]
    assert bpe.stop_reason == STOP_VOCAB_SIZE
    assert len(bpe.vocab) == 20


def test_toy_full_training():
    bpe = WordBPE.train(TOY, 1000)
    assert bpe.merges == [
        ("t", "</w>"), ("s", "t</w>"), ("e", "st</w>"), ("o", "w"), ("l", "ow"), ("w", "est</w>"),
        ("n", "e"), ("ne", "west</w>"), ("low", "</w>"), ("w", "i"), ("wi", "d"), ("wid", "est</w>"),
        ("r", "</w>"), ("low", "e"), ("lowe", "r</w>"),
    ]
    assert bpe.stop_reason == STOP_NO_PAIR
    assert len(bpe.vocab) == 30
    assert bpe.tokenize("low lower newest widest") == ["low</w>", "lower</w>", "newest</w>", "widest</w>"]
    assert bpe.tokenize_word("lowest") == ["low", "est</w>"]


def test_cat_corpus():
    bpe = WordBPE.train(CAT, 1000)
    assert bpe.merges == [
        ("t", "</w>"), ("a", "t</w>"), ("t", "h"), ("th", "e"), ("the", "</w>"),
        ("s", "at</w>"), ("o", "n"), ("on", "</w>"), ("m", "at</w>"), ("c", "at</w>"),
    ]
    assert bpe.stop_reason == STOP_NO_PAIR
    assert bpe.tokenize("the cat sat on the mat") == ["the</w>", "cat</w>", "sat</w>", "on</w>", "the</w>", "mat</w>"]


SOURCE = open(__file__, encoding="utf-8").read().replace("</w>", "").replace("<|", "")  # varied real text


@pytest.mark.parametrize(
    ("corpus", "num_merges"),
    [(TOY, 1000), (CAT, 1000), ("aaabdaaabac aaab", 100), ("a a a a b b", 100), (SOURCE, 0), (SOURCE, 120)],
)
def test_trainer_matches_naive_reference(corpus, num_merges):
    base = len(SPECIALS) + len(set("".join(corpus.split()))) + 1
    bpe = WordBPE.train(corpus, base + num_merges)
    assert bpe.merges == naive_merges(corpus, num_merges)
    assert (bpe.stop_reason == STOP_VOCAB_SIZE) == (len(bpe.merges) == num_merges)


@PROPERTY
@given(corpus_st, st.integers(min_value=0, max_value=30))
def test_trainer_matches_naive_reference_property(corpus, extra):
    bpe = WordBPE.train(corpus, len(SPECIALS) + len(set(corpus) - {" "}) + 1 + extra)
    assert bpe.alphabet == sorted(set(corpus) - {" "})
    assert bpe.merges == naive_merges(corpus, extra)
    assert (bpe.stop_reason == STOP_VOCAB_SIZE) == (len(bpe.merges) == extra)
    # ids are 0..n-1, every token string is distinct, and each merge added exactly one id
    assert list(bpe.vocab) == list(range(len(bpe.vocab)))
    assert len(set(bpe.vocab.values())) == len(bpe.vocab)
    assert len(bpe.vocab) == len(SPECIALS) + len(bpe.alphabet) + 1 + len(bpe.merges)


def test_ids_are_stable_and_specials_first():
    bpe = WordBPE.train(TOY, 1000)
    assert [bpe.vocab[i] for i in range(4)] == ["<|pad|>", "<|bos|>", "<|eos|>", "<|unk|>"]
    assert SPECIALS == ("<|pad|>", "<|bos|>", "<|eos|>", "<|unk|>")
    assert [bpe.vocab[i] for i in range(4, 15)] == ["</w>", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w"]
    assert [bpe.vocab[15 + k] for k in range(len(bpe.merges))] == [a + b for a, b in bpe.merges]
    assert sorted(bpe.vocab) == list(range(30))
    assert bpe.token_to_id == {s: i for i, s in bpe.vocab.items()}
    assert WordBPE.train(TOY, 1000).vocab == bpe.vocab  # deterministic
    # specials keep ids 0-3 whatever the corpus
    assert [WordBPE.train("zzz yy", 100).vocab[i] for i in range(4)] == list(SPECIALS)


def test_vocab_size_limits():
    assert WordBPE.train(TOY, 15).merges == []  # exactly the 4 specials + 10 characters + </w>
    assert WordBPE.train(TOY, 15).stop_reason == STOP_VOCAB_SIZE
    assert len(WordBPE.train(TOY, 18).merges) == 3
    assert len(WordBPE.train(TOY, 30).merges) == 15 and WordBPE.train(TOY, 30).stop_reason == STOP_VOCAB_SIZE
    assert len(WordBPE.train(TOY, 31).merges) == 15 and WordBPE.train(TOY, 31).stop_reason == STOP_NO_PAIR
    with pytest.raises(ValueError, match="at least 15"):
        WordBPE.train(TOY, 14)


def test_early_stop_when_no_pair_occurs_twice():
    bpe = WordBPE.train("abc abd", 100)
    assert bpe.merges == [("a", "b")]  # count 2; afterwards every pair occurs once
    assert bpe.stop_reason == STOP_NO_PAIR == "no pair occurs at least twice"
    assert WordBPE.train("abcdef", 100).merges == []
    assert WordBPE.train("abcdef", 100).stop_reason == STOP_NO_PAIR


def test_trace():
    bpe = WordBPE.train(TOY, 1000, trace=True)
    assert [s.step for s in bpe.trace] == list(range(1, 16))
    assert [s.pair for s in bpe.trace] == bpe.merges
    first = bpe.trace[0]
    assert first == MergeStep(1, ("t", "</w>"), 9, "t</w>", 15, top_pairs(count_pairs(word_counts(TOY))))
    assert first.top_pairs[:4] == [(("t", "</w>"), 9), (("s", "t"), 9), (("e", "s"), 9), (("w", "e"), 8)]
    assert [s.count for s in bpe.trace] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3, 3, 3, 2, 2, 2]
    for s in bpe.trace:
        assert s.top_pairs[0] == (s.pair, s.count)
        assert bpe.vocab[s.new_id] == s.new_symbol
        assert all(c > 0 for _, c in s.top_pairs) and len(s.top_pairs) <= 10
        assert s.top_pairs == sorted(s.top_pairs, key=lambda kv: (kv[1], kv[0]), reverse=True)
    assert bpe.trace[-1].top_pairs == [(("lowe", "r</w>"), 2)]
    assert WordBPE.train(TOY, 1000).trace == []  # only recorded when asked for


@PROPERTY
@given(corpus_st)
def test_trace_top_pairs_are_the_true_counts(corpus):
    bpe = WordBPE.train(corpus, 100, trace=True)
    words = word_counts(corpus)
    for step in bpe.trace:
        counts = count_pairs(words)
        assert step.top_pairs == top_pairs(counts) and step.count == counts[step.pair]
        words = apply_merge(words, step.pair)


@PROPERTY
@given(corpus_st, st.text(alphabet=LETTERS + " \n\t", max_size=40), st.booleans(), st.booleans())
def test_encode_decode_round_trip(corpus, raw, bos, eos):
    bpe = WordBPE.train(corpus, 60)
    text = "".join(ch for ch in raw if ch.isspace() or ch in bpe.alphabet)  # characters seen in training
    ids = bpe.encode(text, bos=bos, eos=eos)
    assert bpe.decode(ids) == " ".join(text.split())
    assert bpe.decode([0] + ids + [0, 0]) == " ".join(text.split())  # <|pad|> is dropped
    assert (ids[:1] == [1]) == bos and (ids[-1:] == [2]) == eos
    assert 3 not in ids  # every character was seen in training


@PROPERTY
@given(corpus_st, st.text(alphabet=LETTERS + "xy ", max_size=40))
def test_rank_encoder_equals_in_order_encoder(corpus, text):
    bpe = WordBPE.train(corpus, 80)
    words = text.split() + corpus.split()
    for word in words:
        assert bpe.tokenize_word_by_rank(word) == bpe.tokenize_word(word)
    half = bpe.truncated(len(bpe.merges) // 2)  # a prefix of trained merges behaves the same
    assert all(half.tokenize_word_by_rank(w) == half.tokenize_word(w) for w in words)


def test_rank_encoder_by_hand():
    bpe = WordBPE.from_merges([("a", "a"), ("a", "b"), ("aa", "ab")], alphabet="ab")
    assert bpe.tokenize_word_by_rank("aaab") == ["aaab", "</w>"]
    assert bpe.tokenize_word_by_rank("aaaa") == ["aa", "aa", "</w>"]
    assert bpe.tokenize_word_by_rank("abab") == ["ab", "ab", "</w>"]


def test_tokenize_word_applies_merges_in_learned_order():
    # Order matters: ("b", "c") before ("a", "b") gives a|bc, the other order gives ab|c.
    assert WordBPE.from_merges([("b", "c"), ("a", "b")], "abc").tokenize_word("abc") == ["a", "bc", "</w>"]
    assert WordBPE.from_merges([("a", "b"), ("b", "c")], "abc").tokenize_word("abc") == ["ab", "c", "</w>"]


def test_unseen_characters_become_unk():
    bpe = WordBPE.train(TOY, 1000)
    assert bpe.tokenize_word("unlowered") == [UNK, "n", "lowe", "r", "e", "d", "</w>"]
    assert bpe.tokenize_word("lowest") == ["low", "est</w>"]
    ids = bpe.encode("unlowered low")
    assert ids[0] == 3 and ids.count(3) == 1
    assert bpe.decode(ids) == "<|unk|>nlowered low"
    assert bpe.tokenize("LOW") == [UNK, UNK, UNK, "</w>"]


def test_decode_details():
    bpe = WordBPE.train(TOY, 1000)
    assert bpe.decode([]) == ""
    assert bpe.decode([1, 2, 0]) == ""
    assert bpe.decode([bpe.token_to_id[c] for c in "low"]) == "low"  # no </w>: the word stays open
    assert bpe.decode([bpe.token_to_id["low"], 4, bpe.token_to_id["low"], 4]) == "low low"
    # a word may literally contain "</w>" when encoding; it must come back as text, not a space
    odd = WordBPE.train("a</ w> <b a</ w> <b", 100)
    assert odd.decode(odd.encode("a</w>b </w>")) == "a</w>b </w>"


def test_from_merges_and_truncated():
    bpe = WordBPE.train(TOY, 1000, trace=True)
    again = WordBPE.from_merges(bpe.merges, bpe.alphabet)
    assert again.vocab == bpe.vocab and again.encode(TOY) == bpe.encode(TOY)
    assert again.stop_reason is None and again.trace == []
    for k in range(len(bpe.merges) + 1):
        small = bpe.truncated(k)
        assert small.merges == bpe.merges[:k]
        assert small.vocab == {i: s for i, s in bpe.vocab.items() if i < 15 + k}
        assert small.trace == bpe.trace[:k]
    assert bpe.truncated(0).tokenize_word("low") == ["l", "o", "w", "</w>"]
    assert bpe.truncated(5).tokenize_word("lowest") == ["low", "est</w>"]
    assert bpe.truncated(15).encode(TOY) == bpe.encode(TOY)
    assert bpe.truncated(15).stop_reason == STOP_NO_PAIR
    assert bpe.truncated(3).stop_reason == "truncated to 3 merges"
    for k in (-1, 16):
        with pytest.raises(ValueError, match="between 0 and 15"):
            bpe.truncated(k)


def test_empty_corpus():
    bpe = WordBPE.train("", 100)
    assert bpe.vocab == {0: "<|pad|>", 1: "<|bos|>", 2: "<|eos|>", 3: "<|unk|>", 4: "</w>"}
    assert bpe.merges == [] and bpe.stop_reason == STOP_NO_PAIR
    assert WordBPE.train(" \n\t ", 5).stop_reason == STOP_VOCAB_SIZE
    assert bpe.tokenize("hi") == [UNK, UNK, "</w>"]
    assert bpe.encode("") == [] and bpe.decode([]) == ""
    with pytest.raises(ValueError, match="at least 5"):
        WordBPE.train("", 4)


@pytest.mark.parametrize("bad", ["100", 100.0, None, True])
def test_vocab_size_must_be_int(bad):
    with pytest.raises(TypeError, match="vocab_size must be an int"):
        WordBPE.train(TOY, bad)


def test_errors():
    bpe = WordBPE.train(TOY, 1000)
    with pytest.raises(ValueError, match="unknown token id 30"):
        bpe.decode([5, 30])
    with pytest.raises(ValueError, match="unknown token id -1"):
        bpe.decode([-1])
    with pytest.raises(TypeError, match="corpus must be a str"):
        WordBPE.train(b"low", 100)
    for reserved in ("</w>", "<|unk|>", "<|pad|>"):
        with pytest.raises(ValueError, match="reserved"):
            WordBPE.train(f"a{reserved}b", 100)
    for word in ("", "a b"):
        with pytest.raises(ValueError, match="one non-empty word"):
            bpe.tokenize_word(word)
    # unknown symbol, </w> on the left, a special, a token used before the merge that makes it
    for merges in ([("a", "c")], [("</w>", "a")], [("<|unk|>", "a")], [("ab", "a"), ("a", "b")]):
        with pytest.raises(ValueError, match="must join two earlier tokens"):
            WordBPE.from_merges(merges, alphabet="ab")
    with pytest.raises(ValueError, match="already a token"):
        WordBPE.from_merges([("a", "b"), ("a", "b")], alphabet="ab")
    with pytest.raises(ValueError, match="single non-space"):
        WordBPE.from_merges([], alphabet=["ab"])
