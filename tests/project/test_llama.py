"""Llama 3 and Llama 4 through the registry (pretrained.NAMED), against Meta's own llama-models 0.3.0.

The oracle is llama-models' ``Tokenizer`` (its ranks, pattern and specials in a ``tiktoken.Encoding``,
``.model``) encoding the whole text at once. Its ``Tokenizer.encode`` cuts text into windows first
(400,000 characters, and runs of over 25,000 spaces or non-spaces), which moves a few ids at the
cuts; :func:`test_meta_s_windows_move_ids_at_the_cuts_only` shows where, and chapter 19 shows it too.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import corpus
from bpe_course.bpe import merge_bytes
from bpe_course.errors import HashMismatchError, TokenizerFileError
from bpe_course.pretokenize import GPT4O_PATTERN, LLAMA3_PATTERN
from bpe_course.pretrained import NAMED, llama3, llama4, load, named_file
from bpe_course.tokenizer import Tokenizer
from bpe_course.unicode_classes import unicode_disagreements

pretokenize_module = importlib.import_module("bpe_course.pretokenize")  # the package's name is a function
NAMES = ["llama3", "llama4"]
OURS = {"llama3": llama3, "llama4": llama4}


@lru_cache(maxsize=2)
def meta(name: str):
    """llama-models' own Tokenizer (its singleton, read from the wheel's file)."""
    module = importlib.import_module(f"llama_models.{name}.tokenizer")
    return module.Tokenizer.get_instance()


def whole(name: str, text: str, **options) -> list[int]:
    """Meta's ranks, pattern and specials, tiktoken over the whole text (no windows)."""
    return meta(name).model.encode(text, **options)


def fresh(name: str) -> Tokenizer:
    """A new instance with an empty piece cache."""
    base = OURS[name]()
    return Tokenizer(base.vocab, base.merges, base.special_tokens, base.pattern)


@pytest.mark.parametrize("name", NAMES)
def test_vocab_specials_and_pattern_are_meta_s(name):
    ours, theirs = OURS[name](), meta(name)
    ranks = theirs.model._mergeable_ranks
    assert {ours.vocab[i]: i for i in range(len(ranks))} == ranks
    assert ours.special_tokens == theirs.special_tokens
    assert ours.n_vocab == len(ours.vocab) == theirs.n_words == {"llama3": 128_256, "llama4": 202_048}[name]
    assert ours.pattern == theirs.model._pat_str == {"llama3": LLAMA3_PATTERN, "llama4": GPT4O_PATTERN}[name]
    assert theirs.encode("This is a test sentence.", bos=True, eos=True) == (
        [ours.special_tokens["<|begin_of_text|>"]] + ours.encode("This is a test sentence.")
        + [ours.special_tokens["<|end_of_text|>"]])


def _corpora() -> dict[str, str]:
    texts = {name: corpus.load(name) for name in corpus.names()}
    texts |= {f"udhr/{code}": "\n\n".join(corpus.udhr(code).values()) for code in corpus.UDHR_LANGUAGES}
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_the_course_s_corpora_give_meta_s_ids(name):
    ours = fresh(name)
    differ = [key for key, text in _corpora().items()
              if ours.encode_ordinary(text) != whole(name, text, disallowed_special=())]
    assert differ == []


# ---- any string -----------------------------------------------------------------------------------
_TRICKY = sorted(unicode_disagreements())  # characters the regex module and tiktoken class differently
_ALPHABET = list("aZé 1\n\r\t'sS.:/-_") + ["\u00a0", "\u3000", "\u200b", "我", "ひ", "한", "ि", "\U0001F642"] + \
    random.Random(35).sample(_TRICKY, 64)
PIECES = ["'re", "'LL", " 12345", "\n\n  ", "<|eot_id|>", "<|eot|>", "<|begin_of_text|>", "</s>", ".:.:", " việc",
          "ektedir", " jeho", "HelloWorld"]
texts = st.lists(st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from(_ALPHABET),
                           st.sampled_from(PIECES)), max_size=40).map("".join)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=texts)
def test_any_string_gives_meta_s_ids(name, text):
    ours = OURS[name]()
    assert ours.encode_ordinary(text) == whole(name, text, disallowed_special=())
    assert ours.encode(text, allowed_special="all") == whole(name, text, allowed_special="all")


def _tricky_strings(n: int = 2000) -> list[str]:
    rng = random.Random(3)
    return ["".join(rng.choice(_TRICKY) if rng.random() < 0.3 else rng.choice("ab1 2.\n")
                    for _ in range(rng.randint(1, 12))) for _ in range(n)]


