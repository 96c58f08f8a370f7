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
# ## What write-ups claim, checked on their own text
#
# Blog posts and tutorials about BPE print figures: a vocabulary size, a number of merges, the
# first merges, an encoded sentence, how an unseen word splits. Four write-ups this course was
# designed from are checked here (and in chapters 08 and 09, where their other claims belong),
# each on **its own corpus**, with **its own algorithm** re-implemented from its description. Where
# a finding depends on a convention (the tie rule, how `</w>` is counted, the special tokens), we
# say so and test the alternatives.
#
# ### A. A 90-line tutorial: "the cat sat on the mat"
#
# The first trains a `BPETokenizer` class on four short sentences repeated five times. Its recipe:
# the four special tokens first, then every character of the corpus and `</w>`, sorted; then merge
# the most frequent pair while the vocabulary is smaller than asked, taking the pair counted first
# when several tie (`Counter.most_common`), and stopping when the best pair occurs only once. It asks
# for a vocabulary of 40 and prints **vocab size 40, 22 merges**, eight first merges, and a 13-id
# encoding of "the cat sat on a log".

# %%
TUTORIAL_A_CORPUS = """
    the cat sat on the mat
    the dog sat on the log
    the cat and the dog and the mat
    a dog and a cat and a log
    """ * 5
A_PRINTED = {"vocab size": 40, "merges": 22, "ids for the sample": 13}
A_PRINTED_FIRST_MERGES = [("t", "h"), ("th", "e"), ("the", "</w>"), ("a", "t"),
                          ("a", "n"), ("an", "d"), ("and", "</w>"), ("o", "g")]
A_SAMPLE = "the cat sat on a log"


def tutorial_a_train(text: str, vocab_size: int):
    """The tutorial's training, as it describes it: returns (vocab {token: id}, merges)."""
    words = Counter(tuple(raw) + ("</w>",) for line in text.splitlines() for raw in line.split())
    vocab = {token: i for i, token in enumerate(SPECIALS)}
    for symbol in sorted({s for word in words for s in word}):
        vocab.setdefault(symbol, len(vocab))
    merges = []
    while len(vocab) < vocab_size:
        pairs = Counter(count_pairs(words))  # counted word by word: ties go to the pair counted first
        if not pairs:
            break
        best, n = pairs.most_common(1)[0]
        if n < 2:
            break
        vocab[best[0] + best[1]] = len(vocab)
        merges.append(best)
        words = apply_merge(words, best)
    return vocab, merges


def tutorial_a_encode(vocab: dict, merges: list, text: str) -> list[int]:
    """Each word's characters plus `</w>`, every merge applied in order; unknown symbols -> <|unk|>."""
    ids = []
    for word in text.split():
        symbols = (*word, "</w>")
        for pair in merges:
            symbols = wordbpe.merge_pair(symbols, pair)
        ids += [vocab.get(symbol, vocab["<|unk|>"]) for symbol in symbols]
    return ids


a_vocab, a_merges = tutorial_a_train(TUTORIAL_A_CORPUS, 40)
a_ids = tutorial_a_encode(a_vocab, a_merges, A_SAMPLE)
a_table = pd.DataFrame({"printed": A_PRINTED,
                        "its own code gives": {"vocab size": len(a_vocab), "merges": len(a_merges),
                                               "ids for the sample": len(a_ids)}})
a_table

# %% [hide-input]
first_diff = next(k for k, (x, y) in enumerate(zip(a_merges, A_PRINTED_FIRST_MERGES)) if x != y)
display(Markdown(
    f"The first {first_diff} printed merges come out; merge {first_diff + 1} is "
    f"`{a_merges[first_diff]}`, not the printed `{A_PRINTED_FIRST_MERGES[first_diff]}`. The sample encodes to "
    f"{len(a_ids)} ids, `{a_ids}`: one per word, because every word of the sample is a whole token by then."))

# %% [markdown]
# Why 35 and not 40: the corpus has only a handful of distinct words, and after the last merge each of
# them is a single token, so there are no pairs left — training cannot reach 40 however long it
# runs. "22 merges" is 40 minus the base symbols, arithmetic rather than an output. Does any
# convention rescue the printed figures? One flexible trainer, changing one convention at a time:
#
# * **specials**: are the 4 special tokens counted in the vocabulary size?
# * **end of word**: `</w>` as a symbol of its own, glued to the last character (`t</w>` is one
#   base symbol, as in `subword-nmt`, the tool released with Sennrich et al.'s paper), or no marker;
# * **stop rule**: stop when the best pair occurs fewer than 2 times, or keep merging pairs seen once;
# * **ties**: the pair counted first (the tutorial's), the greatest pair (this course's), or the
#   smallest pair.
#
# Each is run on the tutorial's corpus and on a single copy of its four sentences.

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
                  min_count: int = 2, tie: str = "first counted"):
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


