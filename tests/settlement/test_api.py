"""Statements for the operator and each player of the game; reconciliation."""

from __future__ import annotations

import pytest

from games.models import Match
from gin_platform.models import WebhookDelivery
from gin_platform.tenancy.services import api_key_create, player_session_create
from settlement import services
from settlement.models import ReconciliationRun
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import bearer_client
from tests.settlement.helpers import play_out, seat_two
from wallet.models import Account

pytestmark = pytest.mark.django_db


@pytest.fixture
def settled(operator):
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=1234, fee_bps=250)
    match = play_out(seat_two(TableFactory(room=room)))
    return services.game_settle(match_id=match.pk)


def test_operator_and_both_players_read_the_statement(settled, operator_client):
    url = f"/api/v1/settlements/{settled.match_id}"
    body = operator_client.get(url).json()
    assert body["fee"] == {"amount": "0.61", "currency": "EUR"}  # 24.68 x 2.5% rounded down
    statement = body["statement"]
    assert {line["component"] for line in statement["lines"]} == {"stake", "pot", "fee_deduction"}
    seats = list(settled.match.seats.select_related("player"))
    assert {p["external_ref"] for p in statement["players"]} == {
        seat.player.external_ref for seat in seats
    }
    for seat in seats:
        token = player_session_create(player=seat.player, actor=SYSTEM).token
        response = bearer_client(token).get(url)
        mine = response.json()["statement"]
        # The same statement, except that nobody appears by the operator's private id.
        assert mine == statement | {
            "players": [
                {k: v for k, v in p.items() if k != "external_ref"} for p in statement["players"]
            ]
        }
        for other in seats:
            assert other.player.external_ref not in response.content.decode()
        names = {p["seat"]: p["screen_name"] for p in mine["players"]}
        assert names == {
            s.position: s.player.display_name or f"Seat {s.position + 1}" for s in seats
        }


def test_a_stranger_and_another_operator_get_404(settled, operator):
    stranger = PlayerFactory(operator=operator)
    token = player_session_create(player=stranger, actor=SYSTEM).token
    url = f"/api/v1/settlements/{settled.match_id}"
    assert bearer_client(token).get(url).status_code == 404
    other = api_key_create(operator=OperatorFactory(), actor=SYSTEM).key
    assert bearer_client(other).get(url).status_code == 404
    assert bearer_client(other).get("/api/v1/settlements").json()["results"] == []


def test_operator_lists_settlements(settled, operator_client):
    listing = operator_client.get("/api/v1/settlements?currency=eur").json()
    assert [row["match_id"] for row in listing["results"]] == [settled.match_id]


@pytest.mark.django_db(transaction=True)
def test_game_finished_then_game_settled_webhooks(operator):
    operator.webhook_url = "http://127.0.0.1:1/hooks"
    operator.save()
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))  # settled on commit (eager)
    # Every event is sent now (seat.taken, hand.ended, ...: docs/webhooks.md); one test
    # transaction dates them all alike, so the two game events are compared as a set.
    events = sorted(
        WebhookDelivery.objects.filter(event_type__startswith="game.").values_list(
            "event_type", flat=True
        )
    )
    assert events == ["game.finished", "game.settled"]
    finished = WebhookDelivery.objects.get(event_type="game.finished")
    assert finished.payload["result"]["winner_seat"] == Match.objects.get(pk=match.pk).winner_seat


def test_game_settled_webhook_is_queued_with_the_statement(operator):
    operator.webhook_url = "http://127.0.0.1:1/hooks"
    operator.save()
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))
    settlement = services.game_settle(match_id=match.pk)
    delivery = WebhookDelivery.objects.get(event_type="game.settled")
    assert (
        delivery.payload["statement"]["ledger_reference"]
        == settlement.statement["ledger_reference"]
    )


# Reports: tests/settlement/test_reports.py.


# --- reconciliation ------------------------------------------------------------------------
def test_reconciliation_is_ok_after_settlements_and_flags_drift(settled, staff_client, caplog):
    run = services.reconciliation_run()
    assert run.ok
    Account.objects.filter(pk=settled.ledger_transaction.escrow_id).update(balance=5)
    with caplog.at_level("ERROR"):
        response = staff_client.post("/api/v1/backoffice/reconciliation")
    assert response.status_code == 201 and response.json()["ok"] is False
    assert "ALERT ledger reconciliation failed" in caplog.text
    assert any("DRIFT" in line for line in response.json()["report"]["lines"])
    listing = staff_client.get("/api/v1/backoffice/reconciliation").json()["results"]
    assert [r["ok"] for r in listing] == [False, True]
    assert ReconciliationRun.objects.count() == 2


def test_filters_are_validated_not_passed_to_the_database(operator_client):
    """Found by the API fuzzer: a NUL or an unknown currency, an id past 64 bits."""
    response = operator_client.get("/api/v1/reports/daily?currency=ZZZ")
    assert response.status_code == 400
    assert response.json()["errors"]["currency"]
    # A NUL in any query parameter is refused before the view (gin_platform/http/middleware.py).
    response = operator_client.get("/api/v1/settlements?currency=%00")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/malformed-request"
    assert operator_client.get("/api/v1/settlements/99999999999999999999999").status_code == 404
