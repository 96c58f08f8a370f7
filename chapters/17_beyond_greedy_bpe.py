# %% [markdown]
# # 17 · Beyond greedy BPE
#
# [← 16 What a tokenizer does to a model](16_what_a_tokenizer_does_to_a_model.ipynb) · [00 Start here](00_start_here.ipynb) · [18 Open models' tokenizers: SentencePiece and Mistral →](18_open_models_and_chat.ipynb)
#
# Since 2024 papers have changed the BPE algorithm itself: what it merges, what it keeps and how it
# cuts a text with the vocabulary it learned. Each change is a few dozen lines on top of the merge
# loop you wrote in chapter 03, and chapter 16 gave us the yardstick to judge them: **bits per byte**
# of held-out text under an n-gram model. In this chapter you will build four variants, each against
# plain BPE on the same text at the same vocabulary size:
#
# 1. **optimal segmentation** ([Schmidt et al., 2024](../docs/references.md)): the same vocabulary, but each piece cut into
#    the fewest tokens, by a shortest path — do fewer tokens mean fewer bits?
# 2. **SuperBPE** ([Liu et al., 2025](../docs/references.md)): tokens that span words, learned after a *transition point*,
#    with a widget to move that point;
# 3. **Picky BPE** ([Chizhov et al., 2024](../docs/references.md)): tokens that were only a step towards a longer one are
#    removed during training, and their slots reused;
# 4. **parity-aware BPE** ([Foroutan et al., 2025](../docs/references.md)): each merge helps the language that is compressed
#    worst so far, on the declaration in 18 languages of chapter 13.
#
# Each section: the paper's claim, your own version of the variant, a check against the package's
# (`bpe_course.algorithms.variants`), the measurement, and what held on our text. The papers, and the
# code of theirs this chapter read, are in [the references](../docs/references.md). Every comparison
# with plain BPE goes through chapter 16's yardstick, `compare`, over the held-out text's paragraphs:
# a difference is stated as a finding only when its interval leaves out 0. The papers trained models
# with billions of parameters; we train count-based models on a novel in seconds, so read the
# results as what *this* text says, not as a verdict on the papers.

# %%
from collections import Counter
from random import Random

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from bpe_course import (Seeds, Tokenizer, bootstrap, compare, corpus, count_pretokens, how_many, paragraph_bytes,
                        pretokenize, resolve_pattern, train)
from bpe_course.algorithms import (KneserNey, Merges, Segmenter, bits_by_unit, fewest_tokens, gini,
                                   intersection_over_self, is_superword, line_units, picky_tokens_of,
                                   released_stage2_allows, superbpe_tokens, sweep_superbpe, tokens_by_unit,
                                   train_parity, train_picky, train_superbpe, vocab_of, word_sequences, words_in)
from bpe_course.widgets import SuperBPEExplorer

# %% [markdown]
# The text: the start of `don_quixote`'s training part, and the start of its held-out part, which no
# tokenizer and no model ever sees. Every tokenizer below has `N_MERGES` merges (or, for Picky BPE,
# as many tokens), and every model is Kneser-Ney of order `ORDER` (chapter 16), trained on the
# training text as that tokenizer encodes it. The held-out text's paragraphs are the units every
# comparison resamples, `N_RESAMPLES` times.

# %%
TRAIN_CHARS = 300_000
HELDOUT_CHARS = 100_000
N_MERGES = 1024
ORDER = 3
N_RESAMPLES = 2000  # bpe_course.compare's default
N_SELECTED = 10_000  # the best against the runner-up: more resamples steady the interval's ends (they do not allow for the choice)

book_train, book_heldout = corpus.train_heldout("don_quixote")
train_text, heldout_text = book_train[:TRAIN_CHARS], book_heldout[:HELDOUT_CHARS]
heldout_bytes = len(heldout_text.encode("utf-8"))
paragraphs = paragraph_bytes(heldout_text)
pd.set_option("display.max_colwidth", None)  # a verdict is a sentence: show it whole
plain_run = train(train_text, 256 + N_MERGES)
plain = Tokenizer(plain_run.vocab, plain_run.merges)
print(plain, f"| held-out text: {heldout_bytes:,} bytes in {len(paragraphs)} paragraphs")

# %% [markdown]
# One function measures every tokenizer the same way: **tokens per byte** of the held-out text (lower
# is shorter) and **bits per byte** (lower is a better model), and keeps both per paragraph in
# `units`, so that `against_plain(name)` can compare a tokenizer with plain BPE:

