# %% [markdown]
# # 15 · Other designs: SentencePiece, WordPiece, Unigram, BPE-dropout
#
# [← 14 When tokens bite](14_when_tokens_bite.ipynb) · [00 Start here](00_start_here.ipynb)
#
# This course built one design, byte-level BPE with a regex pre-tokenizer: GPT-2's, GPT-4's and
# GPT-4o's. Other families of models made other choices. In this chapter you will train, on the same
# text, with the real libraries and offline:
#
# * **SentencePiece BPE** over code points, with `▁` for spaces, no pre-tokenizer and *byte
#   fallback* for characters it never saw (the LLaMA 1–2 tokenizers);
# * **WordPiece** (BERT) and **Unigram** (T5, ALBERT), and compare how each cuts the same words;
# * **BPE-dropout**, which samples other segmentations from the same merges — in a few lines, with a
#   widget;
# * and put a number on the alternative of no tokenizer at all: the sequence-length price of bytes.

# %%
import io
from random import Random

import pandas as pd
import sentencepiece as spm
from IPython.display import HTML, Markdown, display
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from bpe_course import Tokenizer, corpus, gpt2, train_bpe
from bpe_course.viz import token_label
from bpe_course.widgets.dropout import DropoutExplorer, dropout_tokens

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
# spells an unseen character in UTF-8 bytes. We train one of each, and this course's byte-level BPE,
# all with the same vocabulary size:

# %%
def train_sentencepiece(byte_fallback: bool) -> spm.SentencePieceProcessor:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=VOCAB_SIZE,
                                   model_type="bpe", byte_fallback=byte_fallback, character_coverage=1.0,
                                   num_threads=1, minloglevel=2)
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


sp_fallback, sp_plain = train_sentencepiece(True), train_sentencepiece(False)
ours = Tokenizer(*train_bpe(train_text, VOCAB_SIZE))
SAMPLES = ["The knight's helmet was unlowered.", "  indented   spaces", "naïve café 日本 🙂"]
rows = {}
for text in SAMPLES:
    rows[text] = {"SentencePiece, byte fallback": " · ".join(sp_fallback.encode(text, out_type=str)),
                  "SentencePiece, no fallback": " · ".join(sp_plain.encode(text, out_type=str)),
                  "byte-level BPE (this course)": " · ".join(token_label(t) for t in ours.token_bytes(ours.encode(text)))}
pd.DataFrame(rows).T

# %% [markdown]
# Round trips and length, on the held-out part of the novel and on the samples above:

# %%
def round_trip(encode, decode, text: str) -> bool:
    return decode(encode(text)) == text


checks = {"SentencePiece, byte fallback": (sp_fallback.encode, sp_fallback.decode),
          "SentencePiece, no fallback": (sp_plain.encode, sp_plain.decode),
          "byte-level BPE (this course)": (ours.encode, ours.decode)}
words = len(heldout_text.split())
summary = pd.DataFrame({name: {"tokens per word (held-out)": len(enc(heldout_text)) / words,
                               "held-out round trip": round_trip(enc, dec, heldout_text),
                               "samples round trip": all(round_trip(enc, dec, t) for t in SAMPLES)}
                        for name, (enc, dec) in checks.items()}).T
summary

# %% [hide-input]
unk = sp_plain.unk_id()
lost = [t for t in SAMPLES if unk in sp_plain.encode(t)]
back = {name: [t for t in SAMPLES if round_trip(enc, dec, t)] for name, (enc, dec) in checks.items()}
display(Markdown(
    f"Without byte fallback, {len(lost)} of the {len(SAMPLES)} samples "
    f"{'contains' if len(lost) == 1 else 'contain'} a character SentencePiece maps to its unknown token "
    f"(`{sp_plain.id_to_piece(unk)}`), and decoding cannot bring it back; byte fallback spells such characters in "
    f"bytes instead. Yet even with it, {len(SAMPLES) - len(back['SentencePiece, byte fallback'])} of the samples "
    "and the held-out text do not come back exactly: SentencePiece normalises whitespace by default (leading, "
    "repeated spaces and line breaks), a choice made for prose, not for code. Byte-level BPE returns every text "
    f"byte for byte. In length they are close: "
    f"{summary.loc['SentencePiece, byte fallback', 'tokens per word (held-out)']:.3f} against "
    f"{summary.loc['byte-level BPE (this course)', 'tokens per word (held-out)']:.3f} tokens per word held out."))

