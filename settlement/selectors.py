"""Settlement's reads, in one place: settlements scoped to the caller (an operator, or a
player of that game), the rows the reports are built from, the network's members and names,
reconciliation runs and the statements' check against the ledger.

The reports (reports.py, network.py), the back-office player page (backoffice.py) and the
charts make no query of their own: they are built from these reads and from the other
apps' selectors (the ledger's through ``wallet.selectors``, never its models).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from games.selectors import match_result
from gin_platform.http.problems import NotFoundProblem, ValidationProblem
from gin_platform.models import Operator, Player
from gin_platform.money import CurrencyError, normalize_currency, to_minor
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.selectors import as_id
from settlement.models import ReconciliationRun, Settlement
from wallet.selectors.backoffice import operators_with_network_positions
from wallet.selectors.reconciliation import escrow_payouts_by_player

if TYPE_CHECKING:
    from games.engine import MatchResult, MultiMatchResult
    from games.models import Match


def report_currency(value: str | None) -> str | None:
    """A currency filter from the query string: a known code, or a validation problem."""
    if not value:
        return None
    try:
        return normalize_currency(value)
    except CurrencyError as exc:
        raise ValidationProblem(
            gettext("One or more fields are invalid"), errors={"currency": [str(exc)]}
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
    members = Operator.objects.filter(pk__in=operators_with_network_positions())
    if network_id is not None:
        members = members.exclude(pk=network_id)
    return list(members.order_by("slug"))


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
    pk = as_id(match_id)
    settlement = (
        None
        if pk is None
        else Settlement.objects.filter(_visible_to(operator), match_id=pk).distinct().first()
    )
    if settlement is None:
        raise NotFoundProblem(f"No settlement for game {match_id}")
    return settlement


def settlement_get_for_player(*, player: Player, match_id: object) -> Settlement:
    """A player reads the statement of a game they played, and no other."""
    pk = as_id(match_id)
    settlement = (
        None
        if pk is None
        else Settlement.objects.filter(match_id=pk, match__seats__player=player).distinct().first()
    )
    if settlement is None:
        raise NotFoundProblem(f"No settlement of yours for game {match_id}")
    return settlement


def finished_match_result(match: Match) -> MatchResult | MultiMatchResult:
    """The result of a finished (or settled) game, heads-up or R12: by then one is always
    stored (the CHECK ``match_finished_has_result``)."""
    if match.result is None:
        raise ValueError(f"match {match.pk} has no result: it is not finished")
    return match_result(match.result)


def reconciliation_runs() -> QuerySet[ReconciliationRun]:
    return ReconciliationRun.objects.all()


def statement_ledger_mismatches() -> list[str]:
    """Settlements whose statement and ledger disagree: each player's payout in the
    statement must equal what the settlement transaction's escrow lines tagged with that
    player paid out (every player, the loser included, has lines of their own)."""
    paid = escrow_payouts_by_player(
        transaction_ids=Settlement.objects.values("ledger_transaction_id")
    )
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


# --- The daily report's rows (settlement/reports.py) ------------------------------------
def report_settlements(
    *,
    start: datetime,
    end: datetime,
    operator: Operator | None = None,
    sandbox: bool | None = None,
    currency: str | None = None,
) -> QuerySet[Settlement]:
    """The settlements of ``[start, end)`` a report covers, oldest first, with their
    operator and match: one operator's, or (``operator`` None) every operator's of one mode
    (``sandbox``); optionally of one currency (already checked: ``report_currency``)."""
    settlements = Settlement.objects.filter(settled_at__gte=start, settled_at__lt=end)
    if operator is not None:
        settlements = settlements.filter(operator=operator)
    else:
        settlements = settlements.filter(operator__is_sandbox=bool(sandbox))
    if currency:
        settlements = settlements.filter(currency=currency)
    return settlements.select_related("operator", "match").order_by("settled_at", "pk")


def player_external_refs(*, player_ids: Collection[str]) -> dict[tuple[object, str], str]:
    """Each player's ``external_ref`` by (operator id, player id as text): a report names a
    player only within that player's own operator."""
    return {
        (operator_id, str(player_id)): ref
        for player_id, operator_id, ref in Player.objects.filter(
            pk__in=set(player_ids)
        ).values_list("pk", "operator_id", "external_ref")
    }
