# %% [markdown]
# # 04 · Encoding and decoding
#
# [← 03 The training loop](03_training_loop.ipynb) · [05 Special tokens and unknowns →](05_special_tokens.ipynb)
#
# Chapter 03 ended with a list of merges. A list of merges on its own does nothing: this chapter
# puts it to work.
#
# * **Encoding** turns any text, including words never seen in training, into tokens.
#   We write it twice: once by replaying the merges in the order they were learned, once the way
#   GPT-2 does it (repeatedly merge the adjacent pair with the lowest *rank*). Then we argue that
#   the two always agree for merges learned by BPE, and check it on thousands of random words.
# * **Decoding** turns tokens back into text. We check the round trip `decode(encode(text))` as a
#   property over random texts, and see what it does not give back.
# * A **stepper widget** walks one word through its merges, one click per merge.
#
# Everything is checked against the package's `bpe_course.algorithms.wordbpe.WordBPE`, the canonical version
# later chapters import.

# %%
import math
import random
from collections import Counter

from IPython.display import HTML, Markdown, display

from bpe_course import chips_html, corpus
from bpe_course.algorithms import WordBPE, merge_pair

# %% [markdown]
# Point the chapter at your own text here: a built-in corpus name (`corpus.names()`) or the path
# of a UTF-8 text file. Training uses the first `TRAIN_CHARS` characters of its training part, so
# the whole notebook runs in seconds.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
TRAIN_CHARS = 100_000
VOCAB_SIZE = 600

train_text, heldout_text = corpus.train_heldout(CORPUS)
train_text = train_text[:TRAIN_CHARS]
print(f"{CORPUS}: {len(train_text):,} training characters, {len(heldout_text):,} held-out characters")

# %% [markdown]
# ## 1. Replaying the merges in order
#
# We start with the toy corpus of chapters 02 and 03 (Sennrich et al., 2016): word counts for *low*,
# *lower*, *newest* and *widest*. Training stops when no pair occurs twice.

# %%
toy_corpus = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
toy = WordBPE.train(toy_corpus, vocab_size=1000)
for rank, pair in enumerate(toy.merges):
    print(f"rank {rank:2}: {pair[0]!r} + {pair[1]!r} -> {''.join(pair)!r}")

# %% [markdown]
# Training merged each pair everywhere in the corpus, in this order. To encode a new word we do the
# same to that one word: start from its characters plus `</w>`, then apply every merge in the
# order it was learned. `merge_pair` (from `bpe_course.algorithms.wordbpe`) is the step training repeats:
# join every occurrence of a pair, scanning left to right.

# %%
def encode_word(word: str, merges: list[tuple[str, str]]) -> list[str]:
    """Apply each merge, in the order learned, to all its occurrences in the word."""
    symbols = [*word, "</w>"]
    for pair in merges:
        symbols = list(merge_pair(symbols, pair))
    return symbols


encode_word("lowest", toy.merges)

# %% [markdown]
# *lowest* never occurs in the toy corpus, yet it comes out as two tokens: `low` from *low* and
# *lower*, `est</w>` from *newest* and *widest*. Here is the trace, printing only the merges that
# changed something:

# %%
def trace_word(word: str, merges: list[tuple[str, str]]) -> None:
    symbols, fired = [*word, "</w>"], 0
    print(f"start          {symbols}")
    for rank, pair in enumerate(merges):
        merged = list(merge_pair(symbols, pair))
        if merged != symbols:
            print(f"rank {rank:2} {''.join(pair):>8}  {merged}")
            fired += 1
        symbols = merged
    print(f"{fired} of the {len(merges)} merges changed the word")


trace_word("lowest", toy.merges)

# %% [hide-input]
import bpe_course  # only to count GPT-2's merges here; chapter 09 builds GPT-2's tokenizer

display(Markdown(
    "The merges that did not fire were still tried, and found nothing. That is the cost of this encoder: "
    f"**every word tries every merge**. With GPT-2's {len(bpe_course.gpt2().merges):,} merges, a single short "
    "word would walk the whole list."))

