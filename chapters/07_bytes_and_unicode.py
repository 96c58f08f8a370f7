# %% [markdown]
# # 07 · Bytes and Unicode
#
# [← 06 Vocabulary size](06_vocabulary_size.ipynb) · [08 Regex pre-tokenization →](08_regex_pretokenization.ipynb)
#
# Chapters 1–6 built BPE over **characters**. A character-level vocabulary has a weak spot: a
# character it never saw in training has no token, so it becomes `<|unk|>` and its information is
# gone. From this chapter on we build BPE over **bytes**, the way GPT-2 and GPT-4 do.
#
# What you will build and check:
#
# 1. a table of characters, their Unicode code points and their UTF-8 bytes, and a function that
#    predicts how many bytes a code point needs;
# 2. evidence that a byte-level vocabulary (256 single bytes, then merges) encodes *any* text;
# 3. GPT-2's `bytes_to_unicode` table, derived step by step, including why a space shows as `Ġ`
#    and a newline as `Ċ` in GPT-2's files;
# 4. what happens when you decode a token that holds only part of a character.

# %%
import codecs
import unicodedata

import pandas as pd
from IPython.display import HTML, Markdown, display

import bpe_course
from bpe_course import chips_html, corpus, encoded_chips_html, token_to_str

# %% [markdown]
# **Your own text.** Set `CORPUS` to a built-in corpus name (`corpus.names()`) or to the path of a
# UTF-8 text file of yours. The default mixes eight languages, which makes bytes interesting.

# %%
CORPUS = "languages"  # or the path of your own UTF-8 text file
text = corpus.load_text(CORPUS)
print(f"{CORPUS}: {len(text):,} characters")

# %% [markdown]
# ## 1. Code points and UTF-8 bytes
#
# Unicode gives every character a number, its **code point**, written `U+` and hex digits, from
# U+0000 up to U+10FFFF: far too many for a vocabulary. UTF-8 writes each code point as
# **1 to 4 bytes**: plain ASCII keeps one byte, other characters take more. Some characters are
# built from several code points: an accent can be a separate *combining mark* that attaches to
# the letter before it.

# %%
def describe_char(char: str) -> dict:
    """One row of the table: the character, its name, code point and UTF-8 bytes."""
    data = char.encode("utf-8")
    return {
        "char": char if not unicodedata.combining(char) else "◌" + char,  # show a lone mark on a dotted circle
        "name": unicodedata.name(char),
        "code point": f"U+{ord(char):04X}",
        "UTF-8 bytes (hex)": data.hex(" "),
        "bytes": len(data),
        "bits": " ".join(f"{b:08b}" for b in data),
    }


examples = ["A", "é", "€", "日", "🙃", "\u0301"]
pd.DataFrame([describe_char(c) for c in examples])

# %% [markdown]
# Look at the `bits` column. A one-byte character starts with `0`. In a longer one, the first byte
# says how long the whole sequence is (`110…` two bytes, `1110…` three, `11110…` four) and every continuation byte
# starts with `10`. So a byte on its own tells you whether it starts a character or continues one,
# which will matter in section 4.
#
# The number of bytes depends only on the code point. Here is that rule as a function, checked
# against Python's own encoder on **every** code point (except the surrogates U+D800–U+DFFF, which
# are not characters and cannot be encoded):

# %%
def utf8_length(code_point: int) -> int:
    """How many bytes UTF-8 needs for one code point."""
    if code_point < 0x80:
        return 1
    if code_point < 0x800:
        return 2
    if code_point < 0x10000:
        return 3
    return 4


all_code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
assert all(utf8_length(cp) == len(chr(cp).encode("utf-8")) for cp in all_code_points)
print(f"utf8_length agrees with Python's UTF-8 encoder on all {len(all_code_points):,} code points "
      f"(U+0000 to U+10FFFF is {0x110000:,} numbers, minus {0xE000 - 0xD800:,} surrogates)")

