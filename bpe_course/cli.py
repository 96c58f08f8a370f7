"""The ``bpe-course`` command (also ``python -m bpe_course``): train, encode, decode, stats, lab.

Usage errors exit with status 2 and a one-line message (argparse's convention); a missing or
broken file, bad input text or an unknown token id exit with status 1 and a one-line
``bpe-course: error: ...`` message, never a traceback. Messages name the command's options,
never the Python arguments behind them. A command that cannot write its output (standard output
closed or full) fails; an argument that is not valid UTF-8 is refused, naming it; on a terminal
that is not UTF-8, what it cannot print is shown as escapes (``\\xe9``). One overwrite rule:
``train -o DIR`` never replaces a saved tokenizer and ``encode --input ... -o FILE`` never replaces a
file unless ``--force``, both checked before the long work; a save is all or nothing
(``bpe_course.formats.save``), and two ``train`` into one folder at once are refused by a lock.
``encode -`` and ``stats`` stream their text; a device such as ``/dev/zero`` is refused as input.
Run ``bpe-course COMMAND --help`` for each command's options; ``docs/cli_and_formats.md`` has
examples.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterator
from typing import Any
from itertools import islice
from pathlib import Path

from . import pretrained
from .encode_files import encode_files
from .errors import CommandError, CorpusError, TokenizerFileError
from .files import check_text_file, current_file, file_lock, folder_lock, read_text_blocks, text_size
from .measures import ratio, shown
from .resources import __version__, notebooks_dir
from .tokenizer import Tokenizer
from .train import check_train_args, train

# subtle: what only some commands need (the corpora and their downloader, Mistral's files, the coloured
# output, the lab, the file formats) is imported inside them: a one-line ``encode`` spends most of its time
# starting up, and these imports were a third of it.

PROG = "bpe-course"
# What stats compares a text with unless told: the named tokenizers that come with the package itself.
STATS_DEFAULT = tuple(n.name for n in pretrained.NAMED.values() if n.kind == "byte-level" and n.extra is None)


def load_tokenizer(spec: str) -> Tokenizer:
    """A named byte-level tokenizer of :data:`bpe_course.pretrained.NAMED` (``./gpt2`` for a directory of
    that name), else a saved tokenizer."""
    if spec in pretrained.NAMED:
        if pretrained.NAMED[spec].kind != "byte-level":
            raise CommandError(f"{spec} is a SentencePiece tokenizer; the command encodes with byte-level ones: "
                               f"{', '.join(n for n, e in pretrained.NAMED.items() if e.kind == 'byte-level')}")
        try:
            return pretrained.load(spec)  # type: ignore[return-value]
        except ImportError as exc:  # its package comes with an extra that is not installed
            raise CommandError(str(exc)) from None
    try:
        return Tokenizer.load(spec)
    except TokenizerFileError as exc:  # subtle: "pass format=..." is Python; here the file itself is named
        from . import formats
        raise CommandError(str(exc).replace(f", or {formats.PASS_FORMAT}", "").replace(f"; {formats.PASS_FORMAT}",
                                                                                        "")) from None


def text_source(source: str) -> str | Path:
    """A FILE argument, by the package's one rule for a name (:func:`bpe_course.corpus.find`): an existing
    file as a ``Path`` (read by streaming), else a built-in corpus's text."""
    from . import corpus
    from .corpus import load_text
    try:
        found = corpus.find(source)
    except (FileNotFoundError, CorpusError):  # subtle: said in the command's words, not load_text's
        raise CommandError(f"no such file or built-in corpus: {source!r}{corpus.did_you_mean(source, corpus.names())} "
                           f"(relative paths start at {Path.cwd()}; built-in corpora: {', '.join(corpus.names())})") \
            from None
    if isinstance(found, str):
        return load_text(found)  # a built-in corpus: its text
    check_text_file(found, CommandError)  # a folder, /dev/zero, a socket: one line
    # subtle: a file goes down as a Path (read by streaming, as often as needed); a pipe (<(cat f)) can be
    # read only once, so it is read now
    return found if os.path.isfile(found) else load_text(found)


