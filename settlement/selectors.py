"""Reads of settlements, scoped to the caller (operator, or a player of that game)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from gin_platform.models import Operator, Player
from gin_platform.money import CurrencyError, normalize_currency
from gin_platform.problems import NotFoundProblem, ValidationProblem
from gin_platform.selectors import as_id
from settlement.models import ReconciliationRun, Settlement


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
