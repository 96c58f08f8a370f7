"""Chapter 18's conversation editor: its chips are chat_prompt's ids, which equal mistral-common's."""

from __future__ import annotations

import re

import pytest

from bpe_course import corpus
from bpe_course.chat import chat_ids, chat_prompt
from bpe_course.pretrained import mistral_v3 as sentencepiece_v3
from bpe_course.widgets.chat_prompt import ChatPromptEditor, SAMPLE, parse_messages


def chips(editor: ChatPromptEditor) -> list[tuple[int, str, bool]]:
    """(id, label, template?) of every chip the editor draws, read from its HTML."""
    found = re.findall(r'<span class="bpe-chip (bpe-chat-template|bpe-chat-message)(?: bpe-chat-trained)?"[^>]*'
                       r'title="id (\d+)"[^>]*>(.*?)</span>',
                       editor.chips.value)
    return [(int(i), label, kind == "bpe-chat-template") for kind, i, label in found]


@pytest.mark.parametrize("version, key", [("v1", "v1"), ("v3", "v3"), ("Tekken", "tekken")])
def test_the_chips_are_the_prompt(version, key):
    editor = ChatPromptEditor(SAMPLE, version)
    messages = parse_messages(SAMPLE)
    assert editor.ids == chat_ids(messages, key) == [i for i, _, _ in chips(editor)]
    template = [i for part in chat_prompt(messages, key) if part.template for i in part.ids]
    assert [i for i, _, dark in chips(editor) if dark] == template
    assert f"<b>{len(editor.ids)}</b> ids: {len(template)} written by the template" in editor.status.value


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
    ("user: a\nassistant: b\nsystem: s\nuser: c", "message 3 is a system message right after an answer"),
    ("user: a\nassistant:\nuser: b", "message 2 (assistant) is empty"),
    ("robot: a", "message 1 has role 'robot'"),
])
def test_a_bad_conversation_is_said_not_raised(text, message):
    editor = ChatPromptEditor(text, "v3")
    assert editor.ids == [] and editor.chips.value == "" and message in editor.status.value


def test_unknown_version():
    with pytest.raises(ValueError, match="version must be one of v1, v3, Tekken, Llama 3, Llama 4, not 'v2'"):
        ChatPromptEditor(SAMPLE, "v2")


@pytest.mark.parametrize("version, key", [("v3", "v3"), ("Llama 3", "llama3"), ("Llama 4", "llama4")])
def test_the_loss_mask_is_underlined_and_an_answer_last_makes_a_training_example(version, key):
    """Chips of ids a fine-tune trains on carry bpe-chat-trained: exactly loss_mask's; a conversation ending with
    an answer is written as a training example (chat_ids(..., training=True)), one ending with a user as a prompt."""
    from bpe_course.chat import loss_mask
    text = "user: Hi\nassistant: Hello there\nuser: Bye\nassistant: Bye!"
    editor = ChatPromptEditor(text, version)
    messages = parse_messages(text)
    assert editor.ids == chat_ids(messages, key, training=True) and editor.mask == loss_mask(messages, key)
    trained = re.findall(r'class="bpe-chip [a-z-]+ bpe-chat-trained"[^>]*title="id (\d+)"', editor.chips.value)
    assert [int(i) for i in trained] == [i for i, m in zip(editor.ids, editor.mask) if m]
    assert f"{sum(editor.mask)} a fine-tune trains on" in editor.status.value and "training example" in editor.status.value
    editor.messages.value = "user: Hi\nassistant: Hello there\nuser: Bye"
    assert editor.ids == chat_ids(parse_messages(editor.messages.value), key) and "a prompt" in editor.status.value
    assert editor.mask == [p.trained for p in chat_prompt(parse_messages(editor.messages.value), key) for _ in p.ids]


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


# ---- widgets: a bounded number of chips, however long the text ------------------------------------------
def html_sizes(make_html, lengths=(20_000, 200_000)) -> list[int]:
    words = " ".join(corpus.load("python_docs").split())
    return [len(make_html(words[:n])) for n in lengths]


def test_the_chat_editor_draws_at_most_max_chips_for_a_long_message():
    pytest.importorskip("mistral_common")
    from bpe_course.viz import MAX_CHIPS
    from bpe_course.widgets.chat_prompt import ChatPromptEditor
    editor = ChatPromptEditor("user: hi", version="v3")

    def html(text):
        editor.messages.value = "user: " + text
        assert len(editor.ids) > 2 * MAX_CHIPS  # every id is still counted
        assert editor.chips.value.count('class="bpe-chip ') == MAX_CHIPS
        assert f"first {MAX_CHIPS:,} of {len(editor.ids):,} tokens shown" in editor.chips.value
        return editor.chips.value
    small, large = html_sizes(html)
    assert large < 1.1 * small  # was 24 MB for 200 KB, 10x the 20 KB one
