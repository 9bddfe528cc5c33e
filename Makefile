# The two commands: `make demo` and `make test` (README). Everything installs itself into one
# virtualenv: `make demo` and the servers need only the runtime lock (requirements/base.lock);
# `make test`, `make lint` and `make bench` install the development lock (requirements/dev.lock:
# the same runtime pins plus the test, lint and benchmark tools). Each lock leaves a stamp named
# after its hash, so an edited lock installs again. The one Node tool, the OpenAPI linter
# (package-lock.json), installs the same way into node_modules/ with `npm ci`: exact versions
# and integrity hashes from the lock, no install scripts, never a global install.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BASE_STAMP := $(VENV)/.installed-base-$(shell sha256sum requirements/base.lock | cut -c1-12)
DEV_STAMP := $(VENV)/.installed-dev-$(shell sha256sum requirements/dev.lock | cut -c1-12)
NODE_STAMP := node_modules/.installed-$(shell sha256sum package-lock.json | cut -c1-12)
PIP_INSTALL := $(PY) -m pip install --quiet --disable-pip-version-check --require-hashes
DEMO_ENV := env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL GIN_VAR_DIR=var/demo
PLAY_ENV := env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL GIN_VAR_DIR=var/play
# The port of `make serve` and `make play` (127.0.0.1 only).
PORT ?= 8000
# pytest on every core (pytest-xdist): a worker per CPU, each with its own test database and
# Redis databases (docs/testing.md "Parallel runs"). `make test PYTEST_PARALLEL=` runs the
# suite in one process.
PYTEST_PARALLEL ?= -n auto
# `make test-fast`: the embedded default, whatever this shell points at.
FAST_ENV := env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL -u CHANNEL_LAYER_URL

.PHONY: install install-base install-node test test-fast typecheck lint lint-openapi demo play serve worker beat schema messages screens lock bench clean chromium cluster cluster-stop cluster-tools

install: $(DEV_STAMP)

install-base: $(BASE_STAMP)

$(BASE_STAMP): requirements/base.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements/base.lock
	@rm -f $(VENV)/.installed-base-*
	@touch $@

# dev.lock pins every package of base.lock at the same version (tests/platform/test_install.py
# checks it), so installing it satisfies the runtime lock too.
$(DEV_STAMP): requirements/dev.lock requirements/base.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements/dev.lock
	@rm -f $(VENV)/.installed-*
	@touch $@ $(BASE_STAMP)

# npm ci empties node_modules/ first, so the stamp of an older lock goes with it.
install-node: $(NODE_STAMP)

$(NODE_STAMP): package-lock.json package.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# mypy over the apps (pyproject's [tool.mypy]): the default checks, strict ones for the
# engine and the ledger kernel.
typecheck: install
	$(PY) -m mypy

# Debian's chromium for the browser tests (tests/browser/, docs/testing.md): installed with
# apt-get only when /usr/bin/chromium is missing, a quick no-op otherwise. Playwright drives
# this one; never `playwright install`.
chromium:
	@test -x /usr/bin/chromium || { \
		SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium; }

# Debian's haproxy and pgbouncer for the production topology (`make cluster`, its live test
# tests/deploy/test_cluster_live.py and the chaos run, docs/deploy.md): installed with apt-get
# only when missing, a quick no-op otherwise.
cluster-tools:
	@test -x /usr/sbin/haproxy -a -x /usr/sbin/pgbouncer || { \
		SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
			haproxy pgbouncer; }

# The production topology on this machine (docs/deploy.md "The topology on one machine"): its
# own PostgreSQL primary and synchronous replica, PgBouncer, Redis, two web nodes behind
# HAProxy on 127.0.0.1:$(CLUSTER_PORT_BASE), two Celery workers and beat, all under
# var/cluster. Ctrl-C or `make cluster-stop` stops everything it started.
CLUSTER_PORT_BASE ?= 15400
cluster: install-base
	$(PY) deploy/cluster/run start --port-base $(CLUSTER_PORT_BASE)

cluster-stop:
	$(PY) deploy/cluster/run stop

# The whole suite. On PostgreSQL and Redis whenever DATABASE_URL and REDIS_URL are set
# (.ci/run sets both); otherwise on SQLite, where PostgreSQL-only tests say they were skipped.
test: lint typecheck chromium cluster-tools install-node
	$(VENV)/bin/lint-imports --no-cache --no-logo
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null
	PYTEST_ADDOPTS="$(PYTEST_PARALLEL) $$PYTEST_ADDOPTS" $(PY) -m pytest

