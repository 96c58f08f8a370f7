"""Every exercise checker answers every input with Feedback, and never raises.

An argument of the wrong type (``None``, a float, a string, a list of objects, ...) gets feedback
that names the type the checker expected. A checker that takes a learner's function answers too
when that function raises, or returns something of the wrong type; the feedback then names the
type the function should return.

The table below is the specification: for every parameter of every ``check_*`` function, the
phrase its feedback must contain and a test of which values have the right type. A new checker
(or parameter) without an entry fails :func:`test_every_checker_parameter_is_specified`.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course.bytelevel import str_to_token
from bpe_course.compare import Difference
from bpe_course.exercises import ch01, ch03, ch04, ch05, ch08, ch10, ch11, ch12, ch14, ch15, ch16, ch18, ch19, ch20, ch21
from bpe_course.exercises.feedback import Feedback
from bpe_course.pretrained import mistral_v1
from bpe_course.pretokenize import GPT2_PATTERN, GPT4_PATTERN, pretokenize
from bpe_course.tokenizer import Tokenizer
from bpe_course.algorithms.variants import is_superword, released_stage2_allows
from bpe_course.algorithms.lm import KneserNey
from bpe_course.algorithms.model_quality import Sweep
from bpe_course.train import train_bpe
from bpe_course.algorithms.wordbpe import count_pairs, merge_pair

EXERCISES = Path(ch01.__file__).parent
MODULES = [importlib.import_module(f"bpe_course.exercises.{p.stem}") for p in sorted(EXERCISES.glob("ch[0-9][0-9].py"))]


# ---------------------------------------------------------------- what each parameter must be


def is_int(v: Any) -> bool:
    return type(v) is int


def is_number(v: Any) -> bool:
    return type(v) in (int, float)


def seq_of(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, (list, tuple)) and all(test(x) for x in v)


def pair_of(types: tuple[type, ...]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, types) for x in v)


is_str = lambda v: isinstance(v, str)  # noqa: E731
str_pair, bytes_pair = pair_of((str,)), pair_of((bytes, bytearray))


@dataclass(frozen=True)
class Arg:
    """A value parameter: the phrase its wrong-type feedback names, and which values are of its type."""

    phrase: str
    right_type: Callable[[Any], bool]


@dataclass(frozen=True)
class Fn:
    """A parameter for a learner's function: the phrase naming what it must return, and which results are.

    ``or_shows``: another phrase that names the type as well (the expected value itself, say).
    """

    returns: str
    right_type: Callable[[Any], bool]
    or_shows: str = "(never)"

    def named_in(self, message: str) -> bool:
        return self.returns in message or self.or_shows in message


def practice_tokenizer() -> Tokenizer:
    return ch12.practice_tokenizer()


def save_and_reload(tok: Tokenizer, folder: Path) -> Tokenizer:
    tok.save(folder / "t.json")
    return Tokenizer.load(folder / "t.json")


def hf_ids(tok: Tokenizer, folder: Path, text: str) -> list[int]:
    import tokenizers

    tok.save(folder / "tokenizer.json", format="hf")
    return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids


def build_ids(system: str, user: str) -> list[int]:
    from bpe_course import gpt2

    tok = gpt2()
    return tok.encode_ordinary(system) + [tok.special_tokens["<|endoftext|>"]] + tok.encode_ordinary(user)


def small_sweep() -> Sweep:
    """Chapter 16's Sweep on a little text: three vocabulary sizes of the practice tokenizer."""
    text = " ".join(ch12.PRACTICE_TEXTS)
    return Sweep(practice_tokenizer(), text * 3, text, [0, 5, 20])


def stream_text(ids: list[int]) -> list[str]:
    return ch18.reference_stream(mistral_v1(), ids)


def turn_prompt(messages: list[tuple[str, str]]) -> list[int]:
    return [i for _, ids in ch19.turn_parts(messages) for i in ids]


def user_text(hf_tokenizer: Any, text: str) -> list[int]:
    before = hf_tokenizer.encode_special_tokens
    hf_tokenizer.encode_special_tokens = True
    try:
        return hf_tokenizer.encode(text).ids
    finally:
        hf_tokenizer.encode_special_tokens = before


