# %% [markdown]
# # 13 · The token tax: one text in 18 languages
#
# [← 12 Train your own](12_train_your_own.ipynb) · [14 When tokens bite →](14_when_tokens_bite.ipynb)
#
# A tokenizer is trained on some text, and it compresses best what it saw most of. For everything
# else, the same content takes more tokens — and a model that is paid for, limited and trained per
# token charges that difference to whoever writes in those languages. To measure it fairly we need
# **the same content** in every language: chapters 07 and 10 compared texts written separately, and
# tokens per character, which cannot tell a dense script from a poorly covered one. Here you will
#
# * load the Universal Declaration of Human Rights in 18 languages, aligned article by article;
# * separate what UTF-8 costs (bytes per character, by script) from what the vocabulary costs;
# * measure each language's cost relative to English for GPT-2, GPT-4's cl100k, GPT-4o's o200k,
#   Mistral's Tekken and Meta's Llama 3 and Llama 4, article by article, so the spread shows and not just one number;
# * train tokenizers of your own on different language mixes and watch each language's cost move,
#   with a widget to choose the mix;
# * say what this means in money, context length and model quality — and which of those are
#   measured here and which are argued.

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import HTML, Markdown, display

from bpe_course import bootstrap, cl100k, compare, corpus, gpt2, llama3, llama4, o200k, tekken, train
from bpe_course.algorithms import OWN_MIN_FREQUENCY, OWN_VOCAB_SIZE, relative_costs, summary, train_on_mix
from bpe_course.corpus import ARTICLES, HELDOUT_ARTICLES, MIXES, TRAIN_ARTICLES, mix_text
from bpe_course.widgets import TokenTaxExplorer

# %% [markdown]
# ## 1. The same text, 18 times
#
# The declaration has 30 articles, and every translation keeps them apart, so article 7 in Tamil
# says what article 7 says in English. (Its source and terms are in `data/README.md`: the
# translations may be freely reproduced.) `corpus.udhr(code)` returns one language as
# `{article number: text}`; `corpus.UDHR_LANGUAGES` lists the codes with script and language.

# %%
udhr = {code: corpus.udhr(code) for code in corpus.UDHR_LANGUAGES}
for code in ["eng", "tam", "cmn_hans"]:
    print(f"{corpus.UDHR_LANGUAGES[code][1]:>22}: {udhr[code]['1'][:60]}…")

# %% [markdown]
# ## 2. What UTF-8 costs, before any tokenizer
#
# A byte-level tokenizer starts from UTF-8 bytes (chapter 07): one byte per ASCII character, two
# for Greek, Cyrillic or Arabic letters, three for most other scripts. Over all 30 articles:

# %%
rows = []
for code, (script, language) in corpus.UDHR_LANGUAGES.items():
    text = "\n".join(udhr[code][k] for k in ARTICLES)
    rows.append({"language": language, "script": script, "characters": len(text),
                 "UTF-8 bytes": len(text.encode("utf-8")), "bytes per character": len(text.encode("utf-8")) / len(text)})
sizes = pd.DataFrame(rows).set_index("language")
sizes["bytes relative to English"] = sizes["UTF-8 bytes"] / sizes.loc["English", "UTF-8 bytes"]
sizes.round(2)

# %% [hide-input]
dense = sizes["characters"].idxmin()
heaviest = sizes["bytes relative to English"].idxmax()
english_words = sum(len(udhr["eng"][k].split()) for k in ARTICLES)
display(Markdown(
    f"Before a single merge, the scripts already differ: `{heaviest}` needs "
    f"{sizes.loc[heaviest, 'bytes relative to English']:.2f}× English's bytes for the same articles, "
    f"at {sizes.loc[heaviest, 'bytes per character']:.2f} bytes per character. Characters are no fair unit "
    f"either: `{dense}` says the same in {sizes.loc[dense, 'characters']:,} characters where English takes "
    f"{sizes.loc['English', 'characters']:,} (in {english_words:,} words): a Han character carries far more than a "
    f"letter, often a whole word."))

# %% [markdown]
# ## 3. The cost relative to English, article by article
#
# For each tokenizer and each article, the tokens a language needs divided by the tokens English
# needs for the same article. A ratio of 2 means the same content costs twice as much.

# %%
tokenizers = {"GPT-2": gpt2(), "GPT-4 (cl100k)": cl100k(), "GPT-4o (o200k)": o200k(), "Mistral (Tekken)": tekken(),
              "Llama 3": llama3(), "Llama 4": llama4()}
