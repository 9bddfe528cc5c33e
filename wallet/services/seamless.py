"""Seamless wallet mode: the operator keeps the player's one balance and we call its wallet
API (docs/wallet.md "Seamless wallet").

- ``operator_wallet_set``: the operator's mode (``transfer`` default, ``seamless``), wallet
  URL and timeout; a mode switch is refused while players' money is in the platform.
- ``seamless_debit``: a buy-in taken from the operator's wallet. The call row commits
  first (pending), then a few quick attempts with the same transaction id; applied: the
  mirror posting ``operator_wallet -> player wallet`` (the wallet is a transit account; the
  ordinary ``table_buy_in`` moves the money on to the escrow); refused:
  ``insufficient-funds``; no answer: its rollback (``seamless_rollback``) is tried before
  ``wallet-unavailable`` is raised (``seamless_debit_unavailable``), which says
  ``rollback_pending`` when the operator has not acknowledged it yet.
- ``seamless_rollback``: undo a debit (no answer, or the seat was refused): acknowledged,
  an applied debit's mirror is reversed (``player wallet -> operator_wallet``); until then
  it stays pending, the player's wallet shows it (``pending_rollbacks``), and the retry
  sweep sends it again, forever.
- ``seamless_credit`` / ``seamless_credits_record``: money a seamless player's platform
  wallet received (a payout, a refund) goes back to the operator's wallet. The credit row
  is written in the transaction that posted the money (never lost), sent after the commit
  and retried by the sweep with backoff until acknowledged (never doubled: one row per
  payout, ``purpose`` unique, the same transaction id on every retry); then mirrored
  ``player wallet -> operator_wallet``. Late credits alert (log ERROR and the
  ``wallet.call_failed`` webhook) after ``WALLET_CREDIT_ALERT_SECONDS``.
- The retry sweep, the late-call alert and ``seamless_balance``:
  wallet/services/seamless_retry.py.

No HTTP call is ever made inside a database transaction (no lock is held while the operator
answers): every function that calls out checks it first (``check_outside_transactions``).
"""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit, on_commit_logged
from gin_platform.events.webhook_targets import target_url_problem
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from gin_platform.tenancy.principals import Actor
from wallet.ledger.checks import check_amount
from wallet.ledger.keys import AccountKind, house_key, player_key, shard_for
from wallet.ledger.post import post_transfer
from wallet.ledger.skeleton import Locked, posting_make
from wallet.locks import lock_operator_wallet, lock_wallet_calls
from wallet.models import LedgerTransaction, OperatorWallet, WalletCall
from wallet.problems import (
    InsufficientFundsProblem,
    OperatorWalletInvalidProblem,
    ReferenceConflictProblem,
    SeamlessWalletModeProblem,
    WalletModeSwitchRefusedProblem,
    WalletUnavailableProblem,
)
from wallet.seamless_client import wallet_call_send
from wallet.selectors import seamless as selectors
from wallet.selectors.transactions import transaction_entries

logger = logging.getLogger(__name__)

Call = WalletCall
Kind = LedgerTransaction.Kind
# The task that retries a call, by name: the task module imports this one (its body calls
# the service), never the other way round (one direction between services and tasks).
RETRY_TASK = "wallet.tasks.seamless_call_retry"
DEBIT_ATTEMPTS = 3  # quick tries of a debit while the player waits
ROLLBACK_INLINE_ATTEMPTS = 3
CREDIT_INLINE_ATTEMPTS = 2
QUICK_BACKOFF_SECONDS = 0.05  # doubled after each quick try
RETRY_BASE_SECONDS = 5  # the sweep's backoff: 5 s doubling, capped
RETRY_MAX_SECONDS = 600
STALE_DEBIT_SECONDS = 120  # a debit still pending after this lost its request: roll back
STRANDED_DEBIT_SECONDS = 600  # an applied buy-in debit no seat consumed by then: roll back
LEASE_SLACK_SECONDS = 30
MIRROR_KINDS: dict[str, str] = {
    Call.Kind.DEBIT: Kind.SEAMLESS_DEBIT,
    Call.Kind.CREDIT: Kind.SEAMLESS_CREDIT,
    Call.Kind.ROLLBACK: Kind.SEAMLESS_ROLLBACK,
}


