# Two commands do all set-up on a fresh machine with only python3:
#   make lab    open the course in JupyterLab (options for JupyterLab: make lab ARGS="--allow-root --port 8890")
#   make test   run every test (unit, property, notebooks, browser)
# While you work: make quick   unit, property and doctests only (no notebooks, no browser, no slow project tests)
VENV   ?= .venv
PYTHON ?= python3
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: lab test quick install browser notebooks bench site clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/bpe-course lab $(ARGS)

# The browser tests need Chromium: installed from the system's packages if it is not there yet.
browser:
	bash tools/install_chromium.sh

test: $(STAMP) browser
	$(PY) -m pytest -n 2 --dist loadfile -q

# The loop while you work: the unit, property and doctests, with no nbval (notebooks), no browser and no test
# marked slow (the website, the wheel, the benchmarks end to end, a fresh clone); make test runs those too.
quick: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile -q -m "not slow" -o addopts="--doctest-modules -p no:cacheprovider" \
		tests bpe_course --ignore=tests/browser

# Developers: rebuild and re-execute the stored notebooks from chapters/.
notebooks: $(STAMP)
	$(PY) tools/build_notebooks.py
	$(PY) tools/widget_stills.py

bench: $(STAMP)
	$(PY) -m benchmarks

# The course as a website in build/site/: the stored notebooks as an HTML book (nothing re-run, no network).
site: $(STAMP)
	$(PY) tools/build_site.py

clean:
	rm -rf $(VENV) build *.egg-info
