"""What tests in several folders build the same way: a truncated tiktoken, and the size of chapter 16's small sweep.

The fixtures made from them (``own``, ``sweep_texts``, ``small_sweep``) are in ``conftest.py``.
"""

from __future__ import annotations

import tiktoken

SWEEP_MERGES = 600  # the small sweep's largest tokenizer: 256 bytes and this many merges


def tiktoken_first(ranks: dict[bytes, int], k: int, pattern: str) -> tiktoken.Encoding:
    """tiktoken with only the 256 bytes and the first k merges: the ranks below 256 + k."""
    kept = {token: rank for token, rank in ranks.items() if rank < 256 + k}
    assert len(kept) == 256 + k
    return tiktoken.Encoding(name=f"first-{k}", pat_str=pattern, mergeable_ranks=kept, special_tokens={})
