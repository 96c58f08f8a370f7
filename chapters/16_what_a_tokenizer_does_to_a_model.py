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
# * measure a **difference with its uncertainty** (`bpe_course.compare`), and see why a difference in
#   the third decimal on one held-out text is not yet a finding;
# * run five experiments, each a plot read by the sentence after it: the vocabulary size against
#   n-gram order, the amount of training text, the pre-tokenization pattern, BPE-dropout against
#   misspellings, and the token tax in bits;
# * explore the first one with a widget.
#
# An n-gram model is not a transformer: section 9 says what carries over and what does not. Every
# paper cited here is in [the references](../docs/references.md), with what it says and what this chapter takes from it.

# %%
import math
from bisect import bisect_left
from collections import Counter
from itertools import accumulate
from random import Random

import matplotlib.pyplot as plt
import pandas as pd
import regex as unicode_re  # the regex package: its \X matches a grapheme cluster
from IPython.display import Image, Markdown, display

from bpe_course import Seeds, Tokenizer, bytes_per_token, compare, corpus, figure_png, how_many, paragraph_bytes, train
from bpe_course.algorithms import (KneserNey, Sweep, best_rows, bits_by_unit, bits_per_byte, dropout_tokens,
                                   fit_orders, tokens_by_unit, train_on_mix, vocab_points)
from bpe_course.corpus import HELDOUT_ARTICLES, MIXES, TRAIN_ARTICLES, language_name, misspell, mix_text
from bpe_course.widgets import ModelQualityExplorer, plot_model_quality

# %% [markdown]
# The text: the novel `don_quixote`, cut into a training part and a held-out part as in chapter 06.
# Tokenizers and models learn from the first `TRAIN_CHARS` characters of the training part; every
# score is on the held-out part, which neither ever sees. Merges must be of pairs seen at least
# `MIN_FREQUENCY` times (chapter 06, section 3). The held-out text's paragraphs and `N_RESAMPLES`
# are for section 2's yardstick of differences.

# %%
TRAIN_CHARS = 1_000_000
MIN_FREQUENCY = 5
MAX_MERGES = 8192
ORDERS = (2, 3, 4)
N_RESAMPLES = 2000  # bpe_course.compare's default

book_train, heldout_text = corpus.train_heldout("don_quixote")
train_text = book_train[:TRAIN_CHARS]
heldout_bytes = len(heldout_text.encode("utf-8"))
paragraphs = paragraph_bytes(heldout_text)  # each paragraph's UTF-8 bytes, blank lines included
pd.set_option("display.max_colwidth", None)  # a verdict is a sentence: show it whole
print(f"training text: {len(train_text):,} characters of {len(book_train):,}; held-out text: "
      f"{len(heldout_text):,} characters, {heldout_bytes:,} UTF-8 bytes, {len(heldout_text.split()):,} words, "
      f"{len(paragraphs):,} paragraphs")

# %% [markdown]
# ## 1. The yardstick: bits per byte
#
# A **language model** gives every token a probability, given the tokens before it. A token the
# model expected (probability near 1) is cheap; a surprise is expensive. The price of a token of
# probability *p* is `-log2(p)` bits, its ideal code length ([Shannon, 1948](../docs/references.md)); an arithmetic coder
# driven by the model comes within a couple of bits of the total over a whole text, so the total is
# the size of the text compressed by that model. A better model is a better compressor.
#
# Divide the total by the text's UTF-8 bytes and you get **bits per byte**. Tokens per word asks
# how many pieces a tokenizer cuts a text into; bits per byte asks how much a model must still
# be told, whatever the pieces. Two tokenizers of the same text have the same bytes, so their bits
# per byte compare directly — fewer tokens only help if they are not each much harder to predict.
#
# One caveat holds for every bits-per-byte figure in this chapter and the next. A model over tokens
# scores the text *as its tokenizer cuts it*, the canonical segmentation, and nothing else; yet it
# also gives some probability to the other cuts that spell the same text (" the" as " t" + "he").
# The probability of the text is the sum over all of them, so the canonical cut's bits are an
# **upper bound** on the model's code length for the text ([Cao & Rimell, 2021](../docs/references.md), make the point for
# neural models); [chapter 21](21_the_score_of_every_segmentation.ipynb) measures how far the bound is from the
# sum. Write bits per byte:

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
# seen and gives it to everything else. Kneser-Ney smoothing ([Kneser & Ney, 1995](../docs/references.md)) does it in three
# steps, each a small cell, in the *interpolated* form Chen & Goodman (1998) give it. First the counts,
# on the training text encoded by a tokenizer trained on it:

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
# `D` times the number of different tokens seen after `v`, is the weight a *lower-order* distribution
# gets after `v`. It is mixed into every prediction after `v`, seen pair or not: that is what
# *interpolated* means (Kneser and Ney's own model turned to the lower order only for pairs never seen).
#
# **Step 2, the lower order: continuations, not counts.** The obvious lower order is how often `w`
# occurs at all. Kneser and Ney's idea is better: how many *different* tokens came before `w`. A token
# that is frequent but only ever follows one token (" Quixote" after " Don") is a poor guess after
# anything else, and the lower order weighs most exactly there, after contexts whose own counts say little.
#
# **Step 3, nothing is impossible.** The lower order itself gets a discount, and what that frees goes to
# the uniform distribution over all `V` tokens of the vocabulary.

# %%
D = 0.75
followers = Counter(v for v, _ in pairs)  # different tokens seen after v
continuations = Counter(w for _, w in pairs)  # different tokens seen before w
n_types = len(pairs)


def p_lower(w: int) -> float:
    seen = max(continuations[w] - D, 0) / n_types
    return seen + D * len(continuations) / n_types / V


def p_bigram(w: int, v: int) -> float:
    if after[v] == 0:  # v never seen with a follower: only the lower order
        return p_lower(w)
    return max(pairs[v, w] - D, 0) / after[v] + D * followers[v] / after[v] * p_lower(w)


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

# %% [markdown]
# The package's default is **modified** Kneser-Ney ([Chen & Goodman, 1998](../docs/references.md)): three discounts per level,
# for counts of one, two, and three or more, estimated from how many n-grams were seen once, twice,
# three and four times, so no `D` has to be chosen by hand. Chen & Goodman found it consistently better
# than every other smoothing they evaluated, with training sets of many sizes, on several corpora, for
# bigram and trigram models. On this bigram the two printed numbers differ in the third decimal.
# Is that a finding?
#
# ### A difference and its uncertainty
#
# Both numbers were measured on one held-out text. Another stretch of the same novel would give two
# other numbers, and their difference would move too, perhaps enough to change sign. A difference is
# a **finding** only when it is larger than that movement. To see the movement, cut the held-out text
# into its paragraphs and score each under both models: `bits_by_unit` gives each paragraph's bits
# (of the tokens that start in it) and its bytes.

# %%
one_d_units = bits_by_unit(package, heldout_ids, small.vocab, paragraphs)
modified_units = bits_by_unit(modified, heldout_ids, small.vocab, paragraphs)
per_paragraph = [a / n - b / m for (a, n), (b, m) in zip(modified_units, one_d_units)]
print(f"modified minus one D, paragraph by paragraph: from {min(per_paragraph):+.3f} to {max(per_paragraph):+.3f} "
      f"bits per byte; {sum(x > 0 for x in per_paragraph)} of {len(per_paragraph)} paragraphs favour the one D")

