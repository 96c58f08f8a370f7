"""Every clone gets the built-in corpora byte for byte, whatever its line-end settings.

Git for Windows' default ``core.autocrlf=true`` turns LF into CRLF on checkout for every file
Git considers text; without ``.gitattributes`` that broke the sha256 of every file in data/.
The test clones HEAD of the repository it runs in with that setting and checks the hashes.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # clones the repository: make quick leaves it out

REPO = Path(__file__).resolve().parents[2]


def git(*args: str, cwd: Path = REPO) -> str:
    """Run git; fail the test (not skip it) with git's own words when it cannot run."""
    if shutil.which("git") is None:
        pytest.fail("this test needs the git command: it clones the repository to check its line ends")
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout.strip()


def repository_head() -> tuple[Path, str]:
    """The top folder of the git checkout this test file is in, and its HEAD commit."""
    if shutil.which("git") is None:
        pytest.fail("this test needs the git command: it clones the repository to check its line ends")
    inside = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=REPO, capture_output=True, text=True)
    if inside.returncode != 0 or Path(inside.stdout.strip()).resolve() != REPO:
        pytest.fail(f"{REPO} is not the top of a git checkout: this test clones the repository it runs "
                    "in to check that every clone gets data/ byte for byte; run it from a git clone")
    return REPO, git("rev-parse", "HEAD")


def sha256sums(path: Path) -> dict[str, str]:
    """``data/SHA256SUMS`` as ``{relative path: hex digest}`` (read as bytes: the file itself may be damaged)."""
    sums = {}
    for line in path.read_bytes().decode("utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        sums[name.lstrip("*").strip()] = digest
    return sums


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A clone of HEAD made as Git for Windows makes it (core.autocrlf=true), and HEAD's commit."""
    repo, head = repository_head()
    folder = tmp_path_factory.mktemp("autocrlf") / "clone"
    git("clone", "--quiet", "--no-checkout", "-c", "core.autocrlf=true", str(repo), str(folder), cwd=folder.parent)
    git("checkout", "--quiet", "--detach", head, cwd=folder)
    assert git("config", "core.autocrlf", cwd=folder) == "true"
    return folder, head


def test_clone_with_autocrlf_keeps_data_files_byte_exact(clone: tuple[Path, str]) -> None:
    clone, _ = clone
    sums_file = clone / "data" / "SHA256SUMS"
    assert b"\r" not in sums_file.read_bytes(), "data/SHA256SUMS itself got CRLF line ends"
    sums = sha256sums(sums_file)
    assert len(sums) >= 15
    damaged = [name for name, digest in sums.items()
               if hashlib.sha256((clone / "data" / name).read_bytes()).hexdigest() != digest]
    assert damaged == [], f"with core.autocrlf=true these files do not match data/SHA256SUMS: {damaged}"


def test_clone_with_autocrlf_keeps_notebooks_and_scripts(clone: tuple[Path, str]) -> None:
    clone, head = clone
    notebooks = sorted((clone / "notebooks").glob("*.ipynb"))
    assert notebooks
    for notebook in notebooks:  # stored executed and compared by nbval: exactly as committed
        committed = subprocess.run(["git", "cat-file", "blob", f"{head}:notebooks/{notebook.name}"], cwd=REPO,
                                   capture_output=True, check=True).stdout
        assert notebook.read_bytes() == committed, notebook.name
    for script in (".ci/run", "Makefile"):  # a shell and make choke on a carriage return
        assert b"\r" not in (clone / script).read_bytes(), script
