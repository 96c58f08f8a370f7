# %% [markdown]
# # 03 · The training loop
#
# [← 02 Counting pairs](02_counting_pairs.ipynb) · [04 Encoding and decoding →](04_encoding_decoding.ipynb)
#
# Chapter 2 made one merge. Training is that step in a loop: count, pick the best pair, merge,
# repeat — until the vocabulary has the size you asked for, **or until no pair occurs at least
# twice**, whichever comes first. In this chapter you will
#
# * write the whole character-level trainer, with `</w>` and four special tokens, and check it
#   against `bpe_course.algorithms.wordbpe.WordBPE`;
# * train the classic toy corpus and look at what really comes out — including a run that stops
#   long before the vocabulary size you asked for;
# * train on real text and read the merges it learned;
# * build a **merge-count slider** that re-tokenizes a text live as you allow more merges.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
VOCAB_SIZE = 600  # for the tokenizer trained on CORPUS (bigger = slower: a few seconds for 600 on python_docs)
SAMPLE = "The tokenizer splits unfamiliar words such as unlowered into pieces it has seen before."

# %%
import re

import pandas as pd
from IPython.display import Markdown, display

from bpe_course import corpus
from bpe_course.algorithms import WordBPE, apply_merge, count_pairs, word_counts

# %% [markdown]
# ## The trainer
#
# We reuse chapter 2's pieces — `word_counts`, `count_pairs`, `apply_merge` are the package's
# versions of the functions you wrote there (chapter 2 checked they agree) — and write the loop.
#
# The vocabulary starts with the four special tokens (ids 0–3: padding, beginning and end of
# sequence, unknown; chapter 5 puts them to work), then the *base symbols*: every character of
# the training text plus `</w>`, sorted. Each merge adds one token.

# %%
SPECIALS = ["<|pad|>", "<|bos|>", "<|eos|>", "<|unk|>"]


def train(corpus_text: str, vocab_size: int):
    """Character-level BPE: returns (vocab as a list, merges, trace rows, why it stopped)."""
    words = word_counts(corpus_text)  # {('l', 'o', 'w', '</w>'): 5, ...}
    vocab = SPECIALS + sorted({symbol for word in words for symbol in word})
    merges, trace = [], []
    while len(vocab) < vocab_size:
        pairs = count_pairs(words)
        if not pairs or max(pairs.values()) < 2:
            return vocab, merges, trace, "no pair occurs at least twice"
        best = max(pairs, key=lambda pair: (pairs[pair], pair))  # ties: the greatest pair
        words = apply_merge(words, best)
        merges.append(best)
        vocab.append(best[0] + best[1])
        trace.append((len(merges), best, pairs[best], best[0] + best[1]))
    return vocab, merges, trace, "reached vocab_size"

# %% [markdown]
# ## The classic toy corpus
#
# *low* ×5, *lower* ×2, *newest* ×6, *widest* ×3 (Sennrich et al., 2016). We ask for a
# vocabulary far bigger than this corpus can give, to see where it stops.

# %%
TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
ASKED = 1000
vocab, merges, trace, stop = train(TOY, vocab_size=ASKED)
merges_table = pd.DataFrame(trace, columns=["step", "pair", "count", "new symbol"])
merges_table

# %% [markdown]
# What is left to merge after the last step? Replay the merges on the corpus and count the pairs
# that remain:

# %%
n_base = len(vocab) - len(SPECIALS) - len(merges)
final_words = word_counts(TOY)
for pair in merges:
    final_words = apply_merge(final_words, pair)
left = count_pairs(final_words)
print("words after the last merge:", {" ".join(word): n for word, n in final_words.items()})
print("pairs left:", dict(left), "| vocabulary:", len(SPECIALS), "specials +", n_base, "base symbols +",
      len(merges), "merges =", len(vocab))

# %% [hide-input]
if left:
    why = (f"{len(left)} different pairs remain, but the most frequent occurs only {max(left.values())} time(s): "
           "a merge would make a token used once, memorising the corpus rather than finding a reusable piece.")
else:
    why = ("every word is now a single token (" + ", ".join(f"`{w[0]}`" for w in final_words) +
           "), so there are no pairs left to count at all.")
display(Markdown(
    f"Training stopped: **{stop}**. The vocabulary has **{len(vocab)}** tokens = {len(SPECIALS)} specials "
    f"+ {n_base} base symbols ({n_base - 1} characters and `</w>`) + {len(merges)} merges. "
    f"It asked for {ASKED:,}, but after merge {len(merges)} {why}"))

# %% [markdown]
# The package's `WordBPE.train` (the canonical version that later chapters import) gives the
# same vocabulary, in the same id order, the same merges, and the same reason to stop:

