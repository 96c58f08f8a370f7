# %% [markdown]
# # 18 · Open models' tokenizers: SentencePiece and Mistral
#
# [← 17 Beyond greedy BPE](17_beyond_greedy_bpe.ipynb) · [00 Start here](00_start_here.ipynb) · [19 Llama's tokenizers and the chat template →](19_llama_and_the_chat_template.ipynb)
#
# The tokenizers this course rebuilt so far are byte-level BPE with a pre-tokenization regex: OpenAI's
# GPT-2, cl100k and o200k, and Mistral's Tekken, which chapters 10 and 13 already loaded. Many open models
# use another design, **SentencePiece**, which [chapter 15](15_other_designs.ipynb) trained. Mistral's own
# library, `mistral-common`, ships both kinds of file inside its wheel, so both can be checked id for id,
# offline. In this chapter you will:
#
# * rebuild **SentencePiece BPE** encoding step by step — code points not bytes, merges chosen by the
#   pieces' *scores*, the dummy-prefix `▁`, byte fallback to `<0xNN>` — and match the `sentencepiece`
#   library on Mistral 7B's tokenizer (v1, the LLaMA-2 design) and its instruct successor (v3);
# * decode any ids as the library does, a stream cut inside a character included;
# * read **Tekken**, Mistral's later tiktoken-style vocabulary, into this course's own `Tokenizer`;
# * compare the three with GPT-2, cl100k and o200k on the course's corpora — saying which differences
#   are findings — and measure what byte fallback costs each language of the Universal Declaration of
#   Human Rights.
#
# [Chapter 19](19_llama_and_the_chat_template.ipynb) goes on with Meta's Llama tokenizers and writes chat
# prompts, Mistral's included, token by token.

# %%
import random
from collections import Counter

import pandas as pd
import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2
from IPython.display import Markdown, display
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

from bpe_course import NAMED, cl100k, corpus, gpt2, mistral_v1, mistral_v3, named_file, o200k, tekken, token_label
from bpe_course.compare import compare, paragraph_bytes, units_of
from bpe_course.corpus import ARTICLES
from bpe_course.formats import read_model, read_tekken

pd.set_option("display.max_colwidth", None)
FILES = {"v1": "mistral-v1", "v3": "mistral-v3", "Tekken": "tekken"}  # their names in the package's registry
for name, file in FILES.items():
    path = named_file(file)  # raises if the file's sha256 is not the one recorded in bpe_course.NAMED
    print(f"{name:>6}: {path.name:<45} {path.stat().st_size:>11,} bytes, sha256 {NAMED[file].files[0].sha256[:12]}… checked")

# %% [markdown]
# ## 1. SentencePiece BPE, step by step
#
# [Chapter 15](15_other_designs.ipynb) trained SentencePiece and used its encoder as a black box; here we
# rebuild the encoder on Mistral's real files. A SentencePiece `.model` file is a protocol buffer. The `sentencepiece` package ships its own
# description of that format (`sentencepiece_model_pb2`), so `read_model` reads the file with it and
# keeps what encoding needs: every piece with its score and kind, and the normaliser's settings.

# %%
model = read_model(named_file("mistral-v1"))
kinds = Counter(model.kinds)
print(f"v1: {len(model.pieces):,} pieces:", ", ".join(f"{n:,} {kind}" for kind, n in kinds.most_common()))
print("first pieces:", model.pieces[:5], "... last:", model.pieces[-3:])
proto = sentencepiece_model_pb2.ModelProto.FromString(named_file("mistral-v1").read_bytes())  # two settings read_model skips
pd.Series({"normaliser": proto.normalizer_spec.name, "add_dummy_prefix": model.add_dummy_prefix,
           "escape_whitespaces": model.escape_whitespaces, "remove_extra_whitespaces": model.remove_extra_whitespaces,
           "byte_fallback": model.byte_fallback, "split_digits (training)": proto.trainer_spec.split_digits,
           "unk / bos / eos ids": (model.unk_id, model.bos_id, model.eos_id)}, name="v1's settings").to_frame()

