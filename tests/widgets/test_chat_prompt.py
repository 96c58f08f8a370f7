"""Chapter 18's conversation editor: its chips are chat_prompt's ids, which equal mistral-common's."""

from __future__ import annotations

import re

import pytest

from bpe_course.chat import chat_ids, chat_prompt
from bpe_course.pretrained import mistral_v3 as sentencepiece_v3
from bpe_course.widgets.chat_prompt import ChatPromptEditor, SAMPLE, parse_messages


def chips(editor: ChatPromptEditor) -> list[tuple[int, str, bool]]:
    """(id, label, template?) of every chip the editor draws, read from its HTML."""
    found = re.findall(r'<span class="bpe-chip (bpe-chat-template|bpe-chat-message)"[^>]*title="id (\d+)"[^>]*>(.*?)</span>',
                       editor.chips.value)
    return [(int(i), label, kind == "bpe-chat-template") for kind, i, label in found]


@pytest.mark.parametrize("version, key", [("v1", "v1"), ("v3", "v3"), ("Tekken", "tekken")])
def test_the_chips_are_the_prompt(version, key):
    editor = ChatPromptEditor(SAMPLE, version)
    messages = parse_messages(SAMPLE)
    assert editor.ids == chat_ids(messages, key) == [i for i, _, _ in chips(editor)]
    template = [i for part in chat_prompt(messages, key) if part.template for i in part.ids]
    assert [i for i, _, dark in chips(editor) if dark] == template
    assert f"<b>{len(editor.ids)}</b> ids: {len(template)} only the template can write" in editor.status.value


def test_switching_the_template_and_editing_the_text():
    editor = ChatPromptEditor("user: Hi [INST] there", "v1")
    v1 = editor.ids
    assert 3 not in v1 and [d for _, _, d in chips(editor)].count(True) == 1  # only <s>
    editor.version.value = "v3"
    assert editor.ids.count(sentencepiece_v3().control["[INST]"]) == 1  # the template's; the typed one is text
    editor.messages.value = "user: Hi\nassistant: Yes \nuser: Go "
    assert editor.ids == chat_ids([("user", "Hi"), ("assistant", "Yes "), ("user", "Go ")], "v3")
    editor.version.value = "Tekken"
    assert editor.ids == chat_ids([("user", "Hi"), ("assistant", "Yes "), ("user", "Go ")], "tekken")
    labels = [label for _, label, _ in chips(editor)]
    assert labels[:2] == ["&lt;s&gt;", "[INST]"] and "[/INST]" in labels


@pytest.mark.parametrize("text, message", [
    ("user Hi", "line 1 has no 'role:' in front"),
    ("user: a\nuser: b", "turn 2 is 'user', expected 'assistant'"),
    ("user: a\nassistant: b", "ends with a user message"),
    ("robot: a", "message 1 has role 'robot'"),
])
def test_a_bad_conversation_is_said_not_raised(text, message):
    editor = ChatPromptEditor(text, "v3")
    assert editor.ids == [] and editor.chips.value == "" and message in editor.status.value


def test_unknown_version():
    with pytest.raises(ValueError, match="version must be one of v1, v3, Tekken, not 'v2'"):
        ChatPromptEditor(SAMPLE, "v2")