# %%
units = {}  # tokenizer -> {"bits": per paragraph (bits, bytes), "tokens": per paragraph (tokens, bytes)}


def measure(name: str, train_ids: list[int], heldout_ids: list[int], vocab: dict[int, bytes]) -> dict:
    model = KneserNey(train_ids, ORDER, max(vocab) + 1)
    units[name] = {"bits": bits_by_unit(model, heldout_ids, vocab, paragraphs),
                   "tokens": tokens_by_unit(heldout_ids, vocab, paragraphs)}
    return {"tokenizer": name, "n_vocab": max(vocab) + 1, "tokens per byte": len(heldout_ids) / heldout_bytes,
            "bits per byte": sum(b for b, _ in units[name]["bits"]) / heldout_bytes}


def against_plain(name: str) -> dict:
    """The tokenizer against plain BPE: its tokens (relative) and its bits per byte, each with an interval."""
    a, b = units[name], units["plain BPE"]
    return {"tokens": compare(a["tokens"], b["tokens"], relative=True, unit="", words=("fewer", "more"),
                              n_resamples=N_RESAMPLES),
            "bits": compare(a["bits"], b["bits"], n_resamples=N_RESAMPLES)}


baseline = measure("plain BPE", plain.encode_ordinary(train_text), plain.encode_ordinary(heldout_text), plain.vocab)
pd.DataFrame([baseline]).round(4)

# %% [markdown]
# The variants all run on one trainer, `Merges`: the training text's pre-tokens as symbol sequences
# with counts. It is slower than `train` and simpler: no trick but an index from each pair to the
# sequences that hold it. Everything this chapter asks of it:
#
# * `best()` — the pair plain BPE merges next (highest count, ties to the greatest pair) and its count;
# * `merge(pair)` — join the pair everywhere, recounting only the sequences that hold it;
# * `split(token, parts)` — undo a token wherever it stands (Picky BPE, section 3);
# * `forbid(pair)` — never offer the pair again (SuperBPE's refused merges, section 2);
# * `pairs` and `tokens` — the counts now, of each adjacent pair and of each symbol;
#   `total_tokens()` — the text's length in symbols now; `state()` — each sequence's bytes and its symbols now.

# %%
demo = Merges({(b"l", b"o", b"w"): 5, (b"l", b"o", b"t"): 2})
print("best:", demo.best(), "| merge returns the pair's count:", demo.merge((b"l", b"o")))
print("now:", demo.best(), dict(demo.tokens), demo.total_tokens(), demo.state())
demo.split(b"lo", lambda token: (b"l", b"o"))
print("after split(b'lo'):", demo.state())

# %% [markdown]
# First, the check everything else rests on — its merges are `train`'s:

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
    print(f"  {piece.decode()!r:20} merge order {merged}  shortest path {mine}")

# %% [markdown]
# **Ties.** A piece often has several shortest cuts, and `shortest` keeps one of them: scanning from
# the end and trying the longest token first, it keeps the cut whose *first* token is longest, then
# the same rule from there on — this course's rule, `fewest_tokens`' default. PathPiece's own code
# (its Rust segmenter) runs the other way: forward over the positions where a token ends, widths from
# short to long, a tie won by the later, longer one — it keeps the cut whose *last* token is longest
# (`ties="longest last"`). Its other option draws among the tied tokens at random at each position
# (`ties="random"`). How often do the rules disagree? Count the shortest cuts of each held-out piece:

# %%
def shortest_cuts(piece: bytes, vocab: set[bytes], longest: int) -> int:
    """How many different cuts of the piece have the fewest tokens."""
    n = len(piece)
    fewest, ways = [0] + [n + 1] * n, [1] + [0] * n
    for end in range(1, n + 1):
        for start in range(max(0, end - longest), end):
            if piece[start:end] in vocab:
                if fewest[start] + 1 < fewest[end]:
                    fewest[end], ways[end] = fewest[start] + 1, ways[start]
                elif fewest[start] + 1 == fewest[end]:
                    ways[end] += ways[start]
    return ways[n]


