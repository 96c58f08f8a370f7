# %% [markdown]
# # 15 · Other designs: SentencePiece, WordPiece, Unigram, BPE-dropout
#
# [← 14 When tokens bite](14_when_tokens_bite.ipynb) · [00 Start here](00_start_here.ipynb) · [16 What a tokenizer does to a model →](16_what_a_tokenizer_does_to_a_model.ipynb)
#
# This course built one design, byte-level BPE with a regex pre-tokenizer: GPT-2's, GPT-4's and
# GPT-4o's. Other families of models made other choices. In this chapter you will train, on the same
# text, with the real libraries and offline:
#
# * **SentencePiece BPE** over code points, with `▁` for spaces, no pre-tokenizer and *byte
#   fallback* for characters it never saw — once with the settings LLaMA 1 and 2 used, once with the
#   library's defaults, and see which of them gives every text back;
# * **WordPiece** (BERT) and **Unigram** (T5, ALBERT), and find out what Hugging Face's WordPiece
#   trainer really does;
# * **BPE-dropout**, which samples other segmentations from the same merges — written here in a few
#   lines, then explored with a widget;
# * and put a number on the alternative of no tokenizer at all: the sequence-length price of bytes,
#   for attention alone and for a whole forward pass.

# %%
import io
import re
from collections import Counter
from random import Random

import pandas as pd
import sentencepiece as spm
from IPython.display import Markdown, display
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from bpe_course import Tokenizer, compare, corpus, gpt2, pretokenize, token_label, train_bpe

pd.set_option("display.max_colwidth", None)  # show whole segmentations, never cut them with "…"
VOCAB_SIZE = 2000
train_text, heldout_text = corpus.train_heldout("don_quixote")
lines = [line for line in train_text.splitlines() if line.strip()]
print(f"don_quixote: {len(train_text):,} training characters, {len(lines):,} non-empty lines; vocabulary {VOCAB_SIZE:,}")

# %% [markdown]
# ## 1. SentencePiece: BPE over characters, spaces as `▁`
#
# SentencePiece reads raw text, with no regex: a space becomes the visible character `▁` and is
# merged like any other. Its BPE works on Unicode characters, not bytes, so a character it never saw
# would be unknown — unless `byte_fallback` is on, which adds the 256 bytes to the vocabulary and
# spells an unseen character in UTF-8 bytes.
#
# The library's *defaults* also change the text before training and encoding: a normalisation
# built on NFKC (`nmt_nfkc`: `ﬁ` becomes `fi`, `½` becomes `1⁄2`) and removal of leading, trailing
# and repeated spaces. LLaMA 1
# and 2 did not use those defaults. Their tokenizer file records the settings it was trained with
# (printed from Meta's `tokenizer.model` in Karpathy's llama2.c notes, `doc/train_llama_tokenizer.md`,
# and described in the LLaMA paper, Touvron et al. 2023, §2.1: numbers split into single digits,
# bytes for unknown characters). We copy the ones that change what comes out:

# %%
LLAMA_SETTINGS = dict(normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=True,
                      split_digits=True, byte_fallback=True, allow_whitespace_only_pieces=True,
                      character_coverage=0.99995, max_sentencepiece_length=16)


