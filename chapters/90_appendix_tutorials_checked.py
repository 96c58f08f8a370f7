# %% [markdown]
# # 90 · What the tutorials claim, checked on their own text
#
# [← 03 The training loop](03_training_loop.ipynb) · [00 Start here](00_start_here.ipynb)
#
# Blog posts and tutorials about BPE print figures: a vocabulary size, a number of merges, the
# first merges, an encoded sentence, how an unseen word splits. This course was designed from five
# such write-ups. This appendix checks each of them the way chapter 03 checks its own trainer: on
# **the write-up's own text**, with **its own algorithm** re-implemented here from its description
# (no code is copied), so that a difference is the write-up's and not ours. Where a finding depends
# on a convention (the tie rule, how `</w>` is counted, the special tokens), we say so and try the
# alternatives. Every figure below is computed in this notebook; the write-ups' printed figures
# appear as quoted constants (`PRINTED`, `CLAIMED`) in the code. You need chapters 02–04 and 07–09
# for all of it; each section says which chapter it leans on. The five, by their number in the
# course's collection and by their own titles, so you can find them:

# %%
import json
import re
from collections import Counter, deque
from functools import lru_cache

import pandas as pd
import regex
from IPython.display import Markdown, display

import bpe_course
from bpe_course import corpus, named_file
from bpe_course.algorithms import SPECIALS, apply_merge, count_pairs, wordbpe

# %%
write_ups = pd.DataFrame({
    "title": [
        "Build a BPE tokenizer (tiny-llm, step 02)",
        "Train your own tokens (The loss curve, chapter 3)",
        "BPE Tokenization From Scratch: The Algorithm That Decides How LLMs See Text",
        "Build-Your-Own-LM: Part 2 - BPE Tokenizer",
        "Create The Byte-Pair Encoding (BPE) Tokenizer From Scratch"],
    "what it builds": [
        "a BPETokenizer class in about ninety lines, with four special tokens",
        "a course chapter: BPE in JavaScript, then a Python script that saves the merges",
        '"BPE in 40 lines": merges by a regular expression',
        "a blog post's tokenizer: a pre-tokenization regex, rank-based encoding",
        "a notebook re-implementing GPT-2's BPE, then loading OpenAI's files"],
    "its own text": [
        "four sentences about a cat and a dog, five times", "one line of seven words",
        "three lines (low, newer, learning, ...)", "not published: a stand-in",
        "an essay, not shipped: a stand-in; GPT-2's files"]},
    index=pd.Index(["000", "001", "002", "003", "004"], name="write-up"))
with pd.option_context("display.max_colwidth", None):  # titles whole, so a reader can search for them
    display(write_ups)

# %% [markdown]
# ## 000 · *Build a BPE tokenizer*: a class with four special tokens, "the cat sat on the mat"
#
# It trains on four short sentences repeated five times. Its recipe: the four special tokens
# first, then every character of the corpus and `</w>`, sorted; then merge the most frequent pair
# while the vocabulary is smaller than asked, taking the pair counted first when several tie
# (`Counter.most_common`), and stopping when the best pair occurs only once. It asks for a
# vocabulary of forty and prints its vocabulary size, its number of merges, its first eight merges
# and the ids of "the cat sat on a log" (quoted below as `A_PRINTED`).

# %%
TUTORIAL_A_CORPUS = """
    the cat sat on the mat
    the dog sat on the log
    the cat and the dog and the mat
    a dog and a cat and a log
    """ * 5
A_VOCAB_SIZE = 40  # what it asks for
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


a_vocab, a_merges = tutorial_a_train(TUTORIAL_A_CORPUS, A_VOCAB_SIZE)
a_ids = tutorial_a_encode(a_vocab, a_merges, A_SAMPLE)
a_base = len(a_vocab) - len(a_merges)
a_table = pd.DataFrame({"printed": A_PRINTED,
                        "its own code gives": {"vocab size": len(a_vocab), "merges": len(a_merges),
                                               "ids for the sample": len(a_ids)}})
a_table

# %% [hide-input]
first_diff = next(k for k, (x, y) in enumerate(zip(a_merges, A_PRINTED_FIRST_MERGES)) if x != y)
n_symbols = a_base - len(SPECIALS)
display(Markdown(
    f"The vocabulary starts with **{a_base}** entries ({len(SPECIALS)} specials + {n_symbols - 1} characters + "
    f"`</w>`) and training adds **{len(a_merges)}** merges: {a_base} + {len(a_merges)} = {len(a_vocab)}, not "
    f"{A_PRINTED['vocab size']}. The corpus has only a handful of distinct words, and after the last merge each is "
    f"a single token, so no pairs are left: training cannot reach {A_VOCAB_SIZE} however long it runs. The printed "
    f"{A_PRINTED['merges']} merges is not {A_VOCAB_SIZE} − {a_base} = {A_VOCAB_SIZE - a_base} either (the number of "
    f"merges a vocabulary of {A_VOCAB_SIZE} would need). The first {first_diff} printed merges come out; merge "
    f"{first_diff + 1} is `{a_merges[first_diff]}`, not the printed `{A_PRINTED_FIRST_MERGES[first_diff]}`. The "
    f"sample encodes to {len(a_ids)} ids, `{a_ids}`: one per word, because every word of the sample is a whole "
    "token by then."))

