# %% [markdown]
# # 14 · When tokens bite
#
# [← 13 The token tax](13_token_tax.ipynb) · [15 Other designs →](15_other_designs.ipynb)
#
# A language model never sees letters or digits, only token ids. Several things that surprise
# people who use models follow directly from how the text was cut. In this chapter you will measure,
# with GPT-2, GPT-4's cl100k and GPT-4o's o200k (and, for the first point, a tokenizer of your own):
#
# * **under-trained tokens**: ids in a vocabulary that (almost) never occur in text — the family of
#   GPT-2's famous `" SolidGoldMagikarp"`;
# * **spelling and counting letters**: how many common words are one opaque token;
# * **numbers**: how each tokenizer cuts digits, and what other designs do;
# * **whitespace and prompt boundaries**: a trailing space, indented code, and a prompt that ends in
#   the middle of what would have been one token — and why "token healing" exists.
#
# Each point is a table or a plot computed here, not an anecdote. What this does to a model's answers is
# argued from the tables, and said to be argued.

# %%
from collections import Counter

import matplotlib.pyplot as plt
import pandas as pd
import regex
from IPython.display import Markdown, display

from bpe_course import Tokenizer, cl100k, corpus, gpt2, o200k, token_label, train_bpe

tokenizers = {"GPT-2": gpt2(), "GPT-4 (cl100k)": cl100k(), "GPT-4o (o200k)": o200k()}


def pieces(tok: Tokenizer, text: str) -> str:
    """The tokens of ``text`` as readable labels joined by a dot (␣ is a space)."""
    return " · ".join(token_label(t) for t in tok.token_bytes(tok.encode_ordinary(text)))

# %% [markdown]
# ## 1. Tokens a model hardly ever sees
#
# GPT-2's vocabulary has a token `" SolidGoldMagikarp"`. Rumbelow and Watkins (2023), who first
# reported that prompts containing it and similar tokens made GPT-2 and GPT-3 go strangely
# wrong, traced it in a follow-up to a Reddit user name: presumably frequent in the text the
# *tokenizer* was trained on, and rare in the text the *model* was trained on, so the model never
# learned what that id means. Land and Bartolo (2024) search for such under-trained tokens
# systematically, in many models.

# %%
gpt = tokenizers["GPT-2"]
print(" SolidGoldMagikarp ->", gpt.encode(" SolidGoldMagikarp"), "| one token:", len(gpt.encode(" SolidGoldMagikarp")) == 1)

# %% [markdown]
# How much of GPT-2's vocabulary does ordinary text use at all? We encode the course's corpora —
# Python's documentation and code, a novel, the UDHR in every language the course has — and count
# the ids that occur:

# %%
texts = {"python_docs": corpus.load("python_docs"), "python_code": corpus.load("python_code"),
         "don_quixote": corpus.load("don_quixote"),
         "UDHR, 18 languages": "\n".join("\n".join(corpus.udhr(code).values()) for code in corpus.UDHR_LANGUAGES)}
used = {label: Counter() for label in tokenizers}
for label, tok in tokenizers.items():
    for text in texts.values():
        used[label].update(tok.encode_ordinary(text))
usage = pd.DataFrame({"ordinary tokens": {label: len(tok.vocab) - len(tok.special_tokens) for label, tok in tokenizers.items()},
                      "used by the corpora": {label: len(used[label]) for label in tokenizers},
                      "used once": {label: sum(n == 1 for n in used[label].values()) for label in tokenizers}})
usage["share never used"] = 1 - usage["used by the corpora"] / usage["ordinary tokens"]
usage.round(3)

# %% [hide-input]
display(Markdown(
    f"{sum(len(t.split()) for t in texts.values()):,} words of varied text use only {usage.loc['GPT-2', 'used by the corpora']:,} of GPT-2's "
    f"{usage.loc['GPT-2', 'ordinary tokens']:,} tokens. That alone proves nothing — these corpora are small next to "
    "a model's training text — but it shows how unevenly a vocabulary is used, and a token that is rare in the "
    "model's training text gets few updates to its embedding."))