# %% [markdown]
# **Normalising.** The settings say: put a space in front of the text (the *dummy prefix*, so that a
# word at the start is spelled as it is after a space), write every space as `▁`, and remove nothing.
# The file names no other normalisation (its normaliser is `identity`), so that is all. (`split_digits`
# is a setting of training, not of encoding: the trainer kept every digit a piece of its own.)

# %%
SPACE = "▁"  # U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space


def normalize(text: str) -> str:
    """v1's normalisation: a dummy-prefix space, then every space written as ▁ (empty text stays empty)."""
    return (" " + text).replace(" ", SPACE) if text else ""


for text in ["Hello world", "  two spaces", "日本語"]:
    print(f"{text!r:>16} -> {normalize(text)!r}")

# %% [markdown]
# **Merging by score.** There is no merge list. Each normal piece has a score (the trainer gave the
# pieces it made first the highest), and encoding starts from single code points and merges, again and
# again, the adjacent pair whose *joined string* is the piece with the highest score — the leftmost
# such pair on a tie — until no adjacent pair is a piece.

# %%
score_of = {p: s for p, s, k in zip(model.pieces, model.scores, model.kinds) if k == "normal"}
top = sorted(score_of, key=score_of.get, reverse=True)[:8]
print("highest scores:", ", ".join(f"{p!r} {score_of[p]:g}" for p in top))

# %% [markdown]
# The next merge is the adjacent pair whose join scores highest; merging repeats until no pair joins:

# %%


def best_pair_index(symbols: list[str]) -> int | None:
    """The left index of the adjacent pair to merge next: highest score, leftmost on a tie."""
    best, best_score = None, float("-inf")
    for i in range(len(symbols) - 1):
        score = score_of.get(symbols[i] + symbols[i + 1])
        if score is not None and score > best_score:
            best, best_score = i, score
    return best


def merge_all(symbols: list[str], trace: list | None = None) -> list[str]:
    symbols = list(symbols)
    while (i := best_pair_index(symbols)) is not None:
        joined = symbols[i] + symbols[i + 1]
        symbols[i:i + 2] = [joined]
        if trace is not None:
            trace.append({"merged": joined, "score": score_of[joined], "symbols": " ".join(symbols)})
    return symbols


steps = []
merge_all(list(normalize("unbelievably")), steps)
pd.DataFrame(steps)

# %% [markdown]
# **Byte fallback.** A symbol left at the end that is no piece — a character the vocabulary lacks —
# is written as the pieces of its UTF-8 bytes, `<0x00>` to `<0xFF>`, which the vocabulary holds as
# pieces of their own. Everything else is looked up.

# %%
id_of = {p: i for i, (p, k) in enumerate(zip(model.pieces, model.kinds)) if k == "normal"}
byte_id = {b: model.pieces.index(f"<0x{b:02X}>") for b in range(256)}


def to_ids(symbols: list[str]) -> list[int]:
    ids = []
    for symbol in symbols:
        ids.extend([id_of[symbol]] if symbol in id_of else [byte_id[b] for b in symbol.encode("utf-8")])
    return ids


def my_encode(text: str) -> list[int]:
    return to_ids(merge_all(list(normalize(text))))


emoji = "I 🫶 tokenizers"
print(merge_all(list(normalize(emoji))))
print([model.pieces[i] for i in my_encode(emoji)])

# %% [markdown]
# Those four steps are the whole encoder. The `sentencepiece` library is the oracle:

# %%
library = {name: spm.SentencePieceProcessor(model_file=str(named_file(FILES[name]))) for name in ("v1", "v3")}
SAMPLES = ["Hello world", "  indented   spaces\tand\ttabs\n", "naïve café 日本語 한국어", "I 🫶 tokenizers 👩‍👩‍👧",
           "2024-11-25: 3.14159 × 1,000,000", "ᐃᓄᒃᑎᑐᑦ ꦧꦱꦗꦮ", "[INST] </s> <s> <unk>", ""]
