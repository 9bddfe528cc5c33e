"""Reads of the seamless wallet (docs/wallet.md "Seamless wallet"): the operator's settings,
what blocks a mode switch, a player's rollbacks still unacknowledged, the calls the retry
sweep picks up, and the reconciliation check that ties acknowledged calls to their mirror
postings (used by ``wallet.selectors.reconciliation.reconcile``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.request_path.precompiled import PrecompiledQuery
from wallet.models import Account, LedgerTransaction, OperatorWallet, WalletCall

Kind = LedgerTransaction.Kind


def operator_wallet_get(*, operator_id: Any) -> OperatorWallet | None:
    return OperatorWallet.objects.filter(operator_id=operator_id).first()


def is_seamless(*, operator_id: Any) -> bool:
    return bool(_SEAMLESS_WALLET.fetch(operator_id))


# Compiled once per process thread (gin_platform/request_path/precompiled.py): every settlement
# asks.
_SEAMLESS_WALLET = PrecompiledQuery(
    lambda operator_id: OperatorWallet.objects.filter(
        operator_id=operator_id, mode=OperatorWallet.Mode.SEAMLESS
    ).only("pk")[:1]
)


def wallet_mode_blockers(*, operator_id: Any) -> dict[str, int]:
    """What keeps an operator from switching wallet mode: funded platform wallets, escrows
    holding money (real money only) and wallet calls still in flight."""
    money = Account.objects.filter(operator_id=operator_id, balance__gt=0).exclude(
        currency=PRACTICE_CURRENCY
    )
    # Network games' escrows belong to the network's operator: count those holding a stake
    # of this operator's players too (docs/network.md).
    network_escrows = (
        Account.objects.filter(
            kind=Account.Kind.ESCROW, balance__gt=0, entries__player__operator_id=operator_id
        )
        .exclude(operator_id=operator_id)
        .exclude(currency=PRACTICE_CURRENCY)
        .distinct()
    )
    return {
        "funded_wallets": money.filter(kind=Account.Kind.PLAYER).count(),
        "open_escrows": money.filter(kind=Account.Kind.ESCROW).count() + network_escrows.count(),
        "calls_in_flight": WalletCall.objects.filter(
            operator_id=operator_id,
            status__in=(WalletCall.Status.PENDING, WalletCall.Status.UNKNOWN),
        ).count(),
    }


def pending_rollbacks(*, player_id: Any) -> list[WalletCall]:
    """The player's rollbacks the operator has not acknowledged yet, oldest first: until it
    does, the operator's wallet may still hold each one's amount (shown in the wallet as
    ``pending_rollbacks``)."""
    return list(
        WalletCall.objects.filter(
            player_id=player_id,
            kind=WalletCall.Kind.ROLLBACK,
            status=WalletCall.Status.PENDING,
        ).order_by("created_at", "pk")
    )


def wallet_calls_due(
    *, now: datetime, stale_before: datetime, stranded_before: datetime, limit: int = 500
) -> list[Any]:
    """Calls for the retry sweep: credits and rollbacks due; debits left pending by a request
    that died (older than ``stale_before``: rolled back, never applied); applied buy-in
    debits that no seat consumed (older than ``stranded_before``: rolled back)."""
    call = WalletCall.Kind
    due = WalletCall.objects.filter(
        Q(
            status=WalletCall.Status.PENDING,
            kind__in=(call.CREDIT, call.ROLLBACK),
            next_attempt_at__lte=now,
        )
        | Q(status=WalletCall.Status.PENDING, kind=call.DEBIT, created_at__lte=stale_before)
        | Q(
            status=WalletCall.Status.APPLIED,
            kind=call.DEBIT,
            consumed_by__isnull=True,
            rollback__isnull=True,
            created_at__lte=stranded_before,
        )
    )
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])


def seamless_mismatches() -> list[str]:
    """Every acknowledged call has its mirror posting and every mirror posting its call."""
    call = WalletCall.Kind
    unmirrored = WalletCall.objects.filter(
        status=WalletCall.Status.APPLIED, ledger_transaction__isnull=True
    ).filter(
        Q(kind__in=(call.DEBIT, call.CREDIT))
        | Q(kind=call.ROLLBACK, rolls_back__ledger_transaction__isnull=False)
    )
    mirrored = WalletCall.objects.filter(ledger_transaction__isnull=False)
    orphans = LedgerTransaction.objects.filter(
        kind__in=(Kind.SEAMLESS_DEBIT, Kind.SEAMLESS_CREDIT, Kind.SEAMLESS_ROLLBACK)
    ).exclude(pk__in=mirrored.values("ledger_transaction_id"))
    return [
        *(
            f"SEAMLESS call {pk} was acknowledged but never mirrored"
            for pk in unmirrored.values_list("pk", flat=True)
        ),
        *(
            f"SEAMLESS transaction #{pk} mirrors no call"
            for pk in orphans.values_list("pk", flat=True)
        ),
    ]