# %% [markdown]
# The combining mark is worth a second look. `é` can be written as one code point (U+00E9) or as
# `e` followed by the combining acute accent (U+0301). Both look the same on screen, but they are
# different strings with different bytes, and a tokenizer sees different input.

# %%
composed = "caf\u00e9"
decomposed = unicodedata.normalize("NFD", composed)
gpt2 = bpe_course.gpt2()
rows = []
for label, word in [("one code point (NFC)", composed), ("letter + combining mark (NFD)", decomposed)]:
    rows.append({"written as": label, "text": word, "code points": len(word),
                 "UTF-8 bytes": len(word.encode("utf-8")), "GPT-2 ids": gpt2.encode(word)})
print("equal as Python strings?", composed == decomposed)
pd.DataFrame(rows)

# %% [markdown]
# ## 2. Why 256 byte tokens never need `<|unk|>`
#
# Any text, in any script, with emoji or control characters, is a sequence of bytes, and every byte
# is one of 256 values. A byte-level tokenizer starts its vocabulary with all 256 single bytes, so
# whatever the merges did or did not learn, every input can at least be spelled byte by byte.
#
# Let's measure the problem first. We split the text into a training part and a held-out part and
# count the characters of the held-out part that never occur in the training part: a
# character-level vocabulary built on the training part would have to map them to `<|unk|>`.

# %%
def split_train_heldout(full_text: str) -> tuple[str, str]:
    """Training and held-out parts: at a blank line near 90 % if there is one, else at 90 %."""
    try:
        return corpus.split_text(full_text)
    except corpus.CorpusError:
        cut = len(full_text) * 9 // 10
        return full_text[:cut], full_text[cut:]


train_text, heldout_text = split_train_heldout(text)
seen = set(train_text)
unseen = sorted(set(heldout_text) - seen)
unseen_count = sum(heldout_text.count(c) for c in unseen)
print(f"distinct characters in the training part: {len(seen):,}")
print(f"held-out characters never seen in training: {len(unseen)} distinct, "
      f"{unseen_count:,} occurrences out of {len(heldout_text):,}")
print("examples:", "".join(unseen[:30]))

# %% [markdown]
# A byte-level tokenizer has no such gap. We train a tiny one on the same training part and encode
# the held-out part plus a few strings it has certainly never seen. Decoding gives back exactly the
# input every time, byte for byte.

