"""The ``bpe-course`` command, run as a real process (``python -m bpe_course`` and ``.venv/bin/bpe-course``)
and, for the many small error cases, in-process through ``main()``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bpe_course import Tokenizer, corpus, gpt2, train_bpe
from bpe_course.cli import main, notebooks_dir
from bpe_course.files import file_lock


MODULE = [sys.executable, "-m", "bpe_course"]

SCRIPT = [str(Path(sys.executable).parent / "bpe-course")]

SAMPLE = "Hello world! Ünïcödé 🙂, numbers 1234567 and <|endoftext|> tabs\tand\r\nlines\n\n  end"


def run(*args: str, cmd: list[str] = MODULE, stdin: bytes | None = None, cwd: Path | None = None):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([*cmd, *args], input=stdin, capture_output=True, timeout=300, env=env, cwd=cwd)


def one_line_error(stderr: bytes) -> str:
    """The message, checking there is exactly one line of it and no traceback."""
    text = stderr.decode()
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if line.startswith("bpe-course")]
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture(autouse=True)
def own_jupyter_data_dir(tmp_path, monkeypatch):
    """``lab`` marks the chapters it copies trusted in Jupyter's signature store: a test's own, not the user's."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))


@pytest.fixture(scope="module")
def text_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("text") / "small.txt"
    path.write_text(corpus.load("python_docs")[:20_000], encoding="utf-8")
    return path


# ---- encode / decode ---------------------------------------------------------------------------
@pytest.mark.parametrize("cmd", [MODULE, SCRIPT], ids=["python -m bpe_course", ".venv/bin/bpe-course"])
def test_encode_prints_the_packages_ids(cmd):
    result = run("encode", "--specials", "allow", SAMPLE, cmd=cmd)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == " ".join(map(str, gpt2().encode(SAMPLE, allowed_special="all"))) + "\n"


def test_encode_then_decode_through_pipes_is_byte_exact(tmp_path):
    data = (SAMPLE + "\n" + corpus.load("languages")[:2000] + "no final newline").encode("utf-8")
    ids = run("encode", "--specials", "allow", "-", stdin=data)
    assert ids.returncode == 0, ids.stderr
    assert [int(i) for i in ids.stdout.split()] == gpt2().encode(data.decode(), allowed_special="all")
    back = run("decode", "-", stdin=ids.stdout)
    assert back.returncode == 0 and back.stdout == data


