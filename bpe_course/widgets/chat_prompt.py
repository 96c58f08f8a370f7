"""Chapter 19: a conversation editor showing the chat prompt's ids, the template's tokens and the loss mask marked.

Type a conversation, one message a line (``user: ...``, ``assistant: ...``, ``system: ...``, and for
Llama ``tool: ...``), pick a template (v1, v3, Tekken, Llama 3, Llama 4: those whose tokenizer is
installed), and see the ids the template writes (:func:`bpe_course.chat.chat_prompt`): one chip per
token, its id under it, the template's own tokens dark, the messages' tokens light, and the ids a
fine-tune trains on (:func:`bpe_course.chat.loss_mask`) underlined in green. A conversation that ends
with a user's message is a prompt, the model writes next; one that ends with an answer is a training
example, written as a fine-tune sees it. Type ``[INST]`` into a message and compare v1 with v3.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from .. import pretrained
from ..chat import Part, Template, template
from ..viz import CHIP_STYLE, ID_STYLE, MAX_CHIPS, more_line, token_label

# a button's name -> the template's name, for the templates whose tokenizer is installed
ALL_BUTTONS = {"v1": "v1", "v3": "v3", "Tekken": "tekken", "Llama 3": "llama3", "Llama 4": "llama4"}
SAMPLE = ("system: Answer in one word.\n"
          "user: How many r's in strawberry?\n"
          "assistant: Three.\n"
          "user: And in [INST] raspberry?")
TEMPLATE_BG, MESSAGE_BG = "#3a4a6b", "#e8eef8"
TRAINED_MARK = "box-shadow:inset 0 -3px 0 #1a7f37"  # a green underline inside the chip: an id the loss counts


def buttons() -> dict[str, str]:
    """The templates offered here: those whose named tokenizer's package is installed."""
    installed = {n.name for n in pretrained.named()}
    return {button: name for button, name in ALL_BUTTONS.items() if template(name).tokenizer_name in installed}


def parse_messages(text: str) -> list[tuple[str, str]]:
    """``role: text`` lines into ``(role, text)`` pairs; the text keeps its spaces after the first one.

    >>> parse_messages("user: Hi \\nassistant:Hello")
    [('user', 'Hi '), ('assistant', 'Hello')]
    """
    messages = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        role, colon, rest = line.partition(":")
        if not colon:
            raise ValueError(f"line {number} has no 'role:' in front: write user: ..., assistant: ... or system: ...")
        messages.append((role.strip().lower(), rest[1:] if rest.startswith(" ") else rest))
    return messages


def prompt_html(parts: list[Part], chosen: Template, limit: int = MAX_CHIPS) -> str:
    """The prompt as chips (class ``bpe-chip``, ``title="id N"``), each with its id under it; a chip of an id
    a fine-tune trains on has the class ``bpe-chat-trained`` too, and a green underline. The first ``limit``
    chips only, then a line saying how many ids there are."""
    chips: list[str] = []
    for part in parts:
        bg, colour = (TEMPLATE_BG, "#fff") if part.template else (MESSAGE_BG, "#000")
        kind = "bpe-chat-template" if part.template else "bpe-chat-message"
        style = CHIP_STYLE.format(bg=bg).replace("color:#000", f"color:{colour}")
        if part.trained:
            kind, style = f"{kind} bpe-chat-trained", f"{style};{TRAINED_MARK}"
        for token_id in part.ids[:max(limit - len(chips), 0)]:
            chips.append(f'<span class="bpe-chip-box" style="display:inline-block;vertical-align:top;text-align:center">'
                         f'<span class="bpe-chip {kind}" style="{style}" title="id {token_id}" '
                         f'data-part="{html.escape(part.label)}">{html.escape(token_label(chosen.piece(token_id)))}</span>'
                         f'<span class="bpe-chip-id" style="{ID_STYLE}">{token_id}</span></span>')
    total = sum(len(part.ids) for part in parts)
    return f'<div class="bpe-chat-row" style="line-height:1.9">{"".join(chips)}</div>' + more_line(total, limit)


class ChatPromptEditor:
    """A template switch, a conversation box, the prompt's chips and a status line.

    Parts: ``.version`` (toggle buttons, CSS ``bpe-chat-version``), ``.messages`` (a text area,
    ``bpe-chat-messages``), ``.chips`` (HTML, ``bpe-chat-chips``), ``.status`` (``bpe-chat-status``:
    the number of ids, how many the template wrote and how many a fine-tune trains on, or what is wrong with
    the conversation); ``.ids`` and ``.mask`` are the prompt and its loss mask now (empty when the
    conversation cannot be written).
    """

    def __init__(self, text: str = SAMPLE, version: str = "v1") -> None:
        offered = buttons()
        if version not in offered:
            raise ValueError(f"version must be one of {', '.join(offered)}, not {version!r}")
        self.templates = {button: template(name) for button, name in offered.items()}
        self.version = widgets.ToggleButtons(options=list(offered), value=version, description="template"
                                             ).add_class("bpe-chat-version")
        self.messages = widgets.Textarea(value=text, description="messages", continuous_update=False,
                                         layout=widgets.Layout(width="90%", height="8em")).add_class("bpe-chat-messages")
        self.chips = widgets.HTML().add_class("bpe-chat-chips")
        self.status = widgets.HTML().add_class("bpe-chat-status")
        self.ids: list[int] = []
        self.mask: list[bool] = []
        self.version.observe(lambda _: self.update(), names="value")
        self.messages.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([self.version, self.messages, self.status, self.chips])
        self.update()

    def update(self) -> None:
        chosen = self.templates[self.version.value]
        try:
            messages = parse_messages(self.messages.value)
            training = bool(messages) and messages[-1][0] == "assistant"  # it ends with an answer: an example
            parts = chosen.parts(messages, training)
        except (ValueError, TypeError) as error:
            self.ids, self.mask = [], []
            self.chips.value = ""
            self.status.value = f"<span style='color:#b00'>{html.escape(str(error), quote=False)}</span>"
            return
        self.ids = [i for part in parts for i in part.ids]
        self.mask = [part.trained for part in parts for _ in part.ids]
        from_template = sum(len(part.ids) for part in parts if part.template)
        what = ("a training example (it ends with an answer)" if training else
                "a prompt (the model writes next)")
        self.chips.value = prompt_html(parts, chosen)
        self.status.value = (f"<b>{len(self.ids)}</b> ids: {from_template} written by the template (dark), "
                             f"{len(self.ids) - from_template} encoded from the messages (light); "
                             f"{sum(self.mask)} a fine-tune trains on (green underline). This is {what}.")

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