# %% [markdown]
# The paragraphs disagree, both ways. How much would the whole text's difference move? The **paired
# bootstrap** ([Efron & Tibshirani, 1993](../docs/references.md); [Koehn, 2004](../docs/references.md), uses it to compare two systems on one test set)
# answers by resampling: draw as many paragraphs as there are, with replacement — the *same* draws for
# both models, since the models are compared, not the texts — score both on the drawn paragraphs (a
# ratio of sums: all their bits over all their bytes), and take the difference. Do it `N_RESAMPLES`
# times; the middle 95 out of every hundred differences are the difference's **95% interval**. Write it:

# %%
def score(units: list[tuple[float, int]], drawn: list[int]) -> float:
    """Bits per byte of the drawn units: their bits over their bytes (a unit drawn twice counts twice)."""
    return sum(units[i][0] for i in drawn) / sum(units[i][1] for i in drawn)


def my_interval(a: list, b: list, n_resamples: int = N_RESAMPLES, seed: int = 0) -> tuple[float, float, list[float]]:
    rng = Random(seed)
    differences = []
    for _ in range(n_resamples):
        drawn = rng.choices(range(len(a)), k=len(a))  # the same paragraphs for both settings
        differences.append(score(a, drawn) - score(b, drawn))
    differences.sort()
    return differences[int(0.025 * n_resamples)], differences[int(0.975 * n_resamples) - 1], differences


low, high, replicates = my_interval(modified_units, one_d_units)
smoothing = compare(modified_units, one_d_units, n_resamples=N_RESAMPLES)  # the package's yardstick
assert abs(low - smoothing.low) < 1e-5 and abs(high - smoothing.high) < 1e-5
print(f"modified minus one D: {smoothing.estimate:+.4f} bits per byte; your interval {low:+.4f} to {high:+.4f}")
print("bpe_course.compare:", smoothing.verdict)

# %%
fig, ax = plt.subplots(figsize=(7, 2.6))
ax.hist(replicates, bins=40, color="tab:grey")
ax.axvline(0, color="black", linewidth=1)
for end in (smoothing.low, smoothing.high):
    ax.axvline(end, color="tab:red", linestyle="--", linewidth=1)
ax.set_xlabel("modified minus one D, bits per byte, on resampled held-out texts")
ax.set_ylabel("resamples")
ax.set_title("The difference's bootstrap distribution; dashed: its 95% interval")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
display(Markdown(
    f"On the whole held-out text the two bigram models differ by {abs(smoothing.estimate):.4f} bits per byte; "
    f"resampled, the difference stays between {smoothing.low:+.4f} and {smoothing.high:+.4f}. "
    + (f"The interval leaves out 0, so this difference is a finding, however small: modified Kneser-Ney is "
       f"{smoothing.verdict} against the one `D`. On other text of this kind the two would most likely rank "
       "the same way."
       if smoothing.clear else
       f"The interval holds 0, so the two are within noise ({smoothing.verdict}): which one leads on this text "
       "says nothing about the next, however many decimals it is printed with.")))

# %% [markdown]
# Two things the interval does not cover. It measures how the score moves with **the held-out text**;
# it says nothing about training on other text, which would give other tokenizers and other models.
# And where a setting is itself random (BPE-dropout in section 6, random tie-breaks in chapter 17), its
# runs with several seeds are given as `Seeds([...])`, and each resample draws seeds as well as
# paragraphs. From here on every comparison of this chapter and the next goes through
# `compare(a, b)`, and a sentence takes its comparative words from the `Difference` it returns:
# `.verdict` says *ahead*, *behind* or *within noise*, with the interval; `.word(lower, higher, same)`
# picks any pair of words; `.clear` says whether the interval leaves out 0.
#
# Chen & Goodman's finding was for longer contexts too. The same two smoothings at every order of
# `ORDERS`, on the same paragraphs, and a third: their own single-`D` baseline, which estimates `D`
# at each level from the counts instead of choosing it, `D = n1 / (n1 + 2 n2)` (`n1`, `n2`: how many
# n-grams were seen once, twice). That is exactly modified Kneser-Ney's `D1` (its formula
# `D1 = 1 − 2 Y n2 / n1` with `Y = n1 / (n1 + 2 n2)` comes to `Y`), so the package's discounts give it:

# %%
one_d_models = {2: package} | {n: KneserNey(train_ids, n, V, discounts=(D,) * n) for n in ORDERS if n != 2}
modified_models = {2: modified} | fit_orders(train_ids, [n for n in ORDERS if n != 2], V)
estimated_models = {n: KneserNey(train_ids, n, V, discounts=tuple(level[0] for level in modified_models[n].discounts))
                    for n in ORDERS}
by_order, smoothings, baselines = {}, {}, {}
for n in ORDERS:
    units = {name: bits_by_unit(models[n], heldout_ids, small.vocab, paragraphs)
             for name, models in (("one D", one_d_models), ("modified", modified_models),
                                  ("one D, estimated", estimated_models))}
    smoothings[n] = compare(units["modified"], units["one D"], n_resamples=N_RESAMPLES)
    baselines[n] = compare(units["modified"], units["one D, estimated"], n_resamples=N_RESAMPLES)
    by_order[f"order {n}"] = {name: round(score(u, range(len(paragraphs))), 4) for name, u in units.items()} | {
        "modified against one D": smoothings[n].verdict, "modified against one D, estimated": baselines[n].verdict}
pd.DataFrame(by_order).T

# %% [hide-input]
agree = [n for n, d in smoothings.items() if d.direction == "lower"]
reverse = [n for n, d in smoothings.items() if d.direction == "higher"]
level = [n for n, d in smoothings.items() if not d.clear]
display(Markdown(
    "Modified Kneser-Ney against the one hand-picked `D`: "
    + "; ".join(f"order {n}, {d.verdict}" for n, d in smoothings.items()) + ". "
    + (f"So Chen & Goodman's ranking holds here at order{'s' * (len(agree) > 1)} {' and '.join(map(str, agree))}"
       if agree else
       "So Chen & Goodman's ranking does not show here at any of these orders")
    + (f", and is reversed, by more than its noise, at order{'s' * (len(reverse) > 1)} "
       f"{' and '.join(map(str, reverse))}" if reverse else "")
    + (f"; at order{'s' * (len(level) > 1)} {' and '.join(map(str, level))} the two are within noise" if level else "")
    + ". Against Chen & Goodman's estimated single `D`, modified Kneser-Ney is "
    + "; ".join(f"at order {n}, {d.verdict}" for n, d in baselines.items())
    + "."
    + (f" The rest of the chapter uses modified Kneser-Ney at every order, order{'s' * (len(reverse) > 1)} "
       f"{' and '.join(map(str, reverse))} included (section 3 sweeps every order of `ORDERS`, and section 8's "
       "widget offers them all), so a figure at "
       + ("those orders" if len(reverse) > 1 else "that order")
       + " is the package's default smoothing, not the one that is ahead on this text."
       if reverse else "")))