# %% [markdown]
# With a tokenizer of our own we can see one clean cause. Train it on `python_docs`, then encode
# **its own training text**: some tokens never come out at all. They were made by a merge, and then
# every one of their occurrences was swallowed by a later merge into a longer token. A model trained
# on that text with that tokenizer would never see these ids once.

# %%
own_train, own_heldout = corpus.train_heldout("python_docs")
own = Tokenizer(*train_bpe(own_train, 256 + 4000, min_frequency=2))
in_training = Counter(own.encode_ordinary(own_train))
in_other = Counter(own.encode_ordinary(texts["don_quixote"]))
merged_ids = range(256, 256 + len(own.merges))
never = [i for i in merged_ids if in_training[i] == 0]
examples = [token_label(own.vocab[i]) for i in never[:12]]
print(f"{len(own.merges):,} merged tokens; {len(never):,} never occur in the encoded training text; e.g. {examples}")
print(f"of the rest, {sum(in_other[i] == 0 for i in merged_ids if in_training[i]):,} never occur in don_quixote")

# %% [markdown]
# ## 2. Spelling and counting letters
#
# "How many r's are in *strawberry*?" A model sees the word as one to three ids, not ten letters:

# %%
words = [" strawberry", "strawberry", " raspberry", " Mississippi", " lollipop", " antidisestablishmentarianism"]
pd.DataFrame({label: {w: pieces(tok, w) for w in words} for label, tok in tokenizers.items()})

# %% [markdown]
# How common is it that a whole word is one token, letters invisible? Take the most frequent words
# of `don_quixote`, written as they usually appear (with a leading space, lower case):

# %%
frequent = [w for w, _ in Counter(regex.findall(r"\p{L}+", texts["don_quixote"].lower())).most_common(2000)]
single = {label: sum(len(tok.encode_ordinary(" " + w)) == 1 for w in frequent) / len(frequent)
          for label, tok in tokenizers.items()}
reversed_cost = {label: sum(len(tok.encode_ordinary(" " + w[::-1])) for w in frequent) /
                        sum(len(tok.encode_ordinary(" " + w)) for w in frequent) for label, tok in tokenizers.items()}
pd.DataFrame({"frequent words that are one token": single, "tokens for the reversed words, relative": reversed_cost}).round(3)

# %% [hide-input]
display(Markdown(
    f"With o200k, {single['GPT-4o (o200k)']:.0%} of the 2,000 most frequent words are a single token: to count their "
    f"letters a model must have learned each id's spelling from elsewhere. Reversed, the same words need "
    f"{reversed_cost['GPT-4o (o200k)']:.1f}× as many tokens, cut at places that have nothing to do with the "
    "original pieces — one reason reversing a word is hard for a model that sees tokens."))

# %% [markdown]
# ## 3. Numbers
#
# GPT-2's pattern lets a run of digits be one pre-token, and its merges then cut it wherever its
# training text happened to have frequent digit groups. GPT-4's and GPT-4o's patterns cut digits into
# groups of at most three, from the left, before any merge:

# %%
numbers = [" 7", " 42", " 2024", " 12345", " 1234567", " 3.14159", " 1000000"]
pd.DataFrame({label: {n: pieces(tok, n) for n in numbers} for label, tok in tokenizers.items()})

# %% [markdown]
# A census: every whole number of up to five digits, written with a leading space as inside a
# sentence. How many tokens does each need, and how regular is it?

# %%
counts = {label: Counter(len(tok.encode_ordinary(f" {n}")) for n in range(100_000)) for label, tok in tokenizers.items()}
census = pd.DataFrame(counts).fillna(0).astype(int).sort_index().rename_axis("tokens per number")
ax = census.plot.bar(figsize=(7, 3.2), rot=0, width=0.8, logy=True)
ax.set(ylabel="how many numbers (log scale)", title="Every whole number below 100,000, with a leading space")
plt.show()
census

