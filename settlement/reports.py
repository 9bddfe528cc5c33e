"""Back-office reports per UTC day, operator and currency, in two tables of their own grain.

Every figure is read from the stored settlements (their match's result and their statement)
for the same cut-off, so the same period gives the same numbers every time, and the totals
equal the ledger's.

``totals``: one row per day x operator x currency.
- games: settlements posted that day;
- player_games: seats in those games (a heads-up game counts twice), the sum of the
  players table's ``games``;
- turnover: stakes and cashier amounts taken into the escrows of those games;
- fees: what the house fee accounts received (the platform's revenue);
- payouts: what left those escrows for the players (turnover - fees);
- bonus_points: line, target and zero-point bonus points awarded (Money Play, R10);
- ggr: gross gaming revenue. In a peer-to-peer game the operator's GGR is the rake it
  keeps, so ggr = fees + tournament_fees;
- ngr: net gaming revenue: ggr minus what was handed back that day: fees given back by
  reversals and manual adjustments credited to players (net of debits), as the ledger
  posted them that day (``wallet.selectors.backoffice.revenue_corrections``), and minus the
  day's promotion cost;
- tournament_fees: the tournaments' entry fees the operator's house fee received that day
  (R14; a network tournament's: each operator's share);
- promotion: what the operator's promotions cost that day: overlays, freeroll pools and
  granted tickets, less overlays returned and tickets expired
  (``wallet.selectors.backoffice.tournament_revenue``).
A day with only corrections or tournament money has a row with no games.

``players``: one row per day x operator x currency x player, named by the operator's own
``external_ref`` (an operator's report shows only its own players):
- games: settled games the player sat in;
- staked: what the player put into those escrows (sums to the day's turnover);
- paid: what the escrows paid back to the player (sums to the day's payouts);
- net: paid - staked (sums to minus the day's fees).

So every numeric column adds up to what it says: no figure is repeated on another row.
A period is [from, to) in UTC; a day covers [00:00, 24:00) UTC of its date.

Sandbox operators (test mode, docs/api.md "Sandbox") are kept apart: every row says its
``mode`` (live or test), and the all-operators report covers one mode, live unless asked,
so test money is never counted in live totals.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from django.utils.translation import gettext

from games.engine import MatchResult, MultiMatchResult
from gin_platform.admin.changelist import (
    safe_cell,  # the same formula-injection rule as the admin's CSV
)
from gin_platform.http.problems import ValidationProblem
from gin_platform.models import Operator
from gin_platform.money import to_decimal_string, to_minor
from settlement.problems import ReportRangeProblem
from settlement.selectors import (
    finished_match_result,
    player_external_refs,
    report_currency,
    report_settlements,
)
from wallet.selectors.backoffice import revenue_corrections, tournament_revenue

MAX_DAYS = 366
TABLES = ("totals", "players")
MODES = ("live", "test")


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


def parse_table(raw: str | None) -> str:
    """Which table a CSV download holds: ``totals`` (the default) or ``players``."""
    return _one_of(raw, TABLES, field="table")


def parse_mode(raw: str | None) -> str:
    """Which operators an all-operators report covers: ``live`` (the default) or ``test``
    (the sandboxes)."""
    return _one_of(raw, MODES, field="mode")


def _one_of(raw: str | None, choices: tuple[str, ...], *, field: str) -> str:
    """``raw`` when it is one of ``choices``, the first of them when absent; else 400 on
    ``field``."""
    if not raw:
        return choices[0]
    if raw not in choices:
        raise ValidationProblem(
            gettext("One or more fields are invalid"),
            errors={field: [f"one of: {', '.join(choices)}"]},
        )
    return raw


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
class TotalsRow:
    """One day x operator x currency. Amounts in minor units of ``currency``."""

    day: date
    operator: str
    currency: str
    games: int = 0
    player_games: int = 0
    turnover: int = 0
    fees: int = 0
    payouts: int = 0
    bonus_points: int = 0
    mode: str = "live"
    fee_reversals: int = 0  # fees handed back by reversals posted that day
    adjustments: int = 0  # manual adjustments credited to players that day (net)
    tournament_fees: int = 0  # tournaments' entry fees received that day (R14)
    promotion: int = 0  # overlays, freeroll pools and granted tickets, net, that day

    @property
    def ggr(self) -> int:
        """Gross gaming revenue: the rake the operator keeps, games' fees and tournaments'."""
        return self.fees + self.tournament_fees

    @property
    def ngr(self) -> int:
        """Net gaming revenue: GGR minus fee reversals, adjustments and promotion cost of the
        day."""
        return self.ggr - self.fee_reversals - self.adjustments - self.promotion


@dataclass
class PlayerRow:
    """One player on one day x operator x currency. Amounts in minor units of ``currency``."""

    day: date
    operator: str
    currency: str
    player_id: str
    external_ref: str = ""
    games: int = 0
    staked: int = 0
    paid: int = 0
    net: int = 0
    mode: str = "live"


@dataclass
class DailyReport:
    start: datetime
    end: datetime
    totals: list[TotalsRow] = field(default_factory=list)
    players: list[PlayerRow] = field(default_factory=list)


def daily_report(
    *,
    operator: Operator | None,
    start: datetime,
    end: datetime,
    currency: str | None = None,
    mode: str = "live",
) -> DailyReport:
    """The report for ``[start, end)``: one operator's, or every operator's of ``mode``
    (staff: the live operators', or with ``test`` the sandboxes')."""
    sandbox = None if operator is not None else parse_mode(mode) == "test"
    currency = report_currency(currency)
    settlements = report_settlements(
        start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    totals: dict[tuple[date, str, str], TotalsRow] = {}
    players: dict[tuple[date, str, str, str], PlayerRow] = {}
    operator_of: dict[str, UUID] = {}  # slug -> operator id, to keep player lines in tenancy
    for settlement in settlements:
        day = settlement.settled_at.astimezone(UTC).date()
        slug = settlement.operator.slug
        operator_of[slug] = settlement.operator_id
        key = (day, slug, settlement.currency)
        row = totals.setdefault(key, TotalsRow(*key, mode=settlement.operator.mode))
        result = finished_match_result(settlement.match)  # heads-up, or R12
        row.games += 1
        row.player_games += len(result.seats)
        row.turnover += settlement.escrow_total
        row.fees += settlement.fee
        row.payouts += settlement.escrow_total - settlement.fee
        row.bonus_points += _bonus_points(result)
        staked = {seat.player_id: seat.amount for seat in result.seats}
        for entry in settlement.statement["players"]:
            player_id = str(entry["player_id"])
            line = players.setdefault(
                (*key, player_id),
                PlayerRow(*key, player_id=player_id, mode=settlement.operator.mode),
            )
            net = to_minor(entry["net"]["amount"], settlement.currency)
            line.games += 1
            line.staked += staked[player_id]
            line.paid += staked[player_id] + net
            line.net += net
    _add_corrections(
        totals, start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    _name_players(players.values(), operator_of)
    return DailyReport(
        start=start,
        end=end,
        totals=[totals[key] for key in sorted(totals)],
        players=sorted(
            players.values(),
            key=lambda p: (p.day, p.operator, p.currency, p.external_ref, p.player_id),
        ),
    )


def _add_corrections(
    totals: dict[tuple[date, str, str], TotalsRow],
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None,
    sandbox: bool | None,
    currency: str | None,
) -> None:
    """Fee reversals and adjustments, tournaments' fees and promotion cost posted in the
    period, on the day they were posted (a row of their own when nothing was settled that
    day)."""
    mode = operator.mode if operator is not None else ("test" if sandbox else "live")

    def row_of(key: tuple[date, str, str]) -> TotalsRow:
        if key not in totals:
            totals[key] = TotalsRow(*key, mode=mode)
        return totals[key]

    corrections = revenue_corrections(
        start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    for key, (fee_reversals, adjustments) in corrections.items():
        row = row_of(key)
        row.fee_reversals += fee_reversals
        row.adjustments += adjustments
    tournaments = tournament_revenue(
        start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    for key, (fees, promotion) in tournaments.items():
        row = row_of(key)
        row.tournament_fees += fees
        row.promotion += promotion


def _bonus_points(result: MatchResult | MultiMatchResult) -> int:
    """Line, target and zero-point bonus points awarded (Money Play; 0 otherwise)."""
    scores = getattr(result, "money_play", None)  # R12 results have none
    if scores is None:
        return 0
    return sum(scores.line_bonus) + sum(scores.target_bonus) + sum(scores.zero_point_bonus)


def _name_players(lines, operator_of: dict[str, UUID]) -> None:
    """Each line's ``external_ref``, read from the players of that line's operator only."""
    lines = list(lines)
    refs = player_external_refs(player_ids={line.player_id for line in lines})
    for line in lines:
        line.external_ref = refs.get((operator_of[line.operator], line.player_id), "")


def amount(minor: int, currency: str) -> str:
    return to_decimal_string(minor, currency)


def totals_dict(row: TotalsRow) -> dict[str, Any]:
    return _row_dict(row, CSV_COLUMNS["totals"])


def player_dict(row: PlayerRow) -> dict[str, Any]:
    return _row_dict(row, CSV_COLUMNS["players"])


def _row_dict(row: TotalsRow | PlayerRow, columns: tuple[str, ...]) -> dict[str, Any]:
    """A row as the JSON report and the CSV give it: its table's columns in order, the day
    in ISO form, the amounts as decimal strings of the row's currency."""
    values: dict[str, Any] = {}
    for column in columns:
        value = getattr(row, column)
        if column == "day":
            value = value.isoformat()
        elif column in AMOUNT_COLUMNS:
            value = amount(value, row.currency)
        values[column] = value
    return values