# %% [markdown]
# Longer contexts work the same way, one level per order, each mixed with the one below; `fit_orders`
# fits several orders at once, sharing their lower levels. The tests check the package against a
# naive implementation written from Chen & Goodman's equations and against `nltk.lm`
# (`tests/algorithms/test_lm.py`).
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
display(Image(figure_png(fig, dpi=100)))  # a figure made without pyplot: shown as its picture

# %% [markdown]
# Where each order bottoms out is a comparison too: the minimum against the sizes next to it on the
# grid, and against the largest vocabulary. Each with `compare`, on the held-out paragraphs (a
# `Sweep` keeps every row's bits per paragraph, `sweep.units(n_vocab, order)`):

# %%
sizes = sorted(data["n_vocab"].unique())
longest, shortest = sizes[0], sizes[-1]
best = best_rows(data)
against = {}  # order -> {another size: the minimum against it}
for _, row in best.iterrows():
    n, low_at = int(row["order"]), int(row["n_vocab"])
    i = sizes.index(low_at)
    others = sorted({sizes[j] for j in (i - 1, i + 1) if 0 <= j < len(sizes)} | {shortest} - {low_at})
    against[n] = {size: compare(sweep.units(low_at, n), sweep.units(size, n), n_resamples=N_RESAMPLES)
                  for size in others}
context = {size: compare(sweep.units(size, ORDERS[0]), sweep.units(size, ORDERS[-1]), n_resamples=N_RESAMPLES)
           for size in (longest, shortest)}  # the shortest context against the longest
minimum_of = best.set_index("order")["n_vocab"].astype(int)
pd.DataFrame([{"order": n, "minimum": f"{minimum_of[n]:,}", "against": f"{size:,}", "the minimum is": d.verdict}
              for n, ds in against.items() for size, d in ds.items()]).set_index(["order", "minimum", "against"])

# %% [hide-input]
tpw = data.drop_duplicates("n_vocab").set_index("n_vocab")["tokens_per_word"]
ties = [(n, size) for n, ds in against.items() for size, d in ds.items() if not d.clear]
lines = [f"Tokens per word fall all the way, from {tpw[longest]:.2f} with the {longest} bytes to {tpw[shortest]:.2f} "
         f"with {shortest:,} tokens. Bits per byte do not all follow them:"]
for _, row in best.iterrows():
    n, low_at = int(row["order"]), int(row["n_vocab"])
    lines.append(f"* order {n}: {row['bits_per_byte']:.4f} at its minimum, {low_at:,} tokens; "
                 + "; ".join(d.sentence(f"{low_at:,}", f"{size:,}") for size, d in against[n].items()) + ";")
lines.append(f"* the context: order {ORDERS[0]} is {context[longest].verdict} against order {ORDERS[-1]} on bytes, and "
             f"{context[shortest].verdict} at {shortest:,}"
             + (" — a longer context saves most on bytes, where each token carries least."
                if context[longest].low > context[shortest].high else "."))
lines.append("\n" + (
    "Each minimum is clearly below the sizes around it: on other text of this kind the same models would "
    "bottom out in the same place." if not ties else
    "Not every minimum is a finding: " + "; ".join(f"order {n}'s is within noise of {size:,}" for n, size in ties)
    + ". Read those minima as a region of the doubling grid, not as one best size.")
    + " The intervals cover the held-out text only: a tokenizer and models trained on other text could move a "
    "minimum by a step of the grid.")
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
(a, b), counts = pair, worked["tokens"]
if a == b:
    display(Markdown(f"At order {ORDERS[-1]} the minimum on the grid is the largest vocabulary, so this run has no "
                     "example of fewer tokens costing more bits."))
else:
    length = compare(tokens_by_unit(sweep.encoded[b - 256][1], tok.vocab, paragraphs),
                     tokens_by_unit(sweep.encoded[a - 256][1], tok.vocab, paragraphs),
                     relative=True, unit="", words=("fewer", "more"), n_resamples=N_RESAMPLES)
    bits = compare(sweep.units(b, ORDERS[-1]), sweep.units(a, ORDERS[-1]), n_resamples=N_RESAMPLES)
    display(Markdown(
        f"With {b:,} tokens the held-out text takes {int(counts[b]):,} tokens instead of {int(counts[a]):,} "
        f"({length.verdict}), {bits.word('and fewer', 'but more', 'and about as many')} bits: "
        f"{worked.loc[b, 'total bits']:,.0f} against {worked.loc[a, 'total bits']:,.0f} ({bits.verdict}). "
        f"Each of its tokens costs {worked.loc[b, 'bits per token']:.2f} bits instead of "
        f"{worked.loc[a, 'bits per token']:.2f}: probably because a bigger vocabulary has more rare tokens, and the "
        "same text gives fewer examples of each n-gram of them to learn from."))

# %% [markdown]
# ## 4. The best vocabulary grows with the data
#
# [Tao et al. (2024)](../docs/references.md) fit scaling laws for the vocabulary of transformer models and find that the
# compute-optimal vocabulary grows with the compute budget, and with it the model size. A laptop
# cannot vary compute; the version here varies the one thing it can, the **training text**, for a
# fixed kind of model: the same sweep with several amounts of training text, each with its own
# tokenizer trained on that text, and one order, `SIZE_ORDER`. The size already measured above is
# reused.

# %%
TRAIN_SIZES = (250_000, 500_000, TRAIN_CHARS, 2_000_000)
SIZE_ORDER = 3
by_size, size_sweeps = [], {}
for size in TRAIN_SIZES:
    if size == TRAIN_CHARS:
        size_sweeps[size] = sweep
    else:
        text = book_train[:size]
        size_run = train(text, 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY)
        size_tok = Tokenizer(size_run.vocab, size_run.merges)
        size_sweeps[size] = Sweep(size_tok, text, heldout_text, vocab_points(len(size_tok.merges)))
    rows = size_sweeps[size].measure([SIZE_ORDER])
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

# %% [markdown]
# Each minimum against its neighbours on the grid, and the best score with the most text against the
# best with the least (the same held-out paragraphs throughout):

# %%
neighbours = {}  # training characters -> {a neighbouring size: the minimum against it}
for chars, rows in by_size.groupby("train_chars"):
    grid = sorted(rows["n_vocab"])
    low_at = int(minima.set_index("train_chars").loc[chars, "n_vocab"])
    i = grid.index(low_at)
    neighbours[chars] = {grid[j]: compare(size_sweeps[chars].units(low_at, SIZE_ORDER),
                                          size_sweeps[chars].units(grid[j], SIZE_ORDER), n_resamples=N_RESAMPLES)
                         for j in (i - 1, i + 1) if 0 <= j < len(grid)}
first, last = TRAIN_SIZES[0], TRAIN_SIZES[-1]
at = minima.set_index("train_chars")["n_vocab"].astype(int)
more_text = compare(size_sweeps[last].units(at[last], SIZE_ORDER), size_sweeps[first].units(at[first], SIZE_ORDER),
                    n_resamples=N_RESAMPLES)
pd.DataFrame([{"training characters": f"{chars:,}", "minimum": f"{at[chars]:,}", "against": f"{size:,}",
               "the minimum is": d.verdict} for chars, ds in neighbours.items() for size, d in ds.items()]
             ).set_index(["training characters", "minimum", "against"])