def tiny_lattice() -> tuple[KneserNey, dict[int, bytes]]:
    """A byte-level model small enough for chapter 21's checkers to score anything quickly."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    return KneserNey([256, 97, 98, 256, 32], 2, 257), vocab


def tiny_measured() -> dict:
    """Chapter 21's ``measured``, reduced to what check_shannon_agreement reads."""
    return {v: {"ids": [0, 1, 1, 2, v - 1][: 2 + k], "canonical": {4: [(10.0 - k, 5)]}}
            for k, v in enumerate((256, 512, 1024))}


# checker name -> (valid arguments, {parameter: Arg or Fn})
SPEC: dict[str, tuple[dict[str, Any], dict[str, Arg | Fn]]] = {
    "check_oov_rate": ({"oov_rate": ch01.reference_oov_rate}, {"oov_rate": Fn("a number", is_number)}),
    "check_token_counts": ({"char_tokens": 16, "word_tokens": 3},
                           {"char_tokens": Arg("an int", is_int), "word_tokens": Arg("an int", is_int)}),
    "check_whitespace_vocab_size": ({"answer": 7}, {"answer": Arg("an int", is_int)}),
    "check_count_pairs": ({"yours": lambda words: dict(count_pairs(words))},
                          {"yours": Fn("a dict mapping pairs to counts", lambda v: isinstance(v, Mapping) and all(
                              isinstance(k, tuple) and len(k) == 2 and is_number(n) for k, n in v.items()))}),
    "check_merge_pair": ({"yours": merge_pair}, {"yours": Fn("a list of strings", seq_of(is_str))}),
    "check_regex_merge": ({"merge_by_regex": merge_pair}, {"merge_by_regex": Fn("a list of strings", seq_of(is_str))}),
    "check_lookalike_fix": ({"pattern": ch08.LOOKALIKE_FIXED}, {"pattern": Arg("a string", is_str)}),
    "check_newline_id": ({"newline_id": lambda e: e["Ċ"]}, {"newline_id": Fn("an int", is_int)}),
    "check_vocabulary_factor": ({"vocabulary_factor": lambda tok, code: 1.0},
                                {"vocabulary_factor": Fn("a number", is_number)}),
    "check_mix": ({"mix": {"eng": 1}}, {"mix": Arg("a dict from language codes to copies",
                                                   lambda v: isinstance(v, Mapping))}),
    "check_groups": ({"my_groups": ch14.groups_from_the_right},
                     {"my_groups": Fn("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str)
                                                                                              for s in v))}),
    "check_healed": ({"my_healed": ch14.healed, "tokenizers": [practice_tokenizer()]},
                     {"my_healed": Fn("a list of ids", seq_of(is_int)),
                      "tokenizers": Arg("a list of Tokenizers", lambda v: isinstance(v, (list, tuple)) and bool(v) and
                                        all(isinstance(t, Tokenizer) for t in v))}),
    "check_first_merge": ({"answer": ("u", "n")}, {"answer": Arg("a pair of strings", str_pair)}),
    "check_first_merges": ({"answer": [("t", "e"), ("te", "n"), ("te", "a")]},
                           {"answer": Arg("a list of pairs of strings", seq_of(str_pair))}),
    "check_stop": ({"merges": 7, "vocab_size": 17},
                   {"merges": Arg("an int", is_int), "vocab_size": Arg("an int", is_int)}),
    "check_learn_merges": ({"learn_merges": ch03.reference_learn_merges},
                           {"learn_merges": Fn("a list of pairs of strings", seq_of(str_pair))}),
    "check_segmentation": ({"answer": ["s", "low", "est</w>"], "word": "slowest"},
                           {"answer": Arg("a list of strings", seq_of(is_str)), "word": Arg("a string", is_str)}),
    "check_encode_text": ({"encode_text": lambda text, merges: ch04.TOY_BPE.tokenize(text)},
                          {"encode_text": Fn("a list of strings", seq_of(is_str))}),
    "check_order_matters": ({"merges": [("ab", "c"), ("a", "b")], "word": "abc"},
                            {"merges": Arg("a list of pairs of strings", seq_of(str_pair)),
                             "word": Arg("a string", is_str)}),
    "check_pad_batch": ({"pad_batch": ch05.reference_pad_batch},
                        {"pad_batch": Fn("a list of lists of ids", seq_of(seq_of(is_int)))}),
    "check_safe_prompt": ({"build_ids": build_ids}, {"build_ids": Fn("a list of ids", seq_of(is_int))}),
    "check_tokens_per_word": ({"answers": {10: 1.5, 30: 1.2, 100: 1.0}, "train_text": "low lower lowest newer " * 5,
                               "eval_text": "low slower"},
                              {"answers": Arg("a dict", lambda v: isinstance(v, Mapping)),
                               "train_text": Arg("a string", is_str), "eval_text": Arg("a string", is_str)}),
    "check_embedding_params": ({"embedding_params": lambda vocab, d: (max(vocab) + 1) * d,
                                "vocab": {0: b"a", 1: b"b", 2: b"c"}, "d_model": 8},
                               {"embedding_params": Fn("a number", is_number), "d_model": Arg("an int", is_int),
                                "vocab": Arg("a dict from ids to tokens",
                                             lambda v: isinstance(v, Mapping) and all(map(is_int, v)))}),
    "check_utf8_length": ({"text": "aé", "answer": 3}, {"text": Arg("a string", is_str), "answer": Arg("an int", is_int)}),
    "check_byte_char": ({"byte": 0x20, "answer": "Ġ"},
                        {"byte": Arg("an int from 0 to 255", lambda v: is_int(v) and 0 <= v <= 255),
                         "answer": Arg("a string", is_str)}),
    "check_utf8_encoder": ({"encode": lambda cp: chr(cp).encode("utf-8")},
                           {"encode": Fn("bytes", lambda v: isinstance(v, (bytes, bytearray)))}),
    "check_number_groups": ({"pattern": r"\d{1,3}"}, {"pattern": Arg("a string", is_str)}),
    "check_gpt2_pieces": ({"text": "it's", "answer": ["it", "'s"]},
                          {"text": Arg("a string", is_str), "answer": Arg("a list of strings", seq_of(is_str))}),
    "check_parse_merge": ({"parse": lambda line: tuple(str_to_token(part) for part in line.split(" "))},
                          # the chapter's notebook shows the feedback for strings: it gives the pair of bytes wanted
                          {"parse": Fn("a pair of bytes", bytes_pair, or_shows="should give (b' ', b't')")}),
    "check_merge_rank": ({"pair": (b" ", b"t"), "answer": 0},
                         {"pair": Arg("a pair of bytes", bytes_pair), "answer": Arg("an int", is_int)}),
    "check_toy_merges": ({"answer": [(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"abc", b"d")]},
                         {"answer": Arg("a list of pairs of bytes", seq_of(bytes_pair))}),
    "check_digit_pretokens": ({"answer": pretokenize(ch10.DIGITS_TEXT, GPT4_PATTERN)},
                              {"answer": Arg("a list of strings", seq_of(is_str))}),
    "check_gpt4_longer": ({"text": "In 1999", "gpt2_tok": practice_tokenizer(), "gpt4_tok": practice_tokenizer()},
                          {"text": Arg("a string", is_str),
                           "gpt2_tok": Arg("a tokenizer", lambda v: v is None or callable(getattr(v, "encode", None))),
                           "gpt4_tok": Arg("a tokenizer", lambda v: v is None or callable(getattr(v, "encode", None)))}),
    "check_longest_match": ({"my_longest_match": ch15.wordpiece_reference},
                            {"my_longest_match": Fn("a list of strings", lambda v: isinstance(v, list) and all(
                                isinstance(s, str) for s in v))}),
    "check_reachable": ({"my_reachable": ch15.reachable},
                        {"my_reachable": Fn("a set of tuples of bytes", lambda v: isinstance(v, (set, frozenset)) and all(
                            isinstance(t, tuple) and all(isinstance(b, bytes) for b in t) for t in v))}),
    "check_fewest_merges": ({"answer": 300, "gpt2_tok": None},
                            {"answer": Arg("an int", is_int),
                             "gpt2_tok": Arg("a Tokenizer (or None)", lambda v: v is None or isinstance(v, Tokenizer))}),
    "check_pair_delta": ({"pair_delta": ch11.true_delta},
                         {"pair_delta": Fn("a dict mapping pairs to count changes", lambda v: isinstance(v, Mapping)
                                           and all(type(n) in (int, bool) for n in v.values()))}),
    "check_safe_cut": ({"position": ch11.CUT_TEXT.index(" safe"), "text": ch11.CUT_TEXT, "pattern": GPT2_PATTERN},
                       {"position": Arg("an int", is_int), "text": Arg("a string", is_str),
                        "pattern": Arg("a string", is_str)}),
    "check_train_words": ({"train_words": lambda counts, n: train_bpe(ch11.TRAIN_TEXT, 256 + n, method="naive")[1]},
                          {"train_words": Fn("a list of pairs of bytes", seq_of(bytes_pair))}),
    "check_save_and_reload": ({"save_and_reload": save_and_reload},
                              {"save_and_reload": Fn("a Tokenizer", lambda v: isinstance(v, Tokenizer))}),
    "check_single_token_fraction": ({"fraction": 0.5, "tok": practice_tokenizer(), "text": ch12.PRACTICE_TEXTS[1]},
                                    {"fraction": Arg("a number", is_number),
                                     "tok": Arg("a Tokenizer", lambda v: isinstance(v, Tokenizer)),
                                     "text": Arg("a string", is_str)}),
    "check_hf_ids": ({"hf_ids": hf_ids}, {"hf_ids": Fn("a list of ids", seq_of(is_int))}),
    "check_continuations": ({"continuation_counts": ch16.continuation_reference},
                            {"continuation_counts": Fn("a dict mapping pairs of token ids to counts", lambda v: isinstance(
                                v, dict) and all(isinstance(k, tuple) and len(k) == 2 and is_int(n)
                                                 for k, n in v.items()))}),
    "check_order_minimum": ({"minimum_at": 256, "clearly_ahead_of": [], "sweep": small_sweep()},
                            {"minimum_at": Arg("an int", is_int),
                             "clearly_ahead_of": Arg("a list of vocabulary sizes", lambda v: isinstance(
                                 v, (list, tuple, set)) and all(is_int(x) for x in v)),
                             "sweep": Arg("the chapter's Sweep", lambda v: isinstance(v, Sweep))}),
    "check_dearer_in_bits": ({"languages": ["Tamil"], "tax_bits": {}},
                             {"languages": Arg("a list of strings", seq_of(is_str)),
                              "tax_bits": Arg("the chapter's tax_bits", lambda v: isinstance(v, Mapping))}),
    "check_picky_removal": ({"my_picky": lambda counts, n, threshold: []},
                            {"my_picky": Fn("a list of (merge number, token) pairs", lambda v: isinstance(v, list)
                                            and all(isinstance(r, tuple) and len(r) == 2 and is_int(r[0])
                                                    and isinstance(r[1], bytes) for r in v))}),
    "check_stage2_limits": ({"stage2_allows": released_stage2_allows},
                            {"stage2_allows": Fn("True or False", lambda v: isinstance(v, bool))}),
    "check_superword": ({"spans_words": is_superword},
                        {"spans_words": Fn("True or False", lambda v: isinstance(v, bool))}),
    "check_stream": ({"stream_text": stream_text},
                     {"stream_text": Fn("a list of strings, one per id", lambda v: isinstance(v, list) and all(
                         isinstance(x, str) for x in v))}),
    "check_line_units": ({"difference": ch18.expected_difference()},
                         {"difference": Arg("a Difference", lambda v: isinstance(v, Difference))}),
    "check_turn_prompt": ({"my_turn_prompt": turn_prompt}, {"my_turn_prompt": Fn("a list of ids", seq_of(is_int))}),
    "check_user_text": ({"encode_user_text": user_text}, {"encode_user_text": Fn("a list of ids", seq_of(is_int))}),
    "check_allowed_interval": ({"allowed_interval": ch20.interval_reference},
                               {"allowed_interval": Fn("a pair (low, high) of numbers, or None", lambda v: v is None or (
                                   isinstance(v, (list, tuple)) and len(v) == 2 and all(is_number(x) for x in v)))}),
    "check_few_merges": ({"answer": 0.1, "n_seeds": 1, "n_languages": 2},
                         {"answer": Arg("a number", is_number), "n_seeds": Arg("an int", is_int),
                          "n_languages": Arg("an int", is_int)}),
    "check_tekken_scripts": ({"answer": 0.3, "categories": {"eng": ["All human beings are born free."],
                                                            "rus": ["Все люди рождаются свободными."]}},
                             {"answer": Arg("a number", is_number),
                              "categories": Arg("a dict from category names to lists of texts", lambda v: isinstance(
                                  v, Mapping) and bool(v) and all(isinstance(k, str) and isinstance(x, (list, tuple))
                                                                  and all(isinstance(d, str) for d in x)
                                                                  for k, x in v.items()))}),
    "check_unigram_marginal": ({"unigram_marginal_bits": ch21.unigram_reference},
                               {"unigram_marginal_bits": Fn("a number", is_number)}),
    "check_shannon_agreement": ({"answer": 0.5, "measured": tiny_measured()},
                                {"answer": Arg("a number", is_number),
                                 "measured": Arg("the chapter's measured dict", lambda v: isinstance(v, Mapping) and bool(v)
                                                 and all(isinstance(m, Mapping) and {"ids", "canonical"} <= set(m)
                                                         for m in v.values()))}),
    "check_inside_pretokens": ({"answer": 1.0, "model": tiny_lattice()[0], "text": "abab", "vocab": tiny_lattice()[1]},
                               {"answer": Arg("a number", is_number),
                                "model": Arg("a KneserNey model", lambda v: isinstance(v, KneserNey)),
                                "text": Arg("a string", lambda v: isinstance(v, str) and bool(v)),
                                "vocab": Arg("a dict from ids to token bytes", lambda v: isinstance(v, Mapping) and bool(v)
                                             and all(is_int(i) and isinstance(t, bytes) for i, t in v.items()))}),
}


