"""The project's own format (``format="bpe-course"``): one human-readable, versioned JSON file::

    {
      "format": "bpe-course",
      "version": 1,
      "pattern": "<the pre-tokenization regex, or null for none>",
      "pattern_name": "gpt2",              # informational: gpt2, gpt4, none or custom
      "special_tokens": {"<|endoftext|>": 50256},
      "vocab": {"0": "!", "1": "\\"", ..., "256": "Ġt"},
      "merges": ["Ġ t", "Ġ a", "h e", ...]  # in creation order: merge k has rank k
    }

Token bytes are written in GPT-2's printable byte alphabet (``bpe_course.bytelevel``), so a
space shows as ``Ġ`` and a merge is two tokens joined by one space, exactly as in GPT-2's
``vocab.bpe``. ``vocab`` leaves out the special tokens, which have their own table. Unlike the
other formats this one keeps everything exactly: ids, the merge list as trained, the pattern.

>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow", 257: b"low"}
>>> tok = TokenizerData(vocab, [(b"o", b"w"), (b"l", b"ow")], {}, None)
>>> data = to_json(tok)
>>> data["merges"], data["vocab"]["257"]
(['o w', 'l ow'], 'low')
>>> from_json(data) == tok
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..bytelevel import token_to_str
from ..errors import TokenizerFileError
from ..pretokenize import pattern_name
from .common import (MAX_ID, TokenizerData, check_merges_known, is_id, parse_id, parse_merge, parse_token,
                     special_token_bytes)

FORMAT_NAME = "bpe-course"
FORMAT_VERSION = 1


def to_json(tokenizer) -> dict:
    """The JSON object (a ``dict``) that holds ``tokenizer`` in the bpe-course format."""
    special_ids = set(tokenizer.special_tokens.values())
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "pattern": tokenizer.pattern,
        "pattern_name": pattern_name(tokenizer.pattern) or "custom",
        "special_tokens": dict(tokenizer.special_tokens),
        "vocab": {str(i): token_to_str(t) for i, t in sorted(tokenizer.vocab.items()) if i not in special_ids},
        "merges": [f"{token_to_str(a)} {token_to_str(b)}" for a, b in tokenizer.merges],
    }


def to_json_text(tokenizer) -> str:
    """The file's text: one key per line at the top level, readable in any editor."""
    return json.dumps(to_json(tokenizer), ensure_ascii=False, indent=1) + "\n"


def from_json(data: dict, source: Path | str | os.PathLike = "<json>") -> TokenizerData:
    """The tokenizer in the parsed JSON; errors name ``source`` and the key."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise TokenizerFileError(f"{source}: not a {FORMAT_NAME} tokenizer file (no \"format\": \"{FORMAT_NAME}\")")
    if data.get("version") != FORMAT_VERSION:
        raise TokenizerFileError(f"{source}: format version {data.get('version')!r}; this version reads "
                                 f"{FORMAT_VERSION}")
    for key, kind in (("vocab", dict), ("merges", list), ("special_tokens", dict)):
        if not isinstance(data.get(key), kind):
            raise TokenizerFileError(f"{source}: \"{key}\" is missing or is not a JSON {kind.__name__}")
    pattern = data.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise TokenizerFileError(f"{source}: \"pattern\" must be a regex string or null, not {pattern!r}")
    vocab: dict[int, bytes] = {}
    for key, text in data["vocab"].items():
        vocab[parse_id(key, f"{source}: vocab key")] = parse_token(text, f"{source}: vocab[{key!r}]")
    merges = [parse_merge(m, f"{source}: merges[{k}]") for k, m in enumerate(data["merges"])]
    check_merges_known(merges, set(vocab.values()), lambda k: f"{source}: merges[{k}]")
    specials = {}
    for s, i in data["special_tokens"].items():
        if not is_id(i):
            raise TokenizerFileError(f"{source}: special_tokens[{s!r}] has id {i!r}, not an integer from 0 to {MAX_ID}")
        if i in vocab:
            raise TokenizerFileError(f"{source}: special_tokens[{s!r}] has id {i}, which vocab already gives to "
                                     f"{token_to_str(vocab[i])!r}")
        vocab[i] = special_token_bytes(s, f"{source}: special_tokens")
        specials[s] = i
    return TokenizerData(vocab, merges, specials, pattern)
