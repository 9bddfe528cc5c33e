"""End to end: real Celery worker processes on Redis settle finished games, and a worker killed
with SIGKILL while it holds a game delays that game by at most the documented recovery time
(docs/settlement.md "Recovery times")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from games.models import Match
from gin_platform.project.celery import app as celery_app
from gin_platform.request_path.cache import redis_client
from settlement.models import Settlement
from settlement.ready import ready_keys
from settlement.tasks import settle_game, settle_stragglers
from tests.games.factories import RoomFactory, TableFactory
from tests.processes import stop, worker_command
from tests.settlement.helpers import play_out, seat_two
from wallet.models import LedgerTransaction
from wallet.selectors import reconciliation

ROOT = Path(__file__).resolve().parents[2]


def worker_database_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}" if db.get("PASSWORD") else user
    return (
        f"postgres://{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


def start_worker(queue: str, *, application_name: str | None = None) -> subprocess.Popen:
    """One worker process (solo pool: one task at a time) consuming only ``queue``; its
    database connections carry ``application_name`` if given."""
    url = worker_database_url()
    if application_name:
        url += f"?application_name={application_name}"
    return subprocess.Popen(
        worker_command(queues=queue, loglevel=os.environ.get("TEST_WORKER_LOG_LEVEL", "warning")),
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
    )


def _forget_routes() -> None:
    """Celery builds its router once, from the routes it first saw: rebuild it."""
    celery_app.amqp.flush_routes()
    celery_app.amqp.__dict__.pop("router", None)


@contextmanager
def settlement_queue():
    """Real publishing (not eager) of settlement's tasks to a queue of this test's own; the
    queue, any message left unacknowledged on it and the batch set are removed afterwards."""
    queue = f"settlement-e2e-{uuid.uuid4().hex[:8]}"
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_routes)
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_routes = {
        name: {"queue": queue}
        for name in ("settlement.tasks.settle_game", "settlement.tasks.settle_ready")
    }
    _forget_routes()
    try:
        yield queue
    finally:
        celery_app.conf.task_always_eager, celery_app.conf.task_routes = previous
        _forget_routes()
        with celery_app.connection_for_write() as conn:
            client = conn.default_channel.client
            client.delete(queue)
            for tag, raw in client.hgetall("unacked").items():
                if json.loads(raw)[2] == queue:  # [message, exchange, routing key]
                    client.hdel("unacked", tag)
                    client.zrem("unacked_index", tag)
        redis_client().delete(*ready_keys())


def finished_game(operator) -> Match:
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500, fee_bps=500)
    # The last action commits the result; match_finished enqueues settlement on commit.
    return play_out(seat_two(TableFactory(room=room)))


def wait_until(predicate, *, timeout: float, what: str, workers=()) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        for worker in workers:
            assert worker.poll() is None, "a worker exited"
        time.sleep(0.2)


def status(match: Match) -> str:
    return Match.objects.values_list("status", flat=True).get(pk=match.pk)


def postings(match: Match) -> int:
    return LedgerTransaction.objects.filter(reference=f"settlement:match:{match.pk}").count()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_settles_a_finished_game(operator):
    with settlement_queue() as queue:
        worker = start_worker(queue)
        try:
            match = finished_game(operator)
            wait_until(
                lambda: status(match) == Match.Status.SETTLED,
                timeout=90,
                what="the settlement",
                workers=[worker],
            )
            assert postings(match) == 1
        finally:
            stop(worker)


def _waiting_on_a_lock(dsn: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return bool(row and row[0])


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.alone  # the recovery time is measured with no other test on the machine
def test_a_game_held_by_a_killed_worker_is_settled_by_the_sweep_within_the_recovery_time(
    operator, settings
):
    """SIGKILL a worker while it holds a batch of games (settlement.ready). What it took out
    of the batch set went with it, and its task message is not acks_late; the games do not
    wait for anything: the straggler sweep queues each once it is
    SETTLEMENT_STRAGGLER_AGE_SECONDS old, and a live worker settles it. Worst case after
    the finish: age + sweep interval (45 s with the defaults; here scaled down to 10 + 1 s
    to keep the test short)."""
    settings.SETTLEMENT_STRAGGLER_AGE_SECONDS = age = 10
    interval = 1.0  # beat's SETTLEMENT_SWEEP_INTERVAL_SECONDS, scaled down like the age
    dsn = worker_database_url()
    with settlement_queue() as queue:
        # Three games finish while no worker runs: they wait in the batch set.
        games = [finished_game(operator) for _ in range(3)]
        # The first worker takes the batch and waits on the first game's row lock: it is
        # killed mid-batch, the games taken and never settled.
        locker = psycopg.connect(dsn)
        locker.execute("SELECT id FROM games_match WHERE id = %s FOR UPDATE", [games[0].pk])
        doomed = start_worker(queue)
        survivor = None
        try:
            wait_until(
                lambda: _waiting_on_a_lock(dsn),
                timeout=60,
                what="the worker to take the batch",
                workers=[doomed],
            )
            doomed.send_signal(signal.SIGKILL)
            doomed.wait(timeout=20)
            locker.rollback()
            survivor = start_worker(queue)
            assert not redis_client().exists(ready_keys()[0])  # the batch went with the worker
            # Beat's straggler sweep, every `interval` seconds, in this process.
            finished_at = min(Match.objects.get(pk=m.pk).finished_at for m in games)
            while any(status(m) != Match.Status.SETTLED for m in games):
                swept = settle_stragglers()
                young = (time.time() - finished_at.timestamp()) < age - 0.5
                if young:  # not yet the straggler age: the sweep leaves them alone
                    assert swept == 0
                assert time.time() - finished_at.timestamp() < age + interval + 15
                assert survivor.poll() is None, "the surviving worker exited"
                time.sleep(interval)
        finally:
            locker.close()
            stop(doomed)
            if survivor is not None:
                stop(survivor)
    for match in games:
        finished = Match.objects.get(pk=match.pk).finished_at
        settled_after = (Settlement.objects.get(match=match).settled_at - finished).total_seconds()
        assert age <= settled_after <= age + interval + 3  # sweep tick + one settlement
    assert all(postings(match) == 1 for match in games)  # exactly once each
    assert reconciliation.reconcile().ok


def worker_backends(application_name: str) -> list[tuple[int, object]]:
    """(pid, backend_start) of the worker's connections to the test database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [application_name],
        )
        return cursor.fetchall()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_database_connection_across_tasks_and_drops_it_after_a_failure(
    operator,
):
    """A worker reuses its connection from task to task, as a web process does from request
    to request (CONN_MAX_AGE), and closes it after a task that raised."""
    name = f"settlement-worker-{uuid.uuid4().hex[:8]}"
    with settlement_queue() as queue:
        worker = start_worker(queue, application_name=name)
        try:
            first, second = finished_game(operator), finished_game(operator)
            wait_until(
                lambda: status(first) == status(second) == Match.Status.SETTLED,
                timeout=90,
                what="both settlements",
                workers=[worker],
            )
            backends = worker_backends(name)
            assert len(backends) == 1, backends
            (pid, started), settled = backends[0], Settlement.objects.order_by("settled_at")
            assert started < settled.first().settled_at  # the same connection settled both

            settle_game.delay(2**62)  # no such match: the task raises
            wait_until(lambda: not worker_backends(name), timeout=30, what="the connection closed")
            third = finished_game(operator)
            wait_until(
                lambda: status(third) == Match.Status.SETTLED,
                timeout=90,
                what="the third settlement",
                workers=[worker],
            )
            assert [backend for backend, _ in worker_backends(name)] != [pid]
        finally:
            stop(worker)