# %% [markdown]
# How irregular? For every number, the lengths of its pieces (the leading space counts as one byte):
# do all numbers with the same count of digits get the same cut?

# %%
def cut_lengths(tok: Tokenizer, n: int) -> tuple[int, ...]:
    """The byte lengths of the tokens of ``" n"``."""
    return tuple(len(t) for t in tok.token_bytes(tok.encode_ordinary(f" {n}")))


numbers_of_length = {digits: range(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits) for digits in range(1, 6)}
cuts = {label: {digits: Counter(cut_lengths(tok, n) for n in numbers) for digits, numbers in numbers_of_length.items()}
        for label, tok in tokenizers.items()}
print("one cut per count of digits:",
      {label: all(len(by_length) == 1 for by_length in cuts[label].values()) for label in tokenizers})
shapes = cuts["GPT-2"][5]
first = next(n for n in range(10_000, 100_000) if cut_lengths(gpt, n) == (6,))
split = next(n for n in range(first + 1, 100_000) if len(cut_lengths(gpt, n)) > 1)
pd.Series({" + ".join(map(str, cut)): k for cut, k in shapes.most_common()},
          name="GPT-2: five-digit numbers cut this way").rename_axis("piece lengths")

# %% [hide-input]
gpt2_counts = counts["GPT-2"]
regular = [label for label in tokenizers if all(len(by_length) == 1 for by_length in cuts[label].values())]
display(Markdown(
    f"GPT-2 spends between {min(gpt2_counts)} and {max(gpt2_counts)} tokens on a number below 100,000. The "
    f"{sum(shapes.values()):,} five-digit numbers alone are cut in {len(shapes)} different ways, and neighbours "
    f"differ: `{first}` is one token, `{split}` is {pieces(gpt, f' {split}')}. With "
    f"{' and '.join(label.split(' ')[-1].strip('()') for label in regular)} the pieces depend only on the number "
    "of digits."))

# %% [markdown]
# Left-to-right groups have a catch of their own: `1234567` is cut `123 · 456 · 7`, so the same
# digit position (thousands, millions) lands in different pieces depending on the length. Two
# other designs exist: groups of three **from the right**, like thousands separators, and **single
# digits**. LLaMA 1 and 2 (2023) split every number into single digits (Touvron et al. 2023, §2.1);
# Llama 3 (2024) moved to a tiktoken tokenizer whose pattern, in `llama/tokenizer.py` of Meta's
# llama3 repository, has the same `\p{N}{1,3}` rule as cl100k: groups of up to three, from the left.
# A regex makes each grouping:

# %%
GROUPINGS = {"left to right (cl100k, o200k)": r"\d{1,3}", "right to left": r"\d{1,3}(?=(?:\d{3})*(?!\d))",
             "single digits": r"\d"}
samples = ["1234567", "1000000", "99999", "2024"]
print("the rule \\p{N}{1,3} is in the patterns of cl100k and o200k:",
      all(r"\p{N}{1,3}" in tokenizers[label].pattern for label in ("GPT-4 (cl100k)", "GPT-4o (o200k)")))
pd.DataFrame({name: {s: " · ".join(regex.findall(pattern, s)) for s in samples} for name, pattern in GROUPINGS.items()})

# %% [markdown]
# Whether a grouping helps a model do arithmetic is argued, not measured here: right-to-left groups
# keep place value aligned, which studies of arithmetic in language models report to help (Singh and
# Strouse, 2024); single digits give the longest sequences but the simplest pieces.
#
# ## 4. Whitespace and prompt boundaries
#
# A space belongs to the *next* word in all three tokenizers. A prompt that ends with a space
# therefore ends with a lone space token, and the model must continue with a word *without* its
# leading space — a split it rarely saw in training:

# %%
prompt_rows = []
for prompt in ["The capital of France is", "The capital of France is "]:
    row = {"prompt": repr(prompt)}
    for label, tok in tokenizers.items():
        ids = tok.encode_ordinary(prompt)
        row[label] = f"… {token_label(tok.vocab[ids[-1]])} (last of {len(ids)})"
    prompt_rows.append(row)
together = {label: pieces(tok, "The capital of France is Paris") for label, tok in tokenizers.items()}
prompt_rows.append({"prompt": "the whole sentence", **{label: text.split(" · ")[-1] for label, text in together.items()}})
pd.DataFrame(prompt_rows).set_index("prompt")

# %% [markdown]
# In the whole sentence, `" Paris"` is one token with its space. After a prompt ending in `" "`, the
# natural continuation would have to be `"Paris"` without a space: a different id, and a rarer one.
#
# Indented code has the same issue at scale: leading spaces are tokens too. For every line of
# `python_code`, count the tokens its indentation costs (the line's tokens minus those of the line
# without its leading spaces), grouped by how deep the line is indented:

# %%
code_lines = [line for line in corpus.load("python_code").splitlines() if line.strip()]
depth = {line: len(line) - len(line.lstrip(" ")) for line in code_lines}
depths = [d for d, n in sorted(Counter(depth.values()).items()) if d % 4 == 0 and d and n >= 20]
indent_cost = pd.DataFrame({label: {d: sum(len(tok.encode_ordinary(line)) - len(tok.encode_ordinary(line.lstrip(" ")))
                                           for line in code_lines if depth[line] == d)
                                       / sum(depth[line] == d for line in code_lines) for d in depths}
                            for label, tok in tokenizers.items()}).rename_axis("leading spaces")
indent_cost["lines"] = [sum(depth[line] == d for line in code_lines) for d in depths]
ax = indent_cost.drop(columns="lines").plot(style=["o-", "s--", "^:"], figsize=(7, 3.2))
ax.set(xticks=depths, ylabel="tokens spent on the indentation", title="python_code: what leading spaces cost, per line")
plt.show()
indent_cost.round(2)

# %% [hide-input]
one, deepest = depths[0], depths[-1]
spaces_only = {label: sum(set(t) == {ord(" ")} for t in tok.vocab.values()) for label, tok in tokenizers.items()}
display(Markdown(
    f"One indentation level ({one} spaces, {indent_cost.loc[one, 'lines']:,} lines) costs GPT-2 "
    f"{indent_cost.loc[one, 'GPT-2']:.2f} tokens a line, and {deepest} spaces cost it "
    f"{indent_cost.loc[deepest, 'GPT-2']:.2f}: about one token for every space but the last, which joins the word. "
    f"GPT-2's vocabulary has {spaces_only['GPT-2']} token{'s' if spaces_only['GPT-2'] != 1 else ''} made of spaces "
    "only, so a run of spaces costs a token per space. cl100k "
    f"({spaces_only['GPT-4 (cl100k)']} tokens of spaces only) and o200k "
    f"({spaces_only['GPT-4o (o200k)']}) spend between {indent_cost[['GPT-4 (cl100k)', 'GPT-4o (o200k)']].min().min():.2f} "
    f"and {indent_cost[['GPT-4 (cl100k)', 'GPT-4o (o200k)']].max().max():.2f} tokens a line at every depth shown: "
    "one run of spaces, one token."))

# %% [markdown]
# ### A prompt that ends inside a token, and token healing
#
# Now a prompt that stops where one token would have continued. `"https:"` ends with `":"` where the
# text a model saw in training nearly always had `"://"` as one token:

# %%
url_rows = []
for text in ["https:", "https://", "https://example.com"]:
    url_rows.append({"text": text, **{label: pieces(tok, text) for label, tok in tokenizers.items()}})
pd.DataFrame(url_rows).set_index("text")