def saved_files(out: Path, format: str) -> list[Path]:
    """The files a save of ``format`` into the folder ``out`` writes."""
    from . import formats
    if format == "gpt2":
        return [out / "encoder.json", out / "vocab.bpe"]
    file = out / formats.DEFAULT_FILENAMES[format]
    return [file, file.with_name(file.name + ".json")] if format == "tiktoken" else [file]


# ---- train -------------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    try:
        _, specials = check_train_args(args.vocab_size, args.special or [], size_name="--vocab-size ",
                                    specials_name="--special")
    except ValueError as exc:
        args.parser.error(str(exc))
    if args.format == "gpt2" and args.pattern != "gpt2":
        args.parser.error("--format gpt2 stores no pattern (it is always GPT-2's); use --pattern gpt2 or "
                          "another --format")
    if args.min_frequency < 1:
        args.parser.error(f"--min-frequency must be at least 1, got {args.min_frequency}")
    if args.format == "gpt2" and specials:  # subtle: checked before training, not found when saving
        from .formats.gpt2 import check_reads_back
        only_specials = Tokenizer({b: bytes([b]) for b in range(256)} | {256 + k: s.encode("utf-8")
                                                                         for k, s in enumerate(specials)},
                                  [], specials, pattern="gpt2")
        try:
            check_reads_back(only_specials)
        except ValueError as exc:
            raise CommandError(f"--format gpt2: {str(exc).replace('ordinary token', 'token')}".replace(
                "; save in the 'bpe-course' or 'hf' format instead", "; use another --format")) from None
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise CommandError(f"-o {out}: a file, not a folder; give the folder to save the tokenizer in")
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"-o {out}: cannot create the folder ({exc.strerror})") from None
    try:
        with folder_lock(out, CommandError, "another 'bpe-course train' is saving a tokenizer to"):
            return _train_into(args, out, specials)
    finally:
        if created and not any(out.iterdir()):  # subtle: a refused or failed run leaves no empty folder
            out.rmdir()


def _train_into(args: argparse.Namespace, out: Path, specials: list[str]) -> int:
    """Train and save into ``out``, whose lock this process holds."""
    from . import formats
    # subtle: a tokenizer in another format counts too: beside it, DIR would no longer load by its name
    existing = [t.name for fmt in formats.FORMATS for t in saved_files(out, fmt) if current_file(t).exists()]
    if existing and not args.force:  # subtle: checked before training, so no work is lost either
        raise CommandError(f"{out} already holds a tokenizer ({', '.join(existing)}); pass --force to replace it, "
                           "or choose another -o DIR")
    # subtle: a file goes down as a Path, so training streams it; only a built-in corpus is loaded as text
    documents = [text_source(source) for source in args.files]
    start = time.perf_counter()
    saved = out if args.format == "gpt2" else out / formats.DEFAULT_FILENAMES[args.format]
    tokenizer = None
    try:
        vocab, merges, _, stop_reason = train(documents, args.vocab_size, specials, pattern=args.pattern,
                                              min_frequency=args.min_frequency, progress=not args.quiet)
        seconds = time.perf_counter() - start
        tokenizer = Tokenizer(vocab, merges, specials, pattern=args.pattern)
        tokenizer.save(out, format=args.format)  # all or nothing (bpe_course.formats.save)
    except KeyboardInterrupt:  # "interrupted" alone says nothing was saved, unless the save got through first
        if tokenizer is not None and _holds(saved, args.format, tokenizer):
            raise KeyboardInterrupt(f"interrupted; the tokenizer is saved ({args.format}) to {saved}") from None
        raise
    try:
        _summary(args, documents, specials, tokenizer, vocab, merges, stop_reason, seconds, saved)
    except KeyboardInterrupt:  # subtle: the learner must not read "nothing saved" and train again
        raise KeyboardInterrupt(f"interrupted during the summary; the tokenizer is saved ({args.format}) to "
                                f"{saved}") from None
    return 0


