"""bpe_course: byte-pair encoding from characters to GPT-2, GPT-4 and GPT-4o, exact and fast.

One data model: ``vocab: dict[int, bytes]``, ``merges: list[tuple[bytes, bytes]]`` in creation order,
special tokens ``dict[str, int]``. This module is the package's face (what chapters import; the
rooms and floors behind it are in CONTRIBUTING.md).
"""

from . import chat, corpus, formats, measures, pretrained
from .bpe import merge_by_rank, merge_bytes, merges_from_ranks
from .bytelevel import bytes_to_unicode, str_to_token, token_to_str
from .chat import chat_ids, chat_prompt
from .compare import Seeds, bootstrap, compare, how_many, paragraph_bytes, units_of
from .corpus import read_text_file
from .errors import CorpusError, HashMismatchError, MissingPackageError, TokenizerFileError
from .fast.merge import QUEUE_FLOOR
from .fast.parallel import PARALLEL_MIN_CHARS
from .files import sha256_file
from .interop import tiktoken_encoding
from .measures import bytes_per_token, n_vocab, tokens_per_word
from .pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, pretokenize, resolve_pattern, safe_cut, split_specials
from .pretrained import NAMED, cl100k, gpt2, mistral_v1, mistral_v3, named_file, o200k, tekken, verify_sha256
from .resources import __version__
from .scale import count_with_dask
from .tokenizer import CACHE_LIMIT, Tokenizer
from .train import count_pretokens, train, train_bpe, train_counts
from .viz import chips_html, encoded_chips_html, figure_png, token_label

__all__ = [  # held still by tests/project/test_face.py
    "CACHE_LIMIT", "GPT2_PATTERN", "GPT4_PATTERN", "GPT4O_PATTERN", "NAMED", "PARALLEL_MIN_CHARS", "QUEUE_FLOOR",
    "CorpusError", "HashMismatchError", "MissingPackageError", "Tokenizer", "TokenizerFileError", "bytes_per_token",
    "bytes_to_unicode", "chat", "chat_ids", "chat_prompt", "chips_html", "cl100k", "corpus", "count_pretokens",
    "count_with_dask", "encoded_chips_html", "figure_png", "formats", "gpt2", "measures", "merge_by_rank",
    "merge_bytes", "merges_from_ranks", "mistral_v1", "mistral_v3", "n_vocab", "named_file", "o200k", "pretokenize",
    "pretrained", "read_text_file", "resolve_pattern", "safe_cut", "sha256_file", "split_specials", "str_to_token",
    "tekken", "tiktoken_encoding", "token_label", "token_to_str", "tokens_per_word", "train", "train_bpe",
    "train_counts", "verify_sha256",
    # the difference yardstick (compare.py): is one setting ahead of another, or within noise?
    "Seeds", "bootstrap", "compare", "how_many", "paragraph_bytes", "units_of",
]
