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
#   against `bpe_course.wordbpe.WordBPE`;
# * train the classic toy corpora and look at what really comes out — including runs that stop
#   long before the vocabulary size you asked for, and figures in tutorials that the code does
#   not reproduce;
# * build a **merge-count slider** that re-tokenizes a text live as you allow more merges.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
VOCAB_SIZE = 600  # for the tokenizer trained on CORPUS (bigger = slower: a few seconds for 600 on python_docs)
SAMPLE = "The tokenizer splits unfamiliar words such as unlowered into pieces it has seen before."

# %%
from collections import Counter

import pandas as pd
from IPython.display import Markdown, display

from bpe_course import corpus, wordbpe
from bpe_course.wordbpe import WordBPE, apply_merge, count_pairs, word_counts

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
# vocabulary of 1,000 — far more than this corpus can give — to see where it stops.

# %%
TOY = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
vocab, merges, trace, stop = train(TOY, vocab_size=1000)
merges_table = pd.DataFrame(trace, columns=["step", "pair", "count", "new symbol"])
merges_table

# %%
n_base = len(vocab) - len(SPECIALS) - len(merges)
final_words = word_counts(TOY)
for pair in merges:
    final_words = apply_merge(final_words, pair)
left = count_pairs(final_words)
if left:
    why = (f"{len(left)} different pairs remain, but the most frequent occurs only {max(left.values())} time(s): "
           "a merge would make a token used once, memorising the corpus rather than finding a reusable piece.")
else:
    why = ("every word is now a single token (" + ", ".join(f"`{w[0]}`" for w in final_words) +
           "), so there are no pairs left to count at all.")
display(Markdown(
    f"Training stopped: **{stop}**. The vocabulary has **{len(vocab)}** tokens = {len(SPECIALS)} specials "
    f"+ {n_base} base symbols ({n_base - 1} characters and `</w>`) + {len(merges)} merges. "
    f"It asked for 1,000, but after merge {len(merges)} {why}"))

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


print(check_against_package(TOY, 1000))
print(check_against_package(TOY, 20))

# %% [markdown]
# ## "the cat sat on the mat", and a vocabulary that never arrives
#
# A toy demo of this kind typically trains on a sentence or two repeated a few times, asks for
# a small vocabulary (`ADVERTISED_VOCAB` below), and announces the number of merges as
# "vocabulary size minus base symbols". Here is what the code really does.

# %%
CAT = "the cat sat on the mat. the dog sat on the log. " * 5
ADVERTISED_VOCAB = 40
cat = WordBPE.train(CAT, ADVERTISED_VOCAB, trace=True)
cat_base = len(cat.vocab) - len(cat.merges)
print(f"base symbols: {len(SPECIALS)} specials + {len(cat.alphabet)} characters + '</w>' = {cat_base}")
print(f"asked for {ADVERTISED_VOCAB} tokens, i.e. {ADVERTISED_VOCAB - cat_base} merges")
print(f"got {len(cat.vocab)} tokens from {len(cat.merges)} merges; stop reason: {cat.stop_reason}")
print("the corpus now tokenizes as:", " · ".join(cat.tokenize("the cat sat on the mat. the dog sat on the log.")))

# %%
cat_words = word_counts(CAT)
for pair in cat.merges:
    cat_words = apply_merge(cat_words, pair)
assert all(len(word) == 1 for word in cat_words) and not count_pairs(cat_words)
display(Markdown(
    f"The corpus has only {len(cat_words)} distinct words. After {len(cat.merges)} merges each of them is a "
    "single token, so there are no pairs left at all — training cannot reach "
    f"{ADVERTISED_VOCAB} however long it runs. A figure of {ADVERTISED_VOCAB - cat_base} merges is "
    "arithmetic, not an output."))

# %% [markdown]
# ### Why different write-ups print different figures
#
# Published figures for runs like this depend on conventions that are rarely stated.
# Below, one flexible trainer varies them one at a time:
#
# * **specials**: are the 4 special tokens counted in the vocabulary size?
# * **end of word**: `</w>` as a symbol of its own (ours), glued to the last character
#   (`t</w>` is one base symbol, as in `subword-nmt`, the tool released with Sennrich et al.'s
#   paper), or no marker at all;
# * **stop rule**: stop when the best pair occurs fewer than 2 times (ours), or keep merging
#   pairs seen once;
# * **ties**: the greatest pair (ours), the first pair counted (`max(pairs, key=pairs.get)`),
#   or the smallest pair.
#
# Each is run on the repeated corpus above and on a single copy of it.

