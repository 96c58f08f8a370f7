# %% [markdown]
# # 02 · Counting pairs and making one merge
#
# [← 01 Characters and words](01_characters_and_words.ipynb) · [03 The training loop →](03_training_loop.ipynb)
#
# Chapter 1 ended with a wish: a vocabulary that keeps frequent words whole but can still spell
# any word from smaller pieces. Byte-pair encoding (BPE) gets there by one small step, repeated:
#
# 1. split every word into characters, with an end-of-word marker `</w>`;
# 2. count every pair of neighbouring symbols, each word weighted by how often it occurs;
# 3. take the most frequent pair and **merge** it into one new symbol everywhere.
#
# This chapter builds that one step by hand — counting, choosing (including what happens on a
# tie) and merging — checks each piece against `bpe_course.algorithms.wordbpe`, and then puts it in a
# widget: a bar chart of the top pairs with a button that applies the best merge.
#
# The loop around the step, and when it stops, is chapter 3.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file (used in the second half)

# %%
from collections import Counter

import pandas as pd
from IPython.display import HTML, display

from bpe_course import chips_html, corpus
from bpe_course.algorithms import wordbpe

# %% [markdown]
# ## A toy corpus you can check by hand
#
# The classic example comes from the paper that brought BPE to machine translation
# (Sennrich, Haddow & Birch, *Neural Machine Translation of Rare Words with Subword Units*, 2016,
# Algorithm 1): the words *low*, *lower*, *newest* and *widest*, seen 5, 2, 6 and 3 times.

# %%
TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3

# %% [markdown]
# ## Step 1: words as symbols, with `</w>`
#
# We only care about *which* words occur and *how often*, so the corpus shrinks to a table
# `{word as a tuple of symbols: count}`. Each word gets a final `</w>` symbol. Without it,
# the `st` that ends *newest* and the `st` that starts *stop* would be the same pair; with it,
# BPE can learn a token `st</w>` that means "st at the end of a word", and decoding knows where
# the spaces go.

# %%
def get_words(text: str) -> dict[tuple[str, ...], int]:
    """Split on whitespace; each word becomes its characters plus '</w>', with its count."""
    return {tuple(word) + ("</w>",): n for word, n in Counter(text.split()).items()}


words = get_words(TOY)
words

# %%
assert words == wordbpe.word_counts(TOY)
print("get_words == bpe_course.algorithms.wordbpe.word_counts: True")

# %% [markdown]
# ## Step 2: count adjacent pairs
#
# Every pair of neighbouring symbols in a word counts as many times as the word occurs. A
# pair can occur twice in one word (`a a a` holds `(a, a)` at two positions), and both count.

# %%
def count_pairs(words: dict[tuple[str, ...], int]) -> Counter:
    """How often each adjacent pair of symbols occurs, every word weighted by its count."""
    counts = Counter()
    for word, n in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += n
    return counts


pairs = count_pairs(words)
table = pd.DataFrame([(a, b, n) for (a, b), n in pairs.items()], columns=["left", "right", "count"])
table.sort_values(["count", "left", "right"], ascending=False).head(10).reset_index(drop=True)

# %%
assert pairs == wordbpe.count_pairs(words)
assert count_pairs({("a", "a", "a", "</w>"): 1})[("a", "a")] == 2  # overlapping positions both count
print("count_pairs == bpe_course.algorithms.wordbpe.count_pairs: True")

# %% [markdown]
# ## Step 3: pick the best pair — and break ties on purpose
#
# The best pair is the most frequent one. On this corpus the top of the table is a tie:

# %%
top_count = max(pairs.values())
tied = sorted((pair for pair, n in pairs.items() if n == top_count), reverse=True)
print(f"{len(tied)} pairs share the top count {top_count}: {tied}")

# %% [markdown]
# Which one wins matters: every later merge builds on this one. A rule that picks "whichever
# tied pair was counted first" (what `max(pairs, key=pairs.get)` does in Python) depends on the
# order the words were read in. This course uses one fixed rule everywhere, the same as
# `bpe_course.train_bpe` (see `CONTRIBUTING.md`): **highest count, then the lexicographically
# greatest pair**, comparing pairs as Python compares tuples.

# %%
def best_pair(pairs: Counter) -> tuple[str, str]:
    """Highest count; among equal counts, the greatest pair (as Python orders tuples)."""
    return max(pairs, key=lambda pair: (pairs[pair], pair))


best = best_pair(pairs)
first_counted = max(pairs, key=pairs.get)  # the insertion-order rule, for comparison
print(f"our rule picks {best}; 'first counted' would pick {first_counted}")
assert best == wordbpe.best_pair(pairs)

# %% [markdown]
# ## Step 4: merge the pair everywhere
#
# Merging rewrites each word, scanning left to right and joining every occurrence of the pair
# into one symbol. Two details: we compare whole symbols (the symbols `a`, `bc` do not contain
# the pair `(ab, c)` even though the letters match), and after joining we continue after the
# new symbol, so `a a a` becomes `aa a`, not `aa aa`.

