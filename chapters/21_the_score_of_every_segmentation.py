# %% [markdown]
# # 21 · The score of every segmentation
#
# [← 20 What a merge list reveals](20_what_a_merge_list_reveals.ipynb) · [00 Start here](00_start_here.ipynb)
#
# Every bits-per-byte figure of chapters 16 and 17 scored one segmentation of the held-out text: the
# one the tokenizer produces, the **canonical** one. But a model over token ids gives probability to
# every sequence of ids, and many sequences spell the same bytes: " the" is also " t" + "he". The
# probability of the *text* is the sum over all of them, so the canonical score is only an upper
# bound on the bits the model needs (Cao & Rimell, 2021). In this chapter you will
#
# * count the segmentations of a word, and see how fast they grow;
# * write the **forward pass** that sums a bigram model's probability over all of them, checked
#   against brute force, then see how the package's version handles longer contexts;
# * measure the gap between canonical and every-segmentation scores across chapter 16's vocabulary
#   sweep, for BPE-dropout and for the fewest-tokens segmentation, each difference with its
#   interval from chapter 16's yardstick, and ask whether it changes a conclusion of chapters 16–17;
# * then ask whether a number that needs no model at all — compression, or the **Rényi efficiency**
#   Zouhar et al. (2023) proposed — ranks tokenizers as the model does.

# %%
import math
from random import Random

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from bpe_course import Seeds, Tokenizer, compare, corpus, paragraph_bytes, train, units_of
from bpe_course.algorithms import (KneserNey, Segmenter, dropout_tokens, efficiency_of_units, fewest_tokens, fit_orders,
                                   marginal_bits, marginal_by_unit, renyi_efficiency, segmentations, vocab_points)
from bpe_course.corpus import misspell
from bpe_course.compare import Difference, bootstrap, number, ratio_of_sums, rank_correlation, spearman

# %% [markdown]
# The set-up is chapter 16's: its tokenizer, trained on the first `TRAIN_CHARS` characters of
# `don_quixote` with merges of pairs seen at least `MIN_FREQUENCY` times, cut to each vocabulary size
# of its sweep. Models learn from the first `MODEL_CHARS` characters (chapter 16's dropout and
# pattern experiments used as many); every score is on the first `HELD_CHARS` characters of the
# held-out text, cut into paragraphs, the units the yardstick resamples.

# %%
TRAIN_CHARS = 1_000_000
MIN_FREQUENCY = 5
MAX_MERGES = 8192
MODEL_CHARS = 500_000
HELD_CHARS = 20_000
ORDER = 3
ORDERS = (2, 3, 4)

book_train, book_heldout = corpus.train_heldout("don_quixote")
run = train(book_train[:TRAIN_CHARS], 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY)
tok = Tokenizer(run.vocab, run.merges)
model_text = book_train[:MODEL_CHARS]
held = book_heldout[:book_heldout.rfind("\n\n", 0, HELD_CHARS) + 2]  # whole paragraphs
units = paragraph_bytes(held)
print(tok, f"| held-out sample: {len(held.encode()):,} bytes in {len(units)} paragraphs")

# %% [markdown]
# ## 1. How many ways to spell a word
#
# `segmentations(data, ids)` lists every sequence of vocabulary tokens that spells `data`, by brute
# force. With the tokenizer cut to one of the sweep's sizes:

# %%
small = tok.truncated(2048 - 256)
ids_of = {token: i for i, token in small.vocab.items()}
print(f"n_vocab {small.n_vocab:,}")
for word in (" the", " knight", " countenance"):
    every = list(segmentations(word.encode(), ids_of))
    canonical = small.encode_ordinary(word)
    print(f"{word!r:15} {len(every):>6,} segmentations; canonical {[small.vocab[i] for i in canonical]}")

# %% [markdown]
# They grow exponentially with the length of the text; a paragraph has more than any computer could
# list. A model that looks `n - 1` tokens back does not need the list, though.
#
# ## 2. The forward pass, for a bigram
#
# A bigram model gives `p(w | v)`, the probability of token `w` after token `v`. Walk along the
# bytes: `forward[j]` holds, for each token `v` that can end at byte `j`, the total probability of
# every segmentation of `data[:j]` whose last token is `v`. A token `w` that spells `data[j:k]`
# extends each of them: `forward[k][w] += forward[j][v] · p(w | v)`. At the end, the sum over
# `forward[n]` is the probability of the text, all segmentations counted once.

