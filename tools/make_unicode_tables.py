"""Regenerate bpe_course/unicode_tables.py: which code points tiktoken's regex engine puts in each
class its patterns use: letters (\\p{L}) and their kinds (\\p{Lu}, \\p{Ll}, \\p{Lt}, \\p{Lm}, \\p{Lo}),
marks (\\p{M}), numbers (\\p{N}) and whitespace (\\s).

tiktoken runs its patterns on Rust's regex crate, whose Unicode tables can be older than those of
the Python `regex` module. Characters assigned in between (e.g. U+2CEA2), or whose category
changed (U+0295 went from Ll to Lo), would then be split differently. We ask tiktoken itself: a
pattern that matches only one class keeps exactly the characters of that class, and decoding the
result tells us which ones they were. Nothing is downloaded (the probe's vocabulary is the 256 bytes).

Usage: .venv/bin/python tools/make_unicode_tables.py
"""

from pathlib import Path

import tiktoken

OUT = Path(__file__).resolve().parent.parent / "bpe_course" / "unicode_tables.py"
EVERY_CHAR = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)

# table name -> the regex class it records (unicode_classes.TABLE_OF_CLASS maps them back)
CLASSES = {
    "LETTERS": r"\p{L}", "NUMBERS": r"\p{N}", "WHITESPACE": r"\s",
    "UPPERCASE_LETTERS": r"\p{Lu}", "LOWERCASE_LETTERS": r"\p{Ll}", "TITLECASE_LETTERS": r"\p{Lt}",
    "MODIFIER_LETTERS": r"\p{Lm}", "OTHER_LETTERS": r"\p{Lo}", "MARKS": r"\p{M}",
}


def tiktoken_class(pattern: str) -> list[int]:
    byte_ranks = {bytes([i]): i for i in range(256)}
    probe = tiktoken.Encoding(name="probe", pat_str=pattern, mergeable_ranks=byte_ranks, special_tokens={})
    return sorted(map(ord, set(probe.decode(probe.encode_ordinary(EVERY_CHAR)))))


def as_ranges(code_points: list[int]) -> str:
    runs, start = [], code_points[0]
    for prev, cp in zip(code_points, code_points[1:] + [-1]):
        if cp != prev + 1:
            runs.append(f"{start:X}" if start == prev else f"{start:X}-{prev:X}")
            start = cp
    lines, line = [], ""
    for run in runs:
        if len(line) + len(run) > 96:
            lines.append(line)
            line = ""
        line += run + " "
    return "\n".join(lines + [line])


def main() -> None:
    tables = {name: as_ranges(tiktoken_class(p)) for name, p in CLASSES.items()}
    body = "".join(f'\n# {CLASSES[name]}\n{name} = """\n{text.rstrip()}\n"""\n' for name, text in tables.items())
    OUT.write_text(f'''"""Code point classes as tiktoken {tiktoken.__version__} sees them (generated; do not edit).

Made by tools/make_unicode_tables.py from tiktoken itself. Each table is whitespace-separated
hexadecimal code points and ranges ``START-END``.
"""
{body}''', encoding="utf-8")
    print(f"wrote {OUT.name}: " + ", ".join(f"{k} {len(v.split())} ranges" for k, v in tables.items()))


if __name__ == "__main__":
    main()
