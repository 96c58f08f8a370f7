# %% [markdown]
# # 11 · Making training fast
#
# [← 10 GPT-4's cl100k](10_gpt4_cl100k.ipynb) · [12 Train your own →](12_train_your_own.ipynb)
#
# The training loop of chapter 03 recounts every pair of the corpus after every merge. That is
# easy to trust and fine for a page of text, but GPT-2 and GPT-4 learned tens of thousands of
# merges (chapters 09 and 10 counted them), for models trained on gigabytes of text. This chapter climbs a ladder of four faster trainers, each a short teaching
# version you can read in one go:
#
# 1. **naive**: recount every pair over the whole token sequence after each merge;
# 2. **unique words**: count each distinct pre-token once, weighted by how often it occurs;
# 3. **incremental**: keep the pair counts, update only the words that contain the merged pair
#    (found through an index), and find the best pair with a heap;
# 4. **parallel pre-tokenization**: cut the text at safe places and pre-tokenize the pieces in
#    several processes.
#
# An optional appendix, [training at scale](91_appendix_training_at_scale.ipynb), goes further:
# many machines, and a fifth rung for text with many distinct words.
#
# Every rung must learn **exactly the same merges** as `bpe_course.train_bpe(..., method="naive")`,
# ties included; we check each one. Then we time them all against corpus size on a log-log plot,
# next to Hugging Face's `tokenizers` (written in Rust) and the package's own fast trainer.

# %% [markdown]
# Point the chapter at your own text here: a built-in corpus name or the path of a UTF-8 file.
# The sizes are in characters; sizes larger than your text are skipped.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
N_MERGES = 200  # merges learned in every run
CHECK_SIZE = 12_500  # characters used to check each rung against the reference
SIZES = [6_250, 12_500, 25_000, 50_000, 100_000, 200_000, 400_000]  # corpus sizes to time
MAX_SIZE = {"1 naive": 25_000, "2 unique words": 50_000}  # the slow rungs stop early

# %%
import gc
import heapq
import json
import math
import multiprocessing
import os
import time
from collections import Counter, defaultdict

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from bpe_course import (GPT2_PATTERN, PARALLEL_MIN_CHARS, corpus, pretokenize, safe_cut, str_to_token, token_to_str,
                        train_bpe)

PATTERN = GPT2_PATTERN  # train_bpe's default pre-tokenization, and the one HF's ByteLevel uses
text = corpus.load_text(CORPUS)
SIZES = [n for n in SIZES if n <= len(text)] or [len(text)]
check_text = text[:CHECK_SIZE]
corpus_label = CORPUS if CORPUS in corpus.names() else "your text"  # never print a file's full path
print(f"{corpus_label}: {len(text):,} characters; timing sizes {SIZES}; checks on the first {len(check_text):,}")

# %% [markdown]
# The reference every rung must match, and three small helpers that all rungs share: a pre-token
# as a tuple of one-byte tokens, merging a pair inside one word, and the tie rule (highest count,
# then the lexicographically greatest pair).

# %%
reference = train_bpe(check_text, 256 + N_MERGES, method="naive")[1]
print(f"reference: {len(reference)} merges, the first five {reference[:5]}")


def as_tokens(piece: str) -> tuple[bytes, ...]:
    """A pre-token as a tuple of one-byte tokens."""
    return tuple(bytes([b]) for b in piece.encode("utf-8"))