# %% [markdown]
# Does any convention rescue the printed figures? One flexible trainer, changing one convention at
# a time:
#
# * **specials**: are the four special tokens counted in the vocabulary size?
# * **end of word**: `</w>` as a symbol of its own, glued to the last character (`t</w>` is one
#   base symbol, as in `subword-nmt`, the tool released with Sennrich et al.'s paper), or no marker;
# * **stop rule**: stop when the best pair occurs only once, or keep merging pairs seen once too;
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


assert train_variant(TUTORIAL_A_CORPUS, A_VOCAB_SIZE)[1] == a_merges  # the defaults are the tutorial's conventions
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
        base, learned = train_variant(text, A_VOCAB_SIZE, **change)
        row |= {f"{label} base": base, f"{label} merges": len(learned), f"{label} vocab": base + len(learned)}
    row["merge 5 (×5)"] = str(train_variant(TUTORIAL_A_CORPUS, A_VOCAB_SIZE, **change)[1][4:5])
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


def rows_where(column: str, value) -> str:
    return ", ".join(conventions[conventions[column] == value].index) or "none of them"


ties_change_merges = any(name.startswith("ties") for name in changed_by("merge 5 (×5)"))
ties_change_counts = any(name.startswith("ties") for column in ["×5 merges", "×1 merges", "×5 vocab", "×1 vocab"]
                         for name in changed_by(column))
printed_fifth = str([A_PRINTED_FIRST_MERGES[4]])
needed = {name: A_VOCAB_SIZE - conventions.loc[name, "×5 base"] for name in VARIANTS}
display(Markdown(
    f"On the tutorial's corpus the number of **merges** changes only with: {describe('×5 merges')}; the "
    f"**vocabulary size** changes with: {describe('×5 vocab')}. The printed vocabulary of "
    f"{A_PRINTED['vocab size']} comes out with: {rows_where('×5 vocab', A_PRINTED['vocab size'])}; the printed "
    f"{A_PRINTED['merges']} merges with: {rows_where('×5 merges', A_PRINTED['merges'])}; and "
    f"{A_VOCAB_SIZE} minus the base is {A_PRINTED['merges']} under: "
    f"{', '.join(n for n, k in needed.items() if k == A_PRINTED['merges']) or 'none of them'} (it is "
    f"{', '.join(sorted({str(k) for k in needed.values()}))} across the table). The printed merge 5 comes out "
    f"with: {rows_where('merge 5 (×5)', printed_fifth)}. On a single copy of the four sentences the "
    f"merges change with: {describe('×1 merges')}"
    f"{' — the stop rule matters there' if 'merge pairs seen once too' in changed_by('×1 merges') else ''}. So the "
    f"printed {A_PRINTED['vocab size']} / {A_PRINTED['merges']} is not what this code gives under any one of "
    f"these conventions. The tie rule {'changes some' if ties_change_counts else 'changes none'} of these counts, "
    f"and {'does' if ties_change_merges else 'does not'} change merge 5; the order of the first merges below shows "
    "what it does decide. Before comparing a figure with a write-up, ask what it counts (specials? `</w>`?), how "
    "it marks word ends, when it stops, and how it breaks ties."))

# %%
pd.DataFrame({rule: [" ".join(a + b for a, b in train_variant(TUTORIAL_A_CORPUS, A_VOCAB_SIZE, tie=tie)[1][:8])]
              for rule, tie in [("first counted", "first counted"), ("greatest", "greatest"), ("smallest", "smallest")]},
             index=["first 8 merges, as the tokens they make"]).T

# %% [markdown]
# The same tutorial says BPE never produces an out-of-vocabulary token. Its own encoder maps a
# symbol it has not seen to `<|unk|>`:

# %%
zebra_ids = tutorial_a_encode(a_vocab, a_merges, "the zebra sat")
unk_id = a_vocab["<|unk|>"]
unseen = sorted(set("zebra") - set(TUTORIAL_A_CORPUS))
print("the zebra sat ->", zebra_ids, "| <|unk|> is id", unk_id, "| occurrences:", zebra_ids.count(unk_id))
print("letters of 'zebra' in the corpus:", sorted(set("zebra") & set(TUTORIAL_A_CORPUS)), "| never in it:", unseen)

# %% [hide-input]
display(Markdown(
    f"A *character*-level BPE is open-vocabulary only for the characters it was trained on: "
    f"{', '.join(f'`{c}`' for c in unseen)} never occur in its corpus, so each becomes `<|unk|>` "
    f"({zebra_ids.count(unk_id)} of the {len(zebra_ids)} ids). Chapter 07 shows the byte-level answer, where "
    f"all {len(bpe_course.bytes_to_unicode())} bytes are in the vocabulary from the start."))