def check_outside_transactions() -> None:
    """Refuse to go on inside a database transaction: no lock may be held while the
    operator's wallet answers (every function that calls out checks it first)."""
    if connection.in_atomic_block:
        raise RuntimeError(
            "the seamless wallet never calls the operator inside a database transaction"
        )


def seamless_mode(*, player: Player, currency: str) -> bool:
    """True when a buy-in of ``player`` in ``currency`` goes through the operator's wallet
    (a seamless operator, real money; practice chips never call the operator)."""
    return currency != PRACTICE_CURRENCY and selectors.is_seamless(operator_id=player.operator_id)


def check_transfer_mode(*, player: Player, seamless: bool | None = None) -> None:
    """Deposits and withdrawals exist only in transfer mode (``seamless``: the operator's
    mode, if the caller has read it already)."""
    if seamless is None:
        seamless = selectors.is_seamless(operator_id=player.operator_id)
    if seamless:
        raise SeamlessWalletModeProblem(
            "the operator keeps this player's balance: deposit and withdraw in its wallet"
        )


# --- Settings ------------------------------------------------------------------------------
def _base_url_problem(base_url: str) -> str | None:
    """Why ``base_url`` cannot be a seamless wallet's base URL, or None: the rules of a
    webhook URL (gin_platform.events.webhook_targets: http(s), a valid host that is not and does
    not resolve to a private address, no user name or password, no fragment), and no
    ``?query``, since the platform appends ``/balance``, ``/debit``... to it."""
    if problem := target_url_problem(base_url):
        return problem
    if "?" in base_url:
        return "the URL must not have a ?query: the platform appends /balance, /debit... to it"
    return None


@transaction.atomic
def operator_wallet_set(
    *, operator: Operator, mode: str, base_url: str, timeout_ms: int, actor: Actor
) -> OperatorWallet:
    """Set the operator's wallet mode, URL and timeout (audited). Every value is checked
    here, the one place (``operator-wallet-invalid`` naming the ``field``; the endpoint's
    serializer checks only the JSON types). Switching mode is refused while the operator's
    players have money in platform wallets or open escrows, or wallet calls are in flight
    (``wallet-mode-switch-refused``)."""
    if not isinstance(mode, str) or mode not in OperatorWallet.Mode.values:
        raise OperatorWalletInvalidProblem("mode is transfer or seamless", field="mode")
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise OperatorWalletInvalidProblem("timeout_ms is an integer", field="timeout_ms")
    low, high = OperatorWallet.MIN_TIMEOUT_MS, OperatorWallet.MAX_TIMEOUT_MS
    if not low <= timeout_ms <= high:
        raise OperatorWalletInvalidProblem(f"timeout_ms is {low} to {high}", field="timeout_ms")
    if not isinstance(base_url, str):
        raise OperatorWalletInvalidProblem("base_url is a string", field="base_url")
    if problem := _base_url_problem(base_url):
        raise OperatorWalletInvalidProblem(f"base_url: {problem}", field="base_url")
    if mode == OperatorWallet.Mode.SEAMLESS and not base_url:
        raise OperatorWalletInvalidProblem("seamless mode needs a base_url", field="base_url")
    row = lock_operator_wallet(operator_id=operator.pk)
    before = {"mode": row.mode, "base_url": row.base_url, "timeout_ms": row.timeout_ms}
    if mode != row.mode:
        blockers = selectors.wallet_mode_blockers(operator_id=operator.pk)
        if any(blockers.values()):
            raise WalletModeSwitchRefusedProblem(
                "empty the players' platform wallets and finish the open games first",
                **blockers,
            )
    row.mode, row.base_url, row.timeout_ms = mode, base_url, timeout_ms
    row.updated_at = timezone.now()
    row.save(update_fields=["mode", "base_url", "timeout_ms", "updated_at"])
    after = {"mode": mode, "base_url": base_url, "timeout_ms": timeout_ms}
    audit_record(
        actor=actor,
        action="operator_wallet.updated",
        obj=row,
        operator=operator,
        data={"before": before, "after": after},
    )
    return row


