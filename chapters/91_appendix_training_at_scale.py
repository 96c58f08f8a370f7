# %% [markdown]
# # 91 · Training at scale
#
# [← 11 Making training fast](11_making_training_fast.ipynb) · [00 Start here](00_start_here.ipynb)
#
# Chapter 11 built four faster trainers and raced them. This optional appendix is for readers who
# want to go further, towards many machines and towards text with many distinct words:
#
# * **counts add up**, so counting can be shared out to any number of machines (with Dask), while
#   the merge loop runs once, on the sum;
# * **rung 5**, a *bucket queue* that suits varied text better than rung 3's heap;
# * a cost that is **Python's, not BPE's**: the cycle collector;
# * the package's **queue floor**, which keeps the rarest pairs out of the queue until they are needed.
#
# It leans on chapter 11's rung 3 throughout: read that first.

# %%
import gc
import heapq
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from bpe_course import (GPT2_PATTERN, QUEUE_FLOOR, compare, corpus, count_pretokens, count_with_dask, pretokenize,
                        train, train_bpe, train_counts)

CORPUS = "python_docs"  # or the path of your own UTF-8 text file
N_MERGES = 200  # merges learned when rung 5 is checked against the reference
CHECK_SIZE = 12_500  # characters used for that check
PATTERN = GPT2_PATTERN
text = corpus.load_text(CORPUS)
check_text = text[:CHECK_SIZE]
reference = train_bpe(check_text, 256 + N_MERGES, method="naive")[1]
print(f"{CORPUS if CORPUS in corpus.names() else 'your text'}: {len(text):,} characters; "
      f"the reference learned {len(reference)} merges from the first {len(check_text):,}")

# %% [markdown]
# The next cell repeats chapter 11's rung 3 (`count_words`, `Greatest`, `index_words`,
# `merge_in_words`, `learn_incremental`) so that this appendix runs on its own. Its code is folded
# away: it is the same as in chapter 11, where it is explained.

# %% [hide-input]
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


def count_words(text: str) -> Counter:
    """``{pre-token as a tuple of one-byte tokens: how often it occurs}``."""
    return Counter({as_tokens(piece): freq for piece, freq in Counter(pretokenize(text, PATTERN)).items()})


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


assert learn_incremental(count_words(check_text), N_MERGES)[0] == reference

# %% [markdown]
# ## 1. Past one machine: counts add up
#
# Chapter 11's rung 4 parallelised the counting and nothing else, and for a good reason. Counting is the only
# step that reads all the text, and counts **add**: the counts of two halves, summed, are the counts
# of the whole (a *monoid*: adding is associative, and the empty count changes nothing). So any
# number of workers, on any number of machines, can each count a part. The merge loop is the
# opposite: merge *k* depends on every merge before it, so it runs once, in one place, on the sum.
# The package has both halves: `count_pretokens` counts a text's pre-tokens (or a list of texts',
# as separate documents) into a `Counter`, and `train_counts` learns the merges from such counts:

# %%
halves = [text[: len(text) // 2], text[len(text) // 2:]]
summed = count_pretokens(halves[0]) + count_pretokens(halves[1])
assert summed == count_pretokens(halves)  # two documents: no pre-token crosses from one to the other
assert train_counts(summed, 256 + 500) == train(halves, 256 + 500)
print(f"{len(summed):,} distinct pre-tokens from two halves counted apart; merges learned from the sum == train")

# %% [markdown]
# With many files and many machines, an existing engine does the sharing out. `bpe_course.scale`
# uses **Dask**: each file is counted on a worker of a cluster (started here on this machine; the
# same code runs on a real cluster given its scheduler's address), the counts are folded into one,
# and the merges are learned here:

# %%
shard_texts = [halves[0], halves[1], corpus.load("python_code")]
shard_folder = Path(tempfile.mkdtemp())
shards = []
for k, shard in enumerate(shard_texts):
    shards.append(shard_folder / f"shard{k}.txt")
    shards[-1].write_text(shard, encoding="utf-8")
dask_counts = count_with_dask(shards, processes=False)
assert dask_counts == count_pretokens(shard_texts)
print(f"{len(shards)} files counted by Dask: {sum(dask_counts.values()):,} pre-tokens, "
      f"{len(dask_counts):,} distinct; equal to counting them here")

# %% [markdown]
# On this machine, how does the time split between the two halves of training? Counting gets
# faster with workers and machines; the merge loop does not. (Timings vary from run to run.)

# %%
# NBVAL_IGNORE_OUTPUT
novel = corpus.load("don_quixote")
started = time.perf_counter()
counts_here = count_pretokens(novel)
counting = time.perf_counter() - started
started = time.perf_counter()
train_counts(counts_here, 256 + 8000)
merging = time.perf_counter() - started
print(f"don_quixote, {len(novel):,} characters: counting {counting:.2f} s; learning 8,000 merges from its "
      f"{len(counts_here):,} distinct pre-tokens: {merging:.2f} s")

# %% [markdown]
# ## 2. Rung 5: a queue for varied text
#
# A novel uses more distinct words than documentation does. Compared on equal amounts of text — the
# first `SAME_SIZE` characters of each, since distinct words grow more slowly than the text — and,
# for contrast, over each whole corpus:

# %%
SAME_SIZE = 200_000
variety = []
for name in ("don_quixote", "python_docs"):
    whole = corpus.load_text(name)
    for label, part in ((f"first {SAME_SIZE:,} characters", whole[:SAME_SIZE]), ("whole corpus", whole)):
        distinct = len(set(pretokenize(part, PATTERN)))
        variety.append({"corpus": name, "text": label, "characters": len(part), "distinct pre-tokens": distinct,
                        "distinct per MB of UTF-8": round(distinct / len(part.encode("utf-8")) * 1e6)})
variety = pd.DataFrame(variety).set_index(["text", "corpus"]).sort_index()
variety

# %% [hide-input]
same = variety.loc[f"first {SAME_SIZE:,} characters", "distinct pre-tokens"]
per_mb = variety.loc["whole corpus", "distinct per MB of UTF-8"]
display(Markdown(
    f"In the same {SAME_SIZE:,} characters the novel has {same['don_quixote'] / same['python_docs']:.1f}× as many "
    f"distinct pre-tokens as the documentation. Per megabyte of each *whole* corpus the comparison turns round "
    f"({per_mb['don_quixote']:,} against {per_mb['python_docs']:,}), because the novel is the longer text and "
    "each new stretch of it brings fewer new words: compare variety only at equal sizes."))

# %% [markdown]
# That variety is what the merge loop feels. Every merge changes the counts of the pairs around each
# place it merges: the new token's neighbours make new pairs, and the pairs it broke up lose some of
# their count. More distinct words mean more such pairs, and rung 3 pushes a fresh heap entry for
# every pair whose count changed (the old entry goes stale), so its one heap grows long. A push is
# cheap, because an entry with a count below the best belongs near the bottom and barely moves; but
# every pop, of the best pair and of each stale entry on the way to it, sifts through about
# log₂(size of the heap) levels.
#
# Two facts allow a cheaper queue. A new pair occurs at most as often as the pair just merged (it
# contains the new token), and an old pair's count only goes down; so the count of the best pair
# **never goes up** from one merge to the next. A **bucket queue** uses that: one plain list of
# pairs per count, and only the list of the count being merged now (the *level*) is made a heap,
# once, when the level comes down to it. A pair whose count is below the level is appended to its
# list, which costs the same however long the queue is, and pops come from the heap of one count,
# far shorter than rung 3's heap of every count. Stale entries are skipped as in rung 3.

# %%
def learn_bucketed(word_counts: Counter, n_merges: int) -> tuple[list, int, int]:
    """Rung 3 with a bucket queue; also how many entries went through a heap push and how many were appended."""
    words, freqs, counts, where = index_words(word_counts)
    buckets = defaultdict(list)  # count -> pairs with that count; only buckets[level] is a heap
    for pair, count in counts.items():
        buckets[count].append(Greatest(pair))
    levels = [-count for count in buckets]  # the counts that have a list, highest first (a heap)
    heapq.heapify(levels)
    level, merges, pushed, appended = None, [], 0, 0
    while len(merges) < n_merges:
        if level is None or not buckets[level]:  # this count is done: come down to the next one
            buckets.pop(level, None)
            if not levels:
                break
            level = -heapq.heappop(levels)
            heapq.heapify(buckets[level])
            continue
        pair = heapq.heappop(buckets[level]).pair
        if counts[pair] != level:
            continue  # stale, as in rung 3
        merges.append(pair)
        for p in merge_in_words(pair, words, freqs, counts, where):
            count = counts[p]
            if count == level:
                heapq.heappush(buckets[level], Greatest(p))
                pushed += 1
            elif count > 0:  # below the level: never above it
                if not buckets[count]:
                    heapq.heappush(levels, -count)
                buckets[count].append(Greatest(p))
                appended += 1
    return merges, pushed, appended


merges5 = learn_bucketed(count_words(check_text), N_MERGES)[0]
print("rung 5 merges == naive:", merges5 == reference)

# %% [markdown]
# Now on varied text: the first characters of *Don Quixote* (English translation, public domain,
# one of the built-in corpora), rungs 3 and 5 learning the same merges. We count what each put in
# its queue:

# %%
NOVEL_CHARS, NOVEL_MERGES = 200_000, 1_000
novel_words = count_words(corpus.load("don_quixote")[:NOVEL_CHARS])

gc.collect()  # subtle: a fresh start for each timed run, so no collector pass owed to earlier work lands in it
started = time.perf_counter()
merges3_novel, _, pushes3 = learn_incremental(novel_words, NOVEL_MERGES)
rung3_seconds = time.perf_counter() - started
gc.collect()
started = time.perf_counter()
merges5_novel, pushed5, appended5 = learn_bucketed(novel_words, NOVEL_MERGES)
rung5_seconds = time.perf_counter() - started
assert merges5_novel == merges3_novel

# %% [hide-input]
display(Markdown(
    f"* {len(novel_words):,} distinct pre-tokens in {NOVEL_CHARS:,} characters; {NOVEL_MERGES:,} merges, "
    "the same from both rungs.\n"
    f"* Rung 3 made {pushes3:,} heap pushes. Rung 5 made {pushed5:,} heap pushes and appended "
    f"{appended5:,} entries to plain lists: {appended5 / (pushed5 + appended5):.1%} of its queue traffic "
    "never touched a heap."))

# %%
# NBVAL_IGNORE_OUTPUT
print(f"rung 3: {rung3_seconds:.2f} s; rung 5: {rung5_seconds:.2f} s (this machine, this run)")

# %% [markdown]
# The merges are the same and the word updates are the same; apart from the machine's own noise
# (and the collector of section 3), what differs in the two times above is the queue. The package's trainer (where a word is a string and a merge is one
# `str.replace`) uses the same idea: its `PairQueue` (`bpe_course/fast/merge.py`) is this bucket
# queue with two more savings: it pushes nothing when an old pair's count goes down (a stale entry is moved to the list
# of its true count when it is popped), and a pair's place in the order is one string compared in
# C rather than a Python `__lt__`. The repository's benchmark (`python -m benchmarks`) measures the
# package's trainer against Hugging Face's on both kinds of text; `docs/benchmarks.md` has the
# figures.

# %% [markdown]
# ## 3. A cost that is Python's, not BPE's
#
# CPython frees an object as soon as nothing refers to it any more. On top of that it runs a
# *cycle collector*, which looks for groups of containers (tuples, lists, sets, objects of our own
# classes) that refer only to each other. How it schedules its passes depends on the Python version.
# Up to 3.13, and again from 3.14.5, it sorts the containers into three generations by age: after
# every few hundred new containers it goes through the youngest, now and then through the middle
# generation too, and seldom through all of them. Python 3.14.0 to 3.14.4 shipped an *incremental*
# collector instead, with two generations, young and old, that scans the old one a slice at a time;
# 3.14.5 reverted it after reports of memory pressure (What's New in Python 3.15, "gc"; CPython issues
# gh-142516 and gh-148726). So the passes and times below are this Python's, printed with its version.
# Learning makes containers all the time (a tuple for every word it changes, a set in the index
# `where` for every new pair), so the passes keep coming; yet it never makes a cycle, so they find
# nothing to free. `gc.disable()` pauses the collector (`gc.enable()` restarts it). Rung 5 again on
# the same novel, first with the collector running and a callback (`gc.callbacks`) that times each
# pass, notes its generation and counts what it freed, then with the collector paused:

# %%
# NBVAL_IGNORE_OUTPUT
def rung5_watched() -> tuple[float, float, Counter, int]:
    """Rung 5 on the novel with the collector running: seconds in all, seconds inside the collector's
    passes, the passes by the generation each one reported, and how many objects they freed."""
    inside, passes, freed, pass_started = 0.0, Counter(), 0, 0.0

    def watch(phase: str, info: dict) -> None:
        nonlocal inside, freed, pass_started
        if phase == "start":
            pass_started = time.perf_counter()
        else:
            inside += time.perf_counter() - pass_started
            passes[info["generation"]] += 1
            freed += info["collected"]

    gc.collect()  # start clean: no garbage left from earlier cells
    gc.callbacks.append(watch)
    try:
        started = time.perf_counter()
        learn_bucketed(novel_words, NOVEL_MERGES)
        return time.perf_counter() - started, inside, passes, freed
    finally:
        gc.callbacks.remove(watch)


def rung5_paused() -> float:
    """Seconds for rung 5 on the novel with the collector paused."""
    gc.disable()
    try:
        started = time.perf_counter()
        learn_bucketed(novel_words, NOVEL_MERGES)
        return time.perf_counter() - started
    finally:
        gc.enable()


total, inside, passes, freed = rung5_watched()
print(f"Python {sys.version.split()[0]}, collector thresholds {gc.get_threshold()}")
print(f"collector running: {total:.2f} s, of which {inside:.3f} s in {sum(passes.values())} passes "
      f"(by generation: {dict(sorted(passes.items()))}), which freed {freed} objects")

# %% [markdown]
# One run each says little: two runs of the same code on a shared machine can differ by more than the
# collector's share. So time both ways `REPEATS` times, alternating which goes first, and compare each
# round's pair (`compare` from `bpe_course`, chapter 16's yardstick, with the rounds as its units):

# %%
# NBVAL_IGNORE_OUTPUT
REPEATS = 5


def rung5_running() -> float:
    """Seconds for rung 5 on the novel with the collector running, as it runs by default."""
    gc.collect()
    started = time.perf_counter()
    learn_bucketed(novel_words, NOVEL_MERGES)
    return time.perf_counter() - started


rounds = []  # (seconds running, seconds paused), one pair per round
for i in range(REPEATS):
    if i % 2 == 0:
        running = rung5_running()
        rounds.append((running, rung5_paused()))
    else:
        paused = rung5_paused()
        rounds.append((rung5_running(), paused))
for label, k in (("collector running", 0), ("collector paused", 1)):
    runs = sorted(r[k] for r in rounds)
    print(f"{label:17}: median {statistics.median(runs):.3f} s, range {runs[0]:.3f}-{runs[-1]:.3f} s "
          f"over {REPEATS} runs (this machine, this run)")
pausing = compare([(paused, 1) for _, paused in rounds], [(running, 1) for running, _ in rounds],
                  unit="s", words=("faster", "slower"))
print("paused against running, per round:", pausing.verdict)

# %% [hide-input]
# NBVAL_IGNORE_OUTPUT
display(Markdown(
    "Over " + f"{REPEATS} rounds on this machine, "
    + pausing.sentence("rung 5 with the collector paused", "rung 5 with it running")
    + pausing.word(": here pausing saves time, as the collector's passes above suggest.",
                   ": here pausing costs time, against what the collector's passes suggest.",
                   f": here {REPEATS} rounds cannot tell a saving the size of the collector's share above from none "
                   "(and an interval from so few resampled rounds is rough).")))

# %% [markdown]
# The package's trainer pauses the collector while it learns, and restores it however learning
# ends (`bpe_course/fast/merge.py`).
#
# ## 4. The package's queue floor
#
# The package's trainer also saves on rare pairs: a pair seen fewer times than a threshold is not
# even appended to a list. It waits outside the queue, counted but unqueued, until no queued pair
# is left at or above the threshold; then one pass over the counts queues the pairs just below the
# threshold, and the threshold halves. Pairs seen once or twice are queued only if
# training gets that far.

# %% [hide-input]
display(Markdown(f"In the package that threshold is `QUEUE_FLOOR` = {QUEUE_FLOOR}: once no queued pair is seen "
                 f"{QUEUE_FLOOR} times or more, the pairs seen {QUEUE_FLOOR // 2} to {QUEUE_FLOOR - 1} times are "
                 f"queued and the threshold halves, and so on down to pairs seen once."))

# %% [markdown]
# ## Recap
#
# * Counts add up, so counting can be shared out to any number of machines (`bpe_course.scale`
#   with Dask); the merge loop runs once, on the sum (`train_counts`).
# * On varied text every merge changes many pair counts, and a single heap of every entry grows long.
#   The best count never goes up, so a bucket queue (rung 5) appends almost every new entry to a plain
#   list and keeps only the current count's list as a heap.
# * Python's cycle collector keeps going through the containers learning makes; learning makes no
#   cycles, so pausing it while learning loses nothing and skips its passes; whether that is
#   measurably faster on your machine, section 3's repeated timings say.
# * The package's queue floor keeps the rarest pairs out of the queue until training comes down to them.
#
# [← 11 Making training fast](11_making_training_fast.ipynb) · [00 Start here](00_start_here.ipynb)