def checkers() -> dict[str, Callable[..., Feedback]]:
    found = {}
    for module in MODULES:
        for name, fn in vars(module).items():
            if name.startswith("check_") and inspect.isfunction(fn) and fn.__module__ == module.__name__:
                found[name] = fn
    return found


CHECKERS = checkers()
PARAMETERS = [(name, param) for name, (_, params) in SPEC.items() for param in params]
ARGS = [(name, param) for name, param in PARAMETERS if isinstance(SPEC[name][1][param], Arg)]
FUNCTIONS = [(name, param) for name, param in PARAMETERS if isinstance(SPEC[name][1][param], Fn)]


def call(name: str, param: str, value: Any) -> Feedback:
    """``name`` with its valid arguments, except ``param`` = ``value``; it must return Feedback."""
    valid, _ = SPEC[name]
    result = CHECKERS[name](**{**valid, param: value})
    assert isinstance(result, Feedback), (name, param, value, result)
    assert isinstance(result.message, str) and result.message, (name, param, value)
    return result


def assert_names_type(name: str, param: str, value: Any) -> None:
    spec = SPEC[name][1][param]
    feedback = call(name, param, value)
    if not (callable(value) if isinstance(spec, Fn) else spec.right_type(value)):
        phrase = "a function" if isinstance(spec, Fn) else spec.phrase
        assert not feedback.ok and phrase in feedback.message, (name, param, value, feedback.message)