# --- The call log --------------------------------------------------------------------------
def wallet_call_audit(call: WalletCall, actor: Actor, action: str, **data: Any) -> None:
    """The audit row of a step of a wallet call (``wallet_call.<action>``): the call as it
    stands, and the step's own ``data``."""
    audit_record(
        actor=actor,
        action=f"wallet_call.{action}",
        obj=call,
        operator=call.operator,
        data={
            "kind": call.kind,
            "player": str(call.player_id),
            "amount": call.amount,
            "currency": call.currency,
            "purpose": call.purpose,
            "status": call.status,
            "attempts": call.attempt_count,
            **data,
        },
    )


def _call_create(
    *,
    player: Player,
    kind: str,
    amount: int,
    currency: str,
    purpose: str,
    reason: str,
    actor: Actor,
    rolls_back: WalletCall | None = None,
    context: dict[str, Any] | None = None,
) -> tuple[WalletCall, bool]:
    """The call for ``purpose``: created pending (audited), or the one already made for it
    (the same kind, player, amount and currency; anything else is ``reference-conflict``)."""
    check_amount(amount)
    try:
        with transaction.atomic():
            call = WalletCall.objects.create(
                operator_id=player.operator_id,
                player=player,
                kind=kind,
                amount=amount,
                currency=currency,
                purpose=purpose,
                reason=reason,
                rolls_back=rolls_back,
                context=context or {},
            )
            wallet_call_audit(call, actor, "created", reason=reason)
            return call, True
    except IntegrityError:
        existing = WalletCall.objects.filter(purpose=purpose).first()
        if existing is None:
            raise
    same = (existing.kind, existing.player_id, existing.amount, existing.currency)
    if same != (kind, player.pk, amount, currency):
        raise ReferenceConflictProblem(
            f"wallet call purpose {purpose!r} was used for another call", reference=purpose
        )
    return existing, False


def _mirror(call: WalletCall, *, actor: Actor, now) -> LedgerTransaction:
    """The ledger's copy of what the operator's wallet did: ``operator_wallet`` (the
    operator's mirror account, the player's house shard) <-> the player's wallet."""
    player = call.player
    debit = call.kind == Call.Kind.DEBIT
    kind = MIRROR_KINDS[call.kind]
    keys = (
        house_key(
            operator_id=player.operator_id,
            kind=AccountKind.OPERATOR_WALLET,
            currency=call.currency,
            shard=shard_for(player.pk),
        ),
        player_key(player_id=player.pk, operator_id=player.operator_id, currency=call.currency),
    )

    def rules(locked: Locked) -> LedgerTransaction:
        operator_wallet, wallet = locked.resolved
        return post_transfer(
            locked=locked.accounts,
            player=player,
            kind=kind,
            reference=f"seamless:{call.pk}",
            source=operator_wallet if debit else wallet,
            target=wallet if debit else operator_wallet,
            amount=call.amount,
            currency=call.currency,
            actor=actor,
            now=now,
            metadata={"wallet_call": str(call.pk), "purpose": call.purpose},
        )

    same = {"kind": kind, "player": player, "amount": call.amount, "currency": call.currency}
    return posting_make(reference=f"seamless:{call.pk}", same=same, keys=keys, rules=rules)


def _retry_delay(attempts: int) -> float:
    delay = min(RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0), RETRY_MAX_SECONDS)
    return delay + random.uniform(0, delay * 0.1)


def _payload(call: WalletCall) -> dict[str, Any]:
    body = {
        "transaction_id": str(call.pk),
        "player_id": call.player.external_ref,
        "currency": call.currency,
        "amount": money_dict(call.amount, call.currency)["amount"],
        "reason": call.reason,
        "reference": call.purpose,
    }
    if call.rolls_back_id is not None:
        body["rolls_back"] = str(call.rolls_back_id)
    if call.context:
        body["context"] = call.context
    return body


def _claim(call_id: Any, *, timeout_ms: int) -> bool:
    """Take the call for one attempt (a lease on ``next_attempt_at``): two workers never
    send the same attempt at once, and a worker that dies only delays the retry."""
    now = timezone.now()
    lease = timedelta(seconds=timeout_ms / 1000 + LEASE_SLACK_SECONDS)
    return bool(
        WalletCall.objects.filter(
            pk=call_id, status=Call.Status.PENDING, next_attempt_at__lte=now
        ).update(next_attempt_at=now + lease)
    )


