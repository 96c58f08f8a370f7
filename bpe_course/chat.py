"""Chat templates: how a model's template writes a conversation as ids, part by part.

A conversation is a list of ``(role, text)`` pairs: an optional ``("system", ...)`` first, then
user and assistant in turn, ending with a user (the model's turn comes next). A template is one
object (:class:`Template`) built once per name in :data:`TEMPLATES`: the tokenizer it encodes with,
its control ids, where it puts the system prompt, and how a chip writes one of its ids.

* ``"v1"`` (Mistral 7B v0.1) writes ``[INST] text [/INST]`` as *text*, one SentencePiece call per
  user turn (so each gets the dummy-prefix ``▁``); the system prompt goes in front of the **first**
  user turn.
* ``"v3"`` and ``"tekken"`` put the control ids of ``[INST]`` and ``[/INST]`` around the user's text;
  the system prompt goes in front of the **last** user turn. An answer loses its trailing spaces.
* every answer ends with ``</s>``; the prompt starts with one ``<s>``.

Join the parts' ids for the prompt (:func:`chat_ids`); the parts say which ids only the template
can write (:attr:`Part.template`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from .pretrained import load

__all__ = ["Part", "TEMPLATES", "Template", "chat_ids", "chat_prompt", "template"]

Message = tuple[str, str]


@dataclass(frozen=True)
class Part:
    """A stretch of a chat prompt: its ids, and whether the template (not a message) put them there."""
    ids: tuple[int, ...]
    template: bool
    label: str


class Template:
    """A Mistral chat template (v1, v3 or Tekken) over its named tokenizer, loaded when first used.

    ``inst_as_text``: ``[INST]`` and ``[/INST]`` are typed as text (v1), not control ids;
    ``system_first``: the system prompt goes in front of the first user turn (v1), not the last.
    """

    def __init__(self, name: str, tokenizer: str, inst_as_text: bool, system_first: bool) -> None:
        self.name, self.tokenizer_name = name, tokenizer
        self.inst_as_text, self.system_first = inst_as_text, system_first

    def __repr__(self) -> str:
        return f"Template({self.name!r}, tokenizer={self.tokenizer_name!r})"

    @cached_property
    def tokenizer(self):
        return load(self.tokenizer_name)

    @cached_property
    def encode(self) -> Callable[[str], list[int]]:
        """Text to ids as the template encodes a message: as ordinary text, whatever it contains."""
        tok = self.tokenizer
        return tok.encode_ordinary if hasattr(tok, "encode_ordinary") else tok.encode

    @cached_property
    def controls(self) -> dict[str, int]:
        """The ids only the template writes: ``<s>``, ``</s>`` and (v3, Tekken) ``[INST]``, ``[/INST]``."""
        tok = self.tokenizer
        found = dict(tok.special_tokens) if hasattr(tok, "special_tokens") else dict(tok.control)
        return {name: found[name] for name in ("<s>", "</s>", "[INST]", "[/INST]") if name in found}

    def piece(self, token_id: int) -> bytes | str:
        """What the token of ``token_id`` is: its bytes (a byte-level tokenizer, whose vocab holds each
        special token as its name's bytes) or its piece (SentencePiece) -- what a chip shows."""
        tok = self.tokenizer
        return tok.vocab[token_id] if hasattr(tok, "vocab") else tok.pieces[token_id]

    def parts(self, messages: Sequence[Message]) -> list[Part]:
        """The conversation as this template writes it, part by part (see the module's docstring)."""
        system = [text for role, text in messages if role == "system"]
        turns = [(role, text) for role, text in messages if role != "system"]
        check_turns(messages, turns)
        system_prompt = "\n\n".join(system)
        c = self.controls
        users = [i for i, (role, _) in enumerate(turns) if role == "user"]
        with_system = users[0] if self.system_first else users[-1]
        parts = [Part((c["<s>"],), True, "<s>")]
        for i, (role, text) in enumerate(turns):
            if role == "user":
                content = f"{system_prompt}\n\n{text}" if system_prompt and i == with_system else text
                if self.inst_as_text:
                    parts.append(Part(tuple(self.encode(f"[INST] {content} [/INST]")), False,
                                      "[INST] user [/INST] as text"))
                else:
                    parts += [Part((c["[INST]"],), True, "[INST]"), Part(tuple(self.encode(content)), False, "user"),
                              Part((c["[/INST]"],), True, "[/INST]")]
            else:
                answer = text if self.inst_as_text else text.rstrip(" ")
                parts += [Part(tuple(self.encode(answer)), False, "assistant"), Part((c["</s>"],), True, "</s>")]
        return parts


TEMPLATES: dict[str, Template] = {t.name: t for t in [
    Template("v1", "mistral-v1", inst_as_text=True, system_first=True),
    Template("v3", "mistral-v3", inst_as_text=False, system_first=False),
    Template("tekken", "tekken", inst_as_text=False, system_first=False),
]}


def template(name: str) -> Template:
    """The template called ``name``, or a ValueError listing the names there are."""
    if name not in TEMPLATES:
        raise ValueError(f"no chat template {name!r}; the templates are {', '.join(map(repr, TEMPLATES))}")
    return TEMPLATES[name]


def chat_prompt(messages: Sequence[Message], name: str) -> list[Part]:
    """A conversation as the template ``name`` (``"v1"``, ``"v3"`` or ``"tekken"``) writes it, part by part."""
    return template(name).parts(messages)


def chat_ids(messages: Sequence[Message], name: str) -> list[int]:
    """The prompt's ids: :func:`chat_prompt`'s parts joined."""
    return [i for part in chat_prompt(messages, name) for i in part.ids]


def check_turns(messages: Sequence[Message], turns: Sequence[Message]) -> None:
    """A ValueError (or TypeError) naming the first message a template cannot write (counted from 1)."""
    for position, item in enumerate(messages):
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise TypeError(f"message {position + 1} must be a (role, text) pair of strings, not {item!r}")
        if item[0] not in ("system", "user", "assistant"):
            raise ValueError(f"message {position + 1} has role {item[0]!r}; roles are 'system', 'user', 'assistant'")
        if item[0] == "system" and position != 0:
            raise ValueError(f"message {position + 1} is a system message; only the first message may be one")
        if item[0] != "system" and not item[1]:
            raise ValueError(f"message {position + 1} ({item[0]}) is empty; the templates need text in every turn")
    if not turns or turns[-1][0] != "user":
        raise ValueError("a prompt ends with a user message (the model's turn comes next)")
    for position, (role, _) in enumerate(turns):
        expected = "user" if position % 2 == 0 else "assistant"
        if role != expected:
            raise ValueError(f"turn {position + 1} is {role!r}, expected {expected!r}: user and assistant take turns, "
                             "starting with the user")
