"""Seamless wallet services against the reference operator wallet (a real HTTP server), with
every fault on every call kind (docs/wallet.md "Seamless wallet"). PostgreSQL, real commits:
the services refuse to call the operator inside a transaction."""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.models import AuditEvent, WebhookDelivery
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.wallet.seamless import TIMEOUT_MS, seamless_mode
from wallet import services
from wallet.models import Account, LedgerTransaction, WalletCall
from wallet.problems import (
    InsufficientFundsProblem,
    SeamlessWalletModeProblem,
    WalletModeSwitchRefusedProblem,
    WalletUnavailableProblem,
)
from wallet.selectors import balances, reconciliation
from wallet.selectors.seamless import wallet_mode_blockers
from wallet.services import seamless as seamless_module

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(operator):
    with OperatorWalletServer(secret=operator.webhook_secret, timeout_sleep=0.45) as running:
        yield running


@pytest.fixture
def operator(db):
    return OperatorFactory(webhook_url="")


@pytest.fixture
def seamless(operator, server):
    seamless_mode(operator, server)
    return operator


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch):
    monkeypatch.setattr(seamless_module, "QUICK_BACKOFF_SECONDS", 0.001)


@pytest.fixture
def player(seamless, server):
    player = PlayerFactory(operator=seamless)
    server.set_balance(player.external_ref, "100.00")
    return player


def _due_now():
    WalletCall.objects.filter(status="pending").update(next_attempt_at=timezone.now())


def _sweep_until_done(rounds: int = 10) -> None:
    for _ in range(rounds):
        _due_now()
        services.seamless_calls_sweep(actor=SYSTEM)
        if not WalletCall.objects.filter(status="pending").exists():
            return
    raise AssertionError("calls still pending after the sweeps")


def _mirror(player) -> int:
    """The operator_wallet mirror of this player's shard (negative: money with us)."""
    return balances.house_balance(
        operator=player.operator, kind=Account.Kind.OPERATOR_WALLET, currency="EUR"
    )


def _assert_agree(server, player, start: Decimal = Decimal("100.00")) -> None:
    """What the operator's wallet moved equals what the ledger's mirror says moved."""
    moved = server.balance(player.external_ref) - start
    assert Decimal(_mirror(player)) / 100 == moved
    assert reconciliation.reconcile().ok, reconciliation.reconcile().render()


# --- Settings ------------------------------------------------------------------------------
def test_the_services_refuse_to_call_inside_a_transaction(player):
    with pytest.raises(RuntimeError, match="inside a database transaction"), transaction.atomic():
        services.seamless_debit(
            player=player, amount=100, currency="EUR", purpose="p:1", actor=SYSTEM
        )
    assert not WalletCall.objects.exists()


def test_a_mode_switch_is_refused_while_money_is_in_the_platform(player, server):
    services.seamless_debit(player=player, amount=500, currency="EUR", purpose="p:1", actor=SYSTEM)
    assert wallet_mode_blockers(operator_id=player.operator_id)["funded_wallets"] == 1
    with pytest.raises(WalletModeSwitchRefusedProblem) as refused:
        services.operator_wallet_set(
            operator=player.operator,
            mode="transfer",
            base_url=server.base_url,
            timeout_ms=TIMEOUT_MS,
            actor=SYSTEM,
        )
    assert refused.value.extensions["funded_wallets"] == 1
    assert AuditEvent.objects.filter(action="operator_wallet.updated").count() == 1


def test_transfer_cashier_refuses_for_a_seamless_operator(player):
    with pytest.raises(SeamlessWalletModeProblem):
        services.deposit(player=player, amount=100, currency="EUR", reference="d:1", actor=SYSTEM)


# --- Debits --------------------------------------------------------------------------------
def test_an_applied_debit_is_mirrored_into_the_transit_wallet(player, server):
    call = services.seamless_debit(
        player=player, amount=1250, currency="EUR", purpose="buy:1", actor=SYSTEM
    )
    assert call.status == "applied" and call.attempt_count == 1
    assert server.balance(player.external_ref) == Decimal("87.50")
    assert balances.wallet_balance(player=player) == 1250
    txn = LedgerTransaction.objects.get(kind="seamless_debit")
    assert txn.reference == f"seamless:{call.pk}" and call.ledger_transaction_id == txn.pk
    assert server.state.bad_signatures == 0
    _assert_agree(server, player)
    actions = list(
        AuditEvent.objects.filter(object_id=str(call.pk))
        .order_by("pk")
        .values_list("action", flat=True)
    )
    assert actions == ["wallet_call.created", "wallet_call.applied"]