# %% [hide-input]
places = [f"{int(row['n_vocab']):,} with {int(row['train_chars']):,} characters" for _, row in minima.iterrows()]
inside = [row["n_vocab"] < by_size[by_size["train_chars"] == row["train_chars"]]["n_vocab"].max()
          for _, row in minima.iterrows()]
# every size within noise of a minimum is a place the minimum could be on other text of this kind
could_be = {chars: [at[chars]] + [size for size, d in ds.items() if not d.clear] for chars, ds in neighbours.items()}
tied = {chars: [size for size, d in ds.items() if not d.clear] for chars, ds in neighbours.items()}
never_down = all(max(could_be[x]) <= min(could_be[y]) for x, y in zip(TRAIN_SIZES, TRAIN_SIZES[1:]))
display(Markdown(
    f"The minimum sits at {'; '.join(places)}. "
    + ("Each is clearly below both its neighbours on the grid. " if not any(tied.values()) else
       "; ".join(f"With {chars:,} characters it is within noise of {', '.join(f'{size:,}' for size in sizes_)}"
                 for chars, sizes_ in tied.items() if sizes_) + ": there the grid cannot tell them apart. ")
    + (f"Even counting every size within noise of a minimum, it never moves to a smaller vocabulary as the text "
       f"grows, from {at[first]:,} to {at[last]:,} over {last // first} times the text"
       if never_down and at[last] > at[first] else
       "Counting the sizes within noise of each minimum, the order of the minima is not settled by this held-out "
       "text")
    + (", and every minimum lies inside its curve: past it, the extra tokens cost more bits than they save."
       if all(inside) else
       f", and {sum(not x for x in inside)} of the curves still fall at their last point, so their minimum lies at "
       "or beyond the largest vocabulary their text allows at this `min_frequency`.")
    + " " + more_text.word("More text also lowers the curve", "More text raises the curve",
                           "More text does not measurably move the curve")
    + f": the minimum with {last:,} characters is {more_text.verdict} against the "
      f"minimum with {first:,}. The intervals are over the held-out paragraphs; each amount of training text was "
      "trained once, so how much the minima would move with *other* training text of the same size is not measured."))

# %% [markdown]
# ## 5. Pre-tokenization: which pattern?
#
# [Dagan et al. (2024)](../docs/references.md) compare pre-tokenization patterns for code models and find that the pattern,
# like the vocabulary size and the tokenizer's training text, changes a model's speed, usable context
# and scores. Here: one vocabulary size, `PATTERN_VOCAB`, trained four times on
# the same text — with no pattern at all (merges may cross spaces and punctuation), GPT-2's, GPT-4's
# and GPT-4o's (chapter 08) — on prose and on Python code, each scored by an order-`PATTERN_ORDER`
# model on its held-out text.

# %%
PATTERN_VOCAB = 2048
PATTERN_ORDER = 3
PATTERN_CHARS = 500_000
PATTERNS = ("none", "gpt2", "gpt4", "gpt4o")
texts = {"prose (don_quixote)": (book_train[:PATTERN_CHARS], heldout_text),
         "code (python_code)": corpus.train_heldout("python_code")}
rows, pattern_bits, pattern_tokens = [], {}, {}  # the last two: (text, pattern) -> per held-out paragraph
for kind, (text, held) in texts.items():
    held_paragraphs = paragraph_bytes(held)
    for pattern in PATTERNS:
        pat_run = train(text, PATTERN_VOCAB, pattern=pattern, min_frequency=MIN_FREQUENCY)
        pat_tok = Tokenizer(pat_run.vocab, pat_run.merges, pattern=pattern)
        ids, held_ids = pat_tok.encode_ordinary(text), pat_tok.encode_ordinary(held)
        model = KneserNey(ids, PATTERN_ORDER, pat_tok.n_vocab)
        pattern_bits[kind, pattern] = bits_by_unit(model, held_ids, pat_tok.vocab, held_paragraphs)
        pattern_tokens[kind, pattern] = tokens_by_unit(held_ids, pat_tok.vocab, held_paragraphs)
        rows.append({"text": kind, "pattern": pattern, "n_vocab": pat_tok.n_vocab,
                     "bytes per token": bytes_per_token(len(held_ids), held),
                     "bits per byte": score(pattern_bits[kind, pattern], range(len(held_paragraphs)))})
patterns = pd.DataFrame(rows)
assert (patterns["n_vocab"] == PATTERN_VOCAB).all(), "a pattern ran out of pairs: the comparison would be unfair"
patterns.pivot(index="pattern", columns="text", values=["bytes per token", "bits per byte"]).round(4)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, column in zip(axes, ("bytes per token", "bits per byte")):
    patterns.pivot(index="pattern", columns="text", values=column).loc[list(PATTERNS)].plot.bar(ax=ax, rot=0,
                                                                                                legend=False)
    ax.set_ylabel(column + (" (higher: shorter)" if column == "bytes per token" else " (lower: better)"))
    ax.grid(True, axis="y", alpha=0.3)
fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2, frameon=False)
fig.suptitle(f"Vocabulary {PATTERN_VOCAB:,}, order {PATTERN_ORDER}, held-out text")
fig.tight_layout(rect=(0, 0.08, 1, 1))
display(fig)
plt.close(fig)

# %% [markdown]
# Which differences are findings? On each text: the pattern with the fewest tokens against the
# runner-up, and every pattern's bits against the pattern with the fewest bits — and, where no
# pattern at all comes first, the regular expressions against the best of them. The units are the
# held-out text's paragraphs:

# %%
verdicts = {}  # text -> what was compared, with its Difference
for kind, rows in patterns.groupby("text", sort=False):
    rows = rows.set_index("pattern")
    by_length = list(rows["bytes per token"].sort_values(ascending=False).index)
    first, *others = rows["bits per byte"].sort_values().index
    best_regex = next(p for p in [first, *others] if p != "none")
    v = verdicts[kind] = {"fewest tokens": by_length[0], "runner-up": by_length[1], "fewest bits": first,
                          "best regex": best_regex}
    v["tokens"] = compare(pattern_tokens[kind, by_length[0]], pattern_tokens[kind, by_length[1]], relative=True,
                          unit="", words=("fewer", "more"), n_resamples=N_RESAMPLES)
    v["bits"] = {p: compare(pattern_bits[kind, p], pattern_bits[kind, first], n_resamples=N_RESAMPLES) for p in others}
    v["regexes"] = {p: compare(pattern_bits[kind, p], pattern_bits[kind, best_regex], n_resamples=N_RESAMPLES)
                    for p in others if p not in ("none", best_regex)} if first == "none" else {}
    v["none"] = v["bits"]["none"] if first != "none" else compare(
        pattern_bits[kind, "none"], pattern_bits[kind, best_regex], n_resamples=N_RESAMPLES)
pd.DataFrame([{"text": kind, "measure": "tokens", "pattern": v["fewest tokens"], "against": v["runner-up"],
               "verdict": v["tokens"].verdict} for kind, v in verdicts.items()]
             + [{"text": kind, "measure": "bits", "pattern": p, "against": against_, "verdict": d.verdict}
                for kind, v in verdicts.items()
                for against_, ds in ((v["fewest bits"], v["bits"]), (v["best regex"], v["regexes"]))
                for p, d in ds.items()]).set_index(["text", "measure", "pattern", "against"])

