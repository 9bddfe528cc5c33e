"""The network statement (docs/network.md "Settling the network"): per UTC day, member
operator and currency, what the operator's players played in network games and what the
operator and the network owe each other. Read from the ledger only (the operator's own
network position lines, wallet/services/network.py), so it agrees with the ledger to the
minor unit and the same cut-off always gives the same statement. Every ledger read is
``wallet.selectors.backoffice``'s (settlement reads the ledger only through wallet's
selectors); this module only adds the lines up.

One row per day x operator x currency (practice chips are never settled between operators,
so XGC has no row), for the games settled that day:
- games: network games settled that day in which the operator's players had a stake;
- turnover: their stakes in those games (buy-ins minus refunds);
- payouts: what those games paid the operator's players;
- fees: the operator's share of those games' fees (by contribution, less the network's
  ``fee_share_bps``);
- net: what those games added to the operator's position, the sum of its position lines in
  their buy-ins, refunds and settlements (= turnover - payouts - fees; positive: the
  operator owes the network that much more; negative: the network owes it);
- settled: net settlements posted that day (their effect on the position: a payment by the
  operator is negative);
- confiscated: confiscations posted that day (integrity's cases: a colluder's winnings
  given to victims of other operators), their effect on the position: positive when the
  operator's colluding player gave, negative when its players were made whole;
- position: the operator's position at the end of the day (everything posted before then,
  open games' stakes included): positive, owed to the network; negative, owed by it.
The network's own row (``operator`` = the network's slug, staff only), from its own lines:
games, turnover and payouts of every network game settled that day (its members' sums:
every stake, and what the games paid the players), fees = what the network kept of their
fees, net = what those games added to its position (= -fees: the members owe it what it
kept), position its own. The network's position is the opposite of its members' sum, so
its ``owed_to_network`` is what the members owe it on balance (a negative position) and
``owed_by_network`` what it owes them. Per day and currency the nets of all the rows, the
network's included, sum to zero, and so do their positions.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from gin_platform.admin.changelist import safe_cell
from gin_platform.models import Operator
from gin_platform.money import to_decimal_string
from settlement.selectors import report_currency
from wallet.selectors import backoffice as ledger_reads
from wallet.selectors.backoffice import PositionDays, SettledNetworkGame


@dataclass
class NetworkRow:
    """One day x operator x currency. Amounts in minor units of ``currency``."""

    day: date
    operator: str
    currency: str
    games: int = 0
    turnover: int = 0
    payouts: int = 0
    fees: int = 0
    net: int = 0
    settled: int = 0
    confiscated: int = 0
    position: int = 0
    is_network: bool = False

    @property
    def owed_to_network(self) -> int:
        """What is owed to the network: a member's positive position, or (the network's own
        row, whose position is the opposite of its members' sum) a negative one."""
        return max(-self.position if self.is_network else self.position, 0)

    @property
    def owed_by_network(self) -> int:
        return max(self.position if self.is_network else -self.position, 0)


@dataclass(frozen=True)
class NetworkStatement:
    start: datetime
    end: datetime
    rows: list[NetworkRow]


def _days(start: datetime, end: datetime) -> list[date]:
    """The UTC days of ``[start, end)`` up to today (no row for a day yet to come)."""
    first = start.astimezone(UTC).date()
    last = min((end - timedelta(microseconds=1)).astimezone(UTC).date(), datetime.now(UTC).date())
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def network_statement(
    *,
    network: Operator,
    operators: list[Operator],
    start: datetime,
    end: datetime,
    currency: str | None = None,
    include_network: bool = False,
) -> NetworkStatement:
    """The statement of ``operators`` (and of the network itself with ``include_network``)
    for ``[start, end)``. Days with nothing settled and no position are left out."""
    code = report_currency(currency)
    settled = ledger_reads.network_games_settled(
        network=network, start=start, end=end, currency=code
    )
    rows: list[NetworkRow] = []
    for operator in operators:
        rows += _member_rows(operator, settled, start=start, end=end, currency=code)
    if include_network:
        rows += _network_rows(network, settled, start=start, end=end, currency=code)
    rows.sort(key=lambda r: (r.day, r.is_network, r.operator, r.currency))
    return NetworkStatement(start=start, end=end, rows=rows)


def _fill_positions(
    rows: dict[tuple[date, str], NetworkRow],
    *,
    make: Callable[[date, str], NetworkRow],
    days: PositionDays,
    start: datetime,
    end: datetime,
) -> None:
    currencies = set(days.opening) | {c for _, c in days.moves} | {c for _, c in rows}
    for code in sorted(currencies):
        running = days.opening.get(code, 0)
        for day in _days(start, end):
            running += days.moves.get((day, code), 0)
            row = rows.get((day, code))
            if row is None:
                if not running and not days.moves.get((day, code)):
                    continue
                row = rows[(day, code)] = make(day, code)
            row.position = running
            row.settled = days.settled.get((day, code), 0)
            row.confiscated = days.confiscated.get((day, code), 0)