# %% [markdown]
# It also says a typical BPE-tokenized English text has roughly four characters per token. On
# English prose with GPT-2's and GPT-4's tokenizers (chapters 09 and 10):

# %%
english = corpus.load_text("don_quixote")[200_000:400_000]
per_token = {name: len(english) / len(tok.encode(english))
             for name, tok in [("GPT-2", bpe_course.gpt2()), ("GPT-4 (cl100k)", bpe_course.cl100k())]}
print(f"don_quixote, {len(english):,} characters:",
      "; ".join(f"{name} {value:.2f} characters per token" for name, value in per_token.items()))

# %% [markdown]
# That one holds for English prose (chapter 13 shows how far other languages are from it).
#
# ## 001 · *Train your own tokens*, a course chapter: "works for newest and for Eastern"
#
# This one builds BPE in JavaScript in the browser, then has the learner save a Python version:
# words are the lower-cased whitespace-separated words, **one list per occurrence** (no counting of
# distinct words), **no end-of-word marker**, pairs counted with a `Counter` and the best taken with
# `most_common(1)` (ties: the pair counted first), and a fixed number of steps — stopping only when
# no pair is left at all. Its script trains on a single line of seven words, asking for twenty
# merges, and points at the unseen word *lowest*, which should come out as `low` + `est`.

# %%
TUTORIAL_001_TEXT = "low lower newest widest low lower newer"
TUTORIAL_001_STEPS = 20
CLAIMED_001 = {"lowest": "low · est"}


def tutorial_001_words(text: str) -> list[list[str]]:
    return [list(word) for word in text.lower().split()]


def tutorial_001_train(text: str, steps: int) -> list[tuple[tuple[str, str], int]]:
    """Its loop as described: (pair, count) for each step, until the steps or the pairs run out."""
    words, learned = tutorial_001_words(text), []
    for _ in range(steps):
        pairs = Counter(pair for word in words for pair in zip(word, word[1:]))
        if not pairs:
            break
        best, n = pairs.most_common(1)[0]
        learned.append((best, n))
        words = [list(wordbpe.merge_pair(word, best)) for word in words]
    return learned


def tutorial_001_encode(word: str, merges: list) -> str:
    """Apply the learned merges in order to one word (how the chapter encodes new text)."""
    symbols = tuple(word.lower())
    for pair in merges:
        symbols = wordbpe.merge_pair(symbols, pair)
    return " · ".join(symbols)


learned_001 = tutorial_001_train(TUTORIAL_001_TEXT, TUTORIAL_001_STEPS)
merges_001 = [pair for pair, _ in learned_001]
pd.DataFrame([(k, a + " + " + b, n) for k, ((a, b), n) in enumerate(learned_001, start=1)],
             columns=["step", "merge", "count"]).set_index("step").T

# %% [hide-input]
seen_once = [pair for pair, n in learned_001 if n == 1]
stop_at = next((k for k, (_, n) in enumerate(learned_001) if n < 2), len(learned_001))
whole_words = sorted({w for w in TUTORIAL_001_TEXT.split() if tutorial_001_encode(w, merges_001) == w
                      and tutorial_001_encode(w, merges_001[:stop_at]) != w})  # whole only thanks to them
display(Markdown(
    f"Asked for {TUTORIAL_001_STEPS} merges, it learns **{len(learned_001)}** (its script would report "
    f"that many saved): by then every word of the line is a single token, and no pair is left. With no stop "
    f"rule, the last **{len(seen_once)}** merges join pairs seen **once** — "
    f"{', '.join(f'`{a}+{b}`' for a, b in seen_once)} — so the tokenizer memorises "
    f"{', '.join(f'*{w}*' for w in whole_words)} whole. With chapter 03's stop rule (stop when the best pair "
    f"occurs only once) it would have stopped after {stop_at} merges."))

# %%
test_words = ["lowest", "newer", "newest", "eastern"]
pd.DataFrame({"claimed": CLAIMED_001 | {"eastern": "uses `est`"},
              "its own merges give": {w: tutorial_001_encode(w, merges_001) for w in test_words},
              "contains the letters e-s-t": {w: "est" in w for w in test_words}}).fillna("")

# %% [hide-input]
eastern = tutorial_001_encode("eastern", merges_001).split(" · ")
display(Markdown(
    f"The headline claim holds: *lowest* comes out as `{tutorial_001_encode('lowest', merges_001)}`, pieces "
    f"learned from *low* and from *newest*/*widest*. But the chapter adds that `est` works for *newest* and for "
    f"*Eastern*. *Eastern* lower-cased is *eastern*, whose letters are e-a-s-t-e-r-n: `est` is not in it at all "
    f"(`'est' in 'eastern'` is {'est' in 'eastern'}), and its own merges cut it into {len(eastern)} pieces, "
    f"`{' · '.join(eastern)}`. The point it wanted — a merge is blind to meaning, so an unrelated word can share a "
    "piece — is true, but needs a word that really contains the piece (*forest*, *honest*)."))

# %% [markdown]
# Its JavaScript demo also lists the corpus's "top adjacent pairs" and expects the winner to be
# something like `e + s` or `n + e`. The demo's corpus is not shown; on the Python script's own
# line, the counts before the first merge are:

# %%
first_counts = Counter(pair for word in tutorial_001_words(TUTORIAL_001_TEXT) for pair in zip(word, word[1:]))
pd.DataFrame([(a + " + " + b, n) for (a, b), n in first_counts.most_common(8)], columns=["pair", "count"]).T

# %% [hide-input]
(top_a, top_b), top_n = first_counts.most_common(1)[0]
tied = [f"{a} + {b}" for (a, b), n in first_counts.items() if n == top_n]
display(Markdown(
    f"On this line the winner is `{top_a} + {top_b}` ({top_n} times, tied with "
    f"{', '.join(f'`{t}`' for t in tied[1:])}: the pair counted first wins); `e + s` occurs "
    f"{first_counts[('e', 's')]} times and `n + e` {first_counts[('n', 'e')]}."))

# %% [markdown]
# ## 002 · *BPE Tokenization From Scratch*, "BPE in 40 lines": what becomes of `unlowered`?
#
# This write-up trains twenty-five merges on a three-line corpus (words like *low*, *newer*,
# *widest*, *learning*), each word spelled as characters plus `</w>`, ties going to the pair counted
# first. It merges a pair by joining the word's symbols with spaces and substituting with a regular
# expression, and claims that the unseen `unlowered` comes out as **`un · low · er · ed</w>`**, while
# `lower` and `lowest` give `low · er</w>` and `low · est</w>`, and that `low` becomes a single token.
# Re-implemented as described — including its substitution, whose look-arounds are written `(?<!S)`
# and `(?!S)`:

# %%
TUTORIAL_B_CORPUS = """low lower lowest new newer newest wide wider widest
low frequency low power low latency low rank adapter
learning machine learning deep learning representation learning"""
B_NUM_MERGES = 25
B_CLAIMS = {"low": "low</w>", "lower": "low · er</w>", "lowest": "low · est</w>",
            "unlowered": "un · low · er · ed</w>"}


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


as_written = tutorial_b_train(TUTORIAL_B_CORPUS, B_NUM_MERGES)
fixed = tutorial_b_train(TUTORIAL_B_CORPUS, B_NUM_MERGES, boundary=r"\S")
pd.DataFrame({"claimed": B_CLAIMS,
              "as written": {w: tokenize(w, as_written) for w in B_CLAIMS},
              r"with \S": {w: tokenize(w, fixed) for w in B_CLAIMS}})

# %% [hide-input]
b_words = sorted(set(TUTORIAL_B_CORPUS.split()))
u_words = [w for w in b_words if "u" in w]
un_words = [w for w in b_words if "un" in w]
ed_words = [w for w in b_words if w.endswith("ed")]
holds = [w for w in B_CLAIMS if w != "unlowered" and tokenize(w, as_written) == B_CLAIMS[w] == tokenize(w, fixed)]
display(Markdown(
    f"{', '.join(f'`{w}`' for w in holds)} split as claimed; `unlowered` does not, with either version. `u` is a "
    f"known character here ({', '.join(u_words)} contain{'s' if len(u_words) == 1 else ''} one), but "
    f"{'no training word has' if not un_words else 'only ' + ', '.join(un_words) + ' have'} `un`, and "
    f"{'none' if not ed_words else ', '.join(ed_words)} ends in `ed`: a merge is only ever learned for a pair "
    "the training text repeats. This finding does not depend on the tie rule: no rule can make `un` or "
    "`ed</w>` out of pairs the corpus never contains. Chapter 03 trains the same algorithm on real text, where "
    "*un* and *ed* are common."))

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
    "happens not to change the claimed words — it changes others. Chapter 03's exercise 3.4 asks you to fix it."))

# %% [markdown]
# ## 003 · *Build-Your-Own-LM: Part 2 - BPE Tokenizer*: a pre-tokenizer and rank-based encoding
#
# This post pre-tokenizes with a regular expression, appends `</w>` to each pre-token, trains until
# the vocabulary reaches its target (merges = target − base symbols, stopping only when no pair is
# left), encodes by applying the lowest-ranked learned pair first, and decodes by joining the
# tokens, turning every `</w>` into a space and stripping the ends. It describes its pattern as
# matching contractions, words, numbers, punctuation and whitespace; says pre-tokenization keeps
# `the.` or `dog,` from becoming one token; and its tests assert `decode(encode(text)) == text`,
# which it says holds for any text. Its training corpus is not published, so we use the first
# lines of the course's `python_docs` as a stand-in.
#
# First the pattern (chapter 08 counts its alternatives on all the course's corpora): which
# alternative makes each pre-token?

# %%
PATTERN_003 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""
ALTERNATIVES_003 = {"contraction": r"'s|'t|'re|'ve|'m|'ll|'d", "word": r" ?\w+", "number": r" ?\d+",
                    "punctuation": r" ?[^\s\w\d]+", "whitespace": r"\s+"}