# %% [hide-input]
lines = []
for kind, v in verdicts.items():
    rows = patterns[patterns["text"] == kind].set_index("pattern")
    level = [p for p, d in v["bits"].items() if not d.clear]
    first, regex = f"`{v['fewest bits']}`", f"`{v['best regex']}`"
    lines.append(
        f"* **{kind}**: `{v['fewest tokens']}` cuts the held-out text into "
        f"{v['tokens'].word('the fewest tokens', 'more tokens', 'about as many tokens as the runner-up')} "
        f"({rows.loc[v['fewest tokens'], 'bytes per token']:.2f} bytes per token; against `{v['runner-up']}`, "
        f"{v['tokens'].verdict}). In bits, `{v['fewest bits']}` "
        + ("needs the fewest" if not level else f"and {', '.join(f'`{p}`' for p in level)} are within noise of each "
           "other at the top")
        + f" ({rows.loc[v['fewest bits'], 'bits per byte']:.4f} bits per byte): "
        + "; ".join(d.sentence(f"`{p}`", first) for p, d in v["bits"].items())
        + "".join("; " + d.sentence(f"`{p}`", regex) for p, d in v["regexes"].items()) + ".")
lines.append("\n" + " ".join(
    f"On {kind.split()[0]}, no pattern at all is {v['none'].word('ahead of', 'behind', 'within noise of')} "
    f"`{v['best regex']}`, the regular expression that comes first in bits here." for kind, v in verdicts.items()))
display(Markdown("\n".join(lines)))

# %% [markdown]
# Compression and model quality are two different scores ([Schmidt et al., 2024](../docs/references.md), make the general
# point: a tokenizer is more than its compression). Without a pattern, merges may join a word to the
# space or punctuation around it: tokens get longer, but the same word can come in several
# variants, each with fewer examples to learn from. Which effect wins depends on the text, and the
# two rows above need not agree.
#
# ## 6. BPE-dropout: robustness to misspellings
#
# BPE-dropout ([Provilkov et al., 2020](../docs/references.md); chapter 15) skips each applicable merge with probability `p`
# while encoding the *training* text, so a model sees words in many valid pieces. The claim is that
# such a model copes better with text its tokenizer cuts in unusual ways — misspelled words, for one.
# Two models of the same order on the same text, one trained on deterministic encodings and one on
# BPE-dropout encodings, scored on the clean held-out text and on the same text with seeded typos.
# The typos come from `corpus.misspell`: each word of three letters or more is hit with probability
# `TYPO_RATE` by one of four slips (two neighbouring letters swapped, one dropped, one doubled, one
# replaced), seeded so every run misspells the same words. Chapter 21 reuses it.

# %%
DROPOUT_P = 0.1
TYPO_RATE = 0.1
DROPOUT_CHARS = 500_000
DROPOUT_ORDER = 3

# %%
typo_text = misspell(heldout_text, TYPO_RATE, Random(16))
print(misspell("The knight of the rueful countenance rode on through the night", 0.5, Random(3)))
print(f"{sum(a != b for a, b in zip(heldout_text.split(), typo_text.split())):,} of "
      f"{len(heldout_text.split()):,} held-out words changed")

# %% [markdown]
# Dropout is random, so one run could be a lucky or an unlucky one: the dropout model is trained once
# per seed of `DROPOUT_SEEDS`, and every comparison resamples the seeds as well as the paragraphs
# (`Seeds`). The misspelled text has the same paragraphs, each a little changed.

# %%
DROPOUT_SEEDS = (0, 1, 2)
drop_tok = tok.truncated(PATTERN_VOCAB - 256)
id_of = {token: i for i, token in drop_tok.vocab.items()}
drop_text = book_train[:DROPOUT_CHARS]
scored = {"clean held-out": heldout_text, "with typos": typo_text}
encoded = {label: drop_tok.encode_ordinary(t) for label, t in scored.items()}
units_of_text = {label: paragraph_bytes(t) for label, t in scored.items()}
assert len(units_of_text["with typos"]) == len(paragraphs)  # the typos change words, never a paragraph break


def dropout_units(model: KneserNey) -> dict[str, list[tuple[float, int]]]:
    return {label: bits_by_unit(model, encoded[label], drop_tok.vocab, units_of_text[label]) for label in scored}


# %%
clean_ids = drop_tok.encode_ordinary(drop_text)
deterministic = dropout_units(KneserNey(clean_ids, DROPOUT_ORDER, drop_tok.n_vocab))
with_dropout = []  # one dict per seed
for seed in DROPOUT_SEEDS:
    dropped_ids = [id_of[t] for t in dropout_tokens(drop_tok, drop_text, DROPOUT_P, Random(seed))]
    with_dropout.append(dropout_units(KneserNey(dropped_ids, DROPOUT_ORDER, drop_tok.n_vocab)))
everything = range(len(paragraphs))
dropout_table = pd.DataFrame(
    {"deterministic": {label: score(deterministic[label], everything) for label in scored}}
    | {f"BPE-dropout p={DROPOUT_P}, seed {seed}": {label: score(run[label], everything) for label in scored}
       for seed, run in zip(DROPOUT_SEEDS, with_dropout)}).T
print(f"training tokens: {len(clean_ids):,} deterministic, {len(dropped_ids):,} with dropout (the last seed)")
dropout_table.round(4)

# %%
cost = {label: compare(Seeds([run[label] for run in with_dropout]), deterministic[label], n_resamples=N_RESAMPLES)
        for label in scored}


def typo_price(units: dict[str, list[tuple[float, int]]]) -> list[tuple[float, int]]:
    """Per paragraph: the bits the typos add, per byte of the clean paragraph."""
    return [(t - c, n) for (t, _), (c, n) in zip(units["with typos"], units["clean held-out"])]


typos = compare(deterministic["with typos"], deterministic["clean held-out"], words=("cheaper", "dearer"),
                n_resamples=N_RESAMPLES)
price = compare(Seeds([typo_price(run) for run in with_dropout]), typo_price(deterministic), unit="bits per clean byte",
                words=("smaller", "larger"), n_resamples=N_RESAMPLES)
print("dropout against deterministic:", {label: d.verdict for label, d in cost.items()})

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": (3, 2)})
dropout_table.T.plot.bar(ax=axes[0], rot=0)
axes[0].set_ylabel(f"bits per byte, order {DROPOUT_ORDER}")
axes[0].set_title(f"Vocabulary {drop_tok.n_vocab:,}: the scores (the axis starts at 0)")
axes[0].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(dropout_table.index))
labels = list(scored)
axes[1].errorbar(labels, [cost[k].estimate for k in labels],
                 yerr=[[cost[k].estimate - cost[k].low for k in labels], [cost[k].high - cost[k].estimate for k in labels]],
                 fmt="o", capsize=6)
