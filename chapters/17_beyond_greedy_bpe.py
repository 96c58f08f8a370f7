# %% [markdown]
# # 17 · Beyond greedy BPE
#
# [← 16 What a tokenizer does to a model](16_what_a_tokenizer_does_to_a_model.ipynb) · [00 Start here](00_start_here.ipynb) · [18 Open models' tokenizers and the chat prompt →](18_open_models_and_chat.ipynb)
#
# Since 2024 papers have changed the BPE algorithm itself: what it merges, what it keeps and how it
# cuts a text with the vocabulary it learned. Each change is a few dozen lines on top of the merge
# loop you wrote in chapter 03, and chapter 16 gave us the yardstick to judge them: **bits per byte**
# of held-out text under an n-gram model. In this chapter you will build four variants, each against
# plain BPE on the same text at the same vocabulary size:
#
# 1. **optimal segmentation** (Schmidt et al., 2024): the same vocabulary, but each piece cut into
#    the fewest tokens, by a shortest path — do fewer tokens mean fewer bits?
# 2. **SuperBPE** (Liu et al., 2025): tokens that span words, learned after a *transition point*,
#    with a widget to move that point;
# 3. **Picky BPE** (Chizhov et al., 2024): tokens that were only a step towards a longer one are
#    removed during training, and their slots reused;
# 4. **parity-aware BPE** (Foroutan et al., 2025): each merge helps the language that is compressed
#    worst so far, on the declaration in 18 languages of chapter 13.
#
# Each section: the paper's claim, your own version of the variant, a check against the package's
# (`bpe_course.algorithms.variants`), the measurement, and what held on our text. The papers trained models
# with billions of parameters; we train count-based models on a novel in seconds, so read the
# results as what *this* text says, not as a verdict on the papers.

# %%
from collections import Counter

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from bpe_course import Tokenizer, corpus, count_pretokens, pretokenize, resolve_pattern, train
from bpe_course.algorithms import (KneserNey, Merges, Segmenter, bits_per_byte, fewest_tokens, gini,
                                   intersection_over_self, is_superword, line_units, picky_tokens_of, superbpe_tokens,
                                   sweep_superbpe, train_parity, train_picky, train_superbpe, vocab_of,
                                   word_sequences)
from bpe_course.widgets import SuperBPEExplorer

# %% [markdown]
# The text: the start of `don_quixote`'s training part, and the start of its held-out part, which no
# tokenizer and no model ever sees. Every tokenizer below has `N_MERGES` merges (or, for Picky BPE,
# as many tokens), and every model is Kneser-Ney of order `ORDER` (chapter 16), trained on the
# training text as that tokenizer encodes it.

# %%
TRAIN_CHARS = 300_000
HELDOUT_CHARS = 100_000
N_MERGES = 1024
ORDER = 3

book_train, book_heldout = corpus.train_heldout("don_quixote")
train_text, heldout_text = book_train[:TRAIN_CHARS], book_heldout[:HELDOUT_CHARS]
heldout_bytes = len(heldout_text.encode("utf-8"))
plain_run = train(train_text, 256 + N_MERGES)
plain = Tokenizer(plain_run.vocab, plain_run.merges)
print(plain, f"| held-out text: {heldout_bytes:,} bytes")

# %% [markdown]
# One function measures every tokenizer the same way: **tokens per byte** of the held-out text (lower
# is shorter) and **bits per byte** (lower is a better model):

# %%
def measure(name: str, train_ids: list[int], heldout_ids: list[int], n_vocab: int) -> dict:
    model = KneserNey(train_ids, ORDER, n_vocab)
    return {"tokenizer": name, "n_vocab": n_vocab, "tokens per byte": len(heldout_ids) / heldout_bytes,
            "bits per byte": bits_per_byte(model, heldout_ids, heldout_text)}


baseline = measure("plain BPE", plain.encode_ordinary(train_text), plain.encode_ordinary(heldout_text),
                   plain.n_vocab)
pd.DataFrame([baseline]).round(4)