# %% [markdown]
# ## 2. The rank-based encoder
#
# GPT-2's encoder turns the loop around. Give every merge a **rank**, its position in the list.
# Then, in the word, look at all adjacent pairs, merge the one with the lowest rank, and repeat
# until no adjacent pair has a rank. Each round costs one pass over the word, however many merges
# there are. If the lowest-ranked pair occurs twice, tiktoken merges the leftmost occurrence first,
# as we do below; OpenAI's original `encoder.py` joins every occurrence in one left-to-right pass.
# Point 3 below shows that both give the same tokens.

# %%
def encode_word_by_rank(word: str, ranks: dict[tuple[str, str], int]) -> list[str]:
    """Repeatedly merge the adjacent pair of lowest rank (the leftmost on ties)."""
    symbols = [*word, "</w>"]
    while len(symbols) > 1:
        rank, i = min((ranks.get(pair, math.inf), i) for i, pair in enumerate(zip(symbols, symbols[1:])))
        if rank == math.inf:  # no adjacent pair was ever merged in training
            break
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols


toy_ranks = {pair: rank for rank, pair in enumerate(toy.merges)}
encode_word_by_rank("lowest", toy_ranks)

# %% [markdown]
# ### Why the two encoders agree
#
# The two loops look different: one walks the merge list, the other walks the word. For merges
# learned by BPE they give the same tokens, for three reasons.
#
# 1. **A merge's parts exist before it.** Training can only merge symbols that are already there,
#    and the symbol `a+b` first appears at the step that creates it. So any merge that *uses*
#    `a+b` was learned later: it has a higher rank.
# 2. **The rank-based encoder never goes back to a lower rank.** Say it just applied rank *k*.
#    Every pair that was already in the word had rank ≥ *k* (k was the lowest). Every new pair
#    contains the new symbol, so by point 1 its rank is > *k*. The ranks it applies therefore never
#    decrease: it visits the merges in list order, exactly like the first encoder, skipping the ones
#    that cannot fire.
# 3. **Within one rank, both go left to right.** The first encoder merges all occurrences of a pair
#    in one left-to-right scan; the second takes the leftmost, then the next leftmost, and so on. A
#    just-merged symbol `a+b` is longer than `a`, so it never starts the same pair again, and in
#    `a a a` both end with `aa a`.
#
# Point 1 is the one that depends on training. Exercise 3 asks you to write a merge list without it
# and watch the encoders disagree.
#
# An argument can hide a mistake, so we also check it. Below, a character-level BPE is trained on
# the corpus, then both teaching encoders and both of the package's encoders (`tokenize_word`, in
# order; `tokenize_word_by_rank`) run on thousands of words: real held-out words plus random strings
# over the alphabet, which hit odd pairs that real words avoid. The random generator is seeded, so
# the check is the same on every run.

# %%
bpe = WordBPE.train(train_text, vocab_size=VOCAB_SIZE)
ranks = {pair: rank for rank, pair in enumerate(bpe.merges)}
alphabet = set(bpe.alphabet)
print(bpe, f"- {len(bpe.alphabet)} characters in its alphabet")

# %%
rng = random.Random(4)
heldout_words = sorted({w for w in heldout_text.split() if set(w) <= alphabet})
real_words = rng.sample(heldout_words, min(1000, len(heldout_words)))
letters = sorted(alphabet)
random_words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 12))) for _ in range(1000)]
repeats = [ch * n for ch in "aes" for n in range(1, 9)]  # runs like "aaaa" exercise overlapping pairs

disagreements = []
for word in real_words + random_words + repeats:
    results = [encode_word(word, bpe.merges), encode_word_by_rank(word, ranks),
               bpe.tokenize_word(word), bpe.tokenize_word_by_rank(word)]
    if any(r != results[0] for r in results):
        disagreements.append((word, results))

checked = len(real_words) + len(random_words) + len(repeats)
assert not disagreements, disagreements[:3]
print(f"4 encoders agree on all {checked:,} words "
      f"({len(real_words):,} held-out, {len(random_words):,} random, {len(repeats)} repeated letters)")

# %% [markdown]
# ## 3. Decoding
#
# Decoding is much simpler than encoding: look each id up, glue the symbols together, and let
# every `</w>` become a space.

