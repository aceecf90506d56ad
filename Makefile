# The two commands of the README: `make run` and `make test`.
# Both create .venv and install what they need on a fresh machine (Python 3.11+ and make).
# `make run PORT=8001` serves on another port (PORT from the environment too); `make run
# HOST=0.0.0.0` on every interface (HOST from the command line only: some shells export one).
PYTHON ?= python3
PORT ?= 8000
HOST = 127.0.0.1
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench crash demo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/fraylog serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/fraylog demo

bench: $(STAMP)
	$(BIN)/python -m bench
	$(BIN)/python -m bench.crash

# SIGKILL the server under load and check that nothing acknowledged was lost (both stores;
# e.g. CRASH_ARGS='--backend sqlite --kills 5')
crash: $(STAMP)
	$(BIN)/python -m bench.crash $(CRASH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache fraylog.db
