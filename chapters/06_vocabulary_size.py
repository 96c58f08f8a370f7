# %% [markdown]
# # 06 · How big should the vocabulary be?
#
# [← 05 Special tokens and unknowns](05_special_tokens.ipynb) · [07 Bytes and Unicode →](07_bytes_and_unicode.ipynb)
#
# Every merge adds one token to the vocabulary and makes encoded text a little shorter. So how many
# merges should a tokenizer learn? GPT-2 and GPT-4 answered very differently (section 4 shows their
# sizes). This chapter measures the trade-off:
#
# * **the plot**: tokens per word and bytes per token on *held-out* text, against vocabulary size,
#   for English prose and for Python code, with GPT-2 and GPT-4 as reference points;
# * why one training run is enough for the whole curve (a smaller BPE vocabulary is a prefix of a
#   bigger one);
# * what merges of rare pairs cost, where that shows (not in tokens per word), and the rule that
#   stops them (`min_frequency`), with a sweep of its values;
# * a widget to explore other corpora and ranges;
# * what a bigger vocabulary costs: the embedding matrix, and tokens too rare to learn.
#
# The tokenizers here are **byte-level**: the text is first turned into its UTF-8 bytes, and the
# same merge loop as in chapter 03 runs over bytes instead of characters (`bpe_course.train_bpe`
# learns the merges, `Tokenizer` applies them). Every text is a sequence of bytes and all 256 are
# in the vocabulary, so no text needs `<|unk|>` and every text can be measured. Chapters 07–08
# explain bytes and the splitting into pre-tokens; here we only use them.

# %%
from collections import Counter

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import HTML, Markdown, display

from bpe_course import Tokenizer, cl100k, corpus, encoded_chips_html, gpt2, train, train_bpe
from bpe_course.widgets import VocabSizeExplorer, curve, merge_counts, plot_vocab_size, vocab_size_data

# %% [markdown]
# The corpora to compare: built-in names or paths of your own UTF-8 text files. The first one is
# used for the step-by-step sections. `don_quixote` is a whole novel, enough text that thousands
# of merges are each learned from many occurrences; the two Python corpora are much smaller.
# `MIN_FREQUENCY` widens chapter 03's stop rule (no merge of a pair seen only once): a pair seen
# fewer times than this is not merged. Section 3 shows what the rule saves and what it costs.

# %%
CORPORA = ["don_quixote", "python_docs", "python_code"]  # add the path of your own UTF-8 text file
MAX_MERGES = 8192
MIN_FREQUENCY = 5
N_POINTS = 12

# %% [markdown]
# ## 1. What to measure
#
# Two numbers describe how well a tokenizer compresses a text:
#
# * **tokens per word**: tokens divided by whitespace-separated words. It says how long sequences
#   get for the same content, which sets the compute per text and how much fits in a context window.
# * **bytes per token**: UTF-8 bytes divided by tokens. It does not depend on what counts as a word,
#   so it also works for code and for languages written without spaces.
#
# Both are measured on **held-out** text, which the tokenizer never saw in training. On its own
# training text a tokenizer looks better than it is: section 3 shows by how much.

# %%
def tokens_per_word(tok: Tokenizer, text: str) -> float:
    return len(tok.encode_ordinary(text)) / len(text.split())


def bytes_per_token(tok: Tokenizer, text: str) -> float:
    return len(text.encode("utf-8")) / len(tok.encode_ordinary(text))


train_text, heldout_text = corpus.train_heldout(CORPORA[0])
print(f"{CORPORA[0]}: {len(train_text):,} training characters; held-out: {len(heldout_text):,} characters, "
      f"{len(heldout_text.split()):,} words")

# %% [markdown]
# ## 2. One training run gives every size
#
# Training for *k* merges makes the same first *k* merges whether it stops there or goes on: each
# step only depends on the steps before it. So we train once, for `MAX_MERGES`, and get every smaller
# vocabulary with `Tokenizer.truncated(k)`. `train` is `train_bpe` that also reports how often each
# merged pair occurred (`merge_counts`) and why training stopped. We check the prefix property for
# one size against a separate training run:

# %%
run = train(train_text, 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY)
big = Tokenizer(run.vocab, run.merges)
print(big)
print(f"learned {len(run.merges):,} merges; stopped because: {run.stop_reason}")
print(f"the last merge joined a pair seen {run.merge_counts[-1]:,} times; the first, {run.merge_counts[0]:,} times")

small_vocab, small_merges = train_bpe(train_text, 256 + 300)
assert small_merges == run.merges[:300]
sample = heldout_text[:5000]
assert Tokenizer(small_vocab, small_merges).encode(sample) == big.truncated(300).encode(sample)
print("training for 300 merges == the first 300 merges of the big run, and the encodings agree")

# %% [markdown]
# Now the curve for the first corpus: a dozen merge counts, spaced evenly on a log scale, each
# measured on the held-out text. This is the teaching loop; the package's `curve` function does the
# same and feeds the plot, and we check that the two agree.

# %%
counts = merge_counts(0, len(big.merges), N_POINTS)
rows = []
for k in counts:
    tok_k = big.truncated(k)
    rows.append({"merges": k, "n_vocab": 256 + k, "tokens_per_word": tokens_per_word(tok_k, heldout_text),
                 "bytes_per_token": bytes_per_token(tok_k, heldout_text)})
table = pd.DataFrame(rows)

package_curve = curve(big, heldout_text, counts, CORPORA[0])
assert package_curve[table.columns].equals(table)
print("teaching loop == bpe_course.widgets.vocab_size.curve")
table.round(3)

# %% [markdown]
# ## 3. Merges of rare pairs: what they cost
#
# Chapter 03 stopped its trainer when the best pair occurred only once. The byte-level trainer has
# the same choice, `min_frequency` (Hugging Face's trainers call it that too): unless you set it, it
# is 1, so it merges until no pair is left at all. What do the merges of rare pairs do? We train `python_docs` — a smaller
# corpus than the novel, held out as whole help topics — without the rule, for as many merges as it
# will give. Merges are numbered from 0, as in `run.merges[k]`:

# %%
docs_train, docs_heldout = corpus.train_heldout("python_docs")
docs_run = train(docs_train, 256 + MAX_MERGES)
docs_counts = pd.Series(docs_run.merge_counts)
first_rare = int((docs_counts < MIN_FREQUENCY).idxmax())
print(f"python_docs: {len(docs_train):,} training characters ({CORPORA[0]} has {len(train_text) / len(docs_train):.1f}× "
      f"as many); {len(docs_run.merges):,} merges, then stopped: {docs_run.stop_reason}")
print(f"merges 0 to {first_rare - 1:,} each joined a pair seen at least {MIN_FREQUENCY} times; merge {first_rare:,} "
      f"(counting from 0) is the first of a pair seen fewer times")
print(f"{(docs_counts < MIN_FREQUENCY).sum():,} merges are like that, "
      f"{(docs_counts == 1).sum():,} of them join a pair seen exactly once")

# %% [markdown]
# Does a tokenizer over-fit its training text once it merges rare pairs? Tokens per word on the
# training text *and* on held-out text, side by side; the dotted line is the vocabulary just before
# merge `first_rare`:

# %%
def train_and_heldout_curve(run, train_part: str, heldout_part: str) -> pd.DataFrame:
    tok = Tokenizer(run.vocab, run.merges)
    ks = merge_counts(0, len(run.merges), N_POINTS)
    return pd.DataFrame({"merges": ks,
                         "training text": [tokens_per_word(tok.truncated(k), train_part) for k in ks],
                         "held-out text": [tokens_per_word(tok.truncated(k), heldout_part) for k in ks]})


docs_curves = train_and_heldout_curve(docs_run, docs_train, docs_heldout)
novel_curves = train_and_heldout_curve(run, train_text, heldout_text)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=False)
for ax, (name, frame, cut) in zip(axes, [("python_docs, no minimum", docs_curves, first_rare),
                                         (f"{CORPORA[0]}, min_frequency={MIN_FREQUENCY}", novel_curves, None)]):
    for column, style in (("training text", "o-"), ("held-out text", "s-")):
        ax.plot(256 + frame["merges"], frame[column], style, label=column)
    if cut is not None:
        ax.axvline(256 + cut, linestyle=":", color="grey", label=f"pairs seen < {MIN_FREQUENCY} times from here")
    ax.set_xscale("log")
    ax.set_xlabel("vocabulary size (256 + merges)")
    ax.set_ylabel("tokens per word")
    ax.set_title(name)
    ax.legend()