assert train_variant(TUTORIAL_A_CORPUS, 40)[1] == a_merges  # the defaults are the tutorial's conventions
VARIANTS = {
    "the tutorial's (first choice of each bullet, ties: first counted)": {},
    "specials not counted": {"specials": False},
    "</w> glued to the last character": {"end_of_word": "glued"},
    "no end-of-word marker": {"end_of_word": "none"},
    "merge pairs seen once too": {"min_count": 1},
    "ties: greatest (this course)": {"tie": "greatest"},
    "ties: smallest": {"tie": "smallest"},
}
ONE_COPY = TUTORIAL_A_CORPUS[: len(TUTORIAL_A_CORPUS) // 5]
rows = []
for name, change in VARIANTS.items():
    row = {"convention": name}
    for label, text in [("×5", TUTORIAL_A_CORPUS), ("×1", ONE_COPY)]:
        base, learned = train_variant(text, 40, **change)
        row |= {f"{label} base": base, f"{label} merges": len(learned), f"{label} vocab": base + len(learned)}
    row["merge 5 (×5)"] = str(train_variant(TUTORIAL_A_CORPUS, 40, **change)[1][4:5])
    rows.append(row)
conventions = pd.DataFrame(rows).set_index("convention")
# shown as "base + merges = vocab" for the repeated corpus and for one copy of it
pd.DataFrame({
    **{f"{label}: base + merges = vocab": [f"{r[label + ' base']} + {r[label + ' merges']} = {r[label + ' vocab']}"
                                           for _, r in conventions.iterrows()] for label in ["×5", "×1"]},
    "merge 5 (×5)": list(conventions["merge 5 (×5)"])}, index=conventions.index)

# %% [hide-input]
def changed_by(column: str) -> list[str]:
    """The conventions whose value in this column differs from the tutorial's (the first row)."""
    values = conventions[column]
    return [name for name in VARIANTS if values[name] != values.iloc[0]]


def describe(column: str) -> str:
    return ", ".join(changed_by(column)) or "none"


printed_vocab = conventions[conventions["×5 vocab"] == A_PRINTED["vocab size"]].index.tolist()
ties_change_merges = any(name.startswith("ties") for name in changed_by("merge 5 (×5)"))
ties_change_counts = any(name.startswith("ties") for column in ["×5 merges", "×1 merges", "×5 vocab", "×1 vocab"]
                         for name in changed_by(column))
printed_fifth = str([A_PRINTED_FIRST_MERGES[4]])
fifth_rules = conventions[conventions["merge 5 (×5)"] == printed_fifth].index.tolist()
display(Markdown(
    f"On the tutorial's corpus the number of **merges** changes only with: {describe('×5 merges')}; the "
    f"**vocabulary size** changes with: {describe('×5 vocab')}. The printed vocabulary of "
    f"{A_PRINTED['vocab size']} comes out with: {', '.join(printed_vocab) or 'none of them'}; the printed "
    f"merge 5 with: {', '.join(fifth_rules) or 'none of them'}. On a single copy of the four sentences the "
    f"merges change with: {describe('×1 merges')}"
    f"{' — the stop rule matters there' if 'merge pairs seen once too' in changed_by('×1 merges') else ''}. So the "
    f"printed {A_PRINTED['vocab size']} / {A_PRINTED['merges']} is not what this code gives under any one of "
    f"these conventions. The tie rule {'changes some' if ties_change_counts else 'changes none'} of these counts, "
    f"and {'does' if ties_change_merges else 'does not'} change merge 5; the order of the first merges below shows "
    "what it does decide. Before comparing a figure with a write-up, ask what it counts (specials? `</w>`?), how "
    "it marks word ends, when it stops, and how it breaks ties."))

# %%
pd.DataFrame({rule: [" ".join(a + b for a, b in train_variant(TUTORIAL_A_CORPUS, 40, tie=tie)[1][:8])]
              for rule, tie in [("first counted", "first counted"), ("greatest", "greatest"), ("smallest", "smallest")]},
             index=["first 8 merges, as the tokens they make"]).T

# %% [markdown]
# The same tutorial also says BPE "never produces an out-of-vocabulary token". Its own encoder maps a
# symbol it has not seen to `<|unk|>` (id 3):

# %%
zebra_ids = tutorial_a_encode(a_vocab, a_merges, "the zebra sat")
print("the zebra sat ->", zebra_ids, "| <|unk|> is id", a_vocab["<|unk|>"], "| occurrences:", zebra_ids.count(3))

# %% [markdown]
# A *character*-level BPE can only be open-vocabulary for characters it was trained on: `z`, `e`,
# `b` and `r` never occur in its corpus. Chapter 05 shows the byte-level answer, where all 256 bytes
# are in the vocabulary from the start.
#
# ### B. "BPE in 40 lines": what becomes of `unlowered`?
#
# The second write-up trains 25 merges on a three-line corpus (words like *low*, *newer*,
# *widest*, *learning*), each word spelled as characters plus `</w>`, ties going to the pair counted
# first. It merges a pair by joining the word's symbols with spaces and substituting with a regular
# expression, and claims that the unseen `unlowered` comes out as **`un · low · er · ed</w>`**, while
# `lower` and `lowest` give `low · er</w>` and `low · est</w>`. Re-implemented as described —
# including its substitution, whose look-arounds are written `(?<!S)` and `(?!S)`:

# %%
import re

TUTORIAL_B_CORPUS = """low lower lowest new newer newest wide wider widest
low frequency low power low latency low rank adapter
learning machine learning deep learning representation learning"""
B_CLAIMS = {"lower": "low · er</w>", "lowest": "low · est</w>", "unlowered": "un · low · er · ed</w>"}


def substitute(words: dict, pair: tuple, boundary: str) -> dict:
    """Merge ``pair`` by regex on the space-joined symbols, with the given look-around for a symbol edge."""
    pattern = re.compile(rf"(?<!{boundary})" + re.escape(" ".join(pair)) + rf"(?!{boundary})")
    return {tuple(pattern.sub("".join(pair), " ".join(word)).split()): n for word, n in words.items()}


def tutorial_b_train(text: str, num_merges: int, boundary: str = "S"):
    words = dict(Counter((*word, "</w>") for word in text.split()))
    merges = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)  # ties: the pair counted first
        words = substitute(words, best, boundary)
        merges.append(best)
    return merges