# %%
def forward_bigram(model: KneserNey, data: bytes, ids: dict[bytes, int]) -> float:
    """-log2 of the total probability of every segmentation of data under an order-2 model."""
    longest = max(map(len, ids))
    forward = [dict() for _ in range(len(data) + 1)]
    forward[0][None] = 1.0  # no token yet: the first is scored without a context
    for j in range(len(data)):
        for v, q in forward[j].items():
            for k in range(j + 1, min(len(data), j + longest) + 1):
                w = ids.get(data[j:k])
                if w is not None:
                    p = model.prob(w, [] if v is None else [v])
                    forward[k][w] = forward[k].get(w, 0.0) + q * p
    return -math.log2(sum(forward[len(data)].values()))


# %% [markdown]
# Check it against brute force, which adds `2^-bits` of every segmentation, on short texts, with
# a bigram model of the training text at 2,048 tokens:

# %%
bigram = KneserNey(small.encode_ordinary(model_text), 2, small.n_vocab)
for text in (" the knight", " of La Mancha", " Sancho", " Quixtoe"):
    data = text.encode()
    brute = -math.log2(sum(2 ** -bigram.bits(seg) for seg in segmentations(data, ids_of)))
    mine = forward_bigram(bigram, data, ids_of)
    assert abs(mine - brute) < 1e-9 and abs(marginal_bits(bigram, data, small.vocab) - brute) < 1e-9
    canonical = bigram.bits(small.encode_ordinary(text))
    print(f"{text!r:16} every segmentation {mine:8.4f} bits, canonical {canonical:8.4f} bits: the other "
          f"segmentations hold {1 - 2 ** (mine - canonical):.3%} of the probability")

# %% [markdown]
# On familiar words the canonical segmentation carries nearly all of the probability; on a
# misspelled one, whose canonical cut the model has rarely seen, the other cuts can matter. For an order-`n`
# model the state is the last `n - 1` tokens, and there can be many; `marginal_bits` keeps them few.
# The model's probability of the next token depends only on the longest suffix of the history that
# it saw as a context (`KneserNey.contexts()`), and a later token can only extend a history that is
# the start of a seen context. So the state is the history cut to its longest suffix that is a
# **prefix of some seen context** (`context_prefixes` in `bpe_course/algorithms/lattice.py`): the cut
# changes no probability, now or later, and histories with the same such suffix are one state. (Cut
# to the longest suffix that is itself a seen context, the pass would forget tokens a later context
# needs.) The tests check it against brute force on short strings for orders 1 to 4.
#
# ## 3. Canonical against every segmentation, across chapter 16's sweep
#
# For each vocabulary size of the sweep: models of orders `ORDERS` on the training text, the
# canonical bits of each held-out paragraph, and, for order `ORDER`, the bits of every segmentation
# (`marginal_by_unit`: prefix probabilities at the paragraph starts, whose differences add up to the
# whole text's). Each score is a list of per-paragraph `(bits, bytes)` units, chapter 16's yardstick's
# input; `ratio_of_sums(units)` adds up the bits and the bytes of the units and divides, the bits per
# byte of the whole sample.

# %%
def canonical_units(model: KneserNey, ids: list[int], vocab: dict[int, bytes], unit_bytes: list[int]) -> list:
    """Each paragraph's (bits, bytes) for the canonical tokens."""
    bits = [-math.log2(p) for p in model.token_probs(ids)]
    return units_of(bits, [len(vocab[i]) for i in ids], unit_bytes)


def ids_by_unit(ids: list[int], vocab: dict[int, bytes], unit_bytes: list[int]) -> list[list[int]]:
    """The tokens of each paragraph (a token belongs to the paragraph its first byte is in)."""
    out, ends, at, k = [[] for _ in unit_bytes], [], 0, 0
    for n in unit_bytes:
        at += n
        ends.append(at)
    at = 0
    for i in ids:
        while at >= ends[k]:
            k += 1
        out[k].append(i)
        at += len(vocab[i])
    return out


# %%
measured = {}
for merges in vocab_points(len(tok.merges)):
    sized = tok.truncated(merges)
    models = fit_orders(sized.encode_ordinary(model_text), ORDERS, sized.n_vocab)
    held_ids = sized.encode_ordinary(held)
    measured[sized.n_vocab] = {
        "tokenizer": sized, "model": models[ORDER], "ids": held_ids,
        "canonical": {n: canonical_units(models[n], held_ids, sized.vocab, units) for n in ORDERS},
        "every": marginal_by_unit(models[ORDER], held, sized.vocab, units),
        "tokens": units_of([1.0] * len(held_ids), [len(sized.vocab[i]) for i in held_ids], units),
        "unit ids": ids_by_unit(held_ids, sized.vocab, units)}