# %% [markdown]
# A model continuing `"https:"` must produce `"//"` as a token of its own — a split of `"://"` it
# has almost never seen. **Token healing** (an option of generation libraries such as *guidance*; Lundberg
# & Ribeiro, 2023, in [the references](../docs/references.md)) repairs this: take
# the prompt's last token back off, and let the model's first token be any token that *starts with*
# the removed text. We write the first half: what to remove, and which tokens may replace it.

# %%
def heal(tok: Tokenizer, prompt: str) -> tuple[list[int], bytes, list[int]]:
    """The prompt's ids without its last token, the removed bytes, and every token that starts with them."""
    ids = tok.encode_ordinary(prompt)
    removed = tok.vocab[ids[-1]]
    allowed = sorted(i for i, t in tok.vocab.items() if t.startswith(removed) and i not in tok.special_tokens.values())
    return ids[:-1], removed, allowed


kept, removed, allowed = heal(tokenizers["GPT-4 (cl100k)"], "https:")
cl = tokenizers["GPT-4 (cl100k)"]
print(f"kept {len(kept)} token(s) {[token_label(cl.vocab[i]) for i in kept]}; removed {removed!r}; "
      f"{len(allowed):,} tokens start with it, among them '://': {cl.encode_ordinary('://')[0] in allowed}")

# %% [markdown]
# ## Recap
#
# * A vocabulary is used very unevenly; some tokens never occur in their own tokenizer's encoded
#   training text, and a model cannot learn what it never sees.
# * Most frequent words are one token: their letters are invisible to the model.
# * GPT-2 cuts numbers arbitrarily; cl100k and o200k cut them into groups of at most three, from the left.
#   Right-to-left groups and single digits are the other designs.
# * Indentation costs GPT-2 about a token per space; cl100k and o200k spend about one token on a
#   line's indentation, however deep.
# * A space belongs to the next word; a prompt that ends with a space, or inside what would be one
#   token, leaves the model an unusual split. Token healing backs up one token and constrains the
#   first new one.
#
# ## Exercises

# %%
from bpe_course.exercises.ch14 import check_groups, check_healed

# %% [markdown]
# **14.1** Build the right-to-left grouping without a regex: `my_groups(digits)` cuts a string of
# digits into groups of three counted from the right, the way thousands separators cut a number.
# The checker tries numbers of many lengths.

# %%
def my_groups(digits: str) -> list[str]:
    return [digits]  # starter: one group, however long


check_groups(my_groups)

# %% [markdown]
# <details><summary>Solution</summary>
#
# The first group holds what is left over when the length is divided by three (or a full three):
#
# ```python
# def my_groups(digits):
#     head = len(digits) % 3 or 3
#     return [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
# ```
# </details>
#
# **14.2** Finish token healing. `heal` above gives the kept ids and the tokens allowed next. Write
# `my_healed(tok, prompt, continuation)`: the ids of the prompt followed by what the model goes on to
# write, as healing would produce them — the kept ids; then, standing in for the model's first
# choice, the *longest* allowed token that the removed bytes + `continuation` start with; then the
# ordinary encoding of whatever text is left. The checker tries several prompts on all three
# tokenizers.

# %%
def my_healed(tok: Tokenizer, prompt: str, continuation: str) -> list[int]:
    return tok.encode_ordinary(prompt) + tok.encode_ordinary(continuation)  # starter: no healing


check_healed(my_healed, list(tokenizers.values()))

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_healed(tok, prompt, continuation):
#     kept, removed, allowed = heal(tok, prompt)
#     text = removed + continuation.encode("utf-8")
#     first = max((i for i in allowed if text.startswith(tok.vocab[i])), key=lambda i: len(tok.vocab[i]))
#     rest = text[len(tok.vocab[first]):].decode("utf-8")
#     return kept + [first] + tok.encode_ordinary(rest)
# ```
# </details>
#
# [← 13 The token tax](13_token_tax.ipynb) · [15 Other designs →](15_other_designs.ipynb)
