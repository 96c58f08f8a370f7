"""Mistral's Tekken file (``tekken_240911.json``) as plain data: ranks, the regex, special tokens.

A Tekken file is JSON: ``config`` (``pattern``, ``default_vocab_size``, ``default_num_special_tokens``),
``vocab`` (one entry per rank, ``token_bytes`` in base64) and, in newer files, ``special_tokens``.
Its ranks start at 0 as in a ``.tiktoken`` file; a token's id is its rank plus the number of
reserved special ids (1,000 in ``tekken_240911.json``), which come first.

>>> import json, base64, tempfile, pathlib
>>> vocab = [{"rank": r, "token_bytes": base64.b64encode(bytes([r])).decode()} for r in range(256)]
>>> config = {"pattern": r"\\S+|\\s+", "default_vocab_size": 256 + 3, "default_num_special_tokens": 3}
>>> specials = [{"rank": i, "token_str": s} for i, s in enumerate(["<unk>", "<s>", "</s>"])]
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = pathlib.Path(tmp) / "tekken.json"
...     _ = path.write_text(json.dumps({"config": config, "vocab": vocab, "special_tokens": specials}))
...     ranks, pattern, specials = read_tekken(path)
>>> len(ranks), pattern, specials
(256, '\\\\S+|\\\\s+', {'<unk>': 0, '<s>': 1, '</s>': 2})
"""

from __future__ import annotations

import base64
import json
import os

from ..errors import TokenizerFileError

# A Tekken file of version v3 without a "special_tokens" list (tekken_240911.json) reserves its first
# ids for these, in this order, and names the rest <SPECIAL_20>, <SPECIAL_21>... (mistral-common's
# Tekkenizer.DEPRECATED_SPECIAL_TOKENS and SPECIAL_TOKEN_TEMPLATE).
TEKKEN_SPECIALS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                   "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                   "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]


def read_tekken(path: str | os.PathLike) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """A Tekken file's ranks (the ``default_vocab_size`` minus the reserved ids), regex and special tokens."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        config = data["config"]
        n_special, n_vocab, pattern = (config["default_num_special_tokens"], config["default_vocab_size"],
                                       config["pattern"])
        entries = data["vocab"][:n_vocab - n_special]
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TokenizerFileError(f"{path}: not a Tekken JSON file ({e})") from None
    except KeyError as e:
        raise TokenizerFileError(f"{path}: no key {e} (a Tekken file has config.pattern, config.default_vocab_size, "
                                 "config.default_num_special_tokens and vocab)") from None
    ranks: dict[bytes, int] = {}
    for position, entry in enumerate(entries):
        if entry.get("rank") != position:
            raise TokenizerFileError(f"{path}: vocab[{position}] has rank {entry.get('rank')!r}, expected {position}")
        ranks[base64.b64decode(entry["token_bytes"])] = position
    if len(ranks) != len(entries):
        raise TokenizerFileError(f"{path}: the same token bytes appear twice among the first {len(entries)} ranks")
    if "special_tokens" in data:
        names = [t["token_str"] for t in sorted(data["special_tokens"], key=lambda t: t["rank"])]
    else:
        names = list(TEKKEN_SPECIALS)
    if len(names) > n_special:
        raise TokenizerFileError(f"{path}: {len(names)} special tokens but only {n_special} reserved ids "
                                 "(config.default_num_special_tokens)")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), n_special)]
    return ranks, pattern, {name: i for i, name in enumerate(names)}
