"""Where things are: the frozen corpora and the chapters (in the package or a clone), and the local cache.

A wheel carries ``data/`` and ``notebooks/`` as the packages ``bpe_course.data`` and
``bpe_course.notebooks`` (``pyproject.toml`` maps them), read through ``importlib.resources``. In
a clone of the repository — the editable install that ``make test`` uses — they are the
repository's own top-level folders.

The cache (:func:`default_cache_dir`) holds what is made or fetched once and reused: the
pretrained tokenizers' start-up files and downloaded corpora.

>>> (data_dir() / "SHA256SUMS").is_file(), (notebooks_dir() / "00_start_here.ipynb").is_file()
(True, True)
>>> default_cache_dir({"BPE_COURSE_CACHE": "/tmp/bpe"}).as_posix()
'/tmp/bpe'
"""

from __future__ import annotations

import importlib
import importlib.resources
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__version__ = "0.1.0"  # the package's version (bpe_course.__version__; pyproject.toml says the same)

_CLONE = Path(__file__).resolve().parent.parent  # the repository's top, when this is a clone


def _folder(name: str, marker: str) -> Path:
    # subtle: ask for the folder inside the regular package bpe_course, not for the namespace package
    # bpe_course.<name>, whose files() is a MultiplexedPath that is no file-system path
    packaged = Path(str(importlib.resources.files("bpe_course") / name))
    if (packaged / marker).exists():
        return packaged
    return _CLONE / name  # a clone: data/ and notebooks/ are the repository's own folders


def data_dir() -> Path:
    """The folder of frozen corpora (with ``SHA256SUMS``)."""
    return _folder("data", "SHA256SUMS")


def notebooks_dir() -> Path:
    """The folder of the stored chapters (``NN_name.ipynb``)."""
    return _folder("notebooks", "00_start_here.ipynb")


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$BPE_COURSE_CACHE`` if set, else ``~/.cache/bpe-course``."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("BPE_COURSE_CACHE") or Path.home() / ".cache" / "bpe-course").expanduser()


def lazy_face(package: str, face: dict[str, list[str]], modules: tuple[str, ...] = ()
              ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """A package's face whose names load on first use: ``(__all__, __getattr__, __dir__)`` for the package.

    ``face`` maps each module of the package to the names it gives the face; ``modules`` are modules
    of the package that the face gives as modules (``from bpe_course.algorithms import wordbpe``). Asking for a name imports only the module that holds it, so
    importing the package stays light (``bpe_course.widgets`` does not import ipywidgets until a
    widget is asked for).

    subtle: the answer is not stored in the package's namespace, and no face name may be the name of
    a module of the package: importing a submodule binds its name in the package, which would hide
    a face name of the same spelling (``tests/project/test_face.py`` checks there is none).
    """
    where = {name: module for module, names in face.items() for name in names}
    where |= {module: module for module in modules}
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{where[name]}")
        return module if name in modules else getattr(module, name)

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return sorted(where), __getattr__, __dir__

