"""``python -m bpe_course``: the same as the ``bpe-course`` command."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
