"""The ``bpe-course`` command (also ``python -m bpe_course``): train, encode, decode, stats, lab.

Usage errors exit with status 2 and a one-line message (argparse's convention); a missing or
broken file, bad input text or an unknown token id exit with status 1 and a one-line
``bpe-course: error: ...`` message, never a traceback. Run ``bpe-course COMMAND --help`` for each
command's options; ``docs/cli_and_formats.md`` has examples.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from . import __version__, formats, pretrained
from .cli_output import TokenTable, read_stdin_text, render_tokens, use_color, write_bytes
from .corpus import load_text
from .errors import CommandError
from .tokenizer import Tokenizer
from .train import check_train_args, train_bpe

PROG = "bpe-course"
NAMED_TOKENIZERS = ("gpt2", "cl100k", "o200k")


def load_tokenizer(spec: str) -> Tokenizer:
    """``gpt2`` / ``cl100k`` / ``o200k`` by name (``./gpt2`` for a directory of that name), else a saved tokenizer."""
    if spec in NAMED_TOKENIZERS:
        return getattr(pretrained, spec)()
    return Tokenizer.load(spec)


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
    documents = [load_text(source) for source in args.files]
    start = time.perf_counter()
    vocab, merges = train_bpe(documents, args.vocab_size, specials, pattern=args.pattern,
                              progress=not args.quiet)
    seconds = time.perf_counter() - start
    tokenizer = Tokenizer(vocab, merges, specials, pattern=args.pattern)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(out, format=args.format)
    saved = out if args.format == "gpt2" else out / formats.DEFAULT_FILENAMES[args.format]
    if not args.quiet:
        wanted = args.vocab_size - 256 - len(specials)
        early = f" (stopped early: no pair left to merge; asked for {wanted})" if len(merges) < wanted else ""
        print(f"learned {len(merges):,} merges in {seconds:.1f} s{early}: vocab {len(vocab):,} = 256 bytes + "
              f"{len(merges):,} merges + {len(specials)} special token{'' if len(specials) == 1 else 's'}")
        n_bytes = sum(len(d.encode("utf-8")) for d in documents)
        n_words = sum(len(d.split()) for d in documents)
        n_tokens = sum(len(tokenizer.encode(d, allowed_special="all")) for d in documents)
        print(f"training text: {n_bytes:,} bytes, {n_words:,} words -> {n_tokens:,} tokens: "
              f"{_ratio(n_bytes, n_tokens)} bytes/token, {_ratio(n_tokens, n_words)} tokens/word")
        print(f"saved ({args.format}) to {saved}")
    return 0


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "n/a"


# ---- encode / decode ---------------------------------------------------------------------------
def cmd_encode(args: argparse.Namespace) -> int:
    if "-" in args.text and len(args.text) > 1:
        args.parser.error("give the text as arguments, or '-' alone to read it from standard input")
    text = " ".join(args.text) if args.text and args.text != ["-"] else read_stdin_text()
    tokenizer = load_tokenizer(args.tokenizer)
    if args.specials == "allow":
        ids = tokenizer.encode(text, allowed_special="all")
    elif args.specials == "text":
        ids = tokenizer.encode_ordinary(text)
    else:
        ids = tokenizer.encode(text)
    if args.show:
        line = render_tokens(tokenizer.token_bytes(ids), use_color(args.color, sys.stdout))
    else:
        line = " ".join(map(str, ids))
    print(line)
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    if "-" in args.ids and len(args.ids) > 1:
        args.parser.error("give the ids as arguments, or '-' alone to read them from standard input")
    from_stdin = not args.ids or args.ids == ["-"]
    words = read_stdin_text().split() if from_stdin else args.ids
    ids = []
    for word in words:
        for field in filter(None, re.split(r"[\s,\[\]]+", word)):
            if not re.fullmatch(r"\d+", field):
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
    texts = [(source, load_text(source)) for source in args.files]  # subtle: a bad file fails before slow loads
    specs = list(NAMED_TOKENIZERS) + [t for t in (args.tokenizer or []) if t not in NAMED_TOKENIZERS]
    tokenizers = [(spec, load_tokenizer(spec)) for spec in specs]
    table = TokenTable("file", "tokenizer", "vocab", "tokens", "bytes/token", "tokens/word")
    for source, text in texts:
        n_bytes, n_words = len(text.encode("utf-8")), len(text.split())
        for spec, tokenizer in tokenizers:
            n_tokens = len(tokenizer.encode_ordinary(text))
            table.add(source, spec, f"{tokenizer.vocab_size:,}", f"{n_tokens:,}", _ratio(n_bytes, n_tokens),
                      _ratio(n_tokens, n_words))
    print(table.render())
    return 0


# ---- lab ---------------------------------------------------------------------------------------
def notebooks_dir() -> Path:
    """``notebooks/`` beside the package, as in a clone of the course repository."""
    return Path(__file__).resolve().parent.parent / "notebooks"


def cmd_lab(args: argparse.Namespace) -> int:
    import importlib.util
    import shlex
    import subprocess
    folder = Path(args.notebooks) if args.notebooks else notebooks_dir()
    if not folder.is_dir():
        raise CommandError(f"the course notebooks were not found at {folder}: they come with the course "
                           "repository, not with the package; run bpe-course from a clone of it, or pass "
                           "--notebooks DIR")
    command = [sys.executable, "-m", "jupyter", "lab", str(folder)]
    if args.dry_run:
        print(shlex.join(command))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        raise CommandError(f"JupyterLab is not installed for {sys.executable}: pip install jupyterlab")
    return subprocess.call(command)


# ---- the parser --------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
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

    tok_help = ("a saved tokenizer (directory or file) or a name: gpt2, cl100k (GPT-4), o200k (GPT-4o) "
                "(default: %(default)s)")
    train = command("train", cmd_train, "learn a byte-level BPE tokenizer from text files and save it",
                    "example:\n  bpe-course train notes.txt --vocab-size 1000 --special '<|endoftext|>' -o my_tok")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files (or built-in corpus names)")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N",
                       help="tokens in the vocabulary: 256 bytes + merges + special tokens")
    train.add_argument("--special", nargs="+", action="extend", metavar="TOKEN",
                       help="special tokens, e.g. '<|endoftext|>' (the option may be repeated)")
    train.add_argument("--pattern", choices=("gpt2", "gpt4", "none"), default="gpt2",
                       help="pre-tokenization regex (default: %(default)s)")
    train.add_argument("-o", "--output", required=True, metavar="DIR", help="directory to save the tokenizer in")
    train.add_argument("--format", choices=formats.FORMATS, default="bpe-course",
                       help="file format (default: %(default)s)")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")

    encode = command("encode", cmd_encode, "encode text to token ids",
                     "examples:\n  bpe-course encode 'Hello world'\n  bpe-course encode --show --tokenizer "
                     "cl100k 'Hello world'\n  cat notes.txt | bpe-course encode - > ids.txt")
    encode.add_argument("text", nargs="*", metavar="TEXT", help="the text (several words are joined by spaces); "
                        "none or '-' reads standard input")
    encode.add_argument("--tokenizer", default="gpt2", help=tok_help)
    encode.add_argument("--show", action="store_true", help="show the tokens, coloured, instead of their ids")
    encode.add_argument("--no-color", dest="color", action="store_const", const="never", default="auto",
                        help="with --show: plain [token] brackets even on a terminal (also: NO_COLOR=1)")
    encode.add_argument("--color", dest="color", action="store_const", const="always",
                        help="with --show: colours even when the output is not a terminal")
    encode.add_argument("--specials", choices=("allow", "text", "error"), default="allow",
                        help="special tokens in the text: encode them as their ids (allow, the default), as "
                        "ordinary text (text), or stop with an error (error, tiktoken's default)")

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

    lab = command("lab", cmd_lab, "open the course notebooks in JupyterLab", "example:\n  bpe-course lab")
    lab.add_argument("--dry-run", action="store_true", help="print the command instead of starting JupyterLab")
    lab.add_argument("--notebooks", metavar="DIR", help="the notebooks folder (default: notebooks/ beside the "
                     "package in a clone of the course)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 bad input or file, 2 bad usage)."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # subtle: no second error at exit
        return 1
    except (CommandError, OSError, ValueError) as exc:
        if os.environ.get("BPE_COURSE_DEBUG"):
            raise  # developers: the full traceback
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc).replace("\r", " ").replace("\n", " ") or type(exc).__name__
