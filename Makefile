# Quickstart: `make demo`, `make test`. Each target builds .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast bench docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,privacy,data,dask]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/bandsim run dp-se --instance C1,C2,C3,C4 --arms 5 --epsilon 0.25 \
		--horizon 5e7 --runs 10000 --seed 1

test: $(STAMP)
	$(BIN)/python -m pytest -q

# a first check in under a minute (once the kernels are compiled): command line,
# configuration, bad input, layout, docstrings, API (tests marked `fast`, tests/conftest.py)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m fast

# BANDSIM_BENCH_BASE=../base (another worktree with its own .venv, e.g. at d95bb9e) adds
# every built-in engine's speed against it, same run, interleaved (benchmarks/engine_ratio.py;
# BANDSIM_BENCH_ROUNDS rounds, default 7): .benchmarks/engine-ratio.{json,md}
BANDSIM_BENCH_ROUNDS ?= 7
bench: $(STAMP)
	$(BIN)/python -m pytest benchmarks -q -s --benchmark-only --benchmark-columns=min,median,max,rounds \
		--benchmark-json=.benchmarks/latest.json
	$(if $(BANDSIM_BENCH_BASE),$(BIN)/python benchmarks/engine_ratio.py --base "$(BANDSIM_BENCH_BASE)" \
		--rounds $(BANDSIM_BENCH_ROUNDS) --json .benchmarks/engine-ratio.json \
		--md .benchmarks/engine-ratio.md,@echo "engine speed against a base tree: set BANDSIM_BENCH_BASE (benchmarks/engine_ratio.py)")

# the API reference (Sphinx + numpydoc, from the docstrings), warnings are errors
docs: $(STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs/api docs/api/_build/html

clean:
	rm -rf $(VENV) .pytest_cache .benchmarks docs/api/_build
