"""Chapter 18: a conversation editor showing the chat prompt's ids, the template's tokens marked.

Type a conversation, one message a line (``user: ...``, ``assistant: ...``, an optional first
``system: ...``), pick v1, v3 or Tekken, and see the prompt the template writes
(:func:`bpe_course.chat.chat_prompt`): one chip per token, its id under it, the template's own
tokens dark, the messages' tokens light. Type ``[INST]`` into a message and compare v1 with v3.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from ..chat import Part, Template, template
from ..viz import CHIP_STYLE, ID_STYLE, token_label

BUTTONS = {"v1": "v1", "v3": "v3", "Tekken": "tekken"}  # a button's name -> the template's name
SAMPLE = ("system: Answer in one word.\n"
          "user: How many r's in strawberry?\n"
          "assistant: Three.\n"
          "user: And in [INST] raspberry?")
TEMPLATE_BG, MESSAGE_BG = "#3a4a6b", "#e8eef8"


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


def prompt_html(parts: list[Part], chosen: Template) -> str:
    """The prompt as chips (class ``bpe-chip``, ``title="id N"``), each with its id under it."""
    chips = []
    for part in parts:
        bg, colour = (TEMPLATE_BG, "#fff") if part.template else (MESSAGE_BG, "#000")
        kind = "bpe-chat-template" if part.template else "bpe-chat-message"
        for token_id in part.ids:
            style = CHIP_STYLE.format(bg=bg).replace("color:#000", f"color:{colour}")
            chips.append(f'<span class="bpe-chip-box" style="display:inline-block;vertical-align:top;text-align:center">'
                         f'<span class="bpe-chip {kind}" style="{style}" title="id {token_id}" '
                         f'data-part="{html.escape(part.label)}">{html.escape(token_label(chosen.piece(token_id)))}</span>'
                         f'<span class="bpe-chip-id" style="{ID_STYLE}">{token_id}</span></span>')
    return f'<div class="bpe-chat-row" style="line-height:1.9">{"".join(chips)}</div>'


class ChatPromptEditor:
    """A version switch, a conversation box, the prompt's chips and a status line.

    Parts: ``.version`` (toggle buttons, CSS ``bpe-chat-version``), ``.messages`` (a text area,
    ``bpe-chat-messages``), ``.chips`` (HTML, ``bpe-chat-chips``), ``.status`` (``bpe-chat-status``:
    the number of ids and how many the template wrote, or what is wrong with the conversation);
    ``.ids`` is the prompt now (empty when the conversation cannot be written).
    """

    def __init__(self, text: str = SAMPLE, version: str = "v1") -> None:
        if version not in BUTTONS:
            raise ValueError(f"version must be one of {', '.join(BUTTONS)}, not {version!r}")
        self.templates = {button: template(name) for button, name in BUTTONS.items()}
        self.version = widgets.ToggleButtons(options=list(BUTTONS), value=version, description="template"
                                             ).add_class("bpe-chat-version")
        self.messages = widgets.Textarea(value=text, description="messages", continuous_update=False,
                                         layout=widgets.Layout(width="90%", height="8em")).add_class("bpe-chat-messages")
        self.chips = widgets.HTML().add_class("bpe-chat-chips")
        self.status = widgets.HTML().add_class("bpe-chat-status")
        self.ids: list[int] = []
        self.version.observe(lambda _: self.update(), names="value")
        self.messages.observe(lambda _: self.update(), names="value")
        self.box = widgets.VBox([self.version, self.messages, self.status, self.chips])
        self.update()

    def update(self) -> None:
        chosen = self.templates[self.version.value]
        try:
            parts = chosen.parts(parse_messages(self.messages.value))
        except (ValueError, TypeError) as error:
            self.ids = []
            self.chips.value = ""
            self.status.value = f"<span style='color:#b00'>{html.escape(str(error), quote=False)}</span>"
            return
        self.ids = [i for part in parts for i in part.ids]
        from_template = sum(len(part.ids) for part in parts if part.template)
        self.chips.value = prompt_html(parts, chosen)
        self.status.value = (f"<b>{len(self.ids)}</b> ids: {from_template} only the template can write (dark), "
                             f"{len(self.ids) - from_template} encoded from text (light)")

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