def _summary(args: argparse.Namespace, documents: list, specials: list[str], tokenizer: Tokenizer, vocab: dict,
             merges: list, stop_reason: str, seconds: float, saved: Path) -> None:
    """What ``train`` prints once its tokenizer is saved: the merges learned, the text's measures, where it is."""
    if not args.quiet:
        wanted = args.vocab_size - 256 - len(specials)
        early = f" (stopped early: {stop_reason}; asked for {wanted:,})" if len(merges) < wanted else ""
        print(f"learned {len(merges):,} merges in {seconds:.1f} s{early}: vocab {len(vocab):,} = 256 bytes + "
              f"{len(merges):,} merges + {len(specials)} special token{'' if len(specials) == 1 else 's'}")
        heads, sizes = zip(*(_head(d, SUMMARY_BYTES) for d in documents))
        n_bytes, total = sum(len(h.encode("utf-8")) for h in heads), sum(sizes)
        n_words = sum(len(h.split()) for h in heads)
        n_tokens = sum(len(tokenizer.encode(h, allowed_special="all")) for h in heads)
        part = "" if n_bytes == total else f"{total:,} bytes in all; its first {SUMMARY_BYTES // 10**6} MB a file: "
        print(f"training text: {part}{n_bytes:,} bytes, {n_words:,} words -> {n_tokens:,} tokens: "
              f"{_ratio(n_bytes, n_tokens)} bytes/token, {_ratio(n_tokens, n_words)} tokens/word")
        print(f"saved ({args.format}) to {saved}")


def _holds(saved: Path, format: str, tokenizer: Tokenizer) -> bool:
    """Whether ``saved`` loads as ``tokenizer`` (after a Ctrl-C during its save: did the save happen?)."""
    try:
        there = Tokenizer.load(saved, format=format)
    except (OSError, ValueError):
        return False
    return (there.vocab, there.merges, there.special_tokens) == (tokenizer.vocab, tokenizer.merges,
                                                                 tokenizer.special_tokens)


SUMMARY_BYTES = 10**7  # the summary's tokens/word is measured on at most this much of each file


def _head(document: str | Path, limit: int) -> tuple[str, int]:
    """A document's text, or the text of at most the first ``limit`` bytes of a file (cut at a character
    boundary); and the size in bytes of all its text. A file is read as training reads it
    (:func:`bpe_course.files.read_text_blocks`)."""
    if isinstance(document, str):
        return document, len(document.encode("utf-8"))
    return "".join(read_text_blocks(document, CorpusError, 0, limit)), text_size(document)


def specials_mode(args: argparse.Namespace) -> str:
    """``--specials`` as given, else the default for ``--tokenizer``: for a named tokenizer what its vendor's
    library does with a special token typed into the text (``pretrained.Named.typed_specials``: tiktoken
    refuses it, mistral-common and llama-models encode it as text), for a saved tokenizer ``allow``."""
    if args.specials is not None:
        return args.specials
    named = pretrained.NAMED.get(args.tokenizer)
    return named.typed_specials if named is not None else "allow"


def vendor_defaults() -> str:
    """``--specials``'s default per named tokenizer, in words, from the registry.

    >>> vendor_defaults()
    'error for gpt2, cl100k, o200k as tiktoken; text for tekken as mistral-common, llama3, llama4 as llama-models'
    """
    groups: dict[str, dict[str, list[str]]] = {}
    for n in pretrained.named("byte-level", installed=False):
        package = pretrained.PIP_NAMES.get(n.files[0].package, n.files[0].package)
        vendor = "tiktoken" if n.typed_specials == "error" else package  # tiktoken is who refuses (its encode)
        groups.setdefault(n.typed_specials, {}).setdefault(vendor, []).append(n.name)
    return "; ".join(f"{mode} for " + ", ".join(f"{', '.join(names)} as {vendor}" for vendor, names in by.items())
                     for mode, by in groups.items())


def _ratio(a: int, b: int) -> str:
    return shown(ratio(a, b))