# %%
def check_against_package(text: str, vocab_size: int) -> str:
    ours = train(text, vocab_size)
    package = WordBPE.train(text, vocab_size, trace=True)
    assert ours[0] == list(package.vocab.values())
    assert ours[1] == package.merges
    assert [row[2] for row in ours[2]] == [step.count for step in package.trace]
    assert ours[3] == package.stop_reason
    return f"{len(ours[1])} merges, {len(ours[0])} tokens, stopped because {ours[3]!r}: identical to WordBPE"


print(check_against_package(TOY, ASKED))
print(check_against_package(TOY, 20))

# %% [markdown]
# Tutorials print figures like these — a vocabulary size, a number of merges, the first merges —
# and they do not always match what their own code gives. The appendix,
# [What the tutorials claim, checked on their own text](90_appendix_tutorials_checked.ipynb),
# re-runs five write-ups this course was designed from on their own corpora, each with its own
# algorithm re-implemented, conventions included.
#
# ## Real text
#
# The same algorithm on real text, where many words start with *un* and end in *ed*. The toy corpus
# above cannot cut the unseen word `unlowered` into `un`, `low`, `er`, `ed`: it never repeats `un` or `ed`
# (the appendix shows a tutorial claiming it does). Real text can:

# %%
train_text, heldout_text = corpus.train_heldout(CORPUS)
bpe = WordBPE.train(train_text, VOCAB_SIZE, trace=True)
print(bpe, "| stop reason:", bpe.stop_reason)
real_tokens = bpe.tokenize("unlowered")
print("unlowered ->", " · ".join(real_tokens))

# %% [hide-input]
display(Markdown(f"With {len(bpe.merges)} merges learned from `{CORPUS}`, `un` "
                 f"{'**is**' if 'un' in real_tokens else 'is still not'} a token of `unlowered`, and "
                 f"`ed</w>` {'**is**' if 'ed</w>' in real_tokens else 'is not'}."))

# %% [markdown]
# The package trainer and the teaching loop agree on real text too (a slice, to keep it quick —
# the teaching loop recounts every pair after every merge; chapter 11 makes that fast):

# %%
print(check_against_package(train_text[:20_000], 150))

# %% [markdown]
# ## The merges as a table
#
# Every merge with its count and the new symbol — the start and the end of the run on `CORPUS`:

# %%
merge_df = pd.DataFrame([(s.step, s.pair, s.count, s.new_symbol, s.new_id) for s in bpe.trace],
                        columns=["step", "pair", "count", "new symbol", "id"])
pd.concat([merge_df.head(15), merge_df.tail(5)])

# %% [markdown]
# Counts fall as training goes on: early merges are common letter pairs and word endings, late
# ones are whole rarer words or pieces of them.

# %%
print(f"first merge used {merge_df['count'].iloc[0]:,} times, last {merge_df['count'].iloc[-1]:,} times; "
      f"counts never increase from one step to the next: {merge_df['count'].is_monotonic_decreasing}")

# %% [markdown]
# ## The merge-count slider
#
# A BPE vocabulary is a *prefix* property: training for fewer merges gives exactly the first
# merges of a longer run. Each step depends only on the steps before it, so stopping earlier
# cannot change them. On the slice used above:

# %%
shorter, longer = WordBPE.train(train_text[:20_000], 150), WordBPE.train(train_text[:20_000], 300)
print(f"the {len(shorter.merges)} merges of the shorter run are the first {len(shorter.merges)} of the longer "
      f"run's {len(longer.merges)}: {shorter.merges == longer.merges[:len(shorter.merges)]}")

# %% [markdown]
# So `bpe.truncated(k)` is the tokenizer you would have trained with `k` merges. The slider below
# picks `k`; the text is re-tokenized live, one coloured chip per token (hover for the id), with
# the vocabulary size and tokens per word beside it. Edit the text box to try your own sentence.

# %%
from bpe_course.widgets import MergeSlider

