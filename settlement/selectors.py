"""Reads of settlements, scoped to the caller (operator, or a player of that game)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet, Sum

from gin_platform.models import Operator, Player
from gin_platform.money import CurrencyError, normalize_currency, to_minor
from gin_platform.problems import NotFoundProblem, ValidationProblem
from gin_platform.selectors import as_id
from settlement.models import ReconciliationRun, Settlement
from wallet.models import Account, LedgerEntry, LedgerTransaction


def report_currency(value: str | None) -> str | None:
    """A currency filter from the query string: a known code, or a validation problem."""
    if not value:
        return None
    try:
        return normalize_currency(value)
    except CurrencyError as exc:
        raise ValidationProblem(
            "One or more fields are invalid", errors={"currency": [str(exc)]}
        ) from exc


def settlement_list(
    *,
    operator: Operator,
    currency: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> QuerySet[Settlement]:
    settlements = Settlement.objects.filter(operator=operator)
    if currency := report_currency(currency):
        settlements = settlements.filter(currency=currency)
    if start:
        settlements = settlements.filter(settled_at__gte=start)
    if end:
        settlements = settlements.filter(settled_at__lt=end)
    return settlements


def settlement_get_for_operator(*, operator: Operator, match_id: object) -> Settlement:
    settlement = Settlement.objects.filter(operator=operator, match_id=as_id(match_id)).first()
    if settlement is None:
        raise NotFoundProblem(f"No settlement for game {match_id}")
    return settlement


def settlement_get_for_player(*, player: Player, match_id: object) -> Settlement:
    """A player reads the statement of a game they played, and no other."""
    settlement = (
        Settlement.objects.filter(
            operator=player.operator, match_id=as_id(match_id), match__seats__player=player
        )
        .distinct()
        .first()
    )
    if settlement is None:
        raise NotFoundProblem(f"No settlement of yours for game {match_id}")
    return settlement


def reconciliation_runs() -> QuerySet[ReconciliationRun]:
    return ReconciliationRun.objects.all()


def statement_ledger_mismatches() -> list[str]:
    """Settlements whose statement and ledger disagree: each player's payout in the
    statement must equal what the settlement transaction's escrow lines tagged with that
    player paid out (every player, the loser included, has lines of their own)."""
    paid: dict[tuple[int, str], int] = {}
    rows = (
        LedgerEntry.objects.filter(
            transaction__kind=LedgerTransaction.Kind.SETTLEMENT,
            transaction__settlement__isnull=False,
            account__kind=Account.Kind.ESCROW,
            player__isnull=False,
        )
        .values("transaction_id", "player_id")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    for row in rows:
        paid[(row["transaction_id"], str(row["player_id"]))] = -row["total"]
    problems = []
    for match_id, transaction_id, currency, statement in Settlement.objects.values_list(
        "match_id", "ledger_transaction_id", "currency", "statement"
    ).order_by("pk"):
        for player in statement["players"]:
            stated = to_minor(player["payout"]["amount"], currency)
            posted = paid.get((transaction_id, player["player_id"]))
            if posted != stated:
                problems.append(
                    f"STATEMENT game {match_id}: player {player['player_id']} is paid {stated} "
                    f"in the statement, {posted} in ledger transaction #{transaction_id}"
                )
    return problems
