"""Mistral's three tokenizers from the files in the ``mistral-common`` wheel, and their chat prompts.

* ``sentencepiece_v1()``: Mistral 7B v0.1's ``tokenizer.model.v1``, SentencePiece BPE with
  32,000 pieces (the LLaMA-2 design), rebuilt by :mod:`bpe_course.sentencepiece_bpe`.
* ``sentencepiece_v3()``: ``mistral_instruct_tokenizer_240323.model.v3``, the same pieces plus
  control pieces such as ``[INST]`` (32,768 in all).
* ``tekken()``: ``tekken_240911.json``, a byte-level BPE read into the course's own
  :class:`~bpe_course.tokenizer.Tokenizer` (ranks -> merges, its regex, 1,000 reserved special ids).

Every file is read from the installed wheel (``pip install 'bpe-course[interop]'``), checked by
its sha256, never downloaded. :func:`chat_prompt` writes a conversation as each model's template
does, in ids, part by part.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .bpe import merges_from_ranks
from .errors import HashMismatchError, TokenizerFileError
from .files import decode_utf8, read_bytes_limited, sha256_file
from .formats.common import parse_json
from .sentencepiece_bpe import SentencePieceBPE
from .tokenizer import Tokenizer

V1_FILE = "tokenizer.model.v1"
V3_FILE = "mistral_instruct_tokenizer_240323.model.v3"
TEKKEN_FILE = "tekken_240911.json"
TEKKEN_KEYS = ("(a Tekken file has config.pattern, config.default_vocab_size, config.default_num_special_tokens "
               "and vocab, a list of {rank, token_bytes})")
MAX_TEKKEN_BYTES = 1 << 28  # 256 MiB: a larger Tekken file is refused unread (tekken_240911.json is 19 MB)

# sha256 of the files as mistral-common 1.9.1 to 1.13.1 ship them in mistral_common/data/.
MISTRAL_SHA256 = {
    V1_FILE: "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    V3_FILE: "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
    TEKKEN_FILE: "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
}

# A Tekken file of version v3 without a "special_tokens" list (tekken_240911.json) reserves its first
# ids for these, in this order, and names the rest <SPECIAL_20>, <SPECIAL_21>... (mistral-common's
# Tekkenizer.DEPRECATED_SPECIAL_TOKENS and SPECIAL_TOKEN_TEMPLATE).
TEKKEN_SPECIALS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                   "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                   "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]


def mistral_file(name: str, *, verify: bool = True) -> Path:
    """The path of one of mistral-common's tokenizer files, checked against :data:`MISTRAL_SHA256`."""
    if name not in MISTRAL_SHA256:
        raise ValueError(f"unknown Mistral tokenizer file {name!r}; known: {', '.join(MISTRAL_SHA256)}")
    try:
        import mistral_common
    except ImportError:
        raise ImportError("Mistral's tokenizer files come in the mistral-common package: "
                          "pip install 'bpe-course[interop]' (or pip install mistral-common)") from None
    path = Path(mistral_common.__file__).parent / "data" / name
    if not path.is_file():
        raise TokenizerFileError(f"{path}: not found; this mistral-common ({getattr(mistral_common, '__version__', '?')}) "
                                 f"does not ship {name}")
    if verify and (found := sha256_file(path)) != MISTRAL_SHA256[name]:
        raise HashMismatchError(f"{path}: sha256 is {found}, expected {MISTRAL_SHA256[name]}; "
                                "another version of the file than the one this course was checked on")
    return path


@lru_cache(maxsize=2)
def _sentencepiece(name: str) -> SentencePieceBPE:
    return SentencePieceBPE.from_file(mistral_file(name))


def sentencepiece_v1() -> SentencePieceBPE:
    """Mistral 7B v0.1's tokenizer (SentencePiece BPE, 32,000 pieces), equal id for id to ``sentencepiece``."""
    return _sentencepiece(V1_FILE)


def sentencepiece_v3() -> SentencePieceBPE:
    """Mistral's v3 SentencePiece tokenizer (32,768 pieces, ``[INST]`` & co. as control pieces)."""
    return _sentencepiece(V3_FILE)