def test_every_checker_parameter_is_specified() -> None:
    assert len(CHECKERS) >= 32
    assert set(CHECKERS) == set(SPEC)
    for name, fn in CHECKERS.items():
        assert set(inspect.signature(fn).parameters) == set(SPEC[name][1]), name


@pytest.mark.parametrize("name", sorted(SPEC))
def test_valid_arguments_are_valid(name: str) -> None:
    """The table's valid arguments: the ones the tests hold fixed while one parameter varies."""
    feedback = CHECKERS[name](**SPEC[name][0])
    assert isinstance(feedback, Feedback)
    for spec in SPEC[name][1].values():
        phrase = spec.phrase if isinstance(spec, Arg) else spec.returns
        assert f"is not {phrase}" not in feedback.message and f"not {phrase}:" not in feedback.message, feedback.message


# ---------------------------------------------------------------- wrong-typed values

class Hostile:
    """A value whose every comparison, conversion and repr fails."""

    def fail(self, *args: Any) -> Any:
        raise RuntimeError("hostile")

    __eq__ = __ne__ = __lt__ = __gt__ = __hash__ = __repr__ = __str__ = __bool__ = __len__ = __iter__ = fail
    __index__ = __int__ = __float__ = fail


WRONG = [None, ..., 3.5, float("nan"), -7, 2**70, True, "a string", "", b"bytes", [object()], [1, "a", None],
         (1, 2, 3), ("a", 2), {"a": 1}, {1, 2}, object(), int, [[]], [("a", "b", "c")], [(b"a", "b")],
         itertools.count(), Hostile(), [Hostile()]]