# %%
vocab, merges = bpe_course.train_bpe(train_text, 256 + 200)
byte_tok = bpe_course.Tokenizer(vocab, merges)
never_seen = ["Klingon in the private use area: \uf8d0\uf8d1\uf8d2", "🦜🦙 and 🧬", "Ωμέγα", "\x00\x07 control bytes", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"]
for sample in [heldout_text, *never_seen]:
    assert byte_tok.decode(byte_tok.encode(sample)) == sample
print(f"vocab of {len(byte_tok.vocab)} tokens: held-out text and {len(never_seen)} unseen strings "
      "all round-trip exactly, no <|unk|> needed")
display(HTML(encoded_chips_html(byte_tok, never_seen[1])))

# %% [markdown]
# The chips above show the price: characters the merges never learned are spelled as raw bytes
# (`<0xF0>`, `<0x9F>`, …), several tokens per character. Nothing is lost; the text just gets longer.
#
# How much longer depends on the script. Here are the built-in language samples: characters,
# UTF-8 bytes, and GPT-2 tokens (GPT-2's merges were learned mostly on English web text).

# %%
rows = []
for code in corpus.LANGUAGES:
    sample = corpus.load(f"languages/{code}")
    n_bytes, n_tokens = len(sample.encode("utf-8")), len(gpt2.encode(sample))
    rows.append({"language": code, "characters": len(sample), "UTF-8 bytes": n_bytes,
                 "bytes per char": round(n_bytes / len(sample), 2), "GPT-2 tokens": n_tokens,
                 "GPT-2 tokens per char": round(n_tokens / len(sample), 2)})
languages_table = pd.DataFrame(rows)
languages_table

# %% [hide-input]
most = languages_table.loc[languages_table["GPT-2 tokens per char"].idxmax()]
least = languages_table.loc[languages_table["GPT-2 tokens per char"].idxmin()]
Markdown(f"The most expensive sample for GPT-2 is **{most['language']}** at {most['GPT-2 tokens per char']} "
         f"tokens per character ({most['bytes per char']} UTF-8 bytes per character); the cheapest is "
         f"**{least['language']}** at {least['GPT-2 tokens per char']}.")

# %% [markdown]
# A caution about this table: the eight samples were written separately and say different things
# at different lengths, so they show how each script's *characters* are cut, not what the same
# content costs in each language. Chapter 13 measures that, on one text translated into many
# languages.
#
# Emoji and CJK characters make the point inside GPT-2 itself. Each chip is one GPT-2 token; a chip
# labelled with `<0x..>` holds bytes that are not a complete character on their own.

# %%
for sample in ["日本語のテキスト", "I 🙃 emoji", "👍🏽 and 🇫🇷"]:
    ids = gpt2.encode(sample)
    print(f"{sample!r}: {len(sample)} code points, {len(sample.encode('utf-8'))} bytes, {len(ids)} GPT-2 tokens")
    display(HTML(encoded_chips_html(gpt2, sample)))

# %% [markdown]
# ## 3. GPT-2's `bytes_to_unicode`, step by step
#
# A byte-level vocabulary still has to be *stored*, and GPT-2 stores it as text: `encoder.json`
# maps token strings to ids and `vocab.bpe` lists merges as two strings separated by a space. Raw
# bytes are awkward there: a space would collide with the separator, a newline with the line
# break, control bytes are invisible, and bytes 0x80–0xFF alone are not valid UTF-8.
#
# GPT-2's answer is a fixed table that gives every byte a **printable character**. Bytes that are
# already printable keep their own character; the others are moved to unused characters. We build
# it in three steps.
#
# **Step 1: the bytes that are printable as themselves.** Three ranges: `!`…`~` (printable ASCII,
# without the space), `¡`…`¬` and `®`…`ÿ` (printable Latin-1, without the no-break space and the
# soft hyphen, which are invisible).

# %%
printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
left_out = [b for b in range(256) if b not in printable]
print(f"{len(printable)} printable bytes keep their own character")
print(f"{len(left_out)} bytes are left out: {left_out}")

# %% [markdown]
# **Step 2: number the left-out bytes in byte order, starting at 256.** Code points from 256 up
# (`Ā`, `ā`, `Ă`, …) are printable letters that never clash with the printable bytes, which all lie
# below 256.
#
# **Step 3: put both together.** That is the whole table:

# %%
def my_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (teaching version)."""
    table = {b: chr(b) for b in printable}
    for n, b in enumerate(left_out):  # left_out is in byte order
        table[b] = chr(256 + n)
    return dict(sorted(table.items()))


mine = my_bytes_to_unicode()
assert mine == bpe_course.bytes_to_unicode()
assert len(set(mine.values())) == 256  # 256 different characters: the table can be inverted
print("my_bytes_to_unicode() == bpe_course.bytes_to_unicode(): all 256 bytes agree, and no two share a character")

# %% [markdown]
# Here is the whole table as a 16 × 16 grid: row = first hex digit of the byte, column = second.
# Shaded cells are the left-out bytes, moved to the characters from `Ā` (U+0100) on.

# %%
def byte_grid_html(table: dict[int, str]) -> str:
    """The 256 entries as a 16x16 HTML table; moved bytes shaded."""
    head = "".join(f"<th>_{col:X}</th>" for col in range(16))
    rows = []
    for row in range(16):
        cells = []
        for col in range(16):
            b = 16 * row + col
            moved = table[b] != chr(b)
            style = "background:#ffd6a5;" if moved else ""
            cells.append(f'<td style="{style}font-family:monospace;text-align:center" '
                         f'title="byte 0x{b:02X} -> U+{ord(table[b]):04X}">{table[b]}</td>')
        rows.append(f"<tr><th>{row:X}_</th>{''.join(cells)}</tr>")
    return f'<table class="bpe-byte-grid"><tr><th></th>{head}</tr>{"".join(rows)}</table>'


display(HTML(byte_grid_html(mine)))

# %% [markdown]
# **Why a space is `Ġ` and a newline `Ċ`.** Every byte below the space (the control characters)
# is left out, and so is the space itself. So the space, byte 32, is the 33rd left-out byte, number
# 32 counting from 0, and becomes `chr(256 + 32)`; the newline, byte 10, becomes `chr(256 + 10)`.
# Computed, with two more:

# %%
for name, b in [("space", ord(" ")), ("newline", ord("\n")), ("tab", ord("\t")), ("delete", 0x7F)]:
    n = left_out.index(b)
    print(f"{name:11} byte {b:3} (0x{b:02X}) is left-out number {n:2} -> chr(256 + {n:2}) = "
          f"U+{256 + n:04X} {chr(256 + n)!r}")
assert mine[ord(" ")] == "Ġ" and mine[ord("\n")] == "Ċ"

# %% [markdown]
# That is why GPT-2's files are full of `Ġ`: most words carry their leading space. A token is
# written by mapping each of its bytes, so multi-byte characters come out as strings of Latin
# letters, which is what you see in `vocab.bpe`:

# %%
for token in [b" the", b"\n\n", " 🙃".encode("utf-8"), "é".encode("utf-8")]:
    print(f"{token!r:24} is written {token_to_str(token)!r}")

# %% [markdown]
# ## 4. Decoding a token that is half a character
#
# BPE merges bytes, not characters, so a token can end in the middle of a character. GPT-2 splits
# the upside-down face into tokens that are not valid UTF-8 on their own:

# %%
face_ids = gpt2.encode("🙃")
rows = []
for i in face_ids:
    data = gpt2.decode_bytes([i])
    try:
        strict = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        strict = f"UnicodeDecodeError: {exc.reason}"
    rows.append({"id": i, "bytes": data.hex(" "), "written in vocab.bpe": token_to_str(data),
                 "decode (replace)": data.decode("utf-8", errors="replace"), "decode (strict)": strict})
pd.DataFrame(rows)

# %% [markdown]
# Decoded one by one, the pieces are garbage: `errors="replace"` turns each broken sequence into
# U+FFFD `�`, and `errors="strict"` raises. Decoded **together**, the bytes line up again:

# %%
print("all ids at once:", repr(gpt2.decode(face_ids)), "| strict also works:", repr(gpt2.decode(face_ids, errors="strict")))

# %% [markdown]
# This matters whenever text is produced token by token, as a chatbot streams its answer. Cutting a
# sequence of ids anywhere can leave half a character at the end:

# %%
sentence = "日本語のテキスト 🙃"
ids = gpt2.encode(sentence)
for k in range(1, len(ids) + 1):
    print(f"first {k:2} of {len(ids)} ids -> {gpt2.decode(ids[:k])!r}")

# %% [markdown]
# The fix is an *incremental* decoder: it keeps the bytes of an unfinished character and returns
# text only once the character is complete. Python's `codecs` module has one.

# %%
stream = codecs.getincrementaldecoder("utf-8")()
shown = []
for i in ids:
    shown.append({"id": i, "bytes": gpt2.decode_bytes([i]).hex(" "),
                  "text released": repr(stream.decode(gpt2.decode_bytes([i])))})
assert stream.decode(b"", final=True) == ""  # nothing left over at the end
pd.DataFrame(shown)

# %% [markdown]
# How many of GPT-2's tokens are partial characters on their own? We try to decode every token
# strictly:

# %%
broken = []
for i, token in sorted(gpt2.vocab.items()):
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        broken.append(i)
single_byte_broken = sum(len(gpt2.vocab[i]) == 1 for i in broken)
print(f"{len(broken):,} of GPT-2's {len(gpt2.vocab):,} tokens are not valid UTF-8 on their own "
      f"({single_byte_broken} of them single bytes 0x80-0xFF)")
display(HTML(chips_html([gpt2.vocab[i] for i in broken[-12:]], broken[-12:])))

# %% [markdown]
# ## Recap
#
# * Unicode numbers characters (code points); UTF-8 writes each as 1–4 bytes, and the first byte
#   says how many bytes the character has. What looks like one character can be several code points.
# * A byte-level vocabulary starts with all 256 bytes, so every text can be encoded and decoded
#   exactly; there is no `<|unk|>`. Unseen characters just cost more tokens.
# * GPT-2 writes bytes as printable characters: printable bytes stay, the others move to
#   U+0100 and up in byte order, so the space becomes `Ġ` and the newline `Ċ`.
# * Tokens can split a character; decode whole sequences, or stream with an incremental decoder.
#
# Next, [08 Regex pre-tokenization](08_regex_pretokenization.ipynb): where GPT-2 lets merges happen
# and where it forbids them.
#
# ## Exercises
#
# **Exercise 1.** How many bytes is this string in UTF-8? Work it out by hand from the code points,
# then check. The starter answer counts characters.

# %%
from bpe_course.exercises.ch07 import check_byte_char, check_utf8_encoder, check_utf8_length

EXERCISE_TEXT = "naïve café, 日本 🙃"
my_answer = len(EXERCISE_TEXT)  # replace with your count of bytes
check_utf8_length(EXERCISE_TEXT, my_answer)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ASCII letters, spaces and the comma take one byte each; `ï` and `é` (below U+0800) two; `日` and
# `本` (below U+10000) three; `🙃` (U+1F643) four. In code: `len(EXERCISE_TEXT.encode("utf-8"))`.
# </details>
#
# **Exercise 2.** Which character does GPT-2's table give to byte `0xAD` (the soft hyphen)? Work it
# out from the rule, without calling `bytes_to_unicode`.

# %%
my_char = chr(0xAD)  # replace with your answer, e.g. "Ġ" or chr(256 + ...)
check_byte_char(0xAD, my_char)

# %% [markdown]
# %% [hide-input]
before = [b for b in left_out if b < 0xAD]
runs = {"0–32": sum(b <= 32 for b in before), "127": sum(b == 127 for b in before),
        "128–160": sum(128 <= b <= 160 for b in before)}
assert sum(runs.values()) == len(before)
display(Markdown(
    f"<details><summary>Solution</summary>\n\n0xAD = {0xAD} is not printable. The left-out bytes before it "
    f"are 0–32 ({runs['0–32']} bytes), 127 ({runs['127']}) and 128–160 ({runs['128–160']}): {len(before)} in "
    f"all, so it is left-out number {len(before)} and becomes `chr(256 + {len(before)})`, "
    f"`{chr(256 + len(before))!r}` (U+{256 + len(before):04X}).\n</details>"))

# %% [markdown]
# **Exercise 3.** Write a UTF-8 encoder for one code point using the bit patterns of section 1.
# The starter only handles ASCII.

# %%
def my_utf8(code_point: int) -> bytes:
    return bytes([code_point])  # right for ASCII only; add the 2-, 3- and 4-byte cases


check_utf8_encoder(my_utf8)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def my_utf8(code_point: int) -> bytes:
#     if code_point < 0x80:
#         return bytes([code_point])
#     if code_point < 0x800:
#         return bytes([0xC0 | code_point >> 6, 0x80 | code_point & 0x3F])
#     if code_point < 0x10000:
#         return bytes([0xE0 | code_point >> 12, 0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])
#     return bytes([0xF0 | code_point >> 18, 0x80 | code_point >> 12 & 0x3F,
#                   0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])
# ```
# </details>
#
# [← 06 Vocabulary size](06_vocabulary_size.ipynb) · [08 Regex pre-tokenization →](08_regex_pretokenization.ipynb)
