# Usual tasks. `make serve` and `make test` each set everything up first on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

.PHONY: setup serve test test-all test-quick lint typecheck check bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# Serve the MCP tools over stdio on the embedded default (all state under PEGAS_DATA_DIR).
serve: setup
	$(VENV)/bin/pegas-memory doctor >&2 || true
	exec $(VENV)/bin/pegas-memory serve

# System packages the tests use (Debian's PostgreSQL 15 as the "external server", Chromium for the
# browser tests), then every test (the slow ones too) on $(TEST_WORKERS) pytest-xdist workers;
# each worker starts its own embedded engines in its own temporary dirs. `make test-quick` leaves
# the slow ones out.
# One worker more than the cores: most of the suite's time is waiting (servers starting,
# processes killed and restarted, time limits running out), so a third worker on 2 cores finished
# the suite in 555 s where two took 718 s (quiet machine, the same commit).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST := $(VENV)/bin/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal --durations=25

test: setup
	bash scripts/system-deps.sh
	$(PYTEST)

test-all: test

test-quick: setup
	bash scripts/system-deps.sh
	$(PYTEST) -m "not slow"

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
