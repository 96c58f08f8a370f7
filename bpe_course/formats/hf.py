"""Hugging Face's ``tokenizer.json`` (``format="hf"``), which ``tokenizers.Tokenizer.from_file`` loads.

What we write gives the same ids as ours on any text, special tokens included:

* model ``BPE`` with the vocab (GPT-2 byte alphabet) and the merges in order, and
  ``ignore_merges: true`` -- a pre-token that is a whole vocab token becomes that token without
  merging, as in tiktoken and ours (the option exists since tokenizers 0.19; tested with 0.23);
* pre-tokenizer ``Sequence([Split(Regex(our pattern), "isolated"), ByteLevel(use_regex=False)])``
  (just ``ByteLevel(use_regex=False)`` for ``pattern="none"``): our regex, not HF's default;
* decoder ``ByteLevel``; no normalizer, no post-processor;
* special tokens as ``added_tokens`` (``special: true``, no stripping), also listed in
  ``model.vocab`` under their text: HF gives an added token the id it has in the model's vocab,
  and otherwise numbers it from the vocab size, which loses ids such as cl100k's 100257.

Differences to know, all checked by ``tests/formats/test_hf.py``:

* HF always splits out added tokens, so its ids equal ``encode(text, allowed_special="all")``;
  with ``hf.encode_special_tokens = True`` they equal ``encode_ordinary(text)``.
* ``hf.decode`` skips special tokens unless ``skip_special_tokens=False``, and its ByteLevel
  decoder reads the *text* of a special token through the byte alphabet: the alphabet's
  non-ASCII characters (``¡``-``ÿ``, ``Ā``-``Ń``) become single bytes, so ``"Ġz"`` decodes as
  ``" z"`` and ``"¡x"`` as ``"\ufffdx"``; specials of other characters (ASCII, spaces, CJK)
  decode as ours. Ids are unaffected. A special spelled like an ordinary token cannot be written.
* HF's regex engine (Oniguruma) reads ``X{1,3}+`` as "one or more of ``X{1,3}``", not as a
  possessive repeat; :func:`hf_regex` writes it as the atomic group ``(?>X{1,3})`` instead, which
  matches the same. Oniguruma's ``$`` also matches before any newline; GPT-2's and GPT-4's
  patterns only use it after ``\\s++``, where this makes no difference. Other custom patterns
  are passed through as they are and are not guaranteed to split alike.

Reading accepts byte-level BPE files: merges as ``"a b"`` strings or ``["a", "b"]`` pairs; a
``ByteLevel`` pre-tokenizer (``use_regex`` means GPT-2's pattern, which HF's built-in regex is
equivalent to) or our ``Split`` + ``ByteLevel`` sequence; added tokens become special tokens. A
normalizer, a prefix space, stripping added tokens, or a non-BPE model is refused with a clear
error. Ours always uses the whole-token shortcut, as if ``ignore_merges`` were true; decoder and
post-processor (e.g. a template adding ``<s>``) are ignored, as with ``add_special_tokens=False``.

>>> hf_regex(r"\\p{N}{1,3}+|\\s++$")
'(?>\\\\p{N}{1,3})|\\\\s++$'
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..bytelevel import token_to_str
from ..errors import TokenizerFileError
from ..files import write_atomic
from ..pretokenize import GPT2_PATTERN, GPT4_PATTERN
from ..regex_syntax import is_possessive, is_quantifier, pattern_parts
from .common import (MAX_ID, TokenizerData, check_merges_known, is_id, parse_merge, parse_token, read_json,
                     special_token_bytes)

_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}


def hf_regex(pattern: str) -> str:
    """``pattern`` rewritten for Oniguruma: each possessive interval ``X{m,n}+`` becomes ``(?>X{m,n})``."""
    out: list[str] = []
    groups: list[int] = []
    last: int | None = None  # where in `out` the last complete atom starts
    for part in pattern_parts(pattern):
        if part.startswith("("):  # a group opens: (, (?:, (?i: ...
            groups.append(len(out))
            last = None
        elif part == ")":
            last = groups.pop() if groups else None
        elif is_quantifier(part):
            if part.startswith("{") and is_possessive(part) and last is not None:  # wrap the atom and its repeat
                atom = "".join(out[last:]) + part[:-1]
                del out[last:]
                part = f"(?>{atom})"
        else:
            last = None if part == "|" else len(out)
        out.append(part)
    return "".join(out)


def to_hf_json(tokenizer) -> dict:
    """``tokenizer`` as the JSON object of a Hugging Face ``tokenizer.json``."""
    special_ids = {i: s for s, i in tokenizer.special_tokens.items()}
    vocab: dict[str, int] = {}
    for i, token in sorted(tokenizer.vocab.items()):
        key = special_ids.get(i) or token_to_str(token)
        if key in vocab:
            raise ValueError(f"a tokenizer.json vocab cannot hold both id {vocab[key]} and id {i}: both are written "
                             f"{key!r} (a special token spelled like an ordinary token in GPT-2's byte alphabet)")
        vocab[key] = i
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, s in sorted(special_ids.items())]
    if tokenizer.pattern is None:
        pre_tokenizer = dict(_BYTE_LEVEL)
    else:
        split = {"type": "Split", "pattern": {"Regex": hf_regex(tokenizer.pattern)}, "behavior": "Isolated",
                 "invert": False}
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, dict(_BYTE_LEVEL)]}
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
             "vocab": vocab, "merges": [f"{token_to_str(a)} {token_to_str(b)}" for a, b in tokenizer.merges]}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
            "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": dict(_BYTE_LEVEL), "model": model}


def save_hf(tokenizer, path: str | os.PathLike) -> None:
    write_atomic(Path(path), json.dumps(to_hf_json(tokenizer), ensure_ascii=False, indent=1) + "\n")


def load_hf(path: str | os.PathLike, data: dict | None = None) -> TokenizerData:
    """Read a byte-level BPE ``tokenizer.json`` (``data`` if it was already parsed)."""
    return from_hf_json(read_json(path) if data is None else data, path)


def from_hf_json(data: dict, source: str | os.PathLike = "<tokenizer.json>") -> TokenizerData:
    """The tokenizer in a parsed ``tokenizer.json``; errors name the JSON key."""
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), dict) or \
            not isinstance(model.get("merges"), list):
        raise TokenizerFileError(f"{source}: not a tokenizer.json with a BPE model (\"model\" with \"vocab\" "
                                 "and \"merges\")")
    if model.get("type", "BPE") != "BPE":
        raise TokenizerFileError(f"{source}: model.type is {model['type']!r}; only byte-level BPE can be read")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key):
            raise TokenizerFileError(f"{source}: model.{key} is {model[key]!r}; byte-level BPE has none")
    if model.get("dropout"):
        raise TokenizerFileError(f"{source}: model.dropout is {model['dropout']!r}; random dropout is not supported")
    if data.get("normalizer") is not None:
        kind = data["normalizer"].get("type") if isinstance(data["normalizer"], dict) else data["normalizer"]
        raise TokenizerFileError(f"{source}: normalizer {kind!r} is not supported (ours has no normalization step)")
    pattern = _pattern_of(data.get("pre_tokenizer"), source)
    specials = _added_tokens(data.get("added_tokens", []), source)
    special_ids = set(specials.values())
    vocab: dict[int, bytes] = {}
    for text, i in model["vocab"].items():
        where = f"{source}: model.vocab[{text!r}]"
        if not is_id(i):
            raise TokenizerFileError(f"{where}: id {i!r} is not an integer from 0 to {MAX_ID}")
        if i in special_ids:
            continue  # the added token's own entry: its text is plain text, not byte alphabet
        if i in vocab:
            raise TokenizerFileError(f"{where}: id {i} is used twice")
        vocab[i] = parse_token(text, where)
    for s, i in specials.items():
        vocab[i] = special_token_bytes(s, f"{source}: added_tokens")
    merges = [_merge(m, f"{source}: model.merges[{k}]") for k, m in enumerate(model["merges"])]
    ordinary = {t for i, t in vocab.items() if i not in special_ids}
    check_merges_known(merges, ordinary, lambda k: f"{source}: model.merges[{k}]")
    return TokenizerData(vocab, merges, specials, pattern)


def _merge(item: object, where: str) -> tuple[bytes, bytes]:
    if isinstance(item, list):
        if len(item) != 2:
            raise TokenizerFileError(f"{where}: expected a pair of tokens, got {item!r}")
        return parse_token(item[0], where), parse_token(item[1], where)
    return parse_merge(item, where)


def _pattern_of(pre: object, source) -> str | None:
    """Our pattern for a byte-level pre-tokenizer; anything else (a wrong JSON type included) is a clear error."""
    where = f"{source}: pre_tokenizer"
    if isinstance(pre, dict) and pre.get("type") == "Sequence":
        steps = pre.get("pretokenizers")
        if not isinstance(steps, list):
            raise TokenizerFileError(f"{where}.pretokenizers is {_json_type(steps)}, not a JSON list of steps")
    else:
        steps = [pre]
    for k, step in enumerate(steps):
        if not isinstance(step, dict):
            at = "" if step is pre else f".pretokenizers[{k}]"
            raise TokenizerFileError(f"{where}{at} is {_json_type(step)}, not a JSON object with a \"type\"")
    kinds = [step.get("type") for step in steps]
    if not kinds or kinds[-1] != "ByteLevel" or len(kinds) > 2 or (len(kinds) == 2 and kinds[0] != "Split"):
        raise TokenizerFileError(f"{where} is {kinds!r}; readable are ByteLevel, or Split then ByteLevel")
    byte_level = steps[-1]
    if byte_level.get("add_prefix_space"):
        raise TokenizerFileError(f"{where}: ByteLevel.add_prefix_space is true (a space is added before the "
                                 "text), which bpe-course tokenizers do not do")
    if len(steps) == 1:
        return GPT2_PATTERN if byte_level.get("use_regex", True) else None
    split = steps[0]
    regex = split.get("pattern", {}).get("Regex") if isinstance(split.get("pattern"), dict) else None
    if byte_level.get("use_regex", True) or regex is None or split.get("behavior") != "Isolated" \
            or split.get("invert"):
        raise TokenizerFileError(f"{where}: only Split(Regex(...), behavior=\"Isolated\", invert=false) followed "
                                 "by ByteLevel(use_regex=false) can be read")
    if not isinstance(regex, str):
        raise TokenizerFileError(f"{where}: Split's pattern.Regex is {_json_type(regex)}, not a regex string")
    for known in (GPT2_PATTERN, GPT4_PATTERN):
        if regex in (known, hf_regex(known)):
            return known
    return regex


def _json_type(value: object) -> str:
    """How a parsed JSON value reads in an error: its JSON type and a glimpse of it."""
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
    shown = repr(value)
    return f"{kind} ({shown[:40]}{'...' if len(shown) > 40 else ''})"


def _added_tokens(added: object, source) -> dict[str, int]:
    if not isinstance(added, list):
        raise TokenizerFileError(f"{source}: added_tokens is not a JSON list")
    specials: dict[str, int] = {}
    for k, token in enumerate(added):
        where = f"{source}: added_tokens[{k}]"
        if not isinstance(token, dict) or not isinstance(token.get("content"), str) or not is_id(token.get("id")):
            raise TokenizerFileError(f"{where}: expected an object with \"id\" (an integer from 0 to {MAX_ID}) "
                                     "and \"content\"")
        flags = [f for f in ("lstrip", "rstrip", "single_word") if token.get(f)]
        if flags:
            raise TokenizerFileError(f"{where} ({token['content']!r}) sets {', '.join(flags)}, which bpe-course's "
                                     "special tokens do not support")
        specials[token["content"]] = token["id"]
    return specials
