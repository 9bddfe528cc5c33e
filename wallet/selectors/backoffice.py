"""Wallet reads for the back office and the reports, in one place: a player's wallets and
open stakes (the player page, settlement/backoffice.py), the ledger's revenue corrections
and tournaments' fees and promotion cost per day (the daily report's GGR and NGR,
settlement/reports.py), the network statement's ledger lines (settlement/network.py), and
the money between two players (integrity's cases). Reads across operators: callers scope
them (staff scope, or the operator asking for its own report).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import NamedTuple

from django.db.models import Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce, TruncDate

from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.balances import contribution_entries, escrow_is_settled
from wallet.selectors.transactions import kinds_with_reversals

Kind = LedgerTransaction.Kind
POSITION = Account.Kind.NETWORK_POSITION


# --- Back office (staff pages) ------------------------------------------------------------
def player_account_list(*, player: Player) -> QuerySet[Account]:
    """The player's wallets, one per currency (practice chips: XGC)."""
    return Account.objects.filter(kind=Account.Kind.PLAYER, player=player).order_by("currency")


@dataclass(frozen=True)
class OpenStake:
    """What the player has in one escrow that is not settled yet (buy-ins minus refunds and
    voids)."""

    escrow: Account
    amount: int


def player_open_stakes(*, player: Player) -> list[OpenStake]:
    """The player's money in open escrows (games not settled yet), per escrow."""
    escrows = Account.objects.filter(
        kind=Account.Kind.ESCROW,
        balance__gt=0,
        pk__in=LedgerEntry.objects.filter(player=player, account__kind=Account.Kind.ESCROW).values(
            "account_id"
        ),
    ).order_by("created_at", "pk")
    stakes = []
    for escrow in escrows:
        if escrow_is_settled(escrow=escrow):
            continue
        amount = (
            contribution_entries(escrow=escrow)
            .filter(player=player)
            .aggregate(total=Coalesce(Sum("amount"), Value(0)))["total"]
        )
        if amount:
            stakes.append(OpenStake(escrow=escrow, amount=int(amount)))
    return stakes