# ---- encode / decode ---------------------------------------------------------------------------
def cmd_encode(args: argparse.Namespace) -> int:
    if args.input:
        return _encode_files(args)
    if args.output or args.separator or args.workers:
        args.parser.error("-o/--output, --separator and --workers go with --input FILE...")
    if args.force:
        args.parser.error("--force goes with --input FILE... -o NAME.npy")
    if "-" in args.text and len(args.text) > 1:
        args.parser.error("give the text as arguments, or '-' alone to read it from standard input")
    if not args.text or args.text == ["-"]:
        return _encode_stdin(args, load_tokenizer(args.tokenizer))
    text = " ".join(args.text)
    tokenizer = load_tokenizer(args.tokenizer)
    args.specials = specials_mode(args)
    if args.specials == "allow":
        ids = tokenizer.encode(text, allowed_special="all")
    elif args.specials == "text":
        ids = tokenizer.encode_ordinary(text)
    else:
        try:
            ids = tokenizer.encode(text)
        except ValueError as exc:  # subtle: the engine's message names Python arguments; say the options
            found = next(iter(sorted(s for s in tokenizer.special_tokens if s in text)), "?")
            raise CommandError(f"the text contains the special token {found!r} and --specials is error; use "
                               "--specials allow to encode it as its id, or --specials text as ordinary text") \
                from exc
    if args.show:  # subtle: main() makes a terminal that is not UTF-8 print escapes for what it cannot show
        from .cli_output import render_tokens, use_color
        line = render_tokens(tokenizer.token_bytes(ids), use_color(args.color, sys.stdout))
    else:
        line = " ".join(map(str, ids))
    print(line)
    return 0


def _encode_stdin(args: argparse.Namespace, tokenizer: Tokenizer) -> int:
    """``encode -``: standard input's ids (or tokens, ``--show``), streamed (``encode_iterable``): memory does
    not grow with the text."""
    from .cli_output import render_tokens, stdin_text_blocks, use_color
    modes: dict[str, dict[str, Any]] = {"allow": {"allowed_special": "all"}, "text": {"disallowed_special": ()},
                                        "error": {}}
    args.specials = specials_mode(args)
    ids = tokenizer.encode_iterable(stdin_text_blocks(), **modes[args.specials])
    color = args.show and use_color(args.color, sys.stdout)
    separator, shown = "", 0
    try:
        while batch := list(islice(ids, 1 << 16)):
            if args.show:
                sys.stdout.write(render_tokens(tokenizer.token_bytes(batch), color, start=shown))
            else:
                sys.stdout.write(separator + " ".join(map(str, batch)))
                separator = " "
            shown += len(batch)
    except ValueError as exc:
        if args.specials != "error" or "special token" not in str(exc):
            raise
        found = re.search(r"special token ('.*?'|\".*?\")", str(exc))
        raise CommandError(f"standard input contains the special token {found.group(1) if found else ''} and "
                           "--specials is error; use --specials allow to encode it as its id, or --specials text "
                           "as ordinary text") from None
    sys.stdout.write("\n")
    return 0