def wallet_call_attempt(call_id: Any, *, actor: Actor, quick: bool) -> WalletCall:
    """One attempt of a pending call: claim it, send it, record the answer. ``quick``: a
    retry may follow at once (a debit the player waits for), else after the backoff."""
    check_outside_transactions()
    call = WalletCall.objects.select_related("player", "operator").get(pk=call_id)
    config = selectors.operator_wallet_get(operator_id=call.operator_id)
    if call.status != Call.Status.PENDING or config is None or not config.base_url:
        return call
    if not _claim(call.pk, timeout_ms=config.timeout_ms):
        return call
    actions: dict[str, str] = {Call.Kind.DEBIT: "debit", Call.Kind.CREDIT: "credit"}
    action = actions.get(call.kind, "rollback")
    answer = wallet_call_send(
        base_url=config.base_url,
        secret=call.operator.webhook_secret,
        timeout_ms=config.timeout_ms,
        action=action,
        payload=_payload(call),
    )
    return _record(call.pk, outcome=answer.outcome, error=answer.error, actor=actor, quick=quick)


@transaction.atomic
def _record(call_id: Any, *, outcome: str, error: str, actor: Actor, quick: bool) -> WalletCall:
    """Record one answer under the call's row lock (a concurrent attempt that was answered
    first wins; this one then changes nothing)."""
    call = WalletCall.objects.get(pk=call_id)
    ids = [call.pk] + ([call.rolls_back_id] if call.rolls_back_id else [])
    locked = lock_wallet_calls(*ids)
    call = locked[call.pk]
    if call.status != Call.Status.PENDING:
        return call
    now = timezone.now()
    call.attempt_count += 1
    if outcome == "applied":
        call.status, call.acknowledged_at, call.last_error = Call.Status.APPLIED, now, ""
        if call.kind != Call.Kind.ROLLBACK:
            call.ledger_transaction = _mirror(call, actor=actor, now=now)
        else:
            debit = locked[call.rolls_back_id]
            if debit.status == Call.Status.APPLIED:  # undo its mirror too
                call.ledger_transaction = _mirror(call, actor=actor, now=now)
            debit.status = Call.Status.ROLLED_BACK
            debit.save(update_fields=["status"])
            wallet_call_audit(debit, actor, "rolled_back", rollback=str(call.pk))
    elif outcome == "refused" and call.kind == Call.Kind.DEBIT:
        call.status, call.acknowledged_at, call.last_error = Call.Status.REFUSED, now, error
    else:
        call.last_error = error[:64]
        delay = 0 if quick else _retry_delay(call.attempt_count)
        call.next_attempt_at = now + timedelta(seconds=delay)
    call.save()
    wallet_call_audit(
        call, actor, call.status if call.status != Call.Status.PENDING else "attempt_failed"
    )
    return call


# --- Debits and rollbacks ------------------------------------------------------------------
def seamless_debit(
    *,
    player: Player,
    amount: int,
    currency: str,
    purpose: str,
    actor: Actor,
    reason: str = "buy_in",
    context: dict[str, Any] | None = None,
) -> WalletCall:
    """Take ``amount`` from the player's balance in the operator's wallet and mirror it into
    the player's platform wallet (the buy-in then moves it to the escrow). Raises
    ``insufficient-funds`` (refused) or ``wallet-unavailable`` (no answer: its rollback is
    tried first; not acknowledged, the problem says ``rollback_pending`` and the sweep sends
    it until it is). ``context`` goes with the request as its ``context`` (the player's play
    session, docs/player-protection.md). Never inside a transaction."""
    check_outside_transactions()
    if currency != player.wallet_currency:
        raise SeamlessWalletModeProblem(
            f"seamless players play in their wallet currency ({player.wallet_currency})"
        )
    call, _ = _call_create(
        player=player,
        kind=Call.Kind.DEBIT,
        amount=amount,
        currency=currency,
        purpose=purpose,
        reason=reason,
        actor=actor,
        context=context,
    )
    for attempt in range(DEBIT_ATTEMPTS):
        call = wallet_call_attempt(call.pk, actor=actor, quick=True)
        if call.status != Call.Status.PENDING:
            break
        if attempt + 1 < DEBIT_ATTEMPTS:
            time.sleep(QUICK_BACKOFF_SECONDS * 2**attempt)
    if call.status == Call.Status.APPLIED:
        return call
    if call.status == Call.Status.REFUSED:
        raise InsufficientFundsProblem(
            gettext("Your casino wallet refused the buy-in."),
            needed=money_dict(amount, currency),
        )
    seamless_rollback(debit=call, actor=actor)
    raise seamless_debit_unavailable(debit=call)


