"""Chapter 3's checkers, fed right and wrong answers: the feedback they give."""

from __future__ import annotations

from exercises.feedback_checks import assert_right, assert_wrong

from bpe_course.algorithms.wordbpe import WordBPE, apply_merge, count_pairs, merge_pair, word_counts
from bpe_course.exercises import ch03


def test_first_merges():
    expected = WordBPE.train(ch03.PREDICT_CORPUS, 1000).merges[:3]
    assert_right(ch03.check_first_merges(expected))
    tie = ch03.check_first_merges([expected[0], ("te", "a"), ("te", "n")])
    assert_wrong(tie, "after the merges [('t', 'e')], your merge 2 ('te', 'a') occurs 4 times", "a tie")
    assert str(expected[1]) not in tie.message  # the rule, never the missing answer
    lower = ch03.check_first_merges([expected[0], ("n", "e"), ("te", "a")])
    assert_wrong(lower, "your merge 2 ('n', 'e') occurs only 2 times at that point; the best pair occurs 4 times")
    assert str(expected[1]) not in lower.message
    assert_wrong(ch03.check_first_merges([expected[0], ("e", "n"), ("te", "a")]), "your merge 2 ('e', 'n') does not occur")
    assert_wrong(ch03.check_first_merges([("z", "z"), *expected[1:]]), "your merge 1 ('z', 'z') does not occur")
    assert_wrong(ch03.check_first_merges(expected[:2]), "you gave 2 merges")
    assert_wrong(ch03.check_first_merges(5), "is not a list of pairs")


def test_stop():
    bpe = WordBPE.train(ch03.STOP_CORPUS, ch03.STOP_VOCAB_SIZE)
    merges, vocab = len(bpe.merges), len(bpe.vocab)
    assert bpe.stop_reason == "no pair occurs at least twice" and vocab < ch03.STOP_VOCAB_SIZE
    assert_right(ch03.check_stop(merges, vocab))
    always = ch03.check_stop(ch03.STOP_VOCAB_SIZE - (vocab - merges), ch03.STOP_VOCAB_SIZE)
    assert_wrong(always, "always reaches vocab_size")
    assert "WordBPE.train(" not in always.hint and str(merges) not in always.hint  # points, does not solve
    assert_wrong(ch03.check_stop(merges, vocab - 4), "leaves out the 4 special tokens")
    assert_wrong(ch03.check_stop(merges, vocab - 1), "one short", "'</w>'")
    assert_wrong(ch03.check_stop(merges - 1, vocab - 1), f"merges={merges - 1} is off (too few)")
    assert_wrong(ch03.check_stop(merges + 2, vocab + 2), f"merges={merges + 2} is off (too many)")
    assert "len(" not in ch03.check_stop(merges + 2, vocab + 2).hint


def _learn(corpus: str, num_merges: int, *, tie: str = "greatest", stop: bool = True) -> list:
    words = word_counts(corpus)
    merges = []
    while len(merges) < num_merges:
        counts = count_pairs(words)
        if not counts:
            break
        best = max(counts, key=counts.get) if tie == "first" else max(counts, key=lambda p: (counts[p], p))
        if stop and counts[best] < 2:
            break
        merges.append(best)
        words = apply_merge(words, best)
    return merges


def test_learn_merges_right():
    assert_right(ch03.check_learn_merges(_learn))


def test_learn_merges_never_stops_early():
    assert_wrong(ch03.check_learn_merges(lambda c, n: _learn(c, n, stop=False)), "stop as soon as the best pair occurs fewer than 2 times",
                 "occurs 1 time at that point")  # the evidence: the first merge it should not have made


def test_learn_merges_wrong_tie_rule():
    tie = ch03.check_learn_merges(lambda c, n: _learn(c, n, tie="first"))
    assert_wrong(tie, "merge 1: ('e', 's') ties with ('t', '</w>')", "lexicographically greatest")
    assert "lambda" not in tie.message  # describes the key, does not hand it over


def test_learn_merges_stops_too_soon_and_bad_type():
    assert_wrong(ch03.check_learn_merges(lambda c, n: _learn(c, min(n, 3))), "you stopped after 3 merges")
    assert_wrong(ch03.check_learn_merges(lambda c, n: tuple(_learn(c, n))), "return a list of pairs")


def test_regex_merge_finds_the_write_ups_bug_and_accepts_the_fix():
    import re

    def with_boundary(boundary):
        def merge_by_regex(symbols, pair):
            pattern = re.compile(rf"(?<!{boundary})" + re.escape(" ".join(pair)) + rf"(?!{boundary})")
            return tuple(pattern.sub("".join(pair), " ".join(symbols)).split())
        return merge_by_regex

    assert_right(ch03.check_regex_merge(with_boundary(r"\S")))
    assert_right(ch03.check_regex_merge(merge_pair))
    assert_wrong(ch03.check_regex_merge(with_boundary("S")), "across a symbol boundary", "('n', 'e')")
    assert_wrong(ch03.check_regex_merge(lambda s, p: "".join(s)), "as a tuple")