def read_tekken(path: str | os.PathLike) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """A Tekken file's ranks (the ``default_vocab_size`` minus the reserved ids), regex and special tokens.

    Ranks start at 0 as in a ``.tiktoken`` file; a token's id is its rank plus the number of
    reserved special ids (1,000 in ``tekken_240911.json``). A file that mistral-common would not
    read, or would read otherwise, is refused with one line naming the file and the JSON place: a
    value of the wrong type, a rank out of place, ``token_bytes`` that is not base64 (Python's
    decoder would drop the bad characters and read another token), the 256 single bytes not first.
    """
    data = read_bytes_limited(path, TokenizerFileError, MAX_TEKKEN_BYTES, "Tekken file")  # never /dev/zero, 10 GB
    try:
        data = parse_json(decode_utf8(data, path, TokenizerFileError), path)
    except TokenizerFileError as exc:
        raise TokenizerFileError(f"{path}: not a Tekken JSON file ({str(exc).removeprefix(f'{path}: ')})") from None
    top = _tekken_value(path, data, "", dict)
    for key in ("config", "vocab"):
        if key not in top:
            raise TokenizerFileError(f"{path}: no key {key!r} {TEKKEN_KEYS}")
    config = _tekken_value(path, top["config"], "config", dict)
    for key in ("pattern", "default_vocab_size", "default_num_special_tokens"):
        if key not in config:
            raise TokenizerFileError(f"{path}: no key 'config.{key}' {TEKKEN_KEYS}")
    pattern = _tekken_value(path, config["pattern"], "config.pattern", str)
    n_vocab = _tekken_value(path, config["default_vocab_size"], "config.default_vocab_size", int)
    n_special = _tekken_value(path, config["default_num_special_tokens"], "config.default_num_special_tokens", int)
    entries = _tekken_value(path, top["vocab"], "vocab", list)
    if not 0 <= n_vocab - n_special <= len(entries):
        raise TokenizerFileError(f"{path}: config.default_vocab_size - config.default_num_special_tokens is "
                                 f"{n_vocab - n_special:,}, but vocab has {len(entries):,} entries (mistral-common "
                                 "refuses the file too)")
    ranks: dict[bytes, int] = {}
    for position, entry in enumerate(entries[:n_vocab - n_special]):
        where = f"vocab[{position}]"
        entry = _tekken_value(path, entry, where, dict)
        if _tekken_value(path, entry.get("rank"), f"{where}.rank", int) != position:
            raise TokenizerFileError(f"{path}: {where} has rank {entry['rank']}, expected {position}")
        encoded = _tekken_value(path, entry.get("token_bytes"), f"{where}.token_bytes", str)
        try:
            token = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise TokenizerFileError(f"{path}: {where}.token_bytes {encoded[:40]!r} is not base64") from None
        if not token or (position < 256 and token != bytes([position])):
            raise TokenizerFileError(f"{path}: {where}.token_bytes is {token!r}; " + (
                "a token has at least one byte" if not token else f"the first 256 ranks are the single bytes in "
                                                                  f"order, so rank {position} is {bytes([position])!r}"))
        if token in ranks:
            raise TokenizerFileError(f"{path}: {where} holds the token {token!r} of vocab[{ranks[token]}] again")
        ranks[token] = position
    if "special_tokens" in top:
        specials = _tekken_value(path, top["special_tokens"], "special_tokens", list)
        names = []
        for position, entry in enumerate(specials):
            where = f"special_tokens[{position}]"
            entry = _tekken_value(path, entry, where, dict)
            name = _tekken_value(path, entry.get("token_str"), f"{where}.token_str", str)
            if _tekken_value(path, entry.get("rank"), f"{where}.rank", int) != position:
                raise TokenizerFileError(f"{path}: {where} has rank {entry['rank']}, expected {position}")
            if not name or name in names:
                raise TokenizerFileError(f"{path}: {where} is {name!r}, " + ("empty" if not name else
                                         f"the name of special_tokens[{names.index(name)}] too"))
            names.append(name)
    else:
        names = list(TEKKEN_SPECIALS)
    if not 0 <= len(names) <= n_special:
        raise TokenizerFileError(f"{path}: {len(names)} special tokens but only {n_special} reserved ids "
                                 "(config.default_num_special_tokens)")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), n_special)]
    return ranks, pattern, {name: i for i, name in enumerate(names)}


def _tekken_value(path: str | os.PathLike, value: object, where: str, kind: type) -> object:
    """``value``, read from a Tekken file at ``where``, if it is of the JSON type ``kind`` (an int: not a bool,
    never negative); else a ``TokenizerFileError`` naming the file, the place and what it found."""
    if isinstance(value, kind) and not isinstance(value, bool) and not (kind is int and value < 0):
        return value
    wanted = {dict: "a JSON object", list: "a JSON list", str: "a string", int: "a whole number of at least 0"}[kind]
    found = ("missing (or null)" if value is None else str(value).lower() if isinstance(value, bool) else
             f"a string ({value[:40]!r})" if isinstance(value, str) else f"a number ({value})" if isinstance(
                 value, (int, float)) else f"a JSON {'object' if isinstance(value, dict) else 'list'}")
    raise TokenizerFileError(f"{path}: {where or 'the file'} is {found}, not {wanted} {TEKKEN_KEYS}")


