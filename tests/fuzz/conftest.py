"""Fixtures of the API fuzzing suite (docs/api-fuzzing.md)."""

from __future__ import annotations

from collections import Counter

import pytest

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
    import hashlib
    import itertools

    try:
        from games import engine
    except ImportError:  # pragma: no cover - the games app is still being built
        return
    if not hasattr(engine, "new_server_seed"):
        return
    counter = itertools.count()
    monkeypatch.setattr(
        engine,
        "new_server_seed",
        lambda: hashlib.sha256(f"fuzz-seed-{next(counter)}".encode()).hexdigest(),
    )


def pytest_terminal_summary(terminalreporter):
    """Figures of the fuzz run (docs/api-fuzzing.md quotes them)."""
    sent = world_module.SENT
    if not sent and not world_module.HELD_BACK:
        return
    by_class: Counter[str] = Counter()
    for (_, status), count in sent.items():
        by_class[f"{status // 100}xx"] += count
    terminalreporter.write_sep("-", "API fuzzing")
    terminalreporter.write_line(
        f"{len({operation for operation, _ in sent})} operations, {sum(sent.values())} "
        f"requests ({', '.join(f'{k}: {v}' for k, v in sorted(by_class.items()))}), "
        f"5xx: {sum(n for (_, status), n in sent.items() if status >= 500)}"
    )
    for (operation, owner), count in sorted(world_module.HELD_BACK.items()):
        terminalreporter.write_line(
            f"held back: {count} inputs of a known {owner} bug for {operation} "
            "(tests/fuzz/known_bugs.py)"
        )
