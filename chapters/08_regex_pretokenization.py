# %% [markdown]
# # 08 · Regex pre-tokenization
#
# [← 07 Bytes and Unicode](07_bytes_and_unicode.ipynb) · [09 GPT-2, rank for rank →](09_gpt2_rank_for_rank.ipynb)
#
# Byte-level BPE (chapter 07) can merge *any* two neighbouring bytes. Left alone, it happily merges
# across spaces and punctuation and learns tokens that glue the end of one word to the start of the
# next (section 1 counts them). GPT-2 prevents that
# with a **pre-tokenization** step: a regular expression first cuts the text into pieces (words
# with their leading space, numbers, punctuation, whitespace) and BPE merges only *inside* a piece.
#
# What you will build and check:
#
# 1. the same BPE trained with no pre-tokenization and with GPT-2's pattern, and a count of the
#    learned tokens that cross word boundaries;
# 2. GPT-2's pattern, one alternative at a time, with a tool that shows which alternative matched
#    each piece;
# 3. proof that the package's pattern (tiktoken's spelling) splits exactly like the published one;
# 4. GPT-4's pattern next to GPT-2's;
# 5. the measured effect of each pattern on the vocabulary and on held-out tokens per word.

# %%
import random
from collections import Counter

import pandas as pd
import regex
from IPython.display import HTML, Markdown, display

import bpe_course
from bpe_course import GPT2_PATTERN, GPT4_PATTERN, chips_html, corpus, pretokenize

# %% [markdown]
# **Your own text.** `CORPUS` is a built-in corpus name or the path of a UTF-8 file of yours.
# Training with no pre-tokenization treats the whole training text as one long piece, which is slow
# in pure Python, so we train on its first `TRAIN_CHARS` characters and keep the vocabulary small.

# %%
CORPUS = "python_docs"  # or the path of your own UTF-8 text file
TRAIN_CHARS = 50_000
VOCAB_SIZE = 512

train_all, heldout_text = corpus.train_heldout(CORPUS)
train_text = train_all[:TRAIN_CHARS]
print(f"training on {len(train_text):,} characters of {CORPUS}; held-out part: {len(heldout_text):,} characters")

# %% [markdown]
# ## 1. What goes wrong without pre-tokenization
#
# We train two byte-level tokenizers on the same text with the same vocabulary size. The only
# difference is the `pattern` argument: `"none"` lets merges go anywhere, `"gpt2"` applies GPT-2's
# regex first.

# %%
def train(pattern: str) -> bpe_course.Tokenizer:
    vocab, merges = bpe_course.train_bpe(train_text, VOCAB_SIZE, pattern=pattern)
    return bpe_course.Tokenizer(vocab, merges, pattern=pattern)


tokenizers = {pattern: train(pattern) for pattern in ["none", "gpt2"]}
for pattern, tok in tokenizers.items():
    print(f"pattern={pattern!r}: {len(tok.merges)} merges")

# %% [markdown]
# Two kinds of learned token are suspicious:
#
# * tokens with a **space after a non-space character**, such as `e t` or `. The`: they glue the
#   end of one word to the start of the next (runs of spaces alone, e.g. indentation, are fine);
# * tokens that **mix letters with punctuation**, such as `dog.` or `(the`.

# %%
SPACE_AFTER_TEXT = regex.compile(r"\S ")
LETTER = regex.compile(r"\p{L}")
PUNCTUATION = regex.compile(r"[^\s\p{L}\p{N}]")


def crosses_space(token: bytes) -> bool:
    return bool(SPACE_AFTER_TEXT.search(token.decode("utf-8", errors="ignore")))


def mixes_letters_and_punctuation(token: bytes) -> bool:
    text = token.decode("utf-8", errors="ignore")  # subtle: "replace" would add '�', itself punctuation
    return bool(LETTER.search(text) and PUNCTUATION.search(text))


def learned_tokens(tok: bpe_course.Tokenizer) -> list[bytes]:
    """The tokens made by merges, in the order they were learned."""
    return [left + right for left, right in tok.merges]


rows = []
for pattern, tok in tokenizers.items():
    learned = learned_tokens(tok)
    rows.append({"pattern": pattern, "learned tokens": len(learned),
                 "space after text": sum(map(crosses_space, learned)),
                 "letters + punctuation": sum(map(mixes_letters_and_punctuation, learned))})
pd.DataFrame(rows)

# %% [markdown]
# The first such tokens that `pattern="none"` learned (hover over a chip for its id):

