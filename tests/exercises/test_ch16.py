"""Chapter 16's checkers: right answers pass, the usual mistakes get a hint that points without answering.

Exercises 16.1 and 16.3 ask for a measurement: their tests are at the end."""

from __future__ import annotations

from collections import Counter

import pytest

from bpe_course import Tokenizer, compare, corpus, train_bpe
from bpe_course.algorithms import KneserNey, Sweep, best_rows, train_on_mix, vocab_points
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES, language_name, mix_text
from bpe_course.exercises import ch16


def test_continuations_right_answer_passes_and_mistakes_are_named():
    assert ch16.check_continuations(lambda ids: dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))).ok
    occurrences = ch16.check_continuations(lambda ids: dict(Counter(zip(ids[1:], ids[2:]))))
    assert not occurrences.ok and "every occurrence" in occurrences.hint
    followers = ch16.check_continuations(lambda ids: dict(Counter((u, v) for u, v, _ in set(zip(ids, ids[1:], ids[2:])))))
    assert not followers.ok and "before it" in followers.hint
    every_pair = ch16.check_continuations(lambda ids: dict(Counter(set(zip(ids, ids[1:])))))
    assert not every_pair.ok and "very start" in every_pair.hint
    unigram = ch16.check_continuations(lambda ids: dict(Counter(w for _, w in set(zip(ids, ids[1:])))))
    assert not unigram.ok and "pairs of token ids" in unigram.message + unigram.hint
    assert not ch16.check_continuations(lambda ids: [1, 2]).ok
    for feedback in (occurrences, followers, every_pair):
        assert "set(zip" not in feedback.message and "Counter(" not in feedback.message


# ---- the exercises that ask for a measurement or an extension (issue 32) ----
# ---------------------------------------------------------------- 16.1: where order 5 bottoms out


@pytest.fixture(scope="module")
def sweep() -> Sweep:
    train, heldout = corpus.train_heldout("don_quixote")
    train, heldout = train[:60_000], heldout[:20_000]
    return Sweep(Tokenizer(*train_bpe(train, 256 + 800)), train, heldout, vocab_points(800))


def order5_answer(sweep: Sweep) -> tuple[int, list[int]]:
    """The answer, worked out here the way the exercise asks (the checker's reference is its own code)."""
    data = sweep.measure([5])
    at = int(best_rows(data).iloc[0]["n_vocab"])
    grid = sorted(int(s) for s in data["n_vocab"])
    i = grid.index(at)
    return at, [grid[j] for j in (i - 1, i + 1) if 0 <= j < len(grid)
                and compare(sweep.units(at, 5), sweep.units(grid[j], 5)).direction == "lower"]


def test_order_minimum_accepts_the_measured_answer_only(sweep):
    at, ahead_of = order5_answer(sweep)
    assert ch16.check_order_minimum(at, ahead_of, sweep).ok
    assert ch16.check_order_minimum(at, list(reversed(ahead_of)), sweep).ok  # order does not matter
    grid = sorted(int(s) for s in sweep.measure([5])["n_vocab"])
    for other in grid:
        if other == at:
            continue
        feedback = ch16.check_order_minimum(other, [], sweep)
        assert not feedback.ok and "another size of the grid needs fewer" in feedback.message
        assert f"{at:,}" not in feedback.message and str(at) not in feedback.message  # never the right size


def test_order_minimum_names_a_wrong_verdict_without_giving_it(sweep):
    at, ahead_of = order5_answer(sweep)
    grid = sorted(int(s) for s in sweep.measure([5])["n_vocab"])
    i = grid.index(at)
    neighbours = [grid[j] for j in (i - 1, i + 1) if 0 <= j < len(grid)]
    wrong_lists = [sorted(set(neighbours) - set(ahead_of)), [], neighbours]
    for guess in [w for w in wrong_lists if sorted(w) != sorted(ahead_of)]:
        feedback = ch16.check_order_minimum(at, guess, sweep)
        assert not feedback.ok and "are not the ones its intervals say" in feedback.message
        assert ".direction == 'lower'" in feedback.hint
        assert "verdict" not in feedback.message and "interval 9" not in feedback.message  # no verdicts shown
    stranger = ch16.check_order_minimum(at, [at], sweep)
    assert not stranger.ok and "not a neighbour" in stranger.message


