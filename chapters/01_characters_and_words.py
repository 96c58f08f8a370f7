# %% [markdown]
# # 01 · Characters, words and why subwords
#
# [← 00 Start here](00_start_here.ipynb) · [02 Counting pairs →](02_counting_pairs.ipynb)
#
# A language model reads numbers, not text, so every text must be cut into **tokens** and each
# token given an id. Before byte-pair encoding, try the two obvious ways to cut:
#
# * **words** — split on whitespace; every distinct word gets an id;
# * **characters** — every distinct character gets an id.
#
# You will build both, measure them on text they were *not* built from (a held-out part of the
# corpus), and see that each fails in its own way. The measurements point straight at what BPE
# does: something in between, **subwords**.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file

# %%
from collections import Counter

import pandas as pd
from IPython.display import HTML, Markdown, display

from bpe_course import chips_html, corpus

# %% [markdown]
# ## Train and held-out text
#
# A tokenizer is built ("trained") from one text and then used on others. To see how it does on
# text it has never seen, we keep part of the corpus aside. The built-in corpora have a frozen
# split; your own file is cut at a paragraph break 90% of the way in.

# %%
train_text, heldout_text = corpus.train_heldout(CORPUS)
train_words, heldout_words = train_text.split(), heldout_text.split()
print(f"train:    {len(train_text):>9,} characters, {len(train_words):>7,} words")
print(f"held-out: {len(heldout_text):>9,} characters, {len(heldout_words):>7,} words")

# %% [markdown]
# ## A whitespace tokenizer
#
# The vocabulary is every distinct whitespace-separated string in the training text, most
# frequent first (ties in the order Python sorts strings, by code point, so ids never depend on
# chance). Id 0 is reserved for `<unk>`, "unknown": the only thing this tokenizer can say about a
# word it has not seen.

# %%
class WhitespaceTokenizer:
    UNK = "<unk>"

    def __init__(self, text: str) -> None:
        counts = Counter(text.split())
        words = sorted(counts, key=lambda word: (-counts[word], word))
        self.id_to_word = [self.UNK] + words
        self.word_to_id = {word: i for i, word in enumerate(self.id_to_word)}
        self.counts = counts

    def encode(self, text: str) -> list[int]:
        return [self.word_to_id.get(word, 0) for word in text.split()]

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.id_to_word[i] for i in ids)


words_tok = WhitespaceTokenizer(train_text)
print(f"vocabulary: {len(words_tok.id_to_word):,} entries; the 10 most frequent: {words_tok.id_to_word[1:11]}")

# %% [markdown]
# ### Related words, unrelated ids
#
# To this tokenizer *run*, *runs* and *running* are as different as *run* and *zebra*: each is
# a separate entry (if it made it into the vocabulary at all), and nothing in the ids says they
# share a stem. Capitals and punctuation make more separate entries still.

# %%
family = ["run", "runs", "running", "rerun", "Run", "run.", "run,"]
pd.DataFrame({"word": family,
              "id": [words_tok.word_to_id.get(w, 0) for w in family],
              "times in training text": [words_tok.counts[w] for w in family]}).set_index("word")

# %% [markdown]
# ### Out-of-vocabulary words
#
# The vocabulary is **closed**: it is fixed at training time. Any held-out word it lacks becomes
# `<unk>`, and decoding cannot bring it back.

# %%
sentence = next(line for line in heldout_text.splitlines() if len(line.split()) >= 10)
sentence = " ".join(sentence.split()[:14])
ids = words_tok.encode(sentence)
print("text:   ", sentence)
print("ids:    ", ids)
print("decoded:", words_tok.decode(ids))

# %%
unknown = Counter(w for w in heldout_words if w not in words_tok.word_to_id)
oov_rate = sum(unknown.values()) / len(heldout_words)

