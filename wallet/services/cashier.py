"""The operator's cashier: deposits and withdrawals in the wallet currency, and the
operator's cashier caps (docs/wallet.md "deposit / withdraw" and "Cashier caps").

- The cashier never converts: the currency is the player's wallet currency.
- A deposit is refused for an inactive player, a player on a break (self-exclusion or
  time-out), the operator's caps (minimum and maximum per deposit; daily, weekly and
  monthly caps per player) and the player's own deposit limits
  (wallet.services.responsible_gaming).
- A withdrawal needs a verified identity (the KYC rule, wallet.services.responsible_gaming)
  and respects the operator's minimum and maximum per withdrawal and the balance. It is
  never blocked by a break (self-exclusion, time-out) or by the player's status.
- The ledger reference of a cashier movement is ``deposit:<operator id>:<reference>`` or
  ``withdrawal:<operator id>:<reference>`` (``deposit_reference``, ``withdrawal_reference``):
  unique per operator, whatever the operator's own reference.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue, webhook_enqueue_after_rollback
from gin_platform.http.problems import Problem
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import (
    MAX_AMOUNT,
    check_active,
    check_amount,
    check_funds,
    check_metadata,
    check_reference,
)
from wallet.ledger.keys import AccountKey, AccountKind, house_key, player_key, shard_for
from wallet.ledger.post import post_transfer
from wallet.ledger.replay import reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.locks import lock_cashier_caps
from wallet.models import Account, CashierCaps, LedgerTransaction
from wallet.problems import (
    AmountBelowMinimumProblem,
    CapExceededProblem,
    CashierCapsInvalidProblem,
    CurrencyMismatchProblem,
    PracticeChipsNotConvertibleProblem,
)
from wallet.selectors import limits as selectors
from wallet.selectors import postings as posting_selectors
from wallet.services.responsible_gaming import (
    check_break_ended,
    check_deposit_limits,
    check_withdrawal_kyc,
)
from wallet.services.seamless import check_transfer_mode
from wallet.windows import windows

Kind = LedgerTransaction.Kind
WINDOW_CAPS = (("day", "daily"), ("week", "weekly"), ("month", "monthly"))


# --- Ledger references ---------------------------------------------------------------------
def deposit_reference(*, operator_id: Any, reference: str) -> str:
    """The ledger reference of an operator's deposit: ``deposit:<operator id>:<reference>``
    (``reference``: the operator's own, by default its Idempotency-Key)."""
    return f"deposit:{operator_id}:{reference}"


def withdrawal_reference(*, operator_id: Any, reference: str) -> str:
    """The ledger reference of an operator's withdrawal:
    ``withdrawal:<operator id>:<reference>``."""
    return f"withdrawal:{operator_id}:{reference}"


# --- Deposits and withdrawals -------------------------------------------------------------
def cashier_currency(player: Player, currency: str, *, check_mode: bool = True) -> str:
    """The currency code of a deposit, withdrawal or adjustment: the player's wallet
    currency, as the cashier never converts (nor has practice chips), in transfer mode
    only. A deposit checks the transfer mode later (``check_mode=False``), in its one read under
    the locks."""
    code = parse_currency(currency)
    if code == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem(
            "practice chips cannot be deposited or withdrawn", field="currency"
        )
    if code != player.wallet_currency:
        raise CurrencyMismatchProblem(
            f"the player's wallet is in {player.wallet_currency}, not {code}",
            field="currency",
            wallet_currency=player.wallet_currency,
        )
    if check_mode:
        check_transfer_mode(player=player)  # a seamless operator keeps the balance itself
    return code


def cashier_keys(*, player: Player, currency: str) -> tuple[AccountKey, AccountKey]:
    """The two sides of a cashier movement: the operator's outside-world account (the
    player's shard) and the player's wallet."""
    outside = house_key(
        operator_id=player.operator_id,
        kind=AccountKind.OUTSIDE,
        currency=currency,
        shard=shard_for(player.pk),
    )
    return outside, player_key(
        player_id=player.pk, operator_id=player.operator_id, currency=currency
    )


def _own_reference(reference: str) -> str:
    """The operator's reference inside ``deposit:<operator id>:<reference>``."""
    parts = reference.split(":", 2)
    return parts[2] if len(parts) == 3 else reference


def _cashier_event(
    *, player: Player, txn: LedgerTransaction, wallet: Account, amount: int
) -> dict[str, Any]:
    """deposit.completed / withdrawal.completed (gin_platform/events/catalogue.py)."""
    return {
        **player_ref(player),
        "transaction_id": txn.pk,
        "reference": _own_reference(txn.reference),
        "amount": money_dict(amount, wallet.currency),
        "balance": money_dict(wallet.balance, wallet.currency),
    }


def _cashier_post(
    locked: Locked,
    *,
    player: Player,
    kind: str,
    reference: str,
    amount: int,
    currency: str,
    actor: Actor,
    metadata: dict[str, Any] | None,
) -> LedgerTransaction:
    """Post a deposit (the outside world to the wallet) or a withdrawal (the wallet to the
    outside world) whose checks passed, and queue its deposit.completed /
    withdrawal.completed event."""
    outside, wallet = locked.resolved
    source, target = (outside, wallet) if kind == Kind.DEPOSIT else (wallet, outside)
    txn = post_transfer(
        locked=locked.accounts,
        player=player,
        kind=kind,
        reference=reference,
        source=source,
        target=target,
        amount=amount,
        currency=currency,
        actor=actor,
        now=locked.now,
        metadata=metadata,
    )
    data = _cashier_event(player=player, txn=txn, wallet=wallet, amount=amount)
    # Each event type written out, as the OpenAPI document's test reads them from the code.
    if kind == Kind.DEPOSIT:
        webhook_enqueue(operator=player.operator, event_type="deposit.completed", data=data)
    else:
        webhook_enqueue(operator=player.operator, event_type="withdrawal.completed", data=data)
    return txn


def _refusal_recorded(
    service: Callable[..., LedgerTransaction],
) -> Callable[..., LedgerTransaction]:
    """deposit.refused / withdrawal.refused: the refusal rolls the service's transaction
    back, so its event is recorded after the rollback (once per Idempotency-Key, never for a
    replay: gin_platform.events.webhooks.webhook_enqueue_after_rollback)."""

    @functools.wraps(service)
    def recorded(**kwargs: Any) -> LedgerTransaction:
        try:
            return service(**kwargs)
        except Problem as refusal:
            player, amount = kwargs["player"], kwargs["amount"]
            data = {
                **player_ref(player),
                "reference": _own_reference(str(kwargs["reference"])),
                "amount": (
                    money_dict(amount, player.wallet_currency)
                    if isinstance(amount, int) and not isinstance(amount, bool)
                    else {"amount": str(amount), "currency": player.wallet_currency}
                ),
                "problem": refusal.as_record(),
            }
            if service.__name__ == "deposit":
                webhook_enqueue_after_rollback(
                    refusal=refusal,
                    operator=player.operator,
                    event_type="deposit.refused",
                    data=data,
                )
            else:
                webhook_enqueue_after_rollback(
                    refusal=refusal,
                    operator=player.operator,
                    event_type="withdrawal.refused",
                    data=data,
                )
            raise

    return recorded


@_refusal_recorded
@reference_guard
@transaction.atomic
def deposit(
    *,
    player: Player,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    metadata: Mapping[str, Any] | None = None,
) -> LedgerTransaction:
    """Credit the player's wallet from the outside world (the operator's cashier).

    ``currency`` must be the player's wallet currency (no conversion). Refused: inactive
    player, a break (self-exclusion, time-out), the operator's caps, the player's deposit
    limits.
    """
    code = cashier_currency(player, currency, check_mode=False)
    check_amount(amount)
    reference = check_reference(reference)
    meta = check_metadata(metadata)

    def rules(locked: Locked) -> LedgerTransaction:
        _outside, wallet = locked.resolved
        checks: posting_selectors.DepositChecks = locked.reads
        check_transfer_mode(player=player, seamless=checks.seamless)
        check_active(player)
        check_break_ended(
            excluded_until=checks.excluded_until, timed_out_until=checks.timed_out_until
        )
        if checks.has_caps:
            _check_deposit_caps(
                player=player, wallet=wallet, amount=amount, currency=code, now=locked.now
            )
        if checks.has_deposit_limits:
            check_deposit_limits(
                player=player, wallet=wallet, amount=amount, currency=code, now=locked.now
            )
        return _cashier_post(
            locked,
            player=player,
            kind=Kind.DEPOSIT,
            reference=reference,
            amount=amount,
            currency=code,
            actor=actor,
            metadata=meta,
        )

    return posting_make(
        reference=reference,
        same={"kind": Kind.DEPOSIT, "player": player, "amount": amount, "currency": code},
        keys=cashier_keys(player=player, currency=code),
        rules=rules,
        # One query: the replay check, and which checks have anything to read (usually none).
        reads=lambda at: posting_selectors.deposit_checks_get(
            player=player, currency=code, reference=reference, at=at
        ),
    )


@_refusal_recorded
@reference_guard
@transaction.atomic
def withdraw(
    *,
    player: Player,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    metadata: Mapping[str, Any] | None = None,
) -> LedgerTransaction:
    """Debit the player's wallet to the outside world (the operator pays the player out).

    Needs KYC ``verified``. Never blocked by a break (self-exclusion, time-out) or by the
    player's status (a player can always take their money out). Refused: the operator's
    withdrawal min/max, insufficient funds.
    """
    code = cashier_currency(player, currency)
    check_amount(amount)
    reference = check_reference(reference)
    meta = check_metadata(metadata)

    def rules(locked: Locked) -> LedgerTransaction:
        _outside, wallet = locked.resolved
        check_withdrawal_kyc(player)
        _check_withdrawal_caps(player=player, amount=amount, currency=code)
        check_funds(wallet, amount)
        return _cashier_post(
            locked,
            player=player,
            kind=Kind.WITHDRAWAL,
            reference=reference,
            amount=amount,
            currency=code,
            actor=actor,
            metadata=meta,
        )

    return posting_make(
        reference=reference,
        same={"kind": Kind.WITHDRAWAL, "player": player, "amount": amount, "currency": code},
        keys=cashier_keys(player=player, currency=code),
        rules=rules,
    )


# --- The operator's caps (checked under the wallet lock) ----------------------------------
def _check_deposit_caps(
    *, player: Player, wallet: Account, amount: int, currency: str, now: datetime
) -> None:
    """The operator's minimum and maximum per deposit, then its daily, weekly and monthly
    caps on each player's deposits (gross: a reversed deposit still counts)."""
    caps = selectors.cashier_caps_get(operator=player.operator, currency=currency)
    if caps is None:
        return
    if caps.min_deposit is not None and amount < caps.min_deposit:
        raise AmountBelowMinimumProblem(
            f"the smallest deposit is {money_dict(caps.min_deposit, currency)['amount']}",
            cap="min_deposit",
            minimum=money_dict(caps.min_deposit, currency),
        )
    if caps.max_deposit is not None and amount > caps.max_deposit:
        raise CapExceededProblem(
            f"the largest deposit is {money_dict(caps.max_deposit, currency)['amount']}",
            cap="max_deposit",
            limit=money_dict(caps.max_deposit, currency),
            remaining=money_dict(caps.max_deposit, currency),
        )
    window_caps = {period: getattr(caps, f"{name}_deposit_cap") for period, name in WINDOW_CAPS}
    if all(cap is None for cap in window_caps.values()):
        return
    totals = selectors.deposit_totals(account=wallet, at=now)
    current = windows(now)
    for period, name in WINDOW_CAPS:
        cap = window_caps[period]
        if cap is not None and totals[period] + amount > cap:
            raise CapExceededProblem(
                f"the {name} deposit cap is {money_dict(cap, currency)['amount']} {currency}; "
                f"{money_dict(max(cap - totals[period], 0), currency)['amount']} is left",
                cap=f"{name}_deposit_cap",
                limit=money_dict(cap, currency),
                remaining=money_dict(max(cap - totals[period], 0), currency),
                window_start=current[period].start.isoformat(),
                window_end=current[period].end.isoformat(),
            )


def _check_withdrawal_caps(*, player: Player, amount: int, currency: str) -> None:
    """The operator's minimum and maximum per withdrawal."""
    caps = selectors.cashier_caps_get(operator=player.operator, currency=currency)
    if caps is not None and caps.min_withdrawal is not None and amount < caps.min_withdrawal:
        raise AmountBelowMinimumProblem(
            f"the smallest withdrawal is {money_dict(caps.min_withdrawal, currency)['amount']}",
            cap="min_withdrawal",
            minimum=money_dict(caps.min_withdrawal, currency),
        )
    if caps is not None and caps.max_withdrawal is not None and amount > caps.max_withdrawal:
        raise CapExceededProblem(
            f"the largest withdrawal is {money_dict(caps.max_withdrawal, currency)['amount']}",
            cap="max_withdrawal",
            limit=money_dict(caps.max_withdrawal, currency),
            remaining=money_dict(caps.max_withdrawal, currency),
        )


@transaction.atomic(durable=True)
def cashier_caps_set(
    *, operator: Operator, currency: str, actor: Actor, **caps: int | None
) -> CashierCaps:
    """Replace the operator's caps for ``currency`` (None: no cap). Amounts in minor units.

    Durable (``transaction.atomic(durable=True)``): its one caller, the staff endpoint, runs
    it on its own; nesting it by accident raises instead of holding the caps row lock, and
    keeping the new caps from the operator's deposits, until the caller commits."""
    return cashier_caps_write(operator=operator, currency=currency, actor=actor, **caps)


def check_cashier_caps(
    *, currency: object, caps: Mapping[str, object]
) -> tuple[str, dict[str, int | None]]:
    """The one check of new caps, for a direct set, a four-eyes proposal and its approval
    alike (so a proposal the approval would refuse is never recorded): a currency with a
    cashier (not practice chips), known cap names, each an integer of minor units from 0 to
    ``MAX_AMOUNT`` or None, and no minimum above its maximum (``cashier-caps-invalid``
    naming the ``field``). Returns the currency code and all seven caps (missing: None)."""
    code = parse_currency(currency)
    if code == PRACTICE_CURRENCY:
        raise PracticeChipsNotConvertibleProblem("practice chips have no cashier", field="currency")
    unknown = set(caps) - set(CashierCaps.FIELDS)
    if unknown:
        raise CashierCapsInvalidProblem(
            f"unknown caps: {', '.join(sorted(unknown))}", field=sorted(unknown)[0]
        )
    values: dict[str, int | None] = {}
    for name in CashierCaps.FIELDS:
        value = caps.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise CashierCapsInvalidProblem(
                f"{name} must be an integer of minor units or null", field=name
            )
        if value is not None and not 0 <= value <= MAX_AMOUNT:
            raise CashierCapsInvalidProblem(f"{name} is out of range", field=name)
        values[name] = value
    for low, high in (("min_deposit", "max_deposit"), ("min_withdrawal", "max_withdrawal")):
        minimum, maximum = values[low], values[high]
        if minimum is not None and maximum is not None and minimum > maximum:
            raise CashierCapsInvalidProblem(f"{low} is above {high}", field=low)
    return code, values


@transaction.atomic
def cashier_caps_write(
    *, operator: Operator, currency: str, actor: Actor, **caps: int | None
) -> CashierCaps:
    """``cashier_caps_set``'s work, as a savepoint of the caller's transaction: the one
    caller is an approved four-eyes raise (wallet.services.approvals), which sets the caps
    in the transaction that marks the approval executed."""
    code, values = check_cashier_caps(currency=currency, caps=caps)
    _, created = CashierCaps.objects.get_or_create(operator=operator, currency=code)
    row = lock_cashier_caps(operator_id=operator.pk, currency=code)
    old = None if created else {name: getattr(row, name) for name in CashierCaps.FIELDS}
    for name, value in values.items():
        setattr(row, name, value)
    row.updated_at = timezone.now()
    row.save()
    audit_record(
        actor=actor,
        action="cashier_caps.set",
        obj=row,
        operator=operator,
        data={"currency": code, "old": old, "new": values},
    )
    return row