costs = relative_costs(tokenizers)
table = summary(costs)["total ratio"].unstack("tokenizer")[list(tokenizers)]
table = table.loc[table["GPT-4 (cl100k)"].sort_values().index]
table.round(2)

# %% [markdown]
# Tekken is Mistral's later byte-level vocabulary, a tiktoken-style file (`tekken_240911.json`) that ships in
# Mistral's `mistral-common` package; chapter 18 reads it and checks it against that library. Llama 3 and
# Llama 4 come from Meta's `llama-models` package; chapter 19 reads them and checks them against it.
# `bpe_course.tekken()`, `llama3()` and `llama4()` load them as the course's own `Tokenizer`, counted like
# the other three.
#
# The spread over the 30 articles, one box per language and tokenizer (the line inside a box is the
# median article, the box holds the middle half of the articles):

# %%
order = list(table.index)
fig, ax = plt.subplots(figsize=(12, 5.5))
width = 0.8 / len(tokenizers)
colors = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
for k, label in enumerate(tokenizers):
    data = [costs[(costs["tokenizer"] == label) & (costs["language"] == lang)]["ratio"] for lang in order]
    positions = [i + (k - (len(tokenizers) - 1) / 2) * width for i in range(len(order))]
    parts = ax.boxplot(data, positions=positions, widths=width * 0.9, patch_artist=True, showfliers=False,
                       medianprops={"color": "black"})
    for box in parts["boxes"]:
        box.set_facecolor(colors[k])
    ax.plot([], [], "s", color=colors[k], label=label)
ax.axhline(1, color="grey", linewidth=1)
ax.set_xticks(range(len(order)), order, rotation=45, ha="right")
ax.set_yscale("log")
ax.set_ylabel("tokens relative to English (log scale)")
ax.set_title("The same article, in tokens, relative to English")
ax.legend()
fig.tight_layout()
display(fig)
plt.close(fig)

# %% [markdown]
# Is one tokenizer's ratio really below another's for a language, or within what the choice of
# articles could move? Chapter 16's yardstick, `compare`, resamples the articles: each article is a
# unit of (the language's tokens, English's tokens), so a tokenizer's ratio of sums is the table's
# figure, and two tokenizers are compared on the same articles.

# %%
def article_units(label: str, language: str) -> list[tuple[int, int]]:
    rows = costs[(costs["tokenizer"] == label) & (costs["language"] == language)]
    return list(zip(rows["tokens"], rows["english_tokens"]))


def against(a: str, b: str) -> dict:
    """Tokenizer a's ratio to English against b's, per language other than English."""
    return {lang: compare(article_units(a, lang), article_units(b, lang), unit="× English", words=("cheaper", "costlier"))
            for lang in table.index.drop("English")}


newer = {("GPT-4 (cl100k)", "GPT-2"): against("GPT-4 (cl100k)", "GPT-2"),
         ("GPT-4o (o200k)", "GPT-4 (cl100k)"): against("GPT-4o (o200k)", "GPT-4 (cl100k)"),
         ("Mistral (Tekken)", "GPT-4o (o200k)"): against("Mistral (Tekken)", "GPT-4o (o200k)"),
         ("Mistral (Tekken)", "GPT-4 (cl100k)"): against("Mistral (Tekken)", "GPT-4 (cl100k)"),
         ("Llama 3", "GPT-4 (cl100k)"): against("Llama 3", "GPT-4 (cl100k)"),  # Meta's, against their OpenAI parents
         ("Llama 4", "GPT-4o (o200k)"): against("Llama 4", "GPT-4o (o200k)")}
pd.DataFrame({f"{a} against {b}": {lang: d.word("cheaper", "costlier", "within noise") for lang, d in ds.items()}
              for (a, b), ds in newer.items()})