print("vocabulary sizes:", ", ".join(f"{v:,}" for v in measured))

# %%
gaps = {v: compare(m["every"], m["canonical"][ORDER], words=("fewer", "more")) for v, m in measured.items()}
sweep_table = pd.DataFrame({
    "canonical": {v: ratio_of_sums(m["canonical"][ORDER]) for v, m in measured.items()},
    "every segmentation": {v: ratio_of_sums(m["every"]) for v, m in measured.items()},
    "gap": {v: -g.estimate for v, g in gaps.items()},
    "gap, 95% interval": {v: f"{-g.high:.4f}–{-g.low:.4f}" for v, g in gaps.items()},
    "gap / canonical": {v: f"{-g.estimate / ratio_of_sums(measured[v]['canonical'][ORDER]):.2%}" for v, g in gaps.items()},
})
sweep_table.index.name = f"n_vocab (order {ORDER}, bits per byte)"
sweep_table.round(4)

# %%
fig, ax = plt.subplots(figsize=(7, 3.8))
sizes = list(measured)
ax.plot(sizes, sweep_table["canonical"], "o-", label="canonical segmentation")
ax.plot(sizes, sweep_table["every segmentation"], "s--", label="every segmentation")
ax.set_xscale("log", base=2)
ax.set_xlabel("vocabulary size")
ax.set_ylabel(f"bits per byte, order {ORDER} (held-out)")
ax.set_title("Chapter 16's sweep, scored both ways")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
largest = max(gaps, key=lambda v: -gaps[v].estimate)
best_c = min(sizes, key=lambda v: sweep_table.loc[v, "canonical"])
best_e = min(sizes, key=lambda v: sweep_table.loc[v, "every segmentation"])
moved = compare(measured[best_e]["every"], measured[best_c]["every"]) if best_e != best_c else None
# the bottom of the curve: every other size against the canonical minimum, under both scores
bottom = {(v, score): compare(measured[v][score] if score == "every" else measured[v]["canonical"][ORDER],
                              measured[best_c][score] if score == "every" else measured[best_c]["canonical"][ORDER])
          for v in sizes if v != best_c for score in ("canonical", "every")}
for (v, score), d in bottom.items():
    print(f"{v:>6,} against {best_c:,}, {score:9}: {d.verdict}")

# %% [hide-input]
flat = {score: [v for (v, sc), d in bottom.items() if sc == score and not d.clear] for score in ("canonical", "every")}
display(Markdown(
    f"With the {sizes[0]} bytes alone there is one segmentation and no gap. The gap grows with the vocabulary, "
    f"to {-gaps[largest].estimate:.4f} bits per byte at {largest:,} tokens (95% interval "
    f"{-gaps[largest].high:.4f}–{-gaps[largest].low:.4f}), {-gaps[largest].estimate / sweep_table.loc[largest, 'canonical']:.1%} "
    f"of the canonical score: more tokens, more ways to spell the same bytes. The curve's minimum (point estimates) at "
    + (f"order {ORDER} is at {best_c:,} under both scores. " if best_c == best_e else
       f"order {ORDER} is at {best_c:,} scored canonically and at {best_e:,} counting every segmentation. ")
    + " ".join(f"Scored {'canonically' if score == 'canonical' else 'over every segmentation'}, "
               + (f"{len(vs)} of the {len(sizes) - 1} other sizes ({', '.join(f'{v:,}' for v in vs)}) are within "
                  f"noise of {best_c:,}." if vs else f"every other size is separated from {best_c:,}.")
               for score, vs in flat.items())
    + (" The minimum sits on a flat bottom, as chapter 16 warned: read it as a range of sizes, not one."
       if flat["canonical"] or flat["every"] else "")
    + (f" Counting every segmentation leaves more sizes on it ({len(flat['every'])} against {len(flat['canonical'])})."
       if len(flat["every"]) > len(flat["canonical"]) else "")))

# %% [markdown]
# ## 4. BPE-dropout, scored again
#
# Chapter 16 trained one model on deterministic encodings and one on BPE-dropout encodings (each
# merge skipped with probability `DROPOUT_P`), and scored both on clean and misspelled text — the
# canonical segmentation only. But a dropout model was *trained* on non-canonical segmentations: it
# spreads its probability over many spellings of a word, and the canonical score counts one. Here the
# same experiment at 2,048 tokens, scored both ways, with `DROPOUT_SEEDS` dropout runs (the yardstick
# resamples the seeds as well as the paragraphs) and chapter 16's typo generator, `corpus.misspell`:

