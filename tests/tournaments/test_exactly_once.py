"""Exactly once (docs/tournaments.md "Exactly once"): a match result whose message was lost
(or whose worker died before its commit) is taken by the beat's sweep; taking it again, from
a late message or a second sweep, changes nothing and pays nothing twice."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection, transaction

from games.models import Match, Seat
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_no_shows_sweep, tournament_seat_claim
from tests.factories import SYSTEM, OperatorFactory
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tournaments import receivers
from tournaments.locks import lock_tournament
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services import lifecycle
from tournaments.services.lifecycle import match_result_take
from tournaments.services.registration import entry_register
from tournaments.services.sweep import tournaments_sweep
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_lost_result_is_taken_by_the_sweep_and_only_once(monkeypatch) -> None:
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(4)]
    tournament = sit_and_go(operator, entries=4)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    lost: list[int] = []
    monkeypatch.setattr(  # the process that ended the match is killed before it takes it
        receivers, "on_commit_logged", lambda callback, what: lost.append(callback.args[0])
    )
    table = BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")[0]
    for seat in Seat.objects.filter(match=table.match):
        tournament_seat_claim(player=seat.player, match=table.match, actor=SYSTEM)
    match_resign(seat=Seat.objects.filter(match=table.match).first(), actor=SYSTEM)
    assert lost == [table.match_id]  # the message that would have taken it
    table.refresh_from_db()
    assert table.status == BracketTable.Status.PLAYING  # nobody took it yet

    assert tournaments_sweep(actor=SYSTEM) == 0  # younger than the grace: its task's
    Match.objects.filter(pk=table.match_id).update(
        finished_at=Match.objects.get(pk=table.match_id).finished_at - timedelta(seconds=10)
    )
    assert tournaments_sweep(actor=SYSTEM) == 1
    table.refresh_from_db()
    assert table.status == BracketTable.Status.FINISHED
    assert not match_result_take(match_id=table.match_id, actor=SYSTEM)  # the late message
    assert tournaments_sweep(actor=SYSTEM) == 0

    monkeypatch.undo()
    play_out(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    prizes = LedgerTransaction.objects.filter(kind="tournament_prize")
    references = list(prizes.values_list("reference", flat=True))
    # Four entries: the default table pays 1st only, so round 1's places (3rd-4th, worth 0)
    # post nothing and the final's is the one prize posting.
    assert references == [f"tournament-prize:{tournament.pk}:final"]
    paid = sum(Entry.objects.filter(tournament=tournament).values_list("prize", flat=True))
    assert paid == tournament.prize_pool


def test_absent_players_are_out_and_a_table_nobody_came_to_sends_nobody_on() -> None:
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(4)]
    tournament = sit_and_go(operator, entries=4)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    first, second = BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")
    came = Seat.objects.filter(match=first.match).order_by("position").first()
    tournament_seat_claim(player=came.player, match=first.match, actor=SYSTEM)
    later = Match.objects.get(pk=second.match_id).no_show_deadline + timedelta(seconds=1)
    assert tournament_no_shows_sweep(now=later) == 2
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == second.status == BracketTable.Status.FINISHED
    final = BracketTable.objects.get(tournament=tournament, round=2)
    # The one who came goes on alone: the final has one player and is won without playing.
    assert final.status == BracketTable.Status.BYE
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    winner = Entry.objects.get(tournament=tournament, status=Entry.Status.WON)
    assert winner.player_id == came.player_id and winner.prize == tournament.prize_pool
    out = Entry.objects.filter(tournament=tournament, out_reason=Entry.OutReason.ABSENT)
    assert out.count() == 3
    assert set(out.values_list("place_from", "place_to")) == {(2, 4)}


def two_results_held_back(monkeypatch) -> tuple[Tournament, list, list[int], list]:
    """Two round-1 matches of an 8-entry sit and go ended, their after-commit takes held back
    (returned, in table order), the tasks they would queue recorded."""
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(8)]
    tournament = sit_and_go(operator, entries=8)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    queued: list[int] = []
    monkeypatch.setattr(receivers, "enqueue", lambda task, match_id: queued.append(match_id))
    held: list = []
    monkeypatch.setattr(receivers, "on_commit_logged", lambda callback, what: held.append(callback))
    tables = list(
        BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")[:2]
    )
    for table in tables:
        for seat in Seat.objects.filter(match=table.match):
            tournament_seat_claim(player=seat.player, match=table.match, actor=SYSTEM)
        match_resign(seat=Seat.objects.filter(match=table.match).first(), actor=SYSTEM)
    assert len(held) == 2
    return tournament, tables, queued, held


def lock_held_for(
    tournament: Tournament, seconds: float, *, lock: Callable[[int], object] = lock_tournament
) -> threading.Thread:
    """Another transaction holding the tournament's lock (``lock``: the exclusive one, or
    another strength of tournaments.locks) for ``seconds``, from its return."""
    locked = threading.Event()

    def another_holds_the_lock() -> None:
        try:
            with transaction.atomic():
                lock(tournament.pk)
                locked.set()
                time.sleep(seconds)
        finally:
            connection.close()

    holder = threading.Thread(target=another_holds_the_lock)
    holder.start()
    assert locked.wait(10)
    return holder


@pytest.mark.postgres
def test_where_a_match_ends_it_waits_for_the_lock_and_takes_every_result_come_in(
    monkeypatch,
) -> None:
    """A round's matches end together: a taker finding the tournament's lock held waits for
    it, then takes every result come in (its own and the other's), in bracket order; the
    other's taker then finds nothing left to take. Nothing goes to a worker's queue."""
    tournament, (first, second), queued, held = two_results_held_back(monkeypatch)
    holder = lock_held_for(tournament, 0.5)
    waited = time.monotonic()
    held[1]()  # waits for the holder's commit, then takes both
    assert time.monotonic() - waited >= 0.3
    holder.join()
    statuses = BracketTable.objects.filter(pk__in=[first.pk, second.pk]).values_list(
        "status", flat=True
    )
    assert set(statuses) == {BracketTable.Status.FINISHED}
    fed = BracketTable.objects.get(tournament=tournament, round=2, number=1)
    assert fed.status == BracketTable.Status.PLAYING  # both feeders done: seated at once
    held[0]()  # its result was taken: nothing to do, nothing queued
    assert queued == []
    assert not match_result_take(match_id=first.match_id, actor=SYSTEM)  # a late task: nothing


@pytest.mark.postgres
def test_a_lock_held_past_the_wait_leaves_the_result_to_the_task(monkeypatch) -> None:
    """A start or a round's prizes can hold the lock for seconds: the move that ended the
    match does not wait past ``RESULT_LOCK_WAIT``; its result goes to the task, whole."""
    monkeypatch.setattr(lifecycle, "RESULT_LOCK_WAIT", 0.2)
    tournament, (first, _), queued, held = two_results_held_back(monkeypatch)
    holder = lock_held_for(tournament, 2.0)
    waited = time.monotonic()
    held[0]()
    assert time.monotonic() - waited < 1.5
    assert queued == [first.match_id]
    holder.join()
    assert BracketTable.objects.get(pk=first.pk).status == BracketTable.Status.PLAYING
    assert match_result_take(match_id=first.match_id, actor=SYSTEM)  # the task takes it
