"""The playground widget, driven from Python: typing changes every row; counts equal each tokenizer's encode."""

from __future__ import annotations

import re

import pytest

from bpe_course import Tokenizer, train_bpe
from bpe_course.viz import word_groups
from bpe_course.widgets.playground import MAX_CHIPS, Playground


@pytest.fixture(scope="module")
def small_tok() -> Tokenizer:
    vocab, merges = train_bpe("the cat sat on the mat; the rat ate the hat " * 20, 300, ["<|endoftext|>"])
    return Tokenizer(vocab, merges, ["<|endoftext|>"])


@pytest.fixture(scope="module")
def playground(small_tok) -> Playground:
    return Playground.with_pretrained({"mine": small_tok}, "Hello world")


def chip_ids(row_html: str) -> list[int]:
    return [int(i) for i in re.findall(r'title="id (\d+)"', row_html)]


def test_parts_have_stable_css_classes(playground):
    assert "bpe-playground-text" in playground.text._dom_classes
    assert list(playground.rows) == ["mine", "GPT-2", "GPT-4 (cl100k)", "GPT-4o (o200k)"]
    for row in playground.rows.values():
        assert "bpe-playground-row" in row._dom_classes
    assert playground.widget.children[0] is playground.text


TEXTS = ["Hello world", "The numbers 1234567 and 2024-03-16.", "    def f(x):\n        return x ** 2\n",
         "Grüße aus Köln, 東京 und Москва 🙂", "", "<|endoftext|> after a special token"]


@pytest.mark.parametrize("text", TEXTS)
def test_typing_updates_every_row_with_the_right_tokens(playground, text, small_tok, gpt2_tok, cl100k_tok, o200k_tok,
                                                        tiktoken_gpt2, tiktoken_cl100k, tiktoken_o200k):
    playground.text.value = text
    toks = {"mine": small_tok, "GPT-2": gpt2_tok, "GPT-4 (cl100k)": cl100k_tok, "GPT-4o (o200k)": o200k_tok}
    for name, tok in toks.items():
        ids = tok.encode(text, allowed_special="all")
        assert playground.counts[name] == len(ids)
        html = playground.row_html(name)
        assert chip_ids(html) == ids  # chips in order, each with its id on hover
        assert f'<span class="bpe-playground-count">{len(ids)}</span>' in html
        assert f"<b>{name}</b>" in html
    # and the GPT rows agree with tiktoken itself
    assert playground.ids["GPT-2"] == tiktoken_gpt2.encode(text, allowed_special="all")
    assert playground.ids["GPT-4 (cl100k)"] == tiktoken_cl100k.encode(text, allowed_special="all")
    assert playground.ids["GPT-4o (o200k)"] == tiktoken_o200k.encode(text, allowed_special="all")
    assert playground.rows_html == "\n".join(playground.row_html(n) for n in toks)


def test_changing_the_text_changes_every_row(playground):
    playground.text.value = "Hello world"
    before = {name: playground.row_html(name) for name in playground.rows}
    playground.text.value = "Completely different text, with 99 numbers!"
    for name in playground.rows:
        assert playground.row_html(name) != before[name]


def test_special_tokens_as_text_when_not_allowed(small_tok):
    w = Playground({"mine": small_tok}, "a<|endoftext|>b", allowed_special=())
    assert w.ids["mine"] == small_tok.encode("a<|endoftext|>b", disallowed_special=())
    w_all = Playground({"mine": small_tok}, "a<|endoftext|>b")
    assert small_tok.special_tokens["<|endoftext|>"] in w_all.ids["mine"]


def test_long_text_caps_chips_but_not_count(gpt2_tok):
    text = " ".join(f"w{i}" for i in range(MAX_CHIPS))
    w = Playground({"GPT-2": gpt2_tok}, text)
    ids = gpt2_tok.encode(text)
    assert w.counts["GPT-2"] == len(ids) > MAX_CHIPS
    assert chip_ids(w.row_html("GPT-2")) == ids[:MAX_CHIPS]
    assert f"first {MAX_CHIPS} shown" in w.row_html("GPT-2")


