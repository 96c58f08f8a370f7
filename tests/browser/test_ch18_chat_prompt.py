"""Chapter 18's conversation editor in a real browser: switch the template, edit the conversation; the chips
are the prompt's ids (chat_prompt's, which tests/test_chat.py holds equal to mistral-common's)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from bpe_course.chat import chat_ids, chat_prompt
from bpe_course.widgets.chat_prompt import SAMPLE, parse_messages

from .lab_page import chip_ids, eventually

pytestmark = pytest.mark.browser

NOTEBOOK = "18_open_models_and_chat.ipynb"


def test_chat_chips_follow_the_template_and_the_text(open_notebook):
    nb = open_notebook(NOTEBOOK)
    nb.run_all()
    chips, status = nb.widget("bpe-chat-chips"), nb.widget("bpe-chat-status")
    expect(chips).to_have_count(1)

    def expect_prompt(text: str, version: str) -> None:
        messages = parse_messages(text)
        want = chat_ids(messages, version)
        dark = sum(len(part.ids) for part in chat_prompt(messages, version) if part.template)

        def check() -> None:
            assert chip_ids(chips) == want, f"{version}: the chips differ from the prompt's {len(want)} ids"
            assert chips.locator(".bpe-chat-template").count() == dark

        eventually(check)
        expect(status).to_contain_text(f"{len(want)} ids: {dark} only the template can write")

    expect_prompt(SAMPLE, "v1")
    nb.widget("bpe-chat-version").locator("button", has_text=re.compile(r"^v3$")).click()
    expect_prompt(SAMPLE, "v3")
    edited = "user: Hi [INST] there\nassistant: Hello \nuser: Bye "
    box = nb.widget("bpe-chat-messages").locator("textarea")
    box.fill(edited)
    box.press("Tab")  # the box sends its text when it loses focus
    expect_prompt(edited, "v3")
    nb.widget("bpe-chat-version").locator("button", has_text=re.compile(r"^Tekken$")).click()
    expect_prompt(edited, "tekken")
    box.fill("user: one\nuser: two")
    box.press("Tab")
    expect(status).to_contain_text("turn 2 is 'user', expected 'assistant'")  # the second line: turns count from 1
    expect(chips.locator(".bpe-chip")).to_have_count(0)
    box.fill(SAMPLE)
    box.press("Tab")
    expect_prompt(SAMPLE, "tekken")
    nb.screenshot(chips.locator(".."), "ch18_chat_prompt.png")
    nb.assert_no_console_errors()