def merge_pair(word: tuple[bytes, ...], pair: tuple[bytes, bytes]) -> tuple[bytes, ...]:
    """Join every occurrence of ``pair`` in ``word``, left to right, without overlaps."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def best_pair(counts: Counter) -> tuple[bytes, bytes]:
    """The highest count wins; on a tie, the greatest pair (as Python compares tuples of bytes)."""
    return max(counts, key=lambda pair: (counts[pair], pair))

# %% [markdown]
# ## Rung 1: recount everything, every time
#
# The corpus is one long sequence of pre-tokens, every occurrence kept. Each merge counts every
# adjacent pair in the whole sequence, picks the best, and rewrites the whole sequence. Pairs never
# cross a pre-token boundary, so the sequence is kept as a list of pre-tokens.

# %%
def train_rung1(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    sequence = [as_tokens(piece) for piece in pretokenize(text, PATTERN)]
    merges = []
    for _ in range(n_merges):
        counts = Counter()
        for word in sequence:
            counts.update(zip(word, word[1:]))
        if not counts:
            break
        pair = best_pair(counts)
        merges.append(pair)
        sequence = [merge_pair(word, pair) for word in sequence]
    return merges


print("rung 1 merges == naive:", train_rung1(check_text, N_MERGES) == reference)

# %% [markdown]
# Every merge reads the whole corpus, so the time grows like (corpus size) × (number of merges).
#
# ## Rung 2: count each distinct word once
#
# Natural text repeats itself: the same pre-tokens (` the`, ` of`, `.`) occur again and again.
# BPE's counts only depend on *which* pre-tokens occur and *how often*, so we count them once and
# weight each word's pairs by its frequency. How much smaller is the work?

# %%
def pretoken_stats(text: str, sizes: list[int]) -> pd.DataFrame:
    """Total and distinct pre-tokens in the first ``size`` characters, for each size."""
    rows = []
    for size in sizes:
        pieces = pretokenize(text[:size], PATTERN)
        rows.append({"characters": size, "pre-tokens": len(pieces), "distinct": len(set(pieces))})
    stats = pd.DataFrame(rows).set_index("characters")
    stats["distinct / total"] = (stats["distinct"] / stats["pre-tokens"]).round(3)
    return stats


stats = pretoken_stats(text, SIZES)
stats

# %% [hide-input]
growth = stats["distinct"].iloc[-1] / stats["distinct"].iloc[0]
text_growth = stats.index[-1] / stats.index[0]
display(Markdown(f"From {stats.index[0]:,} to {stats.index[-1]:,} characters the text grows "
                 f"{text_growth:.0f}×, " + ("but " if growth < text_growth / 2 else "and ")
                 + f"the number of distinct pre-tokens grows {growth:.1f}×."))

# %%
def count_words(text: str) -> Counter:
    """``{pre-token as a tuple of one-byte tokens: how often it occurs}``."""
    # subtle: counting the strings first and converting only the distinct ones is much cheaper.
    return Counter({as_tokens(piece): freq for piece, freq in Counter(pretokenize(text, PATTERN)).items()})


def train_rung2(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    words = count_words(text)
    merges = []
    for _ in range(n_merges):
        counts = Counter()
        for word, freq in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += freq
        if not counts:
            break
        pair = best_pair(counts)
        merges.append(pair)
        words = {merge_pair(word, pair): freq for word, freq in words.items()}
    return merges


print("rung 2 merges == naive:", train_rung2(check_text, N_MERGES) == reference)

# %% [markdown]
# (This is what the package's `method="naive"` does too.) Each merge still touches every distinct
# word, although one merge changes only the few words that contain the pair.
#
# ## Rung 3: update only what changed
#
# Three ideas:
#
# * **Keep the pair counts** between merges. When a word containing the merged pair changes, its
#   old pairs lose the word's frequency and its new pairs gain it; nothing else changes.
# * **An index** `where[pair]` from each pair to the words that contain it, so we find those words
#   without scanning. (It may list a word that has since lost the pair; merging it changes nothing.)
# * **A heap** to find the best pair without scanning all counts. Python's `heapq` pops the
#   *smallest* entry, so an entry is `(-count, pair wrapped so that greater pairs come first)`.
#   Counts change all the time; instead of finding and deleting old entries, we push a new entry
#   whenever a count changes and, when an entry is popped, skip it if its count is no longer the
#   pair's current count (**lazy deletion**).

# %%
class Greatest:
    """Wraps a pair so that heapq, which pops the smallest item, pops the greatest pair first."""

    __slots__ = ("pair",)

    def __init__(self, pair: tuple[bytes, bytes]) -> None:
        self.pair = pair

    def __lt__(self, other: "Greatest") -> bool:
        return self.pair > other.pair


def index_words(word_counts: Counter) -> tuple[list, list, Counter, defaultdict]:
    """The words, their frequencies, every pair's count, and the index from each pair to its words."""
    words = [tuple(word) for word in word_counts]
    freqs = list(word_counts.values())
    counts = Counter()
    where = defaultdict(set)
    for i, word in enumerate(words):
        for pair in zip(word, word[1:]):
            counts[pair] += freqs[i]
            where[pair].add(i)
    return words, freqs, counts, where


