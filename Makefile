# On first use every target creates a local virtual environment in .venv and installs
# the package into it, so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test
DOCSTAMP := $(VENV)/.installed-docs
# Every install goes through the lock: the versions the suite last passed with (`make lock`
# refreshes it; pip's own configuration, e.g. a global constraints file, still applies too).
LOCK   := requirements/constraints.txt
PIP    := -m pip install --quiet -c $(LOCK)
# make test's workers: one per core (pytest-xdist), each test file on one worker, so that a
# module fixture (the theory pages, the chapter scripts, ...) and the proofs a file shares in
# its process are built once; PYTEST_WORKERS=0 runs in one process
PYTEST_WORKERS ?= auto
PYTEST_ARGS := -q -n $(PYTEST_WORKERS) --dist loadfile --durations=20

.PHONY: prove test test-slow docs downloads bench lock drift clean help

help:  ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python $(PIP) --upgrade pip

$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python $(PIP) -e '.[test]'
	@touch $@

$(DOCSTAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python $(PIP) -e '.[test,docs]'
	@touch $@

prove: $(STAMP)  ## install (first time) and print every proof
	$(BIN)/pe-derive all

test: $(STAMP)  ## install (first time), check the layering contract, run the whole test suite on every core
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-slow: $(STAMP)  ## the suite plus slow exhaustive cases, CI hypothesis profile
	PE_SLOW=1 HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest $(PYTEST_ARGS)

docs: $(DOCSTAMP)  ## build the HTML docs (warnings are errors) into docs/_build/html, then check them in a browser
	$(BIN)/python -m sphinx -W --keep-going -n -b html docs docs/_build/html
	@# every page in headless Chromium: no MathJax error, no leftover markup, no display wider
	@# than its column (exit 2, skipped with a note: no chromium here)
	$(BIN)/python docs/_ext/check_html.py docs/_build/html || test $$? -eq 2

downloads: $(DOCSTAMP)  ## run every tutorial download (.py, .ipynb) in a brand-new venv with the package installed
	rm -rf .venv-fresh
	$(PYTHON) -m venv .venv-fresh
	.venv-fresh/bin/python $(PIP) '.[notebook]'
	$(BIN)/python .ci/check_downloads.py --python .venv-fresh/bin/python

bench: $(STAMP)  ## run the benchmarks (prints medians and ratios)
	$(BIN)/python -m benchmarks

lock:  ## refresh requirements/constraints.txt: the newest releases pyproject allows, resolved in a scratch venv
	$(PYTHON) tools/lock.py

drift:  ## the suite against the newest releases of the dependencies, in .venv-drift; names each one newer than its pin
	$(PYTHON) tools/drift.py

clean:  ## remove the virtual environment and build products
	rm -rf $(VENV) .venv-fresh .venv-lock .venv-drift docs/_build build *.egg-info .pytest_cache .hypothesis