fig.tight_layout()
display(fig)
plt.close(fig)

# %%
docs_curves["gap"] = docs_curves["held-out text"] - docs_curves["training text"]
docs_curves.round(3)

# %% [hide-input]
docs_tok = Tokenizer(docs_run.vocab, docs_run.merges)
at_cut = docs_tok.truncated(first_rare)
train_gain = 1 - tokens_per_word(docs_tok, docs_train) / tokens_per_word(at_cut, docs_train)
heldout_gain = 1 - tokens_per_word(docs_tok, docs_heldout) / tokens_per_word(at_cut, docs_heldout)
gap_at_cut = tokens_per_word(at_cut, docs_heldout) - tokens_per_word(at_cut, docs_train)
settled = docs_curves[docs_curves["gap"] >= 0.9 * docs_curves["gap"].iloc[-1]].iloc[0]
later = docs_curves[docs_curves["merges"] >= settled["merges"]]["gap"]
n_late = len(docs_run.merges) - first_rare
display(Markdown(
    f"No. The held-out curve lies above the training curve, but the gap opens with the *frequent* merges: by "
    f"{settled['merges']:,.0f} merges it is {settled['gap']:.2f} tokens per word, and from there on it stays between "
    f"{later.min():.2f} and {later.max():.2f} — {gap_at_cut:.2f} at the dotted line, {later.iloc[-1]:.2f} after the "
    f"last merge. (A plausible reading: the held-out text is other help topics, and the merges that start "
    f"forming the training topics' words help it less.) The {n_late:,} merges of rare pairs shorten the training text by "
    f"another {train_gain:.1%} of its tokens and the held-out text by {heldout_gain:.1%}: in tokens per word they "
    f"are nearly as useful on new text as on the text they came from. So the curve does not show memorisation "
    f"at its right end; training text flatters a tokenizer (section 1) by about the same amount from a few hundred "
    f"merges on."))

# %% [markdown]
# Where the rare merges do show is in *which* tokens a text uses. Encode the held-out text with the
# whole vocabulary and ask, for each block of `BLOCK` merges, what share of the block's tokens it uses
# at all:

# %%
BLOCK = 500
docs_heldout_ids = set(docs_tok.encode_ordinary(docs_heldout))
usage = pd.DataFrame([{"first merge": start,
                       "share used by held-out text": sum(256 + k in docs_heldout_ids
                                                          for k in range(start, min(start + BLOCK, len(docs_counts))))
                                                      / len(docs_counts[start:start + BLOCK])}
                      for start in range(0, len(docs_counts), BLOCK)])
fig, ax = plt.subplots(figsize=(8, 3.2))
ax.bar(usage["first merge"], usage["share used by held-out text"], width=BLOCK * 0.9, align="edge")
ax.axvline(first_rare, linestyle=":", color="grey", label=f"pairs seen < {MIN_FREQUENCY} times from here")
ax.set_xlabel(f"merge number (blocks of {BLOCK})")
ax.set_ylabel("share of the block's tokens\nthe held-out text uses")
ax.set_ylim(0, 1)
ax.set_title("python_docs, no minimum: tokens the held-out text uses")
ax.legend()
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [hide-input]
train_ids = Counter(docs_tok.encode_ordinary(docs_train))
assert all(train_ids[256 + k] <= c for k, c in enumerate(docs_run.merge_counts))  # later merges only use tokens up
late_used = sum(256 + k in docs_heldout_ids for k in range(first_rare, len(docs_run.merges)))
early_used = sum(256 + k in docs_heldout_ids for k in range(first_rare))
size_ratio = len(docs_heldout) / len(docs_train)
display(Markdown(
    f"The held-out text uses {usage['share used by held-out text'].iloc[0]:.0%} of the tokens of the first "
    f"{BLOCK} merges and {usage['share used by held-out text'].iloc[-1]:.0%} of those of the last block. Of the "
    f"{n_late:,} tokens from rare pairs it uses {late_used:,} ({late_used / n_late:.0%}), against {early_used:,} of "
    f"the {first_rare:,} tokens learned before them ({early_used / first_rare:.0%}). A token made from a pair seen "
    f"*c* times occurs at most *c* times in the encoded training text (later merges only use it up; the cell "
    f"checks this), so a model trained on that text would meet each of these tokens fewer than {MIN_FREQUENCY} "
    f"times — too seldom to learn what it stands for — and each still costs a row of the embedding table "
    f"(section 6). Whether one such token is a quirk of the training text or a real piece that is merely rare, "
    f"this held-out text cannot tell: it is {size_ratio:.1%} the size of the training text, so even a pair as "
    f"common in new text as in the training text, seen once there, would be expected about {size_ratio:.2f} "
    f"times in it."))

