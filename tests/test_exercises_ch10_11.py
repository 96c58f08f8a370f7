"""Chapter 10 and 11 checkers: right answers pass, wrong ones fail with specific feedback and a hint."""

from __future__ import annotations

from collections import Counter

import pytest

from bpe_course.exercises import ch10, ch11
from bpe_course.pairs import merge_pair
from bpe_course.pretokenize import GPT4_PATTERN, pretokenize


def assert_wrong(feedback, *fragments: str) -> None:
    assert not feedback
    text = repr(feedback)
    assert text.startswith("❌ Not yet.") and "\nHint: " in text
    for fragment in fragments:
        assert fragment in text, (fragment, text)


# ---------------------------------------------------------------- chapter 10

def test_toy_merges_right_answer():
    fb = ch10.check_toy_merges([(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"abc", b"d")])
    assert fb and repr(fb).startswith("✅ Correct:")


def test_toy_merges_the_tempting_wrong_split():
    # (ab, cd) joins to the right bytes, but BPE below rank 7 reaches abc (rank 5) before cd (rank 6).
    fb = ch10.check_toy_merges([(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"ab", b"cd")])
    assert_wrong(fb, "b'abcd' (rank 7)", "never a rank >= 7")
    assert "b'abc'" not in repr(fb)  # the feedback points, it does not give the parts away


@pytest.mark.parametrize("answer, fragment", [
    ([], "you gave 0 merges"),
    ([(b"a", b"b"), (b"a", b"bc"), (b"c", b"d"), (b"abc", b"d")], "does it leave b'bc' possible"),
    ([(b"a", b"b"), (b"a", b"c"), (b"c", b"d"), (b"abc", b"d")], "should make b'abc'"),
    (["ab", 3], "list of pairs of bytes"),
])
def test_toy_merges_other_wrong_answers(answer, fragment):
    assert_wrong(ch10.check_toy_merges(answer), fragment)


def test_digit_pretokens():
    right = pretokenize(ch10.DIGITS_TEXT, GPT4_PATTERN)
    assert right == ["Total", ":", " ", "123", "456", "7", " items"]
    assert ch10.check_digit_pretokens(right)
    assert_wrong(ch10.check_digit_pretokens(["Total", ":", " 123", "456", "7", " items"]), "starts with a space")
    wrong_groups = ch10.check_digit_pretokens(["Total", ":", " ", "1", "234", "567", " items"])
    assert_wrong(wrong_groups, "['1', '234', '567']", "quantifier")
    assert "'123'" not in repr(wrong_groups)  # the right groups are not given away
    assert_wrong(ch10.check_digit_pretokens(["Total:", " 1234567", " items"]), "starts with a space")
    assert_wrong(ch10.check_digit_pretokens(["Total", ":", " ", "1234567"]), "join to")
    assert_wrong(ch10.check_digit_pretokens(["Total:", " ", "123", "456", "7", " items"]),
                 "letters or punctuation")


def test_gpt4_longer(gpt2_tok, cl100k_tok):
    good = ch10.check_gpt4_longer("In 1999", gpt2_tok, cl100k_tok)
    assert good and "takes 4 tokens with GPT-4 but only 2 with GPT-2" in repr(good)
    assert len(cl100k_tok.encode("In 1999")) > len(gpt2_tok.encode("In 1999"))
    for text, fragment in [("Hello world", "as short"), ("        indented", "shorter"), ("        return 7", "shorter")]:
        feedback = ch10.check_gpt4_longer(text, gpt2_tok, cl100k_tok)
        assert_wrong(feedback, fragment, "digits" if any(c.isdigit() for c in text) else "section 4")
        assert "1999" not in repr(feedback)  # issue 22: the hint named the answer
    assert_wrong(ch10.check_gpt4_longer("", gpt2_tok, cl100k_tok), "non-empty")


# ---------------------------------------------------------------- chapter 11

def recount_delta(word, pair):
    merged = merge_pair(word, pair)
    delta = Counter(zip(merged, merged[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return delta


def forgets_overlaps(word, pair):
    """A plausible wrong answer: treats each occurrence on its own, as if runs never overlap."""
    delta = Counter()
    for i in range(len(word) - 1):
        if (word[i], word[i + 1]) == pair:
            new = word[i] + word[i + 1]
            delta[pair] -= 1
            if i > 0:
                delta[word[i - 1], word[i]] -= 1
                delta[word[i - 1], new] += 1
            if i + 2 < len(word):
                delta[word[i + 1], word[i + 2]] -= 1
                delta[new, word[i + 2]] += 1
    return delta


def test_pair_delta():
    assert ch11.check_pair_delta(recount_delta)
    assert_wrong(ch11.check_pair_delta(forgets_overlaps), "should change by")
    assert_wrong(ch11.check_pair_delta(lambda w, p: {}), "(b'l', b'ow')", "should change by +1")
    assert_wrong(ch11.check_pair_delta(lambda w, p: None), "returned None")
    assert_wrong(ch11.check_pair_delta(lambda w, p: 1 / 0), "ZeroDivisionError")


def test_safe_cut():
    text = ch11.CUT_TEXT
    assert ch11.check_safe_cut(text.index(" safe"))
    assert_wrong(ch11.check_safe_cut(text.index("safe") + 2), "changes the pre-tokens", "' safe'", "give ' sa'")
    assert_wrong(ch11.check_safe_cut(text.index("  two") + 2), "changes the pre-tokens")  # inside " two"
    assert "space" not in ch11.check_safe_cut(text.index("safe") + 2).hint  # points, does not state the rule
    assert_wrong(ch11.check_safe_cut(3), "outside")
    assert_wrong(ch11.check_safe_cut("30"), "int position")


def reference_train_words(word_counts, n_merges):
    words = dict(word_counts)
    merges = []
    for _ in range(n_merges):
        counts = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += n
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        words = {merge_pair(w, best): n for w, n in words.items()}
    return merges


def test_train_words():
    assert ch11.check_train_words(reference_train_words)
    assert_wrong(ch11.check_train_words(lambda wc, n: []), "returned 0 merges")
    assert_wrong(ch11.check_train_words(lambda wc, n: reference_train_words(wc, n - 5)), "the first 20 are right")
    assert_wrong(ch11.check_train_words(lambda wc, n: reference_train_words(wc, n + 1)), "more than the 25")

    def ignores_counts(word_counts, n_merges):  # every distinct word counted once
        return reference_train_words({w: 1 for w in word_counts}, n_merges)
    assert_wrong(ch11.check_train_words(ignores_counts), "occurs", "how many times does each word occur")

    def smallest_on_ties(word_counts, n_merges):
        words, merges = dict(word_counts), []
        for _ in range(n_merges):
            counts = Counter()
            for word, n in words.items():
                for pair in zip(word, word[1:]):
                    counts[pair] += n
            best = min(counts, key=lambda p: (-counts[p], p))
            merges.append(best)
            words = {merge_pair(w, best): n for w, n in words.items()}
        return merges
    assert_wrong(ch11.check_train_words(smallest_on_ties), "a tie", "which of the two does best_pair pick")
    for wrong_one in (ignores_counts, smallest_on_ties):  # the hints point; they do not hand over the code
        assert "max(" not in ch11.check_train_words(wrong_one).hint