# %%
first_rule = {piece: fewest_tokens(piece, vocab_set, longest) for piece in pieces}
last_rule = {piece: fewest_tokens(piece, vocab_set, longest, ties="longest last") for piece in pieces}
merge_order = {piece: [plain.vocab[i] for i in plain.encode_ordinary(piece.decode("utf-8"))] for piece in pieces}
tied = [piece for piece in pieces if shortest_cuts(piece, vocab_set, longest) > 1]
ties_table = pd.Series({
    "merge order is a shortest cut": sum(len(merge_order[p]) == len(first_rule[p]) for p in pieces),
    "merge order is the longest-first cut": sum(merge_order[p] == first_rule[p] for p in pieces),
    "merge order is the longest-last cut": sum(merge_order[p] == last_rule[p] for p in pieces),
    "more than one shortest cut": len(tied),
    "the two rules differ": sum(first_rule[p] != last_rule[p] for p in pieces)}, name="different held-out pieces")
print(f"{len(pieces):,} different held-out pieces")
ties_table.to_frame().assign(share=lambda t: (t.iloc[:, 0] / len(pieces)).round(3))

# %% [markdown]
# **Measure it.** A `Segmenter` cuts text into pre-tokens and each piece with a function you give it;
# the model learns from the training text cut the same way, so it is scored on segmentations like
# the ones it saw. The three tie rules, each against plain BPE; the random one is run with each seed
# of `RANDOM_SEEDS`, every occurrence of a piece drawn afresh (`cache=False`), as PathPiece draws
# within a document, and compared as `Seeds`:

# %%
RANDOM_SEEDS = (0, 1, 2)
RULES = {"longest first token (this course)": "longest first", "longest last token (PathPiece)": "longest last"}
for name, ties in RULES.items():
    cutter = Segmenter(plain.vocab, lambda piece, ties=ties: fewest_tokens(piece, vocab_set, longest, ties=ties))
    assert cutter.decode(cutter.encode(heldout_text)) == heldout_text
    measure(name, cutter.encode(train_text), cutter.encode(heldout_text), plain.vocab)
random_runs = []
for seed in RANDOM_SEEDS:
    rng = Random(seed)
    cutter = Segmenter(plain.vocab, lambda piece: fewest_tokens(piece, vocab_set, longest, ties="random", rng=rng),
                       cache=False)
    measure(f"random ties, seed {seed}", cutter.encode(train_text), cutter.encode(heldout_text), plain.vocab)
    random_runs.append(units.pop(f"random ties, seed {seed}"))
units["random ties (PathPiece's option)"] = {kind: Seeds([run[kind] for run in random_runs]) for kind in ("bits", "tokens")}
section1 = {name: against_plain(name) for name in [*RULES, "random ties (PathPiece's option)"]}
rules_between = compare(units["longest last token (PathPiece)"]["bits"], units["longest first token (this course)"]["bits"],
                        n_resamples=N_RESAMPLES)
pd.DataFrame({name: {"tokens against plain BPE": d["tokens"].verdict, "bits against plain BPE": d["bits"].verdict}
              for name, d in section1.items()}).T

# %% [hide-input]
first, last, draw = section1.values()
deterministic = {name: d["bits"] for name, d in section1.items() if not name.startswith("random")}
gainers = [name for name, d in deterministic.items() if d.direction == "lower"]
display(Markdown(
    f"The shortest path cuts the held-out text into {first['tokens'].word('fewer', 'more', 'about as many')} tokens "
    f"than merge order: {first['tokens'].verdict} (every rule keeps a shortest cut, so all three save the same). "
    f"Which shortest cut it keeps matters, since {len(tied) / len(pieces):.0%} of the different held-out pieces have "
    "more than one. In bits, against plain BPE: "
    + "; ".join(f"{name}, {d['bits'].verdict}" for name, d in section1.items()) + ". "
    + (f"The two deterministic rules differ from each other by more than either differs from plain BPE: "
       f"{rules_between.sentence('the last-token rule', 'the first-token rule')}. "
       if rules_between.clear and not any(d.clear for d in deterministic.values()) else
       f"Between the two deterministic rules: {rules_between.verdict}. ")
    + (f"So at {plain.n_vocab:,} tokens fewer tokens did not buy a clearly better model with either deterministic "
       "rule" if not gainers else f"So fewer tokens bought a better model only with the {' and the '.join(gainers)} rule")
    + (", and random ties cost bits: a piece cut differently at each occurrence spreads its counts over more "
       "n-grams." if draw["bits"].direction == "higher" else ".")
    + f" Merge order already gives *a* shortest cut for "
      f"{ties_table['merge order is a shortest cut'] / len(pieces):.0%} of the different held-out pieces, but the very "
      f"cut the first-token rule keeps for only {ties_table['merge order is the longest-first cut'] / len(pieces):.0%} "
      f"({ties_table['merge order is the longest-last cut'] / len(pieces):.0%} with the last-token rule). "
      "Schmidt et al. make the general point — compression alone is not what a model needs; this is the n-gram "
      "version of it, not a replication, and it shows how much a rule the paper's text does not dwell on can move "
      "the result."))

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
# stays on its own: in this hard-wrapped novel a line break is not part of a phrase — this course's
# own choice; the released trainer merges across line breaks.) The released implementation keeps
# three limits in stage 2 that this one does not: a pre-tokenizer still splits off runs of up to three
# digits, runs of two or more punctuation marks and runs of spaces, no token may hold a colon followed by a space, and
# none may span more than four words (PythonNut/superbpe, `scripts/extend_tokenizer.sh`;
# alisawuffles/tokenizers-superbpe, `trainer.rs`); a pair those rules refuse is never merged. Section
# 2's last cell counts how many of our merges they would refuse. With `Merges` it is two loops:

# %%
TRANSITION = 768

stage1 = Merges(word_sequences(train_counts))
merges = []
while len(merges) < TRANSITION:
    pair, _count = stage1.best()
    stage1.merge(pair)
    merges.append(pair)
left_by_stage1 = stage1.state()  # each pre-token's bytes -> its symbols now
text_lines = line_units(train_text, "gpt2")
stage2 = Merges(Counter(tuple(s for piece in line for s in left_by_stage1[piece]) for line in text_lines))
while len(merges) < N_MERGES:
    pair, _count = stage2.best()
    stage2.merge(pair)
    merges.append(pair)

assert merges == train_superbpe(train_text, N_MERGES, TRANSITION).merges
assert merges[:TRANSITION] == plain_run.merges[:TRANSITION]
print(text_lines[3], "->", [s for piece in text_lines[3] for s in left_by_stage1[piece]])
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
    row = measure(f"SuperBPE, transition {transition}", ids["train"], ids["heldout"], vocab)
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
fig.suptitle(f"SuperBPE on don_quixote, {256 + N_MERGES:,} tokens; the point at {N_MERGES:,} is plain BPE\n"
             "(the y axes do not start at 0: the differences and their intervals are in the table below)")
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [markdown]
# The superword tokens of the earliest transition, in the order they were learned:

# %%
early = super_runs[TRANSITIONS[0]]
print([t.decode("utf-8", errors="replace") for t in early.superwords()[:30]])

# %% [markdown]
# Each transition against plain BPE (the transition at the end), and two of the released trainer's
# three limits, the colon and the four words, applied to every token stage 2 made: how many would they
# refuse? (The third, its pre-tokenizer's digit and punctuation splits, is not counted here.)

# %%
versus = {t: against_plain(f"SuperBPE, transition {t}") for t in TRANSITIONS if t != N_MERGES}
refused = {t: [a + b for a, b in super_runs[t].merges[t:] if not released_stage2_allows(a + b)] for t in versus}
most_words = {t: max((words_in(a + b) for a, b in super_runs[t].merges[t:]), default=0) for t in versus}
pd.DataFrame({f"transition {t}": {"tokens against plain BPE": d["tokens"].verdict,
                                  "bits against plain BPE": d["bits"].verdict,
                                  "stage-2 tokens the colon and four-word limits refuse": len(refused[t]),
                                  "most words in one token": most_words[t]} for t, d in versus.items()}).T

# %% [hide-input]
end = section2.loc[N_MERGES]
by_length = sorted(versus, key=lambda t: versus[t]["tokens"].estimate)
saving, runner = by_length[0], by_length[1]
length_gap = compare(units[f"SuperBPE, transition {saving}"]["tokens"], units[f"SuperBPE, transition {runner}"]["tokens"],
                     relative=True, unit="", words=("fewer", "more"), n_resamples=N_SELECTED)