def merge_in_words(pair, words: list, freqs: list, counts: Counter, where: defaultdict) -> set:
    """Merge ``pair`` in the words that hold it, keeping counts and index up to date; return the pairs whose count changed."""
    changed = set()
    for i in where.pop(pair):
        old, new = words[i], merge_pair(words[i], pair)
        if new == old:
            continue
        for p in zip(old, old[1:]):
            counts[p] -= freqs[i]
            changed.add(p)
        for p in zip(new, new[1:]):
            counts[p] += freqs[i]
            changed.add(p)
            where[p].add(i)
        words[i] = new
    return changed


def learn_incremental(word_counts: Counter, n_merges: int) -> tuple[list, int, int]:
    """Merges learned from ``{word as tuple of tokens: frequency}``; also the stale heap entries skipped, and the pushes."""
    words, freqs, counts, where = index_words(word_counts)
    heap = [(-count, Greatest(pair)) for pair, count in counts.items()]
    heapq.heapify(heap)
    merges, stale, pushes = [], 0, 0
    while heap and len(merges) < n_merges:
        neg_count, item = heapq.heappop(heap)
        pair = item.pair
        if counts[pair] != -neg_count:
            stale += 1  # an old entry: this pair's count has changed since it was pushed
            continue
        merges.append(pair)
        for p in merge_in_words(pair, words, freqs, counts, where):
            if counts[p] > 0:
                heapq.heappush(heap, (-counts[p], Greatest(p)))
                pushes += 1
    return merges, stale, pushes


