"""A player's own money history (docs/player-protection.md "History"): the movements of their
wallet over a window, each counted as the kind of posting it is (a reversal as the posting it
undoes), their sums per UTC day or month, the wallet's balance before a moment, and what
each game came to for the player. Player protection reads these; the wallet knows games
only as their escrow's ``game_ref``.

What the sums mean, exactly (every figure is a sum of the wallet account's ledger entries,
minor units of the wallet's currency):
- ``deposits``: the entries of deposits (a reversed deposit takes its amount back out);
- ``withdrawals``: minus the entries of withdrawals, so a positive figure;
- ``play``: the entries of play postings (``PLAY_KINDS``): what came back from games
  (refunds, voids, payouts, tournament prizes, restitutions) less what went into them
  (buy-ins, confiscated winnings); positive when the player is up;
- ``other``: every other movement (a staff adjustment; in seamless mode the operator's
  wallet moving money into and out of the transit wallet);
so ``deposits - withdrawals + play + other`` is the wallet's change over the window.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.db.models import Case, CharField, F, QuerySet, Sum, Value, When
from django.db.models.functions import Coalesce, TruncDay, TruncMonth

from gin_platform.models import Player
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.transactions import kinds_with_reversals

Kind = LedgerTransaction.Kind

# What a game came to for its player: stakes put in and what came back of them. A
# confiscation takes a colluder's winnings back (or gives a victim theirs) after the games.
PLAY_KINDS = (
    Kind.BUY_IN,
    Kind.REFUND,
    Kind.VOID,
    Kind.SETTLEMENT,
    Kind.TOURNAMENT_PRIZE,
    Kind.CONFISCATION,
)
# The postings of one game (by its ``game_ref``; a tournament's too): a confiscation is a
# case's, not a game's.
GAME_KINDS = (Kind.BUY_IN, Kind.REFUND, Kind.VOID, Kind.SETTLEMENT, Kind.TOURNAMENT_PRIZE)
CATEGORIES: dict[str, tuple[str, ...]] = {
    "deposit": (Kind.DEPOSIT,),
    "withdrawal": (Kind.WITHDRAWAL,),
    "play": PLAY_KINDS,
    "other": tuple(
        kind
        for kind in Kind.values
        if kind not in (Kind.DEPOSIT, Kind.WITHDRAWAL, Kind.REVERSAL, *PLAY_KINDS)
    ),
}
PERIODS = ("day", "month")
# The closed sets of a movement's fields, for the API's enums (value, label): a posting's
# kind, and the kind it counts as (never a reversal: that counts as the kind it undoes).
KINDS = Kind.choices
COUNTED_KINDS = [(kind, label) for kind, label in KINDS if kind != Kind.REVERSAL]


def category_of(kind: str) -> str:
    """The category (``CATEGORIES``) of a posting counted as ``kind``."""
    return next(name for name, kinds in CATEGORIES.items() if kind in kinds)


def counted_kind() -> Case:
    """The kind an entry's posting counts as: its own, or for a reversal the kind of the
    posting it undoes (a reversal is never reversed, so one step is enough)."""
    return Case(
        When(transaction__kind=Kind.REVERSAL, then=F("transaction__reverses__kind")),
        default=F("transaction__kind"),
        output_field=CharField(),
    )


def _entries(*, account: Account | None, start: datetime, end: datetime) -> QuerySet[LedgerEntry]:
    if account is None:
        return LedgerEntry.objects.none()
    return LedgerEntry.objects.filter(account=account, created_at__gte=start, created_at__lt=end)


def wallet_movements(
    *, account: Account | None, start: datetime, end: datetime, category: str | None = None
) -> QuerySet[LedgerEntry]:
    """The wallet's entries in [``start``, ``end``), each with its transaction and
    ``counted_kind``; only those of ``category`` when given. Unordered: the caller pages
    them (newest first)."""
    rows = (
        _entries(account=account, start=start, end=end)
        .annotate(counted_kind=counted_kind())
        .select_related("transaction")
    )
    if category is not None:
        rows = rows.filter(counted_kind__in=CATEGORIES[category])
    return rows


@dataclass(frozen=True)
class MovementSums:
    """Signed sums of a wallet's entries by the kind each counts as (minor units)."""

    by_kind: Mapping[str, int]

    def _sum(self, category: str) -> int:
        return sum(amount for kind, amount in self.by_kind.items() if kind in CATEGORIES[category])

    @property
    def deposits(self) -> int:
        return self._sum("deposit")

    @property
    def withdrawals(self) -> int:
        return -self._sum("withdrawal")

    @property
    def net_deposits(self) -> int:
        return self.deposits - self.withdrawals

    @property
    def play(self) -> int:
        return self._sum("play")

    @property
    def other(self) -> int:
        return self._sum("other")

    @property
    def change(self) -> int:
        return sum(self.by_kind.values())


