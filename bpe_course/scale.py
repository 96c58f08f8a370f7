"""Counting past one machine: pre-token counts are a monoid, so Dask can count a folder of files anywhere.

Counting pre-tokens is the only step of training that reads all the text, and counts add: the
counts of two halves, summed, are the counts of the whole. So each file (or each part of a big
file) can be counted on any worker of any machine, the counts summed, and the merge loop — which
needs all counts at once and is sequential by nature — run once on the sum
(:func:`bpe_course.train.train_counts`).

This module does the counting with Dask (``pip install bpe-course[scale]``): a local cluster by
default, or a real one given its scheduler address. Each file is one document, as in
``train(["text of file 1", "text of file 2", ...])``: pre-tokens never run from one file into the
next.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from .errors import CorpusError
from .files import check_text_file
from .pretokenize import check_special_tokens, resolve_pattern
from .train import Training, check_train_args, count_pretokens, train_counts


def check_paths(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """The files to count, checked as ``train_bpe`` checks a file: a list (or one path) of regular files.

    subtle: a string is one path here, never a list of one-letter names ("corpus" is not "c", "o", ...);
    a folder, a missing file, a device (``/dev/zero``) or a pipe (a worker on another machine cannot
    read it) is refused by name before Dask starts.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [Path(p) for p in paths]
    if not files:
        raise ValueError("no files given")
    for f in files:
        check_text_file(f, CorpusError)
        if not f.is_file():
            raise CorpusError(f"{f} is a pipe; Dask's workers read files by name, so save the text to a file")
    return files


def _count_file(path: str, special_tokens: tuple[str, ...], pattern: str | None) -> Counter:
    # subtle: workers=1: Dask already runs one of these per core; forking again inside would oversubscribe
    return count_pretokens(Path(path), special_tokens, pattern, workers=1)


def count_with_dask(paths: Iterable[str | os.PathLike], special_tokens: Iterable[str] = (), pattern: str | None = "gpt2",
                    *, scheduler: str | None = None, processes: bool = True) -> Counter:
    """The summed pre-token counts of ``paths``, counted by Dask.

    ``scheduler`` is a running cluster's address (``"tcp://host:8786"``); without one a local
    cluster is started for the call (``processes=False`` uses threads, lighter for small inputs).
    """
    specials, pattern = tuple(check_special_tokens(special_tokens)), resolve_pattern(pattern)  # before Dask starts
    files = [str(f) for f in check_paths(paths)]
    import dask.bag as db  # an optional dependency: pip install bpe-course[scale]
    from distributed import Client, LocalCluster

    bag = db.from_sequence(files, npartitions=len(files)).map(_count_file, specials, pattern)
    with _quiet_dask():
        if scheduler is not None:
            with Client(scheduler) as client:
                return client.compute(bag.fold(_add, Counter(), initial=Counter())).result()
        with LocalCluster(processes=processes, n_workers=min(len(files), os.cpu_count() or 1), threads_per_worker=1,
                          dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
            return client.compute(bag.fold(_add, Counter(), initial=Counter())).result()


@contextlib.contextmanager
def _quiet_dask():
    """Dask's own log lines and warnings (a slow event loop on a busy laptop, comms closing) are not the
    learner's business: silenced for the call, restored after."""
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name.split(".")[0] in ("distributed", "dask", "tornado")]
    loggers += [logging.getLogger("distributed")]
    levels = [logger.level for logger in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for logger in loggers:
            logger.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)


def _add(a: Counter, b: Counter) -> Counter:
    """Counts are a monoid: adding is associative, and the empty Counter changes nothing."""
    total = Counter(a)
    total.update(b)
    return total


def train_with_dask(paths: Iterable[str | os.PathLike], vocab_size: int, special_tokens: Iterable[str] = (), *,
                    pattern: str | None = "gpt2", min_frequency: int = 1, scheduler: str | None = None,
                    processes: bool = True) -> Training:
    """Count ``paths`` with Dask, then learn the merges here: the same result as training on the files' texts.

    The arguments are checked before Dask starts, so a mistake costs no counting.
    """
    vocab_size, specials = check_train_args(vocab_size, special_tokens, min_frequency=min_frequency)
    counts = count_with_dask(paths, specials, pattern, scheduler=scheduler, processes=processes)
    return train_counts(counts, vocab_size, specials, min_frequency=min_frequency)