# %% [hide-input]
last, mistral = "GPT-4o (o200k)", "Mistral (Tekken)"  # the newest OpenAI vocabulary, and Mistral's
worst = {label: table[label].idxmax() for label in tokenizers}
spread = costs[costs["tokenizer"] == last].groupby("language")["ratio"].agg(["min", "max"])
wide = (spread["max"] - spread["min"]).idxmax()
cheap = {label: int((table[label] <= 1.5).sum()) for label in tokenizers}  # languages at most 1.5× English
display(Markdown(
    "\n".join(f"* **{label}**: the most expensive language is {worst[label]}, at {table.loc[worst[label], label]:.2f}× "
              f"English; {cheap[label]} of the {len(table)} languages (English included) "
              f"{'costs' if cheap[label] == 1 else 'cost'} at most 1.5×." for label in tokenizers)
    + "\n\nBy more than the choice of articles could move it, each newer OpenAI vocabulary "
    + " and ".join(f"lowers the ratio for {sum(d.direction == 'lower' for d in ds.values())} of the {len(ds)} other "
                   f"languages ({a} against {b})" for (a, b), ds in list(newer.items())[:2])
    + f", but it does not even them out. Article by article the "
      f"ratio moves too: with {last}, {wide}'s articles range from {spread.loc[wide, 'min']:.2f}× to "
      f"{spread.loc[wide, 'max']:.2f}×, so a single number hides how much one text can differ from another."))

# %% [hide-input]
ids = {label: max(tok.vocab) + 1 for label, tok in tokenizers.items()}
others = table.index.drop("English")
vs_o200k, vs_cl = newer[mistral, last], newer[mistral, "GPT-4 (cl100k)"]
below = [lang for lang, d in vs_o200k.items() if d.direction == "lower"]
above = [lang for lang, d in vs_o200k.items() if d.direction == "higher"]
level = [lang for lang, d in vs_o200k.items() if not d.clear]
gap = (table[mistral] / table[last]).idxmax()  # where Tekken's ratio is furthest above o200k's
not_below_cl = [lang for lang, d in vs_cl.items() if d.direction != "lower"]
tokens = costs.groupby(["tokenizer", "language"])["tokens"].sum()  # all 30 articles, not ratios
counted = {lang: compare([(n, 1) for n, _ in article_units(mistral, lang)], [(n, 1) for n, _ in article_units(last, lang)],
                         unit="tokens per article", words=("fewer", "more")) for lang in others}
fewer = [lang for lang, d in counted.items() if d.direction == "lower"]
display(Markdown(
    f"Does size alone place another company's vocabulary on that line? Tekken has {ids[mistral]:,} ids, between "
    f"cl100k's {ids['GPT-4 (cl100k)']:,} and o200k's {ids[last]:,}. Relative to English, against o200k it is "
    + ", ".join(f"{label} for {len(names)} of the {len(others)} other languages" + (f" ({', '.join(names)})" if names
                                                                                     and len(names) < 6 else "")
                for label, names in (("clearly cheaper", below), ("clearly costlier", above), ("within noise", level))
                if names)
    + f"; its largest gap is on {gap}, {table.loc[gap, mistral]:.2f}× English against o200k's "
      f"{table.loc[gap, last]:.2f}× ({vs_o200k[gap].verdict}). "
    + (f"Next to the smaller cl100k it is clearly cheaper for {len(others) - len(not_below_cl)} of the {len(others)}"
       if len(not_below_cl) < len(others) else "Next to the smaller cl100k it is clearly cheaper for none of them")
    + (f" (not for {', '.join(not_below_cl)})." if not_below_cl else ".")
    + f" A ratio is not a count: Tekken needs {tokens[mistral, 'English']:,} tokens for the English articles and "
      f"o200k {tokens[last, 'English']:,}, so counted in tokens "
    + (f"Tekken needs clearly fewer than o200k for {len(fewer)} languages ({', '.join(fewer)})." if fewer else
       "Tekken needs clearly fewer than o200k for none of them.")))

# %% [markdown]
# ## 4. Separating the script from the vocabulary
#
# Part of a ratio is UTF-8 (section 2) and part is the vocabulary. Dividing a language's bytes by
# its tokens gives how many bytes one token covers: a vocabulary that learned a script well covers
# several bytes per token, one that barely saw it falls back towards single bytes. The *vocabulary
# factor* below is the token ratio divided by the byte ratio: above 1, the vocabulary serves this
# language worse than English even after its longer UTF-8 is accounted for.

# %%
per_language = costs.groupby(["tokenizer", "language"], sort=False)["tokens"].sum().unstack("tokenizer")
bytes_per_token = per_language.rdiv(sizes["UTF-8 bytes"], axis=0)[list(tokenizers)]
factor = table.div(sizes["bytes relative to English"], axis=0)
pd.concat({"bytes per token": bytes_per_token.loc[order], "vocabulary factor": factor.loc[order]}, axis=1).round(2)