named_003 = regex.compile("|".join(f"(?P<{name}>{alt})" for name, alt in ALTERNATIVES_003.items()))
examples_003 = "the dog, the cat. It's 2024: 3 dogs and 42 cats"
print([(m.group(), m.lastgroup) for m in named_003.finditer(examples_003)])
stand_in = "\n".join(corpus.load_text("python_docs").splitlines()[:1500])
made_by_003 = Counter(m.lastgroup for m in named_003.finditer(stand_in))
print(f"{len(stand_in):,} characters of python_docs:", dict(made_by_003))

# %% [hide-input]
display(Markdown(
    f"`the.` and `dog,` are indeed cut before the punctuation. But the number alternative made "
    f"{made_by_003['number']} of {sum(made_by_003.values()):,} pre-tokens: ` ?\\w+` comes first and `\\w` "
    "already includes digits, so numbers are matched as words (and glued to letters, as in `utf8`)."))

# %% [markdown]
# Training as the post describes, and its encoder applied to every distinct pre-token of the
# training text: does lowest-rank-first encoding give back the segmentation training ended with?

# %%
VOCAB_SIZE_003 = 300


def train_003(text: str, vocab_size: int):
    """Its loop: (words as symbol tuples after training, merges); merges = vocab_size - base symbols."""
    words = dict(Counter((*piece, "</w>") for piece in regex.findall(PATTERN_003, text)))
    base = len({s for word in words for s in word})
    merges = []
    for _ in range(vocab_size - base):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append(best)
        words = apply_merge(words, best)
    return words, merges, base


def encode_003(piece: str, rank: dict, known: set) -> tuple[str, ...]:
    """Lowest-ranked adjacent pair first (the leftmost if it occurs twice), until none is a merge;
    a character training never saw becomes ``<unk>``."""
    symbols = [ch if ch in known else "<unk>" for ch in piece] + ["</w>"]
    while len(symbols) > 1:
        best, at = min((rank.get((symbols[i], symbols[i + 1]), float("inf")), i) for i in range(len(symbols) - 1))
        if best == float("inf"):
            break
        symbols[at:at + 2] = [symbols[at] + symbols[at + 1]]
    return tuple(symbols)


trained_003, merges_003, base_003 = train_003(stand_in, VOCAB_SIZE_003)
rank_003 = {pair: k for k, pair in enumerate(merges_003)}
known_003 = set(stand_in)
same = sum(encode_003("".join(word)[: -len("</w>")], rank_003, known_003) == word for word in trained_003)
print(f"{base_003} base symbols + {len(merges_003)} merges = {base_003 + len(merges_003)}; "
      f"encoding by rank gives training's segmentation for {same:,} of {len(trained_003):,} distinct pre-tokens")

# %% [markdown]
# That part is sound: applying merges lowest rank first replays training (chapter 09 shows why).
# Decoding is where the claim fails. Its decoder cannot tell a `</w>` that stood before a space from
# one that stood before punctuation; whether the pattern's leading space is kept as a symbol or
# dropped is not shown, so we try both:

# %%
def decode_003(tokens: list[str]) -> str:
    return "".join(tokens).replace("</w>", " ").strip()


def round_trip_003(text: str, keep_space: bool) -> str:
    pieces = regex.findall(PATTERN_003, text)
    pieces = [p if keep_space else p.strip() for p in pieces if p.strip()]
    return decode_003([t for p in pieces for t in encode_003(p, rank_003, known_003)])


ROUND_TRIP_TEXTS = ["the list", "the list.", "Return the value, or None.", "x = f(y)", "a naïve café", "3 × 4 → 12"]
print("characters of these texts the stand-in never had:",
      sorted({ch for t in ROUND_TRIP_TEXTS for ch in t if ch not in known_003 and not ch.isspace()}))
pd.DataFrame([{"text": t, "leading space kept": round_trip_003(t, True), "leading space dropped":
               round_trip_003(t, False)} for t in ROUND_TRIP_TEXTS]).set_index("text")

# %% [hide-input]
survive = {keep: [t for t in ROUND_TRIP_TEXTS if round_trip_003(t, keep) == t] for keep in (True, False)}
display(Markdown(
    f"Of {len(ROUND_TRIP_TEXTS)} short texts, {len(survive[False])} "
    f"survive{'s' if len(survive[False]) == 1 else ''} the round trip with the space dropped "
    f"({', '.join(f'`{t}`' for t in survive[False]) or 'none'}) and {len(survive[True])} with it kept: every "
    "pre-token ends in `</w>`, and `</w>` decodes as a space, so a full stop or a comma gets a space before it; "
    "kept leading spaces double; and a character training never saw comes back as the `<unk>` the post "
    "reserves for it. A round-trip test passes only on text with one space between pre-tokens and no new "
    "characters."))

