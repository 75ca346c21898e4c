# Everything a fresh machine needs comes from here: `make setup` is idempotent.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup test clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[infra,dev]'
	touch $(STAMP)

test: setup
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) cdk.out .pytest_cache
