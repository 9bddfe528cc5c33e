"""Fixtures of the API fuzzing suite (docs/api-fuzzing.md)."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from games import engine
from gin_platform.http.throttling import PrincipalRateThrottle
from tests.fuzz import world as world_module

UNTHROTTLED = "1000000/min"


@pytest.fixture
def fuzz_world(db, settings, monkeypatch, django_user_model, request):
    """A fresh World for one fuzzed operation, visible to the path-parameter hook."""
    # Basic auth checks the staff password on every request: a fast hasher (test only).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Throttling is not what is fuzzed here (tests/platform covers 429): keep every
    # example a real request instead of a 429 after the first hundred.
    for scope in ("operator", "player", "anon"):
        monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, scope, UNTHROTTLED)
    # Reproducible deals, so the seeded match (and what is legal in it) is the same each run.
    _fixed_server_seeds(monkeypatch)
    with world_module.database_connection_kept():
        world = world_module.build_world(
            schema_paths=request.module.RAW_PATHS, django_user_model=django_user_model
        )
        world_module.CURRENT = world
        try:
            yield world
        finally:
            world_module.CURRENT = None


def _fixed_server_seeds(monkeypatch) -> None:
    counter = itertools.count()
    monkeypatch.setattr(
        engine,
        "new_server_seed",
        lambda: hashlib.sha256(f"fuzz-seed-{next(counter)}".encode()).hexdigest(),
    )
