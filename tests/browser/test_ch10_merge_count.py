"""Chapter 10's byte-level merge-count slider in a real browser: arrow keys, preset buttons, the exact box, typing."""

from __future__ import annotations

import hashlib
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Locator, expect

from bpe_course import Tokenizer, cl100k, corpus, gpt2, train_bpe
from bpe_course.pretrained import tekken
from bpe_course.viz import token_label
from bpe_course.widgets.merge_count import course_tokenizers, merge_steps

from .lab_page import chip_ids, chip_labels, eventually, notebook_constants

pytestmark = pytest.mark.browser

NOTEBOOK = "10_gpt4_cl100k.ipynb"
TYPED = "Grow it back: naïve 12345 tokens!"  # typed key by key; non-ASCII so 0 merges shows <0xNN> chips


def tokenizers_like_the_chapter() -> dict[str, Tokenizer]:
    """The slider's presets: "your tokenizer" (trained as the chapter does), GPT-2, GPT-4 (cl100k) and Tekken."""
    config = notebook_constants(NOTEBOOK)
    specials = ["<|endoftext|>"]
    vocab, merges = train_bpe(corpus.load_text(config["CORPUS"]), config["OWN_VOCAB_SIZE"], specials, pattern="gpt4")
    return {"your tokenizer": Tokenizer(vocab, merges, specials, pattern="gpt4"), "GPT-2": gpt2(),
            "GPT-4 (cl100k)": cl100k(), "Mistral Tekken": tekken()}


def digest(values: list) -> str:
    """A short fingerprint: polling compares these, never the long lists (pytest would diff them each time)."""
    return hashlib.sha256(repr(values).encode()).hexdigest()[:16]


def expect_shown(box: Locator, tokenizers: dict[str, Tokenizer], name: str, k: int, text: str,
                 typed: int | None = None) -> None:
    """The status names ``name`` and ``k``; the slider has the notches of ``merge_steps`` plus ``k`` (and
    an earlier ``typed`` count); readout, exact box, stats and chips are ``truncated(k)``'s encoding."""
    tok = tokenizers[name]
    n = len(tok.merges)
    expect(box.locator(".bpe-mc-status")).to_have_text(f"✓ {name} with {k:,} of {n:,} merges")
    expect(box.locator(".bpe-mc-slider .widget-readout")).to_have_text(f"all {k:,}" if k == n else f"{k:,}")
    notches = sorted(set(merge_steps(n)) | {k} | ({typed} if typed is not None else set()))
    handle = box.locator(".bpe-mc-slider .noUi-handle")
    expect(handle).to_have_attribute("aria-valuemax", re.compile(rf"^{len(notches) - 1}(\.0)?$"))  # the track
    expect(handle).to_have_attribute("aria-valuenow", re.compile(rf"^{notches.index(k)}(\.0)?$"))
    expect(box.locator(".bpe-mc-exact input")).to_have_value(str(k))
    expect(box.locator(".bpe-mc-choice button.mod-active")).to_have_text(name)
    ids = tok.truncated(k).encode_ordinary(text)
    labels = [token_label(t) for t in tok.token_bytes(ids)]
    expect(box.locator(".bpe-mc-tokens")).to_have_text(f"{len(ids):,}")
    expect(box.locator(".bpe-mc-bpt")).to_have_text(f"{len(text.encode('utf-8')) / len(ids):.2f}")
    chips = box.locator(".bpe-mc-chips")
    want = (digest(ids), digest(labels))
    got: list = []

    def check() -> None:
        got[:] = [chip_ids(chips), chip_labels(chips)]
        assert (digest(got[0]), digest(got[1])) == want

    try:
        eventually(check)
    except AssertionError:
        first = next((i for i, pair in enumerate(zip(got[0], ids)) if pair[0] != pair[1]), min(len(got[0]), len(ids)))
        raise AssertionError(f"{name} at {k} merges: the chips differ from token {first} on: shown "
                             f"{got[0][first:first + 5]} {got[1][first:first + 5]}, expected {ids[first:first + 5]} "
                             f"{labels[first:first + 5]} ({len(got[0])} chips shown, {len(ids)} expected)") from None


