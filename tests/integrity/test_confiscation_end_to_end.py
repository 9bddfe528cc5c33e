"""The acceptance test of a confiscation case, over HTTP (docs/integrity.md): at
network tables of two operators a colluder (operator A) takes money from a victim of
operator B twice and from a victim of A once. Detection's alerts are grouped into a case by
a risk user; the case shows the evidence (the money flow game by game, the hands with
their replays); one risk user proposes the confiscation, which risk may not approve; a
finance user (with a second factor) approves it. Afterwards: the colluder's winnings are
with the victims to the minor unit, in ONE ledger transaction; every operator's statement (the
network statement, the player's transactions) and network position is right; the
webhooks name another operator's players masked; ``reconcile`` is clean."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from gin_platform.models import OperatorEvent
from tests.factories import staff_user
from tests.helpers import api_as, assert_problem, operator_api
from tests.integrity.world import STAKE, START, alert_make, play_and_lose, player_make, world_make
from wallet.models import LedgerTransaction
from wallet.selectors import balances, reconciliation
from wallet.selectors import network as network_selectors

pytestmark = pytest.mark.django_db(transaction=True)

WON = 2 * STAKE - 50  # a resigned 5.00 match pays the winner 9.50 (5% fee)


def _rows(client, currency="EUR"):
    today = timezone.now().date().isoformat()
    body = client.get("/api/v1/network/statement", {"from": today, "currency": currency})
    assert body.status_code == 200, body.content
    return body.json()["rows"]


def test_a_confiscation_case_at_a_network_table_end_to_end_over_http():
    world = world_make()
    colluder = player_make(world.a, "shark")
    victim_b = player_make(world.b, "minnow")
    victim_a = player_make(world.a, "guppy")
    matches = [
        play_and_lose(world, winner=colluder, loser=victim_b),
        play_and_lose(world, winner=colluder, loser=victim_b),
        play_and_lose(world, winner=colluder, loser=victim_a),
    ]
    assert balances.wallet_balance(player=colluder) == START + 3 * (WON - STAKE)
    assert balances.wallet_balance(player=victim_b) == START - 2 * STAKE
    positions_before = {
        op.pk: network_selectors.network_position_balance(operator=op, currency="EUR")
        for op in (world.a, world.b, world.network)
    }

    # Detection found the pairs; a risk user groups the alerts into one case by hand.
    first = alert_make(colluder, victim_b, matches=[m.pk for m in matches[:2]])
    second = alert_make(colluder, victim_a, signal="chip_dumping", matches=[matches[2].pk])
    ana, ben = staff_user("ana", "risk"), staff_user("ben", "finance")
    risk_ana, finance_ben = api_as(ana), api_as(ben)
    listed = risk_ana.get("/api/v1/staff/integrity/alerts", {"status": "open"}).json()["results"]
    assert {row["id"] for row in listed} == {first.pk, second.pk}
    opened = risk_ana.post(
        "/api/v1/staff/integrity/cases",
        {"title": "shark vs minnow and guppy", "alert_ids": [first.pk, second.pk]},
        format="json",
    )
    assert opened.status_code == 201, opened.content
    case = opened.json()
    assert case["status"] == "open" and len(case["alerts"]) == 2

    # The evidence: the money flow with each victim, game by game, and replayable hands.
    pair = next(
        p
        for p in case["evidence"]["pairs"]
        if {x["player_id"] for x in p["players"]} == {str(colluder.pk), str(victim_b.pk)}
    )
    assert len(pair["money_flow"]["games"]) == 2
    totals = pair["money_flow"]["totals"]["EUR"]
    assert totals[str(colluder.pk)]["amount"] == "9.00"  # 2 x (9.50 - 5.00)
    assert totals[str(victim_b.pk)]["amount"] == "-10.00"
    hand = pair["matches"][0]["hands"][0]
    replay = risk_ana.get(hand["replay"])
    assert replay.status_code == 200, replay.content
    assert replay.json()["verified"] is True

    # One risk user proposes what each victim gets back; they cannot approve it themselves.
    proposed = risk_ana.post(
        f"/api/v1/staff/integrity/cases/{case['id']}/confiscations",
        {
            "colluder_id": str(colluder.pk),
            "currency": "EUR",
            "refunds": [
                {"player_id": str(victim_b.pk), "amount": "10.00"},
                {"player_id": str(victim_a.pk), "amount": "5.00"},
            ],
            "reason": "soft play and chip dumping, hands reviewed",
        },
        format="json",
    )
    assert proposed.status_code == 201, proposed.content
    confiscation = proposed.json()
    assert confiscation["status"] == "pending" and confiscation["amount"]["amount"] == "15.00"
    url = f"/api/v1/staff/integrity/confiscations/{confiscation['id']}"
    # Risk proposes; it may not approve (a role with a second factor does, never the proposer).
    assert_problem(risk_ana.post(f"{url}/approve", {}, format="json"), 403, "permission-denied")
    assert LedgerTransaction.objects.filter(kind="confiscation").count() == 0

    approved = finance_ben.post(f"{url}/approve", {"note": "agreed"}, format="json")
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "executed"
    again = finance_ben.post(f"{url}/approve", {}, format="json")
    assert again.status_code == 200 and again.json()["result_ref"] == approved.json()["result_ref"]

    # The money, to the minor unit, in one balanced transaction.
    posted = LedgerTransaction.objects.get(kind="confiscation")
    assert posted.reference == f"confiscation:{case['id']}" and posted.amount == 1_500
    assert approved.json()["result_ref"] == f"ledger_transaction:{posted.pk}"
    assert sum(e.amount for e in posted.entries.all()) == 0
    assert balances.wallet_balance(player=colluder) == START + 3 * (WON - STAKE) - 1_500
    assert balances.wallet_balance(player=victim_b) == START
    assert balances.wallet_balance(player=victim_a) == START

    # Every operator's network position: A's colluder gave 10.00 to B's victim across the
    # books; the guppy's 5.00 stayed within A's books.
    after = {
        op.pk: network_selectors.network_position_balance(operator=op, currency="EUR")
        for op in (world.a, world.b, world.network)
    }
    assert after[world.a.pk] == positions_before[world.a.pk] + 1_000
    assert after[world.b.pk] == positions_before[world.b.pk] - 1_000
    assert after[world.network.pk] == positions_before[world.network.pk]
    assert network_selectors.network_positions_net() == {"EUR": 0}

    # The statements: each operator's network statement shows the confiscation, its
    # position agrees with the ledger; each player's transactions show their line.
    a_api, b_api = operator_api(world.a), operator_api(world.b)
    a_row, b_row = _rows(a_api)[-1], _rows(b_api)[-1]
    assert (a_row["confiscated"], b_row["confiscated"]) == ("10.00", "-10.00")
    assert a_row["position"] == f"{after[world.a.pk] / 100:.2f}"
    assert b_row["position"] == f"{after[world.b.pk] / 100:.2f}"
    # The staff statement: the network's own row moved by nothing, the positions net out.
    staff_rows = finance_ben.get(
        "/api/v1/backoffice/network/statement",
        {"from": timezone.now().date().isoformat(), "currency": "EUR"},
    ).json()["rows"]
    confiscated = {row["operator"]: row["confiscated"] for row in staff_rows}
    assert confiscated == {
        world.a.slug: "10.00",
        world.b.slug: "-10.00",
        world.network.slug: "0.00",
    }
    assert sum(Decimal(row["position"]) for row in staff_rows) == 0
    victim_txns = b_api.get(
        f"/api/v1/players/{victim_b.pk}/transactions", {"kind": "confiscation"}
    ).json()["results"]
    assert [t["wallet_change"]["amount"] for t in victim_txns] == ["10.00"]
    assert str(colluder.pk) not in json.dumps(victim_txns)  # A's player never shown to B
    colluder_txns = a_api.get(
        f"/api/v1/players/{colluder.pk}/transactions", {"kind": "confiscation"}
    ).json()["results"]
    assert [t["wallet_change"]["amount"] for t in colluder_txns] == ["-15.00"]
    assert str(victim_b.pk) not in json.dumps(colluder_txns)

    # The webhooks: each operator its own copy, the other operator's players masked.
    executed = {
        event.operator_id: event.data
        for event in OperatorEvent.objects.filter(type="integrity.case_action")
        if event.data["action"] == "confiscation_executed"
    }
    assert set(executed) == {world.a.pk, world.b.pk}
    for_b = executed[world.b.pk]
    assert for_b["colluder"]["own"] is False and for_b["colluder"]["screen_name"] == "shark"
    assert str(colluder.pk) not in json.dumps(for_b) and str(victim_a.pk) not in json.dumps(for_b)
    mine = [line for line in for_b["refunds"] if line["own"]]
    assert mine == [
        {
            "player_id": str(victim_b.pk),
            "external_ref": victim_b.external_ref,
            "screen_name": "minnow",
            "own": True,
            "amount": {"amount": "10.00", "currency": "EUR"},
        }
    ]
    assert executed[world.a.pk]["colluder"]["player_id"] == str(colluder.pk)

    # The case closes; the ledger reconciles.
    closed = risk_ana.post(
        f"/api/v1/staff/integrity/cases/{case['id']}/close",
        {"resolution": "confiscated and refunded"},
        format="json",
    )
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert OperatorEvent.objects.filter(type="integrity.case_closed").count() == 2
    assert reconciliation.reconcile().ok
    call_command("reconcile")  # exits non-zero on any drift
