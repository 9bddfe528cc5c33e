"""The acceptance test of the history (docs/player-protection.md "History"): after a year of
deposits, withdrawals, games won and lost, a game left before its start, a reversed
deposit and a staff adjustment, everything the player reads over HTTP equals the ledger:
the sum of the wallet's entries by kind over the window is each figure, the periods add up
to the totals exactly, the balance before and after the window is the ledger's, every
movement is listed once, and each match's net is what it moved on the wallet. The operator
reads the same for its player; the CSV downloads hold the same rows. On PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from games.models import Match
from gin_platform.money import to_minor
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory
from tests.helpers import freeze_now, operator_api, session_client
from tests.protection.history_world import (
    all_pages,
    cashier,
    csv_rows,
    game_net,
    ledger_entries,
    play_and_resign,
    sit_and_leave,
    sums_by_kind,
    wallet_of,
)
from wallet import services as wallet_services
from wallet.models import LedgerTransaction
from wallet.selectors.history import CATEGORIES

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ME = "/api/v1/me/history"
Kind = LedgerTransaction.Kind


def _minor(money: dict, currency: str = "EUR") -> int:
    assert money["currency"] == currency
    return to_minor(money["amount"], currency)


@pytest.fixture
def year(monkeypatch):
    """Ann's year: an old deposit (400 days ago, before the window), deposits and a
    withdrawal, a reversed deposit, a staff credit, two games against Bob (one won, one
    lost) and one left before its start."""
    operator = OperatorFactory(base_currency="EUR")
    api = operator_api(operator)
    ann = PlayerFactory(operator=operator, display_name="Ann", screen_name="ann")
    bob = PlayerFactory(operator=operator, display_name="Bob", screen_name="bob")
    clock = freeze_now(monkeypatch, timezone.now() - timedelta(days=400))
    wallet_services.deposit(
        player=ann, amount=7_000, currency="EUR", reference="old-deposit", actor=SYSTEM
    )
    clock.set(datetime.now(UTC))
    monkeypatch.undo()
    cashier(api, ann, "deposits", "100.00")
    cashier(api, bob, "deposits", "100.00")
    mistaken = cashier(api, ann, "deposits", "12.34")
    wallet_services.transaction_reverse(
        ledger_transaction=LedgerTransaction.objects.get(pk=mistaken["id"]),
        reference="reversal:mistake",
        reason="paid twice",
        actor=SYSTEM,
    )
    wallet_services.wallet_adjust(
        player=ann,
        direction="credit",
        amount=250,
        currency="EUR",
        reference="goodwill",
        reason="goodwill",
        actor=SYSTEM,
    )
    room = RoomFactory(operator=operator, ftk=True, stake=500, fee_bps=500)
    ann_client, bob_client = session_client(ann), session_client(bob)
    won = play_and_resign(room, winner=ann_client, loser=bob_client)
    lost = play_and_resign(room, winner=bob_client, loser=ann_client)
    left = sit_and_leave(room, ann_client)
    cashier(api, ann, "withdrawals", "20.00")
    return {"api": api, "ann": ann, "client": ann_client, "won": won, "lost": lost, "left": left}


def test_the_history_equals_the_ledger(year):
    ann, client, api = year["ann"], year["client"], year["api"]
    summary = client.get(f"{ME}/summary").json()
    start = datetime.fromisoformat(summary["window_start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(summary["window_end"].replace("Z", "+00:00"))
    assert end - start == timedelta(days=365)
    entries = ledger_entries(ann, start=start, end=end)
    by_kind = sums_by_kind(entries)
    assert set(by_kind) == {
        Kind.DEPOSIT,
        Kind.WITHDRAWAL,
        Kind.BUY_IN,
        Kind.REFUND,
        Kind.SETTLEMENT,
        Kind.ADJUSTMENT,
    }

    # Each figure is the sum of the wallet's entries of its kinds over the window.
    def of(category: str) -> int:
        return sum(amount for kind, amount in by_kind.items() if kind in CATEGORIES[category])

    totals = summary["totals"]
    assert {kind: _minor(money) for kind, money in totals["by_kind"].items()} == by_kind
    assert _minor(totals["deposits"]) == of("deposit") == 10_000 + 1_234 - 1_234
    assert _minor(totals["withdrawals"]) == -of("withdrawal") == 2_000
    assert _minor(totals["net_deposits"]) == of("deposit") + of("withdrawal") == 8_000
    # Won 950 (Bob's 500 less the 5% fee on the pot of 1000: a 450 gain), lost 500; the
    # game left before its start moved nothing in the end.
    assert _minor(totals["play_net"]) == of("play") == 450 - 500
    assert _minor(totals["other"]) == of("other") == 250
    assert _minor(totals["change"]) == sum(entry.amount for entry in entries)
    assert _minor(summary["opening_balance"]) == 7_000  # the old deposit, before the window
    assert _minor(summary["closing_balance"]) == wallet_of(ann).balance
    assert summary["currency"] == "EUR" and summary["period"] == "day"

    # The periods add up to the totals exactly, per day and per month.
    for period in ("day", "month"):
        shown = client.get(f"{ME}/summary?period={period}").json()
        for figure in ("deposits", "withdrawals", "net_deposits", "play_net", "other", "change"):
            parts = sum(_minor(row[figure]) for row in shown["periods"])
            assert parts == _minor(shown["totals"][figure]), (period, figure)
    today = client.get(f"{ME}/summary?period=day").json()["periods"]
    assert today[0]["period"] == end.date().isoformat()

    # Every movement in the window, once, with its transaction, sign and kind counted.
    listed = all_pages(client, f"{ME}/transactions?page_size=3")
    assert sorted((row["transaction_id"], _minor(row["amount"])) for row in listed) == sorted(
        (entry.transaction_id, entry.amount) for entry in entries
    )
    old = LedgerTransaction.objects.get(reference="old-deposit")
    assert old.pk not in {row["transaction_id"] for row in listed}
    reversal = next(row for row in listed if row["kind"] == Kind.REVERSAL)
    assert (reversal["counts_as"], reversal["category"]) == ("deposit", "deposit")
    assert _minor(reversal["amount"]) == -1_234
    newest = listed[0]
    assert (newest["kind"], _minor(newest["balance_after"])) == (
        "withdrawal",
        wallet_of(ann).balance,
    )
    deposits = all_pages(client, f"{ME}/transactions?category=deposit")
    assert {row["counts_as"] for row in deposits} == {"deposit"} and len(deposits) == 3
    plays = all_pages(client, f"{ME}/transactions?category=play")
    assert {row["match_id"] for row in plays} == {year["won"].pk, year["lost"].pk, year["left"]}

    # Each match's net is what it moved on the wallet; together they are the play figure.
    matches = all_pages(client, f"{ME}/matches?page_size=1")
    assert [row["match_id"] for row in matches] == [year["left"], year["lost"].pk, year["won"].pk]
    for row in matches:
        assert _minor(row["net"]) == game_net(ann, Match.objects.get(pk=row["match_id"]))
    assert sum(_minor(row["net"]) for row in matches) == of("play")
    outcomes = {row["match_id"]: (row["outcome"], _minor(row["net"])) for row in matches}
    assert outcomes == {
        year["won"].pk: ("won", 450),
        year["lost"].pk: ("lost", -500),
        year["left"]: ("left", 0),
    }

    # The operator reads exactly the same for its player.
    mine = f"/api/v1/players/{ann.pk}/history"
    assert api.get(f"{mine}/summary").json()["totals"] == totals
    assert all_pages(api, f"{mine}/transactions?page_size=4") == listed
    assert all_pages(api, f"{mine}/matches") == matches

    # The CSV downloads: the whole window, the same rows, newest first.
    movements_csv = csv_rows(client.get(f"{ME}/transactions?format=csv"))
    assert [int(row["transaction_id"]) for row in movements_csv] == [
        row["transaction_id"] for row in listed
    ]
    assert [row["amount"] for row in movements_csv] == [row["amount"]["amount"] for row in listed]
    matches_csv = csv_rows(client.get(f"{ME}/matches", HTTP_ACCEPT="text/csv"))
    assert [(int(row["match_id"]), row["outcome"], row["net"]) for row in matches_csv] == [
        (row["match_id"], row["outcome"], row["net"]["amount"]) for row in matches
    ]
    days_csv = csv_rows(client.get(f"{ME}/summary?format=csv&period=day"))
    days = client.get(f"{ME}/summary?period=day").json()["periods"]
    assert [(row["period"], row["play_net"], row["change"]) for row in days_csv] == [
        (row["period"], row["play_net"]["amount"], row["change"]["amount"]) for row in days
    ]
    operator_csv = csv_rows(api.get(f"{mine}/transactions?format=csv"))
    assert operator_csv == movements_csv