# %% [markdown]
# So what should `min_frequency` be? Training with `min_frequency=f` stops at the first merge of a
# pair seen fewer than *f* times — the best pair's count never goes up — so it learns a prefix of
# the unrestricted run (the cell checks this for `MIN_FREQUENCY`). One run therefore gives the
# whole sweep:

# %%
assert train(docs_train, 256 + MAX_MERGES, min_frequency=MIN_FREQUENCY).merges == docs_run.merges[:first_rare]
no_minimum = tokens_per_word(docs_tok, docs_heldout)
sweep_rows = []
for f in (1, 2, 3, 5, 10, 20):
    k = int((docs_counts < f).idxmax()) if (docs_counts < f).any() else len(docs_counts)
    tok_f = docs_tok.truncated(k)
    used = set(tok_f.encode_ordinary(docs_heldout))
    sweep_rows.append({"min_frequency": f, "merges": k, "held-out tokens per word": tokens_per_word(tok_f, docs_heldout),
                       "vs no minimum": tokens_per_word(tok_f, docs_heldout) / no_minimum - 1,
                       "tokens held-out text uses": sum(256 + j in used for j in range(k)) / k})
sweep = pd.DataFrame(sweep_rows).set_index("min_frequency")
sweep.round(3)

# %% [hide-input]
at_rule = sweep.loc[MIN_FREQUENCY]
display(Markdown(
    f"Each step up removes merges and costs held-out text some tokens, and none is a sharp knee: from 1 to "
    f"{MIN_FREQUENCY}, the vocabulary loses {sweep.loc[1, 'merges'] - at_rule['merges']:,.0f} merges "
    f"({1 - at_rule['merges'] / sweep.loc[1, 'merges']:.0%} of them) and held-out text needs "
    f"{at_rule['vs no minimum']:.1%} more tokens, while the share of the vocabulary it uses rises from "
    f"{sweep.loc[1, 'tokens held-out text uses']:.0%} to {at_rule['tokens held-out text uses']:.0%}. The table "
    f"cannot pick the value; it shows the price. The chapter uses `MIN_FREQUENCY = {MIN_FREQUENCY}`, a judgement "
    f"that a token a model sees fewer than {MIN_FREQUENCY} times is not worth its row. On `{CORPORA[0]}` the rule "
    f"costs nothing: all {len(run.merges):,} merges of section 2 joined pairs seen at least "
    f"{min(run.merge_counts):,} times, and its two curves stay close ({novel_curves['training text'].iloc[-1]:.3f} "
    f"tokens per word on the training text, {novel_curves['held-out text'].iloc[-1]:.3f} held out)."))

# %% [markdown]
# From here on every trained tokenizer uses `min_frequency=MIN_FREQUENCY`, and a corpus that runs
# out of such pairs simply has a shorter curve.
#
# ## 4. The plot, with GPT-2 and GPT-4
#
# Now every corpus, plus two reference points: GPT-2's and GPT-4's tokenizers (loaded offline from
# OpenAI's files) measured on the same held-out text. Their "vocabulary size" is their largest
# id plus one, the number of rows a model's embedding table needs (section 6). The package function trains
# each corpus once with the same `min_frequency` and truncates; for the first corpus we hand it
# `big`, trained above.