# %% [markdown]
# The variants all run on one trainer, `Merges`: the training text's pre-tokens as symbol sequences
# with counts, where `best()` is the pair plain BPE merges next and `merge(pair)` joins it everywhere,
# recounting only the sequences that hold it. It is slower than `train` and simpler: no trick but
# an index from each pair to the sequences that hold it. First, the check everything else rests on —
# its merges are `train`'s:

# %%
def plain_merges(counts: dict[str, int], n_merges: int) -> list[tuple[bytes, bytes]]:
    m = Merges(word_sequences(counts))
    merges = []
    while len(merges) < n_merges and (found := m.best()) is not None:
        pair, _count = found
        m.merge(pair)
        merges.append(pair)
    return merges


train_counts = count_pretokens(train_text)
assert plain_merges(train_counts, N_MERGES) == plain_run.merges
print(f"Merges gives train's {N_MERGES:,} merges, in the same order")

# %% [markdown]
# ## 1. Optimal segmentation: the fewest tokens
#
# **The claim.** BPE encodes a piece by replaying its merges in order; nothing makes the result the
# shortest cut the vocabulary allows. Schmidt et al. (2024) built PathPiece, whose segmenter finds the
# fewest tokens for any vocabulary by a shortest path, and trained 64 language models to test the
# idea that fewer tokens make better models. It did not hold: the segmentation with the fewest
# tokens did not give the best models, and pre-tokenization and the way the vocabulary was built
# mattered too.
#
# **Build it.** Positions 0 … n of a piece are the nodes of a graph; a token of the vocabulary that
# spells `piece[i:j]` is an edge from `i` to `j`. The fewest tokens is the shortest path from 0 to n.
# Because every edge points forward, one pass from the end does it: `best[i]`, the fewest tokens for
# `piece[i:]`, is one more than the best `best[j]` over the tokens that start at `i`.