# %% [hide-input]
cl = "GPT-4 (cl100k)"
low = bytes_per_token[cl].idxmin()
display(Markdown(
    f"With cl100k, English tokens cover {bytes_per_token.loc['English', cl]:.2f} bytes each and {low}'s only "
    f"{bytes_per_token.loc[low, cl]:.2f}: close to one UTF-8 byte per token, the fallback of a vocabulary that "
    f"learned few of its pieces. Its vocabulary factor, {factor.loc[low, cl]:.2f}, is the part of its "
    f"{table.loc[low, cl]:.2f}× that the vocabulary adds to the script's own UTF-8 cost."))

# %% [hide-input]
low_t = bytes_per_token[mistral].idxmin()
under_one = list(factor.index[factor[mistral] < 1])
display(Markdown(
    f"Tekken's tokens are shortest on {low_t}{' too' if low_t == low else ''}: "
    f"{bytes_per_token.loc[low_t, mistral]:.2f} bytes each and a vocabulary factor of "
    f"{factor.loc[low_t, mistral]:.2f}, where o200k's tokens cover {bytes_per_token.loc[low_t, last]:.2f} bytes."
    + (f" A factor below 1, as for {', '.join(under_one)} with Tekken, means each token covers more bytes than an "
       "English token does: the vocabulary more than makes up for the script's longer UTF-8." if under_one else "")))

# %% [markdown]
# ## 5. Your own tokenizer: the training mix decides
#
# The OpenAI and Mistral tokenizers were trained on mixes we cannot see. With our own we can choose. Each mix
# below trains a byte-level tokenizer of the same size (`OWN_VOCAB_SIZE`) on the first articles
# (`TRAIN_ARTICLES`) and is measured on the last ones (`HELDOUT_ARTICLES`), which it never saw:
# **English only**, **balanced** (every language once) and **English-heavy** (English's articles
# once for every other language, and every other language once: as many copies of English as of
# all the other languages together). How much of each mix is English
# depends on the unit, and a byte-level tokenizer learns from bytes:

# %%
print("vocabulary size of every mix's tokenizer:", OWN_VOCAB_SIZE, "| training articles:",
      f"{TRAIN_ARTICLES[0]}-{TRAIN_ARTICLES[-1]}, measured on {HELDOUT_ARTICLES[0]}-{HELDOUT_ARTICLES[-1]}")
share_rows = {}
for name, mix in MIXES.items():
    docs, english = mix_text(mix), mix_text({"eng": mix.get("eng", 0)})
    chars = [sum(len(doc) for doc in part) for part in (docs, english)]
    utf8 = [sum(len(doc.encode("utf-8")) for doc in part) for part in (docs, english)]
    share_rows[name] = {"training characters": chars[0], "training bytes": utf8[0],
                        "English's share of the characters": chars[1] / chars[0],
                        "English's share of the bytes": utf8[1] / utf8[0]}
mix_share = pd.DataFrame(share_rows).T.astype({"training characters": int, "training bytes": int})
mix_share.round(2)

# %% [hide-input]
heavy_chars, heavy_bytes = mix_share.loc["English-heavy", ["English's share of the characters",
                                                            "English's share of the bytes"]]
display(Markdown(
    f"So in the English-heavy mix English is {heavy_chars:.0%} of the characters but {heavy_bytes:.0%} of the bytes "
    "the tokenizer trains on: the other scripts need more bytes for the same articles (section 2)."))

# %% [markdown]
# Each mix trains a tokenizer and each is measured on the held-out articles, relative to English:

# %%
own = {f"mix: {name}": train_on_mix(mix) for name, mix in MIXES.items()}
own_costs = relative_costs(own, articles=HELDOUT_ARTICLES)
own_table = summary(own_costs)["total ratio"].unstack("tokenizer")[list(own)]
own_table.loc[own_table["mix: English only"].sort_values().index].round(2)

# %% [hide-input]
english_only, balanced = own_table["mix: English only"], own_table["mix: balanced"]
moved, runner_up = (english_only / balanced).sort_values(ascending=False).index[:2]


def move(language: str, drawn: list[int]) -> float:
    """How many times a language's ratio to English falls from the English-only to the balanced tokenizer."""
    def ratio(mix: str) -> float:
        rows = own_costs[(own_costs["tokenizer"] == mix) & (own_costs["language"] == language)]
        return sum(rows["tokens"].iloc[k] for k in drawn) / sum(rows["english_tokens"].iloc[k] for k in drawn)
    return ratio("mix: English only") / ratio("mix: balanced")


