"""Reads of settlements, scoped to the caller (operator, or a player of that game)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet, Sum

from gin_platform.http.problems import NotFoundProblem, ValidationProblem
from gin_platform.models import Operator, Player
from gin_platform.money import CurrencyError, normalize_currency, to_minor
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.selectors import as_id
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


def network_operator_names(operator_ids) -> dict[str, str] | None:
    """Operator names by id when the network reveals them to other operators' players and
    operators (``Network.reveal_operators``), else None (docs/network.md)."""
    network = platform_selectors.network_get()
    if network is None or not network.reveal_operators:
        return None
    return {
        str(pk): name
        for pk, name in Operator.objects.filter(pk__in=list(operator_ids)).values_list("pk", "name")
    }


def network_member_operators() -> list[Operator]:
    """Every operator with a network position (a member now or before), the network's own
    operator left out, by slug."""
    network_id = platform_selectors.network_operator_id()
    with_positions = Account.objects.filter(kind=Account.Kind.NETWORK_POSITION).values(
        "operator_id"
    )
    return list(
        Operator.objects.filter(pk__in=with_positions).exclude(pk=network_id).order_by("slug")
    )


def _visible_to(operator: Operator) -> Q:
    """The operator's own settlements, and the network games one of its players sat in."""
    network_id = platform_selectors.network_operator_id()
    own = Q(operator=operator)
    if network_id is None:
        return own
    return own | Q(operator_id=network_id, match__seats__player__operator=operator)


def settlement_list(
    *,
    operator: Operator,
    currency: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> QuerySet[Settlement]:
    settlements = Settlement.objects.filter(
        pk__in=Settlement.objects.filter(_visible_to(operator)).values("pk")
    )
    if currency := report_currency(currency):
        settlements = settlements.filter(currency=currency)
    if start:
        settlements = settlements.filter(settled_at__gte=start)
    if end:
        settlements = settlements.filter(settled_at__lt=end)
    return settlements


def settlement_get_for_operator(*, operator: Operator, match_id: object) -> Settlement:
    settlement = (
        Settlement.objects.filter(_visible_to(operator), match_id=as_id(match_id))
        .distinct()
        .first()
    )
    if settlement is None:
        raise NotFoundProblem(f"No settlement for game {match_id}")
    return settlement


def settlement_get_for_player(*, player: Player, match_id: object) -> Settlement:
    """A player reads the statement of a game they played, and no other."""
    settlement = (
        Settlement.objects.filter(match_id=as_id(match_id), match__seats__player=player)
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