@pytest.mark.parametrize("name, param", PARAMETERS)
def test_wrong_types_get_feedback_naming_the_type(name: str, param: str) -> None:
    for value in WRONG:
        assert_names_type(name, param, value)


leaves = st.one_of(
    st.none(), st.just(...), st.booleans(), st.integers(), st.floats(), st.complex_numbers(max_magnitude=10),
    st.text(max_size=8), st.binary(max_size=8), st.builds(object), st.builds(Hostile),
    st.sampled_from([len, int, str, print]),
)
anything = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner), st.frozensets(st.integers(), max_size=3),
        st.dictionaries(st.one_of(st.integers(), st.text(max_size=3), st.tuples(st.text(max_size=2), st.text(max_size=2))),
                        inner, max_size=3),
    ),
    max_leaves=6,
)
fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


@fast
@given(st.sampled_from(ARGS), anything)
def test_any_value_gets_feedback(where: tuple[str, str], value: Any) -> None:
    assert_names_type(*where, value)


# ---------------------------------------------------------------- a learner's function that misbehaves


@pytest.mark.parametrize("name, param", FUNCTIONS)
def test_functions_that_raise_or_return_the_wrong_type(name: str, param: str) -> None:
    spec = SPEC[name][1][param]

    def raises(*args: Any) -> Any:
        raise RuntimeError("the learner's bug")

    feedback = call(name, param, raises)
    assert not feedback.ok and "raised RuntimeError: the learner's bug" in feedback.message, feedback.message
    takes_nothing = call(name, param, lambda: 0)
    assert not takes_nothing.ok and "raised TypeError" in takes_nothing.message, takes_nothing.message
    for value in WRONG:
        feedback = call(name, param, lambda *args, value=value: value)
        if not spec.right_type(value):
            assert not feedback.ok and spec.named_in(feedback.message), (name, value, feedback.message)


