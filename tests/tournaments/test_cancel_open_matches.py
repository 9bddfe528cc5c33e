"""A cancellation ends the matches it leaves open (R14 "Cancellation", docs/tournaments.md
"Cancellation"): cancelled mid-round with one table finished and one being played, the
running match is voided once (after the commit, or by the sweep if that message was lost),
nobody can move in it, nothing is posted for it, its players are told, and the players
still in share the rest of the pool; a match still waiting for its players is voided too
and its seat can no longer be taken."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.models import Match, Seat
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_match_void, tournament_seat_claim
from gin_platform.models import AuditEvent, OperatorEvent
from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import assert_problem, session_client
from tests.tournaments.test_lifecycle import FUNDS, STAKE, balance, funded_player, sit_and_go
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services import lifecycle
from tournaments.services.lifecycle import match_result_take, tournament_cancel
from tournaments.services.registration import entry_register
from tournaments.services.sweep import tournaments_sweep
from wallet.models import LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _tables(tournament: Tournament) -> list[BracketTable]:
    return list(BracketTable.objects.filter(tournament=tournament, round=1).order_by("number"))


def _seats(match_id: int) -> list[Seat]:
    return list(Seat.objects.filter(match_id=match_id).order_by("position"))


def _started(entries: int = 4):
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(entries)]
    tournament = sit_and_go(operator, entries=entries)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return operator, tournament


def _one_finished_one_running(tournament: Tournament) -> tuple[BracketTable, BracketTable]:
    finished, running = _tables(tournament)
    for table in (finished, running):
        for seat in _seats(table.match_id):
            tournament_seat_claim(player=seat.player, match=table.match, actor=SYSTEM)
    match_resign(seat=_seats(finished.match_id)[0], actor=SYSTEM)
    finished.refresh_from_db()
    assert finished.status == BracketTable.Status.FINISHED
    assert Match.objects.get(pk=running.match_id).status == Match.Status.RUNNING
    return finished, running


def test_cancelled_mid_round_the_running_match_ends_and_the_players_in_share_the_rest() -> None:
    operator, tournament = _started()
    _, running = _one_finished_one_running(tournament)
    playing = {seat.player_id: seat.player for seat in _seats(running.match_id)}
    ledger_before = LedgerTransaction.objects.count()

    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)

    tournament.refresh_from_db()
    running.refresh_from_db()
    match = Match.objects.get(pk=running.match_id)
    assert tournament.status == Tournament.Status.CANCELLED
    assert running.status == BracketTable.Status.ABORTED and running.finished_at is not None
    assert match.status == Match.Status.VOIDED  # the task ran on the commit
    assert {seat.state for seat in _seats(match.pk)} == {Seat.State.FINISHED}
    # Nobody can move in it: a player's next move is refused and changes nothing.
    mover = session_client(next(iter(playing.values())))
    response = mover.post(
        f"/api/v1/matches/{match.pk}/actions",
        {"kind": "draw_stock", "card": None, "expected_seq": match.seq},
        format="json",
    )
    assert_problem(response, 409, "match-not-in-progress")
    assert Match.objects.get(pk=match.pk).seq == match.seq
    # No money moves at a tournament's match: nothing posted for it, ever.
    assert not LedgerTransaction.objects.filter(game_ref=match.game_ref).exists()
    # Its players are told as games tells a void: game.voided to their operator.
    voided = OperatorEvent.objects.filter(operator=operator, type="game.voided")
    assert [event.data["match_id"] for event in voided] == [match.pk]
    assert voided.get().data["reason"] == "tournament_cancelled"
    # R14: the three still in (the finished table's winner and both of the running table)
    # share the pool not yet paid (round 1's places were never decided), 40.00.
    still_in = Entry.objects.filter(tournament=tournament, status=Entry.Status.IN)
    assert set(still_in.values_list("player_id", flat=True)) >= set(playing)
    assert sorted(still_in.values_list("prize", flat=True)) == [1_333, 1_333, 1_334]
    assert sum(still_in.values_list("prize", flat=True)) == 4 * STAKE
    assert balances.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0
    # The cancellation's postings only: the shared prize and the fees.
    assert set(
        LedgerTransaction.objects.order_by("pk")[ledger_before:].values_list("kind", flat=True)
    ) == {"tournament_prize", "tournament_fee"}
    report = reconciliation.reconcile()
    assert report.ok, report.render()
    cancelled = AuditEvent.objects.get(action="tournament.cancelled", object_id=str(tournament.pk))
    assert cancelled.data["aborted_matches"] == [match.pk]

    # The void's match_voided reached the tournament, which takes no result of it; asking
    # again changes nothing.
    assert not match_result_take(match_id=match.pk, actor=SYSTEM)
    assert not tournament_match_void(match_id=match.pk, reason="again", actor=SYSTEM)
    assert AuditEvent.objects.filter(action="match.voided", object_id=str(match.pk)).count() == 1


def test_a_void_lost_with_its_message_is_done_by_the_sweep_exactly_once(monkeypatch) -> None:
    _, tournament = _started()
    _, running = _one_finished_one_running(tournament)
    lost: list[tuple[str, int]] = []
    monkeypatch.setattr(lifecycle, "enqueue_on_commit", lambda *args: lost.append(args))
    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)
    assert lost == [(lifecycle.MATCH_VOID_TASK, running.match_id)]
    assert Match.objects.get(pk=running.match_id).status == Match.Status.RUNNING

    assert tournaments_sweep(actor=SYSTEM) == 0  # younger than the grace: its task's
    aborted_at = BracketTable.objects.get(pk=running.pk).finished_at
    BracketTable.objects.filter(pk=running.pk).update(
        finished_at=aborted_at - timedelta(seconds=10)
    )
    assert tournaments_sweep(actor=SYSTEM) == 1
    assert Match.objects.get(pk=running.match_id).status == Match.Status.VOIDED
    assert tournaments_sweep(actor=SYSTEM) == 0
    assert not lifecycle.aborted_match_void(match_id=running.match_id, actor=SYSTEM)
    assert AuditEvent.objects.filter(action="match.voided").count() == 1


def test_a_match_waiting_for_its_players_is_voided_and_its_seat_cannot_be_taken() -> None:
    _, tournament = _started()
    first, second = _tables(tournament)
    # Table 1 plays to its end; table 2's players never came (its match still waiting).
    for seat in _seats(first.match_id):
        tournament_seat_claim(player=seat.player, match=first.match, actor=SYSTEM)
    match_resign(seat=_seats(first.match_id)[0], actor=SYSTEM)
    waiting = Match.objects.get(pk=second.match_id)
    assert waiting.status == Match.Status.WAITING

    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)

    waiting.refresh_from_db()
    assert waiting.status == Match.Status.VOIDED and waiting.no_show_deadline is None
    assert {seat.state for seat in _seats(waiting.pk)} == {Seat.State.FINISHED}
    absent = _seats(waiting.pk)[0].player
    response = session_client(absent).post(
        f"/api/v1/tournaments/{tournament.pk}/seat", {}, format="json"
    )
    assert_problem(response, 409, "tournament-no-seat")
    # Taking it by games' own call seats nobody: the match stays voided.
    tournament_seat_claim(player=absent, match=waiting, actor=SYSTEM)
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.VOIDED
    assert not LedgerTransaction.objects.filter(game_ref=waiting.game_ref).exists()
    assert reconciliation.reconcile().ok


def test_cancelled_before_any_result_the_open_matches_end_and_every_entry_is_refunded() -> None:
    _, tournament = _started()
    tables = _tables(tournament)
    for seat in _seats(tables[0].match_id):
        tournament_seat_claim(player=seat.player, match=tables[0].match, actor=SYSTEM)

    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)

    statuses = Match.objects.filter(pk__in=[t.match_id for t in tables]).values_list(
        "status", flat=True
    )
    assert set(statuses) == {Match.Status.VOIDED}
    entries = Entry.objects.filter(tournament=tournament).select_related("player")
    assert {entry.status for entry in entries} == {Entry.Status.REFUNDED}
    assert {balance(entry.player) for entry in entries} == {FUNDS}
    assert balances.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0
    assert reconciliation.reconcile().ok