# %%
references = {"GPT-2": gpt2(), "GPT-4 (cl100k)": cl100k()}
data = vocab_size_data(CORPORA, 0, MAX_MERGES, N_POINTS, references, trained={CORPORA[0]: big},
                       min_frequency=MIN_FREQUENCY)
fig = plot_vocab_size(data, f"Tokens per word and bytes per token on held-out text (min_frequency={MIN_FREQUENCY})")
display(fig)

# %% [markdown]
# The numbers behind the markers and the largest trained vocabularies (the merges each corpus really
# learned, which for the smaller corpora is fewer than `MAX_MERGES`):

# %%
largest = data[data["tokenizer"] == "trained"].groupby("corpus", sort=False).tail(1)
summary = pd.concat([largest, data[data["tokenizer"] != "trained"]]).sort_values(["corpus", "n_vocab"], kind="stable")
summary[["corpus", "tokenizer", "merges", "n_vocab", "tokens_per_word", "bytes_per_token"]].round(3)

# %% [markdown]
# ### Reading the plot
#
# The sentences below are computed from the data above, so they stay true if you change the corpora.

# %% [hide-input]
def fewer_or_more(a: float, b: float) -> str:
    return "fewer" if a < b else "more"


lines = []
for name, rows_c in data.groupby("corpus", sort=False):
    trained = rows_c[rows_c["tokenizer"] == "trained"].reset_index(drop=True)
    refs = rows_c[rows_c["tokenizer"] != "trained"].set_index("tokenizer")
    t = trained["tokens_per_word"]
    lines.append(
        f"* **{name}** ({trained['merges'].iloc[-1]:,} merges learned): the first {trained['merges'][1]} merges "
        f"take tokens per word from {t[0]:.2f} to {t[1]:.2f}; "
        f"the last {trained['merges'].iloc[-1] - trained['merges'].iloc[-2]:,} merges "
        f"only from {t.iloc[-2]:.2f} to {t.iloc[-1]:.2f}.")
    last = t.iloc[-1]
    comparisons = [f"{fewer_or_more(last, row['tokens_per_word'])} than {ref} ({row['tokens_per_word']:.2f} "
                   f"with {row['n_vocab']:,} tokens)" for ref, row in refs.iterrows()]
    if comparisons:
        lines.append(f"  With {trained['n_vocab'].iloc[-1]:,} tokens, the trained tokenizer needs {last:.2f} "
                     f"tokens per word: {' and '.join(comparisons)}.")
display(Markdown("\n".join(lines)))

# %% [markdown]
# Three things stand out.
#
# 1. **Diminishing returns.** Even on a logarithmic x axis the curves flatten: the first merges save
#    far more than the last (compare the two numbers in each sentence above). Early merges capture
#    frequent words and common endings; late ones capture rarer words — and these are merges of
#    pairs seen at least `MIN_FREQUENCY` times, so the flattening is not made by the rarest pairs.
# 2. **Where the tokenizer was trained matters as much as its size.** A small vocabulary trained on
#    this kind of text can rival a much bigger one made for something else: GPT-2 was built for web
#    pages (its model was trained on WebText, Radford et al., 2019), not for a novel or for Python's
#    documentation.
# 3. **Code is harder than prose**, and GPT-2 is especially poor at it. Part of the reason is
#    visible in one indented line: GPT-2 spends a token on each space of the indentation but the
#    last, while GPT-4's pattern and vocabulary keep a run of spaces together (chapters 08 and 10).

# %%
line = "        return self.value"
for label, tok_ref in references.items():
    pieces = tok_ref.token_bytes(tok_ref.encode(line))
    print(f"{label}: {len(pieces)} tokens, {sum(p.isspace() for p in pieces)} of them only whitespace")
    display(HTML(encoded_chips_html(tok_ref, line)))

# %% [markdown]
# ## 5. Explore: other corpora and ranges
#
# Pick a corpus and a range of merge counts; the plot is redrawn for that corpus, with GPT-2 and
# GPT-4 on the same held-out text, and the same `min_frequency`. The widget's numbers are in
# `explorer.data`. (`languages` mixes eight short texts, so it runs out of frequent pairs early.)

