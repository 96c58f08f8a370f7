"""Checkers for chapter 13 (the token tax): the vocabulary's part of a language's cost, and a
training mix of your own.

>>> from bpe_course import corpus
>>> def size(tok, code, measure):
...     return sum(measure(tok, corpus.udhr(code)[k]) for k in ARTICLES)
>>> def vocabulary_factor(tok, language):
...     tokens = lambda t, text: len(t.encode_ordinary(text))
...     utf8 = lambda t, text: len(text.encode("utf-8"))
...     return (size(tok, language, tokens) / size(tok, "eng", tokens)) / (size(tok, language, utf8) / size(tok, "eng", utf8))
>>> check_vocabulary_factor(vocabulary_factor).ok
True
>>> check_mix({**MIXES["balanced"], "tam": 2, "ell_monotonic": 2, "hin": 2}).ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import corpus
from ..pretrained import cl100k, gpt2
from ..tokenizer import Tokenizer
from ..algorithms.token_tax import relative_costs, train_on_mix
from ..corpus import ARTICLES, HELDOUT_ARTICLES, MIXES, language_name
from .feedback import FUNCTION, NUMBER, Feedback, Kind, correct, count, expect, far_off, returned, short, wrong

FACTOR_LANGUAGES = ["eng", "swh", "rus", "tam", "cmn_hans"]  # English first: its factor must be 1
TOLERANCE = 0.001  # relative


def _sizes(tok: Tokenizer, code: str, joined: bool = False) -> tuple[int, int, int]:
    """Tokens, UTF-8 bytes and characters of all 30 articles of one language, encoded one by one (or
    ``joined`` with newlines into one text: a learner may do either)."""
    texts = [corpus.udhr(code)[k] for k in ARTICLES]
    if joined:
        texts = ["\n".join(texts)]
    return (sum(len(tok.encode_ordinary(t)) for t in texts), sum(len(t.encode("utf-8")) for t in texts),
            sum(len(t) for t in texts))


def _close(got: float, want: float) -> bool:
    return not far_off(got) and abs(got - want) <= TOLERANCE * abs(want)


def _factor(tok: Tokenizer, code: str, joined: bool) -> float:
    (tokens, utf8, _), (english_tokens, english_utf8, _) = _sizes(tok, code, joined), _sizes(tok, "eng", joined)
    return (tokens / english_tokens) / (utf8 / english_utf8)


def check_vocabulary_factor(vocabulary_factor: Callable[[Tokenizer, str], float]) -> Feedback:
    """Exercise 13.1: ``vocabulary_factor(tokenizer, language)`` -> the token ratio to English over all 30
    articles, divided by the UTF-8 byte ratio to English, for GPT-2 and cl100k and a few languages."""
    if (problem := expect(vocabulary_factor, FUNCTION)) is not None:
        return problem
    tokenizers = {"GPT-2": gpt2(), "cl100k": cl100k()}
    found: dict[str, list[str]] = {}
    for label, tok in tokenizers.items():
        english = _sizes(tok, "eng")
        for code in FACTOR_LANGUAGES:
            shown = f"vocabulary_factor({label}, {code!r})"
            try:
                got = vocabulary_factor(tok, code)
            except Exception as exc:  # a learner's function may fail in any way: report it, don't crash
                return wrong(f"{shown} raised {type(exc).__name__}: {exc}",
                             "the function gets one of the chapter's tokenizers and a language code such as 'swh'")
            if (problem := returned(got, NUMBER, shown, "return one number, the factor")) is not None:
                return problem
            if far_off(got):
                return wrong(f"{shown} = {count(got)}: far from any ratio of sizes", "a factor is a ratio near 1")
            tokens, utf8, chars = _sizes(tok, code)
            token_ratio, byte_ratio, char_ratio = tokens / english[0], utf8 / english[1], chars / english[2]
            want = token_ratio / byte_ratio
            if _close(got, want) or _close(got, _factor(tok, code, joined=True)):
                found.setdefault(label, []).append(f"{language_name(code)} {want:.2f}")
                continue
            if code == "eng":
                return wrong(f"{shown} = {got:.3f}", "English measured against itself: what should its factor be?")
            if _close(got, token_ratio):
                return wrong(f"{shown} = {got:.3f} is the whole token ratio",
                             "part of that ratio is charged before any tokenizer runs (section 2): take it out")
            if _close(got, 1 / want) or _close(got, byte_ratio / token_ratio):
                return wrong(f"{shown} = {got:.3f}: the other way round",
                             "a factor above 1 should mean the vocabulary serves the language worse than English")
            if _close(got, token_ratio / char_ratio):
                return wrong(f"{shown} = {got:.3f} divides by the ratio of characters",
                             "which unit does a byte-level tokenizer start from?")
            if _close(got, byte_ratio):
                return wrong(f"{shown} = {got:.3f} depends on the text alone, not on the tokenizer",
                             "the factor needs the tokens too")
            return wrong(f"{shown} = {got:.3f} is not the factor",
                         "measure all 30 articles (ARTICLES) of the language and of English with the same "
                         "tokenizer; compare your token ratio with section 3's table and your byte ratio with section 2's")
    shown = "; ".join(f"{label}: {', '.join(parts[1:])}" for label, parts in found.items())
    return correct(f"right for {len(FACTOR_LANGUAGES)} languages with both tokenizers ({shown}).")


MIX = Kind("a dict from language codes to copies", lambda v: isinstance(v, Mapping),
           '{"eng": 1, "tam": 2}', "start from dict(MIXES['balanced']) and change the numbers")
MAX_COPIES = 100  # every copy is more text to train on: keep the checker quick


def _held_out_ratios(mix: Mapping[str, int]) -> dict[str, float]:
    costs = relative_costs({"mix": train_on_mix(mix)}, articles=HELDOUT_ARTICLES)
    grouped = costs.groupby("language", sort=False)
    return (grouped["tokens"].sum() / grouped["english_tokens"].sum()).to_dict()


def check_mix(mix: Mapping[str, int]) -> Feedback:
    """Exercise 13.2: a training mix whose costliest language, on the held-out articles, costs less than
    the balanced mix's costliest (both relative to English, with the chapter's vocabulary size)."""
    if (problem := expect(mix, MIX)) is not None:
        return problem
    unknown = [code for code in mix if code not in corpus.UDHR_LANGUAGES]
    if unknown:
        return wrong(f"{short(unknown[0])} is not one of the languages", f"codes: {', '.join(corpus.UDHR_LANGUAGES)}")
    bad = [code for code, copies in mix.items() if not (isinstance(copies, int) and not isinstance(copies, bool))
           or copies < 0]
    if bad:
        return wrong(f"mix[{bad[0]!r}] = {count(mix[bad[0]])}: copies are whole numbers, 0 or more", "for example 2")
    total = sum(mix.values())
    if total == 0:
        return wrong("the mix holds no text", "give at least one language one copy")
    if total > MAX_COPIES:
        return wrong(f"{total} copies in all: more than {MAX_COPIES}", "a few copies of a few languages are enough")
    mix = {code: copies for code, copies in mix.items() if copies}
    baseline = _held_out_ratios(MIXES["balanced"])
    ratios = _held_out_ratios(mix)
    worst, base_worst = max(ratios, key=ratios.__getitem__), max(baseline, key=baseline.__getitem__)
    if mix == MIXES["balanced"]:
        return wrong(f"that is the balanced mix itself: {worst} costs {ratios[worst]:.2f}× English",
                     "change how many copies some languages get")
    if ratios[worst] < baseline[base_worst]:
        return correct(f"the costliest language is now {worst} at {ratios[worst]:.2f}× English, against "
                       f"{base_worst}'s {baseline[base_worst]:.2f}× with the balanced mix. Who paid for it? "
                       f"Compare the other languages with the balanced mix's column.")
    return wrong(f"the costliest language is {worst} at {ratios[worst]:.2f}× English; with the balanced mix it "
                 f"is {base_worst} at {baseline[base_worst]:.2f}×",
                 "the merges go to the pairs that are most frequent in the training bytes: whose bytes would "
                 "need to be more frequent?")
