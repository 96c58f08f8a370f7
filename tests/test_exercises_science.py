"""The exercises of chapters 16 and 17 that ask for a measurement or an extension (issue 32): right answers pass,
the usual mistakes get a hint aimed at the mistake, and no feedback holds the answer.

(Destination after the tests reorganisation: tests/exercises/test_ch16.py and test_ch17.py.)
"""

from __future__ import annotations

import pytest

from bpe_course import Tokenizer, compare, corpus, train_bpe
from bpe_course.algorithms import (KneserNey, Merges, Sweep, best_rows, intersection_over_self,
                                   released_stage2_allows, train_on_mix, vocab_points, word_sequences)
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES, language_name, mix_text
from bpe_course.exercises import ch16, ch17

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


# ---------------------------------------------------------------- 17.1: Picky BPE's removal inside the loop


def make_picky(removal):
    """The exercise's given loop, with ``removal(m, part, made, alive, parts, merges, removed, threshold)`` inside."""
    def my_picky(counts, n_merges, threshold):
        m = Merges(word_sequences(counts))
        made_of, alive, merges, removed = {}, {}, [], []

        def parts(token):
            a, b = made_of[token]
            return tuple(s for half in (a, b) for s in ((half,) if len(half) == 1 or half in alive else parts(half)))

        while len(merges) - len(removed) < n_merges and (found := m.best()) is not None:
            pair = found[0]
            token = pair[0] + pair[1]
            had = m.tokens[token]
            before = {p: m.tokens[p] for p in pair}
            m.merge(pair)
            made = m.tokens[token] - had
            merges.append(pair)
            made_of[token] = pair
            alive.pop(token, None)
            alive[token] = None
            for part in dict.fromkeys(pair):
                removal(m, part, made, alive, parts, merges, removed, threshold, found[1], before)
        return removed
    return my_picky


def right(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) > threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def at_least(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) >= threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def counted_before(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(count, before[part]) > threshold:
        del alive[part]
        m.split(part, parts)
        removed.append((len(merges) - 1, part))


def no_split(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if len(part) > 1 and part in alive and intersection_over_self(made, m.tokens[part] + made) > threshold:
        del alive[part]
        removed.append((len(merges) - 1, part))


def bytes_too(m, part, made, alive, parts, merges, removed, threshold, count, before):
    if intersection_over_self(made, m.tokens[part] + made) > threshold:
        alive.pop(part, None)
        if len(part) > 1:
            m.split(part, parts)
        removed.append((len(merges) - 1, part))


def test_picky_removal_right_answer_passes_and_the_starter_is_told_it_removes_nothing():
    assert ch17.check_picky_removal(make_picky(right)).ok
    starter = ch17.check_picky_removal(make_picky(lambda *args: None))
    assert not starter.ok and "removed nothing" in starter.message


@pytest.mark.parametrize("mistake, words", [
    (at_least, "strict"),
    (counted_before, "after the merge"),
    (no_split, "still in the sequences"),
    (bytes_too, "single byte"),
])
def test_picky_removal_mistakes_are_named_without_the_fix(mistake, words):
    feedback = ch17.check_picky_removal(make_picky(mistake))
    assert not feedback.ok and words in feedback.hint
    for fix in ("m.split(", "> threshold", "m.tokens[part] + made", "len(part) > 1"):
        assert fix not in feedback.message


def test_picky_removal_odd_answers():
    assert "function" in ch17.check_picky_removal(None).message
    assert "not a list of (merge number, token) pairs" in ch17.check_picky_removal(lambda c, n, t: {}).message
    assert "ZeroDivisionError" in ch17.check_picky_removal(lambda c, n, t: 1 / 0).message


# ---------------------------------------------------------------- 17.2: SuperBPE's released limits


def test_stage2_limits_right_answer_passes():
    assert ch17.check_stage2_limits(released_stage2_allows).ok
    assert ch17.check_stage2_limits(lambda t: b": " not in t and len(t.split()) <= 4 if b"\n" not in t else
                                    b": " not in t and sum(1 for w in t.split(b" ") if w) <= 4).ok


@pytest.mark.parametrize("mistake, words", [
    (lambda t: True, "colon followed by a space"),
    (lambda t: sum(1 for w in t.split(b" ") if w) <= 4, "colon followed by a space"),
    (lambda t: b":" not in t and sum(1 for w in t.split(b" ") if w) <= 4, "a colon alone"),
    (lambda t: b": " not in t and t.count(b" ") <= 4, "count words, not spaces"),
    (lambda t: b": " not in t and sum(1 for w in t.split(b" ") if w) < 4, "four words are allowed"),
    (lambda t: b": " not in t and len(t.split()) <= 4, "newline"),
])
def test_stage2_limits_mistakes_are_named(mistake, words):
    feedback = ch17.check_stage2_limits(mistake)
    assert not feedback.ok and words in feedback.hint
    assert "split(b\" \")" not in feedback.message + feedback.hint and "<= 4" not in feedback.message + feedback.hint


def test_stage2_limits_are_checked_in_training_too():
    # right on every listed token, wrong on tokens of six words or more, which only training makes
    sneaky = (lambda t: released_stage2_allows(t) or sum(1 for w in t.split(b" ") if w) >= 6)
    feedback = ch17.check_stage2_limits(sneaky)
    assert not feedback.ok and "trained with your rule" in feedback.message


def test_stage2_limits_odd_answers():
    assert "function" in ch17.check_stage2_limits(None).message
    assert "True or False" in ch17.check_stage2_limits(lambda t: 1).message