behind = [t for t, d in versus.items() if d["bits"].direction == "higher"]
display(Markdown(
    "Against plain BPE, in tokens: " + "; ".join(f"transition {t:,}, {d['tokens'].verdict}" for t, d in versus.items())
    + f". The largest saving, at {saving:,}, is "
    + length_gap.word("larger than", "smaller than", "within noise of")
    + f" the next, at {runner:,} ({length_gap.verdict}, with {N_SELECTED:,} resamples"
    + ("; the interval reaches 0, so the verdict is on the edge" if min(abs(length_gap.low), abs(length_gap.high)) < 0.0001
       else "") + ")"
    + (": the two cannot be told apart in length" if not length_gap.clear else "")
    + ". This comparison was chosen after looking at the results (the best against the runner-up), and an interval "
      "does not allow for that choice: a gap picked because it came out largest tends to overstate itself. "
    + "In bits: " + "; ".join(f"transition {t:,}, {d['bits'].verdict}" for t, d in versus.items()) + ". "
    + (f"So on this text every transition needs fewer tokens and more bits than plain BPE "
       f"({end['bits per byte']:.4f} bits per byte): the superwords make the tokens fewer but not easier to "
       f"predict, probably because an order-{ORDER} model already sees \"of\" before \"the\": a superword saves a "
       "token but not a prediction, and splits a word's counts between its plain and its superword forms."
       if len(behind) == len(versus) and all(d["tokens"].direction == "lower" for d in versus.values()) else
       f"So {how_many(len(behind), len(versus))} of the transitions are behind plain BPE in bits.")
    + f" Our saving is far below the paper's, probably because our vocabulary is small: with {256 + N_MERGES:,} "
      "tokens there is little room for whole phrases after the words themselves. The released trainer's colon and "
      "four-word limits "
    + (f"would refuse {sum(map(len, refused.values()))} of our stage-2 tokens (none holds more than "
       f"{max(most_words.values())} words)" if any(refused.values()) else
       f"refuse none of our stage-2 tokens (none holds more than {max(most_words.values())} words), so at this "
       "size those two would change nothing")
    + "; its digit, punctuation and space splits and its merges across line breaks are the differences left."))

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
# of `x`'s occurrences that were inside the pair, counted before the merge), is *greater than* a
# threshold leaves the vocabulary; its remaining occurrences are split back into the two tokens it
# was made of, and its slot goes to a later merge. They report that compression does not suffer and
# that translation models score as well or better.
#
# Their code (pchizhov/picky_bpe, `bpe_trainer.py`) computes the score after the merge, as the merges
# just made over the part's occurrences left plus those merges, and removes on a strict `>`. For
# `x != y` that is `f(x y) / f(x)`; for a pair of a token with itself, `(x, x)`, each merge takes two
# `x`, so the score is `m / (f(x) - m)`. `train_picky` does the same.
#
# **Build it.** First, the scores plain BPE's own merges would give: replay the merges with
# `Merges`, and after each merge compute the IoS of both parts that way.

# %%
THRESHOLD = 0.9

replay = Merges(word_sequences(train_counts))
scores = []
for k, pair in enumerate(plain_run.merges):
    token = pair[0] + pair[1]
    had = replay.tokens[token]
    replay.merge(pair)
    made = replay.tokens[token] - had  # the merges just made
    for part in dict.fromkeys(pair):
        if len(part) > 1:
            scores.append((k, part, intersection_over_self(made, replay.tokens[part] + made)))
picky_candidates = [(k, part, s) for k, part, s in scores if s > THRESHOLD]
print(f"{len(picky_candidates)} times a part of a plain BPE merge had IoS > {THRESHOLD}; the first ones:")
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
    row = measure(f"Picky BPE, IoS > {threshold}", cutter.encode(train_text), cutter.encode(heldout_text), vocab)
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
print(f"merged tokens never used in the training text: plain BPE {unused_plain}, Picky BPE (IoS > {THRESHOLD}) {unused_picky}")

# %%
picky_versus = {threshold: against_plain(f"Picky BPE, IoS > {threshold}") for threshold in THRESHOLDS}
pd.DataFrame({f"IoS > {t}": {"tokens against plain BPE": d["tokens"].verdict, "bits against plain BPE": d["bits"].verdict}
              for t, d in picky_versus.items()}).T

