# skrank: two commands on a fresh machine with Python 3.10+.
#   make demo   set up .venv and run the main job on the bundled real data
#   make test   set up .venv with the test extra and run the whole suite (docs build included)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: demo test venv lint docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-all: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[all,test,docs]"
	touch $(VENV)/.installed-all $@

venv: $(VENV)/.installed-all

demo: $(VENV)/.installed-all
	$(BIN)/python examples/demo.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples benchmarks docs

docs: $(VENV)/.installed-test
	$(BIN)/python -m sphinx -W --keep-going -b html -q docs docs/_build/html

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples benchmarks docs
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)
	$(BIN)/python -m sphinx -W --keep-going -b html -q docs docs/_build/html

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_metrics.py

clean:
	rm -rf $(VENV) docs/_build build dist src/*.egg-info
