"""ipywidgets for the chapters: one module per topic, each also drivable from plain Python.

What every widget measures (tokens per word, bytes per token, ``vocab_size``, ``vocab_entries``) is
computed once, with one meaning per name, in :mod:`bpe_course.widgets.measures`.
"""