agree = sum(my_encode(text) == library["v1"].encode(text) for text in SAMPLES)
print(f"my_encode agrees with sentencepiece on {agree} of {len(SAMPLES)} samples")

# %% [markdown]
# `my_encode` rescans every pair after every merge, which is slow on long text. The package's
# `bpe_course.algorithms.SentencePieceBPE` does the same with a priority queue over adjacent
# pairs (as SentencePiece's own `bpe_model.cc` does; see [docs/references.md](../docs/references.md)) and
# remembers what it encoded per stretch of text that starts
# at a run of `▁`: no piece of these vocabularies has a `▁` after another character, so no merge can
# cross such a point. Checked against the library on every built-in corpus, for v1 and v3:

# %%
ours = {"v1": mistral_v1(), "v3": mistral_v3()}
CORPORA = ["python_docs", "python_code", "numbers", "don_quixote", "languages"]
texts = {name: corpus.load(name) for name in CORPORA}
ids = {name: {} for name in CORPORA}  # corpus -> tokenizer -> ids, reused in section 4
rows = {}
for name in CORPORA:
    for version in ("v1", "v3"):
        ids[name][version] = ours[version].encode(texts[name])
    rows[name] = {f"{version} equal": ids[name][version] == library[version].encode(texts[name])
                  for version in ("v1", "v3")}
    rows[name]["characters"] = len(texts[name])
pd.DataFrame(rows).T

# %% [markdown]
# v3 keeps v1's normal pieces and adds control pieces — `[INST]`, `[/INST]`, tool and image markers —
# and a few user-defined pieces that text *can* produce (`[REFERENCE_DOC_0]` ...). A control piece is
# never produced by encoding text: it only enters a prompt as an id the template writes.

# %%
v3_model = ours["v3"].model
kinds3 = Counter(v3_model.kinds)
same_normal = [p for p, k in zip(model.pieces, model.kinds) if k == "normal"] == \
    [p for p, k in zip(v3_model.pieces, v3_model.kinds) if k == "normal"]
print(f"v3: {len(v3_model.pieces):,} pieces:", ", ".join(f"{n:,} {kind}" for kind, n in kinds3.most_common()))
print("v3's normal pieces are v1's, in the same order:", same_normal)
print("first control pieces:", [p for p, k in zip(v3_model.pieces, v3_model.kinds) if k == "control"][:6])
print("'[INST]' typed as text under v3:", ours["v3"].encode_as_pieces("[INST]"))
print("'[REFERENCE_DOC_0]' typed as text under v3:", ours["v3"].encode_as_pieces("[REFERENCE_DOC_0]"))

# %% [markdown]
# ## 2. Decoding any ids
#
# Decoding turns ids back into text: byte pieces joined into UTF-8, `▁` read as a space, the dummy
# prefix dropped, control pieces written as nothing. For ids that `encode` made, any decoder that does
# that gets the text back. A program that shows a model's output as it is written decodes other ids:
# the ids so far, cut anywhere — in the middle of a character that v1 spells in byte pieces, say.
# How the library writes those cut characters:

# %%
stream_text = "I 🫶 ﬁne tokenizers"
stream = library["v1"].encode(stream_text)
rows = []
for k in range(1, len(stream) + 1):
    cut = stream[:k]
    plain_bytes = b"".join(bytes([int(model.pieces[i][3:5], 16)]) if model.kinds[i] == "byte" else
                           model.pieces[i].replace("▁", " ").encode() for i in cut)
    rows.append({"last piece": model.pieces[cut[-1]], "sentencepiece": library["v1"].decode(cut),
                 "ours": ours["v1"].decode(cut), "Python's errors='replace'": plain_bytes.decode("utf-8", "replace")[1:]})
pd.DataFrame(rows).iloc[:8]

