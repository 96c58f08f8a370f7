"""Chapter 19's conversation editor in a real browser: switch the template, edit the conversation; the chips
are the prompt's ids (chat_prompt's, which tests/project/test_chat_oracles.py holds equal to mistral-common's and
llama-models'), the template's dark and the ids a fine-tune trains on underlined (loss_mask's)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from bpe_course.chat import chat_ids, chat_prompt
from bpe_course.widgets.chat_prompt import SAMPLE, parse_messages

from .lab_page import chip_ids, eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "19_llama_and_the_chat_template.ipynb"


def test_chat_chips_follow_the_template_the_text_and_the_loss_mask(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    chips, status = nb.widget("bpe-chat-chips"), nb.widget("bpe-chat-status")
    expect(chips).to_have_count(1)

    def expect_prompt(text: str, version: str) -> None:
        messages = parse_messages(text)
        training = messages[-1][0] == "assistant"
        parts = chat_prompt(messages, version, training)
        want = chat_ids(messages, version, training)
        dark = sum(len(part.ids) for part in parts if part.template)
        trained = [i for part in parts if part.trained for i in part.ids]

        def check() -> None:
            assert chip_ids(chips) == want, f"{version}: the chips differ from the prompt's {len(want)} ids"
            assert chips.locator(".bpe-chat-template").count() == dark
            underlined = chips.locator(".bpe-chat-trained").evaluate_all("spans => spans.map(s => s.title)")
            assert [int(t.removeprefix("id ")) for t in underlined] == trained

        eventually(check)
        expect(status).to_contain_text(f"{len(want)} ids: {dark} written by the template")
        expect(status).to_contain_text(f"{len(trained)} a fine-tune trains on")

    def template(label: str) -> None:
        nb.widget("bpe-chat-version").locator("button", has_text=re.compile(rf"^{label}$")).click()

    def type_in(text: str) -> None:
        box = nb.widget("bpe-chat-messages").locator("textarea")
        box.fill(text)
        box.press("Tab")  # the box sends its text when it loses focus

    expect_prompt(SAMPLE, "v1")
    template("v3")
    expect_prompt(SAMPLE, "v3")
    edited = "user: Hi [INST] there\nassistant: Hello \nuser: Bye "
    type_in(edited)
    expect_prompt(edited, "v3")
    template("Tekken")
    expect_prompt(edited, "tekken")
    template("Llama 3")
    expect_prompt(edited, "llama3")
    example = "system: Be brief.\nuser: 2+2?\nassistant: 4"  # ends with an answer: a training example
    type_in(example)
    expect_prompt(example, "llama3")
    expect(status).to_contain_text("training example")
    template("Llama 4")
    expect_prompt(example, "llama4")
    template("v3")
    expect_prompt(example, "v3")
    type_in("user: a\nassistant: b\nsystem: s\nuser: c")
    expect(status).to_contain_text("message 3 is a system message right after an answer")  # counted from 1
    expect(chips.locator(".bpe-chip")).to_have_count(0)
    type_in(SAMPLE)
    template("v1")
    expect_prompt(SAMPLE, "v1")
    nb.screenshot(chips.locator(".."), "ch19_chat_prompt.png")
    nb.assert_no_console_errors()