# %% [hide-input]
display(Markdown(
    f"**{oov_rate:.1%}** of the held-out words (counting every occurrence) are not in the vocabulary "
    f"— {len(unknown):,} different strings. The most frequent of them:"))

# %%
pd.DataFrame(unknown.most_common(12), columns=["held-out word", "occurrences"])

# %% [markdown]
# A bigger training text helps less than you might hope, because word frequencies have a very
# long tail: many words occur once, so every new text brings new ones. In the training text itself:

# %%
once = sum(1 for n in words_tok.counts.values() if n == 1)
print(f"{once:,} of the {len(words_tok.counts):,} vocabulary words ({once / len(words_tok.counts):.0%}) "
      "occur exactly once in the training text")

# %% [markdown]
# ## A character tokenizer
#
# The opposite extreme: the vocabulary is every distinct character of the training text —
# letters, digits, punctuation, space, newline. It is tiny, almost nothing is unknown, and
# decoding gives back the exact text (spaces and all). The price: many more tokens per text.

# %%
class CharTokenizer:
    UNK = "<unk>"

    def __init__(self, text: str) -> None:
        self.id_to_char = [self.UNK] + sorted(set(text))
        self.char_to_id = {ch: i for i, ch in enumerate(self.id_to_char)}

    def encode(self, text: str) -> list[int]:
        return [self.char_to_id.get(ch, 0) for ch in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.id_to_char[i] for i in ids)


chars_tok = CharTokenizer(train_text)
print(f"vocabulary: {len(chars_tok.id_to_char)} entries")
ids = chars_tok.encode(sentence)
print(f"{len(sentence.split())} words -> {len(ids)} tokens; round trip exact: {chars_tok.decode(ids) == sentence}")

# %% [markdown]
# ## Side by side on held-out text
#
# Three numbers for each tokenizer, all measured on the held-out text:
#
# * **vocabulary size** — how many ids the model must know (an embedding row each);
# * **tokens per word** — how long sequences get (longer = more compute, less text per context);
# * **`<unk>` rate** — the share of tokens that are `<unk>`: information lost for good.
#
# As a preview, the last row is the character-level BPE tokenizer you will build in chapters 2–3
# (`bpe_course.algorithms.wordbpe.WordBPE`), trained on the same training text.

# %%
from bpe_course.algorithms import UNK, WordBPE

BPE_VOCAB = 500  # a small subword vocabulary, so this cell stays fast
subword_tok = WordBPE.train(train_text, BPE_VOCAB)

word_ids = words_tok.encode(heldout_text)
char_ids = chars_tok.encode(heldout_text)
subword_tokens = subword_tok.tokenize(heldout_text)
rows = [
    ("whitespace words", len(words_tok.id_to_word), len(word_ids), word_ids.count(0)),
    ("characters", len(chars_tok.id_to_char), len(char_ids), char_ids.count(0)),
    ("subwords (BPE, preview)", len(subword_tok.vocab), len(subword_tokens), subword_tokens.count(UNK)),
]
comparison = pd.DataFrame(
    [(name, vocab, tokens / len(heldout_words), unks / tokens) for name, vocab, tokens, unks in rows],
    columns=["tokenizer", "vocabulary size", "tokens per word", "<unk> rate"]).set_index("tokenizer")
assert comparison.loc["whitespace words", "tokens per word"] == 1.0
comparison.assign(**{"tokens per word": comparison["tokens per word"].map("{:.2f}".format),
                     "<unk> rate": comparison["<unk> rate"].map("{:.2%}".format)})

# %% [hide-input]
w, c, s = (comparison.iloc[i].to_dict() for i in range(3))
display(Markdown(
    f"Words: one token per word, but a vocabulary of {int(w['vocabulary size']):,} that still misses "
    f"{w['<unk> rate']:.1%} of held-out words. Characters: a vocabulary of {int(c['vocabulary size'])}, "
    f"{c['<unk> rate']:.2%} unknown, but {c['tokens per word']:.1f} tokens per word "
    f"({c['tokens per word'] / s['tokens per word']:.1f}× the subword tokenizer's). Subwords: "
    f"{int(s['vocabulary size'])} entries, {s['tokens per word']:.2f} tokens per word (the end-of-word "
    f"marker `</w>` is a token when it is not merged), and {s['<unk> rate']:.2%} unknown — a "
    "character is only unknown if it never occurs in the training text at all."))

