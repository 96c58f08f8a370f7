"""The ``bpe-course`` script's first step: load the command, and stop with one line if Ctrl-C comes meanwhile.

subtle: a console script imports the function it runs before it runs it, and importing ``bpe_course.cli``
loads most of the package (a few tenths of a second, seconds on a busy machine). A Ctrl-C then interrupted
the import and printed a traceback. This module imports nothing of the package until it is inside the
``try``, so the only window left is Python's own start-up. (``python -m bpe_course`` imports the package
before any of its code runs: that window stays.)
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run ``bpe_course.cli.main``; a Ctrl-C before it has started says so in one line (exit 130)."""
    try:
        from bpe_course.cli import main as run
    except KeyboardInterrupt:
        print("bpe-course: interrupted while starting; nothing was done", file=sys.stderr)
        return 130
    try:
        return run()
    except KeyboardInterrupt:  # subtle: cli.main catches its own, once its arguments are read
        print("bpe-course: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
