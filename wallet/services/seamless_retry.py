"""Seamless wallet: the retries, the alert and the balance read (docs/wallet.md "Seamless
wallet"; the calls themselves are in wallet/services/seamless.py).

- ``seamless_call_retry``: one retry of a pending call (the Celery task and the sweep): a
  credit or rollback is sent again with its own id until the operator acknowledges it; a
  debit whose request died is rolled back, never applied; an applied buy-in debit no seat
  consumed is rolled back.
- ``seamless_calls_sweep``: beat, every call that is due.
- A credit or rollback unacknowledged after ``WALLET_CREDIT_ALERT_SECONDS`` alerts once: log
  ERROR and the ``wallet.call_failed`` webhook.
- ``seamless_balance``: the operator's balance of a player, for display.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from wallet.models import OperatorWallet, WalletCall
from wallet.seamless_client import wallet_call_send
from wallet.selectors import seamless as selectors
from wallet.services.seamless import (
    STALE_DEBIT_SECONDS,
    STRANDED_DEBIT_SECONDS,
    Call,
    check_outside_transactions,
    seamless_rollback,
    wallet_call_attempt,
    wallet_call_audit,
)

logger = logging.getLogger(__name__)


def credit_alert_seconds() -> int:
    return int(getattr(settings, "WALLET_CREDIT_ALERT_SECONDS", 900))


def seamless_call_retry(*, call_id: Any, actor: Actor) -> WalletCall | None:
    """One retry of a pending call (the task and the sweep): a credit or rollback is sent
    again with its own id; a debit whose request died is rolled back, never applied, and
    an applied buy-in debit no seat consumed within ``STRANDED_DEBIT_SECONDS`` too. A credit
    or rollback still pending after ``WALLET_CREDIT_ALERT_SECONDS`` raises the alert once."""
    call = WalletCall.objects.filter(pk=call_id).first()
    if call is not None and call.kind == Call.Kind.DEBIT and call.status == Call.Status.APPLIED:
        stranded = timezone.now() - timedelta(seconds=STRANDED_DEBIT_SECONDS)
        if call.consumed_by_id is None and call.created_at <= stranded:
            seamless_rollback(debit=call, actor=actor)  # its seat was never taken
        return WalletCall.objects.get(pk=call_id)
    if call is None or call.status != Call.Status.PENDING:
        return call
    if call.kind == Call.Kind.DEBIT:
        if call.created_at <= timezone.now() - timedelta(seconds=STALE_DEBIT_SECONDS):
            seamless_rollback(debit=call, actor=actor)
        return WalletCall.objects.get(pk=call_id)
    call = wallet_call_attempt(call.pk, actor=actor, quick=False)
    if call.status == Call.Status.PENDING:
        _alert_if_late(call, actor=actor)
    return call


def seamless_calls_sweep(*, actor: Actor) -> int:
    """Beat: retry every call that is due (``seamless_call_retry``); returns how many."""
    now = timezone.now()
    ids = selectors.wallet_calls_due(
        now=now,
        stale_before=now - timedelta(seconds=STALE_DEBIT_SECONDS),
        stranded_before=now - timedelta(seconds=STRANDED_DEBIT_SECONDS),
    )
    for call_id in ids:
        seamless_call_retry(call_id=call_id, actor=actor)
    return len(ids)


@transaction.atomic
def _alert_if_late(call: WalletCall, *, actor: Actor) -> None:
    late = timezone.now() - timedelta(seconds=credit_alert_seconds())
    if call.created_at > late or call.alerted_at is not None:
        return
    if not WalletCall.objects.filter(pk=call.pk, alerted_at__isnull=True).update(
        alerted_at=timezone.now()
    ):
        return
    logger.error(
        "ALERT seamless wallet %s %s for player %s unacknowledged since %s (%d attempts, %s)",
        call.kind,
        call.pk,
        call.player_id,
        call.created_at.isoformat(),
        call.attempt_count,
        call.last_error,
    )
    wallet_call_audit(call, actor, "alerted")
    webhook_enqueue(
        operator=call.operator,
        event_type="wallet.call_failed",
        data={
            "transaction_id": str(call.pk),
            "kind": call.kind,
            "player_id": str(call.player_id),
            "external_ref": call.player.external_ref,
            **money_dict(call.amount, call.currency),
            "reason": call.reason,
            "purpose": call.purpose,
            "attempts": call.attempt_count,
            "last_error": call.last_error,
            "since": call.created_at.isoformat(),
        },
    )


# --- Balance -------------------------------------------------------------------------------
def seamless_balance(*, player: Player) -> Decimal | None:
    """The player's balance in the operator's wallet (major units), or None when the
    operator does not answer; for display only, nothing is recorded."""
    check_outside_transactions()
    config = selectors.operator_wallet_get(operator_id=player.operator_id)
    if config is None or config.mode != OperatorWallet.Mode.SEAMLESS:
        return None
    answer = wallet_call_send(
        base_url=config.base_url,
        secret=player.operator.webhook_secret,
        timeout_ms=config.timeout_ms,
        action="balance",
        payload={
            "request_id": str(uuid.uuid4()),
            "player_id": player.external_ref,
            "currency": player.wallet_currency,
        },
    )
    return answer.balance if answer.outcome == "applied" else None