# %%
DROPOUT_P = 0.1
TYPO_RATE = 0.1
DROPOUT_SEEDS = (0, 1)

# %%
texts = {"clean": held, "typos": misspell(held, TYPO_RATE, Random(16))}
text_units = {label: paragraph_bytes(t) for label, t in texts.items()}
assert len(text_units["typos"]) == len(units)  # the typos change words, never a paragraph break
plain = measured[2048]


def scored(model: KneserNey, sized: Tokenizer, labels=tuple(texts)) -> dict:
    """Per text, per scoring: each paragraph's (bits, bytes)."""
    out = {}
    for label in labels:
        ids = sized.encode_ordinary(texts[label])
        out[label, "canonical"] = canonical_units(model, ids, sized.vocab, text_units[label])
        out[label, "every"] = marginal_by_unit(model, texts[label], sized.vocab, text_units[label])
    return out


# the deterministic model on clean text is section 3's, already scored both ways
deterministic = {("clean", "canonical"): plain["canonical"][ORDER], ("clean", "every"): plain["every"],
                 **scored(plain["model"], plain["tokenizer"], ["typos"])}
id_of = {token: i for i, token in plain["tokenizer"].vocab.items()}
with_dropout = []
for seed in DROPOUT_SEEDS:
    dropped = [id_of[t] for t in dropout_tokens(plain["tokenizer"], model_text, DROPOUT_P, Random(seed))]
    with_dropout.append(scored(KneserNey(dropped, ORDER, plain["tokenizer"].n_vocab), plain["tokenizer"]))
cost = {key: compare(Seeds([run[key] for run in with_dropout]), deterministic[key]) for key in deterministic}
pd.DataFrame({"deterministic": {key: ratio_of_sums(units) for key, units in deterministic.items()},
              **{f"dropout, seed {s}": {key: ratio_of_sums(u) for key, u in run.items()}
                 for s, run in zip(DROPOUT_SEEDS, with_dropout)},
              "dropout − deterministic": {key: d.verdict for key, d in cost.items()}}).round(4)

# %% [markdown]
# Two effects are mixed in those rows: what dropout costs on clean text, and what the typos cost each
# model. A model's **typo penalty** is its bits per byte on the misspelled text minus on the clean
# text; robustness to typos is a smaller penalty, so the number to look at is the **difference in
# differences**, dropout's penalty minus the deterministic model's. The two texts have the same
# paragraphs, typos aside, so `bootstrap` resamples paragraph numbers and each replicate recomputes
# all four scores on the same paragraphs (the dropout model's score is its mean over the seeds, which
# this resampling keeps fixed). `Difference(estimate, low, high, ...)` records the result the way
# `compare` records its own, so it chooses its words the same way.

# %%
def penalty(runs: list[dict], score: str, idx) -> float:
    """The typo penalty, bits per byte on the misspelled text minus on the clean text (mean over runs)."""
    return sum(ratio_of_sums(r["typos", score], idx) - ratio_of_sums(r["clean", score], idx) for r in runs) / len(runs)


penalties, did = {}, {}
for score in ("canonical", "every"):
    for name, runs in (("deterministic", [deterministic]), ("dropout", with_dropout)):
        penalties[name, score] = bootstrap(len(units), lambda idx, runs=runs, score=score: penalty(runs, score, idx))
    iv = bootstrap(len(units), lambda idx, score=score: penalty(with_dropout, score, idx)
                   - penalty([deterministic], score, idx))
    did[score] = Difference(iv.estimate, iv.low, iv.high, words=("smaller", "larger"))
    print(f"{score:9}: typo penalty deterministic {penalties['deterministic', score]}, dropout "
          f"{penalties['dropout', score]}; dropout's penalty against the deterministic one's: {did[score].verdict}")

# %% [hide-input]
canon_typo, every_typo = cost["typos", "canonical"], cost["typos", "every"]
canon_clean, every_clean = cost["clean", "canonical"], cost["clean", "every"]
spread = {label: Seeds([[(e - c, n) for (e, _), (c, n) in zip(run[label, "every"], run[label, "canonical"])]
                         for run in with_dropout]) for label in texts}
