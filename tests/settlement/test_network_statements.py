"""Settling the network (docs/network.md "Settling the network"): the network statement for
operators (their own only) and staff (any, with the reports permission), JSON and CSV; the
four-eyes net settlement that zeroes an operator's position; a network game's settlement as
each operator and player reads it (the other operator's player by screen name only)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC
from decimal import Decimal

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Match, Seat
from settlement.statements import statement_for_operator
from tests.factories import SYSTEM, PlayerFactory, staff_user
from tests.games.factories import TableFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.helpers import api_as, assert_problem, operator_api, session_client
from tests.wallet.factories import fund
from tests.wallet.tables import buy_in, settle
from wallet.models import ApprovalRequest, LedgerTransaction
from wallet.selectors import network as network_selectors
from wallet.selectors import reconciliation
from wallet.services import EscrowPayout


@pytest.fixture
def world(db):
    network = network_make(fee_share_bps=2000).operator
    a, b = member_make(name="Alpha"), member_make(name="Bravo")
    alice = PlayerFactory(operator=a, screen_name="alice_net")
    bob = PlayerFactory(operator=b, screen_name="bob_net")
    fund(alice, 10_000)
    fund(bob, 10_000)
    return network, a, b, alice, bob


def _play(network, winner, loser, game_ref: str, *, stake: int = 1_000, fee: int = 50):
    for player in (winner, loser):
        buy_in(player, stake, game=game_ref, escrow_operator=network)
    return settle(
        [EscrowPayout(player=winner, amount=2 * stake - fee, component="pot")], fee, game=game_ref
    )


@pytest.mark.django_db
def test_an_operator_reads_its_own_network_statement_as_json_and_csv(world):
    network, a, b, alice, bob = world
    _play(network, alice, bob, "match:stmt-1")  # A's player wins 1950, fee 50: 20 each
    response = operator_api(a).get("/api/v1/network/statement", {"from": _today()})
    assert response.status_code == 200, response.content
    rows = response.json()["rows"]
    assert [row["operator"] for row in rows] == [a.slug]
    row = rows[0]
    assert (row["games"], row["turnover"], row["payouts"], row["fees"]) == (
        1,
        "10.00",
        "19.50",
        "0.20",
    )
    # A's player took 9.70 more out of the network than A put in: the network owes A.
    assert row["net"] == "-9.70" and row["position"] == "-9.70"
    assert (row["owed_to_network"], row["owed_by_network"]) == ("0.00", "9.70")
    other = operator_api(b).get("/api/v1/network/statement", {"from": _today()}).json()
    assert other["rows"][0]["position"] == "9.80"  # B lost 10.00 and earned 0.20 of fee
    csv_body = operator_api(a).get("/api/v1/network/statement", {"from": _today(), "format": "csv"})
    assert csv_body.status_code == 200
    lines = csv_body.content.decode().split("\r\n")
    assert lines[0].startswith("day,operator,currency,games,turnover")
    assert a.slug in lines[1] and b.slug not in csv_body.content.decode()


@pytest.mark.django_db
def test_staff_read_every_operators_network_statement_with_the_network_row(world):
    network, a, b, alice, bob = world
    _play(network, alice, bob, "match:stmt-2")
    staff = api_as(staff_user("fin", "finance"))
    body = staff.get("/api/v1/backoffice/network/statement", {"from": _today()}).json()
    positions = {row["operator"]: row["position"] for row in body["rows"]}
    assert positions == {a.slug: "-9.70", b.slug: "9.80", network.slug: "-0.10"}
    network_row = next(row for row in body["rows"] if row["operator"] == network.slug)
    assert network_row["games"] == 1 and network_row["fees"] == "0.10"
    one = staff.get("/api/v1/backoffice/network/statement", {"operator": b.slug}).json()
    assert {row["operator"] for row in one["rows"]} <= {b.slug}
    support = api_as(staff_user("sup", "support"))
    response = support.get("/api/v1/backoffice/network/statement")
    assert response.status_code == 403


@pytest.mark.django_db
def test_a_net_settlement_needs_four_eyes_and_zeroes_the_position(world):
    network, a, _b, alice, bob = world
    _play(network, bob, alice, "match:stmt-3")  # A owes the network 10.00 - 0.20
    cutoff = timezone.now()
    ana, ben = staff_user("ana", "finance"), staff_user("ben", "finance")
    proposal = {
        "kind": "net_settlement",
        "operator_id": str(a.pk),
        "reason": "bank transfer NET-2026-11-30",
        "payload": {"currency": "EUR", "cutoff": cutoff.isoformat(), "amount": "9.80"},
    }
    wrong = api_as(ana).post(
        "/api/v1/staff/approvals",
        proposal | {"payload": proposal["payload"] | {"amount": "9.00"}},
        format="json",
    )
    assert_problem(wrong, 422, "network-settlement-invalid")
    created = api_as(ana).post("/api/v1/staff/approvals", proposal, format="json")
    assert created.status_code == 201, created.content
    approval_id = created.json()["id"]
    assert_problem(
        api_as(ana).post(f"/api/v1/staff/approvals/{approval_id}/approve", {}, format="json"),
        403,
        "four-eyes-required",
    )
    done = api_as(ben).post(f"/api/v1/staff/approvals/{approval_id}/approve", {}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "executed"
    assert network_selectors.network_position_balance(operator=a, currency="EUR") == 0
    txn = LedgerTransaction.objects.get(kind="network_settlement")
    assert txn.amount == 980 and txn.operator_id == a.pk
    # Approving again changes nothing; a second proposal for the same cut-off has nothing
    # left to settle.
    api_as(ben).post(f"/api/v1/staff/approvals/{approval_id}/approve", {}, format="json")
    assert LedgerTransaction.objects.filter(kind="network_settlement").count() == 1
    again = api_as(ana).post("/api/v1/staff/approvals", proposal, format="json")
    assert_problem(again, 422, "network-settlement-invalid")
    assert ApprovalRequest.objects.filter(kind="net_settlement").count() == 1
    assert network_selectors.network_positions_net() == {"EUR": 0}
    statement = api_as(ben).get(
        "/api/v1/backoffice/network/statement", {"operator": a.slug, "from": _today()}
    )
    row = statement.json()["rows"][0]
    assert (row["settled"], row["position"]) == ("-9.80", "0.00")
    assert reconciliation.reconcile().ok


@pytest.mark.django_db(transaction=True)
def test_each_operator_and_player_reads_a_network_settlement_masked(world):
    network, a, b, alice, bob = world
    table = TableFactory(room=network_room_make(stake=500, fee_bps=500))
    for player in (alice, bob):
        games_services.seat_take(player=player, table=table, actor=SYSTEM)
    match = Match.objects.get(table=table)
    games_services.match_resign(seat=Seat.objects.get(match=match, player=bob), actor=SYSTEM)
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED  # settled on commit (eager Celery)

    for operator, mine, other in ((a, alice, bob), (b, bob, alice)):
        body = operator_api(operator).get(f"/api/v1/settlements/{match.pk}").json()
        statement = body["statement"]
        text = json.dumps(body)
        assert str(other.pk) not in text and other.external_ref not in text
        assert str(other.operator_id) not in text and other.display_name not in text
        own = next(p for p in statement["players"] if p.get("player_id") == str(mine.pk))
        assert own["external_ref"] == mine.external_ref
        theirs = next(p for p in statement["players"] if "player_id" not in p)
        assert theirs["screen_name"] == other.screen_name
        assert [row["fee_share"]["amount"] for row in statement["network"]["operators"]] == ["0.20"]
        listed = operator_api(operator).get("/api/v1/settlements").json()["results"]
        assert [row["match_id"] for row in listed] == [match.pk]

        ledger = operator_api(operator).get(f"/api/v1/players/{mine.pk}/transactions")
        assert ledger.status_code == 200, ledger.content
        text = json.dumps(ledger.json())
        assert str(other.pk) not in text and str(other.operator_id) not in text
        assert str(network.pk) not in text
        assert "network_position" not in text  # between the operators' books

        as_player = session_client(mine).get(f"/api/v1/settlements/{match.pk}").json()
        text = json.dumps(as_player)
        assert str(other.pk) not in text and other.external_ref not in text
        assert mine.external_ref not in text  # the operator's private reference

    stranger = member_make(name="Charlie")
    response = operator_api(stranger).get(f"/api/v1/settlements/{match.pk}")
    assert_problem(response, 404, "not-found")


def _today() -> str:
    """Today (UTC) as an ISO date: the statement's one-day period."""
    return timezone.now().astimezone(UTC).date().isoformat()


