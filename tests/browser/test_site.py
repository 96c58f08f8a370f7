"""The course website in a real browser: landing page, the sidebar to two chapters, search; on a
phone (390 px wide) the chapter menu and the contents; search opened as a file.

The site is the one ``tests/project/test_site.py`` builds once per run, served by a small ``http.server``
on 127.0.0.1. Every request the page makes to any other address is blocked and fails the test,
as does any console error or failed request: the site must read correctly offline.

The test saves a screenshot of a chapter page to tests/artifacts/site_chapter.png; with
``BPE_COURSE_UPDATE_SCREENSHOTS=1`` it also rewrites the README's docs/images/site_chapter.png.
"""

from __future__ import annotations

import collections
import functools
import http.server
import itertools
import os
import re
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Page, expect

from project.test_site import CHAPTERS, built_site, first_heading, site_heading  # tests/project/test_site.py: one build per run

from .lab_page import ARTIFACTS, README_IMAGES, TIMEOUT_MS, UPDATE_SCREENSHOTS

pytestmark = pytest.mark.browser

FIRST, SECOND = "03_training_loop", "09_gpt2_rank_for_rank"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = built_site(tmp_path_factory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class Watched:
    """A page whose console errors, failed requests and requests to other hosts are all recorded."""

    def __init__(self, page: Page, base: str) -> None:
        self.page, self.base, self.problems = page, base, []
        page.set_default_timeout(TIMEOUT_MS)
        page.on("console", lambda m: self.problems.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.aborted: list[str] = []
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        page.route("**/*", self._only_this_site)

    def _only_this_site(self, route) -> None:
        url = route.request.url
        if url.startswith((self.base, "data:", "blob:")):
            route.continue_()
        else:
            self.problems.append(f"asked for something outside the site: {url}")
            route.abort()

    def _failed(self, request) -> None:
        if request.url.startswith(("data:", "blob:")):
            return
        if request.failure == "net::ERR_ABORTED" and request.url.startswith(self.base):
            # subtle: the browser cancels what is still loading (the favicon, say) when a click starts the
            # next page; that is no fault of the site's, a file it cannot serve is, so this is checked later
            self.aborted.append(request.url)
        else:
            self.problems.append(f"request failed: {request.url} ({request.failure})")

    def assert_clean(self) -> None:
        for url in self.aborted:  # a cancelled request is a problem only if the site cannot serve the file
            try:
                with urllib.request.urlopen(url, timeout=10) as answer:
                    answer.read()
            except OSError as exc:
                self.problems.append(f"request failed and the file is not served: {url} ({exc})")
        assert not self.problems, "the site misbehaved in the browser:\n" + "\n".join(self.problems)


def word_only_in(chapter: str) -> str:
    """The most frequent longer word of one chapter's prose that no other chapter's prose uses."""
    counts = {}
    for notebook in CHAPTERS:
        nb = nbformat.read(notebook, as_version=4)
        prose = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
        counts[notebook.stem] = collections.Counter(w.lower() for w in re.findall(r"\b[A-Za-z]{7,}\b", prose))
    elsewhere = set().union(*(set(c) for name, c in counts.items() if name != chapter))
    ranked = sorted(((-n, w) for w, n in counts[chapter].items() if w not in elsewhere))
    assert ranked, f"{chapter} has no word of its own"
    return ranked[0][1]


def notebook(stem: str) -> Path:
    return next(p for p in CHAPTERS if p.stem == stem)


def chapter_title(stem: str) -> str:
    return site_heading(notebook(stem)).replace("'", "’")  # MyST sets typographic quotes


def test_landing_page_sidebar_and_search(browser, site_url):
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.goto(site_url + "index.html")
        expect(page.locator("h1").first).to_contain_text("bpe-course")
        expect(page.locator("article")).to_contain_text("make lab")
        expect(page.locator("article")).to_contain_text("make test")
        sidebar = page.locator("nav.bd-docs-nav")
        expect(sidebar.locator("a.reference")).to_have_count(len(CHAPTERS) + 2)  # landing page, chapters, references

        # Follow the sidebar to two chapters.
        for stem in (FIRST, SECOND):
            sidebar.get_by_role("link", name=chapter_title(stem), exact=True).click()
            expect(page).to_have_url(re.compile(rf"/{stem}\.html$"))
            expect(page.locator("article h1").first).to_contain_text(chapter_title(stem))
            run_box = page.locator(".bpe-run-locally")
            expect(run_box).to_contain_text("make lab")
            expect(run_box.locator("a.bpe-notebook-link")).to_have_attribute("href", f"notebooks/{stem}.ipynb")
            still = page.locator("figure.bpe-widget-still").first
            expect(still).to_be_visible()
            expect(still.locator("figcaption")).to_contain_text("live in JupyterLab")
            if stem == FIRST:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                still.scroll_into_view_if_needed()
                shot = ARTIFACTS / "site_chapter.png"
                page.screenshot(path=str(shot), animations="disabled")
                if os.environ.get(UPDATE_SCREENSHOTS) == "1":
                    README_IMAGES.mkdir(parents=True, exist_ok=True)
                    (README_IMAGES / "site_chapter.png").write_bytes(shot.read_bytes())
                page.evaluate("window.scrollTo(0, 0)")

        # The notebook link serves the stored notebook.
        served = page.request.get(site_url + f"notebooks/{SECOND}.ipynb")
        assert served.ok and served.body() == notebook(SECOND).read_bytes()

        # Search for a word only chapter 09's prose uses; its page is found, and the link opens it.
        word = word_only_in(SECOND)
        page.keyboard.press("Control+K")
        box = page.locator("#pst-search-dialog input[name=q]")
        expect(box).to_be_focused()
        box.fill(word)
        box.press("Enter")
        expect(page).to_have_url(re.compile(r"/search\.html\?q="))
        hit = page.locator(f"#search-results a[href*='{SECOND}.html']").first
        expect(hit).to_be_visible()
        expect(page.locator("#search-results")).to_contain_text(chapter_title(SECOND))
        hit.click()
        expect(page).to_have_url(re.compile(rf"/{SECOND}\.html"))
        expect(page.locator("article")).to_contain_text(word, ignore_case=True)
        watched.assert_clean()
    finally:
        page.close()


PHONE = {"width": 390, "height": 844}


def test_on_a_phone_the_menu_and_the_contents_open(browser, site_url):
    """The ☰ button opens the chapter menu, a chapter in it opens; the contents button lists the page's sections.

    (pydata-sphinx-theme 0.17+ wires only a hidden copy of these buttons; docs/site/_static/bpe_site.js
    passes a click on the visible one on.)
    """
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.set_viewport_size(PHONE)
        page.goto(site_url + f"{FIRST}.html")
        menu = page.locator("#pst-primary-sidebar-modal")
        expect(menu).not_to_be_visible()
        page.locator(".primary-toggle:visible").click()
        expect(menu).to_be_visible()
        target = menu.get_by_role("link", name=chapter_title(SECOND), exact=True)
        expect(target).to_be_visible()
        assert menu.bounding_box()["width"] <= PHONE["width"]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "site_phone_menu.png"))
        target.click()
        expect(page).to_have_url(re.compile(rf"/{SECOND}\.html$"))

        contents = page.locator("#pst-secondary-sidebar-modal")
        expect(contents).not_to_be_visible()
        page.locator(".secondary-toggle:visible").click()
        expect(contents).to_be_visible()
        sections = contents.locator("nav.page-toc a")
        assert sections.count() >= 3
        page.screenshot(path=str(ARTIFACTS / "site_phone_contents.png"))
        first = sections.first
        anchor = first.get_attribute("href")
        first.click()
        expect(contents).not_to_be_visible()
        expect(page).to_have_url(re.compile(re.escape(anchor) + "$"))
        watched.assert_clean()
    finally:
        page.close()