# --- Revenue corrections (the daily report's NGR) ------------------------------------------
def revenue_corrections(
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None = None,
    sandbox: bool | None = None,
    currency: str | None = None,
) -> dict[tuple[date, str, str], tuple[int, int]]:
    """Per UTC day x operator slug x currency, what was posted in ``[start, end)`` that
    takes revenue back: fees handed back (the house-fee lines of reversals, as a positive
    amount) and manual adjustments credited to players (credits minus debits, reversed
    adjustments netted). Ledger rows are append-only, so a past period reads the same
    later: a correction counts on the day it is posted, never on the original's."""
    scope = _period_scope(
        start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    fee_lines = LedgerEntry.objects.filter(
        scope, account__kind=Account.Kind.HOUSE_FEE, transaction__kind=Kind.REVERSAL
    )
    adjustment_lines = LedgerEntry.objects.filter(scope, account__kind=Account.Kind.PLAYER).filter(
        kinds_with_reversals((Kind.ADJUSTMENT,), prefix="transaction__")
    )
    found = _day_sums((fee_lines, -1), (adjustment_lines, 1))
    return {key: (fees, adjustments) for key, (fees, adjustments) in found.items()}


def tournament_revenue(
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None = None,
    sandbox: bool | None = None,
    currency: str | None = None,
) -> dict[tuple[date, str, str], tuple[int, int]]:
    """Per UTC day x operator slug x currency, what tournaments (R14) posted in ``[start,
    end)``: the entry fees the operator's house fee accounts received (the lines of
    ``tournament_fee`` postings: a network tournament's each operator's share, the rest the
    network's), and the promotion cost, what left the operator's promotion accounts (its
    overlays, freeroll pools and granted tickets, less overlays returned and tickets
    expired, whatever posted it, reversals included). A fee given back by a reversal is a
    revenue correction (``revenue_corrections``)."""
    scope = _period_scope(
        start=start, end=end, operator=operator, sandbox=sandbox, currency=currency
    )
    fee_lines = LedgerEntry.objects.filter(
        scope, account__kind=Account.Kind.HOUSE_FEE, transaction__kind=Kind.TOURNAMENT_FEE
    )
    promotion_lines = LedgerEntry.objects.filter(scope, account__kind=Account.Kind.PROMOTION)
    found = _day_sums((fee_lines, 1), (promotion_lines, -1))
    return {key: (fees, promotion) for key, (fees, promotion) in found.items()}


def _period_scope(
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None,
    sandbox: bool | None,
    currency: str | None,
) -> Q:
    """Ledger lines posted in ``[start, end)`` on the accounts of ``operator`` (or of every
    operator of the ``sandbox`` mode), in ``currency`` when given."""
    scope = Q(transaction__created_at__gte=start, transaction__created_at__lt=end)
    if operator is not None:
        scope &= Q(account__operator=operator)
    if sandbox is not None:
        scope &= Q(account__operator__is_sandbox=sandbox)
    if currency:
        scope &= Q(currency=currency)
    return scope


def _day_sums(
    *columns: tuple[QuerySet[LedgerEntry], int],
) -> dict[tuple[date, str, str], list[int]]:
    """Each of ``columns`` (lines, sign) summed per UTC day of its posting x operator slug x
    currency, signed: one list of sums per key, in the columns' order."""
    found: dict[tuple[date, str, str], list[int]] = {}
    for column, (lines, sign) in enumerate(columns):
        rows = (
            lines.annotate(day=TruncDate("transaction__created_at", tzinfo=UTC))
            .values("day", "account__operator__slug", "currency")
            .annotate(total=Sum("amount"))
            .order_by()
        )
        for row in rows:
            key = (row["day"], row["account__operator__slug"], row["currency"])
            found.setdefault(key, [0] * len(columns))[column] += sign * int(row["total"])
    return found


# --- The network statement's ledger lines (docs/network.md "Settling the network") --------
class SettledNetworkGame(NamedTuple):
    """A network game settled in a statement's period: its settlement transaction, the UTC
    day it was posted, its currency and what its escrow held (every stake)."""

    transaction_id: int
    day: date
    currency: str
    escrow_total: int | None


def network_games_settled(
    *, network: Operator, start: datetime, end: datetime, currency: str | None = None
) -> dict[str, SettledNetworkGame]:
    """The network games (escrows of the network's operator) settled in ``[start, end)`` and
    not reversed, by game_ref; practice chips left out (never settled between operators)."""
    settlements = LedgerTransaction.objects.filter(
        kind=Kind.SETTLEMENT,
        operator=network,
        created_at__gte=start,
        created_at__lt=end,
        reversal__isnull=True,
    ).exclude(currency=PRACTICE_CURRENCY)
    if currency:
        settlements = settlements.filter(currency=currency)
    return {
        _game_ref(row["game_ref"]): SettledNetworkGame(
            row["pk"], row["day"], row["currency"], row["amount"]
        )
        for row in settlements.annotate(day=TruncDate("created_at", tzinfo=UTC)).values(
            "pk", "game_ref", "day", "currency", "amount"
        )
    }


def _game_ref(value: str | None) -> str:
    """The game_ref of a game's settlement, buy-in or refund: they always name their game
    (the column is nullable for the other kinds of transaction)."""
    if value is None:
        raise ValueError("a game's ledger transaction without its game_ref")
    return value


def _position_lines(operator: Operator, currency: str | None) -> QuerySet[LedgerEntry]:
    entries = LedgerEntry.objects.filter(account__operator=operator, account__kind=POSITION)
    entries = entries.exclude(currency=PRACTICE_CURRENCY)
    return entries.filter(currency=currency) if currency else entries


@dataclass(frozen=True)
class PositionDays:
    """An operator's network position over a period: before it per currency
    (``opening``), its movement per UTC day and currency (``moves``), and the parts of that
    movement that net settlements posted (``settled``) and confiscations (``confiscated``:
    a colluder's winnings moved to victims of other operators, integrity's cases)."""

    opening: dict[str, int]
    moves: dict[tuple[date, str], int]
    settled: dict[tuple[date, str], int]
    confiscated: dict[tuple[date, str], int]


def network_position_days(
    *, operator: Operator, start: datetime, end: datetime, currency: str | None = None
) -> PositionDays:
    """The operator's network position lines (practice chips left out) summed before
    ``start`` and per day of ``[start, end)``."""
    entries = _position_lines(operator, currency)
    opening = {
        row["currency"]: int(row["total"])
        for row in entries.filter(created_at__lt=start)
        .values("currency")
        .annotate(total=Sum("amount"))
        .order_by()
    }
    moves: dict[tuple[date, str], int] = defaultdict(int)
    settled: dict[tuple[date, str], int] = defaultdict(int)
    confiscated: dict[tuple[date, str], int] = defaultdict(int)
    rows = (
        entries.filter(created_at__gte=start, created_at__lt=end)
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values("day", "currency", "transaction__kind")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    for row in rows:
        moves[(row["day"], row["currency"])] += int(row["total"])
        if row["transaction__kind"] == Kind.NETWORK_SETTLEMENT:
            settled[(row["day"], row["currency"])] += int(row["total"])
        elif row["transaction__kind"] == Kind.CONFISCATION:
            confiscated[(row["day"], row["currency"])] += int(row["total"])
    return PositionDays(opening=opening, moves=moves, settled=settled, confiscated=confiscated)


@dataclass(frozen=True)
class PositionGameLines:
    """An operator's network position lines in some settled games: per game_ref, its buy-ins
    less refunds and voids (``stakes``); per game_ref and component, its lines in the game's
    settlement (``results``: payout, fee_share, ...)."""

    stakes: dict[str, int]
    results: dict[tuple[str, str], int]


def network_position_game_lines(
    *,
    operator: Operator,
    games: Mapping[str, SettledNetworkGame],
    currency: str | None = None,
) -> PositionGameLines:
    """The operator's position lines in ``games`` (``network_games_settled``)."""
    entries = _position_lines(operator, currency)
    stakes = (
        entries.filter(
            transaction__game_ref__in=list(games),
            transaction__kind__in=(Kind.BUY_IN, Kind.REFUND, Kind.VOID),
        )
        .values("transaction__game_ref")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    results = (
        entries.filter(transaction_id__in=[game.transaction_id for game in games.values()])
        .values("transaction__game_ref", "component")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return PositionGameLines(
        stakes={_game_ref(row["transaction__game_ref"]): int(row["total"]) for row in stakes},
        results={
            (_game_ref(row["transaction__game_ref"]), row["component"]): int(row["total"])
            for row in results
        },
    )


def network_fees_kept(*, network: Operator, transaction_ids: Collection[int]) -> dict[int, int]:
    """Per settlement transaction of ``transaction_ids``, what the network's own house fee
    accounts received (its part of the game's fee)."""
    return {
        row["transaction_id"]: int(row["total"])
        for row in LedgerEntry.objects.filter(
            transaction_id__in=list(transaction_ids),
            account__operator=network,
            account__kind=Account.Kind.HOUSE_FEE,
        )
        .values("transaction_id")
        .annotate(total=Sum("amount"))
        .order_by()
    }


def operators_with_network_positions() -> QuerySet:
    """The ids of the operators that have a network position account (members now or
    before, and the network's own operator), as a subquery."""
    return Account.objects.filter(kind=POSITION).values("operator_id")


# --- Integrity: the money between two players ----------------------------------------------
@dataclass(frozen=True)
class PairGameFlow:
    """What one game both players sat in did to each wallet (buy-ins, refunds, voids and
    the settlement, net; minor units of ``currency``), by player id (as text)."""

    game_ref: str
    currency: str
    net: dict[str, int]


def pair_money_flow(*, player_ids: Collection[object]) -> list[PairGameFlow]:
    """The games (by ``game_ref``) in whose ledger transactions both players' wallets
    moved, oldest first, each with every listed player's net result in it: the money flow
    between a pair that integrity's cases show (a positive net won, a negative lost)."""
    ids = {str(pk) for pk in player_ids}
    rows = (
        LedgerEntry.objects.filter(
            account__kind=Account.Kind.PLAYER,
            account__player_id__in=ids,
            transaction__game_ref__isnull=False,
        )
        .exclude(currency=PRACTICE_CURRENCY)
        .values("transaction__game_ref", "account__player_id", "currency")
        .annotate(total=Sum("amount"), first=Min("created_at"))
        .order_by()
    )
    by_game: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    first: dict[tuple[str, str], datetime] = {}
    for row in rows:
        key = (str(row["transaction__game_ref"]), row["currency"])  # never null: filtered
        by_game[key][str(row["account__player_id"])] = int(row["total"])
        first[key] = min(first.get(key, row["first"]), row["first"])
    shared = [key for key, nets in by_game.items() if set(nets) == ids]
    shared.sort(key=lambda key: (first[key], key))
    return [
        PairGameFlow(game_ref=game_ref, currency=currency, net=by_game[(game_ref, currency)])
        for game_ref, currency in shared
    ]