# %%
def words_with_marker(text: str, end_of_word: str) -> dict:
    counts = Counter(text.split())
    if end_of_word == "separate":
        return {(*word, "</w>"): n for word, n in counts.items()}
    if end_of_word == "glued":
        return {(*word[:-1], word[-1] + "</w>"): n for word, n in counts.items()}
    return {tuple(word): n for word, n in counts.items()}


def choose(pairs: Counter, tie: str):
    if tie == "greatest":
        return max(pairs, key=lambda p: (pairs[p], p))
    if tie == "first counted":
        return max(pairs, key=pairs.get)
    return min(pairs, key=lambda p: (-pairs[p], p))  # "smallest"


def train_variant(text: str, vocab_size: int, specials: bool = True, end_of_word: str = "separate",
                  min_count: int = 2, tie: str = "greatest"):
    """Returns (base size, merges): the same loop with one convention changed."""
    words = words_with_marker(text, end_of_word)
    base = len(SPECIALS) * specials + len({s for word in words for s in word})
    merges = []
    while base + len(merges) < vocab_size:
        pairs = count_pairs(words)
        if not pairs:
            break
        best = choose(pairs, tie)
        if pairs[best] < min_count:
            break
        merges.append(best)
        words = apply_merge(words, best)
    return base, merges


