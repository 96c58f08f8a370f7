"""Benchmarks for bpe_course: ``python -m benchmarks --help``.

* ``corpus.py``  builds a large natural-language corpus offline, deterministically;
* ``child.py``   runs one measurement in a fresh process (time and peak memory);
* ``report.py``  turns measurements into rows, ``results.csv`` and ``training.png``;
* ``__main__.py`` runs everything, interleaved, and prints the table.
"""
