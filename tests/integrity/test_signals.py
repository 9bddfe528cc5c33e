"""Each detection signal on constructed histories (tests/integrity/history.py): the colluding
pair, the script or the marathon player is flagged with its reasoning, the honest ones are
not."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from integrity.detection import detection_job_run, jobs
from integrity.models import Alert, DetectionCursor, LinkKind, PlayerLink
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory
from tests.integrity.history import (
    Seating,
    engine_bot,
    feeder,
    finished_game,
    human,
    human_think,
    machine_think,
    settle_money,
    soft_towards,
)

pytestmark = pytest.mark.django_db
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def run_jobs() -> None:
    """Both jobs to the end; the settlements were posted just now, so past the LAG."""
    later = timezone.now() + jobs.LAG
    for job in DetectionCursor.JOBS:
        detection_job_run(job=job, now=later)


def alerts(signal: str) -> set[frozenset]:
    return {
        frozenset(filter(None, (a.player_id, a.other_player_id)))
        for a in Alert.objects.filter(signal=signal, status=Alert.Status.OPEN)
    }


@pytest.fixture
def world():
    operator = OperatorFactory()
    honest = [PlayerFactory(operator=operator) for _ in range(6)]
    return operator, honest


def honest_round(room, honest, rng, clock, rounds=2, **extra):
    """Every honest pair meets ``rounds`` times (and ``extra`` players play the honest ones)."""
    players = honest + list(extra.get("others", []))
    for _ in range(rounds):
        for a, b in itertools.combinations(players, 2):
            finished_game(
                room=room,
                seats=[Seating(a, human(0.8)), Seating(b, human(0.8))],
                start=clock,
                rng=rng,
            )
            clock += timedelta(minutes=20)
    return clock


def test_soft_play_between_a_pair_is_flagged_and_honest_pairs_are_not(world):
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True)
    rng = random.Random(1)
    a, b = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    clock = honest_round(room, honest, rng, START, others=[a, b])
    for _ in range(12):
        finished_game(
            room=room,
            seats=[Seating(a, soft_towards(human(0.8))), Seating(b, soft_towards(human(0.8)))],
            start=clock,
            rng=rng,
        )
        clock += timedelta(minutes=20)
    run_jobs()
    assert alerts(Alert.Signal.SOFT_PLAY) == {frozenset((a.pk, b.pk))}
    alert = Alert.objects.get(signal=Alert.Signal.SOFT_PLAY)
    assert alert.score >= alert.threshold == 5.0
    assert alert.reasoning["declined"] >= 8
    assert alert.reasoning["hands"]  # the hands behind it


def test_feeding_is_flagged(world):
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True)
    rng = random.Random(2)
    a, b = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    clock = honest_round(room, honest, rng, START, others=[a, b])
    for _ in range(15):
        finished_game(
            room=room,
            seats=[Seating(a, feeder(human(0.8))), Seating(b, human(0.8))],
            start=clock,
            rng=rng,
        )
        clock += timedelta(minutes=20)
    run_jobs()
    assert alerts(Alert.Signal.FEEDING) == {frozenset((a.pk, b.pk))}
    alert = Alert.objects.get(signal=Alert.Signal.FEEDING)
    assert alert.player_id == b.pk  # the one fed
    assert alert.reasoning["feeder"] == str(a.pk)


def test_chip_dumping_by_resigning_in_money_play_links_the_pair(world):
    operator, honest = world
    room = RoomFactory(operator=operator, money=True)
    rng = random.Random(3)
    a, b = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    clock = START
    pairings = [*itertools.combinations(honest, 2)]
    pairings += [(player, other) for player in (a, b) for other in honest] * 2
    for player, other in pairings:
        match = finished_game(
            room=room,
            seats=[Seating(player, human(0.8)), Seating(other, human(0.8))],
            start=clock,
            rng=rng,
        )
        settle_money(match, stake=1000)
        clock += timedelta(minutes=20)
    for _ in range(8):
        match = finished_game(
            room=room,
            seats=[Seating(a, human(0.8)), Seating(b, human(0.8))],
            start=clock,
            rng=rng,
            forfeit_seat=0,
        )
        settle_money(match, stake=1000)
        clock += timedelta(minutes=20)
    run_jobs()
    alert = Alert.objects.get(signal=Alert.Signal.CHIP_DUMPING, player=b)
    assert alert.other_player_id == a.pk
    assert alert.reasoning["sender_forfeits"] == 8
    assert alert.reasoning["net_to_receiver"] == {"EUR": 8 * 900}
    assert alerts(Alert.Signal.CHIP_DUMPING) == {frozenset((a.pk, b.pk))}
    low, high = sorted((a.pk, b.pk))
    link = PlayerLink.objects.get(player_low=low, player_high=high)
    assert (link.kind, link.source) == (LinkKind.TRANSFERS, "platform")


def test_a_pair_winning_far_above_its_results_and_meeting_far_too_often(world):
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True)
    rng = random.Random(4)
    a, b = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    clock = honest_round(room, honest, rng, START, others=[a, b])
    for _ in range(60):  # b never goes out against a and throws the hand away
        finished_game(
            room=room,
            seats=[Seating(a, engine_bot), Seating(b, feeder(soft_towards(human(0.5))))],
            start=clock,
            rng=rng,
        )
        clock += timedelta(minutes=20)
    run_jobs()
    assert alerts(Alert.Signal.PAIR_WIN_RATE) == {frozenset((a.pk, b.pk))}
    assert Alert.objects.get(signal=Alert.Signal.PAIR_WIN_RATE).player_id == a.pk
    assert alerts(Alert.Signal.REPEATED_PAIRING) == {frozenset((a.pk, b.pk))}


def test_a_script_is_flagged_for_its_timing_and_its_engine_moves(world):
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True, is_practice=True, currency="XGC")
    rng = random.Random(5)
    script = PlayerFactory(operator=operator)
    clock = START
    for _ in range(4):
        for other in honest:
            finished_game(
                room=room,
                seats=[
                    Seating(script, engine_bot, machine_think),
                    Seating(other, human(0.8), human_think),
                ],
                start=clock,
                rng=rng,
            )
            clock += timedelta(minutes=20)
    run_jobs()
    assert alerts(Alert.Signal.BOT_TIMING) == {frozenset((script.pk,))}
    assert alerts(Alert.Signal.BOT_ENGINE_MOVES) == {frozenset((script.pk,))}
    timing = Alert.objects.get(signal=Alert.Signal.BOT_TIMING)
    assert timing.reasoning["cv"] < 0.35
    assert timing.reasoning["moves"] >= 150


@pytest.mark.parametrize(("break_hours", "flagged"), [(0, True), (1, False)])
def test_a_24_hour_marathon_without_breaks_is_flagged(world, break_hours, flagged):
    """Moves 3 minutes apart (9 between two of the same player's) for 26 hours: never a
    break; or with one hour's break halfway: two sessions of about 13 hours."""
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True)
    rng = random.Random(6)
    tireless = PlayerFactory(operator=operator)
    clock, paused = START, False
    three_minutes = lambda rng: 180.0  # noqa: E731
    index = 0
    while clock - START < timedelta(hours=26):
        match = finished_game(
            room=room,
            seats=[
                Seating(tireless, engine_bot, three_minutes),
                Seating(honest[index % len(honest)], engine_bot, three_minutes),
            ],
            start=clock,
            rng=rng,
        )
        index += 1
        clock = match.finished_at + timedelta(minutes=5)
        if not paused and clock - START > timedelta(hours=13):
            clock += timedelta(hours=break_hours)
            paused = True
    run_jobs()
    found = alerts(Alert.Signal.BOT_MARATHON)
    assert (frozenset((tireless.pk,)) in found) is flagged
    if flagged:
        alert = Alert.objects.get(signal=Alert.Signal.BOT_MARATHON, player=tireless)
        assert alert.score >= 26
        assert alert.reasoning["longest_hours"] == pytest.approx(alert.score, abs=1e-3)


def test_honest_play_raises_nothing(world):
    operator, honest = world
    room = RoomFactory(operator=operator, ftk=True)
    honest_round(room, honest, random.Random(7), START, rounds=3)
    run_jobs()
    assert not Alert.objects.exists()