# %% [hide-input]
p = section3.loc[f"Picky BPE, IoS > {THRESHOLD}"]
d = picky_versus[THRESHOLD]
display(Markdown(
    f"With the threshold at {THRESHOLD}, Picky BPE removed {int(p['removed'])} tokens and made "
    f"{int(p['merges made']) - N_MERGES} extra merges to fill their slots. Against plain BPE its held-out text "
    f"takes {d['tokens'].word('fewer', 'more', 'about as many')} tokens ({d['tokens'].verdict}), and the model is "
    f"{d['bits'].verdict}. Unused tokens go from {unused_plain} to {unused_picky}. So on our text the paper's first "
    "claim, that compression does not suffer, "
    + d["tokens"].word("holds, and compression even improves a little", "does not hold", "holds")
    + "; and the count-based model "
    + d["bits"].word("gains", "loses a little: the removed tokens' n-grams were worth more to it than the new "
                     "ones'", "neither gains nor loses measurably")
    + ". " + ("In bits at the other thresholds: " + ", ".join(
        f"at {t}, {picky_versus[t]['bits'].verdict}"
        + (" (the same direction)" if picky_versus[t]["bits"].direction == d["bits"].direction else " (another direction)")
        for t in THRESHOLDS[1:]) + ". " if len(THRESHOLDS) > 1 else "")
    + "What the paper measured beyond that, tokens a neural model leaves under-trained, an n-gram model cannot "
      "show."))

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
# mean — zero when every language costs the same, larger the more the costs differ
# (`variants.gini`).
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
# vocabulary size. For each language and each test article, encoded on its own: its tokens, and its
# bits under a model of order `ORDER` trained on all the training text. The test articles are the
# units every interval below resamples. The Gini coefficient is no ratio of sums, so `compare` cannot
# take it; `bootstrap(n_units, statistic)` (`bpe_course.compare`) is the same resampling for any
# statistic: it draws the units' indices with replacement `N_RESAMPLES` times, calls
# `statistic(drawn)` on each draw, and returns the estimate with its 95% interval.

# %%
classical_run = train(list(part_of["train"].values()), 256 + PARITY_MERGES)
parity_tokenizers = {"classical": Tokenizer(classical_run.vocab, classical_run.merges),
                     "parity-aware": Tokenizer(vocab_of(a + b for a, b in parity_run.merges), parity_run.merges)}
all_train = "\n".join(part_of["train"].values())
test_units = {}  # (tokenizer, language code) -> {"tokens": per test article (tokens, bytes), "bits": (bits, bytes)}
for name, tok in parity_tokenizers.items():
    model = KneserNey(tok.encode_ordinary(all_train), ORDER, tok.n_vocab)
    for code in languages:
        articles = [udhr[code][k] for k in TEST_ARTS]
        ids = [tok.encode_ordinary(article) for article in articles]
        sizes = [len(article.encode("utf-8")) for article in articles]
        test_units[name, code] = {"tokens": [(len(i), n) for i, n in zip(ids, sizes)],
                                  "bits": [(model.bits(i), n) for i, n in zip(ids, sizes)]}
print(f"{len(languages)} languages × {len(TEST_ARTS)} test articles, each encoded and scored on its own")


# %%
def total(name: str, code: str, kind: str, drawn=range(len(TEST_ARTS))) -> float:
    return sum(test_units[name, code][kind][k][0] for k in drawn)


section4 = pd.DataFrame({
    **{("cost / English", name): {corpus.UDHR_LANGUAGES[c][1]: total(name, c, "tokens") / total(name, "eng", "tokens")
                                  for c in languages} for name in parity_tokenizers},
    **{("bits per byte", name): {corpus.UDHR_LANGUAGES[c][1]: total(name, c, "bits") / sum(
        n for _, n in test_units[name, c]["bits"]) for c in languages} for name in parity_tokenizers}})
section4 = section4.sort_values(("cost / English", "classical"), ascending=False)
ginis = {name: gini([total(name, c, "tokens") for c in languages]) for name in parity_tokenizers}
gini_change = bootstrap(len(TEST_ARTS), lambda drawn: gini([total("parity-aware", c, "tokens", drawn) for c in languages])
                        - gini([total("classical", c, "tokens", drawn) for c in languages]), n_resamples=N_RESAMPLES)
print("Gini coefficient of the test tokens per language:", {k: round(v, 4) for k, v in ginis.items()},
      "| parity-aware minus classical:", gini_change)
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

# %% [markdown]
# Parity-aware against classical BPE: English's tokens, all languages' tokens and bits pooled (every
# language's test articles together), and each language's bits per byte:

# %%
def pooled(name: str, kind: str) -> list[tuple[float, int]]:
    return [unit for code in languages for unit in test_units[name, code][kind]]


parity_versus = {
    "English's tokens": compare(test_units["parity-aware", "eng"]["tokens"], test_units["classical", "eng"]["tokens"],
                                relative=True, unit="", words=("shorter", "longer"), n_resamples=N_RESAMPLES),
    "all tokens, pooled": compare(pooled("parity-aware", "tokens"), pooled("classical", "tokens"), relative=True,
                                  unit="", words=("shorter", "longer"), n_resamples=N_RESAMPLES),
    "bits per byte, pooled": compare(pooled("parity-aware", "bits"), pooled("classical", "bits"),
                                     n_resamples=N_RESAMPLES)}