def test_on_a_phone_every_page_fits_the_screen(browser, site_url, tmp_path_factory):
    """No page slides sideways at 390 px, solution boxes open: long inline code names wrap (chapters 08, 09, 10,
    12 and 18 and the references did not); code cells, tables and stills scroll inside their own box."""
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.set_viewport_size(PHONE)
        pages = sorted(p.name for p in built_site(tmp_path_factory).glob("*.html"))
        assert len(pages) >= len(CHAPTERS) + 2
        too_wide = {}
        for name in pages:
            page.goto(site_url + name)
            page.evaluate("document.querySelectorAll('article details').forEach(box => box.open = true)")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide[name] = width
        assert not too_wide, f"pages wider than the phone's {PHONE['width']} px: {too_wide}"
        watched.assert_clean()
    finally:
        page.close()


def test_on_a_phone_a_tap_on_a_plot_opens_it_at_full_size(browser, site_url):
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.set_viewport_size(PHONE)
        for stem, selector in (("06_vocabulary_size", ".cell_output img"), ("16_what_a_tokenizer_does_to_a_model",
                                                                          ".bpe-still-image img")):
            page.goto(site_url + f"{stem}.html")
            plot = page.locator(f"article {selector}").first
            plot.scroll_into_view_if_needed()
            shown = plot.bounding_box()["width"]
            assert shown <= PHONE["width"]
            src = plot.get_attribute("src")
            plot.click()  # a tap, to the page (the context has no touch screen)
            expect(page).to_have_url(re.compile(re.escape(src) + "$"))
            natural = page.evaluate("document.images[0].naturalWidth")
            assert natural >= 2 * shown, f"{stem}: the plot opened is {natural} px wide, shown {shown:.0f} px in the page"
        watched.assert_clean()
    finally:
        page.close()


