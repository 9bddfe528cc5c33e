"""End to end: a real Celery worker process on Redis settles a finished game (issue 6)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from games.models import Match
from gin_platform.celery import app as celery_app
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import play_out, seat_two
from wallet.models import LedgerTransaction

ROOT = Path(__file__).resolve().parents[2]


def worker_database_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}" if db.get("PASSWORD") else user
    return (
        f"postgres://{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_settles_a_finished_game(operator):
    queue = f"settlement-e2e-{uuid.uuid4().hex[:8]}"
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "gin_platform",
            "worker",
            "-Q",
            queue,
            "-P",
            "solo",
            "-c",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "warning",
        ],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": worker_database_url()},
    )
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_routes)
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_routes = {"settlement.tasks.settle_game": {"queue": queue}}
    try:
        room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500, fee_bps=500)
        # The last action commits the result; match_finished enqueues settlement on commit.
        match = play_out(seat_two(TableFactory(room=room)))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            match.refresh_from_db()
            if match.status == Match.Status.SETTLED:
                break
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.3)
        assert match.status == Match.Status.SETTLED
        assert (
            LedgerTransaction.objects.filter(reference=f"settlement:match:{match.pk}").count() == 1
        )
    finally:
        celery_app.conf.task_always_eager, celery_app.conf.task_routes = previous
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
