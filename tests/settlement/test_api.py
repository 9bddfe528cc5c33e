"""Statements for the operator and each player of the game; reports; reconciliation."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import Sum
from rest_framework.test import APIClient

from games.models import Match
from gin_platform.models import WebhookDelivery
from gin_platform.principals import Actor
from gin_platform.services import api_key_create, player_session_create
from settlement import reports, services
from settlement.models import ReconciliationRun
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import play_out, seat_two
from wallet.models import Account, LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("tests")


def client_for(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


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
    for seat in settled.match.seats.all():
        token = player_session_create(player=seat.player, actor=SYSTEM).token
        assert client_for(token).get(url).json()["statement"] == statement


def test_a_stranger_and_another_operator_get_404(settled, operator):
    stranger = PlayerFactory(operator=operator)
    token = player_session_create(player=stranger, actor=SYSTEM).token
    url = f"/api/v1/settlements/{settled.match_id}"
    assert client_for(token).get(url).status_code == 404
    other = api_key_create(operator=OperatorFactory(), actor=SYSTEM).key
    assert client_for(other).get(url).status_code == 404
    assert client_for(other).get("/api/v1/settlements").json()["results"] == []


def test_operator_lists_settlements(settled, operator_client):
    listing = operator_client.get("/api/v1/settlements?currency=eur").json()
    assert [row["match_id"] for row in listing["results"]] == [settled.match_id]


@pytest.mark.django_db(transaction=True)
def test_game_finished_then_game_settled_webhooks(operator):
    operator.webhook_url = "http://127.0.0.1:1/hooks"
    operator.save()
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = play_out(seat_two(TableFactory(room=room)))  # settled on commit (eager)
    events = list(
        WebhookDelivery.objects.order_by("created_at").values_list("event_type", flat=True)
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


# --- reports ---------------------------------------------------------------------------------
def ledger_fees(operator, start, end) -> int:
    return (
        LedgerEntry.objects.filter(
            account__kind=Account.Kind.HOUSE_FEE,
            account__operator=operator,
            transaction__created_at__gte=start,
            transaction__created_at__lt=end,
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )


def ledger_settled_escrow(operator, start, end) -> int:
    return (
        LedgerTransaction.objects.filter(
            operator=operator,
            kind=LedgerTransaction.Kind.SETTLEMENT,
            created_at__gte=start,
            created_at__lt=end,
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )


def test_report_totals_equal_the_ledger_for_the_same_period(operator, operator_client):
    for stake, variant in ((500, "ftk"), (777, "match"), (1001, "ftk")):
        room = RoomFactory(
            operator=operator,
            variant=variant,
            target=None if variant == "ftk" else 100,
            stake=stake,
            fee_bps=333,
        )
        services.game_settle(match_id=play_out(seat_two(TableFactory(room=room))).pk)
    start = datetime.now(UTC) - timedelta(hours=1)
    end = datetime.now(UTC) + timedelta(hours=1)
    query = f"from={start.isoformat()}&to={end.isoformat()}".replace("+", "%2B")
    body = operator_client.get(f"/api/v1/reports/daily?{query}").json()
    (row,) = body["rows"]
    assert row["games"] == 3
    fees = ledger_fees(operator, start, end)
    assert row["fees"] == f"{fees / 100:.2f}"
    assert row["turnover"] == f"{ledger_settled_escrow(operator, start, end) / 100:.2f}"
    assert row["payouts"] == f"{(ledger_settled_escrow(operator, start, end) - fees) / 100:.2f}"
    # Player P&L adds up to what the house kept.
    pnl = sum(int(p["net"].replace(".", "")) for p in row["player_pnl"])
    assert pnl == -fees
    # The same cut-off gives the same numbers every time.
    assert operator_client.get(f"/api/v1/reports/daily?{query}").json() == body


def test_report_csv_is_rfc4180_and_formula_safe(settled, operator_client, operator):
    operator.slug = "=cmd|evil"
    operator.save()
    day = settled.settled_at.date().isoformat()
    response = operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    text = response.content.decode()
    assert "\r\n" in text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:4] == ["operator", "currency", "day", "games"]
    assert rows[1][0] == "'=cmd|evil"  # a formula would have run in a spreadsheet
    # The loser's negative P&L stays a number (not quoted like a formula).
    assert any(
        cell.startswith("-") and cell[1:].replace(".", "").isdigit()
        for row in rows[1:]
        for cell in row
    )


def test_report_range_errors_are_problems(operator_client):
    response = operator_client.get("/api/v1/reports/daily?from=2026-02-01&to=2026-01-01")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/report-range-invalid"
    assert operator_client.get("/api/v1/reports/daily?from=yesterday").status_code == 400


def test_staff_report_covers_any_operator(settled, staff_client, operator):
    day = settled.settled_at.date().isoformat()
    body = staff_client.get(
        f"/api/v1/backoffice/reports/daily?from={day}&operator={operator.slug}"
    ).json()
    assert body["rows"][0]["operator"] == operator.slug
    assert staff_client.get("/api/v1/backoffice/reports/daily?operator=nope").status_code == 404


def test_operators_cannot_read_the_back_office(operator_client):
    assert operator_client.get("/api/v1/backoffice/reports/daily").status_code == 403
    assert operator_client.get("/api/v1/backoffice/reconciliation").status_code == 403


def test_safe_cell():
    assert reports.safe_cell("=1+1") == "'=1+1"
    assert reports.safe_cell("@SUM(A1)") == "'@SUM(A1)"
    assert reports.safe_cell("-12.50") == "-12.50"
    assert reports.safe_cell("-1+2") == "'-1+2"
    assert reports.safe_cell("plain") == "plain"


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
    for url in (
        "/api/v1/settlements?currency=%00",
        "/api/v1/reports/daily?currency=ZZZ",
    ):
        response = operator_client.get(url)
        assert response.status_code == 400, url
        assert response.json()["errors"]["currency"]
    assert operator_client.get("/api/v1/settlements/99999999999999999999999").status_code == 404


def test_admin_report_page_shows_the_same_numbers(settled, client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", password="pw-boss-12345")
    client.force_login(user)
    day = settled.settled_at.date().isoformat()
    page = client.get(f"/admin/settlement/dailyreport/?from={day}")
    assert page.status_code == 200
    text = page.content.decode()
    assert settled.operator.slug in text
    assert settled.statement["fee"]["amount"] in text
    bad = client.get("/admin/settlement/dailyreport/?from=nonsense")
    assert bad.status_code == 200 and "errornote" in bad.content.decode()
