"""Back-office reports per operator, currency and UTC day (issue 6 item 7).

Every figure is read from the ledger (settlement transactions, their entries) and from the
settlements' statements for the same cut-off, so the same period gives the same numbers
every time, and the report's totals equal the ledger's:

- games: settlements posted in the period;
- turnover: stakes and cashier amounts taken into the escrows of those games;
- fees: what the house fee accounts received (the platform's revenue);
- payouts: what left those escrows for the players (turnover - fees);
- bonus_points: line, target and zero-point bonus points awarded (Money Play);
- player P&L: per player, payout minus what they put in (sums to -fees).

A period is [from, to) in UTC; a day row covers [00:00, 24:00) UTC of its date.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from gin_platform.models import Operator
from gin_platform.money import to_decimal_string, to_minor
from settlement.models import Settlement
from settlement.problems import ReportRangeProblem
from settlement.selectors import report_currency

MAX_DAYS = 366
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def parse_period(raw_from: str | None, raw_to: str | None) -> tuple[datetime, datetime]:
    """``from``/``to`` as ISO dates (a date's start, UTC) or ISO date-times (UTC if naive);
    default: yesterday (UTC)."""
    today = datetime.now(UTC).date()
    start = _parse_moment(raw_from) if raw_from else _day_start(today - timedelta(days=1))
    end = _parse_moment(raw_to) if raw_to else start + timedelta(days=1)
    if end <= start:
        raise ReportRangeProblem("`to` must be after `from`")
    if end - start > timedelta(days=MAX_DAYS):
        raise ReportRangeProblem(f"a report covers at most {MAX_DAYS} days")
    return start, end


def _parse_moment(raw: str) -> datetime:
    try:
        if len(raw) == 10:
            return _day_start(date.fromisoformat(raw))
        moment = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ReportRangeProblem(f"{raw!r} is not an ISO date or date-time") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


@dataclass
class ReportRow:
    operator: str
    currency: str
    day: date
    games: int = 0
    turnover: int = 0
    fees: int = 0
    payouts: int = 0
    bonus_points: int = 0
    players: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def daily_report(
    *, operator: Operator | None, start: datetime, end: datetime, currency: str | None = None
) -> list[ReportRow]:
    settlements = Settlement.objects.filter(settled_at__gte=start, settled_at__lt=end)
    if operator is not None:
        settlements = settlements.filter(operator=operator)
    if currency := report_currency(currency):
        settlements = settlements.filter(currency=currency)
    rows: dict[tuple[str, str, date], ReportRow] = {}
    for settlement in settlements.select_related("operator").order_by("settled_at", "pk"):
        day = settlement.settled_at.astimezone(UTC).date()
        key = (settlement.operator.slug, settlement.currency, day)
        row = rows.setdefault(key, ReportRow(*key))
        row.games += 1
        row.turnover += settlement.escrow_total
        row.fees += settlement.fee
        row.payouts += settlement.escrow_total - settlement.fee
        statement = settlement.statement
        bonus = (statement.get("money_play") or {}).get("bonus_points") or {}
        row.bonus_points += sum(sum(points) for points in bonus.values())
        for player in statement["players"]:
            row.players[player["player_id"]] += _minor(player["net"], settlement.currency)
    return [rows[key] for key in sorted(rows)]


def _minor(money: dict[str, str], currency: str) -> int:
    return to_minor(money["amount"], currency)


def report_json(rows: list[ReportRow], *, start: datetime, end: datetime) -> dict[str, Any]:
    return {
        "from": start.isoformat(),
        "to": end.isoformat(),
        "rows": [
            {
                "operator": row.operator,
                "currency": row.currency,
                "day": row.day.isoformat(),
                "games": row.games,
                "turnover": to_decimal_string(row.turnover, row.currency),
                "fees": to_decimal_string(row.fees, row.currency),
                "payouts": to_decimal_string(row.payouts, row.currency),
                "bonus_points": row.bonus_points,
                "player_pnl": [
                    {"player_id": player_id, "net": to_decimal_string(net, row.currency)}
                    for player_id, net in sorted(row.players.items())
                ],
            }
            for row in rows
        ],
    }


CSV_COLUMNS = (
    "operator",
    "currency",
    "day",
    "games",
    "turnover",
    "fees",
    "payouts",
    "bonus_points",
    "player_id",
    "player_net",
)


def report_csv(rows: list[ReportRow]) -> str:
    """RFC 4180: CRLF line ends, quoting where needed; one line per day and player (the day
    totals repeat on each of its lines); no cell can start a spreadsheet formula."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        totals = [
            row.operator,
            row.currency,
            row.day.isoformat(),
            row.games,
            to_decimal_string(row.turnover, row.currency),
            to_decimal_string(row.fees, row.currency),
            to_decimal_string(row.payouts, row.currency),
            row.bonus_points,
        ]
        for player_id, net in sorted(row.players.items()) or [("", None)]:
            net_text = "" if net is None else to_decimal_string(net, row.currency)
            writer.writerow([safe_cell(value) for value in [*totals, player_id, net_text]])
    return buffer.getvalue()


def safe_cell(value: object) -> str:
    """Neutralise spreadsheet formula injection; numbers (even negative) stay numbers."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_PREFIXES) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return text.strip() == text and text.lstrip("-").replace(".", "", 1).isdigit()
