"""Reads of tournaments, scoped to the caller's operator (docs/tournaments.md).

An operator sees its own tournaments and, while a member of the network, the network's; a
player sees what their operator sees. Another operator's tournament is 404, as if it did
not exist.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, Q, QuerySet

from gin_platform.models import NetworkMembership, Operator, Player
from gin_platform.tenancy.selectors import (
    as_id,
    is_network_operator,
    network_membership_get,
    network_operator_id,
)
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.problems import tournament_not_found


def is_bracket_match(*, match_id: int) -> bool:
    """Whether a games match is a table of a tournament's bracket (one indexed read)."""
    return BracketTable.objects.filter(match_id=match_id).exists()


def _visible(operator: Operator) -> Q:
    visible = Q(operator=operator)
    network_id = network_operator_id()
    membership = network_membership_get(operator=operator)
    if network_id is not None and membership is not None and membership.left_at is None:
        visible |= Q(operator_id=network_id)
    return visible


def tournament_list(
    *,
    operator: Operator,
    kind: str | None = None,
    status: str | None = None,
    buy_in_max: int | None = None,
    starts_before: datetime | None = None,
) -> QuerySet[Tournament]:
    """The lobby: the tournaments the operator's players may see, with their entry counts."""
    tournaments = Tournament.objects.filter(_visible(operator)).annotate(
        registered=Count("entries", filter=Q(entries__status__in=Entry.ACTIVE_STATUSES))
    )
    if kind:
        tournaments = tournaments.filter(kind=kind)
    if status:
        tournaments = tournaments.filter(status=status)
    if buy_in_max is not None:
        tournaments = tournaments.filter(buy_in__lte=buy_in_max)
    if starts_before is not None:
        tournaments = tournaments.filter(starts_at__lte=starts_before)
    return tournaments


def tournament_get(*, operator: Operator, tournament_id: object) -> Tournament:
    pk = as_id(tournament_id)
    tournament = (
        None
        if pk is None
        else Tournament.objects.filter(_visible(operator), pk=pk)
        .annotate(registered=Count("entries", filter=Q(entries__status__in=Entry.ACTIVE_STATUSES)))
        .first()
    )
    if tournament is None:
        raise tournament_not_found()
    return tournament


def tournament_for_push(*, tournament_id: int) -> Tournament | None:
    """A tournament as its watchers are shown it (any operator's: the caller has checked
    who may watch), with its entry count; None once it no longer exists."""
    return (
        Tournament.objects.filter(pk=tournament_id)
        .select_related("satellite_for")
        .annotate(registered=Count("entries", filter=Q(entries__status__in=Entry.ACTIVE_STATUSES)))
        .first()
    )


def bracket_version(*, tournament_id: int) -> int | None:
    """The tournament's ``bracket_version`` as committed now (None: no such tournament)."""
    return (
        Tournament.objects.filter(pk=tournament_id)
        .values_list("bracket_version", flat=True)
        .first()
    )


def watching_operator_ids(*, tournament: Tournament) -> list:
    """The operators whose players (and themselves) may watch ``tournament``: its owner
    and, at a network tournament, every member operator (as ``_visible`` lets them see it)."""
    operator_ids = [tournament.operator_id]
    if is_network_operator(tournament.operator_id):
        operator_ids += list(
            NetworkMembership.objects.filter(left_at__isnull=True)
            .order_by("operator_id")
            .values_list("operator_id", flat=True)
        )
    return operator_ids


def bracket_tables(*, tournament: Tournament, round_number: int | None = None) -> list:
    tables = BracketTable.objects.filter(tournament=tournament).order_by("round", "number")
    if round_number is not None:
        tables = tables.filter(round=round_number)
    return list(tables)


def entries_by_id(
    *, tournament: Tournament, entry_ids: list[int] | None = None
) -> dict[int, Entry]:
    """The tournament's entries with their players (only ``entry_ids``, when given)."""
    entries = Entry.objects.filter(tournament=tournament).select_related("player__operator")
    if entry_ids is not None:
        entries = entries.filter(pk__in=entry_ids)
    return {entry.pk: entry for entry in entries}


def bracket_tables_by_id(*, tournament: Tournament, table_ids: list[int]) -> list[BracketTable]:
    return list(
        BracketTable.objects.filter(tournament=tournament, pk__in=table_ids).order_by(
            "round", "number"
        )
    )


def operator_entries(*, operator: Operator, tournament: Tournament) -> QuerySet[Entry]:
    """The entries of the operator's own players."""
    return Entry.objects.filter(tournament=tournament, player__operator=operator).order_by("number")


def player_entries(*, player: Player) -> QuerySet[Entry]:
    return (
        Entry.objects.filter(player=player)
        .exclude(status=Entry.Status.UNREGISTERED)
        .select_related("tournament")
        .order_by("-registered_at", "-pk")
    )


def entry_waiting_table(*, entry: Entry) -> BracketTable | None:
    """The table of the entry's current match (seated, or being played), if any."""
    if entry.status != Entry.Status.IN:
        return None
    return (
        BracketTable.objects.filter(
            tournament_id=entry.tournament_id,
            status=BracketTable.Status.PLAYING,
            match__seats__player_id=entry.player_id,
        )
        .select_related("match")
        .first()
    )
