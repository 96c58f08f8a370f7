"""GPT-2's own file pair (``format="gpt2"``): a directory holding ``encoder.json`` and ``vocab.bpe``.

* ``encoder.json`` maps every token, written in GPT-2's byte alphabet, to its id; special tokens
  are written as plain text (``"<|endoftext|>": 50256``).
* ``vocab.bpe`` is a ``#version: 0.2`` line, then one merge per line in rank order, each the
  two tokens joined by one space, and a final newline.

Writing ``gpt2()`` out gives back OpenAI's two files byte for byte. The files have no place for a
pre-tokenization pattern: reading always gives the GPT-2 pattern, so only GPT-2-pattern
tokenizers are written.

Nothing in the files says which tokens are special, so reading decides by a rule. A token that
is one byte, or that a merge of ``vocab.bpe`` makes, is ordinary. Any other token is a special
token if it *looks* like one: written in angle or square brackets (``<|endoftext|>``, ``<s>``,
``[PAD]``), or in characters outside GPT-2's byte alphabet; its name is its ``encoder.json``
key, as written. What is left -- a byte-alphabet token such as ``Ġthe`` that no merge makes --
means the two files do not belong together (an ``encoder.json`` of a bigger vocabulary beside
an older ``vocab.bpe``), and reading refuses the pair, naming both files; so does a merge whose
parts or result ``encoder.json`` lacks. Saving checks the same rule on what it is about to
write, and refuses a tokenizer that would not read back as itself (an ordinary token no merge
makes, a special token not written like one) rather than write files that do not load.

The two files are written as one change (:func:`bpe_course.files.write_files_atomic`): a save
killed at any moment leaves the old pair or the new one, and the learner's other files in the
folder are not touched.

>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ow"}
>>> encoder, merges = gpt2_file_texts(TokenizerData(vocab, [(b"o", b"w")], {}, None))
>>> merges
'#version: 0.2\\no w\\n'
>>> encoder[-10:]
'"ow": 256}'
>>> looks_special("<|endoftext|>"), looks_special("[PAD]"), looks_special("Ġthe"), looks_special("😀")
(True, True, False, True)
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..bytelevel import str_to_token, token_to_str
from ..errors import TokenizerFileError
from ..files import current_file, read_utf8, write_files_atomic
from ..pretokenize import GPT2_PATTERN
from .common import MAX_ID, TokenizerData, check_merges_known, is_id, parse_merge, read_json, special_token_bytes

VERSION_LINE = "#version: 0.2"
# How special tokens are written in encoder.json files: <|endoftext|>, <s>, [PAD], ...
SPECIAL_LOOK = re.compile(r"^(<.+>|\[.+\])$", re.DOTALL)
FILES = ("encoder.json", "vocab.bpe")


def looks_special(key: str) -> bool:
    """Whether an ``encoder.json`` key no merge makes reads as a special token (see the module's rule)."""
    try:
        str_to_token(key)
    except ValueError:
        return True  # not in GPT-2's byte alphabet: plain text, as special tokens are written
    return bool(SPECIAL_LOOK.match(key))


def read_gpt2_files(encoder_json: str | os.PathLike,
                    vocab_bpe: str | os.PathLike) -> tuple[dict[int, bytes], list, dict[str, int]]:
    """Parse GPT-2's ``encoder.json`` (token -> id) and ``vocab.bpe`` (merges, one per line).

    Returns ``(vocab, merges, special_tokens)``; the module's docstring gives the rule for special
    tokens and for a pair that does not belong together (a ``TokenizerFileError`` naming both files).
    """
    encoder_json, vocab_bpe = Path(encoder_json), Path(vocab_bpe)
    encoder = read_json(encoder_json)
    if not isinstance(encoder, dict):
        raise TokenizerFileError(f"{encoder_json}: expected a JSON object mapping tokens to ids")
    merges, line_of = read_merges(vocab_bpe)
    vocab, specials, unmade = classify(encoder, merges, encoder_json)
    special_ids = set(specials.values())
    ordinary = {t for i, t in vocab.items() if i not in special_ids}
    try:
        check_merges_known(merges, ordinary, lambda k: f"{vocab_bpe}, line {line_of[k]}")
    except TokenizerFileError as exc:
        raise TokenizerFileError(f"{exc} ({encoder_json}): the two files do not belong together") from None
    if unmade:
        # subtle: a byte-alphabet token no merge makes, and not written like a special token: the
        # encoder.json of a bigger vocabulary beside an older vocab.bpe (a pair mixed up by hand)
        text, i = unmade[0]
        raise TokenizerFileError(f"{encoder_json}: token {text!r} (id {i}) is made by no merge of {vocab_bpe} "
                                 f"and is not written like a special token (<...> or [...]); {len(unmade)} such "
                                 "tokens: the two files do not belong together")
    return vocab, merges, specials


def classify(encoder: dict, merges: list[tuple[bytes, bytes]],
             source: object) -> tuple[dict[int, bytes], dict[str, int], list[tuple[str, int]]]:
    """``(vocab, special_tokens, unmade)`` of an ``encoder.json`` object read beside ``merges``.

    ``unmade`` lists the ``(key, id)`` of byte-alphabet tokens that no merge makes and that do not
    look like special tokens: none in a pair that belongs together.
    """
    made = {a + b for a, b in merges}
    vocab: dict[int, bytes] = {}
    specials: dict[str, int] = {}
    unmade: list[tuple[str, int]] = []
    for text, i in encoder.items():
        if not is_id(i):
            raise TokenizerFileError(f"{source}: token {text!r} has id {i!r}, not an integer from 0 to {MAX_ID}")
        if i in vocab:
            raise TokenizerFileError(f"{source}: token {text!r} has id {i}, which another token has too")
        try:
            token = str_to_token(text)
        except ValueError:
            token = None  # not in the byte alphabet: a special token written in plain text
        if token is not None and (len(token) == 1 or token in made):
            vocab[i] = token
        elif looks_special(text):
            vocab[i] = special_token_bytes(text, str(source))
            specials[text] = i
        else:
            unmade.append((text, i))
    return vocab, specials, unmade


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


def gpt2_encoder(tokenizer) -> dict[str, int]:
    """The ``encoder.json`` object of ``tokenizer``: every token's key (byte alphabet, or a special's text) -> id."""
    special_ids = {i: s for s, i in tokenizer.special_tokens.items()}
    encoder: dict[str, int] = {}
    for i, token in sorted(tokenizer.vocab.items()):
        key = special_ids[i] if i in special_ids else token_to_str(token)
        if key in encoder:
            raise ValueError(f"GPT-2's encoder.json cannot hold both id {encoder[key]} and id {i}: both are "
                             f"written {key!r} (a special token spelled like an ordinary token in GPT-2's "
                             "byte alphabet); save in the 'bpe-course' or 'hf' format instead")
        encoder[key] = i
    return encoder


def gpt2_file_texts(tokenizer) -> tuple[str, str]:
    """The text of ``encoder.json`` and ``vocab.bpe`` for ``tokenizer``, in GPT-2's exact layout."""
    merges = "".join(f"{token_to_str(a)} {token_to_str(b)}\n" for a, b in tokenizer.merges)
    # subtle: OpenAI's file is json.dumps' default output (ASCII, ", " and ": "), so ours matches it.
    return json.dumps(gpt2_encoder(tokenizer)), f"{VERSION_LINE}\n{merges}"


def check_reads_back(tokenizer) -> None:
    """Raise ``ValueError`` if GPT-2's files of ``tokenizer`` would not read back as ``tokenizer``."""
    hint = "; save in the 'bpe-course' or 'hf' format instead"
    vocab, specials, unmade = classify(gpt2_encoder(tokenizer), tokenizer.merges, "encoder.json")
    if unmade:
        key, i = unmade[0]
        kind = "special token" if key in tokenizer.special_tokens else "ordinary token"
        raise ValueError(f"{kind} {key!r} (id {i}) is made by no merge and is not written like a special token "
                         "(<...> or [...]); GPT-2's files tell special tokens apart only by that, so it would not "
                         f"read back{hint}")
    for s, i in specials.items():
        if tokenizer.special_tokens.get(s) != i:
            raise ValueError(f"ordinary token {s!r} (id {i}) is made by no merge, so GPT-2's files would read it "
                             f"back as a special token{hint}")


def save_gpt2(tokenizer, directory: str | os.PathLike) -> None:
    """Write ``encoder.json`` and ``vocab.bpe`` into ``directory`` (created if needed), as one change."""
    if tokenizer.pattern != GPT2_PATTERN:
        raise ValueError("GPT-2's files have no place for a pre-tokenization pattern and are always read with "
                         "GPT-2's; this tokenizer uses another, so save it in the 'bpe-course', 'hf' or "
                         "'tiktoken' format instead")
    check_reads_back(tokenizer)
    encoder, merges = gpt2_file_texts(tokenizer)
    write_files_atomic(directory, {"encoder.json": encoder, "vocab.bpe": merges})


def load_gpt2(directory: str | os.PathLike) -> TokenizerData:
    """Read a directory holding ``encoder.json`` and ``vocab.bpe`` (GPT-2 pattern)."""
    directory = Path(directory)
    encoder_json, vocab_bpe = (current_file(directory / name) for name in FILES)
    for path in (encoder_json, vocab_bpe):
        if not path.is_file():
            raise FileNotFoundError(f"{directory}: no {path.name} (a GPT-2 tokenizer is encoder.json + vocab.bpe)")
    vocab, merges, specials = read_gpt2_files(encoder_json, vocab_bpe)
    return TokenizerData(vocab, merges, specials, GPT2_PATTERN)
