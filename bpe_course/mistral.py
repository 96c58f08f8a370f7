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
import json
import os
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

from .bpe import merges_from_ranks
from .errors import HashMismatchError, TokenizerFileError
from .files import sha256_file
from .sentencepiece_bpe import SentencePieceBPE
from .tokenizer import Tokenizer

V1_FILE = "tokenizer.model.v1"
V3_FILE = "mistral_instruct_tokenizer_240323.model.v3"
TEKKEN_FILE = "tekken_240911.json"

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
    reserved special ids (1,000 in ``tekken_240911.json``).
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        config = data["config"]
        n_special, n_vocab, pattern = (config["default_num_special_tokens"], config["default_vocab_size"],
                                       config["pattern"])
        entries = data["vocab"][:n_vocab - n_special]
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TokenizerFileError(f"{path}: not a Tekken JSON file ({e})") from None
    except KeyError as e:
        raise TokenizerFileError(f"{path}: no key {e} (a Tekken file has config.pattern, config.default_vocab_size, "
                                 "config.default_num_special_tokens and vocab)") from None
    ranks: dict[bytes, int] = {}
    for position, entry in enumerate(entries):
        if entry.get("rank") != position:
            raise TokenizerFileError(f"{path}: vocab[{position}] has rank {entry.get('rank')!r}, expected {position}")
        ranks[base64.b64decode(entry["token_bytes"])] = position
    if len(ranks) != len(entries):
        raise TokenizerFileError(f"{path}: the same token bytes appear twice among the first {len(entries)} ranks")
    if "special_tokens" in data:
        names = [t["token_str"] for t in sorted(data["special_tokens"], key=lambda t: t["rank"])]
    else:
        names = list(TEKKEN_SPECIALS)
    if len(names) > n_special:
        raise TokenizerFileError(f"{path}: {len(names)} special tokens but only {n_special} reserved ids "
                                 "(config.default_num_special_tokens)")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), n_special)]
    return ranks, pattern, {name: i for i, name in enumerate(names)}


def tekken_tokenizer(path: str | os.PathLike) -> Tokenizer:
    """A Tekken file as the course's one data model: ``vocab`` (ids, bytes), ``merges``, specials, pattern."""
    ranks, pattern, specials = read_tekken(path)
    offset = len(specials)
    vocab = {rank + offset: token for token, rank in ranks.items()}
    vocab.update({i: name.encode("utf-8") for name, i in specials.items()})
    return Tokenizer(vocab, merges_from_ranks(ranks), specials, pattern)


@lru_cache(maxsize=1)
def tekken() -> Tokenizer:
    """Tekken (``tekken_240911.json``, 131,072 ids), equal id for id to mistral-common's ``Tekkenizer``.

    subtle: the file is checked by its sha256 (:func:`mistral_file`), and ``tekken_tokenizer`` builds
    it with every check in the tests, so it is built as tiktoken builds it: ranks now, its merges
    (130,000 recovered by BPE, seconds) when :attr:`Tokenizer.merges` is first read.
    """
    ranks, pattern, specials = read_tekken(mistral_file(TEKKEN_FILE))
    offset = len(specials)
    vocab = {rank + offset: token for token, rank in ranks.items()}
    vocab.update({i: name.encode("utf-8") for name, i in specials.items()})
    n_merges = len(ranks) - sum(map((1).__eq__, map(len, ranks)))  # every token but the single bytes is a merge's
    return Tokenizer.from_checked(vocab, partial(merges_from_ranks, ranks), specials, pattern, ranks_by_id=True,
                                  n_merges=n_merges)


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