own_gap = {label: compare(spread[label], [(0.0, n) for n in text_units[label]]) for label in texts}
changed = canon_typo.direction != every_typo.direction
robust_both = did["canonical"].direction == did["every"].direction == "lower"
display(Markdown(
    f"The dropout model's own gap between the two scores is {-own_gap['clean'].estimate:.4f} bits per byte on clean text, "
    f"against {-gaps[2048].estimate:.4f} for the deterministic one: it gave much of its probability to the spellings the "
    f"canonical score ignores. Its typo penalty against the deterministic model's is {did['canonical'].verdict} scored "
    f"canonically, and {did['every'].verdict} counting every segmentation. "
    + ("So the canonical score already shows the smaller typo penalty Provilkov et al. describe; counting every "
       "segmentation does not reveal it, it was there. " if robust_both else
       "The two scores do not agree that dropout's typo penalty is the smaller one. ")
    + f"What the scores differ on is how much dropout costs on clean text: {canon_clean.verdict} canonically, "
    f"{every_clean.verdict} counting every segmentation. On the misspelled text, penalty and cost together, dropout is "
    f"{canon_typo.verdict} canonically and {every_typo.verdict} counting every segmentation. "
    + ("**So the reading of the misspelled text changes.** Penalty and cost add up to it, and it is the clean-text "
       "cost the two scores put at different sizes." if changed else
       "The direction of the misspelled-text result is the same under both scores, though its size changes.")))

# %% [markdown]
# ## 5. The fewest tokens, scored again
#
# Chapter 17 cut each piece into the fewest tokens the vocabulary allows (a shortest path) and found the model no better
# for it. A model trained on those cuts is scored on them canonically; counting every segmentation
# scores it on the text itself. The same comparison here, at 2,048 tokens on this chapter's text:

# %%
vocab_set = set(plain["tokenizer"].vocab.values())
longest = max(map(len, vocab_set))
fewest = Segmenter(plain["tokenizer"].vocab, lambda piece: fewest_tokens(piece, vocab_set, longest))
fewest_model = KneserNey(fewest.encode(model_text), ORDER, plain["tokenizer"].n_vocab)
fewest_ids = fewest.encode(held)
fewest_units = {"canonical": canonical_units(fewest_model, fewest_ids, plain["tokenizer"].vocab, units),
                "every": marginal_by_unit(fewest_model, held, plain["tokenizer"].vocab, units)}
versus_plain = {"canonical": compare(fewest_units["canonical"], plain["canonical"][ORDER]),
                "every": compare(fewest_units["every"], plain["every"])}
for scoring, d in versus_plain.items():
    print(f"the shortest path against plain BPE, {scoring}: {d.verdict}")

# %% [hide-input]
same = versus_plain["canonical"].direction == versus_plain["every"].direction
readings = {"the best vocabulary of the sweep": moved is not None and moved.clear,
            "dropout on misspelled text": changed, "the fewest tokens against plain BPE": not same}
turned = [name for name, flipped in readings.items() if flipped]
display(Markdown(
    f"Chapter 17's reading {'stands' if same else 'changes'}: the model trained on the shortest path is "
    f"{versus_plain['canonical'].word('ahead of', 'behind', 'within noise of')} plain BPE canonically and "
    f"{versus_plain['every'].word('ahead of', 'behind', 'within noise of')} it counting every segmentation. "
    f"Of the {len(readings)} readings checked here, counting every segmentation changed "
    + (f"{len(turned)}: {', '.join(turned)}." if turned else "none.")))

# %% [markdown]
# ## 6. Does a cheap metric predict the model?
#
# Fitting a model costs time; a number read off the tokens alone would not. Two candidates:
#
# * **compression**, tokens per byte of held-out text (fewer is better);
# * the **Rényi efficiency** of the tokens' unigram distribution (Zouhar et al., 2023): the Rényi
#   entropy of order `α`, `log2(Σ p(w)^α) / (1 − α)`, divided by its largest possible value,
#   `log2 |V|`. With `α > 1` the most frequent tokens weigh most, so a tokenizer that spends much of a
#   text on a few tokens scores low. Zouhar et al. found `α = 2.5` correlated best with translation
#   quality (BLEU) and proposed it as a predictor. Write it:

# %%
def my_renyi_efficiency(counts: dict[int, int], n_vocab: int, alpha: float = 2.5) -> float:
    total = sum(counts.values())
    entropy = math.log2(sum((c / total) ** alpha for c in counts.values())) / (1 - alpha)
    return entropy / math.log2(n_vocab)


for v, m in measured.items():
    counts = {}
    for i in m["ids"]:
        counts[i] = counts.get(i, 0) + 1
    assert abs(my_renyi_efficiency(counts, v) - renyi_efficiency(counts, n_vocab=v)) < 1e-12
print("yours == bpe_course.algorithms.renyi_efficiency at every size "
      "(the tests check the package against Zouhar et al.'s tokenization-scorer)")

