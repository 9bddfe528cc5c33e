"""Integrity's reads (docs/integrity.md "Cases"): alerts, cases and their evidence, the
confiscation requests, players' reports. Staff reads are scoped by the caller's operator
scope (``operator_ids``: None for every operator): a case is visible to a scoped staff
user when one of its players belongs to an operator in their scope. An operator reads its
own players' links only (docs/integrity.md "Who sees what")."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Q, QuerySet

from games import integrity_selectors as games_reads
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator, Player
from gin_platform.tenancy.selectors import as_id
from integrity.models import (
    Alert,
    Case,
    CaseAction,
    CaseNote,
    Confiscation,
    PlayerLink,
    PlayerReport,
    Sanction,
)
from wallet.selectors import backoffice as ledger_reads

Scope = frozenset | None


def _players_in_scope(operator_ids: Scope) -> Q:
    if operator_ids is None:
        return Q()
    return Q(player__operator_id__in=operator_ids) | Q(other_player__operator_id__in=operator_ids)


# --- Alerts ---------------------------------------------------------------------------------
def alert_list(*, operator_ids: Scope, status: str | None = None) -> QuerySet[Alert]:
    """Alerts about players in scope, newest first, optionally of one status."""
    alerts = Alert.objects.filter(_players_in_scope(operator_ids)).select_related(
        "player", "other_player"
    )
    if status:
        alerts = alerts.filter(status=status)
    return alerts.order_by("-created_at", "-pk")


def alerts_get(*, alert_ids: Collection[object], operator_ids: Scope) -> list[Alert]:
    """The alerts of ``alert_ids`` (each in scope; 404 naming the first that is not)."""
    wanted = [as_id(value) for value in alert_ids]
    found = {
        alert.pk: alert
        for alert in Alert.objects.filter(pk__in=[pk for pk in wanted if pk is not None])
        .filter(_players_in_scope(operator_ids))
        .select_related("player", "other_player")
    }
    for value, pk in zip(alert_ids, wanted, strict=True):
        if pk not in found:
            raise NotFoundProblem(f"No alert {value}")
    return [found[pk] for pk in dict.fromkeys(wanted) if pk is not None]


def open_alerts_to_group() -> QuerySet[Alert]:
    """Open alerts not in any case, oldest first (the automatic grouping's input)."""
    return Alert.objects.filter(status=Alert.Status.OPEN, case__isnull=True).order_by(
        "created_at", "pk"
    )


# --- Cases ------------------------------------------------------------------------------------
def case_player_ids(case: Case) -> set[Any]:
    """The players a case is about: the subjects of its alerts."""
    ids: set[Any] = set()
    for player_id, other_id in Alert.objects.filter(case=case).values_list(
        "player_id", "other_player_id"
    ):
        ids.add(player_id)
        if other_id is not None:
            ids.add(other_id)
    return ids


def case_players(case: Case) -> list[Player]:
    """The case's players, with their operators, in a stable order."""
    return list(
        Player.objects.filter(pk__in=case_player_ids(case))
        .select_related("operator")
        .order_by("created_at", "pk")
    )


def case_operator_ids(case: Case) -> set[Any]:
    """The operators of the case's players: the ones its webhooks go to."""
    return {player.operator_id for player in case_players(case)}


def _cases_in_scope(operator_ids: Scope) -> QuerySet[Case]:
    cases = Case.objects.all()
    if operator_ids is None:
        return cases
    return cases.filter(
        Q(alerts__player__operator_id__in=operator_ids)
        | Q(alerts__other_player__operator_id__in=operator_ids)
    ).distinct()


def case_list(*, operator_ids: Scope, status: str | None = None) -> QuerySet[Case]:
    cases = _cases_in_scope(operator_ids)
    if status:
        cases = cases.filter(status=status)
    return cases.order_by("-created_at", "-pk")


def case_get(*, case_id: object, operator_ids: Scope) -> Case:
    pk = as_id(case_id)
    case = _cases_in_scope(operator_ids).filter(pk=pk).first() if pk is not None else None
    if case is None:
        raise NotFoundProblem(f"No case {case_id}")
    return case


def open_case_with_players(*, player_ids: Collection[Any]) -> Case | None:
    """The oldest open case already about every one of ``player_ids`` (where an alert or a
    report about them joins), or None."""
    cases = Case.objects.filter(status=Case.Status.OPEN)
    for player_id in set(player_ids):
        cases = cases.filter(
            pk__in=Alert.objects.filter(
                Q(player_id=player_id) | Q(other_player_id=player_id), case__isnull=False
            ).values("case_id")
        )
    return cases.order_by("created_at", "pk").first()


def case_notes(case: Case) -> QuerySet[CaseNote]:
    return CaseNote.objects.filter(case=case).select_related("author").order_by("created_at", "pk")


def case_actions(case: Case) -> QuerySet[CaseAction]:
    return (
        CaseAction.objects.filter(case=case)
        .select_related("actor", "player", "other_player")
        .order_by("created_at", "pk")
    )


def case_alerts(case: Case) -> QuerySet[Alert]:
    return (
        Alert.objects.filter(case=case)
        .select_related("player", "other_player")
        .order_by("created_at", "pk")
    )


def case_sanctions(case: Case) -> QuerySet[Sanction]:
    return Sanction.objects.filter(case=case).select_related("player").order_by("created_at", "pk")


def sanction_in_force(*, player_id: Any, kind: str) -> Sanction | None:
    return Sanction.objects.filter(player_id=player_id, kind=kind, lifted_at__isnull=True).first()


def case_confiscations(case: Case) -> QuerySet[Confiscation]:
    return Confiscation.objects.filter(case=case).order_by("proposed_at", "pk")


# --- Evidence ---------------------------------------------------------------------------------
def money_flow(*, player_ids: Collection[Any]) -> list[ledger_reads.PairGameFlow]:
    """Every game the players sat in together and what it did to each wallet."""
    return ledger_reads.pair_money_flow(player_ids=player_ids)


def shared_matches(*, player_ids: Collection[Any]) -> list[Any]:
    """The matches the players sat in together, with their hands."""
    return list(games_reads.pair_matches(player_ids=player_ids))


def case_pairs(case: Case) -> list[tuple[Any, Any]]:
    """The pairs of the case's pair alerts (each once, in the alert's order)."""
    pairs: dict[frozenset, tuple[Any, Any]] = {}
    for player_id, other_id in Alert.objects.filter(
        case=case, other_player__isnull=False
    ).values_list("player_id", "other_player_id"):
        pairs.setdefault(frozenset((player_id, other_id)), (player_id, other_id))
    return list(pairs.values())


def case_match_id(case: Case, match_id: object) -> int | None:
    """``match_id`` as an id if at least two of the case's players sat in it, else None."""
    pk = as_id(match_id)
    if pk is None:
        return None
    return pk if pk in games_reads.matches_together(player_ids=case_player_ids(case)) else None


def hand_replay(*, match_id: object, number: object) -> dict[str, Any]:
    return games_reads.hand_replay_for_staff(match_id=match_id, number=number)


# --- Confiscations ----------------------------------------------------------------------------
def confiscation_get(*, confiscation_id: object, operator_ids: Scope) -> Confiscation:
    pk = as_id(confiscation_id)
    row = Confiscation.objects.filter(pk=pk).select_related("case").first() if pk else None
    if row is None or not _cases_in_scope(operator_ids).filter(pk=row.case_id).exists():
        raise NotFoundProblem(f"No confiscation {confiscation_id}")
    return row


# --- Players' reports -------------------------------------------------------------------------
def player_report_list(*, player: Player) -> QuerySet[PlayerReport]:
    return (
        PlayerReport.objects.filter(reporter=player)
        .select_related("reported")
        .order_by("-created_at", "-pk")
    )


def player_report_get(*, player: Player, report_id: object) -> PlayerReport:
    pk = as_id(report_id)
    report = player_report_list(player=player).filter(pk=pk).first() if pk else None
    if report is None:
        raise NotFoundProblem(f"No report {report_id}")
    return report


# --- Linked accounts: an operator's own players' links ----------------------------------------


def player_links_visible(*, operator: Operator, player: Player) -> QuerySet[PlayerLink]:
    """The links of ``player`` (one of ``operator``'s) to other players of ``operator``,
    ended ones too, newest first."""
    return (
        PlayerLink.objects.filter(
            Q(player_low=player, player_high__operator=operator)
            | Q(player_high=player, player_low__operator=operator)
        )
        .select_related("player_low", "player_high")
        .order_by("-created_at", "-pk")
    )


def player_link_get(*, operator: Operator, player: Player, link_id: str) -> PlayerLink:
    """One of ``player_links_visible``; 404 for anything else (another operator's link, an
    unknown or malformed id: one answer)."""
    link = (
        player_links_visible(operator=operator, player=player).filter(pk=link_id).first()
        if link_id.isdigit() and len(link_id) < 19
        else None
    )
    if link is None:
        raise NotFoundProblem(f"No link {link_id} of this player")
    return link