# %%
def merge_pair(symbols: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """Join every occurrence of pair (left to right, no overlaps) into one symbol."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def apply_merge(words: dict, pair: tuple[str, str]) -> dict:
    return {merge_pair(word, pair): n for word, n in words.items()}


for symbols, pair in [(("l", "o", "w", "</w>"), ("o", "w")), (("a", "a", "a"), ("a", "a")), (("a", "bc"), ("ab", "c"))]:
    print(f"{symbols} + merge {pair} -> {merge_pair(symbols, pair)}")
    assert merge_pair(symbols, pair) == wordbpe.merge_pair(symbols, pair)

# %%
merged = apply_merge(words, best)
assert merged == wordbpe.apply_merge(words, best)
for word, n in merged.items():
    display(HTML(f"<div style='display:flex'><span style='width:3em'>×{n}</span>{chips_html(list(word))}</div>"))

# %% [markdown]
# That is one BPE merge. The package's trainer, run on the same corpus, learns the same first merge:

# %%
trained = wordbpe.WordBPE.train(TOY, vocab_size=1000)
assert trained.merges[0] == best
print(f"first merge: ours {best}, WordBPE {trained.merges[0]}")

# %% [markdown]
# After the merge the counts change: pairs that touched the merged symbols disappear, and new
# pairs with the new symbol appear. Recounting shows it:

# %%
after = count_pairs(merged)
changes = sorted(set(pairs) | set(after), key=lambda p: (-(after[p] - pairs[p]), p))
diff = pd.DataFrame([(f"{a} + {b}", pairs[(a, b)], after[(a, b)]) for a, b in changes if pairs[(a, b)] != after[(a, b)]],
                    columns=["pair", "count before", "count after"])
diff

# %% [markdown]
# ## The pair explorer
#
# `bpe_course.widgets.merges.PairExplorer` does exactly these steps behind a button. The bars
# are the ten most frequent pairs (the red one is what the next merge will take, ties broken
# as above); the list shows each word's current segmentation with its count. Click
# **apply best merge** a few times and watch symbols grow; **reset** starts again.

# %%
from bpe_course.widgets import PairExplorer

explorer = PairExplorer(TOY)
explorer

# %% [markdown]
# The widget can be driven from Python too: `step()` is one click. Five steps of a second explorer
# (the one above stays where your clicks leave it) give the package trainer's first five merges:

# %%
driven = PairExplorer(TOY)
for _ in range(5):
    driven.step()
print(driven.merges)
assert driven.merges == trained.merges[:5]
assert explorer.merges == []  # the widget above is untouched
print("the explorer's merges == WordBPE's first 5 merges: True")

# %% [markdown]
# ## On real text
#
# The same explorer on the training part of `CORPUS`. With thousands of different words the
# top pairs show what your text repeats most: common letter pairs, word endings (pairs with
# `</w>`), and sometimes formatting, such as the runs of `-` that draw tables.

# %%
train_text, heldout_text = corpus.train_heldout(CORPUS)
real = PairExplorer(train_text)
print(f"{len(real.words):,} distinct words; {len(real.counts):,} distinct pairs")
real

# %% [markdown]
# Three clicks (again on a second explorer, so the one above stays at the start) give the same
# three merges as the package trained on the same text (asked for its base vocabulary — 4
# specials, the characters, `</w>` — plus 3 tokens):

# %%
real_driven = PairExplorer(train_text)
for _ in range(3):
    real_driven.step()
base_size = len(wordbpe.SPECIALS) + len(set("".join(train_text.split()))) + 1
three = wordbpe.WordBPE.train(train_text, vocab_size=base_size + 3)
assert real_driven.merges == three.merges and real.merges == []
print(f"explorer: {real_driven.merges}\nWordBPE:  {three.merges}")

# %% [markdown]
# ## Recap
#
# * A corpus becomes `{word symbols: count}`, each word ending in `</w>`.
# * Pair counts are weighted by word frequency; overlapping positions both count.
# * The best pair has the highest count; ties go to the lexicographically greatest pair, so
#   results never depend on reading order.
# * A merge joins every occurrence of the pair, left to right, without overlaps — and changes
#   the counts of the pairs around it, so the next step must recount.
#
# ## Exercises
#
# Replace the starter code in each cell and run it; the checker tests your answer on hidden
# cases and tells you the first one that fails.
#
# **2.1** Write `count_pairs(words)` yourself (without looking above!).

# %%
from bpe_course.exercises.ch02 import FIRST_MERGE_CORPUS, check_count_pairs, check_first_merge, check_merge_pair


def my_count_pairs(words):
    counts = Counter()
    for word in words:  # starter: counts each word once, ignoring how often it occurs
        for pair in zip(word, word[1:]):
            counts[pair] += 1
    return counts


check_count_pairs(my_count_pairs)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_count_pairs(words):
#     counts = Counter()
#     for word, n in words.items():
#         for pair in zip(word, word[1:]):
#             counts[pair] += n
#     return counts
# ```
# </details>
#
# **2.2** Write `merge_pair(symbols, pair)`. Joining the symbols into a string and using
# `str.replace` is tempting — the checker has a case for that.

# %%
def my_merge_pair(symbols, pair):
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split())  # starter: the tempting shortcut


check_merge_pair(my_merge_pair)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_merge_pair(symbols, pair):
#     out, i = [], 0
#     while i < len(symbols):
#         if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
#             out.append(symbols[i] + symbols[i + 1])
#             i += 2
#         else:
#             out.append(symbols[i])
#             i += 1
#     return tuple(out)
# ```
# </details>
#
# **2.3** Without running BPE: which pair is merged first on this corpus? Answer a tuple.

# %%
print(FIRST_MERGE_CORPUS)
check_first_merge(("h", "u"))  # starter guess: replace with your answer

# %% [markdown]
# <details><summary>Solution</summary>
#
# `hug`×3, `pug`×2, `pun`×4, `bun`×2: the pairs `(p, u)`, `(u, n)` and `(n, </w>)` each occur
# 6 times, more than any other. The tie goes to the greatest pair, `("u", "n")`
# (`"u" > "p" > "n"`).
# </details>
#
# [← 01 Characters and words](01_characters_and_words.ipynb) · [03 The training loop →](03_training_loop.ipynb)
