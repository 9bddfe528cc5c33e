"""A seamless buy-in whose debit is not answered and whose rollback is not acknowledged
either, over HTTP against the reference operator wallet with faults injected: the 503 says
``rollback_pending`` (with the amount and both transaction ids), the player's wallet lists
the pending rollback while the operator's wallet still holds the money, and both clear once
the sweep's retry is acknowledged (docs/wallet.md "Seamless wallet"). PostgreSQL, real
commits: the services never call the operator inside a transaction."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from tests.factories import SYSTEM, OperatorFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit
from tests.helpers import operator_api
from tests.wallet.seamless import START, player_client, seamless_mode
from wallet import services
from wallet.models import WalletCall
from wallet.selectors import reconciliation
from wallet.services import seamless as seamless_module

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(seamless_module, "QUICK_BACKOFF_SECONDS", 0.001)


@pytest.fixture
def operator(db):
    return OperatorFactory(webhook_url="")


@pytest.fixture
def server(operator):
    with OperatorWalletServer(secret=operator.webhook_secret, timeout_sleep=0.45) as running:
        seamless_mode(operator, running)
        yield running


@pytest.fixture
def alice(operator, server) -> APIClient:
    return player_client(operator, server, "Alice")


@pytest.fixture
def table(operator):
    return TableFactory(room=RoomFactory(operator=operator, ftk=True, stake=1250))


def _sweep() -> None:
    """The beat sweep, once every pending call is due (as it will be after its backoff)."""
    WalletCall.objects.filter(status="pending").update(next_attempt_at=timezone.now())
    services.seamless_calls_sweep(actor=SYSTEM)


def test_a_debit_timing_out_and_a_failing_rollback_say_rollback_pending(alice, table, server):
    # The debit times out, then is applied but answered 500 (the operator charged the
    # player, the platform never learnt it); its rollback fails three times.
    server.fault("debit", "timeout", "lost_500", "lost_500")
    server.fault("rollback", "5xx", "5xx", "5xx")
    refused = sit(alice, table.pk)
    assert refused.status_code == 503, refused.content
    assert refused["Content-Type"].startswith("application/problem+json")
    problem = refused.json()
    debit = WalletCall.objects.get(kind="debit")
    rollback = WalletCall.objects.get(kind="rollback")
    assert problem["type"] == "/problems/wallet-unavailable"
    assert problem["rollback_pending"] is True
    assert problem["transaction_id"] == str(debit.pk)
    assert problem["rollback_transaction_id"] == str(rollback.pk)
    assert problem["amount"] == {"amount": "12.50", "currency": "EUR"}
    assert parse_datetime(problem["rollback_next_attempt_at"]) == rollback.next_attempt_at
    assert "nothing is charged" not in problem["detail"]
    assert "12.50 EUR" in problem["detail"]
    # It is true: the operator's wallet holds the money until the rollback lands.
    assert server.balance(alice.player.external_ref) == START - Decimal("12.50")
    assert rollback.status == "pending"

    wallet = alice.get("/api/v1/me/wallet").json()
    assert wallet["rollback_pending"] is True
    assert wallet["operator_balance"]["amount"] == "87.50"
    [pending] = wallet["pending_rollbacks"]
    assert pending["transaction_id"] == str(rollback.pk)
    assert pending["rolls_back"] == str(debit.pk)
    assert pending["amount"] == {"amount": "12.50", "currency": "EUR"}
    assert parse_datetime(pending["since"]) == rollback.created_at
    assert parse_datetime(pending["next_attempt_at"]) == rollback.next_attempt_at
    assert pending["attempts"] == 3
    # The operator sees the same in GET /players/{id}/wallet (the same shape).
    operator = operator_api(alice.player.operator)
    operator_view = operator.get(f"/api/v1/players/{alice.player.pk}/wallet").json()
    assert operator_view["pending_rollbacks"] == wallet["pending_rollbacks"]

    server.fault("rollback", "5xx")
    _sweep()  # not acknowledged yet: still shown
    assert alice.get("/api/v1/me/wallet").json()["rollback_pending"] is True
    _sweep()  # acknowledged
    wallet = alice.get("/api/v1/me/wallet").json()
    assert wallet["rollback_pending"] is False and wallet["pending_rollbacks"] == []
    assert wallet["operator_balance"]["amount"] == "100.00"
    assert server.balance(alice.player.external_ref) == START
    assert WalletCall.objects.get(kind="debit").status == "rolled_back"
    assert reconciliation.reconcile().ok


def test_a_rollback_acknowledged_at_once_is_not_pending(alice, table, server):
    server.fault("debit", "timeout", "lost_500", "lost_500")
    server.fault("rollback", "5xx")  # the second try is acknowledged
    refused = sit(alice, table.pk)
    assert refused.status_code == 503, refused.content
    problem = refused.json()
    assert problem["rollback_pending"] is False
    assert problem["rollback_next_attempt_at"] is None
    assert "nothing is charged" in problem["detail"]
    assert server.balance(alice.player.external_ref) == START
    wallet = alice.get("/api/v1/me/wallet").json()
    assert wallet["rollback_pending"] is False and wallet["pending_rollbacks"] == []


@pytest.mark.parametrize(("faults", "pending"), [(6, True), (3, False)])
def test_a_debit_rolled_back_before_its_seat_says_where_the_rollback_stands(
    alice, table, server, monkeypatch, faults, pending
):
    """The debit is applied, then rolled back under the seat (as the sweep does to a debit
    it thinks stranded) with its rollback failing: the seat refuses it (503), tries the
    rollback once more, and answers as it stands after that."""
    real_debit = services.seamless_debit

    def debit_then_rolled_back(**kwargs):
        call = real_debit(**kwargs)
        server.fault("rollback", *["5xx"] * faults)
        services.seamless_rollback(debit=call, actor=SYSTEM)
        # Its backoff over by the time the seat is taken: the seat's own try is sent.
        WalletCall.objects.filter(kind="rollback").update(next_attempt_at=timezone.now())
        return call

    monkeypatch.setattr(services, "seamless_debit", debit_then_rolled_back)
    refused = sit(alice, table.pk)
    assert refused.status_code == 503, refused.content
    problem = refused.json()
    rollback = WalletCall.objects.get(kind="rollback")
    assert problem["rollback_pending"] is pending
    assert problem["rollback_transaction_id"] == str(rollback.pk)
    assert "before the seat took it" in problem["detail"]
    assert rollback.status == ("pending" if pending else "applied")
    wallet = alice.get("/api/v1/me/wallet").json()
    assert wallet["rollback_pending"] is pending
    assert len(wallet["pending_rollbacks"]) == (1 if pending else 0)
    expected = START - Decimal("12.50") if pending else START
    assert server.balance(alice.player.external_ref) == expected
    _sweep()
    assert alice.get("/api/v1/me/wallet").json()["pending_rollbacks"] == []
    assert server.balance(alice.player.external_ref) == START