# %% [markdown]
# ## 2. WordPiece and Unigram, on the same words
#
# **WordPiece** (BERT) grows its vocabulary by merging too, but it scores a pair by how much more
# often it occurs than its parts would by chance (count(ab) / (count(a) · count(b))), not by raw count;
# pieces inside a word are marked `##`, and it encodes by taking the longest known piece from the
# left. **Unigram** (T5, ALBERT) goes the other way: it starts from a large set of candidate pieces
# and repeatedly drops those whose loss costs the text's likelihood least, and it encodes by
# choosing the most probable segmentation. Hugging Face `tokenizers` trains both. (Its trainers
# break some ties in an order that changes from run to run, so a piece or a last digit below may
# differ when you run it; the comparison does not.)

# %%
def hf_trained(model, trainer) -> HFTokenizer:
    tok = HFTokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(lines, trainer)
    return tok


wordpiece = hf_trained(models.WordPiece(unk_token="[UNK]"),
                       trainers.WordPieceTrainer(vocab_size=VOCAB_SIZE, special_tokens=["[UNK]"], show_progress=False))
unigram = hf_trained(models.Unigram(), trainers.UnigramTrainer(vocab_size=VOCAB_SIZE, unk_token="<unk>",
                                                               special_tokens=["<unk>"], show_progress=False))
hf_bpe = hf_trained(models.BPE(unk_token="<unk>"), trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=["<unk>"],
                                                                      show_progress=False))
# %%
# NBVAL_IGNORE_OUTPUT
WORDS = ["knighthood", "unlowered", "enchanters", "squire", "misfortunes", "Dulcinea"]
segment = {"BPE (HF, whitespace pre-tokenizer)": lambda w: hf_bpe.encode(w).tokens,
           "WordPiece": lambda w: wordpiece.encode(w).tokens, "Unigram": lambda w: unigram.encode(w).tokens,
           "SentencePiece BPE": lambda w: sp_fallback.encode(w, out_type=str)}
pd.DataFrame({name: {w: " · ".join(cut(w)) for w in WORDS} for name, cut in segment.items()})

# %% [hide-input]
# NBVAL_IGNORE_OUTPUT
lengths = {name: sum(len(cut(w)) for w in heldout_text.split()[:5000]) / 5000 for name, cut in segment.items()}
best = min(lengths, key=lengths.get)
display(Markdown(
    "Tokens per word over the first 5,000 held-out words: " + ", ".join(f"{name} {value:.3f}"
                                                                      for name, value in lengths.items())
    + f". With the same vocabulary size the designs land close together ({best} lowest); where they differ is in "
      "*which* pieces they choose, as the words above show."))

# %%
spread = max(lengths.values()) / min(lengths.values())
assert spread < 1.2
print(f"the four designs' tokens per word are within 20% of each other: {spread < 1.2}")

# %% [markdown]
# ## 3. BPE-dropout: other segmentations from the same merges
#
# Provilkov et al. (2020) keep the merges and change encoding: at every step, each merge that could
# apply is skipped with probability `p`. The same word then comes out in several valid spellings,
# and a model trained on them learns that a word can be cut in pieces. `dropout_tokens` does it in
# a few lines (`bpe_course/widgets/dropout.py`); with `p = 0` it is GPT-2's own encoding:

# %%
gpt = gpt2()
sample = heldout_text[:5000]
assert dropout_tokens(gpt, sample, 0.0, Random(0)) == [gpt.vocab[i] for i in gpt.encode_ordinary(sample)]
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
plain = {" ".join(hf_bpe.encode("misfortunes").tokens) for _ in range(20)}
print(f"'misfortunes' with dropout 0.1, 200 calls: more than one segmentation: {len(samples_hf) > 1}; "
      f"without dropout, one segmentation every time: {len(plain) == 1}")