@fast
@given(st.sampled_from(FUNCTIONS), anything)
def test_any_result_gets_feedback(where: tuple[str, str], value: Any) -> None:
    name, param = where
    spec = SPEC[name][1][param]
    feedback = call(name, param, lambda *args: value)
    if not spec.right_type(value):
        assert not feedback.ok and spec.named_in(feedback.message), (name, value, feedback.message)


def test_the_issue_examples() -> None:
    """The calls that raised before: KeyError, AttributeError and TypeError from deep inside."""
    from bpe_course.exercises import ch07

    assert "is not a string (it is a float)" in ch07.check_byte_char(0x20, 3.5).message
    assert "byte=3.5 is not an int from 0 to 255 (it is a float)" in ch07.check_byte_char(3.5, "x").message
    assert "3.5 is not an int (it is a float)" in ch07.check_utf8_length("aé", 3.5).message
    assert "text=3.5 is not a string" in ch07.check_utf8_length(3.5, 3).message
    assert "no answer yet" in ch10.check_digit_pretokens(None).message
    assert "(a list of strings)" in ch10.check_digit_pretokens(None).message
    assert "is not a list of strings (it is a list of object)" in ch10.check_digit_pretokens([object()]).message


# ---------------------------------------------------------------- any value a learner can type, however large

HUGE = 10**4999  # 5,000 digits: past Python's limit on turning an int into text (4,300 digits), so it has no repr
SHOWS_HUGE = {("check_token_counts", "word_tokens"), ("check_whitespace_vocab_size", "answer"),
              ("check_stop", "merges"), ("check_fewest_merges", "answer"), ("check_safe_cut", "position")}


@pytest.mark.parametrize("name, param", PARAMETERS)
def test_a_5000_digit_int_gets_feedback(name: str, param: str) -> None:
    """A 5,000-digit int as every argument (or what a learner's function returns), alone or in a container."""
    spec = SPEC[name][1][param]
    for value in (HUGE, -HUGE, [HUGE], (HUGE, HUGE), {"a": HUGE}, {HUGE: 1}):
        feedback = call(name, param, (lambda *args, value=value: value) if isinstance(spec, Fn) else value)
        assert "Exceeds the limit" not in feedback.message, (name, param, feedback.message)
    if (name, param) in SHOWS_HUGE:  # the checkers that show the answer back show its size instead
        assert "an integer of 5,000 digits" in call(name, param, HUGE).message
