"""The answers of a player's history as the API gives them (amounts as decimal strings with
their currency), and the rows of its CSV downloads (the same fields, flattened)."""

from __future__ import annotations

from typing import Any

from gin_platform.money import money_dict, to_decimal_string
from protection.history import HistorySummary, MatchHistoryRow, MovementRow
from wallet.selectors.history import MovementSums


def _money(amount: int | None, currency: str) -> dict[str, str] | None:
    return None if amount is None else money_dict(amount, currency)


def match_row(row: MatchHistoryRow, *, hands_url: str) -> dict[str, Any]:
    match = row.record
    return {
        "match_id": match.match_id,
        "status": match.status,
        "variant": match.variant,
        "is_practice": match.is_practice,
        "seats": match.seats,
        "position": match.position,
        "outcome": match.outcome,
        "place": match.place,
        "opponents": [
            {
                "position": other.position,
                "screen_name": other.screen_name,
                "display_name": other.display_name,
                "operator": other.operator,
            }
            for other in match.opponents
        ],
        "stake": _money(match.stake, match.currency),
        "stake_per_point": _money(match.stake_per_point, match.currency),
        "buy_in": money_dict(match.buy_in, match.currency),
        "net": money_dict(row.net.amount, row.net.currency),
        "hands": match.hands,
        "hands_url": hands_url,
        "created_at": match.created_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


def movement_row(row: MovementRow) -> dict[str, Any]:
    return {
        "transaction_id": row.transaction_id,
        "created_at": row.created_at,
        "kind": row.kind,
        "counts_as": row.counts_as,
        "category": row.category,
        "amount": money_dict(row.amount, row.currency),
        "balance_after": money_dict(row.balance_after, row.currency),
        "match_id": row.match_id,
    }


def _figures(sums: MovementSums, currency: str) -> dict[str, Any]:
    return {
        "deposits": money_dict(sums.deposits, currency),
        "withdrawals": money_dict(sums.withdrawals, currency),
        "net_deposits": money_dict(sums.net_deposits, currency),
        "play_net": money_dict(sums.play, currency),
        "other": money_dict(sums.other, currency),
        "change": money_dict(sums.change, currency),
    }


def period_label(start: Any, period: str) -> str:
    """A day as 2026-12-06, a month as 2026-12."""
    return start.isoformat() if period == "day" else start.strftime("%Y-%m")


def summary_body(summary: HistorySummary) -> dict[str, Any]:
    currency = summary.currency
    return {
        "currency": currency,
        "period": summary.period,
        "window_start": summary.window.start,
        "window_end": summary.window.end,
        "opening_balance": money_dict(summary.opening_balance, currency),
        "closing_balance": money_dict(summary.closing_balance, currency),
        "totals": {
            **_figures(summary.totals, currency),
            "by_kind": {
                kind: money_dict(amount, currency)
                for kind, amount in summary.totals.by_kind.items()
            },
        },
        "periods": [
            {"period": period_label(part.start, summary.period), **_figures(part.sums, currency)}
            for part in summary.periods
        ],
    }


# --- CSV rows: one line per row, amounts as decimal strings, a currency column ---------------
MATCH_COLUMNS = (
    "match_id",
    "created_at",
    "started_at",
    "finished_at",
    "variant",
    "is_practice",
    "status",
    "outcome",
    "place",
    "position",
    "opponents",
    "currency",
    "stake",
    "stake_per_point",
    "buy_in",
    "net_currency",
    "net",
    "hands",
)
MOVEMENT_COLUMNS = (
    "transaction_id",
    "created_at",
    "kind",
    "counts_as",
    "category",
    "currency",
    "amount",
    "balance_after",
    "match_id",
)
SUMMARY_COLUMNS = (
    "period",
    "currency",
    "deposits",
    "withdrawals",
    "net_deposits",
    "play_net",
    "other",
    "change",
)


def _amount(amount: int | None, currency: str) -> str | None:
    return None if amount is None else to_decimal_string(amount, currency)


def _when(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def match_csv_row(row: MatchHistoryRow) -> dict[str, Any]:
    match = row.record
    return {
        "match_id": match.match_id,
        "created_at": _when(match.created_at),
        "started_at": _when(match.started_at),
        "finished_at": _when(match.finished_at),
        "variant": match.variant,
        "is_practice": "true" if match.is_practice else "false",
        "status": match.status,
        "outcome": match.outcome,
        "place": match.place,
        "position": match.position,
        # Screen names: the one name every seat has, at every table.
        "opponents": "; ".join(other.screen_name or "" for other in match.opponents),
        "currency": match.currency,
        "stake": _amount(match.stake, match.currency),
        "stake_per_point": _amount(match.stake_per_point, match.currency),
        "buy_in": _amount(match.buy_in, match.currency),
        "net_currency": row.net.currency,
        "net": _amount(row.net.amount, row.net.currency),
        "hands": match.hands,
    }


def movement_csv_row(row: MovementRow) -> dict[str, Any]:
    return {
        "transaction_id": row.transaction_id,
        "created_at": _when(row.created_at),
        "kind": row.kind,
        "counts_as": row.counts_as,
        "category": row.category,
        "currency": row.currency,
        "amount": _amount(row.amount, row.currency),
        "balance_after": _amount(row.balance_after, row.currency),
        "match_id": row.match_id,
    }


def summary_csv_rows(summary: HistorySummary) -> list[dict[str, Any]]:
    currency = summary.currency
    return [
        {
            "period": period_label(part.start, summary.period),
            "currency": currency,
            "deposits": _amount(part.sums.deposits, currency),
            "withdrawals": _amount(part.sums.withdrawals, currency),
            "net_deposits": _amount(part.sums.net_deposits, currency),
            "play_net": _amount(part.sums.play, currency),
            "other": _amount(part.sums.other, currency),
            "change": _amount(part.sums.change, currency),
        }
        for part in summary.periods
    ]
