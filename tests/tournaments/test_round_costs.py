"""What a round costs under the tournament's lock, whatever its field (R14): a chaos run of
1,024 entries found a round's end saving and telling its players out one by one (1.8 s at
256 entries, every result of the tournament waiting behind it), and round 1's no-show
deadlines running from each table's own opening, during a start of 5-15 s."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Match, Seat
from games.services import tournament_matches
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_seat_claim
from gin_platform.events import webhooks
from gin_platform.models import OperatorEvent, WebhookDelivery
from tests.factories import SYSTEM, OperatorFactory
from tests.tournaments.test_lifecycle import funded_player, sit_and_go
from tournaments.models import BracketTable, Tournament
from tournaments.services.registration import entry_register

pytestmark = pytest.mark.django_db(transaction=True)


def _started(operator, entries: int) -> Tournament:
    tournament = sit_and_go(operator, entries=entries)
    for _ in range(entries):
        entry_register(player=funded_player(operator), tournament=tournament, actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return tournament


def _table_played(table: BracketTable) -> None:
    match = table.match
    for seat in Seat.objects.filter(match=match).order_by("position"):
        tournament_seat_claim(player=seat.player, match=match, actor=SYSTEM)
    loser = Seat.objects.filter(match=match, state=Seat.State.PLAYING).order_by("position").last()
    match_resign(seat=loser, actor=SYSTEM)


def _queries_of_round_ones_end(entries: int, monkeypatch) -> int:
    # The webhook deliveries are sent by tasks of their own, after the commit (eager here):
    # queued, not sent, so that what is counted is the round's end itself.
    queued: list[str] = []
    monkeypatch.setattr(
        webhooks, "enqueue_on_commit", lambda task, delivery: queued.append(delivery)
    )
    tournament = _started(OperatorFactory(webhook_url="https://casino.example/hooks"), entries)
    *first, last = BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")
    for table in first:
        _table_played(table)
    match = last.match
    for seat in Seat.objects.filter(match=match).order_by("position"):
        tournament_seat_claim(player=seat.player, match=match, actor=SYSTEM)
    loser = Seat.objects.filter(match=match, state=Seat.State.PLAYING).order_by("position").last()
    with CaptureQueriesContext(connection) as ended:
        match_resign(seat=loser, actor=SYSTEM)  # the round's end: its places, the next table
    out = OperatorEvent.objects.filter(
        operator=tournament.operator, type="tournament.prize_paid"
    ).count()
    assert out == entries // 2, "every player out in round 1 is told their place"
    delivered = WebhookDelivery.objects.filter(
        operator=tournament.operator, event_type="tournament.prize_paid"
    ).values_list("pk", flat=True)
    assert len(delivered) == out and {str(pk) for pk in delivered} <= set(queued)
    return len(ended.captured_queries)


def test_a_rounds_end_costs_the_same_statements_whatever_its_field(monkeypatch) -> None:
    """Round 1 of 8 puts 4 players out, of 32 puts 16: the same statements either way."""
    assert _queries_of_round_ones_end(32, monkeypatch) == _queries_of_round_ones_end(8, monkeypatch)


def test_the_first_rounds_no_show_deadlines_run_from_the_starts_end(monkeypatch) -> None:
    """Every table of round 1 opens inside the start's one transaction, which took seconds at
    1,024 entries: each match's deadline now runs from the start's end, the same for all,
    and the players are told that one."""
    clock = {"now": dt.datetime(2026, 12, 6, 20, 0, tzinfo=dt.UTC)}

    class SlowStart:  # every reading of the clock in games' tournament matches is 5 s later
        @staticmethod
        def now():
            clock["now"] += dt.timedelta(seconds=5)
            return clock["now"]

    monkeypatch.setattr(tournament_matches, "timezone", SlowStart)
    operator = OperatorFactory()
    tournament = _started(operator, 16)
    matches = Match.objects.filter(
        pk__in=BracketTable.objects.filter(tournament=tournament, round=1).values("match_id")
    )
    deadlines = {match.no_show_deadline for match in matches}
    assert len(deadlines) == 1 and matches.count() == 8
    (deadline,) = deadlines
    assert deadline == clock["now"] + dt.timedelta(seconds=tournament.no_show_seconds)
    told = OperatorEvent.objects.filter(operator=operator, type="tournament.match_ready")
    assert told.count() == 16
    assert {event.data["seat_by"] for event in told} == {deadline.isoformat()}