def sums_added(parts: Collection[MovementSums]) -> MovementSums:
    """The sums of several periods as one (kind by kind: nothing is rounded)."""
    total: dict[str, int] = {}
    for part in parts:
        for kind, amount in part.by_kind.items():
            total[kind] = total.get(kind, 0) + amount
    return MovementSums(by_kind=dict(sorted(total.items())))


@dataclass(frozen=True)
class PeriodSums:
    """A UTC day, or a UTC calendar month (``start`` its first day), with its sums."""

    start: date
    sums: MovementSums


def wallet_period_sums(
    *, account: Account | None, start: datetime, end: datetime, period: str
) -> list[PeriodSums]:
    """The wallet's entries in [``start``, ``end``) summed per UTC ``period`` (``day`` or
    ``month``) and counted kind, newest period first; periods without an entry are left
    out. The first and last periods hold only what is inside the window."""
    trunc = TruncDay if period == "day" else TruncMonth
    rows = (
        _entries(account=account, start=start, end=end)
        .annotate(period_start=trunc("created_at", tzinfo=UTC), kind=counted_kind())
        .values("period_start", "kind")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    grouped: dict[date, dict[str, int]] = {}
    for row in rows:
        day = row["period_start"].astimezone(UTC).date()
        grouped.setdefault(day, {})[row["kind"]] = int(row["total"])
    return [
        PeriodSums(start=day, sums=MovementSums(by_kind=dict(sorted(grouped[day].items()))))
        for day in sorted(grouped, reverse=True)
    ]


def wallet_balance_before(*, account: Account | None, at: datetime) -> int:
    """The wallet's balance just before ``at``: the sum of its entries made before then."""
    if account is None:
        return 0
    total = LedgerEntry.objects.filter(account=account, created_at__lt=at).aggregate(
        total=Coalesce(Sum("amount"), Value(0))
    )["total"]
    return int(total)


@dataclass(frozen=True)
class GameNet:
    """What one game came to for one player, in their wallet's currency (practice chips
    for a practice game): refunds, voids and payouts less buy-ins (reversals counted like
    the posting they undo)."""

    amount: int
    currency: str


def game_nets(*, player: Player | uuid.UUID, game_refs: Collection[str]) -> dict[str, GameNet]:
    """Per ``game_ref``, the player's net from the entries on their own wallets (money and
    practice chips). A game with no entry of theirs is left out."""
    if not game_refs:
        return {}
    rows = (
        LedgerEntry.objects.filter(
            # The entry's own player too: the index on (player, transaction) finds them.
            player=player,
            account__kind=Account.Kind.PLAYER,
            account__player=player,
            transaction__game_ref__in=list(game_refs),
        )
        .filter(kinds_with_reversals(GAME_KINDS, prefix="transaction__"))
        .values("transaction__game_ref", "currency")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return {
        str(row["transaction__game_ref"]): GameNet(
            amount=int(row["total"]), currency=row["currency"]
        )
        for row in rows
    }