def test_names_are_escaped_and_empty_mapping_rejected(small_tok):
    w = Playground({"<mine>": small_tok}, "hi")
    assert "<b>&lt;mine&gt;</b>" in w.row_html("<mine>")
    with pytest.raises(ValueError, match="at least one tokenizer"):
        Playground({}, "hi")


def test_with_pretrained_picks_names_and_refuses_unknown_ones(small_tok, o200k_tok):
    w = Playground.with_pretrained(text="HelloWorld", names=["o200k"])
    assert list(w.rows) == ["GPT-4o (o200k)"] and w.ids["GPT-4o (o200k)"] == o200k_tok.encode("HelloWorld")
    assert w.tokenizers["GPT-4o (o200k)"].vocab == o200k_tok.vocab
    with pytest.raises(ValueError, match="no named tokenizer 'gpt5' to play with; installed here: gpt2, cl100k"):
        Playground.with_pretrained({"mine": small_tok}, names=["gpt5"])


def test_tekken_row_gives_mistral_commons_ids():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    from bpe_course import pretrained
    assert [n.name for n in pretrained.named("byte-level")] == ["gpt2", "cl100k", "o200k", "tekken", "llama3", "llama4"]
    library = Tekkenizer.from_file(str(pretrained.named_file("tekken")))
    w = Playground.with_pretrained(names=["cl100k", "tekken"])
    assert list(w.rows) == ["GPT-4 (cl100k)", "Mistral Tekken"]
    for text in [t for t in TEXTS if "<|" not in t]:
        w.text.value = text
        ids = library.encode(text, bos=False, eos=False)
        assert w.ids["Mistral Tekken"] == ids and chip_ids(w.row_html("Mistral Tekken")) == ids
        assert f'<span class="bpe-playground-count">{len(ids)}</span>' in w.row_html("Mistral Tekken")
    # typed special tokens are special tokens here (allowed_special="all"), as they are for GPT-4's row
    w.text.value = "[INST]hi[/INST]"
    assert w.ids["Mistral Tekken"] == [3, *library.encode("hi", bos=False, eos=False), 4]
    # with allowed_special=() they are ordinary text, as mistral-common's encode reads them
    as_text = Playground.with_pretrained(text="[INST] hi </s>", names=["tekken"], allowed_special=())
    assert as_text.ids["Mistral Tekken"] == library.encode("[INST] hi </s>", bos=False, eos=False)


def test_ids_are_written_under_the_chips_and_words_never_break(gpt2_tok):
    """Each chip shows its id (not only on hover), and a line may break only between words: every
    token of one word sits in one unbreakable group."""
    text = "The unlowered helmet, naïvely re-tokenized.\nNext line"
    w = Playground({"GPT-2": gpt2_tok}, text)
    row = w.row_html("GPT-2")
    ids = gpt2_tok.encode(text)
    written = [int(i) for i in re.findall(r'<span class="bpe-chip-id"[^>]*>(\d+)</span>', row)]
    assert written == ids == chip_ids(row)
    groups = re.findall(r'<span class="bpe-word-group" style="white-space:nowrap[^"]*">(.*?)</span></span></span>'
                        r'(?=<span class="bpe-word-group"|</div>)', row)
    assert [g.count('class="bpe-chip"') for g in groups] == [len(g) for g in word_groups(gpt2_tok.token_bytes(ids))]
    # each group is a word as the text spells it: it starts at a space (or the text's start), ends before one
    spelled = [b"".join(gpt2_tok.token_bytes([ids[k] for k in g])).decode() for g in
               word_groups(gpt2_tok.token_bytes(ids))]
    assert "".join(spelled) == text
    assert " unlowered" in spelled and " re-tokenized." in spelled and " helmet," in spelled
    assert all(not piece[1:].strip() or " " not in piece.strip() for piece in spelled)