# %% [markdown]
# ## 004 · *Create The Byte-Pair Encoding (BPE) Tokenizer From Scratch*: GPT-2's BPE re-implemented, then OpenAI's files loaded
#
# The last write-up is a notebook. Its trainer writes every space (except a leading one) as `Ġ`, keeps
# newlines as they are, and works on the **whole text as one sequence**, with no pre-tokenizer. Its
# vocabulary starts with the 256 characters `chr(0)` … `chr(255)`, then every other character of the
# text in sorted order (`Ġ` among them), then `<|endoftext|>`; then it merges the most frequent pair
# (ties: the pair counted first) until the vocabulary has the size asked for, **with no stop rule**.
# Its encoder splits text on whitespace, writes `Ġ` before every word but the text's first, takes a
# word that is a token as it is, and otherwise merges any adjacent pair that is a learned merge in
# left-to-right passes — not in the order training learned them. It trains on an essay (not shipped with this course), asking for a vocabulary of a
# thousand, and prints:

# %%
PRINTED_004 = {"vocab size": 1000, "BPE merges": 739, "id of <|endoftext|>": 260,
               "characters in the sample sentence with <|endoftext|>": 79, "ids for it": 39}
SAMPLE_004 = "One of the first cares of the prince was to encourage agriculture.<|endoftext|>"
print(f"the sample sentence has {len(SAMPLE_004)} characters (printed: "
      f"{PRINTED_004['characters in the sample sentence with <|endoftext|>']}); its {PRINTED_004['ids for it']} ids "
      "come from merges learned on the essay, so they cannot be checked without it")
extra = PRINTED_004["id of <|endoftext|>"] - 256  # characters after chr(0)..chr(255) and before <|endoftext|>
base_004 = PRINTED_004["id of <|endoftext|>"] + 1
print(f"its printed figures imply: {extra} characters beyond chr(255) (Ġ among them), a base of {base_004}, "
      f"so {PRINTED_004['vocab size']} - {base_004} = {PRINTED_004['vocab size'] - base_004} merges")

# %% [hide-input]
display(Markdown(
    f"The printed figures are consistent with each other: `<|endoftext|>` at id "
    f"{PRINTED_004['id of <|endoftext|>']} means {extra} characters came after the first 256, so the vocabulary "
    f"starts with {base_004} entries and {PRINTED_004['vocab size']} − {base_004} = "
    f"{PRINTED_004['vocab size'] - base_004} merges fill it. The notebook's note that the "
    f"{PRINTED_004['BPE merges']} learned entries *include* `<|endoftext|>` and `Ġ` is the wrong way round: "
    f"both are among the {base_004} entries that exist before the first merge."))

# %% [markdown]
# Its trainer on a stand-in, a stretch of `don_quixote`:

# %%
def train_004(text: str, vocab_size: int, special: str = "<|endoftext|>"):
    """(vocab {id: token}, merges {pair of ids: new id}) as the notebook describes its training."""
    written = "".join("Ġ" if ch == " " and i else ch for i, ch in enumerate(text) if ch != " " or i)
    symbols = [chr(i) for i in range(256)]
    symbols += [ch for ch in sorted(set(written)) if ch not in symbols]
    if "Ġ" not in symbols:
        symbols.append("Ġ")
    vocab = dict(enumerate(symbols + [special]))
    ids_of = {token: i for i, token in vocab.items()}
    sequence, merges = [ids_of[ch] for ch in written], {}
    for new_id in range(len(vocab), vocab_size):
        pairs = Counter(zip(sequence, sequence[1:]))
        if not pairs:
            break
        best = max(pairs.items(), key=lambda item: item[1])[0]  # ties: the pair counted first
        sequence, rest = [], deque(sequence)
        while rest:
            current = rest.popleft()
            if rest and (current, rest[0]) == best:
                rest.popleft()
                current = new_id
            sequence.append(current)
        merges[best] = new_id
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
    return vocab, merges


stand_in_004 = corpus.load_text("don_quixote")[100_000:120_000]
VOCAB_SIZE_004 = 600
vocab_004, merges_004 = train_004(stand_in_004, VOCAB_SIZE_004)
learned_004 = [vocab_004[i] for i in merges_004.values()]
across = [t for t in learned_004 if "Ġ" in t[1:] or "\n" in t]
print(f"{len(stand_in_004):,} characters, vocab_size={VOCAB_SIZE_004}: vocab {len(vocab_004)}, "
      f"base {len(vocab_004) - len(merges_004)}, merges {len(merges_004)}")
print(f"{len(across)} of {len(learned_004)} learned tokens span a word boundary, e.g.", across[:6])

# %% [markdown]
# With no pre-tokenizer, training learns tokens that run across words (a space or a newline inside
# them). Its encoder cuts text at whitespace first, so it can never use them. Next, its encoder
# against the encoding its own merges define (lowest merge first, chapter 04), on every distinct word
# of the stand-in:

# %%
ids_004 = {token: i for i, token in vocab_004.items()}


def encode_word_004(word: str) -> tuple[int, ...]:
    """The notebook's encoder for one word: the word's own id if it is a token, else left-to-right passes
    merging any learned pair."""
    if word in ids_004:
        return (ids_004[word],)
    ids = [ids_004[ch] for ch in word]
    changed = True
    while changed and len(ids) > 1:
        changed, out, i = False, [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) in merges_004:
                out.append(merges_004[ids[i], ids[i + 1]])
                i, changed = i + 2, True
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return tuple(ids)