# %%
def shortest(piece: bytes, vocab: set[bytes], longest: int) -> list[bytes]:
    n = len(piece)
    best, step = [0] * (n + 1), [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        best[i] = n + 1
        for j in range(min(n, i + longest), i, -1):  # longest token first: ties keep the longer
            if best[j] + 1 < best[i] and piece[i:j] in vocab:
                best[i], step[i] = best[j] + 1, j - i
    tokens, i = [], 0
    while i < n:
        tokens.append(piece[i:i + step[i]])
        i += step[i]
    return tokens


vocab_set = set(plain.vocab.values())
longest = max(map(len, vocab_set))
print(shortest(" ordered".encode(), vocab_set, longest), "against merge order:",
      [plain.vocab[i] for i in plain.encode_ordinary(" ordered")])

# %% [markdown]
# Check it, piece by piece over the held-out text: never more tokens than merge order, the same
# bytes back, and the same cut as the package's `fewest_tokens`.

# %%
pieces = Counter(p.encode("utf-8") for p in pretokenize(heldout_text, resolve_pattern("gpt2")))
shorter = {}
for piece in pieces:
    mine = shortest(piece, vocab_set, longest)
    merged = [plain.vocab[i] for i in plain.encode_ordinary(piece.decode("utf-8"))]
    assert b"".join(mine) == piece and len(mine) <= len(merged) and mine == fewest_tokens(piece, vocab_set, longest)
    if len(mine) < len(merged):
        shorter[piece] = (merged, mine)
print(f"{len(shorter):,} of {len(pieces):,} different held-out pieces get fewer tokens; for example")
for piece in sorted(shorter, key=lambda p: -pieces[p])[:5]:
    merged, mine = shorter[piece]
    print(f"  {piece.decode()!r:20} merge order {merged}  fewest {mine}")

# %% [markdown]
# **Measure it.** A `Segmenter` cuts text into pre-tokens and each piece with a function you give it;
# the model learns from the training text cut the same way, so it is scored on segmentations like
# the ones it saw.

# %%
optimal = Segmenter(plain.vocab, lambda piece: fewest_tokens(piece, vocab_set, longest))
assert optimal.decode(optimal.encode(heldout_text)) == heldout_text
optimal_row = measure("fewest tokens", optimal.encode(train_text), optimal.encode(heldout_text), plain.n_vocab)
section1 = pd.DataFrame([baseline, optimal_row]).set_index("tokenizer")
section1.round(4)

# %% [hide-input]
fewer = 1 - section1.loc["fewest tokens", "tokens per byte"] / section1.loc["plain BPE", "tokens per byte"]
bits_change = section1.loc["fewest tokens", "bits per byte"] - section1.loc["plain BPE", "bits per byte"]
display(Markdown(
    f"The shortest path saves {fewer:.1%} of the held-out tokens, and the model "
    + (f"needs {bits_change:.4f} bits per byte more"
       + (": fewer tokens, **more** bits. " if bits_change >= 0.01 else ". ")
       if bits_change > 0 else f"needs {-bits_change:.4f} bits per byte fewer. ")
    + (f"The difference is {abs(bits_change) / section1.loc['plain BPE', 'bits per byte']:.2%} of the bits, small "
       "enough that the safe reading is not 'worse' but 'no better': the fewer tokens did not buy a better "
       "model. " if abs(bits_change) < 0.01 else "")
    + f"Merge order already gives the shortest cut for {1 - len(shorter) / len(pieces):.0%} of the different "
      "held-out pieces. The model learned from training text cut the same way, so the result is no "
      "mismatch; probably the shortest cuts lean on longer, rarer tokens, whose n-grams have fewer examples "
      "to learn from. That is Schmidt et al.'s finding in small: compression "
      "alone is not what a model needs."))

# %% [markdown]
# ## 2. SuperBPE: tokens that span words
#
# **The claim.** Pre-tokenization keeps every token inside a word, yet "of the" or "by the way"
# behave like single units. Liu et al. (2025) train BPE as usual up to a **transition point**, then
# go on without the whitespace pre-tokenization, so the later merges may join words. At 200,000
# tokens their tokenizer needs up to 33% fewer tokens than BPE for the same text, and an 8-billion
# parameter model trained with it scored 4.0 points higher on average over 30 tasks while needing
# 27% less compute at inference.
#
# **Build it.** Stage 1 is plain BPE for `transition` merges. Stage 2 joins each line's pre-tokens,
# as stage 1 left them, into one sequence, and goes on merging there. (A pre-token holding a newline
# stays on its own: in this hard-wrapped novel a line break is not part of a phrase.) With `Merges`
# it is two loops:

# %%
TRANSITION = 768

stage1 = Merges(word_sequences(train_counts))
merges = []
while len(merges) < TRANSITION:
    pair, _count = stage1.best()
    stage1.merge(pair)
    merges.append(pair)
left_by_stage1 = stage1.state()  # each pre-token's bytes -> its symbols now
units = line_units(train_text, "gpt2")
stage2 = Merges(Counter(tuple(s for piece in unit for s in left_by_stage1[piece]) for unit in units))
while len(merges) < N_MERGES:
    pair, _count = stage2.best()
    stage2.merge(pair)
    merges.append(pair)

assert merges == train_superbpe(train_text, N_MERGES, TRANSITION).merges
assert merges[:TRANSITION] == plain_run.merges[:TRANSITION]
print(units[3], "->", [s for piece in units[3] for s in left_by_stage1[piece]])
print("stage 2's first merges:", [a + b for a, b in merges[TRANSITION:TRANSITION + 8]])

# %% [markdown]
# With the transition at the end, SuperBPE *is* plain BPE (the tests check it). Now the sweep: the
# same vocabulary, transitions from early to the end. `sweep_superbpe` shares stage 1 between them,
# and `superbpe_tokens` encodes text as training cut it: stage 1's merges inside pre-tokens, then
# stage 2's inside lines.

# %%
TRANSITIONS = (256, 512, 768, N_MERGES)
super_runs = sweep_superbpe(train_text, N_MERGES, TRANSITIONS)
assert super_runs[N_MERGES].merges == plain_run.merges and super_runs[TRANSITION].merges == merges
super_rows = []
for transition, run in super_runs.items():
    vocab = run.vocab()
    id_of = {token: i for i, token in vocab.items()}
    ids = {name: [id_of[t] for t in superbpe_tokens(run, text)] for name, text in
           (("train", train_text), ("heldout", heldout_text))}
    assert b"".join(vocab[i] for i in ids["heldout"]) == heldout_text.encode("utf-8")
    row = measure(f"SuperBPE, transition {transition}", ids["train"], ids["heldout"], len(vocab))
    super_rows.append(row | {"transition": transition, "superword tokens": len(run.superwords())})
section2 = pd.DataFrame(super_rows).set_index("transition")
section2.round(4)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
for ax, column in zip(axes, ("tokens per byte", "bits per byte")):
    ax.plot(section2.index, section2[column], "o-")
    ax.set_xlabel("transition point (merges before superwords)")
    ax.set_ylabel(column + " (held-out)")
    ax.grid(True, alpha=0.3)
fig.suptitle(f"SuperBPE on don_quixote, {256 + N_MERGES:,} tokens; the point at {N_MERGES:,} is plain BPE")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [markdown]
# The superword tokens of the earliest transition, in the order they were learned:

# %%
early = super_runs[TRANSITIONS[0]]
print([t.decode("utf-8", errors="replace") for t in early.superwords()[:30]])

# %% [hide-input]
end = section2.loc[N_MERGES]
best_t = section2["tokens per byte"].idxmin()
best_bits_t = section2["bits per byte"].idxmin()
saving = 1 - section2.loc[best_t, "tokens per byte"] / end["tokens per byte"]
display(Markdown(
    f"Against plain BPE ({end['tokens per byte']:.4f} tokens per byte), SuperBPE with the transition at "
    f"{best_t:,} needs {saving:.1%} fewer tokens ({section2.loc[best_t, 'tokens per byte']:.4f}); "
    f"its {int(section2.loc[best_t, 'superword tokens'])} superword tokens take slots that plain BPE gives to "
    f"rarer words. In bits, the best transition is "
    + (f"the end, plain BPE ({end['bits per byte']:.4f} bits per byte): on this text the superwords "
       f"make the tokens fewer but not easier to predict, probably because an order-{ORDER} model already "
       "sees \"of\" before \"the\": a superword saves a token but not a prediction, and splits a word's "
       "counts between its plain and its superword forms."
       if best_bits_t == N_MERGES else
       f"{best_bits_t:,} ({section2.loc[best_bits_t, 'bits per byte']:.4f} against plain BPE's "
       f"{end['bits per byte']:.4f}): the superwords also lengthen what an order-{ORDER} model sees "
       "in bytes.")
    + f" Our saving is far below the paper's, probably because our vocabulary is small: with {256 + N_MERGES:,} "
      "tokens there is little room for whole phrases after the words themselves."))

# %% [markdown]
# **Explore.** Choose a transition with the slider and type a sentence: the chips are its tokens under
# that run, the line below them the run's held-out numbers from the table above, then its first
# superword tokens. The last transition is plain BPE. The sentence it opens with comes from the
# held-out text; the cell after the widget prints how each transition cuts it.

# %%
explorer = SuperBPEExplorer(super_runs, section2[["tokens per byte", "bits per byte"]].to_dict("index"))
display(explorer.box)

# %% [markdown]
# The widget from code (a second one, so the one above keeps its first state): at the last
# transition its tokens are the plain tokenizer's, and at each other they are `superbpe_tokens`'.

# %%
driven = SuperBPEExplorer(super_runs, section2[["tokens per byte", "bits per byte"]].to_dict("index"))
driven.transition.value = N_MERGES
assert driven.tokens == [plain.vocab[i] for i in plain.encode_ordinary(driven.text.value)]
for transition in TRANSITIONS:
    driven.transition.value = transition
    assert driven.tokens == superbpe_tokens(super_runs[transition], driven.text.value)
    print(f"{transition:5,}: {len(driven.tokens)} tokens |", " | ".join(t.decode() for t in driven.tokens))

# %% [markdown]
# ## 3. Picky BPE: removing the scaffolding
#
# **The claim.** BPE keeps every token it makes, including those that were only a step to a longer
# one: once " Quixote" exists, "uixote" is almost never used on its own. Such tokens waste slots and,
# in a neural model, stay under-trained. Chizhov et al. (2024) remove them *during* training: after
# merging `x` and `y`, a part `x` whose **intersection over self**, `IoS(x) = f(x y) / f(x)` (the share
# of `x`'s occurrences that were inside the pair, counted before the merge), is at least a threshold
# leaves the vocabulary; its remaining occurrences are split back into the two tokens it was made of,
# and its slot goes to a later merge. They report that compression does not suffer and that
# translation models score as well or better.
#
# **Build it.** First, the scores plain BPE's own merges would give: replay the merges with
# `Merges`, and before each merge compute the IoS of both parts.

# %%
THRESHOLD = 0.9

replay = Merges(word_sequences(train_counts))
scores = []
for k, pair in enumerate(plain_run.merges):
    pair_count = replay.pairs[pair]
    for part in dict.fromkeys(pair):
        if len(part) > 1:
            scores.append((k, part, intersection_over_self(pair_count, replay.tokens[part])))
    replay.merge(pair)
picky_candidates = [(k, part, s) for k, part, s in scores if s >= THRESHOLD]
print(f"{len(picky_candidates)} times a part of a plain BPE merge had IoS >= {THRESHOLD}; the first ones:")
for k, part, s in picky_candidates[:8]:
    print(f"  merge {k:4}: {part.decode()!r:12} IoS {s:.3f}, merged into {b''.join(plain_run.merges[k]).decode()!r}")

# %% [markdown]
# `train_picky` does the removal as training goes (and keeps going until the vocabulary is full
# again); `picky_tokens_of` encodes a piece by replaying training's events, merges and removals, in
# order. Check that the replay gives every training piece the cut training left it with, then measure:

# %%
THRESHOLDS = (0.9, 0.7)
picky_rows, picky_runs = [], {}
for threshold in THRESHOLDS:
    run = picky_runs[threshold] = train_picky(train_counts, N_MERGES, threshold)
    vocab = run.vocab()
    cutter = Segmenter(vocab, picky_tokens_of(run))
    row = measure(f"Picky BPE, IoS >= {threshold}", cutter.encode(train_text), cutter.encode(heldout_text), len(vocab))
    picky_rows.append(row | {"removed": len(run.removed), "merges made": len(run.merges)})
    assert cutter.tokens(train_text) == [s for p in pretokenize(train_text, resolve_pattern("gpt2"))
                                         for s in run.final[p.encode("utf-8")]]
section3 = pd.DataFrame([baseline | {"removed": 0, "merges made": N_MERGES}, *picky_rows]).set_index("tokenizer")
section3.round(4)

# %% [markdown]
# What did the removed tokens give way to? The tokens Picky BPE has and plain BPE lacks, and some of
# the tokens it removed:

# %%
run = picky_runs[THRESHOLD]
plain_tokens = set(plain.vocab.values())
new_tokens = [t for t in run.alive if t not in plain_tokens]
print("removed:", [t.decode("utf-8", errors="replace") for _, t, _ in run.removed[:16]])
print("new:    ", [t.decode("utf-8", errors="replace") for t in new_tokens[:16]])

# %% [markdown]
# Chapter 14 counted the tokens a tokenizer never uses in its own encoded training text. The same
# count for plain BPE and for Picky BPE:

# %%
def unused(vocab: dict[int, bytes], ids: list[int]) -> int:
    used = set(ids)
    return sum(1 for i in vocab if i >= 256 and i not in used)


picky_cutter = Segmenter(run.vocab(), picky_tokens_of(run))
unused_plain = unused(plain.vocab, plain.encode_ordinary(train_text))
unused_picky = unused(run.vocab(), picky_cutter.encode(train_text))
print(f"merged tokens never used in the training text: plain BPE {unused_plain}, Picky BPE (IoS >= {THRESHOLD}) {unused_picky}")

# %% [hide-input]
p = section3.loc[f"Picky BPE, IoS >= {THRESHOLD}"]
b = section3.loc["plain BPE"]
display(Markdown(
    f"With the threshold at {THRESHOLD}, Picky BPE removed {int(p['removed'])} tokens and made "
    f"{int(p['merges made']) - N_MERGES} extra merges to fill their slots. Its held-out text takes "
    f"{p['tokens per byte']:.4f} tokens per byte against {b['tokens per byte']:.4f} "
    f"({'fewer' if p['tokens per byte'] < b['tokens per byte'] else 'more'}), and the model needs "
    f"{p['bits per byte']:.4f} bits per byte against {b['bits per byte']:.4f}. Unused tokens go from "
    f"{unused_plain} to {unused_picky}. So on our text the paper's first claim holds — compression is "
    f"{'not hurt' if p['tokens per byte'] <= b['tokens per byte'] * 1.005 else 'hurt a little'} — and the "
    f"count-based model {'gains' if p['bits per byte'] < b['bits per byte'] else 'does not gain'} (the "
    f"{abs(p['bits per byte'] - b['bits per byte']):.4f} bits per byte between them is too small to lean on "
    "either way); what the "
    "paper measured beyond that, tokens a neural model leaves under-trained, an n-gram model cannot show."))

# %% [markdown]
# ## 4. Parity-aware BPE: the worst-served language first
#
# **The claim.** Trained on many languages, BPE merges what is frequent overall, so languages with
# less text or a rarer script get longer encodings (chapter 13's token tax). Foroutan et al. (2025)
# change one line: at each step, find the language whose **development text** — parallel, the same
# content in every language — is longest in tokens so far, and make the merge that is most frequent
# in *that language's* training text. They report a Gini coefficient of per-language costs up to 89%
# lower than classical BPE's, at little cost in overall compression. The **Gini coefficient** measures
# how unequal a list of numbers is: the mean absolute difference over all pairs, divided by twice the
# mean — zero when every language costs the same, larger the more the costs differ (exercise 17.2
# asks you to write it).
#
# The data: the declaration in every language of chapter 13, cut by articles into three parts: one
# to train on, one for the development text, one to measure on.

# %%
ARTICLES = [str(k) for k in range(1, 31)]
TRAIN_ARTS, DEV_ARTS, TEST_ARTS = ARTICLES[:15], ARTICLES[15:20], ARTICLES[20:]
PARITY_MERGES = 1024
languages = list(corpus.UDHR_LANGUAGES)
udhr = {code: corpus.udhr(code) for code in languages}
part_of = {name: {code: "\n".join(udhr[code][k] for k in arts) for code in languages}
           for name, arts in (("train", TRAIN_ARTS), ("dev", DEV_ARTS), ("test", TEST_ARTS))}
print(f"{len(languages)} languages; articles {TRAIN_ARTS[0]}-{TRAIN_ARTS[-1]} train "
      f"({sum(len(t.encode()) for t in part_of['train'].values()):,} bytes in all), {DEV_ARTS[0]}-{DEV_ARTS[-1]} are "
      f"the development text, {TEST_ARTS[0]}-{TEST_ARTS[-1]} measure")

# %% [markdown]
# **Build it.** One `Merges` per language for its training text and one for its development text;
# every merge is applied to all of them.

# %%
def parity_merges(train_texts: dict[str, str], dev_texts: dict[str, str], n_merges: int) -> list[tuple[bytes, bytes]]:
    train_m = {code: Merges(word_sequences(count_pretokens(t))) for code, t in train_texts.items()}
    dev_m = {code: Merges(word_sequences(count_pretokens(t))) for code, t in dev_texts.items()}
    merges = []
    while len(merges) < n_merges:
        worst = max(dev_m, key=lambda code: dev_m[code].total_tokens())  # the first of equals
        found = train_m[worst].best()
        if found is None:
            break
        merges.append(found[0])
        for m in (*train_m.values(), *dev_m.values()):
            m.merge(found[0])
    return merges


CHECK_MERGES = 200
assert parity_merges(part_of["train"], part_of["dev"], CHECK_MERGES) == \
    train_parity(part_of["train"], part_of["dev"], CHECK_MERGES).merges
parity_run = train_parity(part_of["train"], part_of["dev"], PARITY_MERGES)
chosen = Counter(parity_run.chosen_for)
print(f"your loop == train_parity for {CHECK_MERGES} merges; merges chosen for each language:",
      ", ".join(f"{corpus.UDHR_LANGUAGES[c][1]} {n}" for c, n in chosen.most_common()))

# %% [markdown]
# **Measure it.** Classical BPE learns from all the training articles at once, at the same
# vocabulary size. For each language: its test articles in tokens, relative to English's, and bits
# per byte under a model of order `ORDER` trained on all the training text.

# %%
classical_run = train(list(part_of["train"].values()), 256 + PARITY_MERGES)
parity_tokenizers = {"classical": Tokenizer(classical_run.vocab, classical_run.merges),
                     "parity-aware": Tokenizer(vocab_of(a + b for a, b in parity_run.merges), parity_run.merges)}
all_train = "\n".join(part_of["train"].values())
rows = []
for name, tok in parity_tokenizers.items():
    model = KneserNey(tok.encode_ordinary(all_train), ORDER, tok.n_vocab)
    for code in languages:
        text = part_of["test"][code]
        ids = tok.encode_ordinary(text)
        rows.append({"tokenizer": name, "language": corpus.UDHR_LANGUAGES[code][1], "tokens": len(ids),
                     "tokens per byte": len(ids) / len(text.encode("utf-8")),
                     "bits per byte": bits_per_byte(model, ids, text)})
parity = pd.DataFrame(rows)
english = parity[parity["language"] == "English"].set_index("tokenizer")["tokens"]
parity["cost / English"] = parity["tokens"] / parity["tokenizer"].map(english)
section4 = parity.pivot(index="language", columns="tokenizer", values=["cost / English", "bits per byte"])
section4 = section4.sort_values(("cost / English", "classical"), ascending=False)
ginis = parity.groupby("tokenizer")["tokens"].apply(lambda t: gini(list(t)))
print("Gini coefficient of the test tokens per language:", {k: round(v, 4) for k, v in ginis.items()})
section4.round(3)

# %%
fig, ax = plt.subplots(figsize=(8, 5))
section4["cost / English"].plot.barh(ax=ax)
ax.axvline(1, color="black", linewidth=0.8)
ax.set_xlabel("test articles in tokens, relative to English")
ax.set_title(f"Classical against parity-aware BPE, {256 + PARITY_MERGES:,} tokens")
ax.grid(True, axis="x", alpha=0.3)
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
totals = parity.groupby("tokenizer")["tokens"].sum()
mean_bits = parity.groupby("tokenizer")["bits per byte"].mean()
worst_c = section4[("cost / English", "classical")].idxmax()
eng_cost = english["parity-aware"] / english["classical"] - 1
display(Markdown(
    f"Parity-aware BPE lowers the Gini coefficient from {ginis['classical']:.4f} to {ginis['parity-aware']:.4f} "
    f"({1 - ginis['parity-aware'] / ginis['classical']:.0%} lower). The worst-served language under classical BPE, "
    f"{worst_c}, goes from {section4.loc[worst_c, ('cost / English', 'classical')]:.2f}× English's tokens to "
    f"{section4.loc[worst_c, ('cost / English', 'parity-aware')]:.2f}×. English pays: its test articles take "
    f"{english['parity-aware']:,} tokens instead of {english['classical']:,} ({eng_cost:+.1%}), and all languages "
    f"together {totals['parity-aware']:,} instead of {totals['classical']:,} "
    f"({totals['parity-aware'] / totals['classical'] - 1:+.1%}) — more than the paper's small cost, probably because with "
    f"only {PARITY_MERGES:,} merges every merge given to one language is taken from the others. The mean bits per "
    f"byte over the languages go from {mean_bits['classical']:.4f} to {mean_bits['parity-aware']:.4f}"
    + (": about the same on average, though single languages move by up to "
       f"{(section4[('bits per byte', 'parity-aware')] - section4[('bits per byte', 'classical')]).abs().max():.2f} "
       "bits per byte either way (the table above)."
       if abs(mean_bits["classical"] - mean_bits["parity-aware"]) < 0.01 else ".")))

# %% [markdown]
# ## 5. What held on our text
#
# Every variant against plain BPE at the same vocabulary size, on the same held-out text (sections
# 1-3: the novel; section 4: the declaration's test articles, all languages together):

# %%
summary = pd.DataFrame([
    {"variant": "optimal segmentation", **section1.loc["fewest tokens", ["tokens per byte", "bits per byte"]],
     "plain tokens per byte": baseline["tokens per byte"], "plain bits per byte": baseline["bits per byte"]},
    {"variant": f"SuperBPE, transition {best_t}", **section2.loc[best_t, ["tokens per byte", "bits per byte"]],
     "plain tokens per byte": baseline["tokens per byte"], "plain bits per byte": baseline["bits per byte"]},
    {"variant": f"Picky BPE, IoS >= {THRESHOLD}", **p[["tokens per byte", "bits per byte"]],
     "plain tokens per byte": baseline["tokens per byte"], "plain bits per byte": baseline["bits per byte"]},
])
test_bytes = sum(len(part_of["test"][c].encode("utf-8")) for c in languages)
summary.loc[len(summary)] = {"variant": "parity-aware BPE (declaration)",
                             "tokens per byte": totals["parity-aware"] / test_bytes,
                             "bits per byte": mean_bits["parity-aware"],
                             "plain tokens per byte": totals["classical"] / test_bytes,
                             "plain bits per byte": mean_bits["classical"]}
summary.set_index("variant").round(4)

# %% [markdown]
# ## Recap
#
# * The vocabulary and the way a text is cut with it are two choices: **optimal segmentation** keeps
#   BPE's vocabulary and finds the fewest tokens by a shortest path — fewer tokens, and the table says
#   what it did to the bits.
# * **SuperBPE** lets merges after a transition point cross word boundaries; the transition trades
#   subword tokens for phrases at a fixed vocabulary size.
# * **Picky BPE** drops a token whose occurrences were almost all inside the pair just merged
#   (intersection over self), and reuses its slot.
# * **Parity-aware BPE** gives each merge to the language that is worst compressed on a parallel
#   development text: a lower Gini coefficient, paid for by the best-served languages.
# * Each is a small change to one trainer (`bpe_course.algorithms.variants.Merges`), and each, switched off, is
#   plain BPE: the tests check exactly that.
#
# ## Exercises

# %%
from bpe_course.exercises.ch17 import check_fewest_count, check_gini, check_superword

# %% [markdown]
# **Exercise 17.1.** Write `fewest_count(piece, vocab)`: the smallest number of tokens of `vocab` (a set
# of bytes that holds at least every single byte of `piece`) that spell `piece` — just the number.

# %%
def fewest_count(piece: bytes, vocab: set[bytes]) -> int:
    return 0  # replace with your code


check_fewest_count(fewest_count)

# %% [markdown]
# **Exercise 17.2.** Write `my_gini(values)`: the Gini coefficient of a list of positive numbers, the
# mean absolute difference over all ordered pairs divided by twice the mean (0 when all are equal).

# %%
def my_gini(values: list[float]) -> float:
    return 0.0  # replace with your code


check_gini(my_gini)

# %% [markdown]
# **Exercise 17.3.** Write `spans_words(token)`: does a token (bytes) cross a word boundary — is there
# a space inside it, with something that is not a space on both sides? `b" of the"` does, `b" the"`
# does not.

# %%
def spans_words(token: bytes) -> bool:
    return False  # replace with your code


check_superword(spans_words)

# %% [markdown]
# <details><summary>Solutions</summary>
#
# ```python
# def fewest_count(piece, vocab):
#     best = [0] * (len(piece) + 1)
#     for i in range(len(piece) - 1, -1, -1):
#         best[i] = min(best[j] + 1 for j in range(i + 1, len(piece) + 1) if piece[i:j] in vocab)
#     return best[0]
#
# def my_gini(values):
#     mean = sum(values) / len(values)
#     return sum(abs(a - b) for a in values for b in values) / (2 * len(values) ** 2 * mean)
#
# def spans_words(token):
#     return b" " in token.strip(b" ")
# ```
# </details>
#
# [← 16 What a tokenizer does to a model](16_what_a_tokenizer_does_to_a_model.ipynb) · [00 Start here](00_start_here.ipynb) · [18 Open models' tokenizers and the chat prompt →](18_open_models_and_chat.ipynb)
