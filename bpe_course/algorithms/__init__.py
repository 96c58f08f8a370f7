"""The algorithms the chapters build beside the engine: each a small module a learner can read whole.

The rule of this room: an algorithm here is *taught*, not needed. The engine (``tokenizer``,
``train``) encodes and trains without any of them, and never imports this folder; each module here
may read the engine, the formats and the basics, and is checked against a reference outside it
(its paper's own code, a library, or a naive version in the tests). Widgets draw these
algorithms and the exercises check a learner's versions of them; neither lives here.

* ``wordbpe`` -- character-level BPE with ``</w>`` (chapters 1-6);
* ``token_tax`` -- one text in 18 languages: each language's cost relative to English, and
  tokenizers trained on a mix of languages (chapters 13, 16);
* ``dropout`` -- BPE-dropout (chapters 15, 16);
* ``lm`` -- bits per byte (whole, or per held-out unit) and an interpolated Kneser-Ney n-gram model over
  token ids (chapter 16);
* ``model_quality`` -- one tokenizer at several vocabulary sizes, scored by those models (chapter 16);
* ``variants`` -- four BPE variants from 2024-25 papers on one exact trainer (chapter 17);
* ``sentencepiece_bpe`` -- SentencePiece's BPE encoding, rebuilt (chapter 18).

The room's face: every name a chapter uses is importable from here (``from bpe_course.algorithms
import KneserNey``), loaded on first use, so a module may move inside the room without breaking a
learner's copy of a chapter; ``tests/project/test_face.py`` holds :data:`__all__` still.
"""

from __future__ import annotations

from ..resources import lazy_face

_FACE = {
    "wordbpe": ["WordBPE", "SPECIALS", "UNK", "EOW", "STOP_VOCAB_SIZE", "apply_merge", "count_pairs",
                "merge_pair", "word_counts"],
    "token_tax": ["OWN_MIN_FREQUENCY", "OWN_VOCAB_SIZE", "relative_costs", "summary", "train_on_mix"],
    "dropout": ["dropout_merge", "dropout_tokens"],
    "lm": ["KneserNey", "bits_by_unit", "bits_per_byte", "fit_orders", "tokens_by_unit"],
    "model_quality": ["Sweep", "best_rows", "vocab_points"],
    "variants": ["Merges", "Segmenter", "TIE_RULES", "fewest_tokens", "gini", "intersection_over_self", "is_superword",
                 "line_units", "picky_tokens_of", "released_stage2_allows", "superbpe_tokens", "sweep_superbpe",
                 "train_parity", "train_picky", "train_superbpe", "vocab_of", "word_sequences", "words_in"],
    "sentencepiece_bpe": ["SentencePieceBPE", "best_pair", "merge_by_score"],
}
__all__, __getattr__, __dir__ = lazy_face(__name__, _FACE, modules=("wordbpe",))
