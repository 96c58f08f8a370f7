# %% [markdown]
# # 00 · Start here
#
# [01 Characters, words and why subwords →](01_characters_and_words.ipynb)
#
# This course teaches **byte-pair encoding (BPE)**, the tokenization method behind GPT-2,
# GPT-4 and most large language models, by building it. You start from characters and a toy
# corpus, write the training loop and the encoder yourself, move to bytes and regex
# pre-tokenization, and reproduce **GPT-2's tokenizer rank for rank** and **GPT-4's
# `cl100k_base`** exactly — the same ids as OpenAI's `tiktoken`, checked in the notebooks. Then
# you measure what a tokenizer does to a language model (in bits per byte), try the newest BPE
# variants, and rebuild an open model's tokenizer and chat prompt id for id.
#
# Every chapter builds a short *teaching version* of something, then checks it against the
# course's helper package `bpe_course` (the canonical, tested version that later chapters
# import) or against `tiktoken`. Numbers in the text are computed by the notebook, so they stay
# true when you point a chapter at your own text.
#
# ## The chapter map
#
# | # | Chapter | What you build | Widget / plot |
# |---|---------|----------------|---------------|
# | 01 | [Characters, words and why subwords](01_characters_and_words.ipynb) | a whitespace and a character tokenizer, measured on held-out text | comparison table: vocabulary size, tokens per word, `<unk>` rate |
# | 02 | [Counting pairs and making one merge](02_counting_pairs.ipynb) | pair counting, the best pair (and ties), one merge | **pair explorer**: top-pair bars + "apply best merge" |
# | 03 | [The training loop](03_training_loop.ipynb) | the full character-level trainer with `</w>` and special tokens | **merge-count slider** re-tokenizing a text live |
# | 04 | [Encoding and decoding](04_encoding_decoding.ipynb) | the merge-order and the rank-based encoder, decoding, round trips | **merge stepper**: one word through its merges |
# | 05 | [Special tokens and unknowns](05_special_tokens.ipynb) | pad/bos/eos/unk; tiktoken-style allowed and disallowed specials | side-by-side ids with tiktoken |
# | 06 | [How big should the vocabulary be?](06_vocabulary_size.ipynb) | tokens per word against vocabulary size on held-out text | **the vocab-size plot** with GPT-2/GPT-4 marked, and its explorer |
# | 07 | [Bytes and Unicode](07_bytes_and_unicode.ipynb) | UTF-8 bytes, GPT-2's `bytes_to_unicode` derived step by step | the 256-entry byte table |
# | 08 | [Regex pre-tokenization](08_regex_pretokenization.ipynb) | the GPT-2 and GPT-4 split patterns, piece by piece | side-by-side pre-tokenizations, effect on tokens per word |
# | 09 | [GPT-2, rank for rank](09_gpt2_rank_for_rank.ipynb) | parse `encoder.json` / `vocab.bpe`, encode with ranks, match tiktoken | **merge tree** of a token |
# | 10 | [GPT-4's cl100k](10_gpt4_cl100k.ipynb) | merges recovered from a rank-only file, matching tiktoken; GPT-4o's o200k beside it | **playground**: your tokenizer vs GPT-2 vs GPT-4 vs Mistral's Tekken; **merge-count slider** |
# | 11 | [Making training fast](11_making_training_fast.ipynb) | from naive recounting to incremental counts with a heap, in parallel | log-log timing plot, beside Hugging Face `tokenizers` |
# | 12 | [Train your own](12_train_your_own.ipynb) | a tokenizer trained, saved and loaded on your own text | your tokenizer on your text |
# | 13 | [The token tax](13_token_tax.ipynb) | one text in 18 languages: what each costs in tokens, relative to English, for GPT-2, GPT-4, GPT-4o, Mistral's Tekken, Llama 3 and Llama 4 and for your own tokenizers | **token-tax explorer**: choose a training mix |
# | 14 | [When tokens bite](14_when_tokens_bite.ipynb) | under-trained tokens, spelling, numbers, whitespace and token healing, measured | tables for GPT-2, GPT-4 and GPT-4o |
# | 15 | [Other designs](15_other_designs.ipynb) | SentencePiece, WordPiece, Unigram and BPE-dropout on the same text, and the price of no tokenizer at all | **dropout explorer** |
# | 16 | [What a tokenizer does to a model](16_what_a_tokenizer_does_to_a_model.ipynb) | bits per byte, a bigram model by hand, then Kneser-Ney n-grams: which vocabulary, pattern and training help a model | **model-quality explorer**: vocabulary size and n-gram order |
# | 17 | [Beyond greedy BPE](17_beyond_greedy_bpe.ipynb) | optimal segmentation, SuperBPE, Picky BPE and parity-aware BPE against plain BPE, in tokens and bits per byte | **SuperBPE explorer** |
# | 18 | [Open models' tokenizers: SentencePiece and Mistral](18_open_models_and_chat.ipynb) | SentencePiece BPE and Mistral's Tekken rebuilt exactly, decoding any ids, and which differences between tokenizers are findings | — |
# | 19 | [Llama's tokenizers and the chat template](19_llama_and_the_chat_template.ipynb) | Llama 3 and Llama 4 from Meta's package; the chat template token by token: injection, control tokens, double begin-of-text, trailing spaces, the loss mask; a typed special token across stacks | **conversation editor** |
# | 20 | [What a merge list reveals](20_what_a_merge_list_reveals.ipynb) | a training mix inferred from a merge list by a linear program, validated on mixes you hide, then asked of GPT-2, cl100k, o200k and Tekken | **mixture explorer**: hide a mix, watch the inference converge |
# | 21 | [The score of every segmentation](21_the_score_of_every_segmentation.ipynb) | a model's probability summed over every segmentation by a forward pass; canonical against marginal across chapter 16's sweep, for BPE-dropout and the fewest tokens; Rényi efficiency and compression against bits per byte | canonical and marginal curves |
# | 90 | [Appendix: what the tutorials claim, checked](90_appendix_tutorials_checked.ipynb) | five write-ups re-run on their own text with their own algorithms | — |
# | 91 | [Appendix: training at scale](91_appendix_training_at_scale.ipynb) | the bucket queue for varied text, the cycle collector, the queue floor, Dask | timing split |
#
# Each chapter (not the appendices) ends with 2–4 exercises. Their checkers run your code on hidden
# cases and tell you the first case that fails, with a hint; solutions are folded away under **Solution**.
# Each exercise cell comes with starter code, so after **Run All** every exercise says **✏️ Your turn**
# and what the starter gets wrong: that is expected, and it is where you come in. Change the cell and
# run it again: **❌ Not yet** names the first case your answer fails, with a hint, and **✅ Correct**
# means you are done.
#
# ## Using your own text
#
# Near the top of every chapter that trains something there is a cell like
#
# ```python
# CORPUS = "python_docs"  # or the path of your own UTF-8 text file
# ```
#
# Replace the name by a path (`"my_notes.txt"`, relative to the folder this notebook is in —
# `my_notebooks/` when you opened the course with `make lab` — or an absolute path) and run the chapter again. Everything goes through
# `bpe_course.corpus.load_text`, which accepts a built-in corpus name or a UTF-8 file and says
# clearly what is wrong otherwise (a typo'd name, a missing file, bytes that are not UTF-8).
# A few hundred kilobytes of text is plenty; the built-in corpora are offline and frozen
# (checked by sha256), so the stored outputs are reproducible:

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file