# %% [markdown]
# The library reads byte pieces one character at a time and writes a U+FFFD for *each* byte that starts
# no whole character: two for the first two bytes of the four of 🫶, where Python's `errors="replace"`
# writes one for the pair. It drops the dummy-prefix `▁` from the first normal piece when nothing was
# written before it: control pieces, which write nothing, may come first, but a byte piece or `<unk>` keeps
# the `▁` of the piece after it. The
# package's `SentencePieceBPE.decode` follows those rules; checked against the library on random id
# sequences — control, unknown and byte pieces mixed with normal ones:

# %%
rng = random.Random(18)
odd = [i for i, k in enumerate(model.kinds) if k != "normal"] + [ours["v1"].id_of["▁"]]
sequences = [[rng.choice(odd) if rng.random() < 0.5 else rng.randrange(len(model.pieces)) for _ in range(rng.randint(1, 8))]
             for _ in range(2_000)]
same = sum(ours["v1"].decode(q) == library["v1"].decode(q) for q in sequences)
print(f"{same:,} of {len(sequences):,} random id sequences decode as sentencepiece decodes them")

# %% [markdown]
# ## 3. Tekken, a byte-level BPE
#
# Tekken is a JSON file: a list of tokens with their ranks (base64 bytes, as in a `.tiktoken`
# file), a regex, and a number of ids reserved at the front for special tokens. That is this
# course's data model already: `read_tekken` reads it, and `bpe_course.tekken()` turns it into
# a `Tokenizer` — ids are ranks shifted past the reserved ones, merges recovered from the ranks with
# `merges_from_ranks` ([chapter 10](10_gpt4_cl100k.ipynb)).

# %%
tek = tekken()
ranks, pattern, specials = read_tekken(named_file("tekken"))
print(f"Tekken: {len(tek.vocab):,} ids = {len(specials):,} reserved for special tokens + {len(ranks):,} ranks; "
      f"{len(tek.merges):,} merges")
print("special ids 0-5:", list(specials)[:6])
print("pattern:", pattern[:90], "…")
sample = "Tekken's vocabulary: naïve café, 日本語, 1234567."
print(" | ".join(token_label(t) for t in tek.token_bytes(tek.encode_ordinary(sample))))

# %% [markdown]
# `mistral-common`'s own `Tekkenizer` (which runs `tiktoken` underneath) is the oracle:

# %%
tekkenizer = MistralTokenizer.from_file(str(named_file("tekken"))).instruct_tokenizer.tokenizer
for name in CORPORA:
    ids[name]["Tekken"] = tek.encode_ordinary(texts[name])
print("Tekken equal to mistral-common on", {name: ids[name]["Tekken"] == tekkenizer.encode(texts[name], False, False)
                                           for name in CORPORA})

# %% [markdown]
# ## 4. Three Mistral tokenizers beside OpenAI's
#
# Tokens per word (words split at whitespace) on the course's corpora, with OpenAI's three
# tokenizers as this package rebuilds them:

# %%
openai = {"GPT-2": gpt2(), "cl100k": cl100k(), "o200k": o200k()}
for name in CORPORA:
    for label, tok in openai.items():
        ids[name][label] = tok.encode_ordinary(texts[name])
COLUMNS = ["v1", "v3", "Tekken", "GPT-2", "cl100k", "o200k"]
per_word = pd.DataFrame({label: {name: len(ids[name][label]) / len(texts[name].split()) for name in CORPORA}
                         for label in COLUMNS}).round(3)
per_word

# %% [markdown]
# Is a difference in that table a finding? The yardstick of
# [chapter 16](16_what_a_tokenizer_does_to_a_model.ipynb) (`bpe_course.compare`) pairs two tokenizers on the
# same stretches of a corpus — its paragraphs, in about 200 runs of consecutive ones (fewer where a
# corpus has fewer paragraphs) — and gives the relative difference in tokens with a 95% interval from
# resampling the stretches. To cut the ids into stretches it needs the bytes of text each token stands
# for; a SentencePiece piece stands for its characters with `▁` read as a space, a byte piece for one
# byte, and the dummy-prefix `▁` for none:

# %%
SPACE = "▁"
byte_level = {"Tekken": tek} | openai


def token_sizes(label: str, name: str) -> list[int]:
    """The bytes of the text each of its tokens stands for, in order."""
    if label in byte_level:
        return [len(byte_level[label].vocab[i]) for i in ids[name][label]]
    sp = ours[label]
    sizes = [1 if sp.model.kinds[i] == "byte" else len(sp.pieces[i].replace(SPACE, " ").encode()) for i in ids[name][label]]
    sizes[0] -= 1  # the dummy prefix
    return sizes


def stretch_bytes(text: str, k: int = 200) -> list[int]:
    """The UTF-8 sizes of about ``k`` runs of consecutive paragraphs, adding up to the text's bytes."""
    sizes = paragraph_bytes(text)
    step = max(1, len(sizes) // k)
    return [sum(sizes[i:i + step]) for i in range(0, len(sizes), step)]


def versus(a: str, b: str, name: str):
    """Tokenizer a against b on one corpus: the relative difference in tokens, with its interval."""
    units = {label: units_of([1.0] * len(ids[name][label]), token_sizes(label, name), stretch_bytes(texts[name]))
             for label in (a, b)}
    return compare(units[a], units[b], unit="", words=("fewer", "more"), relative=True)


print("the tokens' bytes add up to each corpus's:", all(sum(token_sizes(label, name)) == len(texts[name].encode())
                                                       for name in CORPORA for label in COLUMNS))

# %% [markdown]
# For each corpus: the tokenizer with the fewest tokens against the next, Tekken against v1, and v1
# against GPT-2:

# %%
runner_up = {name: list(per_word.loc[name].sort_values().index[:2]) for name in CORPORA}
found = {"fewest": {name: versus(*runner_up[name], name) for name in CORPORA},
         "Tekken vs v1": {name: versus("Tekken", "v1", name) for name in CORPORA},
         "v1 vs GPT-2": {name: versus("v1", "GPT-2", name) for name in CORPORA}}
pd.DataFrame({"fewest tokens": {n: f"{runner_up[n][0]} vs {runner_up[n][1]}: {d.verdict}" for n, d in found["fewest"].items()},
              "Tekken vs v1": {n: d.verdict for n, d in found["Tekken vs v1"].items()},
              "v1 vs GPT-2": {n: d.verdict for n, d in found["v1 vs GPT-2"].items()}})

# %% [hide-input]
sides = {pair: {side: [f"`{n}`" for n, d in found[pair].items() if (d.direction == side if side else not d.clear)]
                for side in ("lower", "higher", None)} for pair in ("v1 vs GPT-2", "Tekken vs v1")}
v1_fewer, v1_more = (sides["v1 vs GPT-2"][side] for side in ("lower", "higher"))
tek_fewer, tek_more, tek_level = (sides["Tekken vs v1"][side] for side in ("lower", "higher", None))
against_gpt2 = [f"clearly fewer tokens on {', '.join(v1_fewer)}" if v1_fewer else "",
                f"clearly more on {', '.join(v1_more)}" if v1_more else "",
                "; ".join(f"on `{n}` {d.verdict}" for n, d in found["v1 vs GPT-2"].items() if not d.clear)]
against_v1 = [f"clearly fewer tokens than v1 on {', '.join(tek_fewer)}" if tek_fewer else "",
              f"clearly more on {', '.join(tek_more)}" if tek_more else "",
              f"within noise of v1 on {', '.join(tek_level)}" if tek_level else ""]
display(Markdown(
    f"v3 gives {'the same' if (per_word['v1'] == per_word['v3']).all() else 'other'} counts as v1 on every corpus: "
    "the same normal pieces. Against GPT-2, v1 needs " + "; ".join(c for c in against_gpt2 if c)
    + ". Tekken needs " + "; ".join(c for c in against_v1 if c) + ". Ranked by count, first against second: "
    + "; ".join(f"on `{n}` {runner_up[n][0]}, " + (f"clearly ahead of {runner_up[n][1]}" if d.clear else
                                                  f"within noise of {runner_up[n][1]}")
                for n, d in found["fewest"].items()) + "."))

# %% [markdown]
# **What byte fallback costs.** One thing first: v1 has no piece for a line break.

# %%
newline_ids = ours["v1"].encode("\n")
print("'\\n' is a piece:", "\n" in ours["v1"].id_of, "-> encoded as", [model.pieces[i] for i in newline_ids])

# %% [markdown]
# Every line break costs a byte piece, in every language alike. Leaving those out, count on the UDHR
# ([chapter 13](13_token_tax.ipynb)'s corpus) how many of v1's tokens are byte pieces, and compare each
# language's length with English's, for v1, Tekken and o200k, on the same 30 articles in every language
# (the preamble is left out: Amharic's translation has none), each article encoded on its own as chapter 13
# counts them:

# %%
byte_ids_v1 = {i for i, k in enumerate(model.kinds) if k == "byte"}
newline_id = newline_ids[-1]
udhr_encoders = {"v1": ours["v1"].encode, "Tekken": tek.encode_ordinary, "o200k": openai["o200k"].encode_ordinary}
per_article, udhr_rows = {}, {}  # per_article: (label, language) -> tokens in each article
for code, (script, language) in corpus.UDHR_LANGUAGES.items():
    articles = [corpus.udhr(code)[k] for k in ARTICLES]
    article_ids = {label: [encode(article) for article in articles] for label, encode in udhr_encoders.items()}
    for label, encoded in article_ids.items():
        per_article[label, language] = [len(one) for one in encoded]
    v1_ids = [i for one in article_ids["v1"] for i in one]
    fallback_ids = sum(i in byte_ids_v1 and i != newline_id for i in v1_ids)
    udhr_rows[language] = {"script": script, "byte pieces": fallback_ids,
                           "byte-fallback share %": round(100 * fallback_ids / len(v1_ids), 1),
                           "v1 characters per token": round(sum(map(len, articles)) / len(v1_ids), 2)}
udhr_table = pd.DataFrame(udhr_rows).T
for label in ("v1", "Tekken", "o200k"):
    udhr_table[f"{label} ÷ English"] = [round(sum(per_article[label, lang]) / sum(per_article[label, "English"]), 2)
                                        for lang in udhr_table.index]
udhr_table.sort_values("byte-fallback share %", ascending=False)

# %% [markdown]
# Does Tekken's bigger vocabulary make a language cheaper, relative to English, than v1 does? Article by
# article, each tokenizer's ratio to English, compared with an interval from resampling the articles:

# %%
def ratio_units(label: str, language: str) -> list[tuple[float, float]]:
    """(tokens in the language, tokens in English) per article: their ratio of sums is the ratio to English."""
    return list(zip(per_article[label, language], per_article[label, "English"]))


tekken_vs_v1 = {language: compare(ratio_units("Tekken", language), ratio_units("v1", language), unit="",
                                  words=("cheaper", "costlier"), relative=True)
                for language in udhr_table.index if language != "English"}
pd.Series({language: d.verdict for language, d in tekken_vs_v1.items()},
          name="Tekken's ratio to English against v1's").to_frame()

# %% [hide-input]
fallback = udhr_table["byte-fallback share %"].astype(float).sort_values(ascending=False)
v1_ratio = udhr_table["v1 ÷ English"].astype(float)
worst = fallback.index[0]
none = [language for language in fallback.index if udhr_table.loc[language, "byte pieces"] == 0]
few = [language for language in fallback.index if fallback[language] <= 1 and language != "English"]  # 1% or less
longest_few = max(few, key=v1_ratio.get)
per_token = udhr_table["v1 characters per token"]
costlier = [language for language, d in tekken_vs_v1.items() if d.direction == "higher"]
cheaper = [language for language, d in tekken_vs_v1.items() if d.direction == "lower"]
level = [language for language, d in tekken_vs_v1.items() if not d.clear]
display(Markdown(
    f"Under v1, {fallback.iloc[0]}% of {worst}'s tokens are byte pieces, then {fallback.index[1]} "
    f"({fallback.iloc[1]}%) and {fallback.index[2]} ({fallback.iloc[2]}%): each character the vocabulary lacks "
    "costs as many pieces as it has UTF-8 bytes. "
    + (f"{len(none)} of the {len(fallback)} languages need none ({', '.join(none)}). " if none else "")
    + f"Byte pieces alone do not set a language's length, though. {longest_few} has {fallback[longest_few]}% byte "
    f"pieces under v1 and takes {v1_ratio[longest_few]:.2f} times English's tokens: its characters are in the "
    f"vocabulary, but in pieces of {per_token[longest_few]} characters per token on average, against "
    f"{per_token['English']} for English. {worst}'s articles take {v1_ratio[worst]:.2f} times English's tokens "
    f"under v1, {udhr_table.loc[worst, 'o200k ÷ English']:.2f} times under o200k and "
    f"{udhr_table.loc[worst, 'Tekken ÷ English']:.2f} times under Tekken, which has no byte pieces to fall back on "
    f"and spells a character it lacks in byte tokens all the same ({tekken_vs_v1[worst].sentence('Tekken', 'v1')}). "
    "Relative to English, against v1 Tekken is "
    + "; ".join(c for c in [
        f"clearly cheaper for {len(cheaper)} of the {len(tekken_vs_v1)} other languages" if cheaper else "",
        f"clearly costlier for {len(costlier)} ({', '.join(costlier)})" if costlier else "",
        f"within noise for {', '.join(level)}" if level else ""] if c) + "."))

# %% [markdown]
# ## Recap
#
# * SentencePiece BPE works on code points: a dummy-prefix `▁`, every space as `▁`, then merges of the
#   adjacent pair whose joined piece has the highest **score** (leftmost on a tie), and byte fallback
#   to `<0xNN>` pieces for what the vocabulary lacks. Rebuilt here, it gives the `sentencepiece`
#   library's ids on Mistral's v1 and v3 files, and decodes any ids as the library does: one U+FFFD per
#   byte of a character cut short.
# * Tekken is a byte-level BPE like cl100k and o200k, with special ids reserved in front; it reads into
#   this course's data model and gives `mistral-common`'s ids.
# * Which tokenizer is shortest depends on the text, and some differences in the table are within
#   noise: the yardstick says which. Byte fallback keeps every text encodable, spelling a character the
#   vocabulary lacks in byte pieces; but a language's length depends on the whole vocabulary: one with few
#   byte pieces can still need several times English's tokens, and a byte-level vocabulary with no byte
#   fallback can cost a language more than v1 does.
#
# ## Exercises

# %%
from bpe_course.exercises.ch18 import LINES, check_line_units, check_stream

# %% [markdown]
# **18.1** A chat program shows a model's answer while the model writes it, one id at a time. Write
# `stream_text(ids)`: after each id, the text that id adds *for sure* — a list with one string per id. Show
# nothing that a later id can still change: no U+FFFD for a character whose bytes may still be coming (byte
# pieces that later bytes could complete), while a byte that can never be part of a character is written at
# once, as the library writes it. The stream ends after the last id: no byte can come then, so the last
# string also shows whatever is still held back, as `decode` writes it. Joined, the strings give
# `ours["v1"].decode(ids)`. The checker streams ids of its own, one of them ending inside a character.

# %%
def stream_text(ids: list[int]) -> list[str]:
    return [ours["v1"].decode([i]) for i in ids]  # starter: each id decoded alone


check_stream(stream_text)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# import codecs
#
# def stream_text(ids):
#     sp, pieces, printed = ours["v1"], [], ""
#     for k in range(1, len(ids) + 1):
#         text = sp.decode(ids[:k])
#         tail = bytearray()  # the byte pieces at the end of ids[:k]
#         for i in reversed(ids[:k]):
#             if sp.model.kinds[i] != "byte":
#                 break
#             tail.insert(0, int(sp.pieces[i][3:5], 16))
#         hold = 0  # the last bytes, if they begin a character that later bytes can still complete
#         for n in range(min(3, len(tail)), 0, -1):
#             try:
#                 if codecs.getincrementaldecoder("utf-8")().decode(bytes(tail[-n:])) == "":
#                     hold = n
#                     break
#             except UnicodeDecodeError:
#                 pass
#         if k == len(ids):  # the end of the stream: nothing can complete a character now
#             hold = 0
#         certain = text[:len(text) - hold]
#         pieces.append(certain[len(printed):])
#         printed = certain
#     return pieces
# ```
# </details>
#
# **18.2** Section 4 compared Tekken with v1 on stretches of paragraphs, encoded as whole corpora. Ask the
# same question of `python_code` with its **lines** as the units — its first `LINES` non-empty lines, each
# encoded on its own (`(tokens, bytes)` per line, Tekken's `encode_ordinary` and v1's `encode`) — and return
# `compare(tekken_units, v1_units, unit="", words=("fewer", "more"), relative=True)`. Then read your verdict
# beside the chapter's for `python_code`: is Tekken's lead the same? Where it shrinks, find out why by
# counting: encode the same lines once joined by line breaks and once each on its own, for both
# tokenizers, and look at the tokens of the joined text that hold a line break. Where do the tokens go?

# %%
def line_units_verdict():
    return versus("Tekken", "v1", "python_code")  # starter: the chapter's stretches, not lines


check_line_units(line_units_verdict())

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def line_units_verdict():
#     lines = [line for line in texts["python_code"].split("\n") if line][:LINES]
#     tekken_units = [(len(tek.encode_ordinary(line)), len(line.encode())) for line in lines]
#     v1_units = [(len(ours["v1"].encode(line)), len(line.encode())) for line in lines]
#     return compare(tekken_units, v1_units, unit="", words=("fewer", "more"), relative=True)
# ```
#
# The counting, joined against line by line:
#
# ```python
# lines = [line for line in texts["python_code"].split("\n") if line][:LINES]
# for label, encode, text_of in [("v1", ours["v1"].encode, lambda i: ours["v1"].decode([i])),
#                                ("Tekken", tek.encode_ordinary, lambda i: tek.vocab[i].decode("utf-8", "replace"))]:
#     joined = encode("\n".join(lines))
#     breaks = Counter("a line break alone" if text_of(i) == "\n" else "a line break with text"
#                      for i in joined if "\n" in text_of(i))
#     alone = sum(len(encode(line)) for line in lines)
#     print(f"{label}: joined {len(joined):,} tokens, of which {dict(breaks)}; "
#           f"{len(joined) - sum(breaks.values()):,} apart from those; line by line {alone:,}")
# ```
#
# Joined, each tokenizer spends one token on each line break, but not the same kind of token. v1 has no
# piece for a line break (section 4): each is a byte piece `<0x0A>` standing alone. Encoded line by line,
# v1 simply loses those byte pieces, and its other tokens hardly change. Most of Tekken's line-break tokens
# also hold the end of the line before — `)\n`, `:\n`, `.\n` — so line by line that closing bracket,
# colon or full stop needs a token of its own: Tekken gives back part of what it saved. Lines as the units
# take away the line breaks, which cost v1 a token each, and Tekken's lead shrinks. (The dummy-prefix `▁`
# costs v1 little here: an indented line's first piece, `▁▁▁▁`, already holds it.)
# </details>
#
# [← 17 Beyond greedy BPE](17_beyond_greedy_bpe.ipynb) · [00 Start here](00_start_here.ipynb) · [19 Llama's tokenizers and the chat template →](19_llama_and_the_chat_template.ipynb)