# %% [markdown]
# The same held-out sentence through all three — one chip per token:

# %%
def show(name: str, tokens: list[str]) -> None:
    display(HTML(f"<b>{name}</b> ({len(tokens)} tokens){chips_html(tokens)}"))


show("whitespace words", [words_tok.id_to_word[i] for i in words_tok.encode(sentence)])
show("characters", list(sentence))
show("subwords (BPE, preview)", subword_tok.tokenize(sentence))

# %% [markdown]
# ## Why subwords
#
# Subword tokenizers keep the good half of each extreme: frequent words are single tokens (short
# sequences), rare words are spelled from smaller known pieces (nothing lost), and related words
# can share pieces — the table below shows what this small preview vocabulary does with *run*'s
# family. Byte-pair encoding finds those pieces by repeatedly
# merging the most frequent pair of neighbouring symbols — which is where chapter 2 starts.
# (Chapter 7 then removes the last `<unk>`s by working on bytes instead of characters.)

# %%
family_tokens = {word: " · ".join(subword_tok.tokenize(word)) for word in ["run", "runs", "running", "rerun"]}
pd.DataFrame({"subword tokens": family_tokens})

# %% [markdown]
# ## Recap
#
# * Whitespace words: short sequences, huge closed vocabulary, unknown words lost as `<unk>`,
#   related words unrelated.
# * Characters: tiny vocabulary, nothing (or almost nothing) unknown, very long sequences.
# * Always measure on held-out text: a tokenizer is used on text it was not built from.
#
# ## Exercises
#
# **1.1** Write `oov_rate(train_words, heldout_words)`: the share of held-out word occurrences
# that never occur in the training words.

# %%
from bpe_course.exercises.ch01 import (TOKEN_COUNT_TEXT, VOCAB_TEXT, check_oov_rate, check_token_counts,
                                       check_whitespace_vocab_size)


def my_oov_rate(train_words, heldout_words):
    unseen = set(heldout_words) - set(train_words)  # starter: counts distinct words, not occurrences
    return len(unseen) / len(set(heldout_words))


check_oov_rate(my_oov_rate)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_oov_rate(train_words, heldout_words):
#     known = set(train_words)
#     return sum(word not in known for word in heldout_words) / len(heldout_words)
# ```
# </details>
#
# **1.2** How many tokens do the character tokenizer and the whitespace tokenizer produce for
# `TOKEN_COUNT_TEXT`? Count in your head, then check.

# %%
print(repr(TOKEN_COUNT_TEXT))
check_token_counts(char_tokens=14, word_tokens=3)  # starter guess: replace with yours

# %% [markdown]
# <details><summary>Solution</summary>
#
# Characters keep the spaces: `len(TOKEN_COUNT_TEXT)` tokens. Words: `len(TOKEN_COUNT_TEXT.split())`.
# </details>
#
# **1.3** A whitespace tokenizer is trained on `VOCAB_TEXT`. How many vocabulary entries does it
# have, not counting `<unk>`?

# %%
print(repr(VOCAB_TEXT))
check_whitespace_vocab_size(7)  # starter guess: replace with yours

# %% [markdown]
# <details><summary>Solution</summary>
#
# `len(set(VOCAB_TEXT.split()))`: `The` and `the` are different strings, and so are `sat.` and
# `sat`, `mat!` and `mat`.
# </details>
#
# [← 00 Start here](00_start_here.ipynb) · [02 Counting pairs →](02_counting_pairs.ipynb)