def encode_word_by_rank(word: str) -> tuple[int, ...]:
    """The same merges applied lowest new id (= earliest learned) first."""
    ids = [ids_004[ch] for ch in word]
    while len(ids) > 1:
        new, at = min((merges_004.get((ids[i], ids[i + 1]), float("inf")), i) for i in range(len(ids) - 1))
        if new == float("inf"):
            break
        ids[at:at + 2] = [new]
    return tuple(ids)


words_004 = sorted({("Ġ" if k else "") + w for line in stand_in_004.split("\n")
                    for k, w in enumerate(line.split()) if all(ch in ids_004 for ch in w)})
differ = [w for w in words_004 if encode_word_004(w) != encode_word_by_rank(w)]
print(f"{len(differ)} of {len(words_004):,} distinct words encode differently; for example:")
pd.DataFrame([{"word": w, "its encoder": " · ".join(vocab_004[i] for i in encode_word_004(w)),
               "merges in training order": " · ".join(vocab_004[i] for i in encode_word_by_rank(w))}
              for w in differ[:6]])

# %% [hide-input]
longer = sum(len(encode_word_004(w)) > len(encode_word_by_rank(w)) for w in differ)
display(Markdown(
    f"The notebook calls its encoder an approximation, and it is one: {len(differ)} of the {len(words_004):,} "
    f"distinct words of the stand-in get another segmentation than the merges define ({longer} of them more "
    "tokens). A pass merges whichever learned pair it meets first from the left, so a late merge can take a "
    "symbol an earlier merge needed."))

# %% [markdown]
# ### Its loader for GPT-2's files
#
# The notebook then loads GPT-2's `encoder.json` and `vocab.bpe`. Its loader finds no `"\n"` key and
# makes the newline an alias of an existing token, `<|endoftext|>` first, so that a newline and the
# end of a document share one id: chapter 09 re-implements that loader on the real file and shows what
# it does to `Hello\nworld` and to a real end-of-text, so it is not repeated here. What is specific to
# this write-up is its encoder: the whitespace split above (a newline is a token of its own), with
# ranks from `vocab.bpe`. Re-implemented on the real files, and checked on its own printed sample:

# %%
json_table = json.loads(named_file("gpt2", "encoder.json").read_text(encoding="utf-8"))
id_of = dict(json_table)  # token as written -> id
if "\n" not in id_of:  # the loader's alias (chapter 09): a newline gets an existing token's id
    id_of["\n"] = id_of[next(t for t in ["<|endoftext|>", "Ġ", ""] if t in id_of)]
merge_lines = named_file("gpt2", "vocab.bpe").read_text(encoding="utf-8").splitlines()[1:]
rank_of = {tuple(line.split()): k for k, line in enumerate(line for line in merge_lines if line.strip())}


@lru_cache(maxsize=None)
def gpt2_word_004(word: str) -> tuple[int, ...]:
    """One whitespace-separated word: merge every occurrence of the lowest-ranked pair until none is left."""
    if missing := [ch for ch in word if ch not in id_of]:
        raise ValueError(f"characters not in its table: {missing}")  # as the notebook's encoder does
    symbols = list(word)
    while len(symbols) > 1:
        pair = min(zip(symbols, symbols[1:]), key=lambda p: rank_of.get(p, float("inf")))
        if pair not in rank_of:
            break
        symbols = list(wordbpe.merge_pair(tuple(symbols), pair))
    return tuple(id_of[s] for s in symbols)


def encode_004(text: str) -> list[int]:
    ids = []
    for k, line in enumerate(text.split("\n")):
        if k:
            ids.append(id_of["\n"])
        for j, word in enumerate(line.split()):
            piece = word if k == 0 and j == 0 else "Ġ" + word
            ids += [id_of[piece]] if piece in id_of else gpt2_word_004(piece)
    return ids


gpt2 = bpe_course.gpt2()  # tiktoken's ids (chapter 09 checks them)
PRINTED_SAMPLE_004 = "This is a text sample."
print(f"{PRINTED_SAMPLE_004!r}: its ids {encode_004(PRINTED_SAMPLE_004)}, GPT-2's "
      f"{gpt2.encode(PRINTED_SAMPLE_004)}: the same: {encode_004(PRINTED_SAMPLE_004) == gpt2.encode(PRINTED_SAMPLE_004)}")
print(f"a newline's id in its table: {id_of[chr(10)]}, <|endoftext|>'s: {id_of['<|endoftext|>']} (chapter 09 shows why "
      "that matters)")

# %% [markdown]
# Beyond those two texts: its encoder against GPT-2's, line by line, on the first lines of
# `python_docs` (non-empty lines; its whitespace split also drops runs of spaces and tabs):

# %%
def outcome_004(line: str) -> str:
    try:
        return "GPT-2's ids" if encode_004(line) == gpt2.encode(line) else "other ids"
    except ValueError:
        return "an error: a character not in its table"


