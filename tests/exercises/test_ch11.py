"""Chapter 11's checkers: right answers pass, wrong ones fail with specific feedback and a hint."""

from __future__ import annotations

from collections import Counter

from exercises.feedback_checks import assert_wrong

from bpe_course.exercises import ch11
from bpe_course.pairs import merge_pair


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