def test_a_refused_debit_is_insufficient_funds_and_posts_nothing(player, server):
    with pytest.raises(InsufficientFundsProblem):
        services.seamless_debit(
            player=player, amount=20000, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    assert WalletCall.objects.get().status == "refused"
    assert not LedgerTransaction.objects.exists()
    _assert_agree(server, player)


def test_an_injected_refusal_is_insufficient_funds(player, server):
    server.fault("debit", "insufficient")
    with pytest.raises(InsufficientFundsProblem):
        services.seamless_debit(
            player=player, amount=100, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    _assert_agree(server, player)


@pytest.mark.parametrize("fault", ["5xx", "duplicate"])
def test_a_debit_retried_with_the_same_id_applies_once(player, server, fault):
    server.fault("debit", fault)
    call = services.seamless_debit(
        player=player, amount=300, currency="EUR", purpose="buy:1", actor=SYSTEM
    )
    assert call.status == "applied"
    assert len(server.applied("debit")) == 1
    assert server.balance(player.external_ref) == Decimal("97.00")
    _assert_agree(server, player)


@pytest.mark.parametrize("fault", ["timeout", "lost", "lost_500"])
def test_a_debit_applied_but_unanswered_is_retried_and_found_applied(player, server, fault):
    """The operator applied it; the answer was lost. The retry (same id) gets the first
    answer, so the debit is mirrored once."""
    server.fault("debit", fault)
    call = services.seamless_debit(
        player=player, amount=300, currency="EUR", purpose="buy:1", actor=SYSTEM
    )
    assert call.status == "applied" and call.attempt_count == 2
    assert [tid for tid, _ in server.applied("debit")] == [str(call.pk)]
    _assert_agree(server, player)


@pytest.mark.parametrize("fault", ["timeout", "lost", "lost_500", "5xx"])
def test_a_debit_never_answered_is_rolled_back_before_the_503(player, server, fault):
    server.fault("debit", fault, fault, fault)
    with pytest.raises(WalletUnavailableProblem):
        services.seamless_debit(
            player=player, amount=300, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    debit = WalletCall.objects.get(kind="debit")
    rollback = WalletCall.objects.get(kind="rollback")
    assert debit.status == "rolled_back" and rollback.status == "applied"
    assert rollback.rolls_back_id == debit.pk
    assert server.balance(player.external_ref) == Decimal("100.00")  # given back, if taken
    assert not LedgerTransaction.objects.exists()  # never mirrored: nothing to undo
    _assert_agree(server, player)


def test_a_late_debit_after_its_rollback_is_refused_by_the_operator(player, server):
    server.fault("debit", "5xx", "5xx", "5xx")
    with pytest.raises(WalletUnavailableProblem):
        services.seamless_debit(
            player=player, amount=300, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    debit = WalletCall.objects.get(kind="debit")
    status, answer = server.process(
        "debit",
        {"transaction_id": str(debit.pk), "player_id": player.external_ref, "amount": "3.00"},
        force_refuse=False,
    )
    assert (status, answer) == (409, {"error": "transaction_rolled_back"})
    assert server.balance(player.external_ref) == Decimal("100.00")


@pytest.mark.parametrize("fault", ["timeout", "lost", "lost_500", "5xx", "duplicate"])
def test_a_rollback_not_acknowledged_stays_pending_until_the_sweep(player, server, fault):
    server.fault("debit", "5xx", "5xx", "5xx")
    server.fault("rollback", fault, fault, fault)
    with pytest.raises(WalletUnavailableProblem):
        services.seamless_debit(
            player=player, amount=300, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    rollback = WalletCall.objects.get(kind="rollback")
    if fault == "duplicate":  # delivered twice, applied once, answered
        assert rollback.status == "applied"
    else:
        assert rollback.status == "pending" and rollback.last_error
        _sweep_until_done()
    assert len(server.applied("rollback")) == 1
    assert WalletCall.objects.get(kind="debit").status == "rolled_back"
    _assert_agree(server, player)


def test_rolling_back_an_applied_debit_reverses_its_mirror(player, server):
    debit = services.seamless_debit(
        player=player, amount=700, currency="EUR", purpose="buy:1", actor=SYSTEM
    )
    server.fault("rollback", "timeout", "lost", "5xx")
    rollback = services.seamless_rollback(debit=debit, actor=SYSTEM)
    assert rollback.status == "pending"
    assert balances.wallet_balance(player=player) == 700  # still in transit
    _sweep_until_done()
    assert balances.wallet_balance(player=player) == 0
    assert LedgerTransaction.objects.filter(kind="seamless_rollback").count() == 1
    assert server.balance(player.external_ref) == Decimal("100.00")
    _assert_agree(server, player)


def test_a_debit_left_pending_by_a_dead_request_is_rolled_back_by_the_sweep(player, server):
    call = WalletCall.objects.create(
        operator=player.operator,
        player=player,
        kind="debit",
        amount=100,
        currency="EUR",
        purpose="buy:dead",
        reason="buy_in",
    )
    server.process(
        "debit",
        {"transaction_id": str(call.pk), "player_id": player.external_ref, "amount": "1.00"},
        force_refuse=False,
    )  # the operator applied it; our request died before recording the answer
    WalletCall.objects.filter(pk=call.pk).update(created_at=timezone.now() - timedelta(hours=1))
    _sweep_until_done()
    call.refresh_from_db()
    assert call.status == "rolled_back"
    assert server.balance(player.external_ref) == Decimal("100.00")
    _assert_agree(server, player)


# --- Credits -------------------------------------------------------------------------------
def _transit(player, server, amount: int) -> None:
    """Money in the player's platform wallet, as a payout would leave it."""
    services.seamless_debit(
        player=player, amount=amount, currency="EUR", purpose=f"buy:{amount}", actor=SYSTEM
    )


def test_a_credit_is_applied_and_mirrored(player, server):
    _transit(player, server, 900)
    call = services.seamless_credit(
        player=player, amount=900, currency="EUR", purpose="payout:1", actor=SYSTEM
    )
    assert call.status == "applied"
    assert balances.wallet_balance(player=player) == 0
    assert server.balance(player.external_ref) == Decimal("100.00")
    again = services.seamless_credit(
        player=player, amount=900, currency="EUR", purpose="payout:1", actor=SYSTEM
    )
    assert again.pk == call.pk and len(server.applied("credit")) == 1
    _assert_agree(server, player)


@pytest.mark.parametrize("fault", ["timeout", "lost", "lost_500", "5xx", "duplicate"])
def test_a_credit_is_retried_with_the_same_id_until_acknowledged(player, server, fault):
    _transit(player, server, 900)
    server.fault("credit", fault, fault, fault, fault)
    call = services.seamless_credit(
        player=player, amount=900, currency="EUR", purpose="payout:1", actor=SYSTEM
    )
    if fault != "duplicate":
        assert call.status == "pending"
        _sweep_until_done()
    call.refresh_from_db()
    assert call.status == "applied"
    assert [tid for tid, _ in server.applied("credit")] == [str(call.pk)]
    assert {tid for action, tid in server.state.requests if action == "credit"} == {str(call.pk)}
    assert balances.wallet_balance(player=player) == 0
    _assert_agree(server, player)


def test_a_late_credit_alerts_once(player, server, caplog, settings):
    settings.WALLET_CREDIT_ALERT_SECONDS = 60
    player.operator.webhook_url = "https://hooks.example.com/gin"
    player.operator.save(update_fields=["webhook_url"])
    _transit(player, server, 900)
    server.fault("credit", *["5xx"] * 4)
    call = services.seamless_credit(
        player=player, amount=900, currency="EUR", purpose="payout:1", actor=SYSTEM
    )
    WalletCall.objects.filter(pk=call.pk).update(created_at=timezone.now() - timedelta(hours=1))
    with caplog.at_level(logging.ERROR):
        _due_now()
        services.seamless_calls_sweep(actor=SYSTEM)
        _due_now()
        services.seamless_calls_sweep(actor=SYSTEM)
    assert [r for r in caplog.records if "ALERT seamless wallet credit" in r.getMessage()]
    alerts = WebhookDelivery.objects.filter(event_type="wallet.call_failed")
    assert alerts.count() == 1
    assert alerts.get().payload["transaction_id"] == str(call.pk)
    _sweep_until_done()
    _assert_agree(server, player)


def test_balance_is_read_from_the_operator(player, server):
    assert services.seamless_balance(player=player) == Decimal("100.00")


# --- The client ----------------------------------------------------------------------------
def test_a_request_signed_with_another_secret_is_refused_and_never_applied(player, server):
    server.secret = "whsec_not-the-operators"
    with pytest.raises(WalletUnavailableProblem):
        services.seamless_debit(
            player=player, amount=100, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    assert server.state.bad_signatures == 6  # 3 debits, 3 rollbacks
    assert WalletCall.objects.get(kind="debit").last_error == "HTTP 401"
    assert WalletCall.objects.get(kind="rollback").status == "pending"
    assert server.applied() == []


def test_a_private_wallet_address_is_never_called_unless_allowed(player, server, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(WalletUnavailableProblem):
        services.seamless_debit(
            player=player, amount=100, currency="EUR", purpose="buy:1", actor=SYSTEM
        )
    assert WalletCall.objects.get(kind="debit").last_error.startswith("refused")
    assert server.state.requests == []


def test_an_applied_debit_no_seat_consumed_is_rolled_back_by_the_sweep(player, server):
    """The request died between the debit and the seat: the money waits in the transit
    wallet until the sweep gives it back (a consumed debit is never touched)."""
    debit = services.seamless_debit(
        player=player, amount=400, currency="EUR", purpose="buy:1", actor=SYSTEM
    )
    services.seamless_calls_sweep(actor=SYSTEM)  # too young: left alone
    assert not WalletCall.objects.filter(kind="rollback").exists()
    old = timezone.now() - timedelta(seconds=seamless_module.STRANDED_DEBIT_SECONDS + 1)
    WalletCall.objects.filter(pk=debit.pk).update(created_at=old)
    _sweep_until_done()
    debit.refresh_from_db()
    assert debit.status == "rolled_back"
    assert balances.wallet_balance(player=player) == 0
    assert server.balance(player.external_ref) == Decimal("100.00")
    _assert_agree(server, player)