# The inner loop (docs/testing.md "The fast loop"): the engine's tests and the other unit
# tests (no database, no child process: tests/conftest.py marks them `unit`), on SQLite with
# no Redis, the slow ones left out. Under two minutes; `make test` before a commit.
test-fast: install
	$(FAST_ENV) PYTEST_ADDOPTS="$(PYTEST_PARALLEL) $$PYTEST_ADDOPTS" \
		$(PY) -m pytest -q -m "unit and not slow and not redis"

# The generated OpenAPI document through Redocly's recommended rules, warnings included
# (redocly.yaml, docs/api.md). make test runs it as tests/platform/test_openapi_lint.py.
lint-openapi: schema install-node
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_NOTIFICATIONS=true \
		node_modules/.bin/redocly lint var/openapi.yaml --config redocly.yaml --lint-config error

# From a fresh clone: a clean embedded database (SQLite, Celery eager), then the scripted
# client against a real server (ASGI, as in production) over HTTP.
demo: install-base
	@rm -rf var/demo
	$(DEMO_ENV) $(PY) manage.py migrate --verbosity 0
	$(DEMO_ENV) $(PY) manage.py demo

# Play against the house bot in a browser: the embedded database in var/play (kept between
# runs), a demo operator, practice room and player, the server on 127.0.0.1:$(PORT), and a
# game-launch URL to open. Ctrl-C stops it.
play: install-base
	$(PLAY_ENV) $(PY) manage.py migrate --verbosity 0
	$(PLAY_ENV) $(PY) manage.py demo --play --port $(PORT)

# The web server as deployed (deploy/gunicorn.conf.py: HTTP and WebSockets, ASGI) on
# 127.0.0.1:$(PORT), with this shell's settings: one process on the embedded default, one
# per CPU when REDIS_URL is set.
serve: install-base
	$(PY) manage.py migrate --verbosity 0
	$(VENV)/bin/gunicorn gin_platform.project.asgi:application --config deploy/gunicorn.conf.py \
		--bind 127.0.0.1:$(PORT)

worker: install-base
	$(VENV)/bin/celery -A gin_platform worker -l info

beat: install-base
	$(VENV)/bin/celery -A gin_platform beat -l info

schema: install-base
	$(PY) manage.py spectacular --validate --fail-on-warn --file var/openapi.yaml

# The translations (docs/play.md "Languages"): msgids extracted from the code into every
# language's locale/<lang>/LC_MESSAGES/{django,djangojs}.po (translations kept, new ones
# empty), then each .mo compiled. Pure Python (babel): no GNU gettext needed. Commit both.
messages: install-base
	$(PY) manage.py messages

# The screenshots docs/play.md shows (its "Screens"): a practice game in each shipped
# language played in the browser, its lobby, hand, showdown and result at desktop and phone
# size written to docs/play/ (the browser tests alone write them to the test artefacts).
screens: install chromium
	GIN_UPDATE_SCREENS=1 $(PY) -m pytest -p no:xdist -q \
		tests/browser/test_every_language.py -k every_shipped_language

# Re-pin requirements/*.lock from pyproject.toml (needs network to the package index).
lock:
	$(PY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --python-version 3.11 --generate-hashes -o requirements/base.lock
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes -o requirements/dev.lock

# Each benchmark prints its own table; all but the engine's and the bots' need PostgreSQL
# (and Redis for settlement, the load test, pushes and sockets) on 127.0.0.1, or
# DATABASE_URL / REDIS_URL.
# About 40 minutes in all. The last three exit 1 when they print a PROBLEM line (a failed
# request, a lost push, an error in the server log): make reports it and carries on.
# Figures and commands: README, docs/benchmarks.md.
bench: install
	$(PY) tests/benchmarks/bench_engine.py
	$(PY) tests/benchmarks/bench_bots.py
	$(PY) tests/benchmarks/bench_wallet.py
	$(PY) tests/benchmarks/bench_actions.py
	$(PY) tests/benchmarks/bench_inprocess.py
	$(PY) tests/benchmarks/bench_settlement.py
	$(PY) tests/benchmarks/bench_leaderboards.py
	-$(PY) tests/benchmarks/bench_load.py --games 8,32,64 --duration 60 --compare
	-$(PY) tests/benchmarks/bench_push.py --games 100 --interval 2 --duration 60 --act both
	-$(PY) tests/benchmarks/bench_sockets.py --sockets 1000 --idle 60

clean:
	rm -rf $(VENV) node_modules var .pytest_cache .ruff_cache .mypy_cache .hypothesis
