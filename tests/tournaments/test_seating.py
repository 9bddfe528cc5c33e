"""Seating after a result's commit (docs/tournaments.md "Seating"): the result that makes a
table's players known records them under the results' lock; the table's match is opened in
a transaction of its own, sharing the tournament's lock, so seatings run beside the results'
takes; a seating lost with its process is the sweep's, and a cancellation waits for a
seating at work, then ends the match it opened."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import OperationalError, connection, transaction

from games.models import Match, Seat
from games.services.interruptions import match_void
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_seat_claim
from tests.factories import SYSTEM, OperatorFactory
from tests.tournaments.test_exactly_once import lock_held_for
from tests.tournaments.test_lifecycle import funded_player, sit_and_go
from tournaments import receivers
from tournaments.locks import lock_tournament, lock_tournament_waiting, share_tournament
from tournaments.models import BracketTable, Tournament
from tournaments.services import bracket, lifecycle
from tournaments.services.bracket import due_table_seat
from tournaments.services.lifecycle import match_result_take, tournament_cancel
from tournaments.services.registration import entry_register
from tournaments.services.sweep import tournaments_sweep

pytestmark = pytest.mark.django_db(transaction=True)


def four_entries() -> tuple[Tournament, list[BracketTable]]:
    operator = OperatorFactory()
    tournament = sit_and_go(operator, entries=4)
    for _ in range(4):
        entry_register(player=funded_player(operator), tournament=tournament, actor=SYSTEM)
    return tournament, list(BracketTable.objects.filter(tournament=tournament, round=1))


def first_round_ends(tables: list[BracketTable]) -> None:
    for table in tables:
        for seat in Seat.objects.filter(match=table.match):
            tournament_seat_claim(player=seat.player, match=table.match, actor=SYSTEM)
        match_resign(seat=Seat.objects.filter(match=table.match).first(), actor=SYSTEM)


def test_a_table_left_due_by_a_process_killed_between_the_commits_is_the_sweeps(
    monkeypatch,
) -> None:
    tournament, tables = four_entries()
    lost: list = []
    monkeypatch.setattr(  # the process is killed once the result's take has committed
        bracket, "on_commit_logged", lambda callback, what: lost.append(callback)
    )
    monkeypatch.setattr(lifecycle, "fed_table_seat", lambda **kwargs: False)
    first_round_ends(tables)
    final = BracketTable.objects.get(tournament=tournament, round=2)
    winners = [
        entry for table in tables for entry in BracketTable.objects.get(pk=table.pk).advancing
    ]
    assert len(lost) == 1 and final.status == BracketTable.Status.PENDING
    assert final.entries == winners and final.match_id is None  # due: its players set

    assert tournaments_sweep(actor=SYSTEM) == 1
    final.refresh_from_db()
    assert final.status == BracketTable.Status.PLAYING and final.opened_at is not None
    lost[0]()  # the lost seater, late: the table is seated, nothing opens twice
    assert tournaments_sweep(actor=SYSTEM) == 0
    assert not due_table_seat(table_id=final.pk, actor=SYSTEM)
    assert Match.objects.filter(bracket_table__tournament=tournament).count() == 3


def test_a_seating_that_fails_where_the_result_was_taken_goes_to_its_task(monkeypatch) -> None:
    tournament, tables = four_entries()
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(bracket, "enqueue", lambda task, table_id: queued.append((task, table_id)))
    opened = bracket.table_match_open

    def a_lost_connection(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(bracket, "table_match_open", a_lost_connection)
    first_round_ends(tables)
    final = BracketTable.objects.get(tournament=tournament, round=2)
    assert queued == [(bracket.SEAT_TASK, final.pk)]
    assert BracketTable.objects.get(pk=final.pk).status == BracketTable.Status.PENDING

    monkeypatch.setattr(bracket, "table_match_open", opened)
    assert due_table_seat(table_id=final.pk, actor=SYSTEM)  # the task
    assert BracketTable.objects.get(pk=final.pk).status == BracketTable.Status.PLAYING


@pytest.mark.postgres
def test_a_seating_at_work_keeps_no_result_waiting_and_a_cancellation_waits_for_it() -> None:
    tournament, _ = four_entries()
    seater = lock_held_for(tournament, 1.0, lock=share_tournament)  # a seating at work
    began = time.monotonic()
    with transaction.atomic():  # a results' take: not kept waiting
        lock_tournament_waiting(tournament.pk, seconds=0.2)
    assert time.monotonic() - began < 0.5
    with transaction.atomic():  # a cancellation's (or a start's) lock: waits for the seating
        lock_tournament(tournament.pk)
    assert time.monotonic() - began >= 0.8
    seater.join()


@pytest.mark.postgres
def test_a_cancellation_ends_the_match_a_seating_opened_while_it_waited(monkeypatch) -> None:
    tournament, tables = four_entries()
    lost: list = []
    monkeypatch.setattr(bracket, "on_commit_logged", lambda callback, what: lost.append(callback))
    monkeypatch.setattr(lifecycle, "fed_table_seat", lambda **kwargs: False)
    first_round_ends(tables)
    monkeypatch.undo()
    final = BracketTable.objects.get(tournament=tournament, round=2)
    opening = threading.Event()
    opened = bracket.table_match_open

    def slow_open(**kwargs):
        opening.set()
        time.sleep(0.5)  # the cancellation arrives while the match opens
        return opened(**kwargs)

    monkeypatch.setattr(bracket, "table_match_open", slow_open)

    def seat() -> None:
        try:
            due_table_seat(table_id=final.pk, actor=SYSTEM)
        finally:
            connection.close()

    seater = threading.Thread(target=seat)
    seater.start()
    assert opening.wait(10)
    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)
    seater.join()
    final.refresh_from_db()
    assert final.status == BracketTable.Status.ABORTED  # found open, and ended
    assert Match.objects.get(pk=final.match_id).status == Match.Status.VOIDED
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED


def test_a_voided_match_is_cancelled_with_by_its_task_under_the_exclusive_lock(
    monkeypatch,
) -> None:
    """R13 voids a match interrupted past its limit, which cancels the tournament (R14): a
    results' take, whose lock lets seatings run beside it, leaves that to the task."""
    tournament, tables = four_entries()
    queued: list[int] = []
    monkeypatch.setattr(receivers, "enqueue", lambda task, match_id: queued.append(match_id))
    first = tables[0]
    for seat in Seat.objects.filter(match=first.match):
        tournament_seat_claim(player=seat.player, match=first.match, actor=SYSTEM)
    assert match_void(match_id=first.match_id, actor=SYSTEM)
    assert queued == [first.match_id]  # taken where it ended: not there
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    assert match_result_take(match_id=first.match_id, actor=SYSTEM)  # the task
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED


def test_a_table_made_due_in_anothers_take_is_seated_by_its_own_matchs_taker(
    monkeypatch,
) -> None:
    """One holder of the results' lock takes every result come in; each table they make due
    is seated by the taker of the match that completed it, after its own turn at the lock,
    so a round's tables open side by side rather than one after another in the holder's."""
    operator = OperatorFactory()
    tournament = sit_and_go(operator, entries=8)
    for _ in range(8):
        entry_register(player=funded_player(operator), tournament=tournament, actor=SYSTEM)
    held: list = []
    monkeypatch.setattr(receivers, "on_commit_logged", lambda callback, what: held.append(callback))
    first_round_ends(
        list(BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")[:3])
    )
    assert len(held) == 3
    held[2]()  # table 1-3's taker holds the lock first and takes all three results
    statuses = dict(
        BracketTable.objects.filter(tournament=tournament, round=2).values_list("number", "status")
    )
    fed = BracketTable.objects.get(tournament=tournament, round=2, number=1)
    assert statuses == {1: BracketTable.Status.PENDING, 2: BracketTable.Status.PENDING}
    assert len(fed.entries) == 2  # due: 1-1 and 1-2 both taken
    held[0]()  # 1-1's taker: nothing left to take, its next table to seat
    fed.refresh_from_db()
    assert fed.status == BracketTable.Status.PLAYING
    held[1]()  # 1-2's: seated already, nothing opens twice
    assert Match.objects.filter(bracket_table__tournament=tournament).count() == 5
