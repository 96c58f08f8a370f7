"""GPT-2's own file pair (``format="gpt2"``): a directory holding ``encoder.json`` and ``vocab.bpe``.

* ``encoder.json`` maps every token, written in GPT-2's byte alphabet, to its id; special tokens
  are written as plain text (``"<|endoftext|>": 50256``).
* ``vocab.bpe`` is a ``#version: 0.2`` line, then one merge per line in rank order, each the
  two tokens joined by one space, and a final newline.

Writing ``gpt2()`` out gives back OpenAI's two files byte for byte. The files have no place for a
pre-tokenization pattern: reading always gives the GPT-2 pattern, so only GPT-2-pattern
tokenizers are written. A token that is neither one byte nor made by a merge is a special token;
its name is its ``encoder.json`` key, as written.

>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow"}
>>> encoder, merges = gpt2_file_texts(TokenizerData(vocab, [(b"o", b"w")], {}, None))
>>> merges
'#version: 0.2\\no w\\n'
>>> encoder[-10:]
'"ow": 256}'
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..bytelevel import str_to_token, token_to_str
from ..errors import TokenizerFileError
from ..files import read_utf8, write_atomic
from ..pretokenize import GPT2_PATTERN
from .common import TokenizerData, check_merges_known, parse_merge, read_json

VERSION_LINE = "#version: 0.2"
# How special tokens are written in encoder.json files: <|endoftext|>, <s>, [PAD], ...
SPECIAL_LOOK = re.compile(r"^(<[^<>]+>|\[[^\[\]]+\])$")
FILES = ("encoder.json", "vocab.bpe")


def read_gpt2_files(encoder_json: str | os.PathLike,
                    vocab_bpe: str | os.PathLike) -> tuple[dict[int, bytes], list, dict[str, int]]:
    """Parse GPT-2's ``encoder.json`` (token -> id) and ``vocab.bpe`` (merges, one per line).

    Returns ``(vocab, merges, special_tokens)``. Tokens that are neither a single byte nor made by
    a merge (``<|endoftext|>``) are the special tokens.
    """
    encoder_json, vocab_bpe = Path(encoder_json), Path(vocab_bpe)
    encoder = read_json(encoder_json)
    if not isinstance(encoder, dict):
        raise TokenizerFileError(f"{encoder_json}: expected a JSON object mapping tokens to ids")
    merges, line_of = read_merges(vocab_bpe)
    made = {a + b for a, b in merges}
    vocab: dict[int, bytes] = {}
    specials: dict[str, int] = {}
    unmade: list[tuple[str, int]] = []
    for text, i in encoder.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise TokenizerFileError(f"{encoder_json}: token {text!r} has id {i!r}, not a non-negative integer")
        if i in vocab:
            raise TokenizerFileError(f"{encoder_json}: token {text!r} has id {i}, which another token has too")
        try:
            token = str_to_token(text)
        except ValueError:
            token = None  # not in the byte alphabet: a special token written in plain text
        if token is not None and (len(token) == 1 or token in made):
            vocab[i] = token
        elif token is not None and not SPECIAL_LOOK.match(text):
            unmade.append((text, i))
        else:
            vocab[i] = text.encode("utf-8")
            specials[text] = i
    ordinary = {t for i, t in vocab.items() if i not in specials.values()}
    check_merges_known(merges, ordinary, lambda k: f"{vocab_bpe}, line {line_of[k]}")
    if unmade:
        # subtle: a byte-alphabet token no merge makes, and not written like a special token: the
        # encoder.json of a bigger vocabulary beside an older vocab.bpe (a save cut short)
        text, i = unmade[0]
        raise TokenizerFileError(f"{encoder_json}: token {text!r} (id {i}) is made by no merge of {vocab_bpe} "
                                 f"and is not written like a special token (<...> or [...]); {len(unmade)} such "
                                 "tokens: the two files do not belong together")
    return vocab, merges, specials


def read_merges(vocab_bpe: Path) -> tuple[list[tuple[bytes, bytes]], list[int]]:
    """The merges of a ``vocab.bpe`` file and the line number each came from."""
    text = read_utf8(vocab_bpe, TokenizerFileError)
    lines = text.split("\n")
    if text and not text.endswith("\n"):
        raise TokenizerFileError(f"{vocab_bpe}, line {len(lines)}: the file ends without a newline, so it looks "
                                 "truncated (GPT-2's vocab.bpe ends with one; tiktoken's reader would drop "
                                 "this last line)")
    merges, line_of = [], []
    for n, line in enumerate(lines, start=1):
        line = line.removesuffix("\r")  # subtle: tolerate a file saved with Windows line ends
        if not line or (n == 1 and line.startswith("#version")):
            continue
        merges.append(parse_merge(line, f"{vocab_bpe}, line {n}"))
        line_of.append(n)
    return merges, line_of


def gpt2_file_texts(tokenizer) -> tuple[str, str]:
    """The text of ``encoder.json`` and ``vocab.bpe`` for ``tokenizer``, in GPT-2's exact layout."""
    special_ids = {i: s for s, i in tokenizer.special_tokens.items()}
    encoder: dict[str, int] = {}
    for i, token in sorted(tokenizer.vocab.items()):
        key = special_ids[i] if i in special_ids else token_to_str(token)
        if key in encoder:
            raise ValueError(f"GPT-2's encoder.json cannot hold both id {encoder[key]} and id {i}: both are "
                             f"written {key!r} (a special token spelled like an ordinary token in GPT-2's "
                             "byte alphabet); save in the 'bpe-course' or 'hf' format instead")
        encoder[key] = i
    merges = "".join(f"{token_to_str(a)} {token_to_str(b)}\n" for a, b in tokenizer.merges)
    # subtle: OpenAI's file is json.dumps' default output (ASCII, ", " and ": "), so ours matches it.
    return json.dumps(encoder), f"{VERSION_LINE}\n{merges}"


def save_gpt2(tokenizer, directory: str | os.PathLike) -> None:
    """Write ``encoder.json`` and ``vocab.bpe`` into ``directory`` (created if needed)."""
    if tokenizer.pattern != GPT2_PATTERN:
        raise ValueError("GPT-2's files have no place for a pre-tokenization pattern and are always read with "
                         "GPT-2's; this tokenizer uses another, so save it in the 'bpe-course', 'hf' or "
                         "'tiktoken' format instead")
    directory = Path(directory)
    encoder, merges = gpt2_file_texts(tokenizer)
    directory.mkdir(parents=True, exist_ok=True)
    # subtle: vocab.bpe first. Cut short between the two, the new merges stand beside the old encoder.json,
    # whose vocabulary lacks what they make, and loading says the files do not belong together.
    write_atomic(directory / "vocab.bpe", merges)
    write_atomic(directory / "encoder.json", encoder)


def load_gpt2(directory: str | os.PathLike) -> TokenizerData:
    """Read a directory holding ``encoder.json`` and ``vocab.bpe`` (GPT-2 pattern)."""
    directory = Path(directory)
    for name in FILES:
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory}: no {name} (a GPT-2 tokenizer is encoder.json + vocab.bpe)")
    vocab, merges, specials = read_gpt2_files(directory / "encoder.json", directory / "vocab.bpe")
    return TokenizerData(vocab, merges, specials, GPT2_PATTERN)
