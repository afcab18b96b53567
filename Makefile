# skrank: two commands on a fresh machine with Python 3.10+ and a C compiler.
#   make demo   set up .venv, build the compiled kernels and run the main job on the bundled data
#   make test   the same set-up with the test extra, then the linter, the whole suite, the docs
#               build and a wheel installed into a clean environment

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ABSBIN := $(abspath $(BIN))
PYTEST_ARGS ?=
WHEEL_DIR := build/wheel-check

# The editable install builds the kernels with the build tools of the venv (meson-python,
# meson, ninja, Cython: no build isolation), and rebuilds them on import when a .pyx or .pxi
# changed; the native file gives meson Cython's full path, so that a rebuild works without
# the venv on PATH.
EDITABLE = PATH="$(ABSBIN):$$PATH" $(BIN)/python -m pip install --quiet --no-build-isolation \
	-Csetup-args=--native-file=$(abspath $(VENV))/meson-native.ini -e
BUILD_INPUTS := pyproject.toml meson.build src/skrank/meson.build

.PHONY: demo test venv lint docs bench wheel-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setuptools and wheel build the dependencies that come as source (autograd-gamma, pyspark):
# the installs below use the venv's tools, and Python 3.11's venv has a setuptools without
# bdist_wheel
$(VENV)/.build-tools: | $(BIN)/python
	$(BIN)/python -m pip install --quiet "meson-python>=0.16" "meson>=1.1" ninja "Cython>=3.0.10" \
		"setuptools>=70.1" wheel
	printf "[binaries]\ncython = '%s/cython'\n" "$(ABSBIN)" > $(VENV)/meson-native.ini
	touch $@

$(VENV)/.installed-all: $(BUILD_INPUTS) | $(VENV)/.build-tools
	$(EDITABLE) ".[all]"
	touch $@

# The test extra is skrank[all] with XGBoost from xgboost-cpu on Linux x86-64 (see
# pyproject.toml); a demo's xgboost, which would share its files, goes first.
$(VENV)/.installed-test: $(BUILD_INPUTS) tests/requirements-nodeps.txt | $(VENV)/.build-tools
	$(BIN)/python -m pip uninstall --quiet --yes xgboost nvidia-nccl-cu12 2>/dev/null
	$(EDITABLE) ".[test,docs]"
	$(BIN)/python -m pip install --quiet --no-deps -r tests/requirements-nodeps.txt
	touch $(VENV)/.installed-all $@

venv: $(VENV)/.installed-all

demo: $(VENV)/.installed-all
	$(BIN)/python examples/demo.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples benchmarks docs

docs: $(VENV)/.installed-test
	$(BIN)/python -m sphinx -W --keep-going -b html -q docs docs/_build/html

# a wheel built as a user's pip builds it (isolated, from the sdist), installed with its
# dependencies alone into a clean environment, then a smoke test there
wheel-check: $(VENV)/.installed-test
	rm -rf $(WHEEL_DIR)
	$(BIN)/python -m build --outdir $(WHEEL_DIR)/dist . > $(WHEEL_DIR).log 2>&1 \
		|| (cat $(WHEEL_DIR).log; exit 1)
	$(PYTHON) -m venv $(WHEEL_DIR)/venv
	$(WHEEL_DIR)/venv/bin/python -m pip install --quiet $(WHEEL_DIR)/dist/*.whl
	cd $(WHEEL_DIR) && venv/bin/python $(CURDIR)/tests/wheel_smoke.py

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples benchmarks docs
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)
	$(BIN)/python -m sphinx -W --keep-going -b html -q docs docs/_build/html
	$(MAKE) wheel-check

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_metrics.py

clean:
	rm -rf $(VENV) docs/_build build dist src/*.egg-info