def report_json(report: DailyReport) -> dict[str, Any]:
    return {
        "from": report.start.isoformat(),
        "to": report.end.isoformat(),
        "totals": [totals_dict(row) for row in report.totals],
        "players": [player_dict(row) for row in report.players],
    }


# The columns of each table, in the order of the JSON rows and the CSV's; the money columns
# (minor units in the rows) are given as decimal strings.
AMOUNT_COLUMNS = frozenset(
    {
        "turnover",
        "fees",
        "payouts",
        "ggr",
        "ngr",
        "tournament_fees",
        "promotion",
        "staked",
        "paid",
        "net",
    }
)
CSV_COLUMNS = {
    "totals": (
        "day",
        "operator",
        "currency",
        "games",
        "player_games",
        "turnover",
        "fees",
        "payouts",
        "bonus_points",
        "mode",  # added with the sandbox, so earlier columns keep their places
        "ggr",  # added last for the same reason
        "ngr",
        "tournament_fees",  # added with the tournaments (R14), after everything else
        "promotion",
    ),
    "players": (
        "day",
        "operator",
        "currency",
        "player_id",
        "external_ref",
        "games",
        "staked",
        "paid",
        "net",
        "mode",
    ),
}


def report_csv(report: DailyReport, *, table: str = "totals") -> str:
    """One table as RFC 4180 text: CRLF line ends, quoting where needed, one line per row
    of that table's grain (nothing repeated, so every numeric column sums); no cell can
    start a spreadsheet formula."""
    columns = CSV_COLUMNS[table]
    rows = (
        [totals_dict(row) for row in report.totals]
        if table == "totals"
        else [player_dict(row) for row in report.players]
    )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([safe_cell(row[column]) for column in columns])
    return buffer.getvalue()
