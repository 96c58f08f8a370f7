"""Browser tests: the chapters' widgets driven in JupyterLab in headless Chromium (see conftest.py).

A package, so that this folder's ``conftest.py`` is imported as ``browser.conftest`` and never
clashes with ``tests/conftest.py`` (both are also collected as modules by ``--doctest-modules``).
"""
