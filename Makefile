# The two commands: `make demo` and `make test` (README). Everything installs itself.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements/dev.lock pyproject.toml | sha256sum | cut -c1-12)
DEMO_ENV := env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL GIN_VAR_DIR=var/demo

.PHONY: install test lint demo serve worker beat schema lock bench clean

install: $(STAMP)

$(STAMP): requirements/dev.lock pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/dev.lock
	@rm -f $(VENV)/.installed-*
	@touch $@

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The whole suite. On PostgreSQL and Redis whenever DATABASE_URL and REDIS_URL are set
# (.ci/run sets both); otherwise on SQLite, where PostgreSQL-only tests say they were skipped.
test: lint
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null
	$(PY) -m pytest

# From a fresh clone: a clean embedded database (SQLite, Celery eager), then the scripted
# client against a real server over HTTP.
demo: install
	@rm -rf var/demo
	$(DEMO_ENV) $(PY) manage.py migrate --verbosity 0
	$(DEMO_ENV) $(PY) manage.py demo

serve: install
	$(PY) manage.py migrate --verbosity 0
	$(PY) manage.py runserver 127.0.0.1:8000

worker: install
	$(VENV)/bin/celery -A gin_platform worker -l info

beat: install
	$(VENV)/bin/celery -A gin_platform beat -l info

schema: install
	$(PY) manage.py spectacular --validate --fail-on-warn --file var/openapi.yaml

# Re-pin requirements/*.lock from pyproject.toml (needs network to the package index).
lock:
	$(PY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --python-version 3.11 --generate-hashes -o requirements/base.lock
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes -o requirements/dev.lock

# Each benchmark prints its own table; all but the engine's need PostgreSQL (and Redis for
# settlement and the load test) on 127.0.0.1. Figures and commands: README, docs/benchmarks.md.
bench: install
	$(PY) tests/benchmarks/bench_engine.py
	$(PY) tests/benchmarks/bench_wallet.py
	$(PY) tests/benchmarks/bench_actions.py
	$(PY) tests/benchmarks/bench_settlement.py
	$(PY) tests/benchmarks/bench_load.py --games 8,32,64 --duration 60

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