def train_sentencepiece(**settings) -> spm.SentencePieceProcessor:
    """SentencePiece BPE with VOCAB_SIZE pieces, trained on the novel's lines in memory."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=VOCAB_SIZE,
                                   model_type="bpe", num_threads=1, minloglevel=2, **settings)
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


sentencepieces = {"SentencePiece, LLaMA settings": train_sentencepiece(**LLAMA_SETTINGS),
                  "SentencePiece, defaults + byte fallback": train_sentencepiece(byte_fallback=True,
                                                                                 character_coverage=1.0),
                  "SentencePiece, defaults": train_sentencepiece(character_coverage=1.0)}
ours = Tokenizer(*train_bpe(train_text, VOCAB_SIZE))
SAMPLES = ["The knight's helmet was unlowered.", "  indented   spaces", "naïve café 日本 🙂", "ﬁne ½ Ⅻ",
           "def f():\n\treturn 1605\n", "trailing space "]
rows = {}
for text in SAMPLES:
    rows[repr(text)] = {name: " · ".join(sp.encode(text, out_type=str)) for name, sp in sentencepieces.items()}
    rows[repr(text)]["byte-level BPE (this course)"] = " · ".join(token_label(t) for t in ours.token_bytes(ours.encode(text)))
pd.DataFrame(rows).T

# %% [markdown]
# Round trips and length, on the held-out part of the novel and on the samples above:

# %%
def round_trip(encode, decode, text: str) -> bool:
    return decode(encode(text)) == text


checks = {name: (sp.encode, sp.decode) for name, sp in sentencepieces.items()}
checks["byte-level BPE (this course)"] = (ours.encode, ours.decode)
words = len(heldout_text.split())
summary = pd.DataFrame({name: {"tokens per word (held-out)": round(len(enc(heldout_text)) / words, 3),
                               "held-out round trip": round_trip(enc, dec, heldout_text),
                               "samples that round-trip": sum(round_trip(enc, dec, t) for t in SAMPLES)}
                        for name, (enc, dec) in checks.items()}).T
summary

# %% [hide-input]
LLAMA, FALLBACK = "SentencePiece, LLaMA settings", "SentencePiece, defaults + byte fallback"
llama, fallback, plain = sentencepieces.values()
back = {name: [t for t in SAMPLES if round_trip(enc, dec, t)] for name, (enc, dec) in checks.items()}
lost = [t for t in SAMPLES if plain.unk_id() in plain.encode(t)]
normalised = [t for t in SAMPLES if t not in back[FALLBACK]]
as_bytes = sorted({c for t in SAMPLES for c in t if c != " " and llama.piece_to_id(c) == llama.unk_id()})
never_seen = [c for c in as_bytes if not any(c in line for line in lines)]
digits_out = [d for d in "0123456789" if llama.piece_to_id(d) == llama.unk_id()]
digits_note = f", which in this novel includes the digit{'s' if len(digits_out) > 1 else ''} {', '.join(digits_out)}" \
    if digits_out else ""
display(Markdown(
    f"With LLaMA's settings, SentencePiece gives back the held-out text "
    f"({'exactly' if round_trip(llama.encode, llama.decode, heldout_text) else 'NOT exactly'}) and "
    f"{len(back[LLAMA])} of the {len(SAMPLES)} samples: spaces, tabs and line breaks are kept, and digits are "
    "split one by one. "
    "Characters outside its vocabulary are spelled in bytes: "
    f"{', '.join(f'`{c!r}`' for c in as_bytes)} here. Of those, {', '.join(f'`{c!r}`' for c in never_seen)} never "
    "occur in the training lines (a line break cannot: it trains line by line), and LLaMA's `character_coverage` "
    f"leaves the rarest characters of the training text out{digits_note}. "
    f"With the defaults and byte fallback, only {len(back[FALLBACK])} of the samples come back: "
    f"{', '.join(f'`{t!r}`' for t in normalised)} do not, because the normaliser rewrote characters and extra "
    "whitespace "
    f"was removed before encoding. Without byte fallback, {len(lost)} of the samples also "
    f"{'contains' if len(lost) == 1 else 'contain'} a character mapped to the unknown piece "
    f"`{plain.id_to_piece(plain.unk_id())}`, which no decoder can bring back. So SentencePiece can round-trip "
    "as byte-level BPE does; it is its defaults, made for prose, that do not. In length: "
    f"{summary.loc[LLAMA, 'tokens per word (held-out)']:.3f} tokens per held-out word with LLaMA's settings "
    f"and {summary.loc['byte-level BPE (this course)', 'tokens per word (held-out)']:.3f} for byte-level BPE, "
    "counted over the whole held-out text (section 2 compares SentencePiece with the Hugging Face designs word by "
    "word, with intervals; the course's byte-level BPE is not among them)."))

# %% [markdown]
# One caveat to that round trip: the character SentencePiece reserves for itself cannot come back,
# even with LLaMA's settings. It is `▁` (U+2581), which stands for a space, so the decoder turns it
# into one:

# %%
llama_sp = sentencepieces["SentencePiece, LLaMA settings"]
for text in ["a▁b", "a b"]:
    print(f"{text!r} -> {llama_sp.encode(text, out_type=str)} -> decoded {llama_sp.decode(llama_sp.encode(text))!r}")
print(f"byte-level BPE gives 'a▁b' back: {round_trip(ours.encode, ours.decode, 'a▁b')}")

# %% [markdown]
# ## 2. WordPiece and Unigram, on the same words
#
# **WordPiece** (Schuster and Nakajima, 2012; BERT's tokenizer) grows its vocabulary by merging too,
# but it picks the pair that most raises the likelihood of the training text, usually written as a
# score, count(ab) / (count(a) · count(b)): how much more often the pair occurs than its parts would
# side by side by chance (Hugging Face's NLP course, chapter 6). Pieces inside a word are marked
# `##`, and it encodes a word by taking the longest known piece from the left, again and again.
# **Unigram** (Kudo, 2018; T5, ALBERT) goes the other way: it starts from a large set of candidate
# pieces, repeatedly drops those whose loss costs the text's likelihood least, and encodes by
# choosing the most probable segmentation.
#
# The score is a few lines. Split the novel's words as WordPiece starts them (`k ##n ##i ##g ##h ##t`)
# and rank the pairs both ways:

# %%
def wordpiece_start(word: str) -> tuple[str, ...]:
    """A word as single characters, every one after the first marked ``##``."""
    return (word[0],) + tuple("##" + c for c in word[1:])