# %% [markdown]
# Does either rank the sweep's tokenizers as the model does? Spearman's rank correlation answers
# with a number from −1 to 1; written so that **+1 means the metric ranks the tokenizers exactly as
# bits per byte does** (compression: tokens per byte against bits per byte; efficiency: its negative,
# since higher efficiency should mean fewer bits). The interval resamples the paragraphs
# (`compare.rank_correlation` and `compare.bootstrap`): it holds the held-out text's noise, not the
# choice of tokenizers.

# %%
def signed(iv) -> str:
    """A correlation with its interval, signs shown: "+0.77 (95% interval +0.60 to +0.89)"."""
    sign = lambda x: ("+" if x >= 0 else "") + number(x, 2)  # noqa: E731
    return f"{sign(iv.estimate)} (95% interval {sign(iv.low)} to {sign(iv.high)})"


efficiency = {v: efficiency_of_units(m["unit ids"], v) for v, m in measured.items()}
every_paragraph = list(range(len(units)))


def efficiency_agreement(items: list, bits: dict) -> object:
    """Spearman of -efficiency against bits per byte over the items, resampling paragraphs."""
    return bootstrap(len(units), lambda idx: spearman([-efficiency[k](idx) for k in items],
                                                      [ratio_of_sums(bits[k], idx) for k in items]))


metrics = pd.DataFrame({
    "tokens per byte": {v: ratio_of_sums(m["tokens"]) for v, m in measured.items()},
    "Rényi efficiency (α = 2.5)": {v: efficiency[v](every_paragraph) for v in measured},
    **{f"bits per byte, order {n}": {v: ratio_of_sums(m["canonical"][n]) for v, m in measured.items()} for n in ORDERS}})
agreement = {}
for n in ORDERS:
    bits = {v: m["canonical"][n] for v, m in measured.items()}
    agreement[f"order {n}"] = {
        "compression": rank_correlation([m["tokens"] for m in measured.values()], list(bits.values())),
        "Rényi efficiency": efficiency_agreement(list(measured), bits)}
metrics.round(4)

# %%
pd.DataFrame({group: {metric: signed(iv) for metric, iv in row.items()} for group, row in agreement.items()}).T

# %% [hide-input]
lines = []
for group, row in agreement.items():
    said = []
    for metric, iv in row.items():
        shown = signed(iv)
        if iv.low > 0:
            said.append(f"{metric} ranks them {'exactly ' if iv.low == iv.high == 1 else ''}as the model does, {shown}")
        elif iv.high < 0:
            said.append(f"{metric} ranks them against the model, {shown}")
        else:
            said.append(f"{metric} says nothing we can tell from noise, {shown}")
    lines.append(f"* **{group}**: " + "; ".join(said) + ".")
best_by_order = {n: metrics[f"bits per byte, order {n}"].idxmin() for n in ORDERS}
peak = metrics["Rényi efficiency (α = 2.5)"].idxmax()
most_compressed = metrics["tokens per byte"].idxmin()
agrees_at = {metric: [group for group, row in agreement.items() if row[metric].low > 0]
             for metric in ("compression", "Rényi efficiency")}
display(Markdown(
    "\n".join(lines) + "\n\n"
    f"The vocabulary of least bits per byte (point estimates) moves with the order "
    f"({', '.join(f'{b:,} at order {n}' for n, b in best_by_order.items())}), but neither metric knows the order: "
    f"tokens per byte are at their minimum at {most_compressed:,} and efficiency at its peak at {peak:,}, whatever "
    "the model. Read row by row: "
    + "; ".join(f"{metric} agrees beyond noise at {len(groups)} of the {len(agreement)} orders"
                + (f" ({', '.join(groups)})" if groups else "") for metric, groups in agrees_at.items()) + ". "
    + ("Whether a metric agrees with the model depends on the model's order, which no metric read off the tokens "
       "can know: a cheap metric is a guess about one particular model, not a measurement of the tokenizer."
       if any(0 < len(groups) < len(agreement) for groups in agrees_at.values()) else
       "")))

# %% [markdown]
# Zouhar et al. found the correlation with BLEU across tokenizers that differ in more than size;
# Cognetta et al. (2024) built BPE variants that raise Rényi efficiency while models trained on them
# get worse. Here one more tokenizer joins the order-`ORDER` group: the fewest-tokens segmentation of
# section 5, built to use as few tokens as the vocabulary allows.

# %%
pooled_bits = {v: m["canonical"][ORDER] for v, m in measured.items()} | {"fewest 2048": fewest_units["canonical"]}
pooled_tokens = [m["tokens"] for m in measured.values()] + [
    units_of([1.0] * len(fewest_ids), [len(plain["tokenizer"].vocab[i]) for i in fewest_ids], units)]