def test_on_a_phone_the_widget_stills_keep_their_parts_apart_and_words_whole(browser, site_url):
    """Chapter 19's conversation editor: the template buttons, the messages and the status line do not overlap.
    Chapter 03's chips: a line never breaks inside a word (each word's chips share one line)."""
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.set_viewport_size(PHONE)
        page.goto(site_url + "19_llama_and_the_chat_template.html")
        still = page.locator("figure.bpe-widget-still").first
        still.scroll_into_view_if_needed()
        boxes = [still.locator(css).first.bounding_box() for css in
                 (".bpe-chat-version", ".bpe-chat-messages .bpe-still-field", ".bpe-chat-status", ".bpe-chat-chips")]
        for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
            overlap = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
            assert overlap <= 0.5, f"parts {i} and {j} of chapter 19's still overlap by {overlap:.0f} px"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        still.screenshot(path=str(ARTIFACTS / "site_phone_ch19_still.png"))

        page.goto(site_url + "03_training_loop.html")
        chips = page.locator("figure.bpe-widget-still .bpe-chips").first
        chips.scroll_into_view_if_needed()
        words = chips.locator(".bpe-word-group")
        assert words.count() >= 10
        lines = words.evaluate_all("groups => groups.map(g => [...g.querySelectorAll('.bpe-chip')].map("
                                   "c => Math.round(c.getBoundingClientRect().top)))")
        assert all(len(set(tops)) == 1 for tops in lines), "a word's chips are split over two lines"
        assert len({tops[0] for tops in lines}) >= 3  # the sentence does wrap, at word boundaries
        chips.screenshot(path=str(ARTIFACTS / "site_phone_ch03_chips.png"))
        watched.assert_clean()
    finally:
        page.close()


def test_on_a_wide_screen_the_menu_button_hides_and_shows_the_sidebar(browser, site_url):
    watched = Watched(browser.new_page(), site_url)
    page = watched.page
    try:
        page.set_viewport_size({"width": 1400, "height": 900})
        page.goto(site_url + f"{FIRST}.html")
        sidebar = page.locator("#pst-primary-sidebar")
        expect(sidebar).to_be_visible()
        page.locator(".primary-toggle:visible").click()
        expect(sidebar).to_have_class(re.compile(r"pst-sidebar-hidden"))
        page.locator(".primary-toggle:visible").click()
        expect(sidebar).not_to_have_class(re.compile(r"pst-sidebar-hidden"))
        expect(page.locator("#pst-primary-sidebar-modal")).not_to_be_visible()
        watched.assert_clean()
    finally:
        page.close()


def test_search_opened_as_a_file_finds_the_page_and_says_how_to_get_snippets(browser, tmp_path_factory):
    """``file://…/search.html``: the hits are listed, no fetch fails, and a line says to serve the site."""
    root = built_site(tmp_path_factory)
    base = root.as_uri() + "/"
    watched = Watched(browser.new_page(), base)
    page = watched.page
    try:
        word = word_only_in(SECOND)
        page.goto(base + f"search.html?q={word}")
        hit = page.locator(f"#search-results a[href*='{SECOND}.html']").first
        expect(hit).to_be_visible()
        expect(page.locator(".bpe-file-search-note")).to_contain_text("python3 -m http.server")
        expect(page.locator("#search-results")).to_contain_text("Search finished")
        watched.assert_clean()  # no "Failed to fetch" for the snippets
    finally:
        page.close()