def seamless_rollback(*, debit: WalletCall, actor: Actor) -> WalletCall | None:
    """Roll a debit back (its own transaction id, ``rolls_back`` naming the debit). A pending
    debit is marked ``unknown`` first, so a late answer can no longer apply it here; the
    operator refuses the debit's id from now on. Tried a few times at once, then by the
    sweep until acknowledged. Returns the rollback call, or None when the debit was refused
    (nothing to roll back)."""
    check_outside_transactions()
    with transaction.atomic():
        locked = lock_wallet_calls(debit.pk)[debit.pk]
        if locked.status == Call.Status.REFUSED or locked.consumed_by_id is not None:
            return None  # refused: nothing to undo; consumed: its seat holds the money
        if locked.status == Call.Status.PENDING:
            locked.status = Call.Status.UNKNOWN
            locked.save(update_fields=["status"])
            wallet_call_audit(locked, actor, "unknown")
        rollback, _ = _call_create(
            player=locked.player,
            kind=Call.Kind.ROLLBACK,
            amount=locked.amount,
            currency=locked.currency,
            purpose=f"rollback:{locked.pk}",
            reason="rollback",
            actor=actor,
            rolls_back=locked,
        )
    return _send_now(rollback.pk, actor=actor, attempts=ROLLBACK_INLINE_ATTEMPTS)


def seamless_debit_consume(
    *, debit: WalletCall, ledger_transaction: LedgerTransaction, actor: Actor
) -> WalletCall:
    """Inside the seat's transaction, after its buy-in: the debit's money is in the escrow
    now. Under the debit's row lock, so the sweep can never roll back a debit whose seat
    was taken; a debit already rolled back (or being) refuses the seat instead
    (``wallet-unavailable``), and the seat's transaction rolls back."""
    with transaction.atomic():
        locked = lock_wallet_calls(debit.pk)[debit.pk]
        if locked.status != Call.Status.APPLIED or hasattr(locked, "rollback"):
            raise seamless_debit_unavailable(debit=locked)
        if locked.consumed_by_id is None:
            locked.consumed_by = ledger_transaction
            locked.save(update_fields=["consumed_by"])
            wallet_call_audit(locked, actor, "consumed", buy_in=ledger_transaction.reference)
        return locked


def seamless_debit_unavailable(*, debit: WalletCall) -> WalletUnavailableProblem:
    """The ``wallet-unavailable`` problem of a buy-in debit that bought no seat, as its
    rollback stands now (read again here, so call it after the rollback was tried):
    ``rollback_pending`` while the debit is not known to be undone (the operator has not
    acknowledged its rollback yet, so the operator's wallet may still hold ``amount``; the
    platform keeps sending it, next at ``rollback_next_attempt_at``), with the debit's and
    the rollback's transaction ids, which the operator reconciles by."""
    debit = WalletCall.objects.get(pk=debit.pk)
    rollback = WalletCall.objects.filter(rolls_back_id=debit.pk).first()
    pending = debit.status not in (Call.Status.ROLLED_BACK, Call.Status.REFUSED)
    money = money_dict(debit.amount, debit.currency)
    cause = (
        "the operator's wallet debit of this buy-in was rolled back before the seat took it"
        if debit.ledger_transaction_id is not None
        else "the operator's wallet did not answer the buy-in's debit"
    )
    if pending:
        detail = (
            f"{cause}; its rollback is not acknowledged yet, so the operator's wallet may hold "
            f"{money['amount']} {money['currency']} of the player's until it is: the platform "
            "keeps sending it"
        )
    else:
        detail = f"{cause}; it was rolled back and nothing is charged"
    return WalletUnavailableProblem(
        detail,
        transaction_id=str(debit.pk),
        amount=money,
        rollback_pending=pending,
        rollback_transaction_id=None if rollback is None else str(rollback.pk),
        rollback_next_attempt_at=rollback.next_attempt_at.isoformat()
        if pending and rollback is not None and rollback.status == Call.Status.PENDING
        else None,
    )


