"""Reads of tournaments, scoped to the caller's operator (docs/tournaments.md).

An operator sees its own tournaments and, while a member of the network, the network's; a
player sees what their operator sees. Another operator's tournament is 404, as if it did
not exist.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, Q, QuerySet

from gin_platform.models import Operator, Player
from gin_platform.tenancy.selectors import as_id, network_membership_get, network_operator_id
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


def bracket_tables(*, tournament: Tournament, round_number: int | None = None) -> list:
    tables = BracketTable.objects.filter(tournament=tournament).order_by("round", "number")
    if round_number is not None:
        tables = tables.filter(round=round_number)
    return list(tables)


def entries_by_id(*, tournament: Tournament) -> dict[int, Entry]:
    return {
        entry.pk: entry
        for entry in Entry.objects.filter(tournament=tournament).select_related("player")
    }


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