word_counts = Counter(re.findall(r"\w+|[^\w\s]+", train_text))  # the words HF's Whitespace pre-tokenizer gives
piece_counts, pair_counts = Counter(), Counter()
for word, n in word_counts.items():
    parts = wordpiece_start(word)
    for part in parts:
        piece_counts[part] += n
    for pair in zip(parts, parts[1:]):
        pair_counts[pair] += n
score = {pair: n / (piece_counts[pair[0]] * piece_counts[pair[1]]) for pair, n in pair_counts.items()}
by_count = sorted(pair_counts, key=lambda pair: (-pair_counts[pair], pair))[:5]
by_score = sorted(score, key=lambda pair: (-score[pair], pair))[:5]
common = sorted((pair for pair in score if pair_counts[pair] >= 100), key=lambda pair: (-score[pair], pair))[:5]
shown = lambda pairs: [f"{a} {b}  ({pair_counts[a, b]:,}×, score {score[a, b]:.2g})" for a, b in pairs]  # noqa: E731
pd.DataFrame({"first pairs by count (BPE)": [f"{a} {b}  ({pair_counts[a, b]:,}×)" for a, b in by_count],
              "first pairs by score (WordPiece)": shown(by_score),
              "by score, among pairs seen 100+ times": shown(common)})

# %% [hide-input]
display(Markdown(
    f"By count the first merge would be `{' '.join(by_count[0])}`, seen {pair_counts[by_count[0]]:,} times; by the "
    f"score it is `{' '.join(by_score[0])}`, seen {pair_counts[by_score[0]]:,} "
    f"time{'s' if pair_counts[by_score[0]] != 1 else ''}: a pair whose parts hardly ever occur apart. Among "
    f"common pairs the score's favourite is `{' '.join(common[0])}`. The score prefers pieces that belong together "
    "over pieces that are merely frequent — and, taken raw, the rarest such pairs of all."))

# %% [markdown]
# Now the library. Hugging Face `tokenizers` trains WordPiece, Unigram and BPE; its trainers break
# ties in an order that changes from run to run, so a piece or a last digit below may differ when
# you run it (those cells say so), while the comparisons do not.
#
# Its `WordPieceTrainer` does **not** use the score. Its source
# (`tokenizers/src/models/wordpiece/trainer.rs` in huggingface/tokenizers) holds a `BpeTrainer` built
# with `continuing_subword_prefix("##")`, and its `train` runs that BPE trainer and converts the
# result with `WordPiece::from_bpe`: it merges by count, like every BPE in this course. If that is
# so, `BpeTrainer(continuing_subword_prefix="##")` on the same text must give the same vocabulary:

# %%
def hf_trained(model, trainer) -> HFTokenizer:
    tok = HFTokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(lines, trainer)
    return tok


wordpiece = hf_trained(models.WordPiece(unk_token="[UNK]"),
                       trainers.WordPieceTrainer(vocab_size=VOCAB_SIZE, special_tokens=["[UNK]"], show_progress=False))
bpe_hash = hf_trained(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"),
                      trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=["[UNK]"],
                                          continuing_subword_prefix="##", show_progress=False))
unigram = hf_trained(models.Unigram(), trainers.UnigramTrainer(vocab_size=VOCAB_SIZE, unk_token="<unk>",
                                                               special_tokens=["<unk>"], show_progress=False))
hf_bpe = hf_trained(models.BPE(unk_token="<unk>"), trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=["<unk>"],
                                                                      show_progress=False))
wp_vocab, bpe_vocab = set(wordpiece.get_vocab()), set(bpe_hash.get_vocab())
print(f"WordPieceTrainer: {len(wp_vocab):,} pieces; BpeTrainer with '##': {len(bpe_vocab):,}; "
      f"score's favourite {''.join(by_score[0]).replace('##', '')!r} in the WordPiece vocabulary: "
      f"{by_score[0][0] + by_score[0][1].removeprefix('##') in wp_vocab}")

# %% [markdown]
# Both have the size asked for. Are they the same pieces? Where counts decide, they must be; where
# two pairs are seen *equally* often and overlap in a word, the order decides, because whichever is
# merged first uses up the character they share. Among the pairs seen 100+ times, counted before
# any merge, this novel has such ties in these words:

# %%
overlapping_ties = sorted({(word, left, right, pair_counts[left]) for word in word_counts
                           for parts in [wordpiece_start(word)]
                           for left, right in zip(zip(parts, parts[1:]), zip(parts[1:], parts[2:]))
                           if left != right and pair_counts[left] == pair_counts[right] >= 100})
pd.DataFrame([(word, " ".join(left), " ".join(right), n) for word, left, right, n in overlapping_ties],
             columns=["word", "pair", "overlapping pair", "both seen"])

# %% [markdown]
# Hugging Face breaks a tie between equal counts by the pieces' ids (the ordering of `Merge` in
# `tokenizers/src/models/bpe/trainer.rs`). It sorts the single characters "for determinism", but it
# numbers the `##` pieces in the order it meets the words in a hash map, an order that changes from
# one process to the next. So the two trainers may break such a tie differently, and either may break
# it differently in your next run — and their ids cannot be compared, since the `##` pieces are
# numbered in that random order. Compare the sets of pieces instead (this cell's output is this run's):

# %%
# NBVAL_IGNORE_OUTPUT
only_wp, only_bpe = sorted(wp_vocab - bpe_vocab), sorted(bpe_vocab - wp_vocab)
print(f"in this run: pieces in both {len(wp_vocab & bpe_vocab):,}; only WordPieceTrainer's: {only_wp or 'none'}; "
      f"only BpeTrainer's: {only_bpe or 'none'}")

# %% [markdown]
# Whatever that cell printed, this holds in every run:

# %%
tie_words = {word for word, *_ in overlapping_ties}
from_ties = all(any(piece.removeprefix("##") in word for word in tie_words) for piece in wp_vocab ^ bpe_vocab)
assert from_ties
print(f"every piece in only one of the two vocabularies is part of a word with a tie above: {from_ties}")

# %% [markdown]
# To see that the order of ties is the only difference, take it out of the trainers' hands: give
# them every `##` piece, sorted, as a special token, so that both number those pieces the same way
# before they meet any word. (A trick for this experiment only: a special token is matched in the
# text before anything else, harmless here because the novel has no `#`.) Now, in every run:

# %%
fixed_order = ["[UNK]"] + sorted({"##" + c for word in word_counts for c in word[1:]})
wordpiece_fixed = hf_trained(models.WordPiece(unk_token="[UNK]"), trainers.WordPieceTrainer(
    vocab_size=VOCAB_SIZE, special_tokens=fixed_order, show_progress=False))
bpe_fixed = hf_trained(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"), trainers.BpeTrainer(
    vocab_size=VOCAB_SIZE, special_tokens=fixed_order, continuing_subword_prefix="##", show_progress=False))
assert "#" not in train_text and wordpiece_fixed.get_vocab() == bpe_fixed.get_vocab()
print(f"'#' in the novel: {'#' in train_text}; with the {len(fixed_order) - 1} '##' pieces numbered in advance, "
      f"WordPieceTrainer and BpeTrainer give the same pieces with the same ids: "
      f"{wordpiece_fixed.get_vocab() == bpe_fixed.get_vocab()}")

# %% [markdown]
# So `WordPieceTrainer` is BPE by count with `##`: its vocabulary is `BpeTrainer`'s, up to the order
# of ties. What does differ is the **encoder**. Give both encoders one vocabulary (the fixed-order
# one, so that your run prints what this page shows) — WordPiece's longest match first, and BPE's
# merges replayed in order — and cut the held-out words:

# %%
longest_first = HFTokenizer(models.WordPiece(vocab=bpe_fixed.get_vocab(), unk_token="[UNK]"))
longest_first.pre_tokenizer = pre_tokenizers.Whitespace()
distinct = sorted(set(re.findall(r"\w+", heldout_text)))
differ = [w for w in distinct if longest_first.encode(w).tokens != bpe_fixed.encode(w).tokens]
print(f"{len(differ):,} of {len(distinct):,} distinct held-out words ({len(differ) / len(distinct):.0%}) are cut "
      "differently by the two encoders on one vocabulary")
pd.DataFrame({"longest match first (WordPiece)": {w: " ".join(longest_first.encode(w).tokens) for w in differ[:8]},
              "merges in order (BPE)": {w: " ".join(bpe_fixed.encode(w).tokens) for w in differ[:8]}})

# %% [markdown]
# Longest-match-first grabs the longest piece at the start even when that leaves awkward pieces
# after it; BPE builds pieces from the inside out in the order they were learned. Neither is
# "right": they are two readings of one vocabulary.
#
# Now all four designs side by side, on words of the novel:

# %%
# NBVAL_IGNORE_OUTPUT
WORDS = ["knighthood", "unlowered", "enchanters", "squire", "misfortunes", "Dulcinea"]
sp_llama = sentencepieces["SentencePiece, LLaMA settings"]
segment = {"BPE (HF, whitespace pre-tokenizer)": lambda w: hf_bpe.encode(w).tokens,
           "WordPiece (HF)": lambda w: wordpiece.encode(w).tokens, "Unigram (HF)": lambda w: unigram.encode(w).tokens,
           "SentencePiece BPE (LLaMA settings)": lambda w: sp_llama.encode(w, out_type=str)}
pd.DataFrame({name: {w: " · ".join(cut(w)) for w in WORDS} for name, cut in segment.items()})

# %% [hide-input]
# Composes the sentence from this run's lengths (HF's ties vary from run to run, hence:)
# NBVAL_IGNORE_OUTPUT
held_words = heldout_text.split()[:5000]
runs = {name: [(sum(len(cut(w)) for w in held_words[i:i + 100]), 100) for i in range(0, 5000, 100)]
        for name, cut in segment.items()}  # tokens and words per run of 100 held-out words: the yardstick's units
lengths = {name: sum(t for t, _ in run) / 5000 for name, run in runs.items()}
best = min(lengths, key=lengths.get)
gaps = {name: compare(runs[best], runs[name], unit="tokens per word", words=("fewer", "more"))
        for name in lengths if name != best}  # the lowest against each of the others, not only the runner-up
