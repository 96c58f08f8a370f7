"""Build the course website: a static HTML book of every chapter (``make site``).

The pages come from the **stored, executed** notebooks in ``notebooks/``; nothing is run again.
Sphinx with myst-nb and the Sphinx Book Theme does the work; this script only prepares a
temporary source folder for it:

* a copy of each notebook, with each widget output swapped for a still picture of the widget
  (recorded by ``tools/widget_stills.py``) and, under the chapter title, a box that links to the
  notebook and says how to run it locally; the stored notebooks are never changed;
* the landing page, ``docs/site/index.md``, with the chapter map taken from the README's table, the
  number of chapters counted, and the sidebar's two lists: chapters, then appendices (90 and up);
* the ``docs/`` pages that chapters link to (``references.md``), the links made relative as in the
  learner's own copy (``bpe_course.lab.learner_links``).

After Sphinx, every plot on a chapter page (a cell's image, and the picture in a widget's still,
then written to ``_images/`` as a file) becomes a link to itself (:func:`link_plots`): on a phone a
plot fills the column at a third of its size, and a tap opens it at full size.

Every page's title reads "NN · Title" ("Appendix A · Title" from 90 up), whatever its notebook's
heading spells between the number and the title.

The configuration is ``docs/site/conf.py``. The originals of the notebooks are copied to
``<out>/notebooks/`` so that each page can link to its own. The build needs no network.

Usage::

    python tools/build_site.py                 # into build/site/
    python tools/build_site.py --out /tmp/site
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from widget_stills import STILLS, StillError, replace_widget_outputs  # noqa: E402

from bpe_course.lab import learner_links, linked_docs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CONF_DIR = ROOT / "docs" / "site"
README = ROOT / "README.md"
DEFAULT_OUT = ROOT / "build" / "site"
MARKER = ".bpe-course-site"  # written into the output folder: only such a folder is ever emptied
CHAPTER = re.compile(r"^\d\d_\w+\.ipynb$")
FIRST_APPENDIX = 90  # notebooks numbered 90 and up are appendices
TITLE = re.compile(r"^#\s+(\d\d)\b\s*[·:.\-–—]?\s*(.*)$")
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen twenty").split()


class SiteError(Exception):
    """The site cannot be built; the message names the file and what to do."""


def chapter_notebooks(notebooks: Path = NOTEBOOKS) -> list[Path]:
    found = sorted(p for p in notebooks.glob("*.ipynb") if CHAPTER.match(p.name))
    if not found:
        raise SiteError(f"no chapter notebooks (NN_name.ipynb) in {notebooks}")
    return found


def is_appendix(notebook_name: str) -> bool:
    """Is this notebook an appendix (numbered 90 or more)?

    >>> is_appendix("90_more.ipynb"), is_appendix("16_models.ipynb")
    (True, False)
    """
    return int(notebook_name[:2]) >= FIRST_APPENDIX


def site_title(heading: str) -> str:
    """A chapter's ``# NN ...`` heading as the site shows it: "# NN · Title", appendices "# Appendix A · Title".

    >>> site_title("# 10 GPT-4's cl100k"), site_title("# 03 · The training loop")
    ("# 10 · GPT-4's cl100k", '# 03 · The training loop')
    >>> site_title("# 91 · Training at scale"), site_title("# A heading without a number")
    ('# Appendix B · Training at scale', '# A heading without a number')
    >>> site_title("# 90 · Appendix: tutorials, checked")  # said once
    '# Appendix A · tutorials, checked'
    """
    match = TITLE.match(heading)
    if not match:
        return heading
    number, title = int(match.group(1)), match.group(2).strip()
    if number >= FIRST_APPENDIX:
        title = re.sub(r"^Appendix\b\s*[A-Z]?\s*[·:.\-–—]\s*", "", title)
        return f"# Appendix {chr(ord('A') + number - FIRST_APPENDIX)} · {title}"
    return f"# {match.group(1)} · {title}"


def in_words(n: int) -> str:
    """A count as the landing page writes it: in words up to twenty.

    >>> in_words(16), in_words(23)
    ('sixteen', '23')
    """
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def run_locally_box(notebook_name: str) -> str:
    """The box under each chapter's title: the notebook's link and how to run it locally.

    It is one raw HTML block (no blank line inside), so Markdown passes it through unchanged.

    >>> print(run_locally_box("03_training_loop.ipynb"))  # doctest: +ELLIPSIS
    <div class="admonition tip bpe-run-locally">
    <p class="admonition-title">Run this chapter yourself</p>
    <p>The notebook: <a class="bpe-notebook-link" href="notebooks/03_training_loop.ipynb" download>03_training_loop.ipynb</a>...
    """
    return (
        '<div class="admonition tip bpe-run-locally">\n'
        '<p class="admonition-title">Run this chapter yourself</p>\n'
        f'<p>The notebook: <a class="bpe-notebook-link" href="notebooks/{notebook_name}" download>{notebook_name}</a>. '
        "This page shows it as stored, with the outputs of its last run.</p>\n"
        '<p class="bpe-run-line">To run it locally, in a clone of the course: <code>make lab</code> (it copies the '
        "chapters into <code>my_notebooks/</code>, your own copy, and opens JupyterLab there), then open "
        f"<code>{notebook_name}</code> and run all cells (its widgets are live there).</p>\n"
        "</div>"
    )


def add_run_locally_box(nb: nbformat.NotebookNode, notebook_name: str) -> None:
    """Put :func:`run_locally_box` right under the chapter's ``# title`` (in the first markdown cell), and
    write the title as :func:`site_title` does."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("# "):
                lines[i] = site_title(line)
                lines[i + 1:i + 1] = ["", run_locally_box(notebook_name), ""]
                cell.source = "\n".join(lines)
                return
        break
    raise SiteError(f"{notebook_name}: its first markdown cell has no '# title' line to put the run box under")