slider = MergeSlider(bpe, SAMPLE, merges=len(bpe.merges) // 10)
slider

# %% [markdown]
# Driven from Python: a second slider on the same tokenizer, moved by code (the one above stays
# where its own cell put it). At 0 merges every character is a token; the numbers come from the
# same function the stats line uses, and the chips always equal `bpe.truncated(k).tokenize(...)`.

# %%
driven = MergeSlider(bpe, SAMPLE, merges=0)
rows = []
for k in [0, 10, 50, 100, 300, len(bpe.merges)]:
    driven.slider.value = k
    tokens, _ = driven.tokens_at(k)
    assert tokens == bpe.truncated(k).tokenize(SAMPLE)
    rows.append({"merges": k, **driven.stats_at(k), "unlowered": " · ".join(bpe.truncated(k).tokenize("unlowered"))})
assert all(len(t) == 1 or t == "</w>" for t in driven.tokens_at(0)[0])
assert slider.slider.value == len(bpe.merges) // 10  # the first slider is where its own code put it
pd.DataFrame(rows).set_index("merges").round(2)

# %% [markdown]
# ## Recap
#
# * Training = count pairs, take the best (ties: greatest pair), merge everywhere, repeat.
# * It stops at the requested vocabulary size **or** when no pair occurs twice — on toy corpora
#   usually the latter, so always print what you got rather than what you asked for.
# * Vocabulary = specials + base symbols (characters and `</w>`) + one token per merge.
# * Merges only come from training text: an unseen prefix like `un` cannot appear.
# * Fewer merges = a prefix of the merge list: `truncated(k)`.
#
# ## Exercises
#
# **3.1** Predict the first three merges on this corpus, by hand, before running anything.

# %%
from bpe_course.exercises.ch03 import (PREDICT_CORPUS, STOP_CORPUS, STOP_VOCAB_SIZE, check_first_merges,
                                       check_learn_merges, check_regex_merge, check_stop)

print(PREDICT_CORPUS)
check_first_merges([("t", "e"), ("e", "a"), ("e", "n")])  # starter guess: replace with yours

# %% [markdown]
# <details><summary>Solution</summary>
#
# `(t, e)` is in *tea* ×4, *ten* ×3 and *tent* ×1 (*net* has `e t`, not `t e`): 8, the most.
# After that merge `te` forms new pairs: `(te, n)` (ten ×3 + tent ×1), `(te, a)` and `(a, </w>)`
# (tea ×4) all tie at 4 — the greatest is `("te", "n")`. Then `("te", "a")` and `("a", "</w>")`
# still tie at 4, and `("te", "a")` wins. Answer: `[("t", "e"), ("te", "n"), ("te", "a")]`.
# </details>
#
# **3.2** Train on `STOP_CORPUS` asking for `STOP_VOCAB_SIZE` tokens. How many merges does it
# learn, and how big is the vocabulary at the end? (Predict first, then check with `WordBPE`.)

# %%
print(STOP_CORPUS, "| vocab_size asked:", STOP_VOCAB_SIZE)
check_stop(merges=STOP_VOCAB_SIZE, vocab_size=STOP_VOCAB_SIZE)  # starter guess: replace with yours

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# stopped = WordBPE.train(STOP_CORPUS, STOP_VOCAB_SIZE)
# check_stop(merges=len(stopped.merges), vocab_size=len(stopped.vocab))
# ```
# </details>
#
# **3.3** Write the loop yourself: `learn_merges(corpus, num_merges)` returns the merges in
# order, stopping early when no pair occurs at least twice.

# %%
def learn_merges(corpus_text, num_merges):
    words = word_counts(corpus_text)
    merges = []
    while len(merges) < num_merges:  # starter: forgets to stop when no pair repeats
        pairs = count_pairs(words)
        if not pairs:
            break
        best = max(pairs, key=lambda pair: (pairs[pair], pair))
        merges.append(best)
        words = apply_merge(words, best)
    return merges


check_learn_merges(learn_merges)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Add the stop rule after choosing the best pair:
#
# ```python
#         if pairs[best] < 2:
#             break
# ```
# </details>
#
# **3.4 Find the bug.** One of the write-ups checked in the
# [appendix](90_appendix_tutorials_checked.ipynb) merges a pair with a regular expression on the
# space-joined symbols. Here is its merge step for one word, bug included. Fix it so that it only ever merges two
# whole symbols — the checker tries words where the bug shows and words where it does not.

# %%
def merge_by_regex(symbols, pair):
    pattern = re.compile(r"(?<!S)" + re.escape(" ".join(pair)) + r"(?!S)")  # starter: the write-up's version
    return tuple(pattern.sub("".join(pair), " ".join(symbols)).split())


check_regex_merge(merge_by_regex)

# %% [markdown]
# <details><summary>Solution</summary>
#
# A symbol starts after a space or at the start of the string, and ends before a space or at the
# end: "not after a non-space" is `(?<!\S)`, "not before a non-space" is `(?!\S)`.
#
# ```python
#     pattern = re.compile(r"(?<!\S)" + re.escape(" ".join(pair)) + r"(?!\S)")
# ```
# </details>
#
# [← 02 Counting pairs](02_counting_pairs.ipynb) · [04 Encoding and decoding →](04_encoding_decoding.ipynb)
