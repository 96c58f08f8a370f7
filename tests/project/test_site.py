"""The course website (``make site``): built once per test run into a temporary folder, then checked.

The build runs ``tools/build_site.py`` exactly as ``make site`` does, only with ``--out`` in pytest's
temporary folder. Under ``pytest -n 2`` both workers share one build (a file lock in the run's
temporary root), and ``tests/browser/test_site.py`` reuses it too.
"""

from __future__ import annotations

import doctest
import fcntl
import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

pytestmark = pytest.mark.slow  # builds the whole website: make quick leaves it out

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if re.match(r"\d\d_", p.name))
VIEW_MIME = "application/vnd.jupyter.widget-view+json"


def _tool(name: str) -> ModuleType:
    """Import ``tools/<name>.py`` (tools/ is not a package)."""
    if name not in sys.modules:
        sys.path.insert(0, str(ROOT / "tools"))
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# --------------------------------------------------------------------------- building once


def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built by ``tools/build_site.py`` once per test run (shared by xdist workers)."""
    # subtle: under xdist each worker has its own basetemp; their parent is the run's own folder.
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    root = shared / "bpe-site"
    root.mkdir(exist_ok=True)
    out, record = root / "html", root / "build.json"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            started = time.monotonic()
            run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_site.py"), "--out", str(out)],
                                 cwd=ROOT, capture_output=True, text=True, timeout=600)
            record.write_text(json.dumps({"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
                                          "seconds": time.monotonic() - started}))
    result = json.loads(record.read_text())
    assert result["returncode"] == 0, f"make site failed:\n{result['stderr']}"
    print(f"[site] built in {result['seconds']:.1f} s: {result['stdout'].splitlines()[0]}")
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_site(tmp_path_factory)


# --------------------------------------------------------------------------- reading pages


class PageParser(HTMLParser):
    """Every URL a page refers to, as ``(tag, attribute, url)``, and every element id."""

    URL_ATTRS = {"href", "src", "srcset", "poster", "data"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in self.URL_ATTRS and value is not None:
                urls = [part.strip().split(" ")[0] for part in value.split(",")] if name == "srcset" else [value]
                self.urls += [(tag, name, url) for url in urls]
            if name == "style" and value:
                self.styles.append(value)
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def parse(page: Path) -> PageParser:
    parser = PageParser()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def is_outside(url: str) -> bool:
    """Does ``url`` point outside the site (a scheme other than data:, or a //host/ URL)?

    >>> [is_outside(u) for u in ("https://cdn.example/x.js", "//cdn.example/x.js", "_static/a.css", "data:image/png;base64,AA", "#top")]
    [True, True, False, False, False]
    """
    parts = urlsplit(url)
    return bool(parts.netloc) or (bool(parts.scheme) and parts.scheme not in ("data",))


CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def css_urls(text: str) -> list[str]:
    """The URLs a stylesheet loads (``url(...)`` and ``@import``)."""
    return [a or b for a, b in CSS_URL.findall(text)]


def first_heading(notebook: Path) -> str:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise AssertionError(f"{notebook.name} has no '# title'")


def widget_count(notebook: Path) -> int:
    nb = nbformat.read(notebook, as_version=4)
    return sum(VIEW_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def png_count(notebook: Path) -> int:
    nb = nbformat.read(notebook, as_version=4)
    return sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def page_text(page_html: str) -> str:
    """What a reader sees: the text without tags, whitespace runs as one space."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page_html)))


def html_output_count(notebook: Path, marker: str) -> int:
    """How often ``marker`` occurs in the stored notebook's HTML outputs."""
    nb = nbformat.read(notebook, as_version=4)
    return sum(o["data"]["text/html"].count(marker) for c in nb.cells if c.cell_type == "code"
               for o in c.outputs if "text/html" in o.get("data", {}))


def stills(page_html: str) -> list[str]:
    return re.findall(r'<figure class="bpe-widget-still">.*?</figure>', page_html, re.S)


# --------------------------------------------------------------------------- the tests


def site_heading(notebook: Path) -> str:
    """The chapter's title as the site shows it ("NN · Title", "Appendix A · Title")."""
    return _tool("build_site").site_title(f"# {first_heading(notebook)}")[2:]


def test_one_page_per_chapter_and_a_landing_page(site):
    assert len(CHAPTERS) >= 13
    pages = sorted(p.name for p in site.glob("[0-9][0-9]_*.html"))
    assert pages == [p.with_suffix(".html").name for p in CHAPTERS]
    landing = (site / "index.html").read_text(encoding="utf-8")
    for command in ("make lab", "make test"):
        assert command in page_text(landing)
    # the count is the chapters' own (appendices, numbered 90 and up, counted apart), never typed in
    build_site = _tool("build_site")
    appendices = sum(build_site.is_appendix(p.name) for p in CHAPTERS)
    assert f"{build_site.in_words(len(CHAPTERS) - appendices)} chapters" in page_text(landing)
    for notebook in CHAPTERS:
        title = site_heading(notebook)
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        # subtle: MyST sets typographic quotes (GPT-4's -> GPT-4’s) on the page
        assert f"<h1>{html.escape(title, quote=False)}" in page.replace("’", "'"), notebook.name
        # the chapter map on the landing page and the sidebar on every page link to it
        assert f'href="{notebook.stem}.html"' in landing, notebook.name


def test_sidebar_lists_the_chapters_in_order_and_pages_link_prev_and_next(site):
    names = [p.stem for p in CHAPTERS]
    build_site = _tool("build_site")
    for i, name in enumerate(names):
        page = (site / f"{name}.html").read_text(encoding="utf-8")
        sidebar = re.search(r'<nav class="[^"]*bd-docs-nav.*?</nav>', page, re.S).group(0)
        entries = re.findall(r'<a class="[^"]*reference internal" href="([^"]+)">(.*?)</a>', sidebar, re.S)
        links = [name if href == "#" else href.removesuffix(".html") for href, _ in entries]
        assert links == ["index", *names, "references"], name  # the page itself is the sidebar's "current" link
        # every chapter titled alike, "NN · Title"; from 90 up "Appendix A · Title", under their own caption
        for (_, text), notebook in zip(entries[1:], CHAPTERS):
            text = page_text(text).strip()
            if build_site.is_appendix(notebook.name):
                assert re.match(r"Appendix [A-Z] · \S", text), text
            else:
                assert text.startswith(f"{notebook.name[:2]} · "), text
        captions = re.findall(r'<span class="caption-text">(.*?)</span>', sidebar)
        has_appendices = any(build_site.is_appendix(p.name) for p in CHAPTERS)
        assert captions == ["Chapters", *(["Appendices"] if has_appendices else []), "More"], name
        footer = re.search(r'<footer class="prev-next-footer.*?</footer>', page, re.S).group(0)
        previous = "index" if i == 0 else names[i - 1]
        assert f'href="{previous}.html"' in footer, name
        if i + 1 < len(names):
            assert f'href="{names[i + 1]}.html"' in footer, name


def test_every_page_links_its_notebook_and_says_how_to_run_it(site):
    for notebook in CHAPTERS:
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        box = re.search(r'<div class="admonition tip bpe-run-locally">.*?</div>', page, re.S)
        assert box, notebook.name
        assert f'href="notebooks/{notebook.name}"' in box.group(0)
        # what to open is said from where `make lab` puts the learner: their own copy, my_notebooks/
        said = page_text(box.group(0))
        assert "make lab" in said and "my_notebooks/" in said and f"open {notebook.name}" in said, said
        # the linked file is the stored notebook itself, byte for byte
        assert (site / "notebooks" / notebook.name).read_bytes() == notebook.read_bytes()


def test_every_internal_link_and_image_resolves(site):
    pages = sorted(site.glob("*.html"))  # subtle: _static/ holds a theme's template, not a page
    assert len(pages) >= len(CHAPTERS) + 1
    ids = {page: parse(page).ids for page in pages}
    checked = 0
    for page in pages:
        parsed = parse(page)
        for tag, attr, url in parsed.urls:
            if is_outside(url) or url.startswith(("data:", "mailto:", "javascript:")):
                continue
            parts = urlsplit(url)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert target.exists(), f"{page.relative_to(site)}: <{tag} {attr}={url!r}> points at nothing"
            if parts.fragment and target.suffix == ".html":
                assert unquote(parts.fragment) in ids[target], f"{page.relative_to(site)}: no #{parts.fragment} in {url}"
            checked += 1
    assert checked > 500  # sidebar, prev/next, chapter links, scripts, stylesheets, images


def test_no_page_loads_anything_from_outside(site):
    """Scripts, stylesheets, images, fonts, frames: all from the site itself (it must read offline)."""
    problems = []
    for page in sorted(site.glob("*.html")):
        parsed = parse(page)
        for tag, attr, url in parsed.urls:
            if tag == "a" and attr == "href":
                continue  # a plain link to another site loads nothing
            if is_outside(url):
                problems.append(f"{page.relative_to(site)}: <{tag} {attr}={url}>")
        for style in parsed.styles:
            problems += [f"{page.relative_to(site)}: inline style loads {u}" for u in css_urls(style) if is_outside(u)]
        text = page.read_text(encoding="utf-8")
        problems += [f"{page.relative_to(site)}: a script imports {u}" for u in
                     re.findall(r"""import\(\s*['"]((?:https?:)?//[^'"]+)""", text)]
    for css in sorted(site.rglob("*.css")):
        for url in css_urls(css.read_text(encoding="utf-8", errors="replace")):
            if is_outside(url):
                problems.append(f"{css.relative_to(site)}: loads {url}")
            elif not url.startswith("data:"):
                target = (css.parent / unquote(urlsplit(url).path)).resolve()
                assert target.exists(), f"{css.relative_to(site)}: url({url}) points at nothing"
    assert not problems, "\n".join(problems)
    # what myst-nb would add from a CDN if a notebook carried widget state, and MathJax
    for page in sorted(site.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for word in ("require.js", "require.min.js", "embed-amd", "html-manager", "mathjax", "widget-state+json"):
            assert word not in text.lower(), f"{page.relative_to(site)} mentions {word}"


def test_plots_and_html_outputs_are_on_the_pages(site):
    for notebook in CHAPTERS:
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        images = [u for t, a, u in parse(site / notebook.with_suffix(".html").name).urls
                  if t == "img" and u.startswith("_images/") and not u.startswith("_images/still-")]
        assert len(images) == png_count(notebook), notebook.name
        # chips and merge trees (HTML and SVG outputs) pass through as they are, outside the widget stills too
        outside_stills = re.sub(r'<figure class="bpe-widget-still">.*?</figure>', "", page, flags=re.S)
        for marker in ('class="bpe-chip"', "<svg", 'class="dataframe'):
            assert outside_stills.count(marker) == html_output_count(notebook, marker), (notebook.name, marker)
    assert sum(html_output_count(nb, '<svg class="bpe-merge-tree-svg"') for nb in CHAPTERS) >= 1
    assert sum(html_output_count(nb, 'class="bpe-chip"') for nb in CHAPTERS) >= 100
    assert sum(html_output_count(nb, 'class="dataframe') for nb in CHAPTERS) >= 10


def test_every_plot_links_to_itself_so_a_tap_opens_it_at_full_size(site):
    """On a phone a plot fills the column at a third of its size; each one (a cell's, a widget still's) is a link
    to its own file, which the browser opens alone, at full size."""
    linked = 0
    for notebook in CHAPTERS:
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        images = re.findall(r"<img [^>]*>", page)
        wrapped = re.findall(r'<a class="bpe-plot-link" href="([^"]+)"[^>]*>(<img [^>]*>)</a>', page)
        assert len(wrapped) == len(images), f"{notebook.name}: {len(images) - len(wrapped)} plots are not links"
        for href, img in wrapped:
            assert f'src="{href}"' in img and (site / href).is_file(), (notebook.name, href)
        assert "data:image" not in page, notebook.name  # a still's picture is a file too: a link can open it
        linked += len(wrapped)
    assert linked >= sum(png_count(nb) for nb in CHAPTERS) + 2  # the plots, and at least two widget stills' pictures


def test_each_widget_is_a_still_with_the_live_line(site):
    total = 0
    for notebook in CHAPTERS:
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        found = stills(page)
        assert len(found) == widget_count(notebook), notebook.name
        for figure in found:
            assert "live in JupyterLab" in figure and f"<code>{notebook.name}</code>" in figure
            assert "<code>my_notebooks/</code>" in figure and f"notebooks/{notebook.name}" not in figure
        assert "widget-view+json" not in page and "Loading widget" not in page, notebook.name
        total += len(found)
    assert total >= 10


def test_the_merge_tree_still_shows_gpt2s_tokens_of_its_text(site, gpt2_tok):
    from bpe_course.viz import token_label

    (figure,) = stills((site / "09_gpt2_rank_for_rank.html").read_text(encoding="utf-8"))
    text = html.unescape(re.search(r'bpe-merge-tree-text.*?<span class="bpe-still-field">(.*?)</span>', figure,
                                   re.S).group(1))
    ids = gpt2_tok.encode_ordinary(text)
    assert [int(i) for i in re.findall(r'data-id="(\d+)"', figure)] == ids
    assert figure.count('<svg class="bpe-merge-tree-svg"') == len(ids)
    leaves = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", figure)]
    for token in gpt2_tok.token_bytes(ids):
        assert token_label(token) in leaves


def test_the_playground_still_shows_each_tokenizers_ids(site, gpt2_tok, cl100k_tok):
    figure = next(f for f in stills((site / "10_gpt4_cl100k.html").read_text(encoding="utf-8"))
                  if "bpe-playground" in f)  # the playground's still (the merge-count slider has one too)
    text = html.unescape(re.search(r'bpe-still-area">(.*?)</span>', figure, re.S).group(1))
    rows = dict(re.findall(r'data-name="([^"]+)">(.*?)</div></div>', figure, re.S))
    for name, tok in (("GPT-2", gpt2_tok), ("GPT-4", cl100k_tok)):
        assert [int(i) for i in re.findall(r'data-id="(\d+)"', rows[name])] == tok.encode(text, allowed_special="all")


def test_a_stale_or_missing_still_stops_the_build_with_the_fix(tmp_path):
    stills_tool = _tool("widget_stills")
    nb = nbformat.read(NOTEBOOKS / "03_training_loop.ipynb", as_version=4)
    ci = next(ci for ci, *_ in stills_tool.widget_outputs(nb))
    nb.cells[ci].source += "\n# changed"
    with pytest.raises(stills_tool.StillError, match=r"03_training_loop.ipynb, cell \d+ .*tools/widget_stills.py 03"):
        stills_tool.replace_widget_outputs(nb, "03_training_loop.ipynb")
    with pytest.raises(stills_tool.StillError, match=r"no widget still in .*widget_stills.py 03"):
        stills_tool.replace_widget_outputs(nb, "03_training_loop.ipynb", stills_dir=tmp_path)
    # the current stills fit the stored notebooks
    for notebook in CHAPTERS:
        stored = nbformat.read(notebook, as_version=4)
        assert stills_tool.replace_widget_outputs(stored, notebook.name) == widget_count(notebook)


def test_a_link_to_the_references_leads_to_the_references_page(site):
    linking = [p for p in CHAPTERS if "](../docs/references.md" in p.read_text(encoding="utf-8")]
    assert linking, "no chapter links ../docs/references.md any more: this test checks nothing"
    for notebook in linking:
        page = (site / notebook.with_suffix(".html").name).read_text(encoding="utf-8")
        assert 'href="references.html' in page and "../docs/" not in page, notebook.name


def test_every_page_loads_the_sites_script(site):
    """``_static/bpe_site.js`` repairs the phone's sidebar buttons (tests/browser/test_site.py tries them)."""
    for page in sorted(site.glob("*.html")):
        assert '<script src="_static/bpe_site.js' in page.read_text(encoding="utf-8"), page.name
    assert (site / "_static" / "bpe_site.js").is_file()


def test_the_build_never_deletes_a_folder_it_did_not_make(tmp_path):
    build_site = _tool("build_site")
    mine = tmp_path / "my_notes"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_site.py"), "--out", str(mine)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "refusing to delete it" in run.stderr
    assert (mine / "notes.txt").read_text() == "mine"
    assert build_site.MARKER not in [p.name for p in mine.iterdir()]


def test_the_tools_doctests():
    for name in ("widget_stills", "build_site"):
        result = doctest.testmod(_tool(name))
        assert result.attempted >= 1 and result.failed == 0, name


def test_the_readmes_site_size_is_the_built_sites(site):
    """The README gives the site's size (and no time, which depends on the machine); within a quarter of a fresh build."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = re.search(r"The site is about (\d+(?:\.\d+)?) MB", readme)
    assert said, "the README no longer says how big the site is"
    built = _tool("build_site").folder_size(site) / 1e6
    assert abs(built - float(said.group(1))) <= 0.25 * built, f"README: about {said.group(1)} MB; built: {built:.1f} MB"


def test_make_site_runs_the_build_script():
    dry = subprocess.run(["make", "-n", "-o", ".venv/.installed", "site"], cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "tools/build_site.py" in dry.stdout
