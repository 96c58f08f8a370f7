"""Sphinx configuration of the course website; build it with ``make site`` (tools/build_site.py).

The pages are the stored, executed notebooks: nothing is run again. tools/build_site.py copies
them to a temporary source folder (widgets swapped for still pictures, a "run it yourself" line
added under each title), writes the landing page there, and calls Sphinx with this folder as
its configuration directory.
"""

project = "bpe-course"
author = "the bpe-course authors"
copyright = "the bpe-course authors, MIT licence"  # noqa: A001 (Sphinx's name)
html_title = "bpe-course: byte-pair encoding, from characters to GPT-4"
html_last_updated_fmt = None

extensions = ["myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["myst.header"]  # chapters start at their own "# NN · title" level

# --- notebooks: shown as stored, never executed
nb_execution_mode = "off"
nb_merge_streams = True
# subtle: myst-nb would add require.js and the ipywidgets HTML manager from a CDN to any page
# whose notebook carries widget state. The stored notebooks carry none, and the build swaps every
# widget for a still picture, but an empty dict makes sure no page ever asks a CDN for them.
nb_ipywidgets_js = {}

# --- nothing is loaded from outside the site
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["bpe_site.css"]
# the phone's chapter menu and contents buttons, and search opened as a file: see the script's header
html_js_files = ["bpe_site.js"]
html_favicon = "_static/favicon.svg"  # else the browser asks for /favicon.ico and logs a 404 error
html_copy_source = False       # the notebooks themselves are linked from each page instead
html_show_sourcelink = False
# subtle: without a default mode the theme's script logs "Got invalid theme mode" as a console
# error. Light, as in JupyterLab: the chapters' chips and merge trees are drawn for a light page.
html_context = {"default_mode": "light"}
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "show_prev_next": True,
    "navigation_with_keys": False,
    "launch_buttons": {},
    "extra_footer": "Built from the stored notebooks. Every page reads offline.",
}