def prepare_notebook(path: Path, dest: Path, stills_dir: Path = STILLS) -> int:
    """Write the website's copy of one chapter to ``dest``; return how many widgets became stills."""
    nb = nbformat.read(path, as_version=4)
    # subtle: the widget state stored for JupyterLab is not for the page (a still stands for each widget);
    # myst-nb would embed it, and ask a CDN for the scripts to draw it
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:  # subtle: pages outside notebooks/ that chapters link to are pages of the site too
        if cell.cell_type == "markdown":
            cell.source = learner_links(cell.source)
    swapped = replace_widget_outputs(nb, path.name, stills_dir)
    add_run_locally_box(nb, path.name)
    nbformat.write(nb, dest)
    return swapped


def chapter_map(readme: Path = README) -> str:
    """The README's chapter table (under "What you will learn"), with links to the site's pages."""
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"^## What you will learn\n+((?:\|.*\n)+)", text, re.M)
    if not match:
        raise SiteError(f"{readme}: no table under '## What you will learn' to use as the chapter map")
    return re.sub(r"\]\(notebooks/(\d\d_\w+)\.ipynb\)", r"](\1.ipynb)", match.group(1))


def toctrees(names: list[str], pages: list[str] = ("references.md",)) -> str:
    """The sidebar: hidden toctrees of the chapters, the appendices (if any), and the docs/ ``pages``.

    >>> print(toctrees(["00_a.ipynb", "90_b.ipynb"]))
    ```{toctree}
    :hidden:
    :caption: Chapters
    <BLANKLINE>
    00_a
    ```
    <BLANKLINE>
    ```{toctree}
    :hidden:
    :caption: Appendices
    <BLANKLINE>
    90_b
    ```
    <BLANKLINE>
    ```{toctree}
    :hidden:
    :caption: More
    <BLANKLINE>
    references
    ```
    """
    def toctree(caption: str, entries: list[str]) -> str:
        return "\n".join(["```{toctree}", ":hidden:", f":caption: {caption}", "", *entries, "```"])

    stems = [name.removesuffix(".ipynb") for name in names]
    chapters = [s for s in stems if not is_appendix(s)]
    appendices = [s for s in stems if is_appendix(s)]
    more = [name.removesuffix(".md") for name in pages]
    return "\n\n".join([toctree("Chapters", chapters), *([toctree("Appendices", appendices)] if appendices else []),
                        toctree("More", more)])


def landing_page(template: str, names: list[str], pages: list[str] = ("references.md",)) -> str:
    """``docs/site/index.md`` with its placeholders filled: the chapter map, counts and the sidebar's lists."""
    for placeholder in ("{{ chapter_map }}", "{{ chapter_count }}", "{{ toctrees }}"):
        if placeholder not in template:
            raise SiteError(f"{CONF_DIR / 'index.md'} lost its '{placeholder}' placeholder")
    n_appendices = sum(is_appendix(name) for name in names)
    count = in_words(len(names) - n_appendices) + " chapters"
    if n_appendices:
        count += f" (and {in_words(n_appendices)} appendi{'x' if n_appendices == 1 else 'ces'})"
    return (template.replace("{{ chapter_map }}", chapter_map().rstrip("\n")).replace("{{ chapter_count }}", count)
            .replace("{{ toctrees }}", toctrees(names, pages)))


def write_sources(src: Path, notebooks: Path = NOTEBOOKS, stills_dir: Path = STILLS) -> dict[str, int]:
    """Fill ``src`` with the landing page, the docs/ pages chapters link to, and the chapters;
    ``{notebook name: widgets swapped}``."""
    paths = chapter_notebooks(notebooks)
    pages = sorted(set(linked_docs([p.read_text(encoding="utf-8") for p in paths])) | {"references.md"})
    template = (CONF_DIR / "index.md").read_text(encoding="utf-8")
    (src / "index.md").write_text(landing_page(template, [p.name for p in paths], pages), encoding="utf-8")
    for name in pages:
        shutil.copyfile(ROOT / "docs" / name, src / name)
    return {path.name: prepare_notebook(path, src / path.name, stills_dir) for path in paths}


