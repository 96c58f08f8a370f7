"""The type check: ``mypy`` (configured in pyproject.toml's ``[tool.mypy]``) finds no error in the package.

The annotations are read by people as much as by tools; this keeps them true. mypy keeps its cache in
``.mypy_cache/``: the first run checks every module (about 15 s of CPU), a later one only what changed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_no_error_in_the_package():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found"), done.stdout