doc_lines = [line for line in corpus.load_text("python_docs").splitlines()[:3000] if line.strip()]
outcomes_004 = [(line, outcome_004(line)) for line in doc_lines]
print(f"{len(doc_lines):,} lines:", dict(Counter(result for _, result in outcomes_004)))
other_004 = [line for line, result in outcomes_004 if result == "other ids"]
spaced = [line for line in other_004 if line[:1].isspace() or "  " in line.strip()]
print(f"of the {len(other_004):,} with other ids, {len(spaced):,} start with whitespace or hold two spaces in a row;"
      " the others:", [line for line in other_004 if line not in spaced][:3])
missing_004 = Counter(ch for line, result in outcomes_004 if result.startswith("an error")
                      for ch in line if ch not in id_of and not ch.isspace())
print("characters its table lacks, most frequent first:", [ch for ch, _ in missing_004.most_common(6)])

# %% [hide-input]
byte_of = {char: b for b, char in bpe_course.bytes_to_unicode().items()}
odd = next((ch for line in other_004 if line not in spaced for ch in line if ord(ch) > 127 and ch in byte_of), None)
odd_sentence = "" if odd is None else (
    f" A character such as `{odd}` is subtler: it is a key, because GPT-2's alphabet uses it to *stand for* the "
    f"single byte {byte_of[odd]:#04x}, while the text's `{odd}` is the UTF-8 bytes "
    f"{' '.join(f'{b:02x}' for b in odd.encode())}; the looked-up token decodes as "
    f"{gpt2.decode([id_of[odd]])!r} — a silent wrong answer.")
display(Markdown(
    f"Its whitespace split is the main difference: {len(spaced):,} of the {len(other_004):,} lines with other ids "
    "lose their indentation or a run of spaces, which GPT-2's ids keep." + odd_sentence + " And characters such as "
    f"{', '.join(f'`{ch}`' for ch, _ in missing_004.most_common(3))} are not keys of `encoder.json` at all (GPT-2 "
    "writes their UTF-8 bytes), so its encoder stops with an error where GPT-2 encodes them."))

# %% [markdown]
# ## Vocabulary sizes the write-ups quote
#
# Write-up 000 says GPT-2 had about fifty thousand tokens, 002 that GPT-4o uses about a hundred
# thousand, and 004 gives GPT-2's and GPT-4o's exact counts (quoted below). The package loads all
# three of OpenAI's tokenizers offline (chapters 09 and 10):

# %%
QUOTED_SIZES = {"GPT-2 (004)": 50_257, "GPT-4o (004)": 199_997, "GPT-4o (002, about)": 100_000}
sizes = []
for name, tok in [("GPT-2 (gpt2)", bpe_course.gpt2()), ("GPT-4 (cl100k_base)", bpe_course.cl100k()),
                  ("GPT-4o (o200k_base)", bpe_course.o200k())]:
    ordinary = [i for i in tok.vocab if i not in tok.special_tokens.values()]
    sizes.append({"tokenizer": name, "ordinary tokens": len(ordinary), "largest ordinary id": max(ordinary),
                  "special tokens": len(tok.special_tokens), "ids up to": max(tok.vocab)})
sizes = pd.DataFrame(sizes).set_index("tokenizer")
print("quoted:", QUOTED_SIZES)
sizes

# %% [hide-input]
o200k_row, gpt2_row = sizes.loc["GPT-4o (o200k_base)"], sizes.loc["GPT-2 (gpt2)"]
display(Markdown(
    f"GPT-2's {QUOTED_SIZES['GPT-2 (004)']:,} is right when its one special token is counted: "
    f"{gpt2_row['ordinary tokens']:,} + {gpt2_row['special tokens']} = "
    f"{gpt2_row['ordinary tokens'] + gpt2_row['special tokens']:,}. GPT-4o's "
    f"{QUOTED_SIZES['GPT-4o (004)']:,} is its **largest ordinary id** "
    f"({o200k_row['largest ordinary id']:,}), one less than the number of ordinary tokens "
    f"({o200k_row['ordinary tokens']:,}, ids from 0); with its {o200k_row['special tokens']} special tokens the "
    f"ids run up to {o200k_row['ids up to']:,}. About a hundred thousand is GPT-4's `cl100k_base` "
    f"({sizes.loc['GPT-4 (cl100k_base)', 'ordinary tokens']:,} ordinary tokens), not GPT-4o's."))

# %% [markdown]
# ## What to take from this
#
# * Every write-up's central idea held: count, merge, repeat; apply merges in order; a new word is
#   cut into learned pieces.
# * What failed were figures and side claims typed rather than printed: a merge count that is
#   arithmetic, a vocabulary a toy corpus cannot reach, a word said to contain a piece it does not, a
#   round trip that holds only for tidy text, an id counted as a size, a loader that makes a newline
#   and the end of a document one token.
# * Most differences come from conventions the text does not state — whether specials count, how a
#   word's end is marked, when training stops, how ties break, what the pre-tokenizer does. Before
#   comparing your figure with someone's, pin those down; then print, do not type, what you got.
#
# [← 03 The training loop](03_training_loop.ipynb) · [00 Start here](00_start_here.ipynb)
