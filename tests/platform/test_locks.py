"""Row locks (README "Architecture"): every ``select_for_update`` of an app is in that app's
``locks.py``, whose helpers lock by primary key, so lock order can be read in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from gin_platform import locks
from gin_platform.models import IdempotencyRecord, Operator
from gin_platform.tenancy.services import api_key_create
from tests.factories import SYSTEM, PlayerFactory

ROOT = Path(__file__).resolve().parents[2]
APPS = (
    "gin_platform",
    "games",
    "wallet",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "ratings",
    "matchmaking",
    "leaderboards",
)
# Runs querysets the locks modules build (compiled once), and refuses a lock outside a
# transaction as the ORM does; it builds no lock of its own.
RUNS_LOCKS_BUILT_ELSEWHERE = {"gin_platform/request_path/precompiled.py"}


def test_every_select_for_update_is_in_the_apps_locks_module():
    outside = sorted(
        str(path.relative_to(ROOT))
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if path.name != "locks.py"
        and "migrations" not in path.parts
        and "select_for_update" in path.read_text()
        and str(path.relative_to(ROOT)) not in RUNS_LOCKS_BUILT_ELSEWHERE
    )
    assert outside == []


def test_each_app_that_locks_rows_has_its_locks_module():
    for app in ("gin_platform", "games", "wallet"):
        assert (ROOT / app / "locks.py").exists(), app


@pytest.mark.django_db
def test_the_platform_lock_helpers_return_the_locked_rows(operator):
    key = api_key_create(operator=operator, actor=SYSTEM).api_key
    player = PlayerFactory(operator=operator)
    assert locks.lock_operator(operator.pk) == operator
    assert locks.lock_api_key(key.pk) == key
    assert locks.lock_player(player.pk) == player
    assert locks.lock_row(Operator, operator.pk) == operator
    assert locks.lock_operator_row(operator.pk) is None
    assert locks.lock_idempotency_record(10**9) is None  # gone: released or pruned
    with pytest.raises(IdempotencyRecord.DoesNotExist):
        locks.lock_row(IdempotencyRecord, 10**9)