axes[1].axhline(0, color="black", linewidth=0.8)
axes[1].set_ylabel("dropout minus deterministic, bits per byte")
axes[1].set_title("The differences, with 95% intervals")
for ax in axes:
    ax.grid(True, axis="y", alpha=0.3)
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
clean, typo = cost["clean held-out"], cost["with typos"]
display(Markdown(
    f"Typos make the held-out text {typos.verdict} for the deterministic model. Trained on dropout "
    f"({len(DROPOUT_SEEDS)} seeds), the model is {clean.verdict} on clean text and {typo.verdict} on the misspelled "
    f"text. The typos' price with dropout, against their price without: {price.verdict}. "
    + ("So dropout buys robustness and pays for it on clean text."
       if typo.direction == "lower" and clean.direction == "higher" else
       "So here dropout helps on both." if typo.direction == "lower" and clean.direction == "lower" else
       ("So dropout makes the model lose less to the typos — the robustness Provilkov et al. found, in small — but "
        "not enough to pay for itself under the canonical score (section 1's caveat; see below): it "
        + typo.word("is ahead", "is still behind", "is only level") + " on the misspelled text."
        if price.direction == "lower" else
        "So an n-gram model this size gets no measurable robustness from dropout: its held-out tokens are still the "
        "deterministic ones, and dropout only spreads its counts over more n-grams."))))

# %% [markdown]
# Provilkov et al. measured translation quality with neural models, which share what they learn
# across similar pieces; an n-gram model shares nothing between n-grams, so this is the
# count-based half of the story, not a replication.
#
# And this section's reading rests on the canonical score of section 1's caveat. A model trained on
# dropout encodings gives probability to cuts the canonical segmentation never uses;
# [chapter 21](21_the_score_of_every_segmentation.ipynb), section 4, runs the same design on a shorter
# held-out text and scores it both ways, and there the verdict on the misspelled text turns around: in its run the
# canonical score puts the dropout model behind the deterministic one, and the score that counts every
# segmentation puts it ahead.
#
# ## 7. The token tax, in bits
#
# Chapter 13 measured what the same declaration costs in *tokens*, language by language, under a
# tokenizer trained on English only and one trained on a balanced mix. Does the tax cost model
# quality too, or only length? Both tokenizers encode the same training text, the balanced mix's
# articles (all languages), for models of the orders in `TAX_ORDERS`; each language's held-out
# articles are scored separately. The table and the figure are at the first order, `TAX_ORDER`; the
# question whether the tax costs model quality is then asked at every order, since a longer context
# may win back what shorter tokens lose.

# %%
TAX_ORDERS = (3, 4, 5)
TAX_ORDER = TAX_ORDERS[0]
tax_train = "\n".join(mix_text(MIXES["balanced"]))
tax_tokenizers = {name: train_on_mix(MIXES[name]) for name in ("English only", "balanced")}
tax_bits_at = {n: {} for n in TAX_ORDERS}  # order -> (tokenizer, language) -> per held-out article: (bits, bytes)
tax_tokens = {}  # (tokenizer, language) -> per held-out article: (tokens, bytes)
for name, tax_tok in tax_tokenizers.items():
    models = fit_orders(tax_tok.encode_ordinary(tax_train), TAX_ORDERS, tax_tok.n_vocab)
    for code in corpus.UDHR_LANGUAGES:
        articles = [corpus.udhr(code)[k] for k in HELDOUT_ARTICLES]
        ids = [tax_tok.encode_ordinary(article) for article in articles]  # article by article, as chapter 13 counts
        for n, model in models.items():
            tax_bits_at[n][name, code] = [(model.bits(i), len(a.encode("utf-8"))) for i, a in zip(ids, articles)]
        tax_tokens[name, code] = [(len(i), len(a.encode("utf-8"))) for i, a in zip(ids, articles)]
tax_bits = tax_bits_at[TAX_ORDER]
print(f"training articles {TRAIN_ARTICLES[0]}-{TRAIN_ARTICLES[-1]} of every language ({len(tax_train):,} "
      f"characters); held-out articles {HELDOUT_ARTICLES[0]}-{HELDOUT_ARTICLES[-1]}, each encoded and scored on its "
      "own; merges: " + ", ".join(f"{name} {len(t.merges)}" for name, t in tax_tokenizers.items()))

# %% [markdown]
# Three measures per language and tokenizer: its **tokens** relative to English's for the same
# articles (chapter 13's token tax), its **bits per byte**, and its **bits** relative to English's for
# the same articles — bits per *parallel article*, the measure that compares languages: bytes per
# character differ by script (chapter 13, section 2), so bits per byte do not. Each relative figure is
# a ratio of sums over the held-out articles, with an interval from resampling them
# (`compare(..., relative=True)` on one unit per article gives the ratio minus 1):

# %%
def per_article(units: list[tuple[float, int]]) -> list[tuple[float, int]]:
    return [(value, 1) for value, _ in units]  # one unit per article: the ratio of the values' sums


relative = {}  # (measure, tokenizer, language) -> the language against English: its ratio minus 1
for name in tax_tokenizers:
    for code in corpus.UDHR_LANGUAGES:
        for measure, units in (("tokens", tax_tokens), ("bits", tax_bits)):
            relative[measure, name, code] = compare(per_article(units[name, code]), per_article(units[name, "eng"]),
                                                    relative=True, unit="", words=("fewer", "more"),
                                                    n_resamples=N_RESAMPLES)
articles = range(len(HELDOUT_ARTICLES))
tax_table = pd.DataFrame({
    **{("tokens / English's", name): {language_name(c): 1 + relative["tokens", name, c].estimate
                                      for c in corpus.UDHR_LANGUAGES} for name in tax_tokenizers},
    **{("bits per byte", name): {language_name(c): score(tax_bits[name, c], articles)
                                 for c in corpus.UDHR_LANGUAGES} for name in tax_tokenizers},
    **{("bits / English's", name): {language_name(c): 1 + relative["bits", name, c].estimate
                                    for c in corpus.UDHR_LANGUAGES} for name in tax_tokenizers}})
tax_table = tax_table.sort_values(("tokens / English's", "English only"))
tax_table.round(3)

# %%
rank = {lang: i for i, lang in enumerate(tax_table.index)}
fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharey=True)
for ax, measure, title in ((axes[0], "tokens", "length: the token tax"),
                           (axes[1], "bits", f"model quality: bits per parallel article, order {TAX_ORDER}")):
    for k, name in enumerate(tax_tokenizers):
        ds = {language_name(c): relative[measure, name, c] for c in corpus.UDHR_LANGUAGES}
        ax.errorbar([1 + d.estimate for d in ds.values()], [rank[lang] + (k - 0.5) * 0.35 for lang in ds],
                    xerr=[[d.estimate - d.low for d in ds.values()], [d.high - d.estimate for d in ds.values()]],
                    fmt="o", capsize=3, markersize=4, label=f"tokenizer: {name}")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel(f"{measure} relative to English's for the same articles (95% intervals)")
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
axes[0].set_yticks(range(len(tax_table)), tax_table.index)
axes[0].legend(fontsize=8)
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [markdown]
# Does the English-only tokenizer make the model worse for a language, or only its text longer? For
# each language and each order of `TAX_ORDERS`, its bits per byte under the English-only tokenizer
# against the balanced one, as a relative change, and whether it is clearly worse by more than
# `MARGIN`, clearly cheaper by more, clearly within it, or undecided:

# %%
MARGIN = 0.05
switches = {n: {language_name(code): compare(tax_bits_at[n]["English only", code], tax_bits_at[n]["balanced", code],
                                             relative=True, unit="", words=("fewer", "more"), n_resamples=N_RESAMPLES)
                for code in corpus.UDHR_LANGUAGES} for n in TAX_ORDERS}


def against_margin(d) -> str:
    """Where a relative change stands against MARGIN: its whole interval above it, below minus it, inside it, or
    neither."""
    return ("worse by more" if d.low > MARGIN else "cheaper by more" if d.high < -MARGIN else
            "within" if d.inside(MARGIN) else "undecided")


counts = {n: Counter(against_margin(d) for d in sw.values()) for n, sw in switches.items()}
print("English-only against balanced, bits per byte, languages per verdict against", f"{MARGIN:.0%}:",
      {f"order {n}": dict(c) for n, c in counts.items()})
pd.DataFrame({f"order {n}": {lang: f"{against_margin(d)}: {d.verdict}" for lang, d in sw.items()}
              for n, sw in switches.items()})

# %% [markdown]
# What the sentences below are made of: the languages whose bits per byte rise clearly by more than
# `MARGIN`, those written in Latin letters among them and how much of their text is outside ASCII, the
# languages the English-only tokenizer makes clearly cheaper, and the language that comes first per
# byte against English:

# %%
switch = switches[TAX_ORDER]
beyond = [lang for lang, d in switch.items() if d.beyond(MARGIN)]
within = [lang for lang, d in switch.items() if d.inside(MARGIN)]
undecided = [lang for lang in switch if lang not in beyond and lang not in within]
script = {language_name(code): corpus.UDHR_LANGUAGES[code][0] for code in corpus.UDHR_LANGUAGES}
code_of = {language_name(code): code for code in corpus.UDHR_LANGUAGES}
worse_at = {n: [lang for lang, d in sw.items() if d.low > MARGIN] for n, sw in switches.items()}  # clearly > MARGIN
within_at = {n: [lang for lang, d in sw.items() if d.inside(MARGIN)] for n, sw in switches.items()}
worse = worse_at[TAX_ORDER]
latin = [lang for lang in worse if script[lang] == "Latin"]
last_order = TAX_ORDERS[-1]


def accents(lang: str) -> str:
    """How much of a language's held-out text is letters outside ASCII, and their UTF-8 bytes. A letter is a
    grapheme cluster (regex's \\X) that starts with a letter: "ệ" written as e + two combining marks is one."""
    text = "".join(corpus.udhr(code_of[lang])[k] for k in HELDOUT_ARTICLES)
    letters = [g for g in unicode_re.findall(r"\X", text) if g[0].isalpha()]
    wide = [g for g in letters if any(ord(ch) > 127 for ch in g)]
    return (f"{len(wide) / len(letters):.0%} of its letters outside ASCII, "
            f"{sum(len(g.encode('utf-8')) for g in wide) / max(len(wide), 1):.2f} bytes each on average")


def context_bytes(name: str, code: str) -> float:
    """The bytes an order-n model sees before a token, per token of context: the tokenizer's bytes per token."""
    return sum(b for _, b in tax_tokens[name, code]) / sum(t for t, _ in tax_tokens[name, code])


def signed(x: float) -> str:
    """A relative change with its sign and a typographic minus: +12.5%, −0.8%."""
    return f"{x:+.1%}".replace("-", "\u2212")


gap = {lang: {n: switches[n][lang] for n in TAX_ORDERS} for lang in worse}  # the worse languages, order by order
shrunk = [lang for lang, ds in gap.items() if ds[last_order].high < ds[TAX_ORDER].low]  # intervals apart


worst = tax_table[("tokens / English's", "English only")].idxmax()
ratio = tax_table["tokens / English's"]
cheaper = [lang for lang, d in switch.items() if d.direction == "lower"]
n = len(switch)
per_byte_first = tax_table[("bits per byte", "balanced")].idxmin()
per_byte = compare(tax_bits["balanced", code_of[per_byte_first]], tax_bits["balanced", "eng"], n_resamples=N_RESAMPLES)
print({"worse": worse, "latin": {lang: accents(lang) for lang in latin}, "cheaper": cheaper,
       "per_byte_first": per_byte_first})
print("bytes per token (the context one token of an order-n model holds), English-only / balanced:",
      {lang: f"{context_bytes('English only', code_of[lang]):.2f} / {context_bytes('balanced', code_of[lang]):.2f}"
       for lang in worse})
print("English-only against balanced, bits per byte, order by order:",
      {lang: {n: signed(d.estimate) for n, d in ds.items()} for lang, ds in gap.items()})

# %% [hide-input]
display(Markdown(
    f"Under the English-only tokenizer, {worst} needs {ratio.loc[worst, 'English only']:.2f}× English's tokens; "
    f"under the balanced one, {ratio.loc[worst, 'balanced']:.2f}× (counted article by article, as chapter 13 "
    f"counts). At order {TAX_ORDER}, switching to the English-only tokenizer changes the bits per byte of "
    + "; ".join(f"{len(names)} of the {n} languages {label} {MARGIN:.0%}" + (f" ({', '.join(names)})" if names else "")
                for label, names in (("by clearly more than", beyond), ("by clearly less than", within),
                                     ("by an interval that straddles", undecided)))
    + f". So at order {TAX_ORDER} the tax is length alone for {how_many(len(within), n)} of the {n} languages (English included)"
    + (f", and for {how_many(len(worse), n)} it is a worse model too" if worse else
       ", and for none is it clearly a worse model by more than that")
    + (" — not only for the scripts the English-only tokenizer barely learned: "
       + " and ".join(f"{lang} ({accents(lang)})" for lang in latin)
       + f" {'is' if len(latin) == 1 else 'are'} written in Latin letters, and what the English-only tokenizer lacks "
         "there are the multi-byte sequences of their diacritics. " if latin else ". ")
    + (f"At order {TAX_ORDER} the English-only tokenizer is clearly cheaper in bits per byte only for "
       f"{', '.join(cheaper)}. " if cheaper else
       f"At order {TAX_ORDER} the English-only tokenizer is clearly cheaper in bits per byte for none of them. ")
    + "\n\nThe count depends on the order: "
    + "; ".join(f"at order {k}, {c['worse by more']} languages are clearly worse by more than {MARGIN:.0%}, "
                f"{c['within']} clearly within {MARGIN:.0%}, {c['undecided']} undecided"
                + (f", {c['cheaper by more']} clearly cheaper by more than {MARGIN:.0%}" if c["cheaper by more"] else "")
                for k, c in counts.items())
    + f". At order {last_order} the tax is length alone for {how_many(len(within_at[last_order]), n)} of the languages"
    + (f", and a worse model too for {how_many(len(worse_at[last_order]), n)}: {', '.join(worse_at[last_order])}"
       if worse_at[last_order] else ", and clearly a worse model by more than that for none")
    + (f"; of the Latin-script languages, {' and '.join(lang for lang in latin if lang in worse_at[last_order])} "
       "remain" if any(lang in worse_at[last_order] for lang in latin) else
       f"; {' and '.join(latin)} are no longer among them" if latin else "")
    + ((". What the longer context changes fits a measured difference in context: an order-n model predicts from "
          "n − 1 tokens, and in the languages clearly worse at order "
        + f"{TAX_ORDER} a token of the English-only tokenizer holds "
        + "{:.2f} to {:.2f} bytes on average, a token of the balanced one {:.2f} to {:.2f} (printed above)".format(
            *[f(context_bytes(name, code_of[lang]) for lang in worse) for name in ("English only", "balanced")
              for f in (min, max)])
        + f", so the same order spans that many bytes times n − 1. From order {TAX_ORDER} to order "
          f"{last_order}, the English-only tokenizer's excess in bits per byte goes "
        + ", ".join(f"from {signed(gap[lang][TAX_ORDER].estimate)} to {signed(gap[lang][last_order].estimate)} ({lang})"
                    for lang in worse)
        + (f"; for {how_many(len(shrunk), len(worse))} of these languages the order-{last_order} interval lies wholly "
           f"below the order-{TAX_ORDER} one ({', '.join(shrunk)})" if shrunk else
           f"; for none of these languages does the order-{last_order} interval lie wholly below the order-{TAX_ORDER} one")
        + (". So for those a model that sees more tokens back wins back part or all of what the English-only tokenizer costs, "
           "as the shorter context its tokens leave would predict; the order is the only thing varied here, so this "
           "makes the context the likely reason, not a proven one.\n\n" if shrunk else
           ". So a longer context does not clearly change the cost here, and the shorter context is not borne out as "
           "its reason.\n\n")) if worse else ".\n\n")
    + f"Per byte, {per_byte_first} comes first under the balanced tokenizer "
      f"({tax_table.loc[per_byte_first, ('bits per byte', 'balanced')]:.3f} bits per byte; against English's bits "
      f"per byte, {per_byte.verdict}), yet for the same articles it needs "
      f"{tax_table.loc[per_byte_first, ('bits / English' + chr(39) + 's', 'balanced')]:.2f}× English's bits "
      f"({relative['bits', 'balanced', code_of[per_byte_first]].verdict}). Its script takes more bytes per "
      "character, which lowers the bits per byte without saving a bit: the right-hand panel above compares the "
      "languages, a panel of bits per byte would not."))

