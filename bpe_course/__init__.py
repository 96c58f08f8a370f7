"""bpe_course: byte-pair encoding from characters to GPT-2, GPT-4 and GPT-4o, exact and fast.

One data model: ``vocab: dict[int, bytes]``, ``merges: list[tuple[bytes, bytes]]`` in creation order,
special tokens ``dict[str, int]``. This module is the package's face (what chapters import; the
rooms and floors behind it are in CONTRIBUTING.md).
"""

from .compare import Seeds, bootstrap, compare, how_many, paragraph_bytes, units_of
from .pretokenize import GPT2_PATTERN, GPT4_PATTERN, GPT4O_PATTERN, pretokenize, resolve_pattern, safe_cut, split_specials
from .resources import __version__, lazy_face
from .train import count_pretokens, train, train_bpe, train_counts

# subtle: the other names load on first use (PEP 562, as the wings' faces), so that a command such as
# ``bpe-course encode --tokenizer cl100k 'Hello world'`` does not import the chat templates, the corpora's
# downloader, the plots or the file formats it never uses: start-up is most of such a command's time.
# The names imported above stay eager: ``compare``, ``pretokenize`` and ``train`` are functions named as
# their modules, and any ``import bpe_course.train`` binds the module to the package's name ``train``; a
# lazy name would then never be asked for, so each function is bound here, after its module, and stays.
_FACE = {
    "bpe": ["merge_by_rank", "merge_bytes", "merges_from_ranks"],
    "bytelevel": ["bytes_to_unicode", "str_to_token", "token_to_str"],
    "chat": ["chat_ids", "chat_prompt"],
    "corpus": ["read_text_file"],
    "errors": ["CorpusError", "HashMismatchError", "MissingPackageError", "TokenizerFileError"],
    "fast.merge": ["QUEUE_FLOOR"],
    "fast.parallel": ["PARALLEL_MIN_CHARS"],
    "files": ["sha256_file"],
    "interop": ["tiktoken_encoding"],
    "measures": ["bytes_per_token", "n_vocab", "tokens_per_word"],
    "pretrained": ["NAMED", "cl100k", "gpt2", "llama3", "llama4", "mistral_v1", "mistral_v3", "named_file", "o200k",
                   "tekken", "verify_sha256"],
    "scale": ["count_with_dask"],
    "tokenizer": ["CACHE_LIMIT", "Tokenizer"],
    "viz": ["chips_html", "encoded_chips_html", "figure_png", "token_label"],
}
_, __getattr__, __dir__ = lazy_face(__name__, _FACE, modules=("chat", "corpus", "formats", "measures", "pretrained"))

__all__ = [  # held still by tests/project/test_face.py
    "CACHE_LIMIT", "GPT2_PATTERN", "GPT4_PATTERN", "GPT4O_PATTERN", "NAMED", "PARALLEL_MIN_CHARS", "QUEUE_FLOOR",
    "CorpusError", "HashMismatchError", "MissingPackageError", "Tokenizer", "TokenizerFileError", "bytes_per_token",
    "bytes_to_unicode", "chat", "chat_ids", "chat_prompt", "chips_html", "cl100k", "corpus", "count_pretokens",
    "count_with_dask", "encoded_chips_html", "figure_png", "formats", "gpt2", "llama3", "llama4", "measures",
    "merge_by_rank", "merge_bytes", "merges_from_ranks", "mistral_v1", "mistral_v3", "n_vocab", "named_file", "o200k",
    "pretokenize", "pretrained", "read_text_file", "resolve_pattern", "safe_cut", "sha256_file", "split_specials",
    "str_to_token", "tekken", "tiktoken_encoding", "token_label", "token_to_str", "tokens_per_word", "train",
    "train_bpe", "train_counts", "verify_sha256",
    # the difference yardstick (compare.py): is one setting ahead of another, or within noise?
    "Seeds", "bootstrap", "compare", "how_many", "paragraph_bytes", "units_of",
]
