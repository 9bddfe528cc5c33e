"""The wallet API: operator, player-token and staff endpoints; the read-only admin."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import PlayerFactory, admin_login
from tests.helpers import session_client
from tests.wallet.factories import CashierCapsFactory, fund
from tests.wallet.tables import buy_in, settle
from wallet.models import LedgerTransaction
from wallet.selectors import balances
from wallet.services import EscrowPayout

pytestmark = pytest.mark.django_db


def wallet_url(player) -> str:
    return f"/api/v1/players/{player.pk}/wallet"


def transactions_url(player) -> str:
    return f"/api/v1/players/{player.pk}/transactions"


def play_a_game(player, opponent, game="match:1"):
    for who in (player, opponent):
        buy_in(who, 1000, game=game)
    return settle(
        [EscrowPayout(player, 1000, "stake"), EscrowPayout(player, 900, "pot")],
        100,
        game=game,
        metadata={"internal": "statement"},
    )


# --- Wallet ---------------------------------------------------------------------------------
def test_the_wallet_shows_the_balance_in_wallet_and_display_currency(
    operator_client, operator, eur_usd
):
    player = PlayerFactory(operator=operator, display_currency="USD")
    fund(player, 1250)
    body = operator_client.get(wallet_url(player)).json()
    assert body["player_id"] == str(player.pk)
    assert body["balance"]["amount"] == "12.50" and body["balance"]["currency"] == "EUR"
    assert body["balance"]["display"]["amount"] == "13.40"
    assert body["balance"]["display"]["currency"] == "USD"
    assert body["balance"]["display"]["rate"] == "1.072"
    assert body["practice_balance"] == {"amount": "0", "currency": "XGC"}
    assert body["kyc_status"] == "verified" and body["self_excluded_until"] is None


def test_an_empty_wallet_is_zero_and_creates_nothing(operator_client, player):
    body = operator_client.get(wallet_url(player)).json()
    assert body["balance"]["amount"] == "0.00"
    assert not player.wallet_accounts.exists()


def test_another_operators_player_is_404_everywhere(operator_client):
    stranger = PlayerFactory()
    txn = fund(stranger, 100)
    for url in (
        wallet_url(stranger),
        transactions_url(stranger),
        f"{transactions_url(stranger)}/{txn.pk}",
        f"/api/v1/players/{stranger.pk}/limits",
        f"/api/v1/players/{stranger.pk}/limits/history",
        f"/api/v1/players/{stranger.pk}/self-exclusion",
    ):
        response = operator_client.get(url)
        assert response.status_code == 404, url
        assert response.json()["type"] == "/problems/not-found"


# --- Transactions ------------------------------------------------------------------------
def test_transactions_are_cursor_paginated_newest_first(operator_client, player):
    for amount in range(1, 6):
        fund(player, amount)
    first = operator_client.get(transactions_url(player) + "?page_size=2").json()
    assert [t["amount"]["amount"] for t in first["results"]] == ["0.05", "0.04"]
    assert "cursor=" in first["next"]
    second = operator_client.get(first["next"]).json()
    assert [t["amount"]["amount"] for t in second["results"]] == ["0.03", "0.02"]


def test_transactions_filters(operator_client, player, opponent):
    fund(player, 5000)
    fund(opponent, 5000)
    play_a_game(player, opponent, game="match:7")
    url = transactions_url(player)
    kinds = [t["kind"] for t in operator_client.get(url).json()["results"]]
    assert kinds == ["settlement", "buy_in", "deposit"]
    assert [t["kind"] for t in operator_client.get(url + "?kind=deposit").json()["results"]] == [
        "deposit"
    ]
    by_game = operator_client.get(url + "?game_ref=match:7").json()["results"]
    assert [t["kind"] for t in by_game] == ["settlement", "buy_in"]
    later = (timezone.now() + timedelta(minutes=1)).isoformat().replace("+00:00", "Z")
    assert operator_client.get(url, {"created_after": later}).json()["results"] == []
    assert len(operator_client.get(url, {"created_before": later}).json()["results"]) == 3
    assert len(operator_client.get(url, {"currency": "eur"}).json()["results"]) == 3
    bad = operator_client.get(url + "?kind=lottery")
    assert bad.status_code == 400 and bad.json()["type"] == "/problems/validation-error"


def test_a_players_view_of_a_settlement_shows_only_their_own_lines(
    operator_client, player, opponent
):
    fund(player, 5000)
    fund(opponent, 5000)
    settlement = play_a_game(player, opponent)
    mine = operator_client.get(f"{transactions_url(player)}/{settlement.pk}").json()
    assert mine["wallet_change"] == {"amount": "19.00", "currency": "EUR"}
    assert mine["balance_after"] == {"amount": "59.00", "currency": "EUR"}
    assert sorted((e["account"], e["component"], e["amount"]) for e in mine["entries"]) == [
        ("escrow", "pot", "-9.00"),
        ("escrow", "stake", "-10.00"),
        ("player", "payout", "19.00"),
    ]
    assert all(e["balance_after"] is None for e in mine["entries"] if e["account"] != "player")
    # The loser has no line in this settlement (their stake left in their buy-in).
    theirs = operator_client.get(f"{transactions_url(opponent)}/{settlement.pk}")
    assert theirs.status_code == 404
    assert mine["metadata"] == {"internal": "statement", "fee": 100}


def test_a_transaction_of_another_player_is_404(operator_client, player, opponent):
    txn = fund(opponent, 100)
    assert operator_client.get(f"{transactions_url(player)}/{txn.pk}").status_code == 404
    assert operator_client.get(f"{transactions_url(player)}/nope").status_code == 404


def test_converted_transactions_show_their_rate(operator_client, usd_player, eur_usd):
    fund(usd_player, 5000)
    txn = buy_in(usd_player, 1000, game="m:1")
    body = operator_client.get(f"{transactions_url(usd_player)}/{txn.pk}").json()
    (rate,) = body["fx"]
    assert rate["rate"] == "1.072" and rate["rounding"] == "ROUND_CEILING"
    assert rate["base_amount"] == {"amount": "10.00", "currency": "EUR"}
    assert rate["quote_amount"] == {"amount": "10.72", "currency": "USD"}
    assert body["amount"] == {"amount": "10.00", "currency": "EUR"}
    assert body["wallet_change"] == {"amount": "-10.72", "currency": "USD"}


# --- Player token ----------------------------------------------------------------------------
def test_a_player_reads_their_own_wallet_and_transactions(player, opponent):
    fund(player, 5000)
    fund(opponent, 5000)
    settlement = play_a_game(player, opponent)
    client = session_client(player)
    wallet = client.get("/api/v1/me/wallet").json()
    assert wallet["balance"]["amount"] == "59.00"
    listing = client.get("/api/v1/me/wallet/transactions").json()["results"]
    assert [t["kind"] for t in listing] == ["settlement", "buy_in", "deposit"]
    assert all("metadata" not in t for t in listing)
    detail = client.get(f"/api/v1/me/wallet/transactions/{settlement.pk}").json()
    assert {e["component"] for e in detail["entries"]} == {"stake", "pot", "payout"}
    their_deposit = LedgerTransaction.objects.get(kind="deposit", player=opponent)
    assert client.get(f"/api/v1/me/wallet/transactions/{their_deposit.pk}").status_code == 404


def test_a_player_token_cannot_use_operator_or_staff_endpoints(player_client, player, idem):
    assert player_client.get(wallet_url(player)).status_code == 403
    response = player_client.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": "1.00", "currency": "EUR"},
        format="json",
        **idem(),
    )
    assert response.status_code == 403
    assert player_client.get("/api/v1/staff/ledger/reconciliation").status_code == 403


def test_an_operator_cannot_use_player_endpoints(operator_client):
    assert operator_client.get("/api/v1/me/wallet").status_code == 403


# --- Caps ----------------------------------------------------------------------------------
def test_staff_set_caps_and_the_operator_reads_them(
    staff_client, approver_client, operator_client, operator
):
    url = f"/api/v1/staff/operators/{operator.pk}/cashier-caps/eur"
    assert staff_client.get(url).status_code == 404
    response = staff_client.put(
        url,
        {"min_deposit": "10.00", "max_deposit": "500.00", "daily_deposit_cap": "1000"},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["min_deposit"] == "10.00" and body["daily_deposit_cap"] == "1000.00"
    assert body["weekly_deposit_cap"] is None
    assert staff_client.get(url).json() == body
    listing = operator_client.get("/api/v1/wallet/cashier-caps").json()
    assert [c["currency"] for c in listing] == ["EUR"]
    # Loosening (the minimum and the daily cap removed) is a four-eyes proposal.
    proposed = staff_client.put(
        url, {"max_deposit": "100.00", "reason": "new terms"}, format="json"
    )
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["status"] == "pending" and staff_client.get(url).json() == body
    approved = approver_client.post(
        f"/api/v1/staff/approvals/{proposed.json()['id']}/approve", {}, format="json"
    )
    assert approved.json()["status"] == "executed", approved.content
    replaced = staff_client.get(url).json()
    assert replaced["min_deposit"] is None and replaced["max_deposit"] == "100.00"
    # Tightening applies at once.
    tightened = staff_client.put(url, {"max_deposit": "50.00"}, format="json")
    assert tightened.status_code == 200 and tightened.json()["max_deposit"] == "50.00"


@pytest.mark.parametrize(
    ("body", "slug"),
    [
        ({"min_deposit": "10.00", "max_deposit": "5.00"}, "cashier-caps-invalid"),
        ({"min_withdrawal": "10.00", "max_withdrawal": "5.00"}, "cashier-caps-invalid"),
        ({"max_deposit": "-1"}, "amount-not-positive"),
        ({"max_deposit": "1.001"}, "amount-too-precise"),
    ],
)
def test_staff_caps_bad_input(staff_client, operator, body, slug):
    response = staff_client.put(
        f"/api/v1/staff/operators/{operator.pk}/cashier-caps/EUR", body, format="json"
    )
    assert response.status_code == 422, response.content
    assert response.json()["type"] == f"/problems/{slug}"


def test_staff_caps_unknown_operator_or_currency(staff_client, operator):
    assert staff_client.get("/api/v1/staff/operators/nope/cashier-caps/EUR").status_code == 404
    response = staff_client.put(
        f"/api/v1/staff/operators/{operator.pk}/cashier-caps/XGC", {}, format="json"
    )
    assert response.json()["type"] == "/problems/practice-chips-not-convertible"
    response = staff_client.put(
        f"/api/v1/staff/operators/{operator.pk}/cashier-caps/ZZZ", {}, format="json"
    )
    assert response.json()["type"] == "/problems/unknown-currency"


def test_caps_are_enforced_over_the_api(operator_client, operator, player, idem):
    CashierCapsFactory(operator=operator, max_deposit=1000)
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": "10.01", "currency": "EUR"},
        format="json",
        **idem(),
    )
    body = response.json()
    assert body["type"] == "/problems/cap-exceeded" and body["cap"] == "max_deposit"
    assert body["remaining"] == {"amount": "10.00", "currency": "EUR"}


# --- Staff: reversal, reconciliation, transaction ---------------------------------------------
def test_staff_reverse_a_transaction(staff_client, approver_client, player):
    """A reversal is proposed by one staff member and posted when another approves."""
    txn = fund(player, 1000)
    url = f"/api/v1/staff/ledger/transactions/{txn.pk}/reversal"
    body = {"reference": "chargeback-1", "reason": "card chargeback"}
    response = staff_client.post(url, body, format="json")
    assert response.status_code == 201, response.content
    proposal = response.json()
    assert proposal["kind"] == "reversal" and proposal["status"] == "pending"
    assert balances.wallet_balance(player=player) == 1000
    approve = f"/api/v1/staff/approvals/{proposal['id']}/approve"
    executed = approver_client.post(approve, {}, format="json").json()
    assert executed["status"] == "executed", executed
    reversal_id = int(executed["result_ref"].split(":")[1])
    reversal = staff_client.get(f"/api/v1/staff/ledger/transactions/{reversal_id}").json()
    assert reversal["kind"] == "reversal" and reversal["reverses"] == txn.pk
    assert reversal["reference"] == "reversal:chargeback-1"
    assert reversal["metadata"]["reason"] == "card chargeback"
    assert reversal["actor_type"] == "staff"
    assert approver_client.post(approve, {}, format="json").json() == executed  # idempotent
    again = staff_client.post(url, {"reference": "other", "reason": "x"}, format="json").json()
    refused = approver_client.post(f"/api/v1/staff/approvals/{again['id']}/approve", {})
    assert refused.status_code == 409 and refused.json()["type"] == "/problems/already-reversed"
    detail = staff_client.get(f"/api/v1/staff/approvals/{again['id']}").json()
    assert detail["status"] == "failed"
    original = staff_client.get(f"/api/v1/staff/ledger/transactions/{txn.pk}").json()
    assert original["reversed_by"] == reversal_id
    assert balances.wallet_balance(player=player) == 0


def test_staff_reconciliation_endpoint(staff_client, player):
    fund(player, 100)
    body = staff_client.get("/api/v1/staff/ledger/reconciliation").json()
    assert body["ok"] is True and body["transactions_checked"] == 1
    assert body["lines"][-1] == "OK: the ledger reconciles"


def test_operators_cannot_use_staff_endpoints(operator_client, operator, player):
    txn = fund(player, 100)
    assert operator_client.get("/api/v1/staff/ledger/reconciliation").status_code == 403
    assert (
        operator_client.post(
            f"/api/v1/staff/ledger/transactions/{txn.pk}/reversal",
            {"reference": "r", "reason": "x"},
            format="json",
        ).status_code
        == 403
    )


# --- Admin ----------------------------------------------------------------------------------
def test_the_ledger_admin_is_read_only(client, django_user_model, player):
    fund(player, 100)
    admin = django_user_model.objects.create_superuser("root", password="pw-root-1")
    admin_login(client, admin)
    txn = LedgerTransaction.objects.get()
    for name in ("account", "ledgertransaction", "ledgerentry", "exchangerate", "cashiercaps"):
        assert client.get(f"/admin/wallet/{name}/").status_code == 200
        assert client.get(f"/admin/wallet/{name}/add/").status_code == 403
    assert client.get(f"/admin/wallet/ledgertransaction/{txn.pk}/change/").status_code == 200
    response = client.post(f"/admin/wallet/ledgertransaction/{txn.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert LedgerTransaction.objects.count() == 1