# %%
explorer = VocabSizeExplorer(references=references, max_merges=MAX_MERGES, min_frequency=MIN_FREQUENCY)
display(explorer.box)

# %% [markdown]
# The widget works from code too. Choosing `python_code` and narrowing the range of merges
# (`show` sets both, then redraws once) recomputes `explorer.data`, and its numbers match a
# direct measurement:

# %%
explorer.show(corpus="python_code", merges=(0, 1024))
code_rows = explorer.data[explorer.data["tokenizer"] == "trained"]
code_train, code_heldout = corpus.train_heldout("python_code")
code_tok = Tokenizer(*train_bpe(code_train, 256 + 1024, min_frequency=MIN_FREQUENCY))
assert abs(code_rows["tokens_per_word"].iloc[-1] - tokens_per_word(code_tok, code_heldout)) < 1e-12
print(f"{len(code_rows)} points from {code_rows['merges'].min()} to {code_rows['merges'].max()} merges; "
      f"the last matches a separate 1,024-merge training run")

# %% [markdown]
# ## 6. What a bigger vocabulary costs
#
# A language model starts by looking each token id up in an **embedding matrix**: one row of
# `d_model` numbers per id. Its size is (largest id + 1) × `d_model`. Here it is for the
# vocabularies above and the four GPT-2 model widths (768, 1024, 1280 and 1600; Radford et al.,
# 2019, table 2):

# %%
D_MODELS = {"GPT-2 small": 768, "medium": 1024, "large": 1280, "XL": 1600}
vocab_rows = {"trained, 1,024 merges": 256 + 1024, f"trained on {CORPORA[0]}, {len(big.merges):,} merges": len(big.vocab)}
vocab_rows |= {label: max(tok.vocab) + 1 for label, tok in references.items()}
cost = pd.DataFrame({f"{name} (d={d})": {label: rows * d / 1e6 for label, rows in vocab_rows.items()}
                     for name, d in D_MODELS.items()})
cost.index.name = "embedding parameters, millions"
cost.round(1)

# %% [markdown]
# How big is that next to the rest of the model? GPT-2 small's other parameters follow from its
# shape: 12 layers of width 768, 1,024 positions. Each layer holds attention (a 768 → 3×768
# projection and a 768 → 768 output, with biases), a 768 → 4×768 → 768 feed-forward block, and two
# layer norms; a final layer norm and the position embeddings complete the model. GPT-2 reuses the
# token embedding as its output layer, so it is counted once.

# %%
def gpt2_parameters(vocab_rows: int, d: int = 768, layers: int = 12, positions: int = 1024) -> dict[str, int]:
    per_layer = (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d) + 2 * (2 * d)
    return {"token embedding": vocab_rows * d, "position embedding": positions * d,
            "transformer layers": layers * per_layer, "final layer norm": 2 * d}


gpt2_small = gpt2_parameters(max(references["GPT-2"].vocab) + 1)
total = sum(gpt2_small.values())
for part, n in gpt2_small.items():
    print(f"{part:>20}: {n:>11,}  ({n / total:.1%})")
print(f"{'total':>20}: {total:>11,}")

# %% [hide-input]
display(Markdown(f"In GPT-2 small, the token embedding is {gpt2_small['token embedding'] / total:.0%} of the whole "
                 "model."))

# %% [markdown]
# Bigger models dilute it, since layers grow with d² and the embedding only with d. A model that does
# not reuse the embedding as its output layer pays for the vocabulary twice; and reused or not, the
# output layer costs compute for every token the model predicts: one score per row of the table.
#
# There is a second cost. Tokens added late in training are rare, and a model only learns a token
# from the places it occurs. How many of the last merges' tokens does the held-out text use at all?

# %%
heldout_ids = set(big.encode_ordinary(heldout_text))
last_block = 1024
late_ids = range(256 + len(big.merges) - last_block, 256 + len(big.merges))
early_ids = range(256, 256 + last_block)
late_used = sum(i in heldout_ids for i in late_ids) / last_block
early_used = sum(i in heldout_ids for i in early_ids) / last_block
print(f"held-out text of {CORPORA[0]} uses {early_used:.0%} of the first {last_block:,} merged tokens "
      f"and {late_used:.0%} of the last {last_block:,}")

