"""bpe_course: byte-pair encoding from characters to GPT-2, GPT-4 and GPT-4o, exact and fast.

One data model runs through the package: ``vocab: dict[int, bytes]`` and
``merges: list[tuple[bytes, bytes]]`` in creation order, plus special tokens.

Six floors, imports pointing down only (CONTRIBUTING.md says what each room is for):

6. course: cli, cli_output, __main__, lab, widgets, exercises, wordbpe, viz, interop
5. ready-made and at scale: pretrained, corpus, download, encode_files, scale, sentencepiece_bpe, mistral
4. engine: tokenizer, train, pretrained_cache, variants
3. formats: formats
2. fast: fast
1. basics: bpe, pairs, pretokenize, unicode_classes, regex_syntax, unicode_tables, bytelevel, lm, files, resources, errors

>>> import bpe_course
>>> vocab, merges = bpe_course.train_bpe("low low low lower lowest", 260)
>>> tok = bpe_course.Tokenizer(vocab, merges)
>>> tok.decode(tok.encode("lowest")) == "lowest"
True
"""

from importlib import import_module

from .pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, pretokenize, split_specials

# subtle: the names below are imported on first use (PEP 562), so that a command such as
# ``bpe-course encode --tokenizer cl100k 'Hello world'`` does not import the trainer, the corpora's
# downloader or the formats it never uses: start-up is most of such a command's time. (``pretokenize``
# is imported above: it is also the name of its module, which would otherwise shadow the function.)
_WHERE = {
    "merges_from_ranks": "bpe", "bytes_to_unicode": "bytelevel", "read_text_file": "corpus",
    "CorpusError": "errors", "HashMismatchError": "errors", "TokenizerFileError": "errors",
    "cl100k": "pretrained", "gpt2": "pretrained", "o200k": "pretrained",
    "Tokenizer": "tokenizer", "count_pretokens": "train", "train_bpe": "train",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # the next use is a plain look-up
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__version__ = "0.1.0"

__all__ = [
    "GPT2_PATTERN", "GPT4_PATTERN", "GPT4O_PATTERN", "CorpusError", "HashMismatchError", "Tokenizer",
    "TokenizerFileError", "bytes_to_unicode", "cl100k", "count_pretokens", "gpt2", "merges_from_ranks", "o200k", "pretokenize",
    "read_text_file", "split_specials", "train_bpe",
]
