"""The detection jobs: incremental over their cursors, idempotent, resumable after a crash,
blind to rows younger than LAG; the beat runs them through thin tasks."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games.models import Hand
from games.selectors import hand_replay
from integrity import tasks
from integrity.detection import games_batch_run, jobs, money_batch_run
from integrity.models import DetectionCursor, PairStats, PlayerStats
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory
from tests.integrity.history import Seating, finished_game, human, settle_money

pytestmark = pytest.mark.django_db
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def pair():
    operator = OperatorFactory()
    return PlayerFactory(operator=operator), PlayerFactory(operator=operator)


def games(pair, count, *, start=START, money=False, rng=None):
    a, b = pair
    room = RoomFactory(operator=a.operator, **({"money": True} if money else {"ftk": True}))
    rng = rng or random.Random(11)
    made = []
    for index in range(count):
        match = finished_game(
            room=room,
            seats=[Seating(a, human(0.8)), Seating(b, human(0.8))],
            start=start + timedelta(hours=index),
            rng=rng,
        )
        if money:
            settle_money(match, stake=500)
        made.append(match)
    return made


def figures(player) -> tuple:
    stats = PlayerStats.objects.get(player=player)
    return (stats.matches, stats.hands, stats.think_count, stats.decisions, stats.discards)


def test_the_builder_writes_hands_that_replay_to_their_stored_state(pair):
    for hand in Hand.objects.filter(match__in=games(pair, 2)):
        assert hand_replay(hand).outcome is not None
        assert hand_replay(hand).hands == hand.engine_state().hands


def test_the_games_job_reads_on_from_its_cursor_and_counts_each_game_once(pair):
    first = games(pair, 3)
    report = games_batch_run()
    assert (report.job, report.rows) == (DetectionCursor.GAMES, 3)
    cursor = DetectionCursor.objects.get(job=DetectionCursor.GAMES)
    assert (cursor.last_at, cursor.last_id) == (first[-1].finished_at, first[-1].pk)
    once = figures(pair[0])
    assert once[0] == 3 and once[2] > 0

    assert games_batch_run().rows == 0  # nothing new: nothing changes
    assert figures(pair[0]) == once

    games(pair, 2, start=START + timedelta(days=1))
    assert games_batch_run().rows == 2
    assert figures(pair[0])[0] == 5
    assert PairStats.objects.get().matches == 5


def test_a_batch_reads_at_most_its_limit_and_the_next_one_goes_on(pair):
    games(pair, 5)
    assert games_batch_run(limit=2).rows == 2
    assert games_batch_run(limit=2).rows == 2
    assert games_batch_run(limit=2).rows == 1
    assert figures(pair[0])[0] == 5


def test_a_crash_mid_batch_counts_nothing_and_the_next_run_counts_it_once(pair, monkeypatch):
    games(pair, 3)

    def crash(*args, **kwargs):
        raise RuntimeError("worker died")

    monkeypatch.setattr(jobs, "_cursor_move", crash)
    with pytest.raises(RuntimeError):
        games_batch_run()
    assert not PlayerStats.objects.exists()
    assert not DetectionCursor.objects.filter(last_id__gt=0).exists()
    monkeypatch.undo()

    assert games_batch_run().rows == 3
    assert figures(pair[0])[0] == 3


def test_games_finished_within_the_lag_wait_for_a_later_run(pair):
    now = timezone.now()
    games(pair, 1, start=now - timedelta(seconds=20))
    assert games_batch_run(now=now).rows == 0
    assert games_batch_run(now=now + jobs.LAG + timedelta(hours=1)).rows == 1


def test_the_money_job_adds_each_settlement_once(pair):
    made = games(pair, 3, money=True)
    later = timezone.now() + jobs.LAG  # the settlements were posted just now
    report = money_batch_run(now=later)
    assert report.rows == 3
    low, high = sorted(pair, key=lambda player: player.pk)
    pair_stats = PairStats.objects.get(player_low=low, player_high=high)
    winners = [match.seats.get(position=match.winner_seat).player for match in made]
    # The winner takes 2 x 500 less the 100 fee (+400), the loser loses 500: half the
    # difference, 450 a game, moved from one to the other.
    expected = sum(450 if winner == low else -450 for winner in winners)
    assert pair_stats.net_to_low == {"EUR": expected}
    assert money_batch_run(now=later).rows == 0
    assert PairStats.objects.get(pk=pair_stats.pk).net_to_low == {"EUR": expected}


def test_the_tasks_run_the_jobs_and_the_beat_schedules_them(pair, monkeypatch):
    games(pair, 2, money=True)
    monkeypatch.setattr(jobs, "LAG", timedelta(0))  # the settlements were posted just now
    assert tasks.detection_games() == 2
    assert tasks.detection_money() == 2
    assert tasks.detection_games() == 0
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {
        "integrity.tasks.detection_games",
        "integrity.tasks.detection_money",
        "integrity.tasks.group_alerts",
    } <= scheduled