def test_order_minimum_odd_answers(sweep):
    assert "no answer yet" in ch16.check_order_minimum(None, [], sweep).message
    assert "not an int" in ch16.check_order_minimum("1024", [], sweep).message
    assert "not a list of vocabulary sizes" in ch16.check_order_minimum(512, "512", sweep).message
    merges = ch16.check_order_minimum(768, [], sweep)  # 768 merges is the 1,024-token vocabulary
    assert not merges.ok and "number of merges" in merges.hint
    assert "measured these vocabulary sizes" in ch16.check_order_minimum(300, [], sweep).hint
    assert not ch16.check_order_minimum(512, [], "sweep").ok


# ---------------------------------------------------------------- 16.3: clearly dearer than English in bits


@pytest.fixture(scope="module")
def tax_bits() -> dict:
    """Section 7's per-article bits for the balanced tokenizer, built as the chapter builds them."""
    tok = train_on_mix(MIXES["balanced"])
    model = KneserNey(tok.encode_ordinary("\n".join(mix_text(MIXES["balanced"]))), 3, tok.n_vocab)
    out = {}
    for code in corpus.UDHR_LANGUAGES:
        articles = [corpus.udhr(code)[k] for k in HELDOUT_ARTICLES]
        out["balanced", code] = [(model.bits(tok.encode_ordinary(a)), len(a.encode("utf-8"))) for a in articles]
    return out


def dearer_answer(tax_bits: dict) -> list[str]:
    english = [(b, 1) for b, _ in tax_bits["balanced", "eng"]]
    return [language_name(code) for code in corpus.UDHR_LANGUAGES if code != "eng"
            and compare([(b, 1) for b, _ in tax_bits["balanced", code]], english).direction == "higher"]


def test_dearer_languages_right_answer_passes_in_any_order_and_case(tax_bits):
    answer = dearer_answer(tax_bits)
    assert 0 < len(answer) < len(corpus.UDHR_LANGUAGES) - 1  # the case is not trivial either way
    assert ch16.check_dearer_in_bits(answer, tax_bits).ok
    assert ch16.check_dearer_in_bits([a.upper() for a in reversed(answer)], tax_bits).ok


def test_dearer_languages_mistakes_never_show_the_answer(tax_bits):
    answer = dearer_answer(tax_bits)
    others = [language_name(c) for c in corpus.UDHR_LANGUAGES if c != "eng" and language_name(c) not in answer]
    missing = ch16.check_dearer_in_bits(answer[1:], tax_bits)
    assert not missing.ok and "not complete" in missing.message
    assert answer[0] not in missing.message + missing.hint
    extra = ch16.check_dearer_in_bits(answer + others[:1], tax_bits)
    assert not extra.ok and others[0] in extra.message and "not clearly dearer" in extra.message
    assert not any(a in extra.message + extra.hint for a in answer)
    everything = ch16.check_dearer_in_bits(answer + others, tax_bits)  # listing every language is not a way in
    assert not everything.ok
    english = ch16.check_dearer_in_bits(["English"], tax_bits)
    assert not english.ok and "yardstick" in english.message
    unknown = ch16.check_dearer_in_bits(["Klingon"], tax_bits)
    assert not unknown.ok and "Klingon" in unknown.message


def test_dearer_languages_odd_answers(tax_bits):
    assert "no answer yet" in ch16.check_dearer_in_bits(None, tax_bits).message
    assert "not a list of strings" in ch16.check_dearer_in_bits("Tamil", tax_bits).message
    assert "tax_bits" in ch16.check_dearer_in_bits([], {"balanced": 1}).message
    assert not ch16.check_dearer_in_bits([], {}).ok