def test_a_network_statement_names_other_operators_only_when_the_network_reveals_them():

    statement = {
        "lines": [
            {"seat": 0, "player_id": "p0", "component": "pot", "amount": "5.00"},
            {"seat": 1, "player_id": "p1", "component": "pot", "amount": "-5.00"},
        ],
        "players": [
            {
                "seat": 0,
                "player_id": "p0",
                "screen_name": "ann",
                "external_ref": "a-0",
                "escrowed": {},
                "payout": {},
                "net": {},
                "credited": None,
                "fx": None,
                "operator_id": "op-a",
            },
            {
                "seat": 1,
                "player_id": "p1",
                "screen_name": "bo",
                "external_ref": "b-1",
                "escrowed": {},
                "payout": {},
                "net": {},
                "credited": None,
                "fx": None,
                "operator_id": "op-b",
            },
        ],
        "network": {
            "fee_share_bps": 2000,
            "network_fee": {},
            "operators": [
                {"operator_id": "op-a", "contribution": {}, "fee_share": {"amount": "0.20"}},
                {"operator_id": "op-b", "contribution": {}, "fee_share": {"amount": "0.20"}},
            ],
        },
    }
    masked = statement_for_operator(statement, operator_id="op-a")
    assert masked["players"][0]["external_ref"] == "a-0"
    assert "operator_id" not in masked["players"][0]
    assert masked["players"][1] == {
        "seat": 1,
        "screen_name": "bo",
        "escrowed": {},
        "payout": {},
        "net": {},
    }
    assert "player_id" not in masked["lines"][1] and masked["lines"][0]["player_id"] == "p0"
    assert len(masked["network"]["operators"]) == 1
    revealed = statement_for_operator(
        statement, operator_id="op-a", operator_names={"op-a": "Alpha", "op-b": "Bravo"}
    )
    assert revealed["players"][1]["operator"] == "Bravo"
    assert "op-b" not in json.dumps(revealed)


