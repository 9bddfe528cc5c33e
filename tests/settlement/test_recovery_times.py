"""Recovery after a lost message or a dead worker is a chosen, documented figure
(docs/settlement.md "Recovery times"), not an accident of Celery's defaults.

The end-to-end proof with a real worker killed by SIGKILL is in test_celery_worker.py; here
the figures themselves, their wiring into Celery and beat, and the sweep's age rule."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings

from games.models import Match
from gin_platform import tasks as platform_tasks
from gin_platform.events import webhooks
from gin_platform.project.celery import app as celery_app
from settlement.tasks import reconcile_ledger, settle_game, settle_stragglers
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import play_out, seat_two

ROOT = Path(__file__).resolve().parents[2]


def test_the_figures_are_chosen_and_wired_into_celery_and_beat():
    assert settings.SETTLEMENT_SWEEP_INTERVAL_SECONDS == 15
    assert settings.SETTLEMENT_STRAGGLER_AGE_SECONDS == 30
    assert settings.BROKER_VISIBILITY_TIMEOUT_SECONDS == 300
    options = celery_app.conf.broker_transport_options
    assert options["visibility_timeout"] == settings.BROKER_VISIBILITY_TIMEOUT_SECONDS
    assert options["unacked_restore_interval"] == settings.BROKER_RESTORE_INTERVAL_SECONDS
    assert options["unacked_restore_throttle"] == 1  # the interval is the real period
    sweep = celery_app.conf.beat_schedule["settle-stragglers"]
    assert sweep["schedule"] == settings.SETTLEMENT_SWEEP_INTERVAL_SECONDS
    assert celery_app.conf.task_acks_late and celery_app.conf.worker_prefetch_multiplier == 1


def test_the_visibility_timeout_is_far_above_the_longest_task_and_every_countdown():
    timeout = settings.BROKER_VISIBILITY_TIMEOUT_SECONDS
    # The longest acks_late task is a webhook attempt, bounded by its HTTP timeout.
    assert timeout >= 10 * webhooks.TIMEOUT_SECONDS
    # A message waiting for its countdown is held unacknowledged: it must not be handed out
    # again while it waits (longer waits are left to redeliver-due-webhooks).
    assert (
        platform_tasks.max_countdown_seconds() + settings.BROKER_RESTORE_INTERVAL_SECONDS < timeout
    )
    assert settle_game.acks_late and settle_game.reject_on_worker_lost
    # Sweeps are not acks_late: a long one is never run twice at once by a redelivery.
    assert not settle_stragglers.acks_late and not reconcile_ledger.acks_late
    assert not platform_tasks.redeliver_due_webhooks.acks_late


def test_the_documented_worst_case_is_the_sum_of_the_figures():
    worst = settings.SETTLEMENT_STRAGGLER_AGE_SECONDS + settings.SETTLEMENT_SWEEP_INTERVAL_SECONDS
    for page in ("docs/settlement.md", "README.md"):
        text = (ROOT / page).read_text()
        assert re.search(rf"\b{worst} s\b", text), f"{page} states the {worst} s worst case"


@pytest.mark.django_db
def test_the_sweep_takes_a_game_once_it_is_the_straggler_age_and_not_before(operator):
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))  # tests never run on-commit here
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    age = timedelta(seconds=settings.SETTLEMENT_STRAGGLER_AGE_SECONDS)
    Match.objects.filter(pk=match.pk).update(
        finished_at=match.finished_at - age + timedelta(seconds=5)
    )
    assert settle_stragglers() == 0  # its own message may still be on the way
    Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - age)
    assert settle_stragglers() == 1
    assert Match.objects.get(pk=match.pk).status == Match.Status.SETTLED
