"""Turn wallet rows into the API's plain shapes (amounts as decimal strings plus currency).

Player-facing shapes show only the player's own lines: their wallet entries, their stake
and payout lines in an escrow and the FX legs of their own conversions; never another
player's wallet, nor a house account's balance.
"""

from __future__ import annotations

from typing import Any

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from wallet.fx import rate_string
from wallet.models import Account, LedgerEntry, LedgerTransaction, SelfExclusion
from wallet.selectors.balances import wallet_balance
from wallet.selectors.limits import LimitState, break_ends, break_list
from wallet.selectors.rates import display_amount
from wallet.selectors.reconciliation import ReconciliationReport
from wallet.selectors.seamless import is_seamless, pending_rollbacks

BreakKind = SelfExclusion.Kind


def _money(amount: int | None, currency: str) -> dict[str, str] | None:
    return None if amount is None or not currency else money_dict(amount, currency)


def _amount(amount: int | None, currency: str) -> str | None:
    return None if amount is None else money_dict(amount, currency)["amount"]


def _fx(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {
        "base": snapshot["base"],
        "quote": snapshot["quote"],
        "rate": snapshot["rate"],
        "as_of": snapshot["as_of"],
        "source": snapshot["source"],
        "rounding": snapshot.get("rounding", ""),
        "base_amount": money_dict(snapshot["amount"], snapshot["base"]),
        "quote_amount": money_dict(snapshot["converted"], snapshot["quote"]),
    }


def player_transaction(txn: LedgerTransaction, *, player: Player, operator_view: bool) -> dict:
    """One transaction as seen by (or for) one player."""
    entries: list[LedgerEntry] = getattr(txn, "player_entries", None) or list(
        txn.entries.filter(player=player).select_related("account").order_by("pk")
    )
    # A network game's position lines are between the operators' books, not the player's.
    entries = [e for e in entries if e.account.kind != Account.Kind.NETWORK_POSITION]
    wallet_entries = [e for e in entries if e.account.kind == Account.Kind.PLAYER]
    wallet_currency = wallet_entries[0].currency if wallet_entries else ""
    reversal = txn.reversal if hasattr(txn, "reversal") else None
    body = {
        "id": txn.pk,
        "reference": txn.reference,
        "kind": txn.kind,
        "created_at": txn.created_at,
        "game_ref": txn.game_ref,
        "amount": _money(txn.amount, txn.currency),
        "wallet_change": _money(sum(e.amount for e in wallet_entries), wallet_currency)
        if wallet_entries
        else None,
        "balance_after": _money(wallet_entries[-1].balance_after, wallet_currency)
        if wallet_entries
        else None,
        "reverses": txn.reverses_id,
        "reversed_by": reversal.pk if reversal else None,
        "entries": [
            {
                "account": e.account.kind,
                "component": e.component,
                "amount": _amount(e.amount, e.currency),
                "currency": e.currency,
                "balance_after": _amount(e.balance_after, e.currency)
                if e.account.kind == Account.Kind.PLAYER
                else None,
            }
            for e in entries
        ],
        "fx": [_fx(s) for s in txn.fx if s.get("player") == str(player.pk)],
    }
    if operator_view:
        body["metadata"] = _metadata_for(txn.metadata, operator_id=player.operator_id)
    return body


def _metadata_for(metadata: dict, *, operator_id) -> dict:
    """A transaction's metadata as one operator may read it: a network game's fee split
    shows that operator's own line only (docs/network.md), a confiscation its own players'
    refunds only (docs/wallet.md "Confiscation")."""
    mine = str(operator_id)
    refunds = metadata.get("refunds")
    if isinstance(refunds, list):
        metadata = metadata | {
            "refunds": [
                {key: value for key, value in row.items() if key != "operator_id"}
                for row in refunds
                if isinstance(row, dict) and row.get("operator_id") == mine
            ]
        }
    network = metadata.get("network")
    if not isinstance(network, dict):
        return metadata
    return metadata | {
        "network": network
        | {
            "operators": [
                {key: value for key, value in row.items() if key != "operator_id"}
                for row in network.get("operators", [])
                if row.get("operator_id") == mine
            ]
        }
    }


def ledger_transaction(txn: LedgerTransaction) -> dict:
    """The whole transaction, every line (back office)."""
    reversal = txn.reversal if hasattr(txn, "reversal") else None
    return {
        "id": txn.pk,
        "operator_id": txn.operator_id,
        "reference": txn.reference,
        "kind": txn.kind,
        "created_at": txn.created_at,
        "game_ref": txn.game_ref,
        "player_id": txn.player_id,
        "amount": _money(txn.amount, txn.currency),
        "reverses": txn.reverses_id,
        "reversed_by": reversal.pk if reversal else None,
        "entries": [
            {
                "account_id": e.account_id,
                "account": e.account.kind,
                "player_id": e.player_id,
                "component": e.component,
                "amount": _amount(e.amount, e.currency),
                "currency": e.currency,
                "balance_after": _amount(e.balance_after, e.currency),
            }
            for e in txn.entries.select_related("account").order_by("pk")
        ],
        "fx": [_fx(s) for s in txn.fx],
        "metadata": txn.metadata,
        "actor_type": txn.actor_type,
        "actor_id": txn.actor_id,
    }


def wallet_summary(
    *, player: Player, seamless: bool | None = None, operator_balance: int | None = None
) -> dict:
    """``seamless``: the operator's wallet mode if the caller already read it.
    ``operator_balance``: minor units the operator's wallet reported (seamless mode), asked
    by the caller outside any transaction (None: not asked, or no answer)."""
    balance = wallet_balance(player=player)
    if seamless is None:
        seamless = is_seamless(operator_id=player.operator_id)
    rollbacks = pending_rollbacks(player_id=player.pk) if seamless else []
    breaks = break_ends(player=player)
    return {
        "player_id": player.pk,
        "wallet_mode": "seamless" if seamless else "transfer",
        "balance": display_amount(amount=balance, currency=player.wallet_currency, player=player),
        "operator_balance": None
        if operator_balance is None
        else display_amount(
            amount=operator_balance, currency=player.wallet_currency, player=player
        ),
        "practice_balance": money_dict(
            wallet_balance(player=player, currency=PRACTICE_CURRENCY),
            PRACTICE_CURRENCY,
        ),
        "kyc_status": player.kyc_status,
        "self_excluded_until": breaks[BreakKind.SELF_EXCLUSION],
        "timed_out_until": breaks[BreakKind.TIME_OUT],
        "rollback_pending": bool(rollbacks),
        "pending_rollbacks": [pending_rollback(call) for call in rollbacks],
    }


def pending_rollback(call) -> dict:
    """A rollback of a buy-in debit the operator has not acknowledged yet (seamless mode)."""
    return {
        "transaction_id": call.pk,
        "rolls_back": call.rolls_back_id,
        "amount": money_dict(call.amount, call.currency),
        "since": call.created_at,
        "next_attempt_at": call.next_attempt_at,
        "attempts": call.attempt_count,
    }


def limit_state(state: LimitState) -> dict:
    code = state.currency
    return {
        "kind": state.kind,
        "period": state.period,
        "currency": code,
        "amount": _amount(state.amount, code),
        "pending_amount": _amount(state.pending_amount, code)
        if state.pending_effective_at
        else None,
        "pending_effective_at": state.pending_effective_at,
        "pending_removal": state.pending_effective_at is not None and state.pending_amount is None,
        "used": _amount(state.used, code),
        "remaining": _amount(state.remaining, code),
        "window_start": state.window.start,
        "window_end": state.window.end,
    }


def limit_change(change) -> dict:
    code = change.currency
    return {
        "id": change.pk,
        "kind": change.kind,
        "period": change.period,
        "currency": code,
        "old_amount": _amount(change.old_amount, code),
        "new_amount": _amount(change.new_amount, code),
        "created_at": change.created_at,
        "effective_at": change.effective_at,
        "actor_type": change.actor_type,
        "actor_id": change.actor_id,
    }


def break_row(row: SelfExclusion) -> dict:
    """A time-out or a self-exclusion the player took."""
    return {
        "id": row.pk,
        "kind": row.kind,
        "starts_at": row.starts_at,
        "ends_at": row.ends_at,
        "days": (row.ends_at - row.starts_at).days,
        "reason": row.reason,
        "created_at": row.created_at,
    }


def self_exclusion_status(*, player: Player, days_allowed: tuple[int, int]) -> dict:
    """Whether the player is self-excluded now, until when, the periods allowed
    (``days_allowed``: the shortest and the longest), every self-exclusion they took."""
    until = break_ends(player=player)[BreakKind.SELF_EXCLUSION]
    return {
        "self_excluded": until is not None,
        "until": until,
        "minimum_days": days_allowed[0],
        "maximum_days": days_allowed[1],
        "exclusions": [
            break_row(row) for row in break_list(player=player, kind=BreakKind.SELF_EXCLUSION)
        ],
    }


def time_out_status(*, player: Player, days_allowed: tuple[int, ...]) -> dict:
    """Whether the player is taking a time-out now, until when, the time-outs allowed, every
    time-out they took."""
    until = break_ends(player=player)[BreakKind.TIME_OUT]
    return {
        "timed_out": until is not None,
        "until": until,
        "allowed_days": list(days_allowed),
        "time_outs": [break_row(row) for row in break_list(player=player, kind=BreakKind.TIME_OUT)],
    }


def cashier_caps(caps) -> dict:
    code = caps.currency
    body: dict[str, Any] = {"operator_id": caps.operator_id, "currency": code}
    for name in caps.FIELDS:
        body[name] = _amount(getattr(caps, name), code)
    body["updated_at"] = caps.updated_at
    return body


def exchange_rate(rate) -> dict:
    return {
        "id": rate.pk,
        "base": rate.base,
        "quote": rate.quote,
        "rate": rate_string(rate.rate),
        "as_of": rate.as_of,
        "source": rate.source,
        "created_at": rate.created_at,
    }


def reconciliation(report: ReconciliationReport) -> dict:
    return {
        "ok": report.ok,
        "checked_at": report.checked_at,
        "accounts_checked": report.accounts_checked,
        "transactions_checked": report.transactions_checked,
        "entries_checked": report.entries_checked,
        "lines": report.lines,
    }


def operator_wallet(row) -> dict:
    """The operator's wallet settings; no row yet: the defaults (transfer)."""
    if row is None:
        return {"mode": "transfer", "base_url": "", "timeout_ms": 3000, "updated_at": None}
    return {
        "mode": row.mode,
        "base_url": row.base_url,
        "timeout_ms": row.timeout_ms,
        "updated_at": row.updated_at,
    }


def approval(request) -> dict:
    """A four-eyes approval request; the payload's amounts as decimal strings."""
    payload = dict(request.payload)
    if "amount" in payload and payload.get("currency"):
        payload["amount"] = _amount(payload["amount"], payload["currency"])
    if isinstance(payload.get("caps"), dict):
        payload["caps"] = {
            name: _amount(value, payload["currency"]) for name, value in payload["caps"].items()
        }
    return {
        "id": request.pk,
        "kind": request.kind,
        "operator_id": request.operator_id,
        "payload": payload,
        "reason": request.reason,
        "status": request.status,
        "proposed_by": request.proposed_by.get_username(),
        "proposed_at": request.proposed_at,
        "decided_by": request.decided_by.get_username() if request.decided_by else None,
        "decided_at": request.decided_at,
        "decision_note": request.decision_note,
        "result_ref": request.result_ref,
    }