display(Markdown(
    "Tokens per word over the first 5,000 held-out words: " + ", ".join(f"{name} {value:.3f}"
                                                                      for name, value in lengths.items())
    + f". With the same vocabulary size the designs need {min(lengths.values()):.3f} to {max(lengths.values()):.3f} "
      f"tokens per word; {best} "
    + ("needs the fewest" if all(g.direction == "lower" for g in gaps.values()) else
       "is not clearly below " + ", ".join(name for name, g in gaps.items() if g.direction != "lower"))
    + " (" + "; ".join(f"against {name}: {g.verdict}" for name, g in gaps.items())
    + ", over runs of 100 words). They also differ in *which* pieces they choose, as the words above show."))

# %%
spread = max(lengths.values()) / min(lengths.values())
assert spread < 1.2
print(f"the four designs' tokens per word are within 20% of each other: {spread < 1.2}")

# %% [markdown]
# ## 3. BPE-dropout: other segmentations from the same merges
#
# Provilkov et al. (2020) keep the merges and change encoding: at every step, each merge that could
# apply is skipped with probability `p`. The same word then comes out in several valid spellings,
# and a model trained on them learns that a word can be cut in pieces (whether that buys an n-gram model
# robustness to typos is measured in [chapter 16](16_what_a_tokenizer_does_to_a_model.ipynb)). It is a small
# change to the merge loop of chapter 09 — one random draw per candidate merge:

# %%
def dropout_merge(piece: bytes, ranks: dict[bytes, int], p: float, rng: Random) -> list[bytes]:
    """BPE on one pre-token where, at every step, each merge that could apply is skipped with probability p."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        kept = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1)
                if parts[i] + parts[i + 1] in ranks and rng.random() >= p]
        if not kept:  # every merge that could apply was skipped: the word stops here
            break
        _, i = min(kept)  # the lowest rank among the merges kept, leftmost on ties
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


def dropout_tokens(tok: Tokenizer, text: str, p: float, rng: Random) -> list[bytes]:
    """The tokens of ``text``, pre-tokenized as ``tok`` does, with BPE-dropout inside every pre-token."""
    ranks = {a + b: k for k, (a, b) in reversed(list(enumerate(tok.merges)))}  # subtle: the earliest merge wins
    return [part for piece in pretokenize(text, tok.pattern) for part in dropout_merge(piece.encode(), ranks, p, rng)]


# %% [markdown]
# With `p = 0` nothing is skipped, so it must be GPT-2's own encoding; the package has the same two
# functions (`bpe_course/algorithms/dropout.py`, behind the widget below), so the same seed must give
# the same samples. Then the length, as `p` grows:

# %%
from bpe_course.algorithms import dropout_tokens as package_dropout_tokens

gpt = gpt2()
sample = heldout_text[:5000]
assert dropout_tokens(gpt, sample, 0.0, Random(0)) == [gpt.vocab[i] for i in gpt.encode_ordinary(sample)]
assert dropout_tokens(gpt, sample, 0.3, Random(5)) == package_dropout_tokens(gpt, sample, 0.3, Random(5))
by_p = {p: len(dropout_tokens(gpt, sample, p, Random(7))) / len(sample.split()) for p in (0.0, 0.05, 0.1, 0.2, 0.5, 1.0)}
pd.Series(by_p, name="tokens per word").rename_axis("p").round(3)

# %% [markdown]
# Hugging Face's BPE has the same option, `dropout`. It agrees in spirit: with `dropout` set, the
# same word is cut differently from call to call, and more finely on average:

# %%
hf_bpe.model.dropout = 0.1
samples_hf = {" ".join(hf_bpe.encode("misfortunes").tokens) for _ in range(200)}
hf_bpe.model.dropout = None
assert len(samples_hf) > 1  # subtle: HF draws from its own unseeded generator, so how many varies from run to run
plain_cuts = {" ".join(hf_bpe.encode("misfortunes").tokens) for _ in range(20)}
print(f"'misfortunes' with dropout 0.1, 200 calls: more than one segmentation: {len(samples_hf) > 1}; "
      f"without dropout, one segmentation every time: {len(plain_cuts) == 1}")

# %% [markdown]
# Choose a word and `p`; each row is one sample (re-sample draws new ones). The `␣` box puts a
# space before the word, as inside a sentence:

# %%
from bpe_course.widgets import DropoutExplorer

explorer = DropoutExplorer(gpt, " unlowered", p=0.1)
display(explorer.box)

# %% [markdown]
# From code, the rows are `.samples`. We drive a second explorer here, so that the one above stays
# as its own cell made it; every sample spells the word exactly:

# %%
driven = DropoutExplorer(gpt, " unlowered", p=0.3)
assert all(b"".join(s) == " unlowered".encode() for s in driven.samples)
print([" ".join(token_label(t) for t in s) for s in driven.samples])

# %% [markdown]
# ## 4. No tokenizer at all: the price in sequence length
#
# Byte-level models (ByT5, Xue et al. 2022, for one) skip the vocabulary and read UTF-8 bytes.
# Nothing is out of vocabulary and nothing needs training, but every byte is a position. How much
# longer does that make a sequence, measured on this chapter's held-out text and chapter 06's corpora?

# %%
texts = {"don_quixote (held-out)": heldout_text, "python_docs (held-out)": corpus.train_heldout("python_docs")[1],
         "python_code (held-out)": corpus.train_heldout("python_code")[1]}
price = pd.DataFrame({name: {"bytes per GPT-2 token": len(t.encode()) / len(gpt.encode_ordinary(t))}
                      for name, t in texts.items()}).T
price.round(2)

# %% [markdown]
# Self-attention compares every position with every other, so *its* cost grows with the square of
# the length. But attention is only part of a forward pass. Kaplan et al. (2020, Table 1) count a
# decoder's forward pass per position as 2N operations for the N weights of its layers (about
# twelve times n_layer · d_model² of them), plus 2 · n_layer · n_ctx · d_model for attention over a
# context of n_ctx positions, plus 2 · d_model · vocabulary for the output layer. Take a model the
# shape of GPT-2 small (Radford et al. 2019; its sizes are the constants below) and give it the
# same text as bytes: a context as many times longer as the table above says, and an output layer
# over the byte values instead of GPT-2's tokens.

# %%
N_LAYER, D_MODEL, N_CTX, GPT2_VOCAB, BYTE_VOCAB = 12, 768, 1024, 50_257, 256


def forward_flops(positions: int, vocab: int) -> dict[str, float]:
    """Operations of one forward pass over ``positions`` positions, by part (Kaplan et al. 2020, Table 1)."""
    n_weights = 12 * N_LAYER * D_MODEL ** 2  # attention's 4·d² and the MLP's 8·d² per layer
    return {"layers (2N)": positions * 2 * n_weights,
            "attention": positions * 2 * N_LAYER * positions * D_MODEL,
            "output layer": positions * 2 * D_MODEL * vocab}


for name, row in price.iterrows():
    tokens = forward_flops(N_CTX, GPT2_VOCAB)
    as_bytes = forward_flops(round(N_CTX * row["bytes per GPT-2 token"]), BYTE_VOCAB)
    price.loc[name, "attention alone, ×"] = as_bytes["attention"] / tokens["attention"]
    price.loc[name, "whole forward pass, ×"] = sum(as_bytes.values()) / sum(tokens.values())
price.round(2)

# %% [hide-input]
display(Markdown(
    f"With GPT-2's tokens, one position covers {price['bytes per GPT-2 token'].min():.1f} to "
    f"{price['bytes per GPT-2 token'].max():.1f} bytes of these texts, so a byte-level model needs that many times "
    f"the positions. The **attention term alone** then costs {price['attention alone, ×'].min():.0f} to "
    f"{price['attention alone, ×'].max():.0f} times as much — the square. A **whole forward pass** of a "
    f"GPT-2-small-sized model costs {price['whole forward pass, ×'].min():.1f} to "
    f"{price['whole forward pass, ×'].max():.1f} times as much: most of its work is the layers' weights, which grow "
    "only with the length, and the byte model's output layer is almost free. Still several times the work for the "
    "same text — the price tokenizer-free designs pay, or work around with architectures that shorten the byte "
    "sequence inside the model."))

# %% [markdown]
# ## Recap
#
# * SentencePiece BPE works on characters with `▁` for spaces and no regex; *byte fallback* spells
#   unseen characters in bytes. With LLaMA's settings (no normalisation, whitespace kept) it gives
#   back every text but one holding `▁` itself; its defaults (NFKC-based normalisation, extra
#   whitespace removed) do not.
# * WordPiece's score prefers pairs whose parts belong together; Hugging Face's `WordPieceTrainer`
#   does not use it — it is count-based BPE with `##`, and what differs is the longest-match encoder.
#   Unigram prunes a large vocabulary by likelihood. With the same size they can differ in length
#   (section 2 gives the shortest design's lead over each of the others, with its interval) and in
#   the pieces they choose.
# * BPE-dropout samples other valid segmentations from the same merges; `p = 0` is ordinary BPE.
# * Without a tokenizer, sequences are several times longer: attention costs the square of that,
#   a whole forward pass of a small model a few times as much.
#
# ## Exercises

# %%
from bpe_course.exercises.ch15 import check_longest_match, check_reachable

# %% [markdown]
# **15.1** Write WordPiece's encoder for one word: `my_longest_match(word, vocab)` returns the
# pieces, each the longest entry of `vocab` that fits at that point, continuing pieces written with
# `##` in front. If at some point no entry fits, the whole word becomes `["[UNK]"]`. The checker
# compares with Hugging Face's `models.WordPiece` on a small vocabulary of its own.

# %%
def my_longest_match(word: str, vocab: set[str]) -> list[str]:
    return list(word)  # starter: one piece per character, no ##


check_longest_match(my_longest_match)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_longest_match(word, vocab):
#     pieces, start = [], 0
#     while start < len(word):
#         for end in range(len(word), start, -1):
#             piece = word[start:end] if start == 0 else "##" + word[start:end]
#             if piece in vocab:
#                 break
#         else:
#             return ["[UNK]"]
#         pieces.append(piece)
#         start = end
#     return pieces
# ```
# </details>
#
# **15.2** Which segmentations can BPE-dropout produce at all, for some `0 < p < 1`? Write
# `my_reachable(piece, ranks)` returning them all, as a set of tuples of bytes, by following every
# choice `dropout_merge` could make instead of drawing. Check your answer against a few thousand
# draws of `dropout_merge` before you run the checker.

# %%
def my_reachable(piece: bytes, ranks: dict[bytes, int]) -> set[tuple[bytes, ...]]:
    return {tuple(dropout_merge(piece, ranks, 0.0, Random(0)))}  # starter: only plain BPE's answer


check_reachable(my_reachable)

# %% [markdown]
# <details><summary>Solution</summary>
#
# At every step the merge applied is the lowest-ranked among those *kept*, and any one merge that
# could apply may be the only one kept; or all may be dropped, and the word stops. So every state
# reachable by applying applicable merges, in any order, stopping anywhere, can come out:
#
# ```python
# def my_reachable(piece, ranks):
#     start = tuple(piece[i:i + 1] for i in range(len(piece)))
#     seen, todo = {start}, [start]
#     while todo:
#         parts = todo.pop()
#         for i in range(len(parts) - 1):
#             if parts[i] + parts[i + 1] in ranks:
#                 merged = parts[:i] + (parts[i] + parts[i + 1],) + parts[i + 2:]
#                 if merged not in seen:
#                     seen.add(merged)
#                     todo.append(merged)
#     return seen
# ```
# </details>
#
# [← 14 When tokens bite](14_when_tokens_bite.ipynb) · [00 Start here](00_start_here.ipynb) · [16 What a tokenizer does to a model →](16_what_a_tokenizer_does_to_a_model.ipynb)