# %% [markdown]
# The data is small (twenty articles per language), and the tokenizers have a few hundred merges,
# so this measures the tokenizer with everything else held fixed; it says nothing about how much
# text each language gets when a real model is trained. Chapter 13 leaves that part argued, and so
# does this chapter.
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
#   embeddings); an n-gram model shares nothing, so it suffers from rare tokens sooner. The minima
#   above would likely move to bigger vocabularies with a transformer and more data: Tao et al.
#   (2024) predict compute-optimal vocabularies far above these for models of billions of parameters,
#   growing with the compute budget. Section 4 measured the direction with training text standing in
#   for compute.

# %% [hide-input]
at_largest = tpw[shortest]
display(Markdown(
    f"* **Context in tokens, not in bytes.** An order-3 model sees two tokens back: two bytes on a byte-level "
    f"encoding, and at {shortest:,} tokens, where the held-out text has {at_largest:.2f} tokens per word, about "
    f"{2 / at_largest:.1f} words. Part of what a bigger vocabulary buys here is simply a longer context in bytes, "
    "which a transformer with a long window gets anyway; that effect is larger here than it would be there."))

# %% [markdown]
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
# * A **Kneser-Ney** n-gram model discounts every count and mixes in the next lower order, whose
#   counts are how many different tokens came before a token, down to the uniform distribution, so
#   no token has probability 0 (interpolated Kneser-Ney). `bpe_course.algorithms.KneserNey(ids, order,
#   n_vocab)`; `fit_orders` for several orders at once.
# * A **difference is a finding** only when it is larger than its uncertainty: `compare(a, b)` on
#   held-out units (paragraphs, articles) gives the difference with a paired-bootstrap interval, and
#   its `.verdict` says ahead, behind or within noise. Sentences take their words from it.
# * Bits per byte against vocabulary size is not a straight line: section 3 says, order by order,
#   where it bottoms out and whether the minimum is clear of its neighbours, and section 4 how that
#   moves with the training text.
# * Every bits-per-byte figure scores the canonical segmentation only: an upper bound on the model's
#   code length for the text.
# * The pattern, dropout and the language mix change bits and length by different amounts:
#   measure both.
#
# ## Exercises

# %%
from bpe_course.exercises.ch16 import check_continuations, check_dearer_in_bits, check_order_minimum

# %% [markdown]
# **Exercise 16.1.** Section 3 stopped at order 4. Add order 5 to the sweep (`sweep.measure([5])`,
# slow the first time) and find where it bottoms out: `minimum_at`, the vocabulary
# size of its lowest bits per byte, and `clearly_ahead_of`, the list of the minimum's neighbours on
# the grid (the sizes just below and just above it) that the minimum is *clearly* ahead of, by
# `compare` with its defaults on `sweep.units(n_vocab, 5)`. Did the minimum move from order 4's?

# %%
minimum_at = None  # replace with a vocabulary size, e.g. 1024
clearly_ahead_of = []  # replace with the neighbours the minimum is clearly ahead of, e.g. [512, 2048]
check_order_minimum(minimum_at, clearly_ahead_of, sweep)

# %% [markdown]
# **Exercise 16.2.** Section 2's lower order counted, for each token, the *different* tokens seen right
# before it. An order-3 model does the same one level up. Write `continuation_counts(ids)`: a dict
# giving, for each pair of tokens `(v, w)` that follows another token somewhere in `ids`, the number
# of different tokens seen right before the pair.

# %%
def continuation_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    return {}  # replace with your code


check_continuations(continuation_counts)

# %% [markdown]
# **Exercise 16.3.** Section 7's right-hand panel shows bits per parallel article with intervals, but
# no list says which languages are *clearly* dearer than English. Under the balanced tokenizer, which
# languages need clearly more bits than English for the same held-out articles? Use `tax_bits` and
# `compare` with its defaults (one unit per article, as `per_article` makes them), and answer with the
# languages' names as the table writes them.

# %%
dearer = []  # replace with language names, e.g. ["Greek", "Tamil"]
check_dearer_in_bits(dearer, tax_bits)

# %% [markdown]
# <details><summary>Solutions</summary>
#
# ```python
# order5 = sweep.measure([5])
# minimum_at = int(best_rows(order5).iloc[0]["n_vocab"])
# grid = sorted(order5["n_vocab"])
# i = grid.index(minimum_at)
# clearly_ahead_of = [grid[j] for j in (i - 1, i + 1) if 0 <= j < len(grid)
#                     and compare(sweep.units(minimum_at, 5), sweep.units(grid[j], 5)).direction == "lower"]
#
# def continuation_counts(ids):
#     return dict(Counter((v, w) for _, v, w in set(zip(ids, ids[1:], ids[2:]))))
#
# dearer = [language_name(code) for code in corpus.UDHR_LANGUAGES if code != "eng" and compare(
#     per_article(tax_bits["balanced", code]), per_article(tax_bits["balanced", "eng"])).direction == "higher"]
# ```
# </details>
#
# [← 15 Other designs](15_other_designs.ipynb) · [00 Start here](00_start_here.ipynb) · [17 Beyond greedy BPE →](17_beyond_greedy_bpe.ipynb)