@pytest.mark.django_db(transaction=True)
def test_the_staff_statement_rows_add_up_and_the_network_row_nets_what_it_kept(world):
    """Real network games (seated, resigned, settled on commit) in two rooms, one with a
    rounding remainder in the fee split. Each row's net is what those games added to its
    position; the network's is what it kept (its fees, as a position: the members owe it
    that much more). Per day and currency the nets, and the positions, of all the rows sum
    to zero; the network's turnover and payouts are its members' sums."""
    network, a, b, alice, bob = world
    c = member_make(name="Charlie")
    carol = PlayerFactory(operator=c, screen_name="carol_net")
    fund(carol, 10_000)
    match_play = network_room_make(stake=500, fee_bps=500)  # fee 0.50: 0.20 each, keeps 0.10
    ftk = network_room_make(name="Network FTK", variant="ftk", target=None, stake=333, fee_bps=250)
    kept = 0
    for room, (winner, loser) in (
        (match_play, (alice, bob)),
        (ftk, (carol, alice)),  # fee 0.16 of 6.66: 0.06 each, keeps 0.04 (0.0128 of remainder)
        (ftk, (bob, carol)),
    ):
        table = TableFactory(room=room)
        for player in (winner, loser):
            games_services.seat_take(player=player, table=table, actor=SYSTEM)
        match = Match.objects.get(table=table)
        games_services.match_resign(seat=Seat.objects.get(match=match, player=loser), actor=SYSTEM)
        match.refresh_from_db()
        assert match.status == Match.Status.SETTLED
        kept += match.settlement.ledger_transaction.metadata["network"]["network_fee"]
    assert kept == 10 + 4 + 4

    staff = api_as(staff_user("fin", "finance"))
    body = staff.get("/api/v1/backoffice/network/statement", {"from": _today()}).json()
    rows = {row["operator"]: row for row in body["rows"]}
    assert set(rows) == {a.slug, b.slug, c.slug, network.slug}
    assert {(row["day"], row["currency"]) for row in body["rows"]} == {(_today(), "EUR")}

    def cents(value: str) -> int:
        return round(Decimal(value) * 100)

    members = [rows[op.slug] for op in (a, b, c)]
    for row in members:  # a member's net: its players' stakes, less payouts and fee share
        assert cents(row["net"]) == (
            cents(row["turnover"]) - cents(row["payouts"]) - cents(row["fees"])
        )
        assert row["net"] == row["position"]  # every stake and payout posted today
    own = rows[network.slug]
    assert (own["games"], own["fees"]) == (3, "0.18")
    assert own["net"] == "-0.18" and own["position"] == "-0.18"  # it kept 0.18
    assert (own["owed_to_network"], own["owed_by_network"]) == ("0.18", "0.00")
    assert cents(own["turnover"]) == sum(cents(row["turnover"]) for row in members)
    assert cents(own["turnover"]) == 1_000 + 2 * 666
    assert cents(own["payouts"]) == sum(cents(row["payouts"]) for row in members)
    assert cents(own["payouts"]) == 950 + 2 * (666 - 16)  # the pots less the whole fee
    assert sum(cents(row["fees"]) for row in body["rows"]) == 50 + 2 * 16
    assert sum(cents(row["net"]) for row in body["rows"]) == 0
    assert sum(cents(row["position"]) for row in body["rows"]) == 0
    assert network_selectors.network_position_balance(operator=network, currency="EUR") == -18

    csv_body = staff.get(
        "/api/v1/backoffice/network/statement", {"from": _today(), "format": "csv"}
    ).content.decode()
    network_line = next(
        line for line in csv.DictReader(io.StringIO(csv_body)) if line["operator"] == network.slug
    )
    assert (network_line["fees"], network_line["net"], network_line["position"]) == (
        "0.18",
        "-0.18",
        "-0.18",
    )