by_language = {corpus.UDHR_LANGUAGES[c][1]: compare(test_units["parity-aware", c]["bits"],
                                                    test_units["classical", c]["bits"], n_resamples=N_RESAMPLES)
               for c in languages}
pd.Series({what: d.verdict for what, d in parity_versus.items()}
          | {f"bits per byte, {lang}": d.verdict for lang, d in by_language.items()}, name="parity-aware against classical")

# %% [hide-input]
worst_c = section4[("cost / English", "classical")].idxmax()
english_pays = parity_versus["English's tokens"]
gains = [lang for lang, d in by_language.items() if d.direction == "lower"]
losses = [lang for lang, d in by_language.items() if d.direction == "higher"]
level = [lang for lang, d in by_language.items() if not d.clear]
display(Markdown(
    f"Parity-aware BPE takes the Gini coefficient from {ginis['classical']:.4f} to {ginis['parity-aware']:.4f}, a "
    f"change of {gini_change}"
    + (" — lower, by more than its noise" if gini_change.high < 0 else
       " — higher, by more than its noise" if gini_change.low > 0 else " — within noise") + ". "
    f"Under classical BPE, {worst_c} needs {section4.loc[worst_c, ('cost / English', 'classical')]:.2f}× English's "
    f"tokens; parity-aware BPE brings it to {section4.loc[worst_c, ('cost / English', 'parity-aware')]:.2f}×. "
    f"English {english_pays.word('gains', 'pays', 'neither pays nor gains measurably')}: in tokens its test articles "
    f"come out {english_pays.verdict}, and all languages together {parity_versus['all tokens, pooled'].verdict}"
    + (f" — more than the paper's small cost, probably because with only {PARITY_MERGES:,} merges every merge given "
       "to one language is taken from the others" if parity_versus["all tokens, pooled"].direction == "higher" else "")
    + f". In bits, over all languages together, parity-aware BPE is {parity_versus['bits per byte, pooled'].verdict}; "
      "language by language it is "
    + ", ".join(f"{label} for {len(names)}" for label, names in (("ahead", gains), ("behind", losses),
                                                                  ("within noise", level)))
    + f" of the {len(by_language)}, each interval over the language's few test articles, with "
      f"{len(by_language)} comparisons at once: a verdict or two may be chance."))

# %% [markdown]
# ## 5. What held on our text
#
# Every variant against plain BPE at the same vocabulary size, on the same held-out text (sections
# 1-3: the novel; section 4: the declaration's test articles, all languages pooled), each column one
# measure for every row:

# %%
novel_rows = {"shortest path, longest first token": "longest first token (this course)",
              "shortest path, longest last token": "longest last token (PathPiece)",
              f"SuperBPE, transition {saving}": f"SuperBPE, transition {saving}",
              f"Picky BPE, IoS > {THRESHOLD}": f"Picky BPE, IoS > {THRESHOLD}"}


def ratio(run: list[tuple[float, int]]) -> float:
    return sum(v for v, _ in run) / sum(n for _, n in run)


# %%
rows = {}
for label, name in novel_rows.items():
    d = against_plain(name)
    rows[label] = {"held-out units": "the novel's paragraphs",
                   "tokens per byte": round(ratio(units[name]["tokens"]), 4),
                   "plain: tokens per byte": round(ratio(units["plain BPE"]["tokens"]), 4),
                   "bits per byte": round(ratio(units[name]["bits"]), 4),
                   "plain: bits per byte": round(ratio(units["plain BPE"]["bits"]), 4),
                   "tokens against plain": d["tokens"].verdict, "bits against plain": d["bits"].verdict}
rows["parity-aware BPE"] = {
    "held-out units": "all languages' test articles, pooled",
    "tokens per byte": round(ratio(pooled("parity-aware", "tokens")), 4),
    "plain: tokens per byte": round(ratio(pooled("classical", "tokens")), 4),
    "bits per byte": round(ratio(pooled("parity-aware", "bits")), 4),
    "plain: bits per byte": round(ratio(pooled("classical", "bits")), 4),
    "tokens against plain": parity_versus["all tokens, pooled"].verdict,
    "bits against plain": parity_versus["bits per byte, pooled"].verdict}
