"""bpe_course: byte-pair encoding from characters to GPT-2, GPT-4 and GPT-4o, exact and fast.

One data model runs through the package: ``vocab: dict[int, bytes]`` and
``merges: list[tuple[bytes, bytes]]`` in creation order, plus special tokens.

Six floors, imports pointing down only (CONTRIBUTING.md says what each room is for):

6. course: cli, cli_output, __main__, lab, widgets, exercises, wordbpe, viz, interop
5. ready-made and at scale: pretrained, corpus, download, encode_files, scale, sentencepiece_bpe, mistral, algorithms
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

from .bpe import merges_from_ranks
from .bytelevel import bytes_to_unicode
from .corpus import read_text_file
from .errors import CorpusError, HashMismatchError, TokenizerFileError
from .pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, pretokenize, split_specials
from .pretrained import cl100k, gpt2, o200k
from .tokenizer import Tokenizer
from .train import count_pretokens, train_bpe

__version__ = "0.1.0"

__all__ = [
    "GPT2_PATTERN", "GPT4_PATTERN", "GPT4O_PATTERN", "CorpusError", "HashMismatchError", "Tokenizer",
    "TokenizerFileError", "bytes_to_unicode", "cl100k", "count_pretokens", "gpt2", "merges_from_ranks", "o200k", "pretokenize",
    "read_text_file", "split_specials", "train_bpe",
]