def _member_rows(
    operator: Operator,
    settled: Mapping[str, SettledNetworkGame],
    *,
    start: datetime,
    end: datetime,
    currency: str | None,
) -> list[NetworkRow]:
    lines = ledger_reads.network_position_game_lines(
        operator=operator, games=settled, currency=currency
    )
    rows: dict[tuple[date, str], NetworkRow] = {}

    def make(day: date, code: str) -> NetworkRow:
        return NetworkRow(day=day, operator=operator.slug, currency=code)

    for game_ref, stake in lines.stakes.items():
        if stake <= 0:
            continue
        game = settled[game_ref]
        line = rows.setdefault((game.day, game.currency), make(game.day, game.currency))
        line.games += 1
        line.turnover += stake
        line.net += stake
    for (game_ref, component), total in lines.results.items():
        game = settled[game_ref]
        line = rows.setdefault((game.day, game.currency), make(game.day, game.currency))
        if component == "payout":
            line.payouts -= total
        elif component == "fee_share":
            line.fees -= total
        line.net += total
    days = ledger_reads.network_position_days(
        operator=operator, start=start, end=end, currency=currency
    )
    _fill_positions(rows, make=make, days=days, start=start, end=end)
    return list(rows.values())


def _network_rows(
    network: Operator,
    settled: Mapping[str, SettledNetworkGame],
    *,
    start: datetime,
    end: datetime,
    currency: str | None,
) -> list[NetworkRow]:
    rows: dict[tuple[date, str], NetworkRow] = {}

    def make(day: date, code: str) -> NetworkRow:
        return NetworkRow(day=day, operator=network.slug, currency=code, is_network=True)

    kept = ledger_reads.network_fees_kept(
        network=network, transaction_ids=[game.transaction_id for game in settled.values()]
    )
    for game in settled.values():
        line = rows.setdefault((game.day, game.currency), make(game.day, game.currency))
        line.games += 1
        line.turnover += int(game.escrow_total or 0)  # the escrow's total: every stake
        line.fees += kept.get(game.transaction_id, 0)
    # Its position's side of the members' lines: -stake per buy-in, +payout to each payee's
    # operator, +fee share to each member; in all, minus what it kept.
    lines = ledger_reads.network_position_game_lines(
        operator=network, games=settled, currency=currency
    )
    for game_ref, stake in lines.stakes.items():
        game = settled[game_ref]
        rows.setdefault((game.day, game.currency), make(game.day, game.currency)).net += stake
    for (game_ref, component), total in lines.results.items():
        game = settled[game_ref]
        line = rows.setdefault((game.day, game.currency), make(game.day, game.currency))
        if component == "payout":
            line.payouts += total
        line.net += total
    days = ledger_reads.network_position_days(
        operator=network, start=start, end=end, currency=currency
    )
    _fill_positions(rows, make=make, days=days, start=start, end=end)
    return list(rows.values())


def _amount(minor: int, currency: str) -> str:
    return to_decimal_string(minor, currency)


def row_dict(row: NetworkRow) -> dict[str, Any]:
    code = row.currency
    return {
        "day": row.day.isoformat(),
        "operator": row.operator,
        "currency": code,
        "games": row.games,
        "turnover": _amount(row.turnover, code),
        "payouts": _amount(row.payouts, code),
        "fees": _amount(row.fees, code),
        "net": _amount(row.net, code),
        "settled": _amount(row.settled, code),
        "confiscated": _amount(row.confiscated, code),
        "position": _amount(row.position, code),
        "owed_to_network": _amount(row.owed_to_network, code),
        "owed_by_network": _amount(row.owed_by_network, code),
    }


CSV_COLUMNS = (
    "day",
    "operator",
    "currency",
    "games",
    "turnover",
    "payouts",
    "fees",
    "net",
    "settled",
    "confiscated",
    "position",
    "owed_to_network",
    "owed_by_network",
)


def statement_json(statement: NetworkStatement) -> dict[str, Any]:
    return {
        "from": statement.start.isoformat(),
        "to": statement.end.isoformat(),
        "rows": [row_dict(row) for row in statement.rows],
    }


def statement_csv(statement: NetworkStatement) -> str:
    """RFC 4180 text, one line per row; no cell can start a spreadsheet formula."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(CSV_COLUMNS)
    for row in statement.rows:
        body = row_dict(row)
        writer.writerow([safe_cell(body[column]) for column in CSV_COLUMNS])
    return buffer.getvalue()