# %%
def decode(ids: list[int], vocab: dict[int, str]) -> str:
    """Glue the symbols of ``ids``; each ``</w>`` ends a word (a space, none after the last)."""
    return "".join(vocab[i] for i in ids).replace("</w>", " ").rstrip(" ")


ids = toy.encode("lowest newer")
print(ids, "->", repr(decode(ids, toy.vocab)))
assert decode(ids, toy.vocab) == toy.decode(ids)

# %% [markdown]
# *Subtle:* this `replace` trusts that the text never contains the four characters `</w>`. If a
# text does (say, HTML-like markup), those characters decode to a space. The package's `decode`
# avoids this by remembering, for each token, whether it ends a word, instead of searching the
# glued string. A tokenizer with no merges whose alphabet has `<`, `/`, `w` and `>` shows it:

# %%
markup = WordBPE.from_merges([], alphabet="ab</w>")
tricky_ids = markup.encode("a</w>b")
print(f"teaching decode: {decode(tricky_ids, markup.vocab)!r}   package decode: {markup.decode(tricky_ids)!r}")

# %% [markdown]
# ### The round trip as a property
#
# A tokenizer should give back what it was given. For `WordBPE` that holds up to whitespace: the
# text is split with `str.split()`, so tabs, newlines and runs of spaces all come back as single
# spaces. The property to check is therefore
# `decode(encode(text)) == " ".join(text.split())` for every text made of known characters.
# We check it on random texts: held-out words and random strings, glued with random whitespace.

# %%
def random_text(rng: random.Random) -> str:
    words = [rng.choice(heldout_words) if rng.random() < 0.7
             else "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
             for _ in range(rng.randint(0, 12))]
    gaps = [rng.choice([" ", "  ", "\n", "\t", " \n "]) for _ in words]
    return "".join(g + w for g, w in zip(gaps, words)) + rng.choice(["", " ", "\n"])


rng = random.Random(40)
texts = [random_text(rng) for _ in range(500)]
failures = [t for t in texts if bpe.decode(bpe.encode(t)) != " ".join(t.split())]
exact = sum(bpe.decode(bpe.encode(t)) == t for t in texts)
assert not failures, failures[:3]
print(f"round trip holds up to whitespace on all {len(texts)} random texts; "
      f"exactly (whitespace included) on {exact} of them")

# %% [markdown]
# Two things break the exact round trip. Whitespace is one: the encoder never sees it.
# Characters that were not in the training text are the other: they become `<|unk|>`, and
# chapter 05 measures what that costs. Byte-level BPE (chapter 07) fixes both.

# %% [markdown]
# ## 4. Words never seen in training
#
# BPE has no fixed list of words. A word that never occurred in training is put together from
# pieces that did. Here are the most frequent held-out words that never appear in the training
# text, each as its tokens (hover a chip for its id):

# %%
train_words = set(train_text.split())
unseen = Counter(w for w in heldout_text.split() if w not in train_words and set(w) <= alphabet)
examples = sorted(unseen.items(), key=lambda item: (-item[1], item[0]))[:8]
rows = []
for word, count in examples:
    symbols = bpe.tokenize_word(word)
    rows.append(f"<tr><td><code>{word}</code> ×{count}</td>"
                f"<td>{chips_html(symbols, [bpe.token_to_id[s] for s in symbols])}</td></tr>")
display(HTML(f"<table>{''.join(rows)}</table>"))
share = sum(unseen.values()) / len(heldout_text.split())
print(f"{len(unseen):,} distinct held-out words ({share:.1%} of held-out word occurrences) never occur in training")

# %% [markdown]
# ## 5. Watching the merges happen: a stepper
#
# `MergeStepper` walks a word through its merges. Type a word, then click **next ▶**: each click
# applies the lowest-ranked merge that occurs in the word (to all its occurrences), and the box
# says which merge comes next. It takes a `WordBPE` or a byte-level `Tokenizer` (chapters 07 onward).

# %%
from bpe_course.widgets import MergeStepper

toy_stepper = MergeStepper(toy, "lowest")
display(toy_stepper.box)

# %% [markdown]
# The widget is plain Python underneath, so we can drive it from code and check that its last state
# is the encoder's answer, here for the corpus-trained tokenizer:

# %%
stepper = MergeStepper(bpe, "tokenization")
while not stepper.next.disabled:
    stepper.next.click()
final = stepper.states[stepper.step]
print(f"{len(stepper.states) - 1} merges fired, in rank order {[s.rank for s in stepper.states[1:]]}")
assert list(final.tokens) == bpe.tokenize_word("tokenization")
print("final state:", list(final.tokens), "== bpe.tokenize_word('tokenization')")
display(stepper.box)

# %% [markdown]
# The ranks printed above increase: that is point 2 of the argument, on a real word. The same
# stepper works at byte level, where a word starts as its UTF-8 bytes. Here is GPT-2's tokenizer
# (built from OpenAI's files, offline) on a word it has no single token for:

# %%
from bpe_course import gpt2

gpt2_stepper = MergeStepper(gpt2(), " detokenization")
gpt2_final = gpt2_stepper.states[-1].tokens
print(f"{len(gpt2_stepper.states) - 1} merges take {len(gpt2_stepper.states[0].tokens)} bytes "
      f"to {len(gpt2_final)} tokens: {[t.decode() for t in gpt2_final]}")
display(gpt2_stepper.box)

# %% [markdown]
# ## Recap
#
# * Encoding replays the learned merges on each new word. In order, every word tries every merge;
#   by rank (GPT-2's way), each round is one pass over the word.
# * For merges learned by BPE, both give the same tokens: a merge's parts always exist before it,
#   so the rank-based encoder applies ranks in increasing order. We checked it on thousands of words.
# * Decoding glues the symbols and turns `</w>` back into spaces. The round trip holds up to
#   whitespace, for characters seen in training.
# * Unseen words are built from learned pieces: *lowest* = `low` + `est</w>`.
#
# ## Exercises

# %%
from bpe_course.exercises.ch04 import check_encode_text, check_order_matters, check_segmentation

# %% [markdown]
# **Exercise 1.** Without running the encoder, work out how the toy tokenizer splits *slowest*
# (the merges are listed in section 1). Replace the attempt with your answer.

# %%
my_answer = ["s", "l", "o", "w", "e", "s", "t", "</w>"]  # replace with your segmentation
check_segmentation(my_answer, "slowest")

# %% [markdown]
# <details><summary>Solution</summary>
#
# The `t</w>`, `st</w>`, `est</w>` merges build the ending; `ow` and `low` build the start; nothing
# joins `s` to `low`. So `["s", "low", "est</w>"]`.
# </details>

# %% [markdown]
# **Exercise 2.** Write `encode_text(text, merges)` that encodes a whole text: split it into words
# on whitespace, encode each with `encode_word`, and return one flat list of symbols. (A dict
# remembering words you have already encoded makes it fast on real text.)

# %%
def encode_text(text: str, merges: list[tuple[str, str]]) -> list[str]:
    return encode_word(text, merges)  # replace: this treats the whole text as one word


check_encode_text(encode_text)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def encode_text(text, merges):
#     cache, symbols = {}, []
#     for word in text.split():
#         if word not in cache:
#             cache[word] = encode_word(word, merges)
#         symbols.extend(cache[word])
#     return symbols
# ```
# </details>

# %% [markdown]
# **Exercise 3.** Write a merge list and a word for which `encode_word` (in order) and
# `encode_word_by_rank` give different tokens. By the argument in section 2, your list cannot be one
# that BPE training produces.

# %%
my_merges = [("a", "b"), ("ab", "c")]  # replace with your merge list
my_word = "abc"
check_order_matters(my_merges, my_word)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Put the merge that uses `ab` before the merge that creates it: `[("ab", "c"), ("a", "b")]` with
# the word `"abc"`. In order, `("ab", "c")` finds no `ab` yet, so the result is `["ab", "c", "</w>"]`.
# By rank, `("a", "b")` fires first, and then `("ab", "c")` (rank 0) is available:
# `["abc", "</w>"]`.
# </details>
#
# [← 03 The training loop](03_training_loop.ipynb) · [05 Special tokens and unknowns →](05_special_tokens.ipynb)
