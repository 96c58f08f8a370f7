# %% [markdown]
# # 16 · What a tokenizer does to a model
#
# [← 15 Other designs](15_other_designs.ipynb) · [00 Start here](00_start_here.ipynb) · [17 Beyond greedy BPE →](17_beyond_greedy_bpe.ipynb)
#
# Chapter 06 measured how much shorter a text gets as the vocabulary grows, and stopped at the
# question that comes next: *so which size is best?* Its plot cannot answer, because fewer tokens
# can each be harder to predict. Chapters 06, 13, 14 and 15 say so and leave the effect on a model
# argued. This chapter measures it, on a laptop, in a minute or two. You will
#
# * build **bits per byte**, the yardstick that compares tokenizers of the same text fairly, and see
#   why tokens per word cannot;
# * build a **bigram language model** over token ids yourself, and check it against the package's
#   Kneser-Ney model (`bpe_course.algorithms.lm`), which looks up to four tokens back;
# * run five experiments, each a plot read by the sentence after it: the vocabulary size against
#   n-gram order, the amount of training text, the pre-tokenization pattern, BPE-dropout against
#   misspellings, and the token tax in bits;
# * explore the first one with a widget.
#
# An n-gram model is not a transformer: section 9 says what carries over and what does not.

# %%
import math
import re
from bisect import bisect_left
from collections import Counter
from itertools import accumulate
from random import Random

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from bpe_course import Tokenizer, bytes_per_token, corpus, train
from bpe_course.algorithms import (KneserNey, Sweep, best_rows, bits_per_byte, dropout_tokens, fit_orders,
                                   train_on_mix, vocab_points)
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES, TRAIN_ARTICLES, language_name, mix_text
from bpe_course.widgets import ModelQualityExplorer, plot_model_quality

# %% [markdown]
# The text: the novel `don_quixote`, cut into a training part and a held-out part as in chapter 06.
# Tokenizers and models learn from the first `TRAIN_CHARS` characters of the training part; every
# score is on the held-out part, which neither ever sees. Merges must be of pairs seen at least
# `MIN_FREQUENCY` times (chapter 06, section 3).

# %%
TRAIN_CHARS = 1_000_000
MIN_FREQUENCY = 5
MAX_MERGES = 8192
ORDERS = (2, 3, 4)

book_train, heldout_text = corpus.train_heldout("don_quixote")
train_text = book_train[:TRAIN_CHARS]
heldout_bytes = len(heldout_text.encode("utf-8"))
print(f"training text: {len(train_text):,} characters of {len(book_train):,}; held-out text: "
      f"{len(heldout_text):,} characters, {heldout_bytes:,} UTF-8 bytes, {len(heldout_text.split()):,} words")

# %% [markdown]
# ## 1. The yardstick: bits per byte
#
# A **language model** gives every token a probability, given the tokens before it. A token the
# model expected (probability near 1) is cheap; a surprise is expensive. The price of a token of
# probability *p* is `-log2(p)` bits, its ideal code length (Shannon, 1948); an arithmetic coder
# driven by the model comes within a couple of bits of the total over a whole text, so the total is
# the size of the text compressed by that model. A better model is a better compressor.
#
# Divide the total by the text's UTF-8 bytes and you get **bits per byte**. Tokens per word asks
# how many pieces a tokenizer cuts a text into; bits per byte asks how much a model must still
# be told, whatever the pieces. Two tokenizers of the same text have the same bytes, so their bits
# per byte compare directly — fewer tokens only help if they are not each much harder to predict.
# Write it:

# %%
def total_bits(probs: list[float]) -> float:
    """The bits a model spends on a text: the sum of -log2 p over its tokens."""
    return -sum(math.log2(p) for p in probs)


def my_bits_per_byte(probs: list[float], text: str) -> float:
    return total_bits(probs) / len(text.encode("utf-8"))


# %% [markdown]
# A first check: a model that knows nothing gives every one of the 256 byte values the same
# probability. On a byte-level encoding it must cost exactly 8 bits a byte:

# %%
sample = heldout_text[:2000]
print("know-nothing model over bytes:", my_bits_per_byte([1 / 256] * len(sample.encode("utf-8")), sample), "bits per byte")

# %% [markdown]
# ## 2. A bigram model, by hand
#
# A **bigram** model predicts a token from the one before it. Counting is the easy part: after
# token `v`, token `w` came `c(v w)` times. Dividing by `c(v ·)`, all the tokens seen after `v`,
# gives a probability — and 0 for everything not seen after `v`, which on held-out text would cost
# infinitely many bits. Every real model *smooths*: it takes a little probability away from what was
# seen and gives it to everything else. Kneser-Ney smoothing (Kneser & Ney, 1995) does it in three
# steps, each a small cell. First the counts, on the training text encoded by a tokenizer trained on it:

# %%
run = train(train_text, 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY)
tok = Tokenizer(run.vocab, run.merges)
print(tok, "|", run.stop_reason)

HAND_MERGES = 768
small = tok.truncated(HAND_MERGES)
V = 256 + HAND_MERGES
train_ids = small.encode_ordinary(train_text)
heldout_ids = small.encode_ordinary(heldout_text)
pairs = Counter(zip(train_ids, train_ids[1:]))
after = Counter()  # c(v .): how many tokens follow v
for (v, w), n in pairs.items():
    after[v] += n
print(f"{len(train_ids):,} training tokens, {len(pairs):,} different bigrams")

# %% [markdown]
# **Step 1, discount.** Take a fixed `D` off every bigram count. What was taken from `v`'s counts,
# `D` times the number of different tokens seen after `v`, is the weight `v` hands to a fallback.
#
# **Step 2, the fallback: continuations, not counts.** The obvious fallback is how often `w` occurs
# at all. Kneser and Ney's idea is better: how many *different* tokens came before `w`. A token that
# is frequent but only ever follows one token (" Quixote" after " Don") is a poor guess after
# anything else, and the fallback is only used after anything else.
#
# **Step 3, nothing is impossible.** The fallback itself gets a discount, and what that frees goes to
# the uniform distribution over all `V` tokens of the vocabulary.

# %%
D = 0.75
followers = Counter(v for v, _ in pairs)  # different tokens seen after v
continuations = Counter(w for _, w in pairs)  # different tokens seen before w
n_types = len(pairs)


def p_fallback(w: int) -> float:
    seen = max(continuations[w] - D, 0) / n_types
    return seen + D * len(continuations) / n_types / V


def p_bigram(w: int, v: int) -> float:
    if after[v] == 0:  # v never seen with a follower: only the fallback
        return p_fallback(w)
    return max(pairs[v, w] - D, 0) / after[v] + D * followers[v] / after[v] * p_fallback(w)


print(f"p(' Quixote' | ' Don') = {p_bigram(small.encode(' Quixote')[0], small.encode(' Don')[0]):.3f}"
      if len(small.encode(" Quixote")) == 1 else "' Quixote' is more than one token here")

# %% [markdown]
# Check it against the package: `KneserNey(ids, order=2, n_vocab=V, discounts=(D, D))` is the same
# model (one discount per level). Every held-out token gets the same probability from both; then
# the bits per byte of the held-out text:

# %%
mine = [p_bigram(w, v) for v, w in zip(heldout_ids, heldout_ids[1:])]
package = KneserNey(train_ids, 2, V, discounts=(D, D))
theirs = package.token_probs(heldout_ids)[1:]  # the first token has no token before it
assert max(abs(a - b) for a, b in zip(mine, theirs)) < 1e-12
assert all(p > 0 for p in mine) and abs(sum(package.distribution(heldout_ids[:1])) - 1) < 1e-9
hand_bpb = my_bits_per_byte(package.token_probs(heldout_ids), heldout_text)
assert abs(hand_bpb - bits_per_byte(package, heldout_ids, heldout_text)) < 1e-12
modified = KneserNey(train_ids, 2, V)
print(f"your bigram == bpe_course.algorithms.lm on all {len(mine):,} held-out bigrams")
print(f"bits per byte, one discount D={D}: {hand_bpb:.4f}; modified Kneser-Ney: "
      f"{bits_per_byte(modified, heldout_ids, heldout_text):.4f}")
print("modified Kneser-Ney's discounts (D1, D2, D3+) per level:",
      [tuple(round(d, 3) for d in level) for level in modified.discounts])

# %% [hide-input]
modified_bpb = bits_per_byte(modified, heldout_ids, heldout_text)
display(Markdown(
    "The package's default is **modified** Kneser-Ney (Chen & Goodman, 1998): three discounts per level, for "
    "counts of one, two, and three or more, estimated from how many n-grams were seen once, twice, three and four "
    "times, so no `D` has to be chosen by hand. Chen & Goodman found it the best of the smoothings they compared, "
    f"on word n-grams of large corpora. On this bigram the two differ by only {abs(modified_bpb - hand_bpb):.4f} bits "
    "per byte, and "
    + ("the hand-picked `D` is the one slightly ahead: the literature's ranking is not a law for every text."
       if hand_bpb < modified_bpb else "modified Kneser-Ney is the one slightly ahead.")))

# %% [markdown]
# Longer contexts work the same way, one level per order, each falling back on the one below; `fit_orders`
# fits several orders at once, sharing their lower levels. The tests check the package against a
# naive implementation written from Chen & Goodman's equations and against `nltk.lm`
# (`tests/test_lm.py`).
#
# ## 3. Vocabulary size and bits per byte
#
# Now the plot chapter 06 could not draw. The tokenizer above, cut to vocabularies that double from
# the bytes up to all the merges it learned; for each, models of each order in `ORDERS` learn from
# the training text and are scored on the held-out text. A `Sweep` encodes both texts once per size
# and keeps every number:

# %%
sweep = Sweep(tok, train_text, heldout_text, vocab_points(len(tok.merges)))
data = sweep.measure(ORDERS)
assert abs(data.query("order == 2 and merges == @HAND_MERGES")["bits_per_byte"].item()
           - bits_per_byte(modified, heldout_ids, heldout_text)) < 1e-12
table = data.pivot(index="n_vocab", columns="order", values="bits_per_byte").add_prefix("bits/byte, order ")
table.insert(0, "tokens per word", data.drop_duplicates("n_vocab").set_index("n_vocab")["tokens_per_word"])
table.round(4)

# %%
fig = plot_model_quality(data, f"don_quixote, {len(train_text):,} training characters: held-out text")
display(fig)

# %% [hide-input]
best = best_rows(data)
longest, shortest = data["n_vocab"].min(), data["n_vocab"].max()
tpw = data.drop_duplicates("n_vocab").set_index("n_vocab")["tokens_per_word"]
lines = [f"Tokens per word fall all the way, from {tpw[longest]:.2f} with the {longest} bytes to {tpw[shortest]:.2f} "
         f"with {shortest:,} tokens. Bits per byte do not all follow them:"]
flat = []  # (order, the nearest neighbour of its minimum, how much more that neighbour costs)
for _, row in best.iterrows():
    at = data[data["order"] == row["order"]].set_index("n_vocab")["bits_per_byte"]
    where = ("at the largest vocabulary" if row["n_vocab"] == shortest else
             f"at {int(row['n_vocab']):,} tokens, then rise to {at[shortest]:.4f} at {shortest:,}")
    lines.append(f"* order {int(row['order'])}: from {at[longest]:.4f} on bytes down to {row['bits_per_byte']:.4f} {where};")
    sizes = list(at.index)
    i = sizes.index(row["n_vocab"])
    near = min((sizes[j] for j in (i - 1, i + 1) if 0 <= j < len(sizes)), key=lambda size: at[size])
    flat.append((int(row["order"]), int(near), at[near] - row["bits_per_byte"]))
gain = {n: data[data["order"] == n].set_index("n_vocab")["bits_per_byte"] for n in ORDERS}
lines.append(f"* the longer context matters most on bytes: orders {ORDERS[0]} and {ORDERS[-1]} differ by "
             f"{gain[ORDERS[0]][longest] - gain[ORDERS[-1]][longest]:.3f} bits per byte at {longest}, by "
             f"{gain[ORDERS[0]][shortest] - gain[ORDERS[-1]][shortest]:.3f} at {shortest:,}.")
n, near, gap = min(flat, key=lambda f: f[2])
lines.append(f"\nThe bottoms are flat: order {n}'s nearest size, {near:,}, costs only {gap:.4f} bits per byte more, "
             "too small a difference to lean on. Read a minimum as a region of the "
             "doubling grid, not as one best size.")
display(Markdown("\n".join(lines)))

# %% [markdown]
# Why can a bigger vocabulary cost bits? One worked example: two tokenizers of the table, the same
# held-out text, the highest order. Bits per byte is tokens per byte times bits per token, and a
# bigger vocabulary lowers the first while it raises the second:

# %%
top = data[data["order"] == ORDERS[-1]].set_index("n_vocab")
pair = [int(best.set_index("order").loc[ORDERS[-1], "n_vocab"]), int(top.index.max())]
worked = pd.DataFrame({"tokens": top.loc[pair, "heldout_tokens"],
                       "bits per token": top.loc[pair, "bits_per_byte"] * heldout_bytes / top.loc[pair, "heldout_tokens"],
                       "total bits": top.loc[pair, "bits_per_byte"] * heldout_bytes,
                       "bits per byte": top.loc[pair, "bits_per_byte"]})
worked.round(4)

# %% [hide-input]
(a, b), fewer = pair, worked["tokens"]
if pair[0] == pair[1]:
    display(Markdown(f"At order {ORDERS[-1]} the largest vocabulary is also the best here, so this run has no "
                     "example of fewer tokens costing more bits."))
else:
    verdict = "but more" if worked.loc[b, "total bits"] > worked.loc[a, "total bits"] else "and fewer"
    display(Markdown(
        f"With {b:,} tokens the held-out text takes {int(fewer[b]):,} tokens instead of {int(fewer[a]):,} "
        f"({1 - fewer[b] / fewer[a]:.0%} fewer), {verdict} bits: {worked.loc[b, 'total bits']:,.0f} against "
        f"{worked.loc[a, 'total bits']:,.0f}. Each of its tokens costs {worked.loc[b, 'bits per token']:.2f} bits "
        f"instead of {worked.loc[a, 'bits per token']:.2f}: probably because a bigger vocabulary has more rare tokens, "
        f"and the same text holds fewer examples of each n-gram of them to learn from."))