# %%
import pandas as pd

from bpe_course import corpus

pd.DataFrame({"built-in corpus": corpus.names()[:4],
              "what it is": [corpus.DESCRIPTIONS[name] for name in corpus.names()[:4]]}).set_index("built-in corpus")

# %%
text = corpus.load_text(CORPUS)
print(f"{CORPUS!r}: {len(text):,} characters, {len(text.split()):,} words, {len(set(text)):,} distinct characters")

# %% [markdown]
# ## Environment check
#
# The course runs offline. This cell imports the package and the libraries the chapters use;
# each line should say `ok`.

# %%
import importlib

for module in ["bpe_course", "regex", "tiktoken", "tokenizers", "ipywidgets", "matplotlib", "pandas"]:
    importlib.import_module(module)
    print(f"{module:<11} ok")

# %% [markdown]
# ## GPT-2's files, verified
#
# GPT-2's tokenizer is two files published by OpenAI: `encoder.json` (token → id) and
# `vocab.bpe` (the merges, in order). They come installed inside a Python package, so nothing is
# downloaded; their sha256 hashes (the same ones `tiktoken` checks) prove they are the originals.

# %%
from bpe_course import NAMED, named_file, verify_sha256

for name in ("gpt2", "cl100k"):  # GPT-2's two files, and GPT-4's one for chapter 10
    for file in NAMED[name].files:  # the registry of named tokenizers: each file and its sha256
        path = named_file(name, file.name, verify=False)  # where the installed package keeps it
        verify_sha256(path, file.sha256)  # raises HashMismatchError if the file is not the original
        print(f"{path.name}: sha256 ok ({file.sha256[:16]}…)")

# %% [markdown]
# ## One sentence through GPT-2
#
# `bpe_course.gpt2()` loads those files into the package's `Tokenizer`. As the reference
# ("oracle") we build `tiktoken`'s own GPT-2 encoding from the same local files — never
# `tiktoken.get_encoding("gpt2")`, which would download them.

# %%
import tiktoken
import tiktoken.load

import bpe_course
from bpe_course import GPT2_PATTERN, token_label

gpt2 = bpe_course.gpt2()
ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file=str(named_file("gpt2", "vocab.bpe")),
    encoder_json_file=str(named_file("gpt2", "encoder.json")))
oracle = tiktoken.Encoding(name="gpt2-offline", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                           special_tokens={"<|endoftext|>": 50256})
print(gpt2)

# %%
SENTENCE = "Byte-pair encoding splits unfamiliar words like detokenization into familiar pieces."
ours, theirs = gpt2.encode(SENTENCE), oracle.encode(SENTENCE)
assert ours == theirs
print(f"{len(ours)} tokens, identical to tiktoken: {ours == theirs}")
pd.DataFrame({"token": [token_label(t) for t in gpt2.token_bytes(ours)], "GPT-2 id": ours,
              "tiktoken id": theirs})

# %% [markdown]
# The same tokens as chips (hover over a chip to see its id; `␣` marks a space, which GPT-2
# keeps at the *start* of a token):

# %%
from IPython.display import HTML

from bpe_course import encoded_chips_html

HTML(encoded_chips_html(gpt2, SENTENCE))

# %%
assert gpt2.decode(ours) == SENTENCE
print("decode(encode(sentence)) == sentence:", gpt2.decode(ours) == SENTENCE)

# %% [markdown]
# Everything works. By chapter 9 you will have written this tokenizer yourself.
#
# **Further reading.** The papers, libraries and courses this one builds on — Gage (1994), Sennrich
# et al. (2016), Radford et al. (2019, section 2.2), tiktoken, minbpe and others — are collected in
# [the references](../docs/references.md).
#
# [01 Characters, words and why subwords →](01_characters_and_words.ipynb)