def train_rung3(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    return learn_incremental(count_words(text), n_merges)[0]


merges3, stale, _ = learn_incremental(count_words(check_text), N_MERGES)
print("rung 3 merges == naive:", merges3 == reference)
print(f"stale heap entries skipped on the way: {stale:,}")

# %% [markdown]
# Now the cost of a merge depends on how many words contain the pair, not on the size of the
# corpus. What is left that grows with the corpus is reading it once: pre-tokenizing and counting.
#
# ## Rung 4: pre-tokenize in parallel
#
# Pre-tokenizing is independent work on each part of the text, so several processes can share it —
# if we cut the text only where the cut cannot change any pre-token. Cutting inside a word
# obviously can; so can cutting inside a run of spaces:

# %%
def pretokens_after_cut(text: str, i: int) -> list[str]:
    return pretokenize(text[:i], PATTERN) + pretokenize(text[i:], PATTERN)


for sample, i in (("the cat", 5), ("a   b", 2), ("one two", 3)):
    whole, cut = pretokenize(sample, PATTERN), pretokens_after_cut(sample, i)
    print(f"{sample!r} cut before position {i} ({sample[:i]!r} | {sample[i:]!r}): "
          f"{cut} vs {whole} -> {'same' if cut == whole else 'DIFFERENT'}")

# %% [markdown]
# The last cut is the safe kind: **just before a single space that has a non-space on both
# sides.** Why is that always safe for GPT-2's (and GPT-4's) regex?
#
# * Nothing that starts to the left can swallow that space: letters, digits and punctuation runs
#   stop at whitespace, and a run of whitespace cannot start at a non-space character.
# * Whatever starts at the space (here `' two'`) is decided by the text to its right only; the
#   regex never looks behind.
#
# The package's `bpe_course.pretokenize.safe_cut(text, pattern, limit=i)` finds the last such
# place at or before `i` (and also handles special tokens). We cut the text into one piece per
# worker and check that the pieces' pre-tokens are the text's pre-tokens:

# %%
def split_safely(text: str, n_pieces: int) -> list[str]:
    """Cut ``text`` into about ``n_pieces`` equal pieces, only at safe places."""
    pieces, start = [], 0
    for k in range(1, n_pieces):
        cut = safe_cut(text, PATTERN, limit=len(text) * k // n_pieces)
        if cut > start:
            pieces.append(text[start:cut])
            start = cut
    pieces.append(text[start:])
    return pieces


pieces = split_safely(check_text, 4)
print("piece lengths:", [len(p) for p in pieces])
print("pre-tokens unchanged by the cuts:",
      [tok for p in pieces for tok in pretokenize(p, PATTERN)] == pretokenize(check_text, PATTERN))

# %% [markdown]
# Each worker process counts the pre-tokens of its piece; the parent adds the counters, turns the
# distinct pre-tokens into tuples of one-byte tokens and runs rung 3's learning.
# We use the `fork` start method, where a worker starts as a copy of this notebook's process and
# so knows the functions defined here. Where `fork` is missing (Windows) the code falls back to
# counting the pieces one after the other.

# %%
WORKERS = min(4, os.cpu_count() or 1)
FORK = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def count_pretokens(piece: str) -> Counter:
    """What one worker does: count the pre-tokens of its piece of text."""
    return Counter(pretokenize(piece, PATTERN))


def train_rung4(text: str, n_merges: int, workers: int = WORKERS) -> list[tuple[bytes, bytes]]:
    pieces = split_safely(text, workers)
    if FORK is not None and workers > 1:
        with FORK.Pool(workers) as pool:
            parts = pool.map(count_pretokens, pieces)
    else:
        parts = [count_pretokens(piece) for piece in pieces]
    pretoken_counts = Counter()
    for part in parts:
        pretoken_counts.update(part)
    word_counts = Counter({as_tokens(piece): freq for piece, freq in pretoken_counts.items()})
    return learn_incremental(word_counts, n_merges)[0]


print(f"workers: {WORKERS}")
print("rung 4 merges == naive:", train_rung4(check_text, N_MERGES) == reference)

# %% [markdown]
# ## Beside them: the package and Hugging Face
#
# The package's `train_bpe(..., method="fast")` is built on the ideas of rungs 3 and 4, tuned
# further: it counts each distinct stretch of text between spaces once (`bpe_course/fast/count.py`), keeps
# every word as a string with one character per token so that finding and merging a pair are `str.find`
# and `str.replace` (`bpe_course/fast/merge.py`), and shares big inputs out to worker processes
# (`bpe_course/fast/parallel.py`). Hugging Face's `tokenizers` trains in Rust;
# we give it the same pre-tokenization (its `ByteLevel` pre-tokenizer uses GPT-2's regex) and the
# same 256-byte alphabet, and read its merges back as bytes.

# %%
def train_package(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    return train_bpe(text, 256 + n_merges, method="fast")[1]


def train_hf_model(text: str, n_merges: int) -> HFTokenizer:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=256 + n_merges, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([text], trainer=trainer)
    return tok


def hf_merges(tok: HFTokenizer) -> list[tuple[bytes, bytes]]:
    merges = json.loads(tok.to_str())["model"]["merges"]
    # subtle: tokenizers writes a merge as "a b" (older versions) or ["a", "b"] (newer ones),
    # each part in GPT-2's printable byte alphabet (chapter 07).
    return [tuple(str_to_token(s) for s in (m.split(" ") if isinstance(m, str) else m)) for m in merges]


def train_hf(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    return hf_merges(train_hf_model(text, n_merges))


print("package (fast) merges == naive:", train_package(check_text, N_MERGES) == reference)

# %% [markdown]
# ## The race
#
# Each trainer learns `N_MERGES` merges from the first *n* characters of the corpus, for each size
# (rungs 1 and 2 stop early; they are slow). Each time is the fastest of up to three runs, the
# least disturbed by whatever else the machine is doing (a run that uses up `best_time`'s time budget
# is not repeated, so the slowest times are single runs). Before each trainer and size we call
# `gc.collect()`: Python's cycle collector now and then goes through every object in the process, and
# such a pass, set off by what earlier runs left behind, could otherwise land inside one run and make
# it look slow ([the appendix](91_appendix_training_at_scale.ipynb) looks at this collector).
# Hugging Face goes last, because its Rust thread pool should not be running when rung 4 forks
# worker processes. Your timings will differ from run to run and machine to machine, which is why
# the next cells' stored outputs are not compared.
#
# A fastest-of-three time per trainer and size is enough to see how time grows with size. It is not
# enough to say which of two close trainers is faster: the next run could swap them. So the two
# comparisons this chapter draws a conclusion from, rung 4 against rung 3 and the package against
# Hugging Face, are also timed *in turn*: `ROUNDS` rounds on the largest size, the two trainers one
# after the other in each, the one that goes first swapped from round to round, counting the rounds
# each was faster in. Only a clean sweep names the faster one. If the two were equally fast, each round
# would be a coin toss, and one of them would be faster in every round only 2 × ½<sup>`ROUNDS`</sup> of
# the time. That is a *sign test*. The swapping keeps that chance: even if going first (or second)
# helped, it would help each trainer in some rounds and hurt it in others, and the chance of a sweep
# between two otherwise equally fast trainers stays at most that figure, however large the help. The test is
# strict: a trainer faster in most rounds but not all is not called faster, though it may well be.

# %%
TRAINERS = {"1 naive": train_rung1, "2 unique words": train_rung2, "3 incremental": train_rung3,
            "4 parallel": train_rung4, "package (fast)": train_package, "HF tokenizers": train_hf}


def best_time(train, text: str, n_merges: int, repeats: int = 3, budget: float = 0.25) -> float:
    """The fastest of up to ``repeats`` runs (fewer once ``budget`` seconds are spent): the least noisy."""
    times: list[float] = []
    while len(times) < repeats and sum(times) < budget:
        started = time.perf_counter()
        train(text, n_merges)
        times.append(time.perf_counter() - started)
    return min(times)


def time_trainers(text: str, sizes: list[int], n_merges: int) -> pd.DataFrame:
    """Seconds taken by each trainer at each size (NaN where a trainer is not run)."""
    seconds = pd.DataFrame(index=pd.Index(sizes, name="characters"), columns=list(TRAINERS), dtype=float)
    for name, train in TRAINERS.items():
        for size in sizes:
            if size <= MAX_SIZE.get(name, math.inf):
                gc.collect()  # a fresh start: no collector pass owed to earlier runs
                seconds.loc[size, name] = best_time(train, text[:size], n_merges)
    return seconds


ROUNDS = 7  # rounds in which two trainers are timed one after the other


def in_turn(a, b, text: str, n_merges: int, rounds: int = ROUNDS) -> list[tuple[float, float]]:
    """``(seconds of a, seconds of b)`` in each of ``rounds`` rounds, the two timed one after the other,
    ``a`` first in even rounds and ``b`` first in odd ones."""
    times = []
    for r in range(rounds):
        taken = {}
        for train in ((a, b) if r % 2 == 0 else (b, a)):
            gc.collect()
            started = time.perf_counter()
            train(text, n_merges)
            taken[train] = time.perf_counter() - started
        times.append((taken[a], taken[b]))
    return times


rung4_and_rung3 = in_turn(train_rung4, train_rung3, text[:SIZES[-1]], N_MERGES)  # before HF's threads exist
seconds = time_trainers(text, SIZES, N_MERGES)
package_and_hf = in_turn(train_package, train_hf, text[:SIZES[-1]], N_MERGES)

# %%
# NBVAL_IGNORE_OUTPUT
seconds.round(3)

# %%
# NBVAL_IGNORE_OUTPUT
def plot_times(seconds: pd.DataFrame):
    """Log-log plot of training time against corpus size, one line per trainer."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for name in seconds.columns:
        column = seconds[name].dropna()
        ax.loglog(column.index, column.values, marker="o", label=name)
    ax.set_xlabel("corpus size (characters)")
    ax.set_ylabel("training time (seconds)")
    ax.set_title(f"Time to learn {N_MERGES} merges against corpus size (log-log)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


plot_times(seconds);

# %% [markdown]
# On a log-log plot, time ∝ size<sup>k</sup> is a straight line of slope *k*: slope 1 means
# doubling the corpus doubles the time. We fit the slope of each line (least squares on the logs):

# %%
# NBVAL_IGNORE_OUTPUT
def fitted_slopes(seconds: pd.DataFrame) -> pd.Series:
    slopes = {}
    for name in seconds.columns:
        column = seconds[name].dropna()
        if len(column) >= 2:
            slopes[name] = np.polyfit(np.log(column.index.to_numpy(float)), np.log(column.to_numpy(float)), 1)[0]
    return pd.Series(slopes, name="slope")


slopes = fitted_slopes(seconds)
slopes.round(2).to_frame()

# %% [hide-input]
# NBVAL_IGNORE_OUTPUT
largest = seconds.index.max()
both_small = seconds.index[seconds[["1 naive", "3 incremental"]].notna().all(axis=1)]
speedup = (seconds["1 naive"] / seconds["3 incremental"]).loc[both_small].max() if len(both_small) else math.nan
rung2_sizes = seconds["2 unique words"].dropna().index  # the distinct pre-tokens' slope over the sizes rung 2 ran
distinct_slope = np.polyfit(np.log(rung2_sizes.to_numpy(float)),
                            np.log(stats.loc[rung2_sizes, "distinct"].to_numpy(float)), 1)[0] if len(rung2_sizes) > 1 else 0
slope_line = ("* With your text too short for two timing sizes, there are no slopes to compare.\n"
              if not {"1 naive", "2 unique words"} <= set(slopes.index) else
              f"* Rung 1's time grows like size^{slopes['1 naive']:.2f} and rung 2's like "
              f"size^{slopes['2 unique words']:.2f}. Rung 2 does its merging once per distinct pre-token, "
              f"whose number grows like size^{distinct_slope:.2f} at those sizes, after one pass over all "
              "the text to count them.\n")


def sweep(rounds: list[tuple[float, float]], a: str, b: str) -> tuple[str, str]:
    """What rounds timed in turn support: who was faster in every round (or "neither"), and the sentence."""
    a_faster = sum(ta < tb for ta, tb in rounds)
    ratios = sorted(ta / tb for ta, tb in rounds)
    spread = f"{a}'s time was {ratios[0]:.2f}–{ratios[-1]:.2f}× {b}'s"
    if a_faster in (0, len(rounds)):
        winner = a if a_faster else b
        return winner, f"{winner} was faster in all {len(rounds)} rounds ({spread})"
    return "neither", (f"{a} was faster in {a_faster} of {len(rounds)} rounds and {b} in the others ({spread}): "
                       "no clean sweep, so we do not call either one faster on this machine")


winner_34, rungs_line = sweep(rung4_and_rung3, "rung 4", "rung 3")
_, package_line = sweep(package_and_hf, "the package", "Hugging Face")
display(Markdown(
    slope_line
    + f"* Rung 1 took up to {speedup:.0f}× as long as rung 3 at the sizes both ran.\n"
    f"* Rungs 3 and 4 timed in turn, {ROUNDS} rounds at {largest:,} characters: {rungs_line}. What rung 4 "
    "adds is starting a pool of processes and sending their counters back"
    + ("; at this size that is not paid back. " if winner_34 == "rung 3" else ". ")
    + "(The package's trainer starts each worker with a bare `os.fork` and reads its counts back through a "
    f"pipe, which costs far less than starting a pool, and shares out texts of {PARALLEL_MIN_CHARS:,} "
    "characters or more.)\n"
    f"* The package and Hugging Face, timed the same way: {package_line}.\n"
    f"* Were two trainers equally fast, one of them would be faster in all {ROUNDS} rounds by chance "
    f"{2 * 0.5 ** ROUNDS:.1%} of the time; with the two comparisons above, the chance that at least one "
    f"sweeps by chance is {1 - (1 - 2 * 0.5 ** ROUNDS) ** 2:.1%}."))

# %% [markdown]
# For larger corpora and more merges than a notebook should wait for, the repository has a
# benchmark that runs the package's trainer and encoder side by side with the alternatives:
# run `python -m benchmarks` (or `make bench`) from the repository's root. Hugging Face ran here as
# installed, with its thread pool. The benchmark also times it run serially
# (`TOKENIZERS_PARALLELISM=false`), which on 1-2 MB of text was often the faster of the two
# (the repository's `docs/benchmarks.md`, round 3's second pass).
#
# ## How Hugging Face's merges compare
#
# Are HF's merges the same as ours? Compare the lists on the check text:

# %%
hf_model = train_hf_model(check_text, N_MERGES)
theirs_all = hf_merges(hf_model)
first_difference = next((k for k, (a, b) in enumerate(zip(reference, theirs_all)) if a != b), None)
print(f"HF learned {len(theirs_all)} merges; {len(set(theirs_all) & set(reference))} of them are also among ours")
print("first merge where the lists differ:", first_difference)

# %% [markdown]
# The lists agree at the start, then part ways. To see why, count the pairs after the merges both
# made, and look at the two choices at the first difference:

# %%
def pair_counts_after(text: str, merges: list[tuple[bytes, bytes]]) -> Counter:
    """Pair counts of ``text`` after applying ``merges`` (rung 2's counting)."""
    words = count_words(text)
    for pair in merges:
        words = Counter({merge_pair(word, pair): freq for word, freq in words.items()})
    counts = Counter()
    for word, freq in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts


if first_difference is None:
    print("no difference in the first", len(reference), "merges")
else:
    k = first_difference
    counts_k = pair_counts_after(check_text, reference[:k])
    ours, theirs = reference[k], theirs_all[k]
    top = counts_k.most_common(1)[0][1]
    tied = sorted((p for p, c in counts_k.items() if c == top), reverse=True)
    print(f"merge {k}: ours {ours} occurs {counts_k[ours]} times; HF's {theirs} occurs {counts_k[theirs]} times")
    print("a tie:", counts_k[ours] == counts_k[theirs] == top)
    hf_ids = hf_model.get_vocab()
    print(f"all pairs with the top count {top}, greatest first, with HF's ids for their two parts:")
    for pair in tied:
        print(f"  {pair!r:<24} HF ids {tuple(hf_ids[token_to_str(t)] for t in pair)}")
    smallest_ids = min(tied, key=lambda pair: tuple(hf_ids[token_to_str(t)] for t in pair))
    print("ours is the greatest pair of bytes:", ours == tied[0])
    print("HF's is the pair with the smallest ids:", theirs == smallest_ids)

# %% [markdown]
# Both trainers pick a pair with the highest count; they differ in how they break a tie. Ours takes
# the lexicographically greatest pair of bytes (`best_pair`). HF takes the tied pair whose two parts
# have the smallest ids in *its* vocabulary — its trainer's source (`Merge`'s ordering in
# `tokenizers/src/models/bpe/trainer.rs`) sorts a tie by the pair of ids, smallest first, and the
# lines above show it on the check text. Those ids follow the order in which it added tokens (its
# byte alphabet sorted by GPT-2's printable characters, then each merge), not the bytes. After one
# different choice the words differ, later counts differ, and the lists drift apart, although most
# merges still turn up in both. Neither is wrong: a tie rule is a convention. Comparing HF merge for
# merge therefore only works up to the first tie the two rules break differently; to compare the
# rest, compare sets, or the tokens each one produces.

# %% [markdown]
# ## Further: training at scale
#
# This is where the core of the chapter ends. The optional appendix
# [training at scale](91_appendix_training_at_scale.ipynb) goes on for readers who want more: why counting can be shared out to many machines while the merge loop cannot (with Dask), a
# fifth rung whose *bucket queue* suits text with many distinct words, a cost that belongs to
# Python's cycle collector rather than to BPE, and how the package keeps the rarest pairs out of its
# queue.

# %% [markdown]
# ## Recap
#
# * Rung 1 recounts the whole corpus for every merge. Rung 2 counts each distinct pre-token once,
#   weighted by frequency. Rung 3 keeps the counts, updates only the words containing the merged
#   pair (an index from pair to words) and pops the best pair from a heap with lazy deletion.
#   Rung 4 pre-tokenizes pieces of the text in parallel, cut only before a single space between
#   two non-spaces.
# * Every rung learned exactly the merges of `train_bpe(..., method="naive")`, tie for tie.
# * Timing against corpus size on a log-log plot turns "how does it scale" into a slope.
# * One timing is noisy. To call one trainer faster than another, time the two in turn, round after
#   round, swapping who goes first, and ask for a clean sweep (a sign test).
# * HF `tokenizers` breaks ties differently, so its merges agree with ours only up to the first tie
#   the two rules break differently.
# * More, for training at scale: [the appendix](91_appendix_training_at_scale.ipynb).
#
# ## Exercises

# %%
from bpe_course.exercises.ch11 import CUT_RANGE, CUT_TEXT, check_pair_delta, check_safe_cut, check_train_words

# %% [markdown]
# **Exercise 1.** Rung 3 updates counts word by word. Write `pair_delta(word, pair)`: a dict from
# each pair to how much its count inside `word` changes when `pair` is merged there (negative for
# pairs that disappear; leave out pairs that do not change). Watch out for runs like `a a a`.

# %%
def pair_delta(word: tuple[bytes, ...], pair: tuple[bytes, bytes]) -> dict:
    return {pair: -1}  # replace: the merged pair disappears, but what else changes?


check_pair_delta(pair_delta)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Recount before and after, and subtract: correct for every word, runs included.
#
# ```python
# def pair_delta(word, pair):
#     new = merge_pair(word, pair)
#     delta = Counter(zip(new, new[1:]))
#     delta.subtract(Counter(zip(word, word[1:])))
#     return {p: d for p, d in delta.items() if d}
# ```
# </details>

# %% [markdown]
# **Exercise 2.** Find a position between `CUT_RANGE[0]` and `CUT_RANGE[1]` where `CUT_TEXT` can be
# cut so that pre-tokenizing the two halves (GPT-2's regex) gives exactly the pre-tokens of the
# whole text.

# %%
print(CUT_RANGE, repr(CUT_TEXT))
my_cut = 27  # replace with your position
check_safe_cut(my_cut)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Any position just before a single space between two non-spaces, e.g. `CUT_TEXT.index(" safe")`:
# `' safe'` then starts the second half, exactly as it was a pre-token of the whole. (Some other
# positions happen to work for this text too, such as between `s` and `,`; the checker accepts any
# cut that leaves the pre-tokens unchanged.)
# </details>

# %% [markdown]
# **Exercise 3.** Write rung 2's learning step on its own: `train_words(word_counts, n_merges)`
# gets `{word as a tuple of one-byte tokens: count}` and returns the merges, with the same tie rule.

# %%
def train_words(word_counts: dict, n_merges: int) -> list:
    return []  # replace with your trainer


check_train_words(train_words)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def train_words(word_counts, n_merges):
#     words, merges = dict(word_counts), []
#     for _ in range(n_merges):
#         counts = Counter()
#         for word, freq in words.items():
#             for pair in zip(word, word[1:]):
#                 counts[pair] += freq
#         if not counts:
#             break
#         pair = best_pair(counts)
#         merges.append(pair)
#         words = {merge_pair(word, pair): freq for word, freq in words.items()}
#     return merges
# ```
# </details>
#
# [← 10 GPT-4's cl100k](10_gpt4_cl100k.ipynb) · [12 Train your own →](12_train_your_own.ipynb)
