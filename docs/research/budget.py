"""What chapter-sized settings cost: one run of each computation a chapter 20 / 21 would make (wall clock)."""
import time

import numpy as np

from bpe_course import Tokenizer, cl100k, corpus, gpt2, o200k
from bpe_course.algorithms.lattice import marginal_bits
from bpe_course.algorithms.mixture import dirichlet_shares, infer_mixture, text_trajectory, weighted_counts
from bpe_course.algorithms.lm import fit_orders
from bpe_course import tekken
from bpe_course.train import count_pretokens, train, train_counts

import categories as cat
from mixture_apply import documents

clock = {}


def timed(name, f):
    t = time.perf_counter()
    out = f()
    clock[name] = time.perf_counter() - t
    print(f"{name}: {clock[name]:.1f} s", flush=True)
    return out


# chapter 20: one hidden mix of 5 languages, T = 300, whole B halves
rng = np.random.default_rng(7)
names = [str(x) for x in rng.choice(cat.LANGUAGES, 5, replace=False)]
shares = dirichlet_shares(names, rng)
merges = timed("ch20 train on a hidden mix", lambda: train_counts(weighted_counts(
    {k: dict(count_pretokens(list(cat.halves(k)[0]))) for k in names}, shares), 256 + 300).merges)
trajs = timed("ch20 trajectories (5 languages)", lambda: {k: text_trajectory(list(cat.halves(k)[1]), merges) for k in names})
found = timed("ch20 infer T=300", lambda: infer_mixture(trajs, merges))
print("  MAE", np.mean([abs(found.weights[k] - shares[k]) for k in names]))
# chapter 20: four tokenizers, T = 100, 100 KB caps
docs = {k: cat.sample(documents(k), 100_000) for k in cat.ALL}
for label, load in (("gpt2", gpt2), ("cl100k", cl100k), ("o200k", o200k), ("tekken", tekken)):
    tok = timed(f"ch20 load {label}", load)
    m = tok.merges[:100]
    tr = timed(f"ch20 trajectories {label} (22 categories, 100 KB caps)", lambda: {k: text_trajectory(d, m, tok.pattern) for k, d in docs.items()})
    res = timed(f"ch20 infer {label} T=100", lambda: infer_mixture(tr, m))
    eng = sum(res.weights[k] for k in ("eng", "python_docs", "don_quixote", "les_miserables"))
    print(f"  {label}: code {res.weights['python_code']:.3f}, English {eng:.3f}, other {1 - eng - res.weights['python_code']:.3f}")
# chapter 21: chapter 16's tokenizer, three sizes, order 3, 20 KB held out
book_train, heldout = corpus.train_heldout("don_quixote")
run = timed("ch21 train ch16's tokenizer", lambda: train(book_train[:1_000_000], 256 + 8192, min_frequency=5))
tok = Tokenizer(run.vocab, run.merges)
text = heldout[:20_000]
for k in (256, 1792, len(tok.merges)):
    small = tok.truncated(k)
    models = timed(f"ch21 fit order 3 at {256 + k}", lambda: fit_orders(small.encode_ordinary(book_train[:1_000_000]), [3], len(small.vocab)))
    timed(f"ch21 marginal (20 KB, order 3) at {256 + k}", lambda: marginal_bits(models[3], text, small.vocab))
print("chapter 20 total", round(sum(v for k, v in clock.items() if k.startswith("ch20")), 1), "s; chapter 21 total",
      round(sum(v for k, v in clock.items() if k.startswith("ch21")), 1), "s")