def check_output_file(out: Path, force: bool, option: str = "-o") -> None:
    """Before any long work: ``out`` can be written, and an existing file is replaced only with ``--force``.

    The one overwrite rule of the command line: ``train -o DIR`` and ``encode -o FILE`` replace
    nothing of the learner's without ``--force``.
    """
    if out.is_dir():
        raise CommandError(f"{option} {out}: a folder; give the name of the file to write")
    folder = out.parent
    if not folder.is_dir():
        raise CommandError(f"{option} {out}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise CommandError(f"{option} {out}: the folder {folder} cannot be written to")
    if out.exists() and not force:
        raise CommandError(f"{option} {out}: the file exists; pass --force to replace it, or choose another name")


def _encode_files(args: argparse.Namespace) -> int:
    """``encode --input FILE... -o ids.npy``: every file's ids into one .npy, streaming, on every core."""
    if args.text:
        args.parser.error("give either TEXT or --input FILE..., not both")
    if not args.output or not args.output.endswith(".npy"):
        args.parser.error("--input needs -o/--output NAME.npy (a NumPy array of ids)")
    if args.show:
        args.parser.error("--show is for text on the command line, not for --input files")
    out = Path(args.output)
    if out.parent.is_dir():  # subtle: else check_output_file says what is wrong with -o
        # subtle: held from before the check until the .npy is in place, so a second encode into the same file
        # at once fails at once (it would pass the check, and the last to finish would replace the other's ids)
        with file_lock(out, CommandError, "another 'bpe-course encode' is writing"):
            return _encode_files_into(args, out)
    return _encode_files_into(args, out)


def _encode_files_into(args: argparse.Namespace, out: Path) -> int:
    """``encode --input``'s work, for an output that this process alone writes."""
    check_output_file(out, args.force)
    tokenizer = load_tokenizer(args.tokenizer)
    args.specials = specials_mode(args)
    if args.separator is not None and args.separator not in tokenizer.special_tokens:
        raise CommandError(f"--separator {args.separator!r} is not a special token of {args.tokenizer} (its special "
                           f"tokens: {', '.join(map(repr, sorted(tokenizer.special_tokens))) or 'none'})")
    for path in args.input:
        try:
            check_text_file(path, CommandError)
        except (FileNotFoundError, CommandError) as exc:
            raise CommandError(f"--input {str(exc).replace('no such file: ', '')}" if isinstance(exc, CommandError)
                               else f"--input {path}: no such file") from None
        if not os.path.isfile(path):
            raise CommandError(f"--input {path}: a pipe; --input reads files in parts on every core (to encode a "
                               "stream, pipe it into 'bpe-course encode -')")
    if args.specials == "error" and tokenizer.special_tokens:  # subtle: found first, before any work, and named
        from .cli_output import find_first
        found = find_first(args.input, list(tokenizer.special_tokens))  # by file and offset, as no encoder can
        if found is not None:
            raise CommandError(f"{found[0]}, byte offset {found[1]}: the special token {found[2]!r}, and --specials "
                               "is error; use --specials allow to encode it as its id, or --specials text as "
                               "ordinary text")
    count = encode_files(tokenizer, args.input, args.output, separator=args.separator, specials=args.specials,
                         workers=args.workers, progress=sys.stderr.isatty())
    print(f"{count:,} ids from {len(args.input)} file{'' if len(args.input) == 1 else 's'} written to {args.output}",
          file=sys.stderr)
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    from .cli_output import read_stdin_text, write_bytes
    if "-" in args.ids and len(args.ids) > 1:
        args.parser.error("give the ids as arguments, or '-' alone to read them from standard input")
    from_stdin = not args.ids or args.ids == ["-"]
    words = read_stdin_text().split() if from_stdin else args.ids
    ids = []
    for word in words:
        for field in filter(None, re.split(r"[\s,\[\]]+", word)):
            if not re.fullmatch(r"[0-9]{1,10}", field):  # subtle: ASCII only; \\d and int() take other digits
                message = f"not a token id: {field!r} (ids are non-negative integers)"
                if not from_stdin:
                    args.parser.error(message)
                raise CommandError(message)
            ids.append(int(field))
    data = load_tokenizer(args.tokenizer).decode_bytes(ids)
    if sys.stdout.isatty() and not data.endswith(b"\n"):
        data += b"\n"  # subtle: only for a terminal; piped output stays byte-exact for round trips
    write_bytes(data)
    return 0


# ---- stats -------------------------------------------------------------------------------------
def cmd_stats(args: argparse.Namespace) -> int:
    from .cli_output import TokenTable
    texts = [(source, text_source(source)) for source in args.files]  # subtle: a bad file fails first
    specs = list(STATS_DEFAULT) + [t for t in (args.tokenizer or []) if t not in STATS_DEFAULT]
    tokenizers = [(spec, load_tokenizer(spec)) for spec in specs]
    table = TokenTable("file", "tokenizer", "n_vocab", "tokens", "bytes/token", "tokens/word")
    for source, text in texts:
        n_bytes, n_words = _bytes_and_words(_blocks(text))
        for spec, tokenizer in tokenizers:
            n_tokens = sum(1 for _ in tokenizer.encode_iterable(_blocks(text), disallowed_special=()))
            table.add(source, spec, f"{tokenizer.n_vocab:,}", f"{n_tokens:,}", _ratio(n_bytes, n_tokens),
                      _ratio(n_tokens, n_words))
    print(table.render())
    return 0


def _blocks(source: str | Path) -> Iterator[str]:
    """A text, or a file's text a block at a time: ``stats`` reads a big file in flat memory, once per tokenizer."""
    return iter((source,)) if isinstance(source, str) else read_text_blocks(source, CorpusError)


def _bytes_and_words(blocks: Iterator[str]) -> tuple[int, int]:
    """UTF-8 bytes and whitespace-separated words of the concatenated blocks, as ``len(text.split())`` counts them.

    subtle: a word cut in two by a block's edge is one word: a block that starts with a non-space
    right after one that ended with a non-space continues the word before.
    """
    n_bytes = n_words = 0
    ended_in_word = False
    for block in blocks:
        n_bytes += len(block.encode("utf-8"))
        n_words += len(block.split()) - (ended_in_word and not block[0].isspace())
        ended_in_word = not block[-1].isspace()
    return n_bytes, n_words


# ---- lab ---------------------------------------------------------------------------------------
ROOT_HINT = ("you are running as root (a container, a cloud machine), and JupyterLab will not start as root "
             "unless asked to: run `bpe-course lab --allow-root` (with make: `make lab ARGS=--allow-root`), or "
             "run it as an ordinary user")


def lab_command(folder: Path, jupyter_options: list[str]) -> list[str]:
    """The JupyterLab command ``bpe-course lab`` runs: this environment's Python, the learner's folder, and
    every option ``lab`` does not know itself, passed on unchanged (``--allow-root``, ``--port 8890``, ...).

    >>> lab_command(Path("my_notebooks"), ["--allow-root", "--port", "8890"])[1:]
    ['-m', 'jupyter', 'lab', 'my_notebooks', '--allow-root', '--port', '8890']
    """
    return [sys.executable, "-m", "jupyter", "lab", str(folder), *jupyter_options]


def needs_allow_root(jupyter_options: list[str], euid: int | None) -> bool:
    """Would JupyterLab refuse to start? It does for root (``euid`` 0) unless allowed, by option or config.

    >>> needs_allow_root([], 0), needs_allow_root(["--allow-root"], 0), needs_allow_root([], 1000)
    (True, False, False)
    >>> needs_allow_root(["--ServerApp.allow_root=True"], 0), needs_allow_root([], None)  # None: not POSIX
    (False, False)
    """
    allowed = any(o == "--allow-root" or o.replace("-", "_").lower().endswith("allow_root=true")
                  for o in jupyter_options)
    return euid == 0 and not allowed


def cmd_lab(args: argparse.Namespace) -> int:
    import importlib.util
    import shlex
    import subprocess

    from .lab import default_workspace, prepare_workspace
    source = notebooks_dir()
    folder = Path(args.dir) if args.dir else default_workspace(source)
    for line in prepare_workspace(source, folder):  # subtle: never overwrites a chapter the learner edited
        print(line, file=sys.stderr)
    command = lab_command(folder, args.jupyter_options)
    if args.dry_run:
        print(shlex.join(command))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        raise CommandError(f"JupyterLab is not installed for {sys.executable}: pip install 'bpe-course[course]'")
    if needs_allow_root(args.jupyter_options, os.geteuid() if hasattr(os, "geteuid") else None):
        raise CommandError(ROOT_HINT)  # subtle: said before JupyterLab starts, with the command to type
    return subprocess.call(command)


# ---- the parser --------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from .formats import FORMATS
    parser = argparse.ArgumentParser(prog=PROG, description="Byte-pair encoding from the command line: train "
                                     "tokenizers, encode and decode text, compare tokenizers, open the course.",
                                     epilog="Run 'bpe-course COMMAND --help' for a command's options and examples.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, func, help: str, epilog: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, epilog=epilog,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(func=func, parser=sub)
        return sub

    tok_help = ("a saved tokenizer (directory or file) or a name: " + ", ".join(
        f"{n.name} ({n.label}{', needs the interop extra' if n.extra else ''})" for n in pretrained.named(
            "byte-level", installed=False)) + " (default: %(default)s)")
    train = command("train", cmd_train, "learn a byte-level BPE tokenizer from text files and save it",
                    "example:\n  bpe-course train notes.txt --vocab-size 1000 --special '<|endoftext|>' -o my_tok")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files (or built-in corpus names)")
    train.add_argument("--vocab-size", type=_whole_number, required=True, metavar="N",
                       help="tokens in the vocabulary: 256 bytes + merges + special tokens")
    train.add_argument("--special", nargs="+", action="extend", metavar="TOKEN",
                       help="special tokens, e.g. '<|endoftext|>' (the option may be repeated)")
    train.add_argument("--min-frequency", type=_whole_number, default=1, metavar="N",
                       help="merge only pairs seen at least N times (default: %(default)s; 2 or more keeps "
                       "merges that only memorise the text out)")
    train.add_argument("--pattern", choices=("gpt2", "gpt4", "none"), default="gpt2",
                       help="pre-tokenization regex (default: %(default)s)")
    train.add_argument("-o", "--output", required=True, metavar="DIR", help="directory to save the tokenizer in")
    train.add_argument("--format", choices=FORMATS, default="bpe-course",
                       help="file format (default: %(default)s)")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    train.add_argument("--force", action="store_true", help="replace a tokenizer already saved in DIR")

    encode = command("encode", cmd_encode, "encode text to token ids",
                     "examples:\n  bpe-course encode 'Hello world'\n  bpe-course encode --show --tokenizer "
                     "cl100k 'Hello world'\n  cat notes.txt | bpe-course encode - > ids.txt\n"
                     "  bpe-course encode --input train.txt --separator '<|endoftext|>' -o train.npy")
    encode.add_argument("text", nargs="*", metavar="TEXT", help="the text (several words are joined by spaces); "
                        "none or '-' reads standard input")
    encode.add_argument("--tokenizer", default="gpt2", help=tok_help)
    encode.add_argument("--show", action="store_true", help="show the tokens, coloured, instead of their ids")
    encode.add_argument("--no-color", dest="color", action="store_const", const="never", default="auto",
                        help="with --show: plain [token] brackets even on a terminal (also: NO_COLOR=1)")
    encode.add_argument("--color", dest="color", action="store_const", const="always",
                        help="with --show: colours even when the output is not a terminal")
    encode.add_argument("--specials", choices=("allow", "text", "error"), default=None,
                        help="special tokens typed in the text: encode them as their ids (allow), as ordinary "
                        "text (text), or stop with an error (error). Default: what a named tokenizer's own library "
                        f"does ({vendor_defaults()}); allow for a saved tokenizer")
    encode.add_argument("--input", nargs="+", metavar="FILE", help="encode these UTF-8 files (streaming, in "
                        "parallel, in flat memory; a tokenizer file whose pattern cannot be cut at spaces holds "
                        "each file's text, not its ids) into the .npy array given with -o")
    encode.add_argument("-o", "--output", metavar="NAME.npy", help="with --input: where to write the ids "
                        "(uint16 when every id fits, else uint32)")
    encode.add_argument("--separator", metavar="TOKEN", help="with --input: a special token put after each file, "
                        "e.g. '<|endoftext|>'")
    encode.add_argument("--workers", type=_positive, metavar="N", help="with --input: processes (default: all cores)")
    encode.add_argument("--force", action="store_true", help="with --input: replace the file given with -o if it "
                        "exists")

    decode = command("decode", cmd_decode, "decode token ids back to text",
                     "examples:\n  bpe-course decode 15496 995\n  bpe-course encode - < a.txt | bpe-course "
                     "decode - > b.txt   # b.txt == a.txt, byte for byte")
    decode.add_argument("ids", nargs="*", metavar="ID", help="token ids; none or '-' reads them from standard "
                        "input (separated by spaces, commas or newlines)")
    decode.add_argument("--tokenizer", default="gpt2", help=tok_help)

    stats = command("stats", cmd_stats, "compare how tokenizers compress text files",
                    "example:\n  bpe-course stats notes.txt --tokenizer my_tok\n\nbytes/token: higher is better "
                    "compression; tokens/word: lower is better (words are split at whitespace).")
    stats.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files (or built-in corpus names)")
    stats.add_argument("--tokenizer", action="append", metavar="TOKENIZER",
                       help="also measure this saved tokenizer (repeatable); gpt2, cl100k and o200k are always shown")

    lab = command("lab", cmd_lab, "copy the chapters into your own folder and open it in JupyterLab",
                  "examples:\n  bpe-course lab --dir ~/bpe-notes\n  bpe-course lab --allow-root --no-browser --ip 0.0.0.0 "
                  "--port 8890   # as root, in a container\n\nEvery option not listed above is passed to JupyterLab "
                  "unchanged (see jupyter lab --help-all). A chapter you edited is never overwritten: an updated "
                  "version is saved beside it as NN_name.updated.ipynb.")
    lab.add_argument("--dir", metavar="DIR", help="your working folder (default: my_notebooks/ in a clone of the "
                     "course, else bpe-course-notebooks/ in the current folder)")
    lab.add_argument("--dry-run", action="store_true", help="prepare the folder and print the command instead of "
                     "starting JupyterLab")
    lab.usage = "%(prog)s [-h] [--dir DIR] [--dry-run] [JUPYTERLAB_OPTION ...]"
    return parser


def _whole_number(text: str) -> int:
    """An argparse type: ASCII digits only (``int()`` also takes "٣", "+3", " 3" and "1_000")."""
    if not re.fullmatch(r"[0-9]{1,18}", text):
        raise argparse.ArgumentTypeError(f"expected a whole number in ASCII digits, got {text!r}")
    return int(text)


def _positive(text: str) -> int:
    """An argparse type: a whole number (ASCII digits) of at least 1."""
    if not re.fullmatch(r"[0-9]{1,18}", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 bad input or file, 2 bad usage)."""
    given = argv if argv is not None else sys.argv[1:]
    bad = next((k for k, a in enumerate(given, start=1) if _not_utf8(a)), None)
    if bad is not None:  # subtle: before argparse, which would print the argument back and fail doing so
        shown = os.fsencode(given[bad - 1]) if os.name == "posix" else given[bad - 1].encode("utf-8", "replace")
        print(f"{PROG}: error: argument {bad} is not valid UTF-8: {shown!r}; pass text as UTF-8, or put it in a "
              "file", file=sys.stderr)
        return 2
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "lab":  # subtle: lab passes what it does not know to JupyterLab (--allow-root, --port, ...)
        args.jupyter_options = unknown
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if sys.stdout is None:  # subtle: started with standard output closed (`>&-`): nothing could be written
        print(f"{PROG}: error: standard output is closed; nothing can be written", file=sys.stderr)
        return 1
    if hasattr(sys.stdout, "reconfigure"):  # subtle: a terminal that is not UTF-8 (LANG=C, PYTHONIOENCODING=ascii)
        sys.stdout.reconfigure(errors="backslashreplace")  # shows \xe9 for what it cannot print, never a traceback
    try:
        status = args.func(args)
        sys.stdout.flush()  # subtle: a write error must show now, as a failure, not at exit
        return status
    except KeyboardInterrupt as exc:  # subtle: a command says what was done before it (saved, nothing written)
        print(f"{PROG}: {str(exc) or 'interrupted'}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # subtle: no second error at exit
        return 1
    except (CommandError, OSError, ValueError) as exc:
        if os.environ.get("BPE_COURSE_DEBUG"):
            raise  # developers: the full traceback
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1


def _not_utf8(arg: str) -> bool:
    """Python hands a command-line argument that is not valid UTF-8 over as lone surrogates."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc).replace("\r", " ").replace("\n", " ") or type(exc).__name__