# %% [markdown]
# Choose a word and `p`; each row is one sample (re-sample draws new ones):

# %%
explorer = DropoutExplorer(gpt, " unlowered", p=0.1)
display(explorer.box)

# %% [markdown]
# From code, the rows are `explorer.samples`; every sample spells the word exactly:

# %%
explorer.p.value = 0.3
assert all(b"".join(s) == " unlowered".encode() for s in explorer.samples)
print([" ".join(token_label(t) for t in s) for s in explorer.samples])

# %% [markdown]
# ## 4. No tokenizer at all: the price in sequence length
#
# Byte-level models (ByT5, for one) skip the vocabulary and read UTF-8 bytes. Nothing is out of
# vocabulary and nothing needs training, but every byte is a position. How much longer does that
# make a sequence, measured on this chapter's held-out text and chapter 06's corpora?

# %%
texts = {"don_quixote (held-out)": heldout_text, "python_docs (held-out)": corpus.train_heldout("python_docs")[1],
         "python_code (held-out)": corpus.train_heldout("python_code")[1]}
price = pd.DataFrame({name: {"bytes per GPT-2 token": len(t.encode()) / len(gpt.encode_ordinary(t))}
                      for name, t in texts.items()}).T
price["attention cost, relative (length²)"] = price["bytes per GPT-2 token"] ** 2
price.round(2)

# %% [hide-input]
display(Markdown(
    f"With GPT-2's tokens, one position covers {price['bytes per GPT-2 token'].min():.1f} to "
    f"{price['bytes per GPT-2 token'].max():.1f} bytes of these texts. A byte-level model needs that many times "
    f"the positions for the same text, and self-attention, whose cost grows with the square of the length, "
    f"{price['attention cost, relative (length²)'].min():.0f} to {price['attention cost, relative (length²)'].max():.0f} "
    "times the work — the price tokenizer-free designs pay, or work around with architectures that shorten the "
    "byte sequence inside the model."))

# %% [markdown]
# ## Recap
#
# * SentencePiece BPE works on characters with `▁` for spaces and no regex; *byte fallback* spells
#   unseen characters in bytes, which byte-level BPE does from the start.
# * WordPiece scores pairs by how surprising they are, Unigram prunes a large vocabulary by
#   likelihood; with the same size they compress alike and choose different pieces.
# * BPE-dropout samples other valid segmentations from the same merges; `p = 0` is ordinary BPE.
# * Without a tokenizer, sequences are several times longer and attention costs the square of that.
#
# ## Exercises

# %%
from bpe_course.exercises.ch15 import check_byte_price, check_dropout

# %% [markdown]
# **15.1** Write `my_dropout(piece, ranks, p, rng)`: BPE on the bytes `piece` where, at every step,
# each applicable merge is skipped with probability `p` (draw with `rng.random()`); stop when every
# applicable merge was skipped. The checker tries `p = 0`, `p = 1` and values in between.

# %%
def my_dropout(piece: bytes, ranks: dict[bytes, int], p: float, rng: Random) -> list[bytes]:
    return [piece[i:i + 1] for i in range(len(piece))]  # starter: never merges


check_dropout(my_dropout)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_dropout(piece, ranks, p, rng):
#     parts = [piece[i:i + 1] for i in range(len(piece))]
#     while len(parts) > 1:
#         kept = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1)
#                 if parts[i] + parts[i + 1] in ranks and rng.random() >= p]
#         if not kept:
#             break
#         _, i = min(kept)
#         parts[i:i + 2] = [parts[i] + parts[i + 1]]
#     return parts
# ```
# </details>
#
# **15.2** How many times more positions does a byte-level model need than GPT-2 for
# `heldout_text`? Give the ratio of its UTF-8 bytes to its GPT-2 tokens.

# %%
my_price = 1.0  # replace with your computation
check_byte_price(my_price, heldout_text)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `len(heldout_text.encode("utf-8")) / len(gpt.encode_ordinary(heldout_text))`
# </details>
#
# [← 14 When tokens bite](14_when_tokens_bite.ipynb) · [00 Start here](00_start_here.ipynb)