# %% [markdown]
# So the "sweet spot" depends on what the tokenizer is for. Shorter sequences pay off in every layer
# and every token of context; a larger table costs memory and leaves more tokens undertrained.
#
# Why GPT-2 has 50,257 tokens and GPT-4's cl100k about 100,000, OpenAI has not said: the GPT-2 paper
# (Radford et al., 2019, section 2.3) states the size without giving a reason, and nothing was
# published about cl100k's. A plausible reading — which the measurements above are consistent with
# but cannot prove — is that a bigger vocabulary pays off once the training text mixes code and many
# languages, because each kind of text then brings its own frequent pieces.
#
# Fewer tokens per word is not yet a better model: each token can be harder to predict.
# [Chapter 16](16_what_a_tokenizer_does_to_a_model.ipynb) asks the question this plot raises — which size
# is best for a model? — and measures it in bits per byte of held-out text, under language models trained
# live on each vocabulary.
#
# ## Recap
#
# * Measure tokens per word (or bytes per token) on held-out text. Training text flatters a tokenizer (section 3:
#   by about the same amount at every size past a few hundred merges).
# * Merges of pairs seen only a few times make tokens that new text seldom uses and a model seldom sees;
#   tokens per word hardly shows it. `min_frequency` stops them at a price the sweep shows, and
#   `train(...).merge_counts` and `.stop_reason` say what was learned and why training stopped.
# * One training run gives every smaller vocabulary: `Tokenizer.truncated(k)`.
# * Returns diminish: the curve flattens, so late merges save far fewer tokens than early ones. What
#   the tokenizer was trained on matters as much as its size.
# * Costs: (largest id + 1) × d_model embedding parameters, and rare tokens a model barely sees.
#
# ## Exercises

# %%
from bpe_course.exercises.ch06 import check_embedding_params, check_tokens_per_word
from bpe_course.algorithms import WordBPE

# %% [markdown]
# **Exercise 1.** Train the character-level `WordBPE` (chapters 01–04) on `exercise_train` with 10,
# 30 and 100 merges, and give the average number of tokens per word of `exercise_heldout` for each.
# Careful: `WordBPE.train` takes a *vocabulary size*, not a number of merges.

# %%
exercise_train, exercise_heldout = train_text[:20_000], heldout_text
answers = {10: 0.0, 30: 0.0, 100: 0.0}  # replace with your numbers
check_tokens_per_word(answers, exercise_train, exercise_heldout)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# base = 4 + len({ch for w in exercise_train.split() for ch in w}) + 1  # specials + characters + </w>
# answers = {}
# for n in (10, 30, 100):
#     bpe = WordBPE.train(exercise_train, vocab_size=base + n)
#     answers[n] = len(bpe.tokenize(exercise_heldout)) / len(exercise_heldout.split())
# ```
# </details>

# %% [markdown]
# **Exercise 2.** Write `embedding_params(vocab, d_model)`: how many parameters the embedding
# matrix of a model with this vocabulary (`{id: token}`) and width holds. The checker tries it on a
# few small vocabularies and on GPT-4's (`references["GPT-4 (cl100k)"].vocab`) with `d_model = 4096`.

# %%
cl100k_vocab = references["GPT-4 (cl100k)"].vocab


def embedding_params(vocab: dict[int, bytes], d_model: int) -> int:
    return 0  # replace with your computation


check_embedding_params(embedding_params, cl100k_vocab, 4096)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Ids index rows, and cl100k's ids have gaps (some ids before and between its special tokens are
# unused), so the matrix needs `max(vocab) + 1` rows, not `len(vocab)`:
#
# ```python
# def embedding_params(vocab, d_model):
#     return (max(vocab) + 1) * d_model
# ```
# </details>
#
# [← 05 Special tokens and unknowns](05_special_tokens.ipynb) · [07 Bytes and Unicode →](07_bytes_and_unicode.ipynb)
