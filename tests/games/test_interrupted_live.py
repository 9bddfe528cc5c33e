"""R13 "Interrupted play" on the platform as deployed, in every run of the suite: gunicorn
(deploy/gunicorn.conf.py, 2 workers writing the web heartbeat), a Celery worker and Celery
beat (the turn timer every 5 s) as child processes on this worker's test database and Redis
database, real-money games played by scripted clients over real sockets
(tests/benchmarks/interrupted.py, the pieces of bench_interrupted.py, which runs the same at
full scale: docs/benchmarks.md).

- Players who drop out: in each game one player closes its socket at one of its first
  moves and sends nothing; the other players' views show its turn in the reconnect grace;
  it comes back on a new socket and plays on. No forfeit, no auto-played move, one
  protection per drop, every game settled, the ledger reconciled.
- The whole platform stopped mid-game (gunicorn, the worker and beat SIGKILLed) and started
  again: the web heartbeat records one outage, the timer applies it, and every game ends
  normally, with no forfeit, no auto-played move and no protection.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from games.models import HandEvent, Match, TurnProtection
from gin_platform.models import Outage
from gin_platform.tenancy.services import api_key_create
from tests.benchmarks.interrupted import Drop, Platform, Table, play_game, seed_groups
from tests.factories import SYSTEM
from tests.live_platform import live_platform
from wallet.selectors import reconciliation

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

TURN_SECONDS = 5
CLOCK = {
    "time_bank_seconds": 60,
    "time_bank_top_up_seconds": 10,
    "reconnect_grace_seconds": 30,
    "auto_play_turns": 3,
}
STOP_SECONDS = 12


@pytest.fixture(scope="module")
def platform(django_db_setup, tmp_path_factory) -> Iterator[Platform]:
    # A dropped seat is disconnected 3 s after its last request; graces are not capped. A
    # short stop is an outage: a web beat every second, a gap of 6 s is one.
    with live_platform(
        "r13live",
        tmp_path_factory.mktemp("r13-live"),
        THROTTLE_PLAYER="100000/min",
        THROTTLE_OPERATOR="100000/min",
        PRESENCE_TIMEOUT_SECONDS="3",
        GAMES_PROTECTIONS_PER_DAY="1000",
        PLATFORM_HEARTBEAT_SECONDS="1",
        PLATFORM_OUTAGE_AFTER_SECONDS="6",
    ) as running:
        yield running


def _groups(platform: Platform, operator, kinds: list[str]):
    key = api_key_create(operator=operator, actor=SYSTEM).key
    return seed_groups(platform.base_url, key, kinds, turn_seconds=TURN_SECONDS, turn_clock=CLOCK)


def _settled(match_ids: list[int], timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        statuses = dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "status"))
        if all(s == Match.Status.SETTLED for s in statuses.values()):
            return statuses
        if time.monotonic() > deadline:
            return statuses
        time.sleep(0.5)


def _no_forfeit_nor_auto_play(match_ids: list[int]) -> None:
    matches = Match.objects.filter(pk__in=match_ids)
    assert [m.pk for m in matches if m.forfeit_seat is not None or m.forfeits] == []
    assert not HandEvent.objects.filter(match_id__in=match_ids, payload__auto=True).exists()


def _wait_until_running(count: int, timeout: float = 60) -> None:
    """Until ``count`` games are being played. (On a thread of its own: its connection is
    closed at the end.)"""
    deadline = time.monotonic() + timeout
    try:
        while Match.objects.filter(status=Match.Status.RUNNING).count() < count:
            assert time.monotonic() < deadline, "the games never started"
            time.sleep(0.2)
    finally:
        connection.close()


def _wait_for_an_applied_outage(timeout: float = 60) -> None:
    """(On a thread of its own: its connection is closed at the end.)"""
    deadline = time.monotonic() + timeout
    try:
        while not Outage.objects.filter(applied_at__isnull=False).exists():
            assert time.monotonic() < deadline, "the outage was never applied"
            time.sleep(0.5)
    finally:
        connection.close()


@pytest.mark.slow
def test_players_who_drop_and_come_back_within_the_grace_play_on(platform, operator):
    groups = _groups(platform, operator, ["ftk2", "match2", "ftk3"])
    table = Table(platform.base_url, TURN_SECONDS, platform)

    async def games():
        return await asyncio.gather(
            *(
                play_game(table, g, Drop(who=n % g.seats, at=1 + n % 2, mode="return"))
                for n, g in enumerate(groups)
            )
        )

    records = asyncio.run(games())
    assert [r.error for r in records] == [None] * len(groups)
    assert [r.stage_seen for r in records] == ["grace"] * len(groups)
    assert all(r.back_at is not None and r.final["status"] != "running" for r in records)
    match_ids = [r.match_id for r in records]
    _no_forfeit_nor_auto_play(match_ids)
    assert TurnProtection.objects.filter(match_id__in=match_ids).count() == len(groups)
    statuses = _settled(match_ids)
    assert set(statuses.values()) == {Match.Status.SETTLED}, statuses
    assert reconciliation.reconcile().ok


@pytest.mark.slow
def test_the_whole_platform_stopped_mid_game_costs_nobody_a_turn(platform, operator):
    groups = _groups(platform, operator, ["match3", "match3"])  # many hands: running at the stop
    table = Table(platform.base_url, TURN_SECONDS, platform)
    table.gate = gate = asyncio.Event()
    gate.set()

    async def stop_and_start() -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, _wait_until_running, len(groups))
        await asyncio.sleep(1)
        gate.clear()  # the clients come back once the outage is applied
        await loop.run_in_executor(None, platform.kill_all)
        await asyncio.sleep(STOP_SECONDS)
        await loop.run_in_executor(None, platform.start)
        await loop.run_in_executor(None, _wait_for_an_applied_outage)
        gate.set()

    async def games():
        return await asyncio.gather(*(play_game(table, g, None) for g in groups), stop_and_start())

    *records, _ = asyncio.run(games())
    assert [r.error for r in records] == [None] * len(groups)
    match_ids = [r.match_id for r in records]
    outages = [o for o in Outage.objects.all() if o.seconds >= STOP_SECONDS]
    assert len(outages) == 1 and outages[0].applied_at is not None
    # Games were running through the outage, and went on after it.
    assert Match.objects.filter(pk__in=match_ids, finished_at__gt=outages[0].ended_at).exists()
    _no_forfeit_nor_auto_play(match_ids)
    assert not TurnProtection.objects.filter(match_id__in=match_ids).exists()
    statuses = _settled(match_ids)
    assert set(statuses.values()) == {Match.Status.SETTLED}, statuses
    assert reconciliation.reconcile().ok
