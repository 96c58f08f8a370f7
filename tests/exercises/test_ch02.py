"""Chapter 2's checkers, fed right and wrong answers: the feedback they give."""

from __future__ import annotations

from collections import Counter

from exercises.feedback_checks import assert_right, assert_wrong

from bpe_course.algorithms.wordbpe import count_pairs, merge_pair, word_counts
from bpe_course.exercises import ch02


def test_count_pairs_right_with_dict_or_counter():
    assert_right(ch02.check_count_pairs(count_pairs))

    def as_dict(words):
        out = {}
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                out[pair] = out.get(pair, 0) + n
        return out

    assert_right(ch02.check_count_pairs(as_dict))


def test_count_pairs_unweighted():
    def unweighted(words):
        return Counter(pair for word in words for pair in zip(word, word[1:]))

    assert_wrong(ch02.check_count_pairs(unweighted), "weight each word by its frequency", "got Counter(")


def test_count_pairs_non_overlapping():
    def non_overlapping(words):
        counts = Counter()
        for word, n in words.items():
            i = 0
            while i < len(word) - 1:
                counts[word[i], word[i + 1]] += n
                i += 2 if word[i] == word[i + 1] else 1
        return counts

    assert_wrong(ch02.check_count_pairs(non_overlapping), "occurs twice (positions 0-1 and 1-2)")


def test_count_pairs_wrong_type():
    assert_wrong(ch02.check_count_pairs(lambda words: [1, 2]), "return a dict")


def test_merge_pair_right():
    assert_right(ch02.check_merge_pair(merge_pair))
    assert_right(ch02.check_merge_pair(lambda s, p: list(merge_pair(s, p))))  # a list is fine too


def test_merge_pair_string_replace_shortcut():
    def replace(symbols, pair):
        return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split())

    assert_wrong(ch02.check_merge_pair(replace), "compare whole symbols", "('ca', 'b', '</w>')")


def test_merge_pair_overlapping():
    def overlapping(symbols, pair):  # joins each position independently: "aaa" -> ("aa", "aa")
        out = []
        for i in range(len(symbols)):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                out.append(symbols[i] + symbols[i + 1])
            elif not (i > 0 and (symbols[i - 1], symbols[i]) == pair):
                out.append(symbols[i])
        return tuple(out)

    assert_wrong(ch02.check_merge_pair(overlapping), "never changes the text")


def test_merge_pair_no_merge_and_bad_type():
    assert_wrong(ch02.check_merge_pair(lambda s, p: tuple(s)), "should be ('l', 'ow', '</w>')", "emit the joined symbol")
    assert_wrong(ch02.check_merge_pair(lambda s, p: "".join(s)), "return the new symbols as a tuple")


def test_first_merge():
    counts = count_pairs(word_counts(ch02.FIRST_MERGE_CORPUS))
    best = max(counts, key=lambda p: (counts[p], p))
    assert_right(ch02.check_first_merge(best))
    first_counted = max(counts, key=counts.get)
    assert first_counted != best  # the corpus is built so that the naive rule is wrong
    tie = ch02.check_first_merge(first_counted)
    assert_wrong(tie, "a tie", "tie rule from step 3")
    assert repr(best) not in repr(tie)  # the feedback points at the rule, it does not name the winner
    assert_wrong(ch02.check_first_merge(("u", "g")), "occurs 5 times; some pairs occur 6 times")
    assert_wrong(ch02.check_first_merge(("z", "z")), "never occurs")
    assert_wrong(ch02.check_first_merge("un"), "is not a pair")
