"""Optional: entropy patching in the manner of the Byte Latent Transformer (Pagnoni et al., 2025), with an n-gram.

    ../../.venv/bin/python entropy_patching.py > results/entropy_patching.txt

A byte-level Kneser-Ney model (chapter 16's, on bytes) gives the entropy of the next byte at every
position of held-out text. A patch starts where that entropy exceeds a global threshold (BLT's
"global constraint"); the threshold is set so patches are as many as BPE tokens at a given vocabulary.
Measured: how many patch boundaries are BPE token boundaries and word onsets (a space before a word, or its first letter), and what share of the byte
model's bits fall on the first byte of a patch versus of a BPE token.
"""
import math
import time

import numpy as np

from bpe_course import Tokenizer, corpus
from bpe_course.algorithms.lm import KneserNey
from bpe_course.train import train

ORDER = 5
book_train, heldout = corpus.train_heldout("don_quixote")
train_text, text = book_train[:1_000_000], heldout[:20_000]
t0 = time.perf_counter()
model = KneserNey(list(train_text.encode()), ORDER, 256)
data = list(text.encode())
entropy, bits = [], []
for i, b in enumerate(data):
    p = model.distribution(data[max(0, i - ORDER + 1):i])
    entropy.append(-sum(x * math.log2(x) for x in p if x > 0))
    bits.append(-math.log2(p[b]))
entropy, bits = np.array(entropy), np.array(bits)
print(f"byte model order {ORDER}: {bits.mean():.4f} bits per byte on {len(data):,} held-out bytes "
      f"({time.perf_counter() - t0:.1f} s for the entropies)")
run = train(train_text, 256 + 8192, min_frequency=5)
tok = Tokenizer(run.vocab, run.merges)
# a word's onset, either way of cutting it: its space (where GPT-2's pre-tokens start) or its first letter
word_starts = ({i for i in range(1, len(data)) if data[i - 1] in b" \n" and data[i] not in b" \n"}
               | {i for i in range(len(data) - 1) if data[i] == 32 and data[i + 1] not in b" \n"})
for k in (256, 768, 1792, len(tok.merges)):
    ids = tok.truncated(k).encode_ordinary(text)
    starts, at = [], 0
    for i in ids:
        starts.append(at)
        at += len(tok.vocab[i])
    bpe = set(starts)
    threshold = np.sort(entropy)[::-1][len(ids) - 1]  # as many patch starts as tokens (position 0 always starts)
    patch = {0} | {i for i in range(1, len(data)) if entropy[i] >= threshold}
    share_patch = bits[sorted(patch)].sum() / bits.sum()
    share_bpe = bits[sorted(bpe)].sum() / bits.sum()
    print(f"vocab {256 + k:5}: {len(ids):,} tokens = {len(ids) / len(data):.3f} per byte; patches {len(patch):,}; "
          f"patch starts that are token starts {len(patch & bpe) / len(patch):.1%}, word onsets "
          f"{len(patch & word_starts) / len(patch):.1%} (token starts that are word onsets "
          f"{len(bpe & word_starts) / len(bpe):.1%}); bits on first bytes: patches {share_patch:.1%}, tokens {share_bpe:.1%}")