def test_llama3_splits_on_tiktoken_s_unicode_tables(monkeypatch):
    """Why LLAMA3_PATTERN is one of pretokenize.TIKTOKEN_PATTERNS: run on the regex module's own tables, as a
    pattern the package does not know is, it gives other ids on some strings of characters the two class
    differently; on tiktoken's tables, on none."""
    strings = _tricky_strings()
    expected = [whole("llama3", s, disallowed_special=()) for s in strings]
    ours = fresh("llama3")
    assert [ours.encode_ordinary(s) for s in strings] == expected
    monkeypatch.setattr(pretokenize_module, "TIKTOKEN_PATTERNS",
                        tuple(p for p in pretokenize_module.TIKTOKEN_PATTERNS if p != LLAMA3_PATTERN))
    ours = fresh("llama3")
    assert sum(ours.encode_ordinary(s) != e for s, e in zip(strings, expected)) > 0


# ---- the tokens BPE over lower ranks cannot make ----------------------------------------------------
@pytest.mark.parametrize("name, count", [("llama3", 678), ("llama4", 0)])
def test_tokens_no_bpe_makes_get_a_split_and_give_meta_s_ids(name, count):
    ours = OURS[name]()
    ranks = {ours.vocab[i]: i for i in range(len(ours.vocab)) if i not in ours.special_tokens.values()}
    unmade = [t for t, r in ranks.items() if len(t) > 1 and len(merge_bytes(t, ranks, r)) != 2]
    assert len(unmade) == count
    assert all(ranks[t] >= 100_256 for t in unmade)  # none of cl100k's own ranks
    made = {a + b: (a, b) for a, b in ours.merges}
    assert all(ranks[made[t][0]] < ranks[t] and ranks[made[t][1]] < ranks[t] for t in unmade)
    words = [t.decode("utf-8") for t in unmade if t.decode("utf-8", "replace") == t.decode("utf-8", "ignore")]
    for word in words:
        for text in (word, f"x{word}", f"{word} {word}!", f"({word}{word})"):
            assert ours.encode_ordinary(text) == whole(name, text, disallowed_special=()), text


# ---- Meta's windows ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_meta_s_windows_move_ids_at_the_cuts_only(name):
    ours = OURS[name]()
    text = "1" * 25_001  # one run of 25,001 non-spaces: Meta cuts it into 25,000 + 1
    windowed = meta(name).encode(text, bos=False, eos=False)
    assert ours.encode_ordinary(text) == whole(name, text, disallowed_special=())
    assert len(windowed) == len(ours.encode_ordinary(text)) + 1
    assert ours.decode(windowed) == text
    for text in ("x" * 25_001, "The cat sat. " * 10):  # no cut inside a piece: the same ids
        assert meta(name).encode(text, bos=False, eos=False) == ours.encode_ordinary(text)


# ---- files and packages -----------------------------------------------------------------------------------
def test_a_damaged_file_is_refused_naming_it(tmp_path):
    cut = tmp_path / "tokenizer.model"
    data = named_file("llama3").read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(HashMismatchError, match=r"tokenizer\.model: sha256 is [0-9a-f]{64}, expected 82e9d3"):
        llama3(cut, cache=False)
    with pytest.raises(TokenizerFileError, match=r"tokenizer\.model, line \d+: the file ends in the middle of a line"):
        llama3(cut, verify=False, cache=False)


def test_the_registry_reads_the_file_without_importing_llama_models():
    code = ("import sys; from bpe_course import pretrained\n"
            "t = pretrained.load('llama4'); print(t.encode('hello world'), 'llama_models' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("]")[1].strip() == "False"
    assert NAMED["llama3"].extra == NAMED["llama4"].extra == "interop"
    assert load("llama3") is llama3() and load("llama4") is llama4()


@pytest.mark.parametrize("name", NAMES)
def test_the_command_line_offers_them(name):
    text = "Hello <|eot_id|> world 12345"
    done = subprocess.run([sys.executable, "-m", "bpe_course", "encode", "--tokenizer", name, text],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [int(i) for i in done.stdout.split()] == meta(name).encode(text, bos=False, eos=False)  # typed: text


def test_the_merge_count_slider_s_truncated_llama3_is_tiktoken_given_only_those_ranks():
    """The merge-count slider cuts Llama 3 at k merges: its ids are tiktoken's with only the ranks below 256 + k,
    including where one of the 678 tokens no BPE makes is kept (its merge is nominal, its rank real)."""
    import tiktoken
    ours = llama3()
    ranks = meta("llama3").model._mergeable_ranks
    text = "a .:.: b; việc jeho ektedir, HelloWorld 12345 — 日本語 'll"
    for k in (1_000, 100_000, 100_166, 100_400, 127_744):
        below = {t: r for t, r in ranks.items() if r < 256 + k}
        cut = tiktoken.Encoding(f"llama3-{k}", pat_str=LLAMA3_PATTERN, mergeable_ranks=below, special_tokens={})
        assert ours.encode_ordinary_truncated(text, k) == cut.encode_ordinary(text), k
