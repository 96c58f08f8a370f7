"""The speed internals that chapter 11 explains, none of them needed to understand BPE itself.

* ``count``: pre-token counting that runs the regex once per distinct stretch of text;
* ``parallel``: counting a big text or file in forked worker processes;
* ``merge``: the merge loop that updates only the words holding the merged pair;
* ``piece``: BPE inside one pre-token (the lowest rank first), long pieces in near-linear time,
  and merge recovery from a rank-only vocabulary.

Imports point down from here only: to ``pretokenize``, ``files`` and ``errors``.
"""
