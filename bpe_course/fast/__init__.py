"""The speed internals that chapter 11 and its appendix 91 explain, none of them needed to understand BPE itself.

* ``count``: pre-token counting that runs the regex once per distinct stretch of text;
* ``parallel``: counting a big text or file in forked worker processes, and the package's one way to run workers (``encode_files`` uses it too);
* ``merge``: the merge loop that updates only the words holding the merged pair;
* ``piece``: long pieces in near-linear time.

Each has a slower twin that defines its results, and the tests hold them together: ``count``
and ``parallel`` against ``pretokenize`` and ``collections.Counter``, ``merge`` against
``train_bpe(method="naive")``, ``piece`` against ``bpe.merge_bytes``. Imports point down from
here only: to the basics (``pretokenize``, ``files``, ``errors``).
"""
