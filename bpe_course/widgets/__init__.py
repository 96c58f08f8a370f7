"""ipywidgets for the chapters: one module per topic, each also drivable from plain Python.

A widget only draws: what it shows is measured by :mod:`bpe_course.measures` (tokens per word,
bytes per token, ``n_vocab``, ``vocab_entries``: one meaning per name) and computed by the engine
or by :mod:`bpe_course.algorithms`. Nothing below the course imports a widget, and no exercise
checker does either.

The room's face: every widget is importable from here, loaded on first use (the chips and figures
they draw with are ``bpe_course``'s); ``tests/project/test_face.py`` holds :data:`__all__` still.
"""

from __future__ import annotations

from ..resources import lazy_face

_FACE = {
    "merges": ["PairExplorer", "MergeSlider"],
    "encoding": ["MergeStepper"],
    "vocab_size": ["VocabSizeExplorer", "curve", "merge_counts", "plot_vocab_size", "vocab_size_data"],
    "merge_trees": ["MergeTreeExplorer", "index_merges", "merge_tree", "merge_tree_html", "merge_tree_svg"],
    "playground": ["Playground"],
    "merge_count": ["MergeCountSlider", "course_tokenizers", "truncated_numbers"],
    "token_tax": ["TokenTaxExplorer"],
    "dropout": ["DropoutExplorer"],
    "model_quality": ["ModelQualityExplorer", "plot_model_quality"],
    "superbpe": ["SuperBPEExplorer"],
    "chat_prompt": ["ChatPromptEditor"],
}
__all__, __getattr__, __dir__ = lazy_face(__name__, _FACE)
