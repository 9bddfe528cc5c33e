"""Suite-wide fixtures and hooks: API clients for operators, players and staff; the database
markers and the `unit` marker (docs/testing.md); the fuzzer's figures across xdist workers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from gin_platform.project.celery import app as celery_app
from gin_platform.request_path.remembered_credentials import forget_remembered
from gin_platform.tenancy.selectors import network_cache_forget
from gin_platform.tenancy.services import api_key_create, player_session_create
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, admin_login, staff_user
from tests.fuzz import figures as fuzz_figures
from tests.helpers import api_as, bearer_client
from wallet.selectors.rates import display_rates_forget

ENGINE_TESTS = Path(__file__).resolve().parent / "games" / "engine"
# pytest-django's fixtures that open the test database (db, transactional_db and
# live_server ask for django_db_setup, so it is in every such test's closure).
DATABASE_FIXTURES = {"django_db_setup", "db", "transactional_db"}


def on_postgresql() -> bool:
    return connection.vendor == "postgresql"


@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        if is_unit_test(item):
            item.add_marker(pytest.mark.unit)
    mark_skips(items)


def is_unit_test(item) -> bool:
    """A test of the engine (pure Python: no database by construction), or any other test
    that uses no test database and whose module starts no child process (imports nothing
    from ``subprocess``): ``make test-fast`` runs these."""
    if ENGINE_TESTS in item.path.parents:
        return True
    if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames):
        return False
    return not any(
        value is subprocess or getattr(value, "__module__", None) == "subprocess"
        for value in vars(item.module).values()
    )


def mark_skips(items) -> None:
    skip_pg = pytest.mark.skip(
        reason="needs PostgreSQL: set DATABASE_URL=postgres://... (.ci/run does)"
    )
    skip_redis = pytest.mark.skip(reason="needs Redis: set REDIS_URL=redis://... (.ci/run does)")
    on_pg = connection.settings_dict["ENGINE"].endswith("postgresql")
    for item in items:
        if "postgres" in item.keywords and not on_pg:
            item.add_marker(skip_pg)
        if "redis" in item.keywords and not settings.REDIS_URL:
            item.add_marker(skip_redis)


def pytest_sessionfinish(session) -> None:
    """An xdist worker hands the API fuzzer's figures to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output.update(fuzz_figures.worker_output())


@pytest.hookimpl(optionalhook=True)  # an xdist hook: the controller hears a worker finish
def pytest_testnodedown(node, error) -> None:
    fuzz_figures.add_worker_output(getattr(node, "workeroutput", {}))


def pytest_terminal_summary(terminalreporter) -> None:
    """The figures of the fuzz run (docs/api-fuzzing.md quotes them), all workers' together.
    Here, not in tests/fuzz/conftest.py: xdist's controller loads only this conftest."""
    lines = fuzz_figures.summary()
    if lines:
        terminalreporter.write_sep("-", "API fuzzing")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _celery_eager():
    """Tasks run in-process unless a test starts a real worker (it overrides this)."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle buckets and cached values never leak from one test into the next."""
    cache.clear()
    forget_remembered()  # and the credentials this process remembers
    network_cache_forget()  # and this process's copy of the network's facts
    display_rates_forget()  # and of the display rates
    yield


@pytest.fixture
def operator(db):
    return OperatorFactory()


@pytest.fixture
def operator_key(operator):
    return api_key_create(operator=operator, actor=SYSTEM).key


@pytest.fixture
def operator_client(operator_key) -> APIClient:
    return bearer_client(operator_key)


@pytest.fixture
def player(operator):
    return PlayerFactory(operator=operator)


@pytest.fixture
def player_token(player):
    return player_session_create(player=player, actor=SYSTEM).token


@pytest.fixture
def player_client(player_token) -> APIClient:
    return bearer_client(player_token)


@pytest.fixture
def staff_client(db, django_user_model) -> APIClient:
    """The back office's admin role (every permission), its TOTP verified
    (docs/backoffice.md)."""
    return api_as(staff_user("staff", "admin"))


@pytest.fixture
def admin_client(client, admin_user):
    """pytest-django's admin client, with the TOTP step a superuser's admin login needs
    (docs/backoffice.md)."""
    admin_login(client, admin_user)
    return client


@pytest.fixture
def approver_client(staff_client) -> APIClient:
    """A second admin (four eyes: the one who approves what ``staff_client`` proposed)."""
    return api_as(staff_user("approver", "admin"))


class IdempotencyKeys:
    """Fresh Idempotency-Key headers for operator writes."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> dict[str, str]:
        self.count += 1
        return {"HTTP_IDEMPOTENCY_KEY": f"test-key-{self.count}"}


@pytest.fixture
def idem() -> IdempotencyKeys:
    return IdempotencyKeys()
