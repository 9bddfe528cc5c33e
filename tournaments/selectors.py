"""Reads of tournaments, scoped to the caller's operator (docs/tournaments.md).

An operator sees its own tournaments and, while a member of the network, the network's; a
player sees what their operator sees. Another operator's tournament is 404, as if it did
not exist. Staff see the tournaments and the four-eyes requests of the operators in their
scope (gin_platform/staff/scope.py: None is every operator).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import NetworkMembership, Operator, Player
from gin_platform.tenancy.selectors import (
    as_id,
    is_network_operator,
    network_membership_get,
    network_operator_id,
)
from tournaments.models import BracketTable, Entry, Tournament, TournamentRequest
from tournaments.problems import tournament_not_found
from wallet.selectors.tournaments import StatementLine, tournament_statement

# A staff user's operator scope: the operators' ids, or None for every operator.
Scope = Collection[Any] | None


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


def player_entry(*, player: Player, tournament: Tournament) -> Entry:
    """The player's entry of ``tournament`` (the newest, should they have withdrawn and come
    back); 404 when they never entered it."""
    entry = (
        Entry.objects.filter(tournament=tournament, player=player)
        .select_related("tournament", "player")
        .order_by("-number")
        .first()
    )
    if entry is None:
        raise NotFoundProblem(gettext("No entry of this player in this tournament."))
    return entry


ESCROW_ACCOUNT = "escrow"  # the wallet's account kind of a tournament's escrow


@dataclass(frozen=True)
class EntryStatement:
    """A player's statement of one tournament: their own ledger lines of it, oldest first
    (the wallet's ``tournament_statement``: entries, refunds, prizes, tickets, a
    conversion's legs), and what went into this tournament's escrow from them
    (``paid_in``: entries, in money or tickets) and out of it to them (``paid_out``:
    refunds and prizes, a satellite's tickets included), in its currency."""

    entry: Entry
    lines: list[StatementLine]
    paid_in: int
    paid_out: int

    @property
    def net(self) -> int:
        return self.paid_out - self.paid_in


def entry_statement(*, entry: Entry) -> EntryStatement:
    """The statement of ``entry``'s player in its tournament (every entry of theirs there:
    one withdrawn and made again shows both). Only their own lines are read."""
    game_ref = entry.tournament.game_ref
    lines = tournament_statement(player=entry.player, game_ref=game_ref)
    # A satellite's prize moves its own escrow: only this tournament's escrow is counted.
    escrow = [
        line.amount
        for line in lines
        if line.account == ESCROW_ACCOUNT and line.game_ref == game_ref
    ]
    return EntryStatement(
        entry=entry,
        lines=lines,
        paid_in=sum(amount for amount in escrow if amount > 0),
        paid_out=-sum(amount for amount in escrow if amount < 0),
    )


# --- Staff -------------------------------------------------------------------------------------
def staff_tournament_get(*, tournament_id: object, operator_ids: Scope) -> Tournament:
    """Any operator's tournament in the staff user's scope (404 otherwise, as if missing)."""
    pk = as_id(tournament_id)
    tournaments = Tournament.objects.filter(pk=pk) if pk is not None else Tournament.objects.none()
    if operator_ids is not None:
        tournaments = tournaments.filter(operator_id__in=operator_ids)
    tournament = tournaments.first()
    if tournament is None:
        raise tournament_not_found()
    return tournament


def tournament_request_list(
    *, operator_ids: Scope, status: str | None = None, kind: str | None = None
) -> QuerySet[TournamentRequest]:
    """Staff's four-eyes requests on tournaments, newest first, of the operators in scope."""
    rows = TournamentRequest.objects.select_related("operator", "proposed_by", "decided_by")
    if operator_ids is not None:
        rows = rows.filter(operator_id__in=operator_ids)
    if status:
        rows = rows.filter(status=status)
    if kind:
        rows = rows.filter(kind=kind)
    return rows.order_by("-proposed_at", "-pk")


def tournament_request_get(*, request_id: object, operator_ids: Scope) -> TournamentRequest:
    pk = as_id(request_id)
    row = (
        tournament_request_list(operator_ids=operator_ids).filter(pk=pk).first()
        if pk is not None
        else None
    )
    if row is None:
        raise NotFoundProblem(f"No tournament request {request_id}")
    return row
