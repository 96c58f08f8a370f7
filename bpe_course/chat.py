"""Chat templates: how a model's template writes a conversation as ids, part by part.

A conversation is a list of ``(role, text)`` pairs. A template is one object built once per name in
:data:`TEMPLATES`: the tokenizer it encodes with, its control ids, and the order it writes things in.
Two families:

* **Mistral** (:class:`MistralTemplate`: ``"v1"``, ``"v3"``, ``"tekken"``), as mistral-common 1.9's
  ``encode_chat_completion`` writes them. Roles ``system``, ``user``, ``assistant``. The system messages
  are joined (blank lines between) into one system prompt; neighbouring messages of one role are joined
  the same way; a conversation that does not start with a user gets an empty user turn first. ``v1``
  writes ``[INST] text [/INST]`` as *text*, one SentencePiece call per user turn, and puts the system
  prompt in front of the **first** user turn; ``v3`` and ``tekken`` put the control ids of ``[INST]``
  and ``[/INST]`` around the user's text, the system prompt in front of the **last** user turn, and an
  answer loses its trailing spaces. Every answer ends with ``</s>``; the prompt starts with one ``<s>``.
  What mistral-common refuses is refused here with its rule, counted from message 1.
* **Llama** (:class:`HeaderTemplate`: ``"llama3"``, ``"llama4"``), as llama-models 0.3.0's
  ``ChatFormat.encode_dialog_prompt`` writes them. Roles ``system``, ``user``, ``assistant``, ``tool``,
  in any order, empty or not: nothing is checked. ``<|begin_of_text|>``, then per message a header
  (a start id, the role's name as text -- ``tool`` is written ``ipython`` --, an end id, a blank line
  as text), the text, and an end-of-turn id; at the end the assistant's header, for the model to go on.

Every message's text is encoded as ordinary text, whatever it contains: a typed ``[INST]`` or
``<|eot_id|>`` stays text, as in both vendors' libraries.

subtle: the Llama templates encode each text whole, as tiktoken does. llama-models' ``Tokenizer.encode``
cuts text into windows (``TIKTOKEN_MAX_ENCODE_CHARS`` characters, and runs of one kind of character at
``MAX_NO_WHITESPACES_CHARS``, 25,000 in 0.3.0), so for a message with a longer run ``chat_ids(..., "llama3")``
differs from ``ChatFormat``: a token Meta's cut splits stays whole here (chapter 19, section 7).

``training=True`` writes a conversation as a fine-tune's example instead: it ends with the answer to
learn (Mistral: mistral-common's finetuning rule), and a Llama prompt gets no closing header. Each
:class:`Part` says whether the template put its ids there and whether a fine-tune trains on them;
:func:`loss_mask` lines those flags up with the ids.

>>> chat_ids([("user", "Hi")], "llama3")
[128000, 128006, 882, 128007, 271, 13347, 128009, 128006, 78191, 128007, 271]
>>> talk = [("user", "Hi"), ("assistant", "Hello")]
>>> [i for i, trained in zip(chat_ids(talk, "llama3", training=True), loss_mask(talk, "llama3")) if trained]
[9906, 128009]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from .pretrained import load

__all__ = ["HeaderTemplate", "MistralTemplate", "Part", "TEMPLATES", "Template", "chat_ids", "chat_prompt", "loss_mask",
           "template"]

Message = tuple[str, str]
BLANK_LINE = "\n\n"  # what mistral-common joins system prompts and neighbouring messages with


@dataclass(frozen=True)
class Part:
    """A stretch of a chat prompt: its ids, whether the template (not a message) put them there, a label,
    and whether a fine-tune trains on these ids (an answer and the id that ends it)."""
    ids: tuple[int, ...]
    template: bool
    label: str
    trained: bool = False


class Template:
    """A chat template over a named tokenizer, loaded when first used: what every family shares.

    A family says which roles it knows (``roles``), which special tokens it writes (``control_names``)
    and how it writes a conversation (:meth:`write`).
    """

    roles: tuple[str, ...] = ()
    control_names: tuple[str, ...] = ()

    def __init__(self, name: str, tokenizer: str) -> None:
        self.name, self.tokenizer_name = name, tokenizer

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, tokenizer={self.tokenizer_name!r})"

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
        """The ids of the special tokens this template writes, by name."""
        tok = self.tokenizer
        found = dict(tok.special_tokens) if hasattr(tok, "special_tokens") else dict(tok.control)
        return {name: found[name] for name in self.control_names if name in found}

    def piece(self, token_id: int) -> bytes | str:
        """What the token of ``token_id`` is: its bytes (a byte-level tokenizer, whose vocab holds each
        special token as its name's bytes) or its piece (SentencePiece) -- what a chip shows."""
        tok = self.tokenizer
        return tok.vocab[token_id] if hasattr(tok, "vocab") else tok.pieces[token_id]

    def parts(self, messages: Sequence[Message], training: bool = False) -> list[Part]:
        """The conversation as this template writes it, part by part (see the module's docstring)."""
        check_pairs(messages, self.roles)
        return self.write(list(messages), training)

    def write(self, messages: list[Message], training: bool) -> list[Part]:
        raise NotImplementedError


class MistralTemplate(Template):
    """A Mistral chat template (v1, v3 or Tekken), as mistral-common writes it.

    ``inst_as_text``: ``[INST]`` and ``[/INST]`` are typed as text (v1), not control ids;
    ``system_first``: the system prompt goes in front of the first user turn (v1), not the last.
    """

    roles = ("system", "user", "assistant")
    control_names = ("<s>", "</s>", "[INST]", "[/INST]")

    def __init__(self, name: str, tokenizer: str, inst_as_text: bool, system_first: bool) -> None:
        super().__init__(name, tokenizer)
        self.inst_as_text, self.system_first = inst_as_text, system_first

    def write(self, messages: list[Message], training: bool) -> list[Part]:
        check_mistral_order(messages, training)
        system_prompt = BLANK_LINE.join(text for role, text in messages if role == "system" and text)
        turns = mistral_turns(messages)
        users = [i for i, (role, _) in enumerate(turns) if role == "user"]
        with_system = users[0] if self.system_first else users[-1]
        c = self.controls
        parts = [Part((c["<s>"],), True, "<s>")]
        for i, (role, text) in enumerate(turns):
            if role == "user":
                content = f"{system_prompt}{BLANK_LINE}{text}" if system_prompt and i == with_system else text
                if self.inst_as_text:
                    parts.append(Part(tuple(self.encode(f"[INST] {content} [/INST]")), False,
                                      "[INST] user [/INST] as text"))
                else:
                    parts += [Part((c["[INST]"],), True, "[INST]"), Part(tuple(self.encode(content)), False, "user"),
                              Part((c["[/INST]"],), True, "[/INST]")]
            else:
                answer = text if self.inst_as_text else text.rstrip(" ")
                parts += [Part(tuple(self.encode(answer)), False, "assistant", trained=True),
                          Part((c["</s>"],), True, "</s>", trained=True)]
        return parts


class HeaderTemplate(Template):
    """A Llama chat format: every message under a header naming its role, closed by an end-of-turn id.

    ``tool_end``: the id that closes a tool's message (Llama 4 closes it with end-of-message, Llama 3
    with end-of-turn, as their ``ChatFormat.encode_message`` do).
    """

    roles = ("system", "user", "assistant", "tool")

    def __init__(self, name: str, tokenizer: str, begin: str, header_start: str, header_end: str, end_of_turn: str,
                 tool_end: str) -> None:
        super().__init__(name, tokenizer)
        self.begin, self.header_start, self.header_end = begin, header_start, header_end
        self.end_of_turn, self.tool_end = end_of_turn, tool_end
        self.control_names = (begin, header_start, header_end, end_of_turn, tool_end)

    def header(self, role: str) -> Part:
        """A message's header: start id, the role's name as text (``tool`` is ``ipython``), end id, a blank line."""
        c = self.controls
        ids = (c[self.header_start], *self.encode("ipython" if role == "tool" else role), c[self.header_end],
               *self.encode("\n\n"))
        return Part(ids, True, f"{role} header")

    def write(self, messages: list[Message], training: bool) -> list[Part]:
        c = self.controls
        parts = [Part((c[self.begin],), True, self.begin)]
        for role, text in messages:
            end = self.tool_end if role == "tool" else self.end_of_turn
            answer = role == "assistant"
            parts += [self.header(role), Part(tuple(self.encode(text)), False, role, trained=answer),
                      Part((c[end],), True, end, trained=answer)]
        if not training:
            parts.append(self.header("assistant"))  # the model writes next
        return parts


TEMPLATES: dict[str, Template] = {t.name: t for t in [
    MistralTemplate("v1", "mistral-v1", inst_as_text=True, system_first=True),
    MistralTemplate("v3", "mistral-v3", inst_as_text=False, system_first=False),
    MistralTemplate("tekken", "tekken", inst_as_text=False, system_first=False),
    HeaderTemplate("llama3", "llama3", "<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                   tool_end="<|eot_id|>"),
    # Llama 4's ChatFormat (llama_models/llama4/chat_format.py) imports torch, so it is no oracle here: this
    # template is read from that source, and tests/project/test_chat_oracles.py checks its shape only.
    HeaderTemplate("llama4", "llama4", "<|begin_of_text|>", "<|header_start|>", "<|header_end|>", "<|eot|>",
                   tool_end="<|eom|>"),
]}


def template(name: str) -> Template:
    """The template called ``name``, or a ValueError listing the names there are."""
    if name not in TEMPLATES:
        raise ValueError(f"no chat template {name!r}; the templates are {', '.join(map(repr, TEMPLATES))}")
    return TEMPLATES[name]


def chat_prompt(messages: Sequence[Message], name: str, training: bool = False) -> list[Part]:
    """A conversation as the template ``name`` writes it, part by part (see the module's docstring)."""
    return template(name).parts(messages, training)


def chat_ids(messages: Sequence[Message], name: str, training: bool = False) -> list[int]:
    """The prompt's ids: :func:`chat_prompt`'s parts joined."""
    return [i for part in chat_prompt(messages, name, training) for i in part.ids]


def loss_mask(messages: Sequence[Message], name: str) -> list[bool]:
    """For each id of ``chat_ids(messages, name, training=True)``, whether a fine-tune trains on it.

    The answers and the id that ends each: what mistral-finetune's ``tokenize_instruct`` trains on for
    Mistral's templates. For Llama, stacks differ at the edges (see docs/references.md): Meta's
    llama-recipes also trains on the blank line after the assistant's header, torchtune on the whole
    header; this mask takes neither. Everything else -- the begin id, headers, system, user and tool
    messages -- is context the model reads and is not trained to write.

    >>> loss_mask([("user", "Hi"), ("assistant", "Yes")], "v3")
    [False, False, False, False, True, True]
    """
    return [part.trained for part in chat_prompt(messages, name, training=True) for _ in part.ids]


def check_pairs(messages: Sequence[Message], roles: tuple[str, ...]) -> None:
    """A TypeError naming the first item that is no ``(role, text)`` pair of strings, or a ValueError naming
    the first role the template does not know (messages counted from 1, as the conversation editor counts lines)."""
    if isinstance(messages, (str, bytes)):
        raise TypeError("messages must be a list of (role, text) pairs, not a string")
    for position, item in enumerate(messages, 1):
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise TypeError(f"message {position} must be a (role, text) pair of strings, not {item!r}")
        if item[0] not in roles:
            raise ValueError(f"message {position} has role {item[0]!r}; roles are {', '.join(map(repr, roles))}")


def check_mistral_order(messages: Sequence[Message], training: bool) -> None:
    """mistral-common's rules for a conversation (its validator, ``ValidationMode.test``; with ``training``,
    ``ValidationMode.finetuning``), each refusal said with the rule it breaks."""
    if not messages:
        raise ValueError("a conversation needs at least one message (mistral-common's rule)")
    if len(messages) == 1 and messages[0][0] == "assistant":
        raise ValueError("a conversation of one message is a user's or a system's (mistral-common's rule)")
    last = messages[-1][0]
    if training and last != "assistant":
        raise ValueError(f"a training example ends with the answer to learn, but message {len(messages)} is "
                         f"{last!r} (mistral-common's finetuning rule)")
    if not training and len(messages) > 1 and last == "assistant":
        raise ValueError(f"message {len(messages)} is an answer: a prompt ends with the user's turn, the model "
                         "answers next (mistral-common's rule)")
    for position, (role, text) in enumerate(messages, 1):
        if role == "system" and position > 1 and messages[position - 2][0] == "assistant":
            raise ValueError(f"message {position} is a system message right after an answer; mistral-common "
                             "allows one first, or after a user or system message")
        if role == "assistant" and not text:
            raise ValueError(f"message {position} (assistant) is empty; mistral-common needs text in every answer")


def mistral_turns(messages: Sequence[Message]) -> list[Message]:
    """The user and assistant turns mistral-common writes: neighbouring messages of one role joined with a
    blank line, system messages left out (they still part their neighbours), and an empty user turn first
    when the conversation does not start with one.

    >>> mistral_turns([("system", "s"), ("assistant", "a"), ("user", "b"), ("user", "c")])
    [('user', ''), ('assistant', 'a'), ('user', 'b\\n\\nc')]
    >>> mistral_turns([("user", "a"), ("system", "s"), ("user", "b")])
    [('user', 'a'), ('user', 'b')]
    """
    turns: list[Message] = []
    previous = None
    for role, text in messages:
        if role != "system":
            if role == previous:
                turns[-1] = (role, turns[-1][1] + BLANK_LINE + text)
            else:
                turns.append((role, text))
        previous = role
    if not turns or turns[0][0] != "user":
        turns.insert(0, ("user", ""))
    return turns