VARIANTS = {
    "ours (see the first choice of each bullet)": {},
    "specials not counted": {"specials": False},
    "</w> glued to the last character": {"end_of_word": "glued"},
    "no end-of-word marker": {"end_of_word": "none"},
    "merge pairs seen once too": {"min_count": 1},
    "ties: first counted": {"tie": "first counted"},
    "ties: smallest": {"tie": "smallest"},
}
ONE_COPY = CAT[: len(CAT) // 5]
rows = []
for name, change in VARIANTS.items():
    row = {"convention": name}
    for label, text in [("×5", CAT), ("×1", ONE_COPY)]:
        base, learned = train_variant(text, ADVERTISED_VOCAB, **change)
        row |= {f"{label} base": base, f"{label} merges": len(learned), f"{label} vocab": base + len(learned)}
    rows.append(row)
conventions = pd.DataFrame(rows).set_index("convention")
assert tuple(conventions.iloc[0][["×5 base", "×5 merges", "×5 vocab"]]) == (cat_base, len(cat.merges), len(cat.vocab))
# shown as "base + merges = vocab" for the repeated corpus and for one copy of it
pd.DataFrame({
    f"{label}: base + merges = vocab": [f"{r[label + ' base']} + {r[label + ' merges']} = {r[label + ' vocab']}"
                                        for _, r in conventions.iterrows()]
    for label in ["×5", "×1"]}, index=conventions.index)

# %%
def changed_by(column: str) -> list[str]:
    """The conventions whose value in this column differs from ours (the first row)."""
    values = conventions[column]
    return [name for name in VARIANTS if values[name] != values.iloc[0]]


def describe(column: str) -> str:
    return ", ".join(changed_by(column)) or "none"


ties_matter = any(name.startswith("ties") for column in conventions.columns for name in changed_by(column))
display(Markdown(
    f"On the repeated corpus the number of **merges** changes only with: {describe('×5 merges')}; the "
    f"**vocabulary size** changes with: {describe('×5 vocab')}. On a single copy, where many pairs occur "
    f"just once, the stop rule matters too — the merges change with: {describe('×1 merges')}. The tie rule "
    f"{'changes some of these counts' if ties_matter else 'changes none of these counts here'} "
    "(it does change *which* merges are learned — see `unlowered` below). So before comparing a figure "
    "with a write-up, ask what it counts (specials? `</w>`?), how it marks word ends, when it stops, "
    "and how it breaks ties."))

# %% [markdown]
# ## What does `unlowered` become?
#
# A common claim about the toy corpus is that BPE "generalises" to unseen words, with an example
# like `unlowered` → `un · low · er · ed</w>`. Let us tokenize it with what we trained:

# %%
toy = WordBPE.train(TOY, 1000)
print("unlowered ->", " · ".join(toy.tokenize("unlowered")))
print("is 'u' a known character?", "u" in toy.alphabet)
print("tokens containing 'u':", [t for t in toy.vocab.values() if "u" in t and t not in SPECIALS])
print("training words ending in 'ed':", [w for w in set(TOY.split()) if w.endswith("ed")])

# %% [markdown]
# Neither `un` nor `ed</w>` can appear, and the reason is structural, not bad luck:
#
# * a token exists only if a merge created it, and a merge is learned only for a pair that
#   occurs (at least twice) in the **training** text. No training word contains `u` — it is not
#   even in the alphabet, so the package maps it to `<|unk|>` (a write-up that passes unknown
#   characters through would print `u` there) — and no training word ends in `ed`;
# * encoding never invents symbols: it only replays learned merges.
#
# The middle of the word depends on the tie rule, because the merges do. With each rule from
# the table above (and the package's `<|unk|>` for `u`):

# %%
alphabet = sorted(set("".join(TOY.split())))
tie_rows = []
for tie in ["greatest", "first counted", "smallest"]:
    _, learned = train_variant(TOY, 1000, tie=tie)
    tokenizer = WordBPE.from_merges(learned, alphabet)
    tie_rows.append({"tie rule": tie, "first 3 merges": learned[:3],
                     "unlowered": " · ".join(tokenizer.tokenize("unlowered"))})
tie_table = pd.DataFrame(tie_rows).set_index("tie rule")
tie_table

# %%
claimed_middle = "low · er"
assert all(row.startswith("<|unk|> · n · ") and row.endswith(" · e · d · </w>") for row in tie_table["unlowered"])
rules = [rule for rule, row in tie_table.iterrows() if claimed_middle in row["unlowered"]]
display(Markdown(
    f"The claimed middle `{claimed_middle}` comes out only with the tie rule(s): {', '.join(rules) or 'none'}; "
    "ours gives `" + tie_table.loc["greatest", "unlowered"] + "`. In every case the word starts with an "
    "unknown `u` and a lone `n`, and ends in `e · d · </w>`."))

# %% [markdown]
# Trained on real text, where many words start with *un* and end in *ed*, the picture changes —
# the same algorithm, different data:

# %%
train_text, heldout_text = corpus.train_heldout(CORPUS)
bpe = WordBPE.train(train_text, VOCAB_SIZE, trace=True)
print(bpe, "| stop reason:", bpe.stop_reason)
real_tokens = bpe.tokenize("unlowered")
print("unlowered ->", " · ".join(real_tokens))
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
# Every merge with its count and the new symbol — the first 15 and the last 5 of the run on `CORPUS`:

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
# merges of a longer run, so `bpe.truncated(k)` is the tokenizer you would have trained with
# `k` merges. The slider below picks `k`; the text is re-tokenized live, one coloured chip per
# token (hover for the id), with the vocabulary size and tokens per word beside it. Edit the
# text box to try your own sentence.

# %%
from bpe_course.widgets.merges import MergeSlider

slider = MergeSlider(bpe, SAMPLE, merges=len(bpe.merges) // 10)
slider

# %% [markdown]
# Driven from Python: at 0 merges every character is a token; the numbers come from the same
# function the stats line uses, and the chips always equal `bpe.truncated(k).tokenize(...)`.

# %%
rows = []
for k in [0, 10, 50, 100, 300, len(bpe.merges)]:
    slider.slider.value = k
    tokens, _ = slider.tokens_at(k)
    assert tokens == bpe.truncated(k).tokenize(SAMPLE)
    rows.append({"merges": k, **slider.stats_at(k), "unlowered": " · ".join(bpe.truncated(k).tokenize("unlowered"))})
assert all(len(t) == 1 or t == "</w>" for t in slider.tokens_at(0)[0])
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
                                       check_learn_merges, check_stop)

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
# [← 02 Counting pairs](02_counting_pairs.ipynb) · [04 Encoding and decoding →](04_encoding_decoding.ipynb)