def test_encode_show_plain_and_coloured(capsys):
    assert main(["encode", "--show", "Hi there\n"]) == 0
    assert capsys.readouterr().out == "[Hi][␣there][↵]\n"  # not a terminal: brackets
    assert main(["encode", "--show", "--color", "Hi there"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"\x1b\[30;48;5;\d+mHi\x1b\[0m\x1b\[30;48;5;\d+m␣there\x1b\[0m\n", out)
    assert main(["encode", "--show", "--tokenizer", "gpt2", "--no-color", "🙂"]) == 0
    assert capsys.readouterr().out == "[<0xF0><0x9F>][<0x99><0x82>]\n"  # bytes that are not whole characters


def test_encode_special_token_choices(capsys):
    text = "a<|endoftext|>b"
    assert main(["encode", "--specials", "allow", text]) == 0
    assert capsys.readouterr().out.split() == ["64", "50256", "65"]
    assert main(["encode", "--specials", "text", text]) == 0
    assert capsys.readouterr().out.split() == [str(i) for i in gpt2().encode_ordinary(text)]
    assert main(["encode", "--specials", "error", text]) == 1
    assert "bpe-course: error: the text contains the special token '<|endoftext|>'" in capsys.readouterr().err


def test_decode_arguments(capsys):
    assert main(["decode", "15496", "995"]) == 0
    assert capsys.readouterr().out == "Hello world"  # not a terminal: no newline added
    assert main(["decode", "[15496,", "995]"]) == 0  # a Python list pasted as it is
    assert capsys.readouterr().out == "Hello world"


# ---- train -------------------------------------------------------------------------------------
def test_train_saves_a_tokenizer_that_matches_the_package(tmp_path, text_file):
    out = tmp_path / "tok"
    result = run("train", str(text_file), "--vocab-size", "400", "--special", "<|endoftext|>", "<|pad|>",
                 "--pattern", "gpt4", "-o", str(out), "--format", "hf")
    assert result.returncode == 0, result.stderr
    vocab, merges = train_bpe(text_file.read_text(encoding="utf-8"), 400, ["<|endoftext|>", "<|pad|>"],
                              pattern="gpt4")
    expected = Tokenizer(vocab, merges, ["<|endoftext|>", "<|pad|>"], pattern="gpt4")
    loaded = Tokenizer.load(out)
    assert (loaded.vocab, loaded.merges, loaded.special_tokens, loaded.pattern) == \
        (expected.vocab, expected.merges, expected.special_tokens, expected.pattern)
    stdout, stderr = result.stdout.decode(), result.stderr.decode()
    assert "100%" in stderr and "merges" in stderr  # tqdm's bar, on stderr
    text = text_file.read_text(encoding="utf-8")
    n_tokens = len(expected.encode(text, allowed_special="all"))
    assert f"learned {len(merges)} merges in " in stdout
    assert f"-> {n_tokens:,} tokens: {len(text.encode()) / n_tokens:.2f} bytes/token, " \
           f"{n_tokens / len(text.split()):.2f} tokens/word" in stdout
    encoded = run("encode", "--tokenizer", str(out), SAMPLE, cmd=SCRIPT)
    assert encoded.stdout.split() == [str(i).encode() for i in expected.encode(SAMPLE, allowed_special="all")]


@pytest.mark.parametrize("fmt", ["bpe-course", "tiktoken", "gpt2"])
def test_train_in_every_format(tmp_path, text_file, capsys, fmt):
    assert main(["train", str(text_file), "--vocab-size", "300", "-o", str(tmp_path), "--format", fmt, "-q"]) == 0
    assert capsys.readouterr().out == ""  # --quiet
    vocab, merges = train_bpe(text_file.read_text(encoding="utf-8"), 300)
    loaded = Tokenizer.load(tmp_path)
    assert (loaded.vocab, loaded.merges) == (vocab, merges)


# ---- stats and lab -----------------------------------------------------------------------------
def test_stats_table(tmp_path, text_file, gpt2_tok, tiktoken_gpt2, tiktoken_cl100k, tiktoken_o200k):
    Tokenizer(*train_bpe(text_file.read_text(encoding="utf-8"), 300)).save(tmp_path / "mine.json")
    result = run("stats", str(text_file), "--tokenizer", str(tmp_path / "mine.json"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0].split() == ["file", "tokenizer", "n_vocab", "tokens", "bytes/token", "tokens/word"]
    text = text_file.read_text(encoding="utf-8")
    mine = Tokenizer.load(tmp_path / "mine.json")
    rows = [("gpt2", tiktoken_gpt2.n_vocab, gpt2_tok.encode_ordinary(text)),
            ("cl100k", tiktoken_cl100k.n_vocab, tiktoken_cl100k.encode_ordinary(text)),  # largest id + 1
            ("o200k", tiktoken_o200k.n_vocab, tiktoken_o200k.encode_ordinary(text)),
            (str(tmp_path / "mine.json"), 300, mine.encode_ordinary(text))]
    for line, (name, n_vocab, ids) in zip(lines[1:], rows, strict=True):
        n = len(ids)
        assert line.split() == [str(text_file), name, f"{n_vocab:,}", f"{n:,}",
                                f"{len(text.encode()) / n:.2f}", f"{n / len(text.split()):.2f}"]
    assert len({len(line) for line in lines}) == 1  # aligned: every row as wide as the header


def test_lab_copies_the_chapters_and_keeps_an_edited_one(tmp_path):
    work = tmp_path / "work"
    result = run("lab", "--dry-run", "--dir", str(work), cmd=SCRIPT)
    assert result.returncode == 0, result.stderr
    python, *rest = result.stdout.decode().split()
    assert Path(python).parent == Path(sys.executable).parent  # the same environment's Python
    assert rest == ["-m", "jupyter", "lab", str(work)]
    chapters = sorted(p.name for p in notebooks_dir().glob("*.ipynb"))
    assert sorted(p.name for p in work.glob("*.ipynb")) == chapters
    assert f"copied {len(chapters)} chapters into work" in result.stderr.decode()
    edited = work / "00_start_here.ipynb"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Start here", "My start"), encoding="utf-8")
    again = run("lab", "--dry-run", "--dir", str(work), cmd=SCRIPT)
    assert again.returncode == 0 and "My start" in edited.read_text(encoding="utf-8")
    assert notebooks_dir() == Path(__file__).resolve().parent.parent / "notebooks"  # a clone: the repository's


def test_lab_passes_jupyterlabs_own_options_through(tmp_path):
    """Options ``lab`` does not know itself go to JupyterLab unchanged, after the learner's folder."""
    work = tmp_path / "work"
    options = ["--allow-root", "--port", "8890", "--no-browser", "--ip=0.0.0.0", "--ServerApp.base_url=/course/"]
    result = run("lab", "--dry-run", "--dir", str(work), *options, cmd=SCRIPT)
    assert result.returncode == 0, result.stderr
    _python, *rest = result.stdout.decode().split()
    assert rest == ["-m", "jupyter", "lab", str(work), *options]
    other = run("encode", "--allow-root", "x")  # the other commands still refuse what they do not know
    assert other.returncode == 2 and "unrecognized arguments: --allow-root" in other.stderr.decode()


def test_lab_as_root_says_what_to_type_before_starting_anything(tmp_path, monkeypatch, capsys):
    import subprocess as sp
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(sp, "call", lambda *a, **k: pytest.fail(f"JupyterLab was started: {a}"))
    assert main(["lab", "--dir", str(tmp_path / "work")]) == 1
    message = capsys.readouterr().err.splitlines()[-1]
    assert message.startswith("bpe-course: error: you are running as root")
    assert "`bpe-course lab --allow-root`" in message and "`make lab ARGS=--allow-root`" in message
    started = []
    monkeypatch.setattr(sp, "call", lambda command: started.append(command) or 0)
    assert main(["lab", "--dir", str(tmp_path / "work"), "--allow-root", "--no-browser"]) == 0
    assert started[0][-2:] == ["--allow-root", "--no-browser"]


def test_lab_starts_jupyterlab_headless_and_serves_the_chapters(tmp_path):
    """The real thing, as the machine's user (root here, as in a container): ``bpe-course lab --allow-root
    --no-browser --ip --port`` starts JupyterLab on the learner's folder; it answers, then is stopped."""
    import json
    import signal
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "bpe-course-lab-test"
    work = tmp_path / "work"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"), JUPYTER_PLATFORM_DIRS="1")
    print(f"[lab] running as uid {os.geteuid()}")
    with open(tmp_path / "lab.log", "wb") as log:
        proc = subprocess.Popen([*SCRIPT, "lab", "--dir", str(work), "--allow-root", "--no-browser", "--ip", "127.0.0.1",
                                 "--port", str(port), f"--IdentityProvider.token={token}",
                                 "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/contents/00_start_here.ipynb?content=0&token={token}",
                                            timeout=5) as answer:
                    listed = json.loads(answer.read())
                break
            except OSError:
                assert proc.poll() is None, "bpe-course lab exited:\n" + (tmp_path / "lab.log").read_text()
                assert time.monotonic() < deadline, "JupyterLab did not answer:\n" + (tmp_path / "lab.log").read_text()
                time.sleep(0.5)
        assert listed["type"] == "notebook" and listed["name"] == "00_start_here.ipynb"
        with urllib.request.urlopen(f"{base}/lab?token={token}", timeout=10) as page:
            assert page.status == 200 and b"JupyterLab" in page.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # bpe-course and the JupyterLab it started share the group
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert "Running as root is not recommended" not in (tmp_path / "lab.log").read_text()


# ---- help and errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("command, option", [("train", "--vocab-size"), ("encode", "--show"), ("decode", "--tokenizer"),
                                             ("stats", "--tokenizer"), ("lab", "--dry-run")])
def test_help_for_every_command(capsys, command, option):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: bpe-course {command}") and option in out and "example" in out


@pytest.mark.parametrize("args, message", [
    ([], "the following arguments are required: COMMAND"),
    (["train", "x.txt", "--vocab-size", "100", "-o", "out"], "--vocab-size 100 is too small: it must be at least 256"),
    (["train", "x.txt", "--vocab-size", "257", "--special", "<a>", "<b>", "-o", "out"], "at least 256 .* = 258"),
    (["train", "x.txt", "--vocab-size", "300", "--special", "<a>", "<a>", "-o", "out"], "must be distinct"),
    (["train", "x.txt", "--vocab-size", "300", "--pattern", "gpt4", "--format", "gpt2", "-o", "o"], "stores no pattern"),
    (["train", "x.txt", "--vocab-size", "many", "-o", "out"], "expected a whole number in ASCII digits, got 'many'"),
    (["encode", "--specials", "maybe", "x"], "invalid choice: 'maybe'"),
    (["decode", "12", "twelve"], "not a token id: 'twelve'"),
])
def test_bad_usage_exits_2_with_a_message(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert re.search(f"bpe-course.*: error: .*{message}", capsys.readouterr().err)


def test_bad_files_exit_1_with_one_line(tmp_path, capsys):
    (tmp_path / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    (tmp_path / "broken.json").write_text('{"format": "bpe-course", "version": 1, "vocab": {', encoding="utf-8")
    cases = [
        (["train", str(tmp_path / "nope.txt"), "--vocab-size", "300", "-o", str(tmp_path)], "no such file"),
        (["train", str(tmp_path / "latin1.txt"), "--vocab-size", "300", "-o", str(tmp_path)],
         r"latin1\.txt: not valid UTF-8 at byte offset 3"),
        (["encode", "--tokenizer", str(tmp_path / "broken.json"), "x"], r"broken\.json: not valid JSON at line 1"),
        (["encode", "--tokenizer", str(tmp_path / "missing_dir"), "x"], "no tokenizer at"),
        (["stats", str(tmp_path / "latin1.txt")], "byte offset 3"),
        (["decode", "50257"], "unknown token id 50257 at position 0"),
    ]
    for args, message in cases:
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert re.fullmatch(f"bpe-course: error: .*{message}.*\n", err), err
    real = run("decode", "-", stdin=b"1 2 x")  # a real process: still one line, no traceback
    assert real.returncode == 1 and "not a token id: 'x'" in one_line_error(real.stderr)
    not_utf8 = run("encode", "-", stdin=b"ok \xff")
    assert not_utf8.returncode == 1 and "standard input: not valid UTF-8 at byte offset 3" in one_line_error(not_utf8.stderr)


def test_train_min_frequency_and_why_it_stopped(tmp_path):
    text_file = tmp_path / "t.txt"
    text_file.write_text("low lower lowest newer newest " * 4 + "zyxwv", encoding="utf-8")
    result = run("train", str(text_file), "--vocab-size", "1000", "--min-frequency", "3", "-o", str(tmp_path / "o"))
    assert result.returncode == 0, result.stderr
    expected = train_bpe(text_file.read_text(encoding="utf-8"), 1000, min_frequency=3)
    assert Tokenizer.load(tmp_path / "o").merges == expected[1]
    out = result.stdout.decode()
    assert f"learned {len(expected[1]):,} merges" in out
    assert "stopped early: the most frequent pair left occurs 1 times, fewer than min_frequency=3" in out
    bad = run("train", str(text_file), "--vocab-size", "1000", "--min-frequency", "0", "-o", str(tmp_path / "p"))
    assert bad.returncode == 2 and "--min-frequency must be at least 1" in bad.stderr.decode()


def test_train_refuses_to_replace_a_saved_tokenizer_without_force(tmp_path):
    text_file = tmp_path / "t.txt"
    text_file.write_text("low lower lowest " * 20, encoding="utf-8")
    out = tmp_path / "tok"
    assert run("train", str(text_file), "--vocab-size", "258", "-o", str(out), "-q").returncode == 0
    before = (out / "bpe_course.json").read_bytes()
    again = run("train", str(text_file), "--vocab-size", "262", "-o", str(out), "-q")
    assert again.returncode == 1 and "already holds a tokenizer (bpe_course.json); pass --force" in \
        one_line_error(again.stderr)
    assert (out / "bpe_course.json").read_bytes() == before
    forced = run("train", str(text_file), "--vocab-size", "262", "-o", str(out), "-q", "--force")
    assert forced.returncode == 0 and (out / "bpe_course.json").read_bytes() != before


def test_closed_stdout_and_non_utf8_arguments_fail():
    closed = subprocess.run([*MODULE, "encode", "hello"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=lambda: os.close(1))
    assert closed.returncode == 1 and b"standard output is closed" in closed.stderr
    full = subprocess.run(f"{' '.join(MODULE)} encode hello > /dev/full", shell=True, capture_output=True)
    assert full.returncode == 1 and b"No space left on device" in full.stderr
    bad = subprocess.run([*MODULE, "encode", b"caf\xe9"], capture_output=True)
    assert bad.returncode == 2 and b"not valid UTF-8" in bad.stderr


def test_show_on_a_terminal_that_is_not_utf8():
    done = subprocess.run([*MODULE, "encode", "--show", "--color", "héllo ✓"], capture_output=True,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert b"\\u2713" in done.stdout and b"\\xe9" in done.stdout


@pytest.fixture(scope="module")
def big_text(tmp_path_factory) -> Path:
    """~16 MB of varied text: counted by a forked worker for about a second, then a second or more of learning."""
    import random
    rng = random.Random(1)
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "fa", "gu", "he", "ji", "wo", "ze", "xy"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 5))) for _ in range(200_000)]
    big = tmp_path_factory.mktemp("ctrl_c") / "big.txt"
    with open(big, "w", encoding="utf-8") as f:
        for _ in range(12):
            rng.shuffle(words)
            f.write(" ".join(words) + "\n")
    return big


def children(pid: int) -> set[int] | None:
    """The processes ``pid`` has forked and not yet reaped (Linux), else None."""
    try:
        return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return None


@pytest.mark.parametrize("moment", ["a worker starts", "counting", "learning"])
def test_ctrl_c_during_training_says_one_line(tmp_path, big_text, moment):
    """Ctrl-C as a terminal sends it (to every process of the job), at three moments of training.

    subtle: the signal must reach a running process. This test once slept a fixed 1.5 s, and on a
    quiet machine training (1.6 to 3.5 s here) sometimes ended first: Popen.send_signal then sends
    nothing, and the run exited 0 with nothing on stderr. Each moment is now found by watching the
    process's workers, and the test fails if training ended before the signal was sent.
    """
    import signal
    import time
    out = tmp_path / "o"
    proc = subprocess.Popen([*MODULE, "train", str(big_text), "--vocab-size", "20000", "-o", str(out), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen: set[int] = set()
    if children(proc.pid) is None:  # no /proc: fixed delays, long before training ends
        time.sleep({"a worker starts": 0.4, "counting": 0.8, "learning": 1.2}[moment])
    else:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            now = children(proc.pid) or set()
            if now and moment == "a worker starts":
                break
            if seen and now and moment == "counting" and time.monotonic() > counting_from + 0.3:
                break
            if seen and not now and moment == "learning":  # the workers have sent their counts and ended
                time.sleep(0.1)
                break
            if now and not seen:
                counting_from = time.monotonic()
            seen |= now
            time.sleep(0.002)
    assert proc.poll() is None, f"training ended before Ctrl-C at '{moment}': make the test's text bigger"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines() == ["bpe-course: interrupted"], err.decode()[-2000:]
    assert not (out / "bpe_course.json").exists()
    assert all(children(pid) is None for pid in seen)  # no worker outlived the run


def test_closed_stdin_and_specials_error_in_option_names():
    closed = subprocess.run([*MODULE, "encode", "-"], stdin=subprocess.DEVNULL, capture_output=True,
                            preexec_fn=lambda: os.close(0))
    assert closed.returncode == 1 and one_line_error(closed.stderr).startswith("bpe-course: error: standard input is closed")
    special = run("encode", "--specials", "error", "a<|endoftext|>b")
    message = one_line_error(special.stderr)
    assert special.returncode == 1 and "--specials allow" in message and "allowed_special" not in message


def test_train_refuses_a_folder_holding_a_tokenizer_in_another_format_or_a_file(tmp_path):
    text_file = tmp_path / "t.txt"
    text_file.write_text("low lower lowest " * 20, encoding="utf-8")
    out = tmp_path / "tok"
    assert run("train", str(text_file), "--vocab-size", "258", "-o", str(out), "-q", "--format", "tiktoken").returncode == 0
    before = sorted(p.name for p in out.iterdir())
    again = run("train", str(text_file), "--vocab-size", "262", "-o", str(out), "-q")  # bpe-course beside it
    assert again.returncode == 1
    assert "already holds a tokenizer (tokenizer.tiktoken, tokenizer.tiktoken.json); pass --force" in \
        one_line_error(again.stderr)
    assert sorted(p.name for p in out.iterdir()) == before
    pending = tmp_path / "pending" / ".bpe-course-saving"  # a GPT-2 save killed after its commit: it counts
    pending.mkdir(parents=True)
    Tokenizer(*train_bpe("low lower lowest " * 5, 260)).save(tmp_path / "g", format="gpt2")
    for name in ("encoder.json", "vocab.bpe"):
        (pending / name).write_bytes((tmp_path / "g" / name).read_bytes())
    refused = run("train", str(text_file), "--vocab-size", "262", "-o", str(pending.parent), "-q", "--format", "gpt2")
    assert refused.returncode == 1 and "(encoder.json, vocab.bpe)" in one_line_error(refused.stderr)
    a_file = tmp_path / "notes.md"
    a_file.write_text("mine\n", encoding="utf-8")
    into_file = run("train", str(text_file), "--vocab-size", "262", "-o", str(a_file), "-q")
    assert into_file.returncode == 1 and "a file, not a folder" in one_line_error(into_file.stderr)
    assert a_file.read_text(encoding="utf-8") == "mine\n"


def test_output_on_a_terminal_that_is_not_utf8(tmp_path):
    """Every command's output, not only --show: what the terminal cannot print becomes an escape."""
    text_file = tmp_path / "naïve.txt"
    text_file.write_text("héllo wörld " * 30, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    stats = subprocess.run([*MODULE, "stats", str(text_file)], capture_output=True, env=env)
    assert stats.returncode == 0, stats.stderr
    assert b"na\\xefve.txt" in stats.stdout
    trained = subprocess.run([*MODULE, "train", str(text_file), "--vocab-size", "260", "-o", str(tmp_path / "tök")],
                             capture_output=True, env=env)
    assert trained.returncode == 0, trained.stderr
    assert b"saved (bpe-course) to " in trained.stdout and b"t\\xf6k" in trained.stdout


def test_a_non_utf8_argument_is_named_as_given():
    bad = subprocess.run([*MODULE, "encode", "--tokenizer", "gpt2", b"caf\xe9"], capture_output=True)
    message = one_line_error(bad.stderr)
    assert bad.returncode == 2 and "argument 4 is not valid UTF-8: b'caf\\xe9'" in message, message


def test_encode_files_errors_name_the_options_and_the_place(tmp_path):
    clean, with_special = tmp_path / "clean.txt", tmp_path / "later.txt"
    clean.write_text("plain text " * 100, encoding="utf-8")
    with_special.write_bytes("Grüße ".encode() * 50 + b"<|endoftext|> more")
    out = tmp_path / "ids.npy"
    found = run("encode", "--input", str(clean), str(with_special), "-o", str(out), "--specials", "error")
    message = one_line_error(found.stderr)
    assert found.returncode == 1 and not out.exists()
    assert f"later.txt, byte offset {len('Grüße '.encode()) * 50}: the special token '<|endoftext|>'" in message
    assert "--specials allow" in message and "allowed_special" not in message
    separator = run("encode", "--input", str(clean), "-o", str(out), "--separator", "<|end|>")
    assert separator.returncode == 1
    assert "--separator '<|end|>' is not a special token of gpt2" in one_line_error(separator.stderr)
    for workers in ("0", "-2"):
        bad = run("encode", "--input", str(clean), "-o", str(out), "--workers", workers)
        assert bad.returncode == 2 and b"--workers: expected a whole number of at least 1" in bad.stderr


def test_file_and_tokenizer_errors_name_no_python_arguments(tmp_path, capsys):
    both = tmp_path / "both"
    both.mkdir()
    Tokenizer(*train_bpe("low lower lowest " * 5, 260)).save(both)
    Tokenizer(*train_bpe("low lower lowest " * 5, 260)).save(both, format="hf")
    cases = [(["stats", "python_doc"], "no such file or built-in corpus: 'python_doc'; did you mean 'python_docs'?"),
             (["train", "notes", "--vocab-size", "300", "-o", str(tmp_path / "o")], "no such file or built-in corpus"),
             (["encode", "--tokenizer", str(both), "x"], "several formats .*give the file itself")]
    for args, message in cases:
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert re.fullmatch(f"bpe-course: error: .*{message}.*\n", err), err
        assert not any(python in err for python in ("load_text", "text=", "format=")), err


def test_training_on_a_file_with_a_byte_order_mark(tmp_path):
    """Windows Notepad's mark is not text: the same tokenizer and the same summary as without it."""
    text = corpus.load("languages/fr")
    plain, marked = tmp_path / "plain.txt", tmp_path / "notepad.txt"
    plain.write_bytes(text.encode("utf-8"))
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    results = [run("train", str(path), "--vocab-size", "400", "-o", str(tmp_path / path.stem)) for path in (plain, marked)]
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    summaries = [next(line for line in r.stdout.decode().splitlines() if line.startswith("training text:"))
                 for r in results]
    assert summaries[0] == summaries[1] and f"{len(text.encode('utf-8')):,} bytes" in summaries[0]
    loaded = Tokenizer.load(tmp_path / "notepad")
    assert not any(b"\xef\xbb\xbf" in token for token in loaded.vocab.values())
    assert loaded.merges == Tokenizer.load(tmp_path / "plain").merges


def test_encode_with_mistral_tekken_gives_mistral_commons_ids():
    """--tokenizer tekken is Mistral's Tekken from the mistral-common wheel, id for id with its own encoder."""
    import mistral_common
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    oracle = Tekkenizer.from_file(str(Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"))
    text = "Hello world 12345, ça va? 日本語 🙂"
    done = run("encode", "--tokenizer", "tekken", text)
    assert done.returncode == 0, done.stderr
    assert [int(i) for i in done.stdout.split()] == oracle.encode(text, bos=False, eos=False)
    assert b"tekken" in run("encode", "--help").stdout


@pytest.mark.parametrize("name, default", [("gpt2", "error"), ("cl100k", "error"), ("o200k", "error"),
                                           ("tekken", "text"), ("llama3", "text"), ("llama4", "text")])
def test_a_named_tokenizer_treats_typed_specials_as_its_vendor_does(name, default, capsys, tmp_path):
    """The default of --specials is the vendor's (tiktoken refuses, mistral-common and llama-models write text);
    a saved tokenizer keeps allow."""
    from bpe_course import pretrained
    tok = pretrained.load(name)
    special = min(tok.special_tokens, key=tok.special_tokens.get)
    text = f"a {special} b"
    assert pretrained.NAMED[name].typed_specials == default
    code = main(["encode", "--tokenizer", name, text])
    out, err = capsys.readouterr()
    if default == "error":
        assert code == 1 and f"the special token {special!r} and --specials is error" in err
    else:
        assert code == 0 and [int(i) for i in out.split()] == tok.encode_ordinary(text)
    saved = tmp_path / "saved"
    Tokenizer(*train_bpe("a b a b", 258, ["<|x|>"]), ["<|x|>"]).save(saved)
    assert main(["encode", "--tokenizer", str(saved), "a <|x|> b"]) == 0
    assert str(Tokenizer.load(saved).special_tokens["<|x|>"]) in capsys.readouterr().out.split()


# ==== issue 34 (round 3): nothing hangs, fills memory, answers wrong or loses work ==============


@pytest.fixture()
def notes_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("low lower lowest newer wider " * 300, encoding="utf-8")
    return path


# ---- encode -o: one writer at a time -------------------------------------------------------------------
def test_an_encode_into_a_file_another_encode_is_writing_fails_at_once(tmp_path, notes_file, capsys):
    out = tmp_path / "ids.npy"
    with file_lock(out, RuntimeError, "a test holds"):  # what a first `bpe-course encode -o ids.npy` holds
        for force in ([], ["--force"]):
            assert main(["encode", "--input", str(notes_file), "-o", str(out), *force]) == 1
            assert capsys.readouterr().err == (f"bpe-course: error: another 'bpe-course encode' is writing {out} "
                                               "right now; wait for it to finish, or choose another name\n")
    assert list(tmp_path.iterdir()) == [notes_file]  # nothing written, the lock gone with its holder
    assert main(["encode", "--input", str(notes_file), "-o", str(out)]) == 0
    assert len(np.load(out)) == len(gpt2().encode(notes_file.read_text(encoding="utf-8")))


def test_two_encodes_into_one_file_at_once_the_second_fails_and_the_first_is_kept(tmp_path):
    big, small, out = tmp_path / "big.txt", tmp_path / "small.txt", tmp_path / "same.npy"
    big.write_text(corpus.load("python_docs") * 4, encoding="utf-8")
    small.write_text("only a few words\n", encoding="utf-8")
    first = subprocess.Popen([*MODULE, "encode", "--input", str(big), "-o", str(out), "--workers", "1"],
                             stderr=subprocess.PIPE, text=True)
    lock = tmp_path / ".same.npy.bpe-course.lock"
    deadline = time.monotonic() + 120
    while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lock.exists(), "the first encode never took its lock"
    second = subprocess.run([*MODULE, "encode", "--input", str(small), "-o", str(out)], capture_output=True, text=True,
                            timeout=300)
    assert first.wait(timeout=600) == 0
    assert second.returncode == 1 and "another 'bpe-course encode' is writing" in second.stderr
    assert len(np.load(out)) == len(gpt2().encode(big.read_text(encoding="utf-8"), allowed_special="all"))


# ---- Ctrl-C says what was saved -----------------------------------------------------------------------
def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_during_trains_summary_says_the_tokenizer_is_saved(tmp_path, notes_file, capsys, monkeypatch):
    monkeypatch.setattr(Tokenizer, "encode", interrupt)  # the summary's first encoding, after the save
    assert main(["train", str(notes_file), "--vocab-size", "280", "-o", str(tmp_path / "tok")]) == 130
    saved = tmp_path / "tok" / "bpe_course.json"
    assert capsys.readouterr().err.splitlines()[-1] == ("bpe-course: interrupted during the summary; the tokenizer is "
                                                        f"saved (bpe-course) to {saved}")
    assert Tokenizer.load(saved).merges == Tokenizer(*train_bpe(notes_file, 280)).merges  # stopped early: 18


def test_ctrl_c_before_the_save_says_only_interrupted_and_during_it_what_is_there(tmp_path, notes_file, capsys,
                                                                                    monkeypatch):
    import bpe_course.cli as cli_module
    monkeypatch.setattr(cli_module, "train", interrupt)
    assert main(["train", str(notes_file), "--vocab-size", "280", "-o", str(tmp_path / "tok"), "-q"]) == 130
    assert capsys.readouterr().err == "bpe-course: interrupted\n"  # nothing saved: nothing else to say
    monkeypatch.undo()
    real_save = Tokenizer.save

    def save_then_interrupt(self, *args, **kwargs):  # Ctrl-C as the save returns: the tokenizer is there
        real_save(self, *args, **kwargs)
        raise KeyboardInterrupt
    monkeypatch.setattr(Tokenizer, "save", save_then_interrupt)
    assert main(["train", str(notes_file), "--vocab-size", "280", "-o", str(tmp_path / "tok2"), "-q"]) == 130
    saved = tmp_path / "tok2" / "bpe_course.json"
    assert capsys.readouterr().err == f"bpe-course: interrupted; the tokenizer is saved (bpe-course) to {saved}\n"
    assert Tokenizer.load(saved).merges == Tokenizer(*train_bpe(notes_file, 280)).merges


# ---- Ctrl-C while the command starts --------------------------------------------------------------------
INTERRUPTED_IMPORT = """
import sys
class Interrupt:  # Ctrl-C in the middle of loading the command, deterministically
    def find_spec(self, name, path=None, target=None):
        if name == "bpe_course.cli":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
from bpe_course_command import main
sys.exit(main())
"""


def test_ctrl_c_while_the_command_loads_is_one_line():
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT, "--version"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 130
    assert done.stderr == "bpe-course: interrupted while starting; nothing was done\n"
    ran = subprocess.run([sys.executable, "-c", "import sys; from bpe_course_command import main; sys.exit(main())",
                          "--version"], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.startswith("bpe-course ")
