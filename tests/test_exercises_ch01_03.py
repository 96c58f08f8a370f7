"""Feed right and wrong answers to the chapter 1-3 checkers and check the feedback they give."""

from __future__ import annotations

from collections import Counter

import pytest

from bpe_course.exercises import ch01, ch02, ch03
from bpe_course.exercises.feedback import Feedback, run_cases
from bpe_course.algorithms.wordbpe import WordBPE, apply_merge, merge_pair, count_pairs, word_counts


def assert_wrong(feedback: Feedback, *fragments: str) -> None:
    assert isinstance(feedback, Feedback) and not feedback.ok and not bool(feedback)
    assert feedback.message.startswith("❌ Not yet.") and "\nHint: " in feedback.message
    for fragment in fragments:
        assert fragment in feedback.message, (fragment, feedback.message)


def assert_right(feedback: Feedback) -> None:
    assert feedback.ok and feedback.message.startswith("✅ Correct"), feedback.message
    assert repr(feedback) == str(feedback) == feedback.message


# ---------------------------------------------------------------- the shared runner


def test_run_cases_reports_exceptions_instead_of_raising():
    def broken(x):
        raise KeyError("boom")

    assert_wrong(run_cases(broken, [(1,)], lambda x: x, name="f", hint="look again"), "f(1) raised KeyError", "look again")


def test_run_cases_rejects_non_functions():
    assert_wrong(run_cases(42, [(1,)], lambda x: x, name="f"), "expected a function, got int")


# ---------------------------------------------------------------- chapter 1


def test_oov_rate_right():
    def oov_rate(train, heldout):
        known = set(train)
        return sum(w not in known for w in heldout) / len(heldout)

    assert_right(ch01.check_oov_rate(oov_rate))


@pytest.mark.parametrize("wrong_fn, fragment", [
    (lambda t, h: len(set(h) - set(t)) / len(set(h)), "count every occurrence"),
    (lambda t, h: sum(w in set(t) for w in h) / len(h), "share of *known* words"),
    (lambda t, h: 100 * sum(w not in set(t) for w in h) / len(h), "not a percentage"),
    (lambda t, h: "0.5", "return a number"),
    (lambda t, h: sum(w.lower() not in {x.lower() for x in t} for w in h) / len(h), "['The', 'cat']"),
])
def test_oov_rate_wrong(wrong_fn, fragment):
    assert_wrong(ch01.check_oov_rate(wrong_fn), fragment)


def test_oov_rate_failure_names_the_case():
    feedback = ch01.check_oov_rate(lambda t, h: 0.0)
    assert_wrong(feedback, "oov_rate(['a', 'b', 'a'], ['a', 'c', 'c', 'b']) should be 0.5, got 0.0")


def test_token_counts():
    text = ch01.TOKEN_COUNT_TEXT
    assert_right(ch01.check_token_counts(len(text), len(text.split())))
    assert_wrong(ch01.check_token_counts(len(text.replace(" ", "")), 3), "counts only the letters", "spaces too")
    assert_wrong(ch01.check_token_counts(len(text), 4), "word_tokens=4", "count the runs")
    assert_wrong(ch01.check_token_counts(99, 3), "char_tokens=99")


def test_whitespace_vocab_size():
    words = ch01.VOCAB_TEXT.split()
    assert_right(ch01.check_whitespace_vocab_size(len(set(words))))
    assert_wrong(ch01.check_whitespace_vocab_size(len(set(words)) + 1), "<unk> out")
    assert_wrong(ch01.check_whitespace_vocab_size(len(words)), "occurrences")
    assert_wrong(ch01.check_whitespace_vocab_size(len({w.lower() for w in words})), "'The' and 'the'")
    assert_wrong(ch01.check_whitespace_vocab_size(len({w.strip(".!") for w in words})), "strips the punctuation")


# ---------------------------------------------------------------- chapter 2


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


# ---------------------------------------------------------------- chapter 3


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