PLOT = re.compile(r'(<div class="cell_output docutils container">\s*|<div class="bpe-still-widget bpe-still-image[^"]*"[^>]*>)'
                  r'(<img [^>]*?src="([^"]+)"[^>]*>)')
DATA_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


def link_plots(page: str, images: Path) -> str:
    """``page`` with each plot (a cell output's image, a widget still's picture) wrapped in a link to itself.

    A still's picture is a ``data:`` URL, which a browser will not open from a link; it is written to
    ``images`` (``_images/`` beside the page) under its sha256, and the page points at that file.

    >>> import tempfile
    >>> page = '<div class="cell_output docutils container">\\n<img alt="a plot" src="_images/ab.png" />'
    >>> print(link_plots(page, Path(tempfile.mkdtemp())))
    <div class="cell_output docutils container">
    <a class="bpe-plot-link" href="_images/ab.png" title="Open the plot at full size"><img alt="a plot" src="_images/ab.png" /></a>
    >>> still = '<div class="bpe-still-widget bpe-still-image"><img alt="x" src="data:image/png;base64,iVBORw=="></div>'
    >>> print(link_plots(still, Path(tempfile.mkdtemp()) / "_images"))  # doctest: +ELLIPSIS
    <div ...><a class="bpe-plot-link" href="_images/still-...png" ...><img alt="x" src="_images/still-...png"></a></div>
    """
    def link(match: re.Match) -> str:
        before, img, src = match.groups()
        if data := DATA_PNG.fullmatch(src):
            png = base64.b64decode(data.group(1))
            name = f"still-{hashlib.sha256(png).hexdigest()[:20]}.png"
            images.mkdir(parents=True, exist_ok=True)
            (images / name).write_bytes(png)
            img, src = img.replace(match.group(3), f"{images.name}/{name}"), f"{images.name}/{name}"
        return f'{before}<a class="bpe-plot-link" href="{src}" title="Open the plot at full size">{img}</a>'

    return PLOT.sub(link, page)


def clear_output(out: Path) -> None:
    """Empty ``out`` for a fresh build, but only if it is empty or an earlier site build."""
    if out.exists():
        if not out.is_dir():
            raise SiteError(f"{out} exists and is not a folder; choose another --out")
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise SiteError(f"{out} is not empty and was not made by this script; refusing to delete it "
                            f"(choose another --out, or empty it yourself)")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def build(out: Path = DEFAULT_OUT, notebooks: Path = NOTEBOOKS, stills_dir: Path = STILLS,
          quiet: bool = True) -> dict[str, int]:
    """Build the site into ``out``; return ``{notebook name: widgets swapped}``."""
    clear_output(out)
    with tempfile.TemporaryDirectory(prefix="bpe-site-") as tmp:
        # subtle: myst-nb writes its "jupyter_execute" folder next to Sphinx's output folder, so
        # Sphinx writes into the temporary folder too, and the finished site is moved to `out`.
        src, doctrees, html = Path(tmp) / "src", Path(tmp) / "doctrees", Path(tmp) / "build" / "html"
        src.mkdir()
        swapped = write_sources(src, notebooks, stills_dir)
        # -W --keep-going: any warning (a broken link, a missing page) fails the build, listing them all.
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(CONF_DIR), "-d", str(doctrees),
                   "-W", "--keep-going", "-n", *(["-q"] if quiet else []), str(src), str(html)]
        run = subprocess.run(command, capture_output=quiet, text=True)
        if run.returncode != 0:
            raise SiteError(f"Sphinx failed (exit {run.returncode}):\n{run.stderr or run.stdout}")
        shutil.rmtree(html / "_sources", ignore_errors=True)  # empty: html_copy_source is off
        for page in sorted(html.glob("[0-9][0-9]_*.html")):
            page.write_text(link_plots(page.read_text(encoding="utf-8"), html / "_images"), encoding="utf-8")
        shutil.copytree(html, out, dirs_exist_ok=True)
    (out / MARKER).write_text("made by tools/build_site.py; `make site` may delete and rebuild this folder\n")
    shutil.copytree(notebooks, out / "notebooks",
                    ignore=lambda _dir, names: [n for n in names if not CHAPTER.match(n)])
    return swapped


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: build/site)")
    parser.add_argument("--verbose", action="store_true", help="show Sphinx's progress")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        swapped = build(args.out.resolve(), quiet=not args.verbose)
    except (SiteError, StillError) as error:
        print(f"make site: {error}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - started
    appendices = sum(is_appendix(name) for name in swapped)
    what = f"{len(swapped) - appendices} chapters" + (f" and {appendices} appendices" if appendices else "")
    print(f"built {what} ({sum(swapped.values())} widgets as stills) in {seconds:.1f} s: "
          f"{folder_size(args.out) / 1e6:.1f} MB in {args.out}")
    print(f"serve it: python3 -m http.server -d {args.out}, then open http://localhost:8000/ "
          f"(or open {args.out / 'index.html'} as a file: all but search's snippets work)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