# %% [markdown]
# ## 4. The best vocabulary grows with the data
#
# Tao et al. (2024) fit scaling laws for the vocabulary of transformer models and find that the best
# vocabulary grows with the compute and data a model gets. The laptop version: the same sweep with
# several amounts of training text, each with its own tokenizer trained on that text, and one order,
# `SIZE_ORDER`. The size already measured above is reused.

# %%
TRAIN_SIZES = (250_000, 500_000, TRAIN_CHARS, 2_000_000)
SIZE_ORDER = 3
by_size = []
for size in TRAIN_SIZES:
    if size == TRAIN_CHARS:
        rows = sweep.measure([SIZE_ORDER])
    else:
        text = book_train[:size]
        size_run = train(text, 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY)
        size_tok = Tokenizer(size_run.vocab, size_run.merges)
        rows = Sweep(size_tok, text, heldout_text, vocab_points(len(size_tok.merges))).measure([SIZE_ORDER])
    by_size.append(rows.assign(train_chars=len(book_train[:size])))
by_size = pd.concat(by_size, ignore_index=True)
minima = best_rows(by_size, "train_chars")[["train_chars", "n_vocab", "bits_per_byte", "train_tokens"]]
minima.assign(largest_vocab=by_size.groupby("train_chars")["n_vocab"].max().values)

# %%
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for chars, rows in by_size.groupby("train_chars"):
    line, = ax.plot(rows["n_vocab"], rows["bits_per_byte"], "o-", label=f"{chars:,} training characters")
    low = rows.loc[rows["bits_per_byte"].idxmin()]
    ax.plot([low["n_vocab"]], [low["bits_per_byte"]], "*", color=line.get_color(), markersize=16)
ax.set_xscale("log", base=2)
ax.set_xlabel("vocabulary size (256 bytes + merges)")
ax.set_ylabel(f"bits per byte, order {SIZE_ORDER} (held-out)")
ax.set_title("The minimum (star) for each amount of training text")
ax.legend(fontsize=8)
ax.grid(True, which="both", alpha=0.3)
display(fig)
plt.close(fig)

# %% [hide-input]
places = [f"{int(row['n_vocab']):,} with {int(row['train_chars']):,} characters" for _, row in minima.iterrows()]
grows = minima["n_vocab"].is_monotonic_increasing  # subtle: pandas' "increasing" allows equal neighbours
inside = [row["n_vocab"] < by_size[by_size["train_chars"] == row["train_chars"]]["n_vocab"].max()
          for _, row in minima.iterrows()]
gaps = []  # for each size: how much more its minimum's nearest measured neighbour costs
for (chars, rows), low in zip(by_size.groupby("train_chars"), minima["n_vocab"]):
    at = rows.set_index("n_vocab")["bits_per_byte"]
    sizes = list(at.index)
    i = sizes.index(low)
    gaps.append(min(at[sizes[j]] for j in (i - 1, i + 1) if 0 <= j < len(sizes)) - at[low])
steps = ("It moves to bigger vocabularies as the text grows" if minima["n_vocab"].is_unique else
         f"It never moves to a smaller vocabulary as the text grows, from {minima['n_vocab'].iloc[0]:,} to "
         f"{minima['n_vocab'].iloc[-1]:,} over {TRAIN_SIZES[-1] // TRAIN_SIZES[0]} times the text")
display(Markdown(
    f"The lowest point sits at {'; '.join(places)}. "
    + (f"{steps}, " if grows else "It does not move steadily with the text, ")
    + (f"and every minimum lies inside its curve: past it, the extra tokens cost more bits than they save."
       if all(inside) else
       f"and {sum(not x for x in inside)} of the curves still fall at their last point, so their best vocabulary "
       "is at least the largest one their text allows at this `min_frequency`.")
    + f" More text also lowers every curve: the best score goes from {minima['bits_per_byte'].iloc[0]:.4f} to "
      f"{minima['bits_per_byte'].iloc[-1]:.4f} bits per byte."
    + f" Hold the positions loosely: the grid doubles, and a minimum's nearest neighbour costs as little as "
      f"{min(gaps):.4f} bits per byte more (at most {max(gaps):.4f}), so the trend across sizes says more than "
      "any single star."))

# %% [markdown]
# ## 5. Pre-tokenization: which pattern?
#
# Dagan et al. (2024) compare pre-tokenization patterns for code models and find that the pattern,
# like the vocabulary size and the tokenizer's training text, changes a model's speed, usable context
# and scores. Here: one vocabulary size, `PATTERN_VOCAB`, trained four times on
# the same text — with no pattern at all (merges may cross spaces and punctuation), GPT-2's, GPT-4's
# and GPT-4o's (chapter 08) — on prose and on Python code, each scored by an order-`PATTERN_ORDER`
# model on its held-out text.

