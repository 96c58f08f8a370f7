/* The course website's two small repairs. Loaded on every page, after documentation_options.js.

   1. The sidebar buttons on a phone. pydata-sphinx-theme (0.17 and later) puts a ☰ button of its own
      in a header that the Sphinx Book Theme hides, and wires only the FIRST `.primary-toggle` (and
      `.secondary-toggle`) of the page: the hidden one. The buttons a reader sees, in the article's
      header, then do nothing (pydata-sphinx-theme issue #2451). Here a click on a visible button
      that changed nothing is passed on to the wired one, which opens the chapter menu or the
      contents (on a wide screen: hides or shows the sidebar). Should a later theme wire the visible
      buttons itself, the click does change something and nothing is passed on.

   2. Search, opened as a file (file://…/search.html). Sphinx fetches each hit's page to show a
      snippet, and a browser refuses fetch() on file:// URLs (one console error per hit). Opened as a
      file, the results list the pages without snippets, and a line says how to get them: serve the
      folder (python3 -m http.server -d build/site).

   3. On a phone, choosing a section in the contents (or a chapter in the menu) closes the dialog, so
      the page underneath shows where the reader asked to go. */

(function () {
  "use strict";

  const fromAFile = window.location.protocol === "file:";
  if (fromAFile && typeof DOCUMENTATION_OPTIONS !== "undefined") {
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  }

  function sidebarState(kind) {
    const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
    const sidebar = document.getElementById(`pst-${kind}-sidebar`);
    return [dialog && dialog.open, sidebar && sidebar.className].join("|");
  }

  function wireToggles() {
    for (const kind of ["primary", "secondary"]) {
      const buttons = Array.from(document.querySelectorAll(`.${kind}-toggle`));
      const wired = buttons[0];
      buttons.slice(1).forEach((button) => {
        button.addEventListener("click", () => {
          const before = sidebarState(kind);
          // subtle: after the theme's own handlers (if any) had their turn
          window.setTimeout(() => {
            if (sidebarState(kind) === before) wired.click();
          }, 0);
        });
      });
    }
  }

  function noteOnFileSearch() {
    if (!fromAFile || !document.getElementById("search-results")) return;
    const note = document.createElement("p");
    note.className = "bpe-file-search-note";
    note.textContent = "Opened as a file, the search lists the pages without snippets. For snippets, serve " +
      "the site: python3 -m http.server -d build/site, then open http://localhost:8000/.";
    const results = document.getElementById("search-results");
    results.parentNode.insertBefore(note, results);
  }

  function closeDialogsOnChoice() {
    document.addEventListener("click", (event) => {
      const link = event.target.closest && event.target.closest("dialog[open] a[href]");
      if (link) link.closest("dialog").close(); // the link is still followed
    });
  }

  function ready() {
    wireToggles();
    closeDialogsOnChoice();
    noteOnFileSearch();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