lead = bootstrap(len(HELDOUT_ARTICLES), lambda drawn: move(moved, drawn) - move(runner_up, drawn))
english_rows = {mix: own_costs[(own_costs["tokenizer"] == mix) & (own_costs["code"] == "eng")]
                for mix in ("mix: balanced", "mix: English only")}
english_tokens = {mix: int(rows["tokens"].sum()) for mix, rows in english_rows.items()}
english_cost = compare([(t, 1) for t in english_rows["mix: balanced"]["tokens"]],  # tokens per English article
                       [(t, 1) for t in english_rows["mix: English only"]["tokens"]],
                       unit="", words=("fewer tokens", "more tokens"), relative=True)
display(Markdown(
    f"Trained on English only, the costliest language needs {english_only.max():.2f}× English's tokens; trained "
    f"on the balanced mix, {balanced.max():.2f}×. {moved} moves "
    + (f"most, by more than the choice of articles could change (its fall against {runner_up}'s: {lead})"
       if lead.low > 0 else f"as much as {runner_up}, within noise (its fall against {runner_up}'s: {lead})")
    + f": from {english_only[moved]:.2f}× to {balanced[moved]:.2f}×. The English-heavy mix lands in between "
    f"({own_table['mix: English-heavy'].max():.2f}× at most). English "
    + english_cost.word("gains from balance", "pays for balance", "neither clearly pays nor gains from balance")
    + f": its own held-out articles take {english_tokens['mix: balanced']:,} tokens with the balanced tokenizer "
    f"against {english_tokens['mix: English only']:,} with the English-only one ({english_cost}): a vocabulary of "
    "fixed size shared between languages gives each a part of it."))

# %% [markdown]
# These tokenizers are tiny next to the ones of section 3, and the size is forced by the text: 20
# articles per language is all the aligned training text there is. How far could each mix train,
# merging only pairs seen at least `OWN_MIN_FREQUENCY` times, and how do the small tokenizers do on
# English next to cl100k?

# %%
reach = {name: len(train(mix_text(mix), 256 + 10_000, min_frequency=OWN_MIN_FREQUENCY).merges)
         for name, mix in MIXES.items()}
print("merges each mix could learn at most:", reach, "| every mix learns", OWN_VOCAB_SIZE - 256)
english_heldout = [udhr["eng"][k] for k in HELDOUT_ARTICLES]
english_tokens_by = {label: sum(len(tok.encode_ordinary(t)) for t in english_heldout)
                     for label, tok in [*own.items(), ("cl100k", tokenizers["GPT-4 (cl100k)"])]}
print("English held-out articles, tokens:", english_tokens_by)

# %% [hide-input]
cl_rows = max(tokenizers["GPT-4 (cl100k)"].vocab) + 1
display(Markdown(
    f"English alone runs out of pairs seen at least {OWN_MIN_FREQUENCY} times after {reach['English only']:,} merges, so "
    f"{OWN_VOCAB_SIZE - 256:,} merges is about the most that every mix can learn alike; cl100k has {cl_rows:,} ids, "
    f"{cl_rows / OWN_VOCAB_SIZE:.0f}× as many, learned from text we cannot see. On English's held-out articles the "
    f"English-only tokenizer needs {english_tokens_by['mix: English only']:,} tokens and cl100k "
    f"{english_tokens_by['cl100k']:,}. So compare the mixes with each other: they show how the mix moves each "
    "language's cost at one small size. The cl100k dashes in the widget below are a reference from a vocabulary "
    "of another size and another training text, not a point these tokenizers could reach."))

# %% [markdown]
# Choose a mix and the bars show each language's held-out cost for a tokenizer trained on it; the
# dashes mark cl100k on the same articles. The numbers are in `explorer.ratios`.

# %%
explorer = TokenTaxExplorer(reference=tokenizers["GPT-4 (cl100k)"], reference_label="cl100k")
display(explorer.box)

# %% [markdown]
# The widget from code: choosing the balanced mix gives the numbers of the table above.

# %%
explorer.mix.value = "balanced"
assert all(abs(explorer.ratios[lang] - balanced[lang]) < 1e-12 for lang in balanced.index)
print("balanced mix in the widget == the table's column: True")

# %% [markdown]
# ## 6. What it means — measured, and argued
#
# **Measured here.** A service that charges per token charges each language its ratio: at the same
# price per token, content in a language at 3× costs three times as much. A context window is
# counted in tokens too, so the same window holds a third of the text:

# %% [hide-input]
WINDOW = 8192
english_tokens = costs[(costs["tokenizer"] == "GPT-4 (cl100k)") & (costs["code"] == "eng")]["tokens"].sum()
fit = {lang: WINDOW / (english_tokens * table.loc[lang, "GPT-4 (cl100k)"]) * 30 for lang in order}
display(Markdown(
    f"With cl100k, all 30 articles take {english_tokens:,} tokens in English. A window of {WINDOW:,} tokens holds "
    f"about {fit['English']:.0f} articles' worth of English text (more than the whole declaration), and about "
    f"{fit[order[-1]]:.0f} of {order[-1]}."))

# %% [markdown]
# **Argued, not measured here.** A model also *learns* per token: a language whose words are cut into
# many short pieces gives the model longer sequences for the same meaning, and fewer whole-word
# tokens to attach meaning to. Studies of commercial models report that languages with higher token
# ratios are served worse and cost more (Petrov et al., 2023; Ahia et al., 2023 — see
# [docs/references.md](../docs/references.md)); how much of that is the tokenizer and how much the
# amount of training text in each language is hard to separate, and this chapter does not try.
# [Chapter 16, section 7](16_what_a_tokenizer_does_to_a_model.ipynb) measures the tokenizer's part with
# everything else held fixed (one n-gram model, the same balanced training articles), in bits per byte
# rather than tokens; how the gap divides between tokenizer and training data in real models stays argued.
#
# ## 7. What chapters 07 and 10 can and cannot show
#
# Chapters 07 and 10 compared short texts written separately in each language (weather, a market,
# a journey). They show how each script's *characters* are cut and how a tokenizer treats text it
# was or was not trained on. They cannot show what the same content costs: their texts say different
# things at different lengths. For that, use this chapter's aligned articles.
#
# ## Recap
#
# * Compare languages on **the same content**: an aligned text, article by article.
# * UTF-8 already charges scripts differently (1 to 3 bytes a character); the vocabulary adds its own
#   factor on top, large for scripts it saw little of.
# * Newer, bigger OpenAI vocabularies lower most ratios but do not even them out; Mistral's Tekken is
#   cheaper than o200k for some languages and costlier for others. One text can differ from another,
#   so look at the spread.
# * The training mix decides who pays: a balanced mix shrinks the worst ratios, and English's own
#   text then takes more tokens than with a tokenizer trained on English alone (section 5).
# * A tokenizer trained on 20 articles per language is small; compare such tokenizers with each
#   other, not with cl100k.
#
# ## Exercises

# %%
from bpe_course.exercises.ch13 import check_mix, check_vocabulary_factor

# %% [markdown]
# **13.1** Section 4 split a language's cost into what UTF-8 charges and what the vocabulary adds.
# Write `vocabulary_factor(tokenizer, language)`: the language's tokens over all 30 articles
# (`ARTICLES`, each encoded with `encode_ordinary`) divided by English's, divided by the same ratio
# of UTF-8 bytes. The checker runs it on several languages with GPT-2 and with cl100k.

# %%
def vocabulary_factor(tokenizer, language: str) -> float:
    return 1.0  # replace: count tokens and bytes, for the language and for English


check_vocabulary_factor(vocabulary_factor)

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def vocabulary_factor(tokenizer, language):
#     def tokens(code):
#         return sum(len(tokenizer.encode_ordinary(udhr[code][k])) for k in ARTICLES)
#
#     def utf8(code):
#         return sum(len(udhr[code][k].encode("utf-8")) for k in ARTICLES)
#
#     return (tokens(language) / tokens("eng")) / (utf8(language) / utf8("eng"))
# ```
# </details>
#
# **13.2** With the balanced mix of section 5, one language still costs more than all the others.
# Find a mix — `{language code: copies of its training articles}`, like the values of `MIXES` — whose
# costliest language, on the held-out articles, costs less than the balanced mix's costliest. The
# checker trains a tokenizer of the same size on your mix and says where you landed.

# %%
my_mix = dict(MIXES["balanced"])  # change the numbers of copies
check_mix(my_mix)

# %% [markdown]
# <details><summary>Solution</summary>
#
# Give the costliest languages more copies, for example
# `{**MIXES["balanced"], "tam": 2, "ell_monotonic": 2, "hin": 2}`. More of a script's text gives its
# byte pairs higher counts, so more of the fixed number of merges go to it — and fewer to the other
# languages, English included: compare the ratios with the balanced column.
# </details>
#
# [← 12 Train your own](12_train_your_own.ipynb) · [14 When tokens bite →](14_when_tokens_bite.ipynb)