efficiency["fewest 2048"] = efficiency_of_units(ids_by_unit(fewest_ids, plain["tokenizer"].vocab, units), 2048)
pooled = {"compression": rank_correlation(pooled_tokens, list(pooled_bits.values())),
          "Rényi efficiency": efficiency_agreement(list(pooled_bits), pooled_bits)}
print(f"the shortest path at 2,048: {ratio_of_sums(pooled_tokens[-1]):.4f} tokens per byte, "
      f"efficiency {efficiency['fewest 2048'](every_paragraph):.4f}; plain BPE at 2,048: "
      f"{ratio_of_sums(plain['tokens']):.4f} tokens per byte, efficiency {efficiency[2048](every_paragraph):.4f}")
print({metric: signed(iv) for metric, iv in pooled.items()})

# does adding the tokenizer move either correlation? The same resampled paragraphs for both groups
tokens_of = {v: m["tokens"] for v, m in measured.items()} | {"fewest 2048": pooled_tokens[-1]}


def agreement_of(items: list, metric: str, idx) -> float:
    """+1 = the metric ranks the items as order-ORDER bits per byte does (section 6's sign convention)."""
    cheap = ([ratio_of_sums(tokens_of[k], idx) for k in items] if metric == "compression"
             else [-efficiency[k](idx) for k in items])
    return spearman(cheap, [ratio_of_sums(pooled_bits[k], idx) for k in items])


moved_by = {}
for metric in pooled:
    iv = bootstrap(len(units), lambda idx, metric=metric: agreement_of(list(pooled_bits), metric, idx)
                   - agreement_of(list(measured), metric, idx))
    moved_by[metric] = Difference(iv.estimate, iv.low, iv.high, unit="", words=("lower", "higher"), digits=2)
    print(f"{metric}: with the shortest path in the group against without it, {moved_by[metric].verdict}")

# %% [hide-input]
shorter = compare(pooled_tokens[-1], plain["tokens"], unit="tokens per byte", words=("shorter", "longer"))
display(Markdown(
    f"In tokens per byte, {shorter.sentence('the fewest-tokens segmentation', 'plain BPE at 2,048')}: it "
    f"{shorter.word('compresses more', 'compresses less', 'compresses no differently we can measure')}, and it is "
    f"{versus_plain['canonical'].word('ahead of', 'behind', 'within noise of')} plain BPE in bits; with it in "
    f"the group, compression's agreement is {signed(pooled['compression'])} (without it "
    f"{signed(agreement[f'order {ORDER}']['compression'])}) and Rényi efficiency's {signed(pooled['Rényi efficiency'])} "
    f"(without it {signed(agreement[f'order {ORDER}']['Rényi efficiency'])}). Paired on the same resampled paragraphs, "
    f"the change in compression's agreement is {moved_by['compression'].verdict} and in Rényi efficiency's "
    f"{moved_by['Rényi efficiency'].verdict}: "
    + ("the added tokenizer changes neither correlation measurably. Cognetta et al.'s counterexamples are "
       "tokenizers built to raise a metric; this one was built for the fewest tokens, that is for compression, and "
       "with one such tokenizer the change is too small to see."
       if not any(d.clear for d in moved_by.values()) else
       "adding one tokenizer moves " + " and ".join(m for m, d in moved_by.items() if d.clear)
       + "'s agreement beyond noise. The added tokenizer was built for the fewest tokens, that is to do well on "
       "compression itself, " + versus_plain['canonical'].word("and the model is better for it", "and the model is "
       "worse for it", "and the model is not measurably better for it") + ": a tokenizer chosen by a metric, the kind "
       "of case Cognetta et al. build for Rényi efficiency. With a handful of tokenizers, a rank correlation says as "
       "much about which ones were compared as about the metric.")))

# %% [markdown]
# ## The chapter in numbers

# %% [hide-input]
display(Markdown(
    f"* **Canonical against every segmentation**, order {ORDER}, {len(units)} held-out paragraphs: the gap is "
    f"{-gaps[largest].estimate:.4f} bits per byte at {largest:,} tokens (95% interval {-gaps[largest].high:.4f}–"
    f"{-gaps[largest].low:.4f}), {-gaps[largest].estimate / sweep_table.loc[largest, 'canonical']:.1%} of the "
    f"canonical score, and {-own_gap['clean'].estimate:.4f} for the BPE-dropout model at 2,048 "
    f"(95% interval {-own_gap['clean'].high:.4f}–{-own_gap['clean'].low:.4f}).\n"
    f"* **Dropout's typo penalty** against the deterministic model's: canonically {did['canonical'].verdict}; over "
    f"every segmentation {did['every'].verdict}. **Dropout's cost on clean text**: canonically {canon_clean.verdict}; "
    f"over every segmentation {every_clean.verdict}. **On misspelled text**: canonically {canon_typo.verdict}; over "
    f"every segmentation {every_typo.verdict}.\n"
    f"* **The shortest path against plain BPE**: canonically {versus_plain['canonical'].verdict}; over every "
    f"segmentation {versus_plain['every'].verdict}.\n"
    "* **Rank agreement with bits per byte** (Spearman, +1 = the model's order): "
    + "; ".join(f"{group}: compression {signed(row['compression'])}, Rényi efficiency {signed(row['Rényi efficiency'])}"
                for group, row in agreement.items()) + "."))