# %%
for label, test in [("space after text", crosses_space), ("letters + punctuation", mixes_letters_and_punctuation)]:
    found = [(i, t) for i, t in sorted(tokenizers["none"].vocab.items()) if i >= 256 and test(t)][:16]
    print(label)
    display(HTML(chips_html([t for _, t in found], [i for i, _ in found])))

# %% [markdown]
# With GPT-2's pattern, a piece never holds a space after other text, and letters share a piece with
# punctuation only in the contractions (`'s`, `'t`, …). We check both claims on the tokens it
# learned:

# %%
gpt2_learned = learned_tokens(tokenizers["gpt2"])
assert not any(map(crosses_space, gpt2_learned))
mixed = [t for t in gpt2_learned if mixes_letters_and_punctuation(t)]
assert all(t.decode() in {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"} for t in mixed)
print(f"gpt2: no token crosses a space; letters+punctuation tokens: {[t.decode() for t in mixed]}")

# %% [markdown]
# A cost of crossing tokens is that **the same word is cut differently depending on its
# neighbours**, so a word no longer starts and ends on token boundaries. We measure it on the
# held-out text: for every run of letters, do its ends fall on token boundaries? (A token may
# carry the word's leading space, as `" the"` does.)

# %%
def token_boundaries(tok: bpe_course.Tokenizer, text: str) -> set[int]:
    """Character offsets where one token ends and the next begins (cuts inside a character are left out)."""
    char_at_byte, at = {}, 0
    for k, char in enumerate(text):
        char_at_byte[at] = k
        at += len(char.encode("utf-8"))
    char_at_byte[at] = len(text)
    cuts, at = {0}, 0
    for token in tok.token_bytes(tok.encode(text)):
        at += len(token)
        if at in char_at_byte:
            cuts.add(char_at_byte[at])
    return cuts


def aligned_words(tok: bpe_course.Tokenizer, text: str) -> float:
    """The fraction of words (runs of letters) that start and end on token boundaries."""
    cuts = token_boundaries(tok, text)
    words = [m.span() for m in regex.finditer(r"\p{L}+", text)]
    good = sum(end in cuts and (start in cuts or (text[start - 1] == " " and start - 1 in cuts))
               for start, end in words)
    return good / len(words)


alignment = {pattern: aligned_words(tok, heldout_text) for pattern, tok in tokenizers.items()}
assert alignment["gpt2"] == 1.0

# %% [hide-input]
Markdown(f"With `pattern=\"gpt2\"` **{alignment['gpt2']:.0%}** of held-out words start and end on token boundaries; "
         f"with `pattern=\"none\"` only **{alignment['none']:.1%}** do.")

# %% [markdown]
# Here is one held-out sentence, encoded both ways:

# %%
sentence = next(line for line in heldout_text.splitlines() if len(line) > 60)[:120]
for pattern, tok in tokenizers.items():
    ids = tok.encode(sentence)
    print(f"pattern={pattern!r}: {len(ids)} tokens")
    display(HTML(chips_html(tok.token_bytes(ids), ids)))

# %% [markdown]
# ## 2. GPT-2's pattern, piece by piece
#
# GPT-2 was released in 2019 with this pattern (in `src/encoder.py` of the `openai/gpt-2`
# repository). It is a list of alternatives; at each position the regex engine tries them in order
# and takes the first that matches:

# %%
PUBLISHED_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

ALTERNATIVES = [
    ("contraction", r"'s|'t|'re|'ve|'m|'ll|'d", "an English contraction suffix, lower case only"),
    ("letters", r" ?\p{L}+", "a run of letters (any script), with at most one leading space"),
    ("numbers", r" ?\p{N}+", "a run of digits, with at most one leading space"),
    ("other", r" ?[^\s\p{L}\p{N}]+", "a run of anything else (punctuation, symbols), with at most one leading space"),
    ("spaces_before_text", r"\s+(?!\S)", "a run of whitespace, less its last character if a non-space follows"),
    ("spaces", r"\s+", "one whitespace character other than a plain space (tab, newline) before text"),
]
assert "|".join(alt for _, alt, _ in ALTERNATIVES) == PUBLISHED_GPT2
GPT2_NAMED = regex.compile("|".join(f"(?P<{name}>{alt})" for name, alt, _ in ALTERNATIVES))
pd.DataFrame(ALTERNATIVES, columns=["name", "regex", "matches"])

# %% [markdown]
# Naming each alternative (`(?P<letters>…)`) lets us ask which one produced each piece:
# `match.lastgroup`. The named pattern is the published one with names added, and we check that
# both cut the whole corpus the same way before trusting it:

# %%
def which_alternative(text: str) -> pd.DataFrame:
    """Each GPT-2 pre-token of ``text`` with the alternative that matched it."""
    return pd.DataFrame([{"piece": repr(m.group()), "alternative": m.lastgroup} for m in GPT2_NAMED.finditer(text)])


full_text = corpus.load_text(CORPUS)
assert [m.group() for m in GPT2_NAMED.finditer(full_text)] == regex.findall(PUBLISHED_GPT2, full_text)
which_alternative("We'll pay 1500 dollars!!  It's   DONE\n\n\tok ")

# %% [markdown]
# The table shows each rule at work. Four details are easy to miss, so here they are on their own:

# %%
details = {
    "a run of spaces gives its last space to the next word": "a   b",
    "contractions are lower case only": "DON'T don't",
    "only a plain space can lead a word; a tab or newline cannot": "a\tb\nc",
    "whitespace at the very end stays in one piece": "end   ",
}
for what, example in details.items():
    print(f"{what:62} {example!r:15} -> {regex.findall(PUBLISHED_GPT2, example)}")

# %% [markdown]
# ## 3. The package's pattern is tiktoken's spelling of the same rules
#
# `bpe_course.pretokenize.GPT2_PATTERN` is the pattern tiktoken uses for GPT-2. It looks different:

# %%
print("published:", PUBLISHED_GPT2)
print("package:  ", GPT2_PATTERN)

# %% [markdown]
# Four changes, none of which changes a single pre-token:
#
# * **the contractions as one group**: `'(?:[sdmt]|ll|ve|re)` instead of seven alternatives
#   `'s|'t|'re|'ve|'m|'ll|'d`. The same seven suffixes; no suffix is the start of another, so the
#   order in which they are tried cannot matter;
# * **possessive quantifiers** `++`: once a run is matched, the engine never tries giving characters
#   back. Here it never would anyway: nothing follows the run inside its alternative, so once the
#   run has matched, the alternative has matched, and the result is the same;
# * **an extra alternative `\s++$`**: whitespace that reaches the end of the text is taken whole,
#   which the published pattern also does, through `\s+(?!\S)`;
# * **`\s` instead of `\s+` as the last alternative.** It is only reached when `\s+(?!\S)` failed,
#   and that only happens at a single whitespace character followed by a non-space (a longer run
#   would match all but its last character). There `\s+` can only take that one character too.
#
# "The same" is a claim, so we test it: on every built-in corpus, and on thousands of random
# strings built from the characters where the alternatives compete (spaces, tabs, newlines,
# apostrophes, letters, digits, symbols, a no-break space).

# %%
BUILT_IN = [name for name in corpus.names() if "/" not in name]  # languages/xx are parts of languages
texts = {name: corpus.load(name) for name in BUILT_IN}
texts[f"CORPUS ({CORPUS})"] = full_text
for name, sample in texts.items():
    published = regex.findall(PUBLISHED_GPT2, sample)
    assert pretokenize(sample, GPT2_PATTERN) == published
    print(f"{name:25} {len(published):>8,} pre-tokens, identical")

rng = random.Random(0)
alphabet = [" ", "  ", "\n", "\t", "\r", "a", "Z", "7", "!", ".", "'", "s", "ll", "é", "日", "\u00a0", "'S"]
random_texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(20_000)]
assert all(pretokenize(t, GPT2_PATTERN) == regex.findall(PUBLISHED_GPT2, t) for t in random_texts)
print(f"{len(random_texts):,} random strings: identical")

# %% [markdown]
# ### A look-alike with an alternative that never matches
#
# A write-up on building a tokenizer ([appendix 90](90_appendix_tutorials_checked.ipynb) checks it and four others) pre-tokenizes with a pattern that
# looks like GPT-2's but uses `\w` for "word character":
# `'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+`, and describes it as matching
# contractions, words, **numbers**, punctuation and whitespace. But `\w` already takes digits, and
# at every position the alternatives are tried left to right: wherever ` ?\d+` could match, ` ?\w+`
# — tried first — matches at least as much. We give each alternative a name and count which one
# made every pre-token of the built-in corpora:

# %%
LOOKALIKE_ALTERNATIVES = {"contraction": r"'s|'t|'re|'ve|'m|'ll|'d", "word": r" ?\w+", "number": r" ?\d+",
                          "punctuation": r" ?[^\s\w\d]+", "whitespace": r"\s+"}
lookalike = regex.compile("|".join(f"(?P<{name}>{alt})" for name, alt in LOOKALIKE_ALTERNATIVES.items()))
made_by = Counter()
digit_pretokens = Counter()
for name in BUILT_IN:
    for match in lookalike.finditer(texts[name]):
        made_by[match.lastgroup] += 1
        if any(ch.isdigit() for ch in match.group()):
            digit_pretokens[match.lastgroup] += 1
pd.DataFrame({"pre-tokens it made": {alt: made_by[alt] for alt in LOOKALIKE_ALTERNATIVES},
              "of them with a digit": {alt: digit_pretokens[alt] for alt in LOOKALIKE_ALTERNATIVES}})

# %% [hide-input]
display(Markdown(
    f"The number alternative made {made_by['number']:,} of {sum(made_by.values()):,} pre-tokens: "
    f"{'none' if made_by['number'] == 0 else 'some'}. All {digit_pretokens['word']:,} pre-tokens with a digit came "
    "from the word alternative, so numbers are glued to letters (`x2`, `3rd`, `utf8`) exactly as if the number "
    "alternative were not there. GPT-2's own pattern avoids this by using `\\p{L}` (letters only) for words."))

# %% [markdown]
# ## 4. GPT-4's pattern
#
# GPT-4's `cl100k_base` tokenizer uses a revised pattern. The package has it as
# `GPT4_PATTERN`, again in tiktoken's spelling:

# %%
print(GPT4_PATTERN)

# %% [markdown]
# The differences from GPT-2:
#
# * contractions are **case-insensitive** (`(?i:…)`): `DON'T` splits like `don't`;
# * **numbers** come in groups of **at most three** digits (`\p{N}{1,3}`), with no leading space, so
#   there can be no token for a long number;
# * **newlines** end a whitespace piece: a run of whitespace is cut after its last newline
#   (`\s*[\r\n]`), so the next line's indentation is not glued to the line break; and punctuation
#   may carry the newlines that follow it (`[\r\n]*`);
# * a word may carry **one leading character that is not a letter, digit or newline**, not only a
#   space (`[^\r\n\p{L}\p{N}]?+\p{L}++`): `.strip`, `_name`, `(the`.
#
# Side by side (each chip is one pre-token):

# %%
comparisons = ["I'LL say it's DONE", "pi = 3.14159265", "in 2024: 1234567 bytes", "line one\n\n\n  line two",
               "print(value.strip())", "Hello!!!\n\nWorld", "  indented   words"]
rows = "".join(f"<tr><td><code>{example!r}</code></td><td>{chips_html(pretokenize(example, GPT2_PATTERN))}</td>"
               f"<td>{chips_html(pretokenize(example, GPT4_PATTERN))}</td></tr>" for example in comparisons)
HTML(f"<table><tr><th>text</th><th>GPT-2 pattern</th><th>GPT-4 pattern</th></tr>{rows}</table>")

# %% [markdown]
# ## 5. The measured effect on the vocabulary
#
# Now all three patterns at the same vocabulary size on the same training text: the two tokenizers
# from section 1 plus one with GPT-4's pattern. For each we count learned tokens by kind and encode
# the held-out text, reporting **tokens per word** (words = whitespace-separated, the same count for
# all three).

# %%
tokenizers["gpt4"] = train("gpt4")
n_words = len(heldout_text.split())
rows = []
for pattern, tok in tokenizers.items():
    learned = learned_tokens(tok)
    n_tokens = len(tok.encode(heldout_text))
    rows.append({"pattern": pattern,
                 "pre-tokens in training text": len(pretokenize(train_text, tok.pattern)),
                 "space after text": sum(map(crosses_space, learned)),
                 "letters + punctuation": sum(map(mixes_letters_and_punctuation, learned)),
                 "mean token length (bytes)": round(sum(map(len, learned)) / len(learned), 2),
                 "held-out tokens": n_tokens, "tokens per word": round(n_tokens / n_words, 3),
                 "words on token boundaries": f"{aligned_words(tok, heldout_text):.1%}"})
effect = pd.DataFrame(rows).set_index("pattern")
gpt4_mixed = [t.decode("utf-8", "ignore") for t in learned_tokens(tokenizers["gpt4"]) if mixes_letters_and_punctuation(t)]
effect

# %% [hide-input]
best = effect["tokens per word"].idxmin()
worst = effect["tokens per word"].idxmax()
Markdown(
    f"On this held-out text **{best}** needs the fewest tokens per word ({effect.loc[best, 'tokens per word']}) and "
    f"**{worst}** the most ({effect.loc[worst, 'tokens per word']}). "
    + ("Without pre-tokenization BPE may spend merges on frequent multi-word chunks, which can compress text that "
       "resembles the training text well; the price is in the other columns: tokens that glue words together "
       "and words whose ends do not fall on token boundaries. "
       if best == "none" else "")
    + (f"GPT-4's pattern allows letters+punctuation tokens by design (a word may carry one leading symbol, and "
       f"contractions are pieces); it learned {len(gpt4_mixed)}, e.g. {gpt4_mixed[:8]}." if gpt4_mixed else ""))

# %% [markdown]
# A vocabulary of a few hundred tokens is tiny. With a pattern, training is fast, so we can also
# compare GPT-2's and GPT-4's patterns at larger sizes on the **whole** training part:

# %%
rows = []
for size in [512, 1024, 2048]:
    row = {"vocab size": size}
    for pattern in ["gpt2", "gpt4"]:
        vocab, merges = bpe_course.train_bpe(train_all, size, pattern=pattern)
        tok = bpe_course.Tokenizer(vocab, merges, pattern=pattern)
        row[f"{pattern} tokens per word"] = round(len(tok.encode(heldout_text)) / n_words, 3)
    rows.append(row)
pd.DataFrame(rows).set_index("vocab size")

# %% [markdown]
# ## Recap
#
# * Without pre-tokenization, byte-level BPE learns tokens that span word boundaries and mix words
#   with punctuation, and the same word is cut differently in different places.
# * GPT-2's regex cuts text into contractions, letter runs, digit runs, symbol runs (each with at
#   most one leading space) and whitespace; merges never cross those pieces.
# * tiktoken's spelling of the pattern (possessive quantifiers, `\s++$`) splits exactly like the
#   published one; we checked it on every corpus and on random strings.
# * GPT-4's pattern adds case-insensitive contractions, digit groups of at most three, whitespace
#   cut after its last newline and a one-symbol prefix on words.
#
# Next, [09 GPT-2, rank for rank](09_gpt2_rank_for_rank.ipynb): GPT-2's own files, and an encoder
# that matches it id for id.
#
# ## Exercises
#
# **Exercise 1.** Write a regex that cuts every run of digits into groups of at most three, from
# the left, as GPT-4 does (`"1234567"` → `["123", "456", "7"]`), and matches nothing else. The
# checker runs `regex.findall(your_pattern, text)` on several strings.

# %%
from bpe_course.exercises.ch08 import check_gpt2_pieces, check_lookalike_fix, check_number_groups

my_pattern = r"\d+"  # replace with your pattern
check_number_groups(my_pattern)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `r"\d{1,3}"` (or `r"\p{N}{1,3}"`, GPT-4's choice, which also takes digits of other scripts). The
# regex scans left to right and `{1,3}` is greedy, so each match takes three digits while it can.
# </details>
#
# **Exercise 2.** Predict GPT-2's pre-tokens of the string below, then check. The starter answer
# is a reasonable first guess with a few mistakes.

# %%
EXERCISE_TEXT = "  Don't   STOP's!"
my_pieces = [" ", " Don't", "   ", "STOP", "'s", "!"]  # replace with your prediction
check_gpt2_pieces(EXERCISE_TEXT, my_pieces)

# %% [markdown]
# <details><summary>Solution</summary>
#
# `[' ', ' Don', "'t", '  ', ' STOP', "'s", '!']`: each run of spaces gives its last space to the
# next word, `'t` and `'s` are contractions (lower case), and `!` is an "other" piece. Compare with
# GPT-4's pattern: `bpe_course.exercises.ch08.gpt4_pieces(EXERCISE_TEXT)`.
# </details>
#
# **Exercise 3 (find the bug).** Fix the look-alike pattern so that its number alternative does
# its job: digits become pre-tokens of their own (`"utf8"` → `utf`, `8`), with at most one leading
# space, while words, contractions, punctuation and whitespace are cut as before. Change as little
# as you can.

# %%
my_lookalike = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\w+| ?\d+| ?[^\s\w\d]+|\s+"""  # starter: the write-up's pattern
check_lookalike_fix(my_lookalike)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Let the word alternative take word characters that are not digits: `[^\W\d]` ("not a non-word
# character, not a digit"). `r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d]+| ?\d+| ?[^\s\w\d]+|\s+"""`.
# Moving ` ?\d+` before ` ?\w+` is not enough: `\w+` would still swallow the digits of `utf8`.
# </details>
#
# [← 07 Bytes and Unicode](07_bytes_and_unicode.ipynb) · [09 GPT-2, rank for rank →](09_gpt2_rank_for_rank.ipynb)
