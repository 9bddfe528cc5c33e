"""The suite on several cores (pytest-xdist, ``make test``): each worker process is a world of
its own, so no test can see another worker's rows, keys, messages or servers.

- The database: pytest-django names each worker's test database after it
  (``test_<name>_gw0``, ``test_<name>_gw1``, ...; SQLite's is in memory anyway).
- Redis: worker ``gwN`` uses Redis database ``base + N``, where ``base`` is the one
  ``REDIS_URL`` names (``redis://127.0.0.1:6379/1`` gives gw0 db 1, gw1 db 2). That one move
  separates everything the platform keeps in Redis: the cache and the throttles, the Celery
  broker's queues and unacknowledged messages, the channel layer's groups, settlement's ready
  set. The same is done to ``CELERY_BROKER_URL`` and ``CHANNEL_LAYER_URL`` when they are set.
  A Redis server has 16 databases (0-15) unless configured otherwise: ``base`` plus the
  number of workers must stay within them.
- Redis pub/sub (the channel layer) ignores database numbers: a message published on db 2 is
  heard on db 1, and every test database numbers its matches from 1. So the channel layer's
  prefix (``CHANNEL_LAYER_PREFIX``, ``gin:ws`` by default) gets the Redis database's number
  (``gin:ws:db2``), in one process of its own too: two suites on one Redis server, with
  different database numbers, never hear each other's pushes.
- Tests marked ``alone`` hold a bound on wall time against real processes (a killed Celery
  worker's games settled within the recovery time): while one runs, every other worker waits
  between two tests, so the bound is measured on the machine it was written for.
- Child processes (a real Celery worker, the browser tests' page server, ``make serve`` in
  the docs tests) inherit the worker's environment, so they use its Redis database, and they
  are handed its test database by name; their ports are free ones the system picks.

The environment is rewritten here, in a plugin loaded with ``-p tests.parallel`` (pyproject's
addopts), because the settings read it once, when pytest-django loads them, which is before
any conftest.py is imported. Outside xdist (no ``-n``, ``-n 0``, ``-p no:xdist``) only the
channel layer's prefix changes; xdist's controller process, which runs no test, is left as it
is (its workers inherit its environment and make their own changes).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest

# Every variable that names a Redis database (gin_platform/settings.py reads them).
REDIS_VARIABLES = ("REDIS_URL", "CELERY_BROKER_URL", "CHANNEL_LAYER_URL")
# The settings' default for CHANNEL_LAYER_PREFIX.
CHANNEL_LAYER_PREFIX = "gin:ws"
# The folder of this run's locks (made by xdist's controller, inherited by its workers).
LOCKS_VARIABLE = "GIN_TEST_LOCKS"
locks_made = pytest.StashKey[str]()


def worker_number(env: MutableMapping[str, str]) -> int | None:
    """N of the xdist worker ``gwN`` this process is, or None outside xdist."""
    found = re.fullmatch(r"gw(\d+)", env.get("PYTEST_XDIST_WORKER", ""))
    return int(found.group(1)) if found else None


def redis_database(url: str) -> int:
    """The database number of a ``redis://`` URL (0 when it names none)."""
    parts = urlsplit(url)
    if parts.scheme not in {"redis", "rediss"} or parts.query:
        raise pytest.UsageError(
            f"tests/parallel.py keeps each test process to its own Redis database through the "
            f"URL's path (redis://host:port/N); it cannot with {url!r}"
        )
    number = parts.path.strip("/") or "0"
    if not number.isdigit():
        raise pytest.UsageError(f"{url!r}: the Redis database must be a number")
    return int(number)


def redis_url_for_worker(url: str, number: int) -> str:
    """``url`` with its database number moved up by ``number`` (``redis://h:6379/1`` for
    worker 2 is ``redis://h:6379/3``)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{redis_database(url) + number}"))


def isolate(env: MutableMapping[str, str], *, worker: int | None) -> None:
    """Point the Redis variables of xdist worker number ``worker`` (None: a process that is
    no worker) at its own database, and name the database in the channel layer's prefix."""
    for name in REDIS_VARIABLES:
        if env.get(name) and worker is not None:
            env[name] = redis_url_for_worker(env[name], worker)
    layer_url = env.get("CHANNEL_LAYER_URL") or env.get("REDIS_URL")
    if layer_url:
        prefix = env.get("CHANNEL_LAYER_PREFIX", CHANNEL_LAYER_PREFIX)
        env["CHANNEL_LAYER_PREFIX"] = f"{prefix}:db{redis_database(layer_url)}"


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args) -> Iterator[None]:
    """Before pytest-django reads the settings (its own implementation of this hook)."""
    if not is_controller(early_config):
        isolate(os.environ, worker=worker_number(os.environ))
    return (yield)


def is_controller(config) -> bool:
    """Whether this is xdist's controller process: it starts the workers and runs no test."""
    distributing = getattr(config.known_args_namespace, "numprocesses", 0)
    return bool(distributing) and worker_number(os.environ) is None


def pytest_configure(config) -> None:
    """The controller makes the folder of the run's locks before it starts the workers."""
    if is_controller(config):
        config.stash[locks_made] = os.environ[LOCKS_VARIABLE] = tempfile.mkdtemp(
            prefix="gin-tests-locks-"
        )


def pytest_unconfigure(config) -> None:
    if locks_made in config.stash:
        shutil.rmtree(config.stash[locks_made], ignore_errors=True)


class Machine:
    """The machine shared by a run's workers: a readers-writer lock on two files (flock).
    Each test holds ``room`` shared; an ``alone`` test holds it exclusively. The ``door`` is
    taken before the room and let go once in it, so an ``alone`` test waiting for the room
    keeps later tests out and is not starved."""

    def __init__(self, folder: str) -> None:
        self.door = os.open(os.path.join(folder, "door"), os.O_RDWR | os.O_CREAT)
        self.room = os.open(os.path.join(folder, "room"), os.O_RDWR | os.O_CREAT)

    @contextmanager
    def share(self, *, alone: bool) -> Iterator[None]:
        fcntl.flock(self.door, fcntl.LOCK_EX)
        try:
            fcntl.flock(self.room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(self.door, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(self.room, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(self.door, fcntl.LOCK_UN)


machine = pytest.StashKey[Machine]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem) -> Iterator[None]:
    """Each test of an xdist worker, from its set-up to its teardown, shares the machine; an
    ``alone`` test has it to itself."""
    folder = os.environ.get(LOCKS_VARIABLE)
    if worker_number(os.environ) is None or not folder:
        return (yield)
    if machine not in item.config.stash:
        item.config.stash[machine] = Machine(folder)
    with item.config.stash[machine].share(alone=item.get_closest_marker("alone") is not None):
        return (yield)
