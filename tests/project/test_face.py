"""The package's public face: what a chapter may import, held still.

Rooms move (issue 31 moved a dozen modules); a learner's copy of a chapter must keep working. So a
chapter imports only from the faces below, each face's ``__all__`` is written out here, and a
change to it is a decision made in this file, not an accident of a move. The exercise checkers
(``bpe_course.exercises.chNN``) are a face of their own: one module per chapter, by its number.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FACES = {
    "bpe_course": [
        "CACHE_LIMIT", "GPT2_PATTERN", "GPT4_PATTERN", "GPT4O_PATTERN", "NAMED", "PARALLEL_MIN_CHARS", "QUEUE_FLOOR",
        "CorpusError", "HashMismatchError", "MissingPackageError", "Tokenizer", "TokenizerFileError", "bytes_per_token",
        "bytes_to_unicode", "chat", "chat_ids", "chat_prompt", "chips_html", "cl100k", "corpus", "count_pretokens",
        "count_with_dask", "encoded_chips_html", "figure_png", "formats", "gpt2", "llama3", "llama4", "measures",
        "merge_by_rank",
        "merge_bytes", "merges_from_ranks", "mistral_v1", "mistral_v3", "n_vocab", "named_file", "o200k",
        "pretokenize", "pretrained", "read_text_file", "resolve_pattern", "safe_cut", "sha256_file", "split_specials",
        "str_to_token", "tekken", "tiktoken_encoding", "token_label", "token_to_str", "tokens_per_word", "train",
        "train_bpe", "train_counts", "verify_sha256",
        "Seeds", "bootstrap", "compare", "how_many", "paragraph_bytes", "units_of"],
    "bpe_course.algorithms": [
        "EOW", "KneserNey", "Merges", "OWN_MIN_FREQUENCY", "OWN_VOCAB_SIZE", "SPECIALS", "STOP_VOCAB_SIZE", "Segmenter",
        "SentencePieceBPE", "Sweep", "UNK", "WordBPE", "apply_merge", "best_pair", "best_rows", "bits_by_unit", "bits_per_byte",
        "count_pairs", "dropout_merge", "dropout_tokens", "fewest_tokens", "fit_orders", "gini",
        "intersection_over_self", "is_superword", "line_units", "merge_by_score", "merge_pair", "picky_tokens_of",
        "relative_costs", "summary", "superbpe_tokens", "sweep_superbpe", "train_on_mix", "train_parity",
        "train_picky", "train_superbpe", "vocab_of", "TIE_RULES", "tokens_by_unit", "released_stage2_allows",
        "words_in", "vocab_points", "word_counts", "word_sequences", "wordbpe",
        # chapters 20-21: what a merge list reveals; every segmentation; cheap yardsticks
        "HiddenMix", "Inference", "Trajectory", "dirichlet_shares", "first_bytes", "hidden_mix", "infer_mixture",
        "log10_mse", "mean_absolute_error", "pair_trajectory", "pretoken_bytes", "text_trajectory",
        "train_hidden_mix", "weighted_counts", "marginal_bits", "marginal_by_unit", "marginal_log_probs",
        "segmentations", "token_lattice", "renyi_efficiency", "renyi_entropy", "efficiency_of_units"],
    "bpe_course.widgets": [
        "ChatPromptEditor", "DropoutExplorer", "MergeCountSlider", "MergeSlider", "MergeStepper", "MergeTreeExplorer",
        "MixtureExplorer", "ModelQualityExplorer", "PairExplorer", "Playground", "SuperBPEExplorer", "TokenTaxExplorer",
        "VocabSizeExplorer", "course_tokenizers", "curve", "index_merges", "merge_counts", "merge_tree",
        "merge_tree_html", "merge_tree_svg", "plot_model_quality", "plot_vocab_size", "truncated_numbers",
        "vocab_size_data"],
    "bpe_course.formats": [
        "DEFAULT_FILENAMES", "FORMATS", "FORMAT_NAME", "FORMAT_VERSION", "NO_PATTERN_FOR_TIKTOKEN",
        "SentencePieceModel", "TokenizerData", "detect_format", "from_json", "gpt2_file_texts", "load",
        "read_gpt2_files", "read_model", "read_tekken", "read_tiktoken_ranks", "save", "to_json"],
    "bpe_course.corpus": [
        "ARTICLES", "HELDOUT_ARTICLES", "LANGUAGES", "MIXES", "TRAIN_ARTICLES", "UDHR_LANGUAGES", "download",
        "language_name", "load", "load_text", "misspell", "mix_text", "names", "path", "read_files",
        "read_text_file", "split_text", "train_heldout", "udhr"],
    "bpe_course.pretrained": [
        "NAMED", "File", "Named", "cl100k", "entry", "gpt2", "llama3", "llama4", "load", "loaders", "mistral_v1",
        "mistral_v3", "named", "named_file", "o200k", "packaged_file", "tekken", "verify_sha256"],
    "bpe_course.chat": ["HeaderTemplate", "MistralTemplate", "Part", "TEMPLATES", "Template", "chat_ids", "chat_prompt",
                        "loss_mask", "template"],
    "bpe_course.compare": [
        "Difference", "Interval", "Seeds", "bootstrap", "compare", "estimate", "how_many", "number", "paragraph_bytes",
        "rank_correlation", "ratio_of_sums", "spearman", "spearman_interval", "units_of"],
    "bpe_course.measures": [
        "bytes_per_token", "n_vocab", "ratio", "shown", "text_measures", "tokens_per_word", "vocab_entries", "words"],
}
EXERCISES = re.compile(r"bpe_course\.exercises\.ch\d\d")
MODULES = {"chat", "corpus", "formats", "measures", "pretrained", "wordbpe"}  # faces' names that are modules


@pytest.mark.parametrize("face", FACES)
def test_each_face_is_held_still(face):
    module = importlib.import_module(face)
    assert sorted(module.__all__) == sorted(FACES[face])
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    # a name is what its room defines: the function merge_tree, never a module of the same name, whose
    # import would bind that name in the package. subtle: bpe_course's own face imports its functions
    # named as their modules (compare, pretokenize, train) eagerly, bound after their modules, and they
    # stay bound; a lazy name could not win against a later import, so in the wings the names must differ.
    if face != "bpe_course" and hasattr(module, "__path__"):
        rooms = {p.stem for p in Path(module.__path__[0]).glob("*.py")} | {
            p.name for p in Path(module.__path__[0]).iterdir() if (p / "__init__.py").is_file()}
        assert sorted((rooms & set(module.__all__)) - MODULES) == []
    assert sorted(name for name in module.__all__ if inspect.ismodule(getattr(module, name))) == sorted(
        MODULES & set(module.__all__))


def chapter_imports() -> list[tuple[str, int, str, list[str]]]:
    """``(chapter, line, module, names)`` for every import of the package in the chapters' sources."""
    found = []
    for path in sorted((ROOT / "chapters").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpe_course"):
                found.append((path.name, node.lineno, node.module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found += [(path.name, node.lineno, a.name, []) for a in node.names if a.name.startswith("bpe_course")]
    return found


def test_chapters_import_only_the_face():
    outside = []
    for chapter, line, module, names in chapter_imports():
        if EXERCISES.fullmatch(module):
            continue
        if module not in FACES:
            outside.append(f"{chapter}:{line} imports from {module}, which is no face")
        else:
            outside += [f"{chapter}:{line} imports {n} from {module}, not in its face" for n in names
                        if n not in FACES[module]]
    assert outside == []


def test_the_finder_sees_every_kind_of_import():
    assert {module for _, _, module, _ in chapter_imports()} >= {"bpe_course", "bpe_course.widgets",
                                                                 "bpe_course.algorithms"}


def test_the_faces_of_the_wings_load_nothing_until_asked():
    """``import bpe_course.widgets`` or ``.algorithms`` costs nothing: a name loads its one module when asked."""
    code = ("import sys, bpe_course.widgets, bpe_course.algorithms\n"
            "before = sorted(m for m in sys.modules if m.startswith(('ipywidgets', 'pandas', 'bpe_course.widgets.')))\n"
            "from bpe_course.algorithms import KneserNey\n"
            "print(before, 'bpe_course.algorithms.lm' in sys.modules, 'bpe_course.algorithms.variants' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True", "False"]


def test_the_package_face_loads_its_rooms_when_asked_and_keeps_its_functions():
    """``import bpe_course`` does not load the tokenizer, the formats, chat or the plots (start-up of a one-line
    ``bpe-course encode``); after any import of the modules train, compare and pretokenize, the face's names
    ``train``, ``compare`` and ``pretokenize`` are still the functions."""
    rooms = ["bpe_course.chat", "bpe_course.corpus", "bpe_course.formats", "bpe_course.interop", "bpe_course.pretrained",
             "bpe_course.scale", "bpe_course.tokenizer", "bpe_course.viz"]
    code = (f"import sys, bpe_course\nbefore = [m for m in {rooms!r} if m in sys.modules]\n"
            "import bpe_course.train, bpe_course.compare, bpe_course.pretokenize\n"
            "from bpe_course import Tokenizer, train, compare, pretokenize\n"
            "names = [type(getattr(bpe_course, n)).__name__ for n in ('train', 'compare', 'pretokenize')]\n"
            "print(before, names, train is bpe_course.train_counts.__globals__['train'], "
            "'bpe_course.tokenizer' in sys.modules, 'bpe_course.chat' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["[]", "['function',", "'function',", "'function']", "True", "True", "False"]