def tekken_tokenizer(path: str | os.PathLike) -> Tokenizer:
    """A Tekken file as the course's one data model: ``vocab`` (ids, bytes), ``merges``, specials, pattern."""
    ranks, pattern, specials = read_tekken(path)
    offset = len(specials)
    vocab = {rank + offset: token for token, rank in ranks.items()}
    vocab.update({i: name.encode("utf-8") for name, i in specials.items()})
    try:
        tokenizer = Tokenizer(vocab, merges_from_ranks(ranks), specials, pattern)
    except ValueError as exc:  # a pattern that does not compile, a token no two lower ranks make...
        raise TokenizerFileError(f"{path}: {exc}") from None
    tokenizer._source = str(path)  # subtle: a pattern that backtracks for ages names the file
    return tokenizer


@lru_cache(maxsize=1)
def tekken() -> Tokenizer:
    """Tekken (``tekken_240911.json``, 131,072 ids), equal id for id to mistral-common's ``Tekkenizer``."""
    return tekken_tokenizer(mistral_file(TEKKEN_FILE))


# ---- the chat prompt ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Part:
    """A stretch of a chat prompt: its ids, and whether the template (not a message) put them there."""
    ids: tuple[int, ...]
    template: bool
    label: str


def chat_prompt(messages: list[tuple[str, str]], version: str) -> list[Part]:
    """A conversation as the template of ``version`` ("v1", "v3" or "tekken") writes it, part by part.

    ``messages`` are ``(role, text)`` pairs: an optional ``("system", ...)`` first, then user and
    assistant in turn, ending with a user. Join the parts' ids for the prompt (see :func:`chat_ids`).

    * v1 writes ``[INST] text [/INST]`` as *text*, one SentencePiece call per user turn (so each
      gets the dummy-prefix ``▁``); the system prompt goes in front of the **first** user turn.
    * v3 and Tekken put the control ids of ``[INST]`` and ``[/INST]`` around the user's text; the
      system prompt goes in front of the **last** user turn. An answer loses its trailing spaces.
    * every answer ends with ``</s>``; the prompt starts with one ``<s>``.
    """
    if version not in ("v1", "v3", "tekken"):
        raise ValueError(f"version must be 'v1', 'v3' or 'tekken', not {version!r}")
    system = [text for role, text in messages if role == "system"]
    turns = [(role, text) for role, text in messages if role != "system"]
    _check_turns(messages, turns)
    system_prompt = "\n\n".join(system)
    if version == "tekken":
        tok = tekken()
        encode, bos, eos = tok.encode_ordinary, 1, 2
        begin, end = tok.special_tokens["[INST]"], tok.special_tokens["[/INST]"]
    else:
        sp = sentencepiece_v1() if version == "v1" else sentencepiece_v3()
        encode, bos, eos = sp.encode, sp.model.bos_id, sp.model.eos_id
        begin, end = (sp.control.get("[INST]"), sp.control.get("[/INST]"))
    users = [i for i, (role, _) in enumerate(turns) if role == "user"]
    parts = [Part((bos,), True, "<s>")]
    for i, (role, text) in enumerate(turns):
        if role == "user":
            with_system = system_prompt and i == (users[0] if version == "v1" else users[-1])
            content = f"{system_prompt}\n\n{text}" if with_system else text
            if version == "v1":
                parts.append(Part(tuple(encode(f"[INST] {content} [/INST]")), False, "[INST] user [/INST] as text"))
            else:
                parts += [Part((begin,), True, "[INST]"), Part(tuple(encode(content)), False, "user"),
                          Part((end,), True, "[/INST]")]
        else:
            answer = text if version == "v1" else text.rstrip(" ")
            parts += [Part(tuple(encode(answer)), False, "assistant"), Part((eos,), True, "</s>")]
    return parts


def chat_ids(messages: list[tuple[str, str]], version: str) -> list[int]:
    """The prompt's ids: :func:`chat_prompt`'s parts joined."""
    return [i for part in chat_prompt(messages, version) for i in part.ids]


def _check_turns(messages: list[tuple[str, str]], turns: list[tuple[str, str]]) -> None:
    for position, item in enumerate(messages):
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise TypeError(f"message {position} must be a (role, text) pair of strings, not {item!r}")
        if item[0] not in ("system", "user", "assistant"):
            raise ValueError(f"message {position} has role {item[0]!r}; roles are 'system', 'user', 'assistant'")
        if item[0] == "system" and position != 0:
            raise ValueError(f"message {position} is a system message; only the first message may be one")
        if item[0] != "system" and not item[1]:
            raise ValueError(f"message {position} ({item[0]}) is empty; the templates need text in every turn")
    if not turns or turns[-1][0] != "user":
        raise ValueError("a prompt ends with a user message (the model's turn comes next)")
    for position, (role, _) in enumerate(turns):
        expected = "user" if position % 2 == 0 else "assistant"
        if role != expected:
            raise ValueError(f"turn {position} is {role!r}, expected {expected!r}: user and assistant take turns, "
                             "starting with the user")