# %%
PATTERN_VOCAB = 2048
PATTERN_ORDER = 3
PATTERN_CHARS = 500_000
texts = {"prose (don_quixote)": (book_train[:PATTERN_CHARS], heldout_text),
         "code (python_code)": corpus.train_heldout("python_code")}
rows = []
for kind, (text, held) in texts.items():
    for pattern in ("none", "gpt2", "gpt4", "gpt4o"):
        pat_run = train(text, PATTERN_VOCAB, pattern=pattern, min_frequency=MIN_FREQUENCY)
        pat_tok = Tokenizer(pat_run.vocab, pat_run.merges, pattern=pattern)
        ids, held_ids = pat_tok.encode_ordinary(text), pat_tok.encode_ordinary(held)
        model = KneserNey(ids, PATTERN_ORDER, pat_tok.n_vocab)
        probs = model.token_probs(held_ids)
        ends = list(accumulate(len(pat_tok.vocab[i]) for i in held_ids))  # the byte offset after each token
        cut = bisect_left(ends, ends[-1] // 2) + 1  # the tokens of the held-out text's first half
        rows.append({"text": kind, "pattern": pattern, "n_vocab": pat_tok.n_vocab,
                     "bytes per token": bytes_per_token(len(held_ids), held),
                     "bits per byte": my_bits_per_byte(probs, held),
                     "first half": total_bits(probs[:cut]) / ends[cut - 1],
                     "second half": total_bits(probs[cut:]) / (ends[-1] - ends[cut - 1])})
patterns = pd.DataFrame(rows)
assert (patterns["n_vocab"] == PATTERN_VOCAB).all(), "a pattern ran out of pairs: the comparison would be unfair"
patterns.pivot(index="pattern", columns="text", values=["bytes per token", "bits per byte"]).round(4)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, column in zip(axes, ("bytes per token", "bits per byte")):
    patterns.pivot(index="pattern", columns="text", values=column).loc[["none", "gpt2", "gpt4", "gpt4o"]].plot.bar(ax=ax, rot=0)
    ax.set_ylabel(column + (" (higher: shorter)" if column == "bytes per token" else " (lower: better)"))
    ax.grid(True, axis="y", alpha=0.3)
fig.suptitle(f"Vocabulary {PATTERN_VOCAB:,}, order {PATTERN_ORDER}, held-out text")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
lines = []
for kind, rows in patterns.groupby("text", sort=False):
    rows = rows.set_index("pattern")
    shortest, best_bits = rows["bytes per token"].idxmax(), rows["bits per byte"].idxmin()
    same = "the same pattern" if shortest == best_bits else f"`{best_bits}`"
    lines.append(f"* **{kind}**: `{shortest}` compresses most ({rows.loc[shortest, 'bytes per token']:.2f} bytes per "
                 f"token against {rows['bytes per token'].min():.2f} for `{rows['bytes per token'].idxmin()}`); "
                 f"{same} needs the fewest bits ({rows.loc[best_bits, 'bits per byte']:.4f} bits per byte, "
                 f"the worst `{rows['bits per byte'].idxmax()}` {rows['bits per byte'].max():.4f}).")
regex = patterns[patterns["pattern"] != "none"]
spread = regex.groupby("text")["bits per byte"].agg(lambda b: b.max() - b.min())
halves = ("first half", "second half")
winners = {kind: [rows.set_index("pattern")[half].idxmin() for half in halves] for kind, rows in regex.groupby("text")}
flips = [kind for kind, (a, b) in winners.items() if a != b]
lines.append(f"\nThe three regular expressions stay within {spread.max():.4f} bits per byte of each other. Is that "
             "gap real? Score each half of the held-out text on its own: the best of the three is "
             + "; ".join(f"`{a}` on both {kind} halves" if a == b else
                         f"`{a}` on the first {kind} half and `{b}` on the second" for kind, (a, b) in winners.items())
             + (f", so their order on {' and '.join(flips)} is not to be trusted." if flips else
                ", the same on both halves of each text, though the margins are small."))
gap_holds = all((rows.set_index("pattern").loc["none", half] < rows[rows["pattern"] != "none"][half].min())
                == (rows.set_index("pattern").loc["none", "bits per byte"] < rows[rows["pattern"] != "none"]["bits per byte"].min())
                for kind, rows in patterns.groupby("text") for half in halves)
lines.append("Whether no pattern beats every regular expression "
             + ("comes out the same on both halves of each text." if gap_holds else "changes between the halves."))
display(Markdown("\n".join(lines)))

# %% [markdown]
# Compression and model quality are two different scores (Schmidt et al., 2024, make the general
# point: a tokenizer is more than its compression). Without a pattern, merges may join a word to the
# space or punctuation around it: tokens get longer, but the same word can come in several
# variants, each with fewer examples to learn from. Which effect wins depends on the text, and the
# two rows above need not agree.
#
# ## 6. BPE-dropout: robustness to misspellings
#
# BPE-dropout (Provilkov et al., 2020; chapter 15) skips each applicable merge with probability `p`
# while encoding the *training* text, so a model sees words in many valid pieces. The claim is that
# such a model copes better with text its tokenizer cuts in unusual ways — misspelled words, for one.
# Two models of the same order on the same text, one trained on deterministic encodings and one on
# BPE-dropout encodings, scored on the clean held-out text and on the same text with seeded typos.
# First the typo generator: each word of three letters or more is hit with probability `TYPO_RATE`,
# by one of four slips.

# %%
DROPOUT_P = 0.1
TYPO_RATE = 0.1
DROPOUT_CHARS = 500_000
DROPOUT_ORDER = 3


def misspell(text: str, rate: float, rng: Random) -> str:
    """Seeded typos: swap two neighbouring letters, drop one, double one or replace one."""
    def slip(match: re.Match) -> str:
        word = match.group()
        if rng.random() >= rate:
            return word
        i = rng.randrange(len(word) - 1)
        kind = rng.choice(("swap", "drop", "double", "replace"))
        if kind == "swap":
            return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if kind == "drop":
            return word[:i] + word[i + 1:]
        if kind == "double":
            return word[:i] + word[i] + word[i:]
        return word[:i] + rng.choice("etaoinshrdlu") + word[i + 1:]
    return re.sub(r"[A-Za-z]{3,}", slip, text)


typo_text = misspell(heldout_text, TYPO_RATE, Random(16))
print(misspell("The knight of the rueful countenance rode on through the night", 0.5, Random(3)))
print(f"{sum(a != b for a, b in zip(heldout_text.split(), typo_text.split())):,} of "
      f"{len(heldout_text.split()):,} held-out words changed")

# %%
drop_tok = tok.truncated(PATTERN_VOCAB - 256)
id_of = {token: i for i, token in drop_tok.vocab.items()}
drop_text = book_train[:DROPOUT_CHARS]
clean_ids = drop_tok.encode_ordinary(drop_text)
dropped_ids = [id_of[t] for t in dropout_tokens(drop_tok, drop_text, DROPOUT_P, Random(0))]
models = {"deterministic": KneserNey(clean_ids, DROPOUT_ORDER, drop_tok.n_vocab),
          f"BPE-dropout p={DROPOUT_P}": KneserNey(dropped_ids, DROPOUT_ORDER, drop_tok.n_vocab)}
scored = {"clean held-out": heldout_text, "with typos": typo_text}
dropout_table = pd.DataFrame({name: {label: bits_per_byte(model, drop_tok.encode_ordinary(t), t) for label, t in scored.items()}
                              for name, model in models.items()}).T
print(f"training tokens: {len(clean_ids):,} deterministic, {len(dropped_ids):,} with dropout")
dropout_table.round(4)

# %%
fig, ax = plt.subplots(figsize=(7, 3.6))
dropout_table.T.plot.bar(ax=ax, rot=0)
ax.set_ylabel(f"bits per byte, order {DROPOUT_ORDER} (lower: better)")
ax.set_ylim(dropout_table.values.min() * 0.95, dropout_table.values.max() * 1.02)
ax.grid(True, axis="y", alpha=0.3)
ax.set_title(f"Vocabulary {drop_tok.n_vocab:,}: deterministic training against BPE-dropout")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
det, drop = dropout_table.index
cost_clean = dropout_table.loc[drop, "clean held-out"] - dropout_table.loc[det, "clean held-out"]
cost_typos = dropout_table.loc[drop, "with typos"] - dropout_table.loc[det, "with typos"]
typo_price = dropout_table.loc[det, "with typos"] - dropout_table.loc[det, "clean held-out"]
display(Markdown(
    f"Typos cost the deterministic model {typo_price:.4f} bits per byte. Trained on dropout, the model "
    f"{'loses' if cost_clean > 0 else 'gains'} {abs(cost_clean):.4f} bits per byte on clean text and "
    f"{'loses' if cost_typos > 0 else 'gains'} {abs(cost_typos):.4f} on the misspelled text. "
    + ("So here dropout buys robustness and pays for it on clean text."
       if cost_typos < 0 < cost_clean else
       "So here dropout helps on both." if cost_typos < 0 and cost_clean < 0 else
       (f"So dropout costs bits on both, but {cost_clean - cost_typos:.4f} fewer on the misspelled text: perhaps a "
        "trace of the robustness Provilkov et al. found, but too small to pay for itself in an n-gram model this size, "
        "which shares nothing between the pieces of a word and is scored on deterministic encodings."
        if 0 < cost_typos < cost_clean else
        "So an n-gram model this size gets no robustness from dropout: its held-out tokens are still the "
        "deterministic ones, and dropout only spreads its counts over more n-grams."))))

# %% [markdown]
# Provilkov et al. measured translation quality with neural models, which share what they learn
# across similar pieces; an n-gram model shares nothing between n-grams, so this is the
# count-based half of the story, not a replication.
#
# ## 7. The token tax, in bits
#
# Chapter 13 measured what the same declaration costs in *tokens*, language by language, under a
# tokenizer trained on English only and one trained on a balanced mix. Does the tax cost model
# quality too, or only length? Both tokenizers encode the same training text, the balanced mix's
# articles (all languages), for a model of order `TAX_ORDER`; each language's held-out articles
# are scored separately.

# %%
TAX_ORDER = 3
tax_train = "\n".join(mix_text(MIXES["balanced"]))
tax_tokenizers = {name: train_on_mix(MIXES[name]) for name in ("English only", "balanced")}
tax_rows = []
for name, tax_tok in tax_tokenizers.items():
    model = KneserNey(tax_tok.encode_ordinary(tax_train), TAX_ORDER, tax_tok.n_vocab)
    for code in corpus.UDHR_LANGUAGES:
        held = "\n".join(corpus.udhr(code)[k] for k in HELDOUT_ARTICLES)
        ids = tax_tok.encode_ordinary(held)
        tax_rows.append({"tokenizer": name, "language": language_name(code), "tokens": len(ids),
                         "bits per byte": bits_per_byte(model, ids, held)})
tax = pd.DataFrame(tax_rows)
english = tax[tax["language"] == "English"].set_index("tokenizer")["tokens"]
tax["tokens / English's"] = tax["tokens"] / tax["tokenizer"].map(english)
tax_table = tax.pivot(index="language", columns="tokenizer", values=["tokens / English's", "bits per byte"])
tax_table = tax_table.sort_values(("tokens / English's", "English only"))
print(f"training articles {TRAIN_ARTICLES[0]}-{TRAIN_ARTICLES[-1]} of every language "
      f"({len(tax_train):,} characters); held-out articles {HELDOUT_ARTICLES[0]}-{HELDOUT_ARTICLES[-1]}; merges: "
      + ", ".join(f"{name} {len(t.merges)}" for name, t in tax_tokenizers.items()))
tax_table.round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
for ax, column in zip(axes, ("tokens / English's", "bits per byte")):
    tax_table[column].plot.barh(ax=ax)
    ax.set_xlabel(column)
    ax.grid(True, axis="x", alpha=0.3)
axes[0].set_title("length: the token tax")
axes[1].set_title(f"model quality, order {TAX_ORDER}")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
ratio, bits = tax_table["tokens / English's"], tax_table["bits per byte"]
token_factor = ratio["English only"] * english["English only"] / (ratio["balanced"] * english["balanced"])
bit_factor = bits["English only"] / bits["balanced"]
worst_tax = ratio["English only"].idxmax()
hurt = bit_factor.sort_values(ascending=False)
cheaper = [lang for lang in bit_factor.index if bit_factor[lang] < 1]
display(Markdown(
    f"Under the English-only tokenizer, {worst_tax} needs {ratio.loc[worst_tax, 'English only']:.2f}× English's "
    f"tokens; under the balanced one, {ratio.loc[worst_tax, 'balanced']:.2f}×. The bits follow the tokens only part "
    f"of the way. Switching from the balanced tokenizer to the English-only one multiplies the tokens of "
    + ", ".join(f"{lang} by {token_factor[lang]:.2f} and its bits per byte by {hurt[lang]:.2f}" for lang in hurt.index[:3])
    + f"; for {int(((bit_factor - 1).abs() < 0.05).sum())} of the {len(bit_factor)} languages the bits change by less than 5% "
    f"either way, and the English-only tokenizer is cheaper in bits for {', '.join(cheaper) or 'none of them'}. "
    f"So for most languages the tax is length — longer sequences, less text per context window, a higher price per text — "
    f"and, for the scripts the English-only tokenizer barely learned, also a worse model, probably because its "
    f"byte-sized pieces leave the same order-{TAX_ORDER} model a shorter context in characters."))

# %% [markdown]
# The data is small (twenty articles per language), and the tokenizers have a few hundred merges,
# so this measures the tokenizer with everything else held fixed; it says nothing about how much
# text each language gets when a real model is trained, which chapter 13 names as the larger cause.
#
# ## 8. Explore: vocabulary size and order
#
# The widget redraws section 3's two curves for the order you choose, with the vocabulary you choose
# marked; the line under the sliders gives that point's numbers. Orders 1 and 5 are fitted the
# first time you choose them, and the line counts the vocabulary sizes as they are fitted; order 5
# takes longest, as it has the most n-grams to count.

# %%
explorer = ModelQualityExplorer(sweep, order=3)
display(explorer.box)

# %% [markdown]
# The widget from code (a second one, so the one above keeps its first state): its numbers are the sweep's.

# %%
driven = ModelQualityExplorer(sweep, order=3)
driven.vocab.value = 2048
driven.order.value = 2
row = driven.data.set_index("n_vocab").loc[2048]
assert row["bits_per_byte"] == data.query("order == 2 and n_vocab == 2048")["bits_per_byte"].item()
assert explorer.order.value == 3  # the first explorer is where its own cell put it
print(driven.status.value)

# %% [markdown]
# ## 9. What a bigger run would change, and what stays argued
#
# * **A neural model** shares what it learns between similar contexts and similar tokens (through
#   embeddings); an n-gram model shares nothing, so it suffers from rare tokens sooner. The
#   minima above would likely move to bigger vocabularies with a transformer and more data: Tao et
#   al. (2024) find optimal vocabularies far above these for billion-parameter models. The
#   *direction* of section 4 — more data, bigger best vocabulary — is what this chapter measures.
# * **Context in tokens, not in bytes.** An order-3 model sees two tokens back: two bytes on a
#   byte-level encoding, two words or more with a big vocabulary. Part of what a big vocabulary buys
#   here is simply a longer context in bytes, which a transformer with a long window gets anyway;
#   that effect is larger here than it would be there.
# * **Compute.** Each token costs a transformer a forward pass, so fewer tokens are cheaper to train
#   and to run; bits per byte leaves compute out. A real choice weighs both.
# * **More text.** With the whole novel or several (set `TRAIN_CHARS`, `TRAIN_SIZES`), every curve
#   should move down, as section 4's did, and if section 4's trend holds the minima move right; Run
#   All then takes several minutes.
#
# ## Recap
#
# * **Bits per byte** — the model's total `-log2 p` over held-out tokens, divided by the text's UTF-8
#   bytes — compares tokenizers of the same text; tokens per word does not, because fewer tokens can
#   each cost more bits.
# * A **Kneser-Ney** n-gram model discounts every count, backs off to how many different tokens
#   came before a token, and ends at the uniform distribution, so no token has probability 0.
#   `bpe_course.algorithms.lm.KneserNey(ids, order, n_vocab)`; `fit_orders` for several orders at once.
# * Bits per byte against vocabulary size is not a straight line: section 3's table says, order by
#   order, where it bottoms out, and section 4 how that moves with the training text.
# * The pattern, dropout and the language mix change bits and length by different amounts:
#   measure both.
#
# ## Exercises

# %%
from bpe_course.exercises.ch16 import check_bits_per_byte, check_continuations, check_unigram_best

# %% [markdown]
# **Exercise 16.1.** Write `bits_per_byte_of(probs, text)`: the bits a model spends on `text`, whose
# tokens it gave the probabilities `probs`, per UTF-8 byte (without `my_bits_per_byte` from above).

# %%
def bits_per_byte_of(probs: list[float], text: str) -> float:
    return 0.0  # replace with your code


check_bits_per_byte(bits_per_byte_of)

# %% [markdown]
# **Exercise 16.2.** Section 2's fallback counted, for each token, the *different* tokens seen right
# before it. An order-3 model does the same one level up. Write `continuation_counts(ids)`: a dict
# giving, for each pair of tokens `(v, w)` that follows another token somewhere in `ids`, the number
# of different tokens seen right before the pair.

# %%
def continuation_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    return {}  # replace with your code


check_continuations(continuation_counts)

# %% [markdown]
# **Exercise 16.3.** An order-1 model (no context at all) on `sweep`: at which vocabulary size does it
# need the fewest bits per byte? Measure it with `sweep.measure([1])`, then answer with the
# vocabulary size.

# %%
my_answer = None  # replace with a vocabulary size, e.g. 1024
check_unigram_best(my_answer, sweep)

# %% [markdown]
# <details><summary>Solutions</summary>
#
# ```python
# def bits_per_byte_of(probs, text):
#     return -sum(math.log2(p) for p in probs) / len(text.encode("utf-8"))
#
# def continuation_counts(ids):
#     return dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))
#
# unigram = sweep.measure([1])
# my_answer = int(unigram.loc[unigram["bits_per_byte"].idxmin(), "n_vocab"])
# ```
# </details>
#
# [← 15 Other designs](15_other_designs.ipynb) · [00 Start here](00_start_here.ipynb) · [17 Beyond greedy BPE →](17_beyond_greedy_bpe.ipynb)