# %% [markdown]
# ## Recap
#
# * A token model gives probability to every segmentation of a text; the canonical score counts
#   one, so it is an upper bound on the bits the model needs.
# * An n-gram model's sum over every segmentation is a **forward pass** over the byte positions, one
#   state per history the model can tell apart (`marginal_bits`, `marginal_by_unit`), checked against
#   brute force.
# * The gap is small for deterministic tokenizers and grows with the vocabulary; it is large for a
#   model trained on BPE-dropout, whose probability is spread over many spellings. The canonical
#   score overstates what dropout costs on clean text; the smaller typo penalty of section 4 shows
#   under both scores. Separate the two effects (a difference in differences) before reading a
#   robustness result.
# * Whether compression or Rényi efficiency ranks tokenizers as a model does changed with the
#   model's order, which neither metric can see; section 5 adds one tokenizer built for compression
#   and measures how far each agreement moves. Measure the model.
#
# ## Exercises

# %%
from bpe_course.exercises.ch21 import check_inside_pretokens, check_shannon_agreement, check_unigram_marginal

# %% [markdown]
# **Exercise 21.1.** A unigram model gives each token a probability, whatever came before. Write
# `unigram_marginal_bits(probs, data)`: `probs` maps token bytes to probabilities, `data` is bytes;
# return `-log2` of the total probability of every segmentation of `data` into tokens of `probs`.

# %%
def unigram_marginal_bits(probs: dict[bytes, float], data: bytes) -> float:
    return 0.0  # replace with your code


check_unigram_marginal(unigram_marginal_bits)

# %% [markdown]
# **Exercise 21.2.** Section 6 used `α = 2.5`. With `α = 1` the Rényi entropy is Shannon's entropy
# (`renyi_efficiency(counts, alpha=1, n_vocab=...)`). On the whole held-out sample, what is the
# Spearman correlation between the Shannon efficiency and the order-4 bits per byte across the
# sweep's vocabulary sizes (the plain correlation, not its negative)? Answer with a number.

# %%
my_rho = None  # replace with your measurement, e.g. -0.5
check_shannon_agreement(my_rho, measured)

# %% [markdown]
# **Exercise 21.3.** Section 3 summed over *every* segmentation, even those whose tokens cross the
# pre-tokenizer's boundaries, which the tokenizer itself never produces. The forward pass can be
# limited to the segmentations that stay inside the pieces of a pre-tokenizer (read
# `help(marginal_bits)`). How many bits per byte does the order-3 model at 2,048 tokens
# (`plain["model"]`) need for `held` when only the segmentations inside GPT-2's pre-tokens count?
# Answer with a number (4 decimals).

# %%
my_bits = None  # replace with your measurement, e.g. 1.9876
check_inside_pretokens(my_bits, plain["model"], held, plain["tokenizer"].vocab)

# %% [markdown]
# <details><summary>Solutions</summary>
#
# ```python
# def unigram_marginal_bits(probs, data):
#     total = [1.0] + [0.0] * len(data)          # total[j]: every segmentation of data[:j]
#     for j in range(1, len(data) + 1):
#         for i in range(j):
#             p = probs.get(data[i:j])
#             if p is not None:
#                 total[j] += total[i] * p
#     return -math.log2(total[-1])
#
# from collections import Counter
# shannon = [renyi_efficiency(Counter(m["ids"]), alpha=1, n_vocab=v) for v, m in measured.items()]
# my_rho = spearman(shannon, [ratio_of_sums(m["canonical"][4]) for m in measured.values()])
#
# my_bits = marginal_bits(plain["model"], held, plain["tokenizer"].vocab, pattern="gpt2") / len(held.encode("utf-8"))
# ```
# </details>
#
# [← 20 What a merge list reveals](20_what_a_merge_list_reveals.ipynb) · [00 Start here](00_start_here.ipynb)
