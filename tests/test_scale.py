"""Counting with Dask: the summed counts, and the merges learned from them, equal training on the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_course import corpus, count_pretokens
from bpe_course.scale import count_with_dask, train_with_dask
from bpe_course.train import train

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("shards")
    texts = [corpus.load("python_docs")[:60_000], corpus.load("languages"), f"ab{EOT}cd " * 50, corpus.load("numbers")]
    paths = []
    for k, text in enumerate(texts):
        paths.append(root / f"shard{k}.txt")
        paths[-1].write_text(text, encoding="utf-8")
    return paths


def test_dask_counts_equal_counting_the_documents(folder):
    texts = [p.read_text(encoding="utf-8") for p in folder]
    assert count_with_dask(folder, [EOT], processes=False) == count_pretokens(texts, [EOT])


def test_dask_training_equals_train_on_the_same_files(folder):
    texts = [p.read_text(encoding="utf-8") for p in folder]
    with_dask = train_with_dask(folder, 1200, [EOT], processes=True, min_frequency=2)
    assert with_dask == train(texts, 1200, [EOT], min_frequency=2)
    assert len(with_dask.merges) > 500


def test_no_files_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="no files"):
        count_with_dask([])
    with pytest.raises(FileNotFoundError, match="no such file"):
        count_with_dask([tmp_path / "nope.txt"])
