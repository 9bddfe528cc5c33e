"""Reads of tournaments, scoped to the caller's operator (docs/tournaments.md).

An operator sees its own tournaments and, while a member of the network, the network's; a
player sees what their operator sees. Another operator's tournament is 404, as if it did
not exist. Staff see the tournaments and the four-eyes requests of the operators in their
scope (gin_platform/staff/scope.py: None is every operator).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Max, Q, QuerySet, Sum, Value, Window
from django.db.models.functions import Coalesce, Lower, RowNumber
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
from wallet.selectors.tournaments import StatementLine, player_tickets, tournament_statement

# A staff user's operator scope: the operators' ids, or None for every operator.
Scope = Collection[Any] | None


# --- The leaderboard by net tournament winnings (R15, docs/leaderboards.md) ---------------------
# An entry that counts: paid for and not refunded (a withdrawal or a cancellation before
# any result gave everything back: nothing was won or lost).
REFUNDED_ENTRIES = (Entry.Status.UNREGISTERED, Entry.Status.REFUNDED)


def winnings_board(
    *,
    currency: str,
    since: datetime,
    until: datetime,
    players: QuerySet[Player],
    network_operator_id: Any = None,
) -> QuerySet[Entry, Any]:
    """The board by net tournament winnings of one period [``since``, ``until``) in one
    currency (amounts of different currencies are never added): each of ``players`` with an
    entry in a tournament of ``currency`` that ended in the period (finished, or cancelled
    after a result), at their prizes paid in money minus the money they paid to enter
    (buy-in and fee); a ticket is not money, neither a satellite's won nor one entered with.
    A tournament counts once it has ended, in the period of its end. With
    ``network_operator_id``, the network's tournaments only.

    One statement, whatever the page: the entries summed per player, and ``rank`` numbered
    by the window over the whole board: net, then who reached it first (the end of their
    last tournament of the period), then the screen name. Values: ``rank``, ``player_id``,
    ``operator_id``, ``screen_name``, ``net``, ``won`` (prizes in money), ``entered``
    (paid to enter), ``tournaments``, ``reached_at``, amounts in minor units of ``currency``.
    Unordered: the caller pages it by ``rank``."""
    entries = Entry.objects.filter(
        tournament__currency=currency,
        tournament__status__in=Tournament.ENDED_STATUSES,
        tournament__ended_at__gte=since,
        tournament__ended_at__lt=until,
        player__in=players,
    ).exclude(status__in=REFUNDED_ENTRIES)
    if network_operator_id is not None:
        entries = entries.filter(tournament__operator_id=network_operator_id)
    won = Coalesce(Sum("prize", filter=Q(prize_ticket=False)), Value(0))
    entered = Coalesce(Sum("paid", filter=Q(payment=Entry.Payment.CASH)), Value(0))
    best_first = [F("net").desc(), F("reached_at").asc(), Lower("screen_name").asc()]
    return (
        entries.order_by()
        .values(
            "player_id",
            operator_id=F("player__operator_id"),
            screen_name=F("player__screen_name"),
        )
        .annotate(
            won=won,
            entered=entered,
            net=won - entered,
            tournaments=Count("pk"),
            reached_at=Max("tournament__ended_at"),
        )
        .annotate(rank=Window(RowNumber(), order_by=best_first))
    )


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


def tickets_held(*, player: Player, tournaments: Iterable[Tournament]) -> dict[int, int]:
    """What the player's ticket to each of ``tournaments`` is worth now, in its currency
    (those they hold none for left out): the wallet read once for the whole page."""
    by_ref = {tournament.game_ref: tournament for tournament in tournaments}
    held = player_tickets(player=player, game_refs=by_ref)
    return {
        tournament.pk: held[tournament.game_ref, tournament.currency]
        for tournament in by_ref.values()
        if (tournament.game_ref, tournament.currency) in held
    }


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