summary = pd.DataFrame(rows).T.rename_axis("variant")
print("Every figure is a ratio of sums over the held-out units: all their tokens (or bits) over all their bytes. "
      "Plain is BPE at the same vocabulary size without the variant (classical BPE on the declaration).")
summary

# %% [markdown]
# ## Recap
#
# * The vocabulary and the way a text is cut with it are two choices: **optimal segmentation** keeps
#   BPE's vocabulary and finds the fewest tokens by a shortest path — fewer tokens, and *a* shortest
#   cut: which of the tied cuts it keeps (longest first token, longest last, or random) is a choice
#   too, and section 1 measures what each does to the bits.
# * **SuperBPE** lets merges after a transition point cross word boundaries; the transition trades
#   subword tokens for phrases at a fixed vocabulary size.
# * **Picky BPE** drops a token whose occurrences were almost all inside the pair just merged
#   (intersection over self greater than a threshold), and reuses its slot.
# * Each verdict against plain BPE is a `compare` over the held-out paragraphs: a difference inside
#   its interval's noise is reported as within noise, whichever way it leans.
# * **Parity-aware BPE** gives each merge to the language that is worst compressed on a parallel
#   development text: a lower Gini coefficient, paid for by English's tokens and by the total.
# * Each is a small change to one trainer (`bpe_course.algorithms.variants.Merges`), and each, switched off, is
#   plain BPE: the tests check exactly that.
#
# ## Exercises

# %%
from bpe_course.exercises.ch17 import check_picky_removal, check_stage2_limits, check_superword

# %% [markdown]
# **Exercise 17.1.** Section 3 used `train_picky` without showing its loop. Here is the loop — plain BPE
# on `Merges`, with what the removal needs already kept: `made` (the merges just made), `alive` (the
# vocabulary beyond the bytes) and `parts` (a token's pieces, down to tokens still alive). Write the
# removal where the comment says: after each merge, each part of the pair that Picky BPE would remove
# (section 3's rule, as the authors' code has it) leaves `alive`, its occurrences are split back, and
# `(len(merges) - 1, part)` is appended to `removed`.

# %%
def my_picky(counts: dict[str, int], n_merges: int, threshold: float) -> list[tuple[int, bytes]]:
    m = Merges(word_sequences(counts))
    made_of, alive, merges, removed = {}, {}, [], []

    def parts(token: bytes) -> tuple[bytes, ...]:
        a, b = made_of[token]
        return tuple(s for half in (a, b) for s in ((half,) if len(half) == 1 or half in alive else parts(half)))

    while len(merges) - len(removed) < n_merges and (found := m.best()) is not None:
        pair = found[0]
        token = pair[0] + pair[1]
        had = m.tokens[token]
        m.merge(pair)
        made = m.tokens[token] - had
        merges.append(pair)
        made_of[token] = pair
        alive.pop(token, None)
        alive[token] = None
        for part in dict.fromkeys(pair):
            pass  # replace with your code: the removal
    return removed


check_picky_removal(my_picky)

# %% [markdown]
# **Exercise 17.2.** Section 2 named the released SuperBPE trainer's limits on stage 2 and found that
# at this chapter's size they refuse nothing. Write them: `stage2_allows(token)` is False for a token
# that holds a colon followed by a space, or more than four words — counted as the released code
# counts them, the non-empty parts between spaces — and True otherwise. The checker also trains stage
# 2 with your rule on a text where the limits do bite (`train_superbpe(..., allows=stage2_allows)`).

# %%
def stage2_allows(token: bytes) -> bool:
    return True  # replace with your code


check_stage2_limits(stage2_allows)

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
#         for part in dict.fromkeys(pair):  # in my_picky
#             score = intersection_over_self(made, m.tokens[part] + made)
#             if len(part) > 1 and part in alive and score > threshold:
#                 del alive[part]
#                 m.split(part, parts)
#                 removed.append((len(merges) - 1, part))
#
# def stage2_allows(token):
#     return b": " not in token and sum(1 for word in token.split(b" ") if word) <= 4
#
# def spans_words(token):
#     return b" " in token.strip(b" ")
# ```
# </details>
#
# [← 16 What a tokenizer does to a model](16_what_a_tokenizer_does_to_a_model.ipynb) · [00 Start here](00_start_here.ipynb) · [18 Open models' tokenizers: SentencePiece and Mistral →](18_open_models_and_chat.ipynb)