def tokenize(word: str, merges: list) -> str:
    symbols = (*word, "</w>")
    for pair in merges:
        symbols = wordbpe.merge_pair(symbols, pair)
    return " · ".join(symbols)


as_written = tutorial_b_train(TUTORIAL_B_CORPUS, 25)
fixed = tutorial_b_train(TUTORIAL_B_CORPUS, 25, boundary=r"\S")
pd.DataFrame({"claimed": B_CLAIMS,
              "as written": {w: tokenize(w, as_written) for w in B_CLAIMS},
              r"with \S": {w: tokenize(w, fixed) for w in B_CLAIMS}})

# %% [hide-input]
b_words = sorted(set(TUTORIAL_B_CORPUS.split()))
u_words = [w for w in b_words if "u" in w]
un_words = [w for w in b_words if "un" in w]
ed_words = [w for w in b_words if w.endswith("ed")]
display(Markdown(
    f"`lower` and `lowest` split as claimed; `unlowered` does not, with either version. `u` is a known "
    f"character here ({', '.join(u_words)} contain{'s' if len(u_words) == 1 else ''} one), but "
    f"{'no training word has' if not un_words else 'only ' + ', '.join(un_words) + ' have'} `un`, and "
    f"{'none' if not ed_words else ', '.join(ed_words)} ends in `ed`: a merge is only ever learned for a pair "
    "the training text repeats. This finding does not depend on the tie rule: no rule can make `un` or "
    "`ed</w>` out of pairs the corpus never contains."))

# %% [markdown]
# The look-arounds are the write-up's bug: `(?<!S)` means "not after a capital S", where
# `(?<!\S)` ("not after a non-space", i.e. at the start of a symbol) was meant. Without the
# backslash a pair can match across a symbol boundary. Where does that change a word?

# %%
words, diverged = dict(Counter((*word, "</w>") for word in TUTORIAL_B_CORPUS.split())), []
for step, pair in enumerate(as_written, start=1):
    wrong_words, right_words = substitute(words, pair, "S"), substitute(words, pair, r"\S")
    diverged += [(step, pair, " ".join(a), " ".join(b)) for a, b in zip(wrong_words, right_words) if a != b]
    words = wrong_words
pd.DataFrame(diverged, columns=["merge", "pair", "as written", r"with \S"])

# %% [hide-input]
first_fixed_diff = next(k for k, (x, y) in enumerate(zip(as_written, fixed), start=1) if x != y)
display(Markdown(
    f"At merge {diverged[0][0]} the pair `{diverged[0][1]}` is merged inside `{diverged[0][2]}`, where its "
    f"first symbol is only the end of a longer one; the word's symbols are then wrong for every later step, "
    f"and the two versions learn different merges from merge {first_fixed_diff} on. On this corpus the bug "
    "happens not to change the four claimed words — it changes others."))

# %% [markdown]
# Two more write-ups make claims about things chapters 08 and 09 teach: a pre-tokenization regex
# with an alternative that can never match (chapter 08), and a GPT-2 file loader that turns every
# newline into `<|endoftext|>` (chapter 09). Each is checked there.
#
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
# **3.4 Find the bug.** Write-up B merges a pair with a regular expression on the space-joined
# symbols. Here is its merge step for one word, bug included. Fix it so that it only ever merges two
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
