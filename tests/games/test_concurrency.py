"""Concurrent requests for the same turn (and the same last seat) on PostgreSQL: exactly one
applies. Real threads, real row locks; the main thread holds the match (or table) row until
both requests are queued on it, so they truly collide."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from games.models import HandEvent, Match, Seat, Table
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import seat_both, view
from tests.helpers import session_client
from tests.wallet.factories import fund
from wallet.models import LedgerTransaction
from wallet.selectors import balances as wallet_balances

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race_holding(requests, *, hold) -> list:
    """Run ``requests`` (callables returning a response) in threads that start together while
    ``hold()`` keeps the contended row locked; return the responses in request order."""
    results: list = [None] * len(requests)
    ready = threading.Barrier(len(requests) + 1)

    def run(index: int, request) -> None:
        try:
            ready.wait()
            results[index] = request()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, r)) for i, r in enumerate(requests)]
    with transaction.atomic():
        hold()
        for thread in threads:
            thread.start()
        ready.wait()
        time.sleep(0.5)  # both requests are now waiting on our row lock
    for thread in threads:
        thread.join(timeout=30)
    return results


def running_match(operator, **room):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100, **room))
    one = PlayerFactory(operator=operator)
    two = PlayerFactory(operator=operator)
    match_id, seats = seat_both(session_client(one), session_client(two), table.pk)
    look = view(seats[0], match_id).json()
    to_act = look["hand"]["to_act"]
    players = {seat.position: seat.player for seat in Seat.objects.filter(match_id=match_id)}
    return match_id, players, to_act, look["seq"]


def match_locker(match_id: int):
    return lambda: Match.objects.select_for_update().get(pk=match_id)


def action_poster(player, match_id, kind, seq):
    def request():
        return session_client(player).post(
            f"/api/v1/matches/{match_id}/actions",
            {"kind": kind, "expected_seq": seq},
            format="json",
        )

    return request


def test_two_different_actions_for_the_same_turn_exactly_one_applies(operator, seeds):
    match_id, players, to_act, seq = running_match(operator)
    actions_before = HandEvent.objects.filter(match_id=match_id, action__isnull=False).count()
    first, second = race_holding(
        [
            action_poster(players[to_act], match_id, "take_upcard", seq),
            action_poster(players[to_act], match_id, "pass", seq),
        ],
        hold=match_locker(match_id),
    )
    statuses = sorted([first.status_code, second.status_code])
    assert statuses == [200, 409], (first.content, second.content)
    loser = first if first.status_code == 409 else second
    assert loser.json()["type"] == "/problems/stale-sequence"
    applied = HandEvent.objects.filter(match_id=match_id, action__isnull=False)
    assert applied.count() == actions_before + 1
    assert Match.objects.get(pk=match_id).seq == seq + 1


def test_the_same_action_sent_twice_at_once_applies_once(operator, seeds):
    match_id, players, to_act, seq = running_match(operator)
    responses = race_holding(
        [action_poster(players[to_act], match_id, "pass", seq) for _ in range(2)],
        hold=match_locker(match_id),
    )
    assert [r.status_code for r in responses] == [200, 200]
    replayed = sorted(str(r.get("Idempotent-Replayed")) for r in responses)
    assert replayed == ["None", "true"]  # one applied, one answered as a retry
    assert responses[0].json() == responses[1].json()
    assert HandEvent.objects.filter(match_id=match_id, kind="pass").count() == 1


def test_both_players_acting_at_once_only_the_one_to_act_applies(operator, seeds):
    match_id, players, to_act, seq = running_match(operator)
    responses = race_holding(
        [
            action_poster(players[to_act], match_id, "pass", seq),
            action_poster(players[1 - to_act], match_id, "pass", seq),
        ],
        hold=match_locker(match_id),
    )
    assert responses[0].status_code == 200
    assert responses[1].status_code == 409
    assert HandEvent.objects.filter(match_id=match_id, kind="pass").count() == 1


def test_a_move_racing_a_forfeit_either_applies_or_loses(operator, seeds):
    match_id, players, to_act, seq = running_match(operator)
    table_id = Match.objects.get(pk=match_id).table_id
    leave = lambda: session_client(players[1 - to_act]).post(f"/api/v1/tables/{table_id}/leave")  # noqa: E731
    move, left = race_holding(
        [action_poster(players[to_act], match_id, "pass", seq), leave],
        hold=match_locker(match_id),
    )
    assert left.status_code == 200
    match = Match.objects.get(pk=match_id)
    assert match.forfeit_seat == 1 - to_act
    assert match.status in (Match.Status.FINISHED, Match.Status.SETTLED)  # settled on commit
    applied = HandEvent.objects.filter(match_id=match_id, kind="pass").count()
    assert (move.status_code, applied) in ((200, 1), (409, 0))


def test_two_players_racing_for_the_last_seat_one_sits_one_pays_nothing(operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, stake=500, target=100))
    first = PlayerFactory(operator=operator)
    racers = [PlayerFactory(operator=operator) for _ in range(2)]
    for player in (first, *racers):
        fund(player, 1_000)
    assert session_client(first).post(f"/api/v1/tables/{table.pk}/sit").status_code == 201

    def sit(player):
        return lambda: session_client(player).post(f"/api/v1/tables/{table.pk}/sit")

    responses = race_holding(
        [sit(player) for player in racers],
        hold=lambda: Table.objects.select_for_update().get(pk=table.pk),
    )
    assert sorted(r.status_code for r in responses) == [201, 409]
    balances = sorted(wallet_balances.wallet_balance(player=p) for p in racers)
    assert balances == [500, 1_000]
    assert LedgerTransaction.objects.filter(kind="buy_in").count() == 2
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.RUNNING
    assert wallet_balances.escrow_balance(game_ref=match.game_ref, currency="EUR") == 1_000