def test_merge_count_slider_follows_keys_buttons_and_typing(open_notebook):
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(tokenizers_like_the_chapter)  # while the browser runs the notebook
        nb = open_notebook(NOTEBOOK)
        nb.run_all()
        tokenizers = building.result()
    boxes = nb.widget("bpe-merge-count")
    expect(boxes).to_have_count(1)
    box = boxes.first
    slider = box.locator(".bpe-mc-slider")
    buttons = box.locator(".bpe-mc-choice button")
    expect(buttons).to_have_text(list(course_tokenizers(tokenizers["your tokenizer"])))  # GPT-4o too, if there
    text = box.locator(".bpe-mc-text textarea").input_value()

    # Where the chapter's own cell put it (its later cells drive a separate instance), as the status says.
    status = box.locator(".bpe-mc-status")
    expect(status).to_have_text(re.compile(r"^✓ .+ with [\d,]+ of [\d,]+ merges$"))
    name, k = re.match(r"^✓ (.+) with ([\d,]+) of", status.inner_text()).groups()
    expect_shown(box, tokenizers, name, int(k.replace(",", "")), text)

    # GPT-4, then exactly 1,000 merges typed into the box.
    buttons.filter(has_text=re.compile(r"^GPT-4 \(cl100k\)$")).click()
    # subtle: type only once GPT-4 is shown; the switch sets the box, and would overwrite a count typed meanwhile
    expect(status).to_have_text(re.compile(r"^✓ GPT-4 \(cl100k\) with "))
    exact = box.locator(".bpe-mc-exact input")
    exact.fill("1000")
    exact.press("Enter")
    expect_shown(box, tokenizers, "GPT-4 (cl100k)", 1000, text)

    # Arrow keys: one notch per press (0, 1, 2, 5, 10, 20, 50, ... on a log scale).
    nb.set_slider_by_keys(slider, "ArrowLeft", 2)
    expect_shown(box, tokenizers, "GPT-4 (cl100k)", 200, text)
    nb.set_slider_by_keys(slider, "ArrowRight", 3)
    expect_shown(box, tokenizers, "GPT-4 (cl100k)", 2000, text)

    # A preset button: the same number of merges of another tokenizer.
    buttons.filter(has_text=re.compile(r"^GPT-2$")).click()
    expect_shown(box, tokenizers, "GPT-2", 2000, text)

    # An exact count typed into the box becomes a notch, so the readout shows it exactly.
    exact.fill("3048")
    exact.press("Enter")
    expect_shown(box, tokenizers, "GPT-2", 3048, text)
    nb.screenshot(box, "ch10_merge_count.png")

    # On to all of GPT-2's merges: 5,000, 10,000, 20,000, all 50,000; pressing on stays there.
    nb.set_slider_by_keys(slider, "ArrowRight", 5)
    expect_shown(box, tokenizers, "GPT-2", 50_000, text, typed=3048)

    # Your tokenizer: "all" stays all.
    buttons.filter(has_text=re.compile(r"^your tokenizer$")).click()
    expect_shown(box, tokenizers, "your tokenizer", len(tokenizers["your tokenizer"].merges), text)

    # Typing another text, key by key: re-tokenized with the same merges.
    text_box = box.locator(".bpe-mc-text textarea")
    text_box.click()
    nb.page.keyboard.press("Control+A")
    nb.page.keyboard.type(TYPED)
    expect(text_box).to_have_value(TYPED)
    expect_shown(box, tokenizers, "your tokenizer", len(tokenizers["your tokenizer"].merges), TYPED)

    # Down to no merges at all: every byte a chip of its own.
    nb.set_slider_by_keys(slider, "ArrowLeft", 20)
    expect_shown(box, tokenizers, "your tokenizer", 0, TYPED)
    at = TYPED.encode().index("ï".encode())
    assert chip_labels(box.locator(".bpe-mc-chips"))[at:at + 2] == ["<0xC3>", "<0xAF>"]  # the ï of naïve, as bytes
    nb.screenshot(box, "ch10_merge_count_zero.png")

    # Mistral's Tekken, whose ids are its ranks + 1,000: still no merges (a byte is the byte + 1,000),
    # then its first 1,000 merges, ten notches on.
    buttons.filter(has_text=re.compile(r"^Mistral Tekken$")).click()
    expect_shown(box, tokenizers, "Mistral Tekken", 0, TYPED)
    assert chip_ids(box.locator(".bpe-mc-chips")) == [1000 + b for b in TYPED.encode()]
    nb.set_slider_by_keys(slider, "ArrowRight", 10)
    expect_shown(box, tokenizers, "Mistral Tekken", 1000, TYPED)
    nb.assert_no_console_errors()