def _send_now(call_id: Any, *, actor: Actor, attempts: int) -> WalletCall:
    """A few quick tries; still pending: left to the retry task and the sweep."""
    call = WalletCall.objects.get(pk=call_id)
    for attempt in range(attempts):
        call = wallet_call_attempt(call_id, actor=actor, quick=attempt + 1 < attempts)
        if call.status != Call.Status.PENDING:
            return call
        if attempt + 1 < attempts:
            time.sleep(QUICK_BACKOFF_SECONDS * 2**attempt)
    _schedule_retry(call)
    return call


def _schedule_retry(call: WalletCall) -> None:
    # Eager Celery (tests, demo) ignores the countdown: that early run finds the call not
    # due yet and leaves it to the sweep.
    delay = max((call.next_attempt_at - timezone.now()).total_seconds(), 0)
    enqueue_on_commit(RETRY_TASK, str(call.pk), countdown=delay)


# --- Credits -------------------------------------------------------------------------------
def seamless_credit(
    *,
    player: Player,
    amount: int,
    currency: str,
    purpose: str,
    actor: Actor,
    reason: str = "return",
) -> WalletCall:
    """Give ``amount`` of the player's platform wallet back to the operator's wallet: the row
    commits first, one or two tries now, then the retry task and the sweep until it is
    acknowledged. The same ``purpose`` again returns the same call (never a second credit)."""
    check_outside_transactions()
    call, _ = _call_create(
        player=player,
        kind=Call.Kind.CREDIT,
        amount=amount,
        currency=currency,
        purpose=purpose,
        reason=reason,
        actor=actor,
    )
    return _send_now(call.pk, actor=actor, attempts=CREDIT_INLINE_ATTEMPTS)


def seamless_credits_record(
    *, ledger_transaction: LedgerTransaction, actor: Actor
) -> list[WalletCall]:
    """Inside the transaction that posted a payout, refund, void or confiscation: one pending
    credit per seamless player whose platform wallet it credited (purpose
    ``credit:<reference>:<player id>``; reason ``refund`` for a refund, void or
    confiscation, else ``payout``), sent once the caller commits. In the same transaction
    as the money, so a credit can be neither lost (a crash after the commit leaves it to
    the sweep) nor made twice."""
    if ledger_transaction.currency == PRACTICE_CURRENCY:
        return []
    # Each wallet's own operator decides (a network game pays players of several operators,
    # its transaction's operator is the network's).
    totals: dict[Any, int] = {}
    currencies: dict[Any, str] = {}
    # Read with the posting by a refund or settlement; asked here otherwise.
    seamless: dict[Any, bool] = dict(ledger_transaction.seamless_by_operator or {})
    for entry in transaction_entries(ledger_transaction=ledger_transaction):
        if entry.account.kind != AccountKind.PLAYER or entry.amount <= 0:
            continue
        operator_id = entry.account.operator_id
        if operator_id not in seamless:
            seamless[operator_id] = selectors.is_seamless(operator_id=operator_id)
        if not seamless[operator_id]:
            continue
        totals[entry.account.player_id] = totals.get(entry.account.player_id, 0) + entry.amount
        currencies[entry.account.player_id] = entry.currency
    if not totals:
        return []
    players = {p.pk: p for p in Player.objects.filter(pk__in=list(totals))}
    # A void gives each player's stake back, a confiscation a victim's losses: a refund to
    # the operator's wallet too.
    refunds = (Kind.REFUND, Kind.VOID, Kind.CONFISCATION)
    reason = "refund" if ledger_transaction.kind in refunds else "payout"
    calls = [
        _call_create(
            player=players[player_id],
            kind=Call.Kind.CREDIT,
            amount=amount,
            currency=currencies[player_id],
            purpose=f"credit:{ledger_transaction.reference}:{player_id}",
            reason=reason,
            actor=actor,
        )[0]
        for player_id, amount in sorted(totals.items(), key=lambda item: str(item[0]))
    ]
    for call in calls:
        on_commit_logged(
            partial(_send_now, call.pk, actor=actor, attempts=CREDIT_INLINE_ATTEMPTS),
            what=f"sending wallet credit {call.pk}",
        )
    return calls
