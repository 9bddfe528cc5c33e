"""R14 on the platform as deployed, in every run of the suite: a 16-entry scheduled knockout
played to its end by bots over the real API and sockets (tests/benchmarks/tournament_run.py,
the pieces of bench_tournament.py, which runs the same with 1,024 entries: docs/benchmarks.md)
on gunicorn, a Celery worker and beat as child processes on this worker's test database and
Redis database, while the Celery worker and web workers are SIGKILLed under it and the
whole gunicorn group is killed and started again.

Must hold: the tournament finished; every match played or forfeited and settled; each table
sent on its match's winner; the bracket equal to the auditor's replay of the draw from the
revealed seed (docs/fairness.md's own code) and the published results; prizes + fees = paid
in + overlay to the minor unit, each place's posting once, the escrow empty; the ledger
reconciled; every match rated once and the ratings equal their recomputation (R15).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import psycopg
import pytest
from django.db import connection

from gin_platform.tenancy.services import api_key_create
from ratings.models import RatedMatch
from ratings.recompute import rating_differences
from tests.benchmarks.interrupted import Platform
from tests.benchmarks.tournament_run import (
    Chaos,
    Director,
    entries_register,
    knockout_create,
    players_seed,
    run_checks,
)
from tests.factories import SYSTEM
from tests.live_platform import live_platform
from tests.servers import database_url
from wallet.selectors import reconciliation

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

ENTRIES = 16
TURN_SECONDS = 15


@pytest.fixture
def platform(django_db_setup, tmp_path) -> Iterator[Platform]:
    with live_platform(
        "kolive",
        tmp_path,
        THROTTLE_PLAYER="100000/min",
        THROTTLE_OPERATOR="100000/min",
        PRESENCE_TIMEOUT_SECONDS="5",
        GAMES_PROTECTIONS_PER_DAY="1000",
    ) as running:
        yield running


def _sql(query: str) -> list[tuple]:
    with psycopg.connect(database_url(connection.settings_dict), autocommit=True) as conn:
        return conn.execute(query).fetchall()


@pytest.mark.slow
def test_a_knockout_plays_to_its_end_and_pays_exactly_while_processes_are_killed(
    platform, operator
):
    key = api_key_create(operator=operator, actor=SYSTEM).key
    players = players_seed(platform.base_url, key, ENTRIES, prefix="kolive")
    tournament = knockout_create(
        platform.base_url, key, entries=ENTRIES, starts_in=20, turn_seconds=TURN_SECONDS
    )
    entries_register(platform.base_url, key, tournament["id"], players)
    director = Director(
        platform.base_url,
        key,
        tournament["id"],
        {player.id: player for player in players},
        TURN_SECONDS,
        platform,
        give_up_after=600,
    )
    chaos = Chaos(platform, every=(6.0, 10.0), web_restart_after=15.0)

    async def run() -> str:
        stop = asyncio.Event()
        faults = asyncio.create_task(chaos.run(stop))
        try:
            return await director.run()
        finally:
            stop.set()
            await faults

    assert asyncio.run(run()) == "finished"
    assert chaos.log, "nothing was killed"
    assert [record.error for record in director.records if record.error] == []
    checked = run_checks(
        sql=_sql, base_url=platform.base_url, operator_key=key, tournament_id=tournament["id"]
    )
    assert checked["failures"] == [], checked["figures"]
    assert checked["figures"]["bracket tables replayed"] == ENTRIES - 1
    assert reconciliation.reconcile().ok
    # R15: every match rated once, and the stored ratings equal their recomputation.
    matches = [record.match_id for record in director.records]
    deadline = time.monotonic() + 60
    while RatedMatch.objects.filter(match_id__in=matches).count() < len(matches):
        assert time.monotonic() < deadline, "a match was never rated"
        time.sleep(0.5)
    assert rating_differences() == []
