"""The bracket as it is played (R14): a table is seated the moment its players are known, a
finished match sends its best players on and the rest out, and a round that has ended has
its places paid (tournaments/services/prizes.py).

Every step runs under the tournament's lock, in the transaction of the step that caused it:
the start seats round 1, a match's result records who goes on and, once a table's feeders
have all ended, who plays at it (a bye at once). That table's match is opened after the
result's commit, in a transaction of its own (``due_table_seat``) that shares the
tournament's lock: a round's tables open side by side while its results go on being taken,
instead of one after another inside the results' hold. ``table_result_record`` and
``due_table_seat`` are idempotent (a table already finished, or seated, is left alone), so
either may run twice, or late, from the sweep that finds what no process did.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from functools import partial

from django.db import transaction
from django.utils import timezone

from games.models import Match
from games.services.tournament_matches import tournament_match_open, tournament_matches_ready
from games.tournament_selectors import tournament_match_outcome
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.tenancy.principals import Actor
from integrity.pairing import linked_pairs, pair_linked
from tournaments import engine
from tournaments.locks import lock_bracket_table, share_tournament
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.events import entries_tell, watchers_tell
from tournaments.services.prizes import final_places_pay, round_places_pay

logger = logging.getLogger(__name__)
Status = BracketTable.Status
# Queued by name when a seating after a result's commit fails (a service never imports its
# tasks); the sweep finds any table whose seating was lost altogether.
SEAT_TASK = "tournaments.tasks.table_seat"


def shape_of(tournament: Tournament) -> engine.BracketShape:
    return engine.bracket_shape(
        entries=tournament.field, seats=tournament.seats, advance=tournament.advance
    )


def table_reference(tournament: Tournament, table: BracketTable) -> str:
    return f"tournament:{tournament.pk}:table:{table.round}-{table.number}"


def table_seat(
    *,
    tournament: Tournament,
    table: BracketTable,
    entries: Sequence[Entry],
    actor: Actor,
    tell: bool = True,
) -> list[Entry]:
    """Seat a table whose players are now known, in the caller's transaction (the start's
    round 1): its players set (``table_players_set``), then its match opened, or a bye.
    Returns the players seated at a match, told their match is ready unless ``tell`` is
    False (the start tells the whole first round at once, ``first_round_seat``)."""
    players = table_players_set(tournament=tournament, table=table, entries=entries, actor=actor)
    if not players:
        return []
    return table_match_open(
        tournament=tournament, table=table, players=players, actor=actor, tell=tell
    )


def table_players_set(
    *, tournament: Tournament, table: BracketTable, entries: Sequence[Entry], actor: Actor
) -> list[Entry]:
    """A table's players are known: the linked removed (R10), then, with too few left to
    play, a bye (all go on, a final of one is won) and ``[]``; else its players recorded,
    still pending, and returned: its match is for ``table_match_open`` to open."""
    shape = shape_of(tournament)
    players = _without_linked(tournament=tournament, table=table, entries=entries, actor=actor)
    table.entries = [entry.pk for entry in players]
    if not engine.is_played(shape, round_number=table.round, players=len(players)):
        table.status = Status.BYE
        table.advancing = list(table.entries)
        table.opened_at = table.finished_at = timezone.now()
        table.save(update_fields=["entries", "status", "advancing", "opened_at", "finished_at"])
        watchers_tell(tournament=tournament, change="seated", tables=[table])
        table_done(tournament=tournament, table=table, actor=actor)
        return []
    table.save(update_fields=["entries"])
    return players


def table_match_open(
    *,
    tournament: Tournament,
    table: BracketTable,
    players: Sequence[Entry],
    actor: Actor,
    tell: bool = True,
    watchers: bool = True,
) -> list[Entry]:
    """Open the games match of a table whose players are set (R14: a reserved seat each, to
    be taken within ``no_show_seconds``), its players told unless ``tell`` is False, its
    watchers unless ``watchers`` is False (the caller tells them)."""
    setting = tournament.round_setting(table.round)
    match = tournament_match_open(
        room=tournament.room,
        players=[entry.player for entry in players],
        variant=setting["variant"],
        target=setting["target"],
        reference=table_reference(tournament, table),
        no_show_seconds=tournament.no_show_seconds,
        actor=actor,
    )
    table.match = match
    table.status = Status.PLAYING
    table.opened_at = timezone.now()
    table.save(update_fields=["status", "match", "opened_at"])
    if watchers:
        watchers_tell(tournament=tournament, change="seated", tables=[table])
    if tell:
        players_told_ready(
            tables={table.pk: table}, players=players, seat_by=match.no_show_deadline
        )
    return list(players)


def due_table_seat(*, table_id: int, actor: Actor) -> bool:
    """Open the match of a table a result made due (its players set, still pending), after
    that result's commit: the tournament shared (results go on being taken; a cancellation
    waits for this match, then ends it), the table locked (two seaters open one match).
    True when this call opened it; idempotent, so the sweep may try again."""
    tournament_id = (
        BracketTable.objects.filter(pk=table_id).values_list("tournament_id", flat=True).first()
    )
    if tournament_id is None:
        return False
    with transaction.atomic(durable=True):
        tournament = share_tournament(tournament_id)
        table = lock_bracket_table(table_id)
        if tournament.status != Tournament.Status.RUNNING or not is_due(table):
            return False
        entries = entries_of(table.entries)
        players = [entries[entry_id] for entry_id in table.entries]
        table_match_open(
            tournament=tournament, table=table, players=players, actor=actor, watchers=False
        )
    # The watchers' version moves on the tournament's row, which a results' take holds while
    # it runs: after the commit, so the match is open and its players told without waiting
    # for the takes queued there (a round's results end together). Lost with this process
    # (killed between the two), the watchers see the table seated with its next change (its
    # result) or at their next snapshot.
    watchers_tell(tournament=tournament, change="seated", tables=[table])
    return True


def is_due(table: BracketTable) -> bool:
    """Its players are set and its match is not open yet."""
    return table.status == Status.PENDING and bool(table.entries)


def _seat_after_commit(table: BracketTable, actor: Actor) -> None:
    on_commit_logged(
        partial(_seat_here_or_queue, table.pk, actor), what=f"seating of bracket table {table.pk}"
    )


def _seat_here_or_queue(table_id: int, actor: Actor) -> None:
    try:
        due_table_seat(table_id=table_id, actor=actor)
    except Exception:  # the task seats it, or the sweep
        logger.exception("bracket table %s was not seated where its result was taken", table_id)
        enqueue(SEAT_TASK, table_id)


def first_round_seat(
    *, tournament: Tournament, tables: Sequence[tuple[BracketTable, Sequence[Entry]]], actor: Actor
) -> None:
    """The start seats round 1: every table, then every match's no-show deadline from the
    same moment, the start's end, and every player told in one go (R14 "Absence")."""
    seated: list[Entry] = []
    for table, entries in tables:
        seated += table_seat(
            tournament=tournament, table=table, entries=entries, actor=actor, tell=False
        )
    playing = {table.pk: table for table, _ in tables if table.match_id is not None}
    match_ids = [table.match_id for table in playing.values() if table.match_id is not None]
    if not match_ids:
        return
    deadline = tournament_matches_ready(
        room=tournament.room,
        match_ids=match_ids,
        no_show_seconds=tournament.no_show_seconds,
        actor=actor,
    )
    players_told_ready(tables=playing, players=seated, seat_by=deadline)


def players_told_ready(
    *, tables: dict[int, BracketTable], players: Sequence[Entry], seat_by: datetime | None
) -> None:
    """Each player's match is ready at their table, to be taken by ``seat_by``."""
    table_of = {entry_id: table for table in tables.values() for entry_id in table.entries}

    def ready(entry: Entry) -> dict[str, object]:
        table = table_of[entry.pk]
        return {
            "round": table.round,
            "table": table.number,
            "match_id": table.match_id,
            "seat_by": seat_by.isoformat() if seat_by else None,
        }

    entries_tell(entries=players, event_type="tournament.match_ready", data_of=ready)


def _without_linked(
    *, tournament: Tournament, table: BracketTable, entries: Sequence[Entry], actor: Actor
) -> list[Entry]:
    """The table's players but the later-registered of any two linked since they registered
    (R10: linked accounts never share a table; registration refuses a link already known):
    that player is out of the tournament at this round."""
    pairs = linked_pairs(player_ids=[entry.player_id for entry in entries])
    if not pairs:
        return list(entries)
    kept: list[Entry] = []
    for entry in sorted(entries, key=lambda e: e.number):
        if any(pair_linked(pairs, entry.player_id, other.player_id) for other in kept):
            entry_out(entry=entry, round_number=table.round, reason=Entry.OutReason.LINKED)
            audit_record(
                actor=actor,
                action="tournament.removed_linked",
                obj=entry,
                operator=entry.player.operator,
                data={"tournament": tournament.pk, "round": table.round},
            )
        else:
            kept.append(entry)
    order = {entry.pk: index for index, entry in enumerate(entries)}
    return sorted(kept, key=lambda e: order[e.pk])


def entries_of(entry_ids: Sequence[int]) -> dict[int, Entry]:
    """The entries by id, with what telling them needs (their player's operator)."""
    found = Entry.objects.filter(pk__in=entry_ids).select_related("player__operator")
    return {entry.pk: entry for entry in found}


def entry_out(*, entry: Entry, round_number: int, reason: str) -> None:
    entries_out(entries=[entry], round_number=round_number, reason=reason)


def entries_out(*, entries: Sequence[Entry], round_number: int, reason: str) -> None:
    """These players are out at ``round_number``: one UPDATE, one INSERT of their events."""
    if not entries:
        return
    Entry.objects.filter(pk__in=[entry.pk for entry in entries]).update(
        status=Entry.Status.OUT, round_out=round_number, out_reason=reason
    )
    for entry in entries:
        entry.status, entry.round_out, entry.out_reason = Entry.Status.OUT, round_number, reason
    told = {"round": round_number, "reason": reason}
    entries_tell(entries=entries, event_type="tournament.eliminated", data_of=lambda _: told)


def table_result_record(
    *, tournament: Tournament, table: BracketTable, match: Match, actor: Actor
) -> bool:
    """A played table's match has ended: the best go on, the others are out (R14). Returns
    False when there is nothing to record yet (the match is still on) or any more (done)."""
    if table.status != Status.PLAYING:
        return False
    outcome = tournament_match_outcome(match=match)
    if not outcome.finished:
        return False
    by_player = {entry.player_id: entry for entry in entries_of(table.entries).values()}
    # A tie the match leaves (R12: a shared place) is broken by the draw (R14).
    ranking = engine.ranking_by_draw(
        groups=[[by_player[player_id] for player_id in place] for place in outcome.places],
        draw=sorted(by_player.values(), key=lambda entry: entry.draw_position or 0),
    )
    shape = shape_of(tournament)
    on = engine.going_on(shape, round_number=table.round, ranking=ranking)
    entries_out(entries=ranking[len(on) :], round_number=table.round, reason=Entry.OutReason.LOST)
    entries_out(
        entries=[by_player[player_id] for player_id in outcome.absent],
        round_number=table.round,
        reason=Entry.OutReason.ABSENT,
    )
    table.status = Status.FINISHED
    table.advancing = (
        [entry.pk for entry in ranking]
        if shape.is_final(table.round)
        else [entry.pk for entry in on]
    )
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "advancing", "finished_at"])
    if tournament.first_result_at is None:
        tournament.first_result_at = table.finished_at
        tournament.save(update_fields=["first_result_at"])
    audit_record(
        actor=actor,
        action="tournament.table_finished",
        obj=table,
        operator=tournament.operator,
        data={"match": match.pk, "advancing": table.advancing},
    )
    watchers_tell(tournament=tournament, change="result", tables=[table])
    table_done(tournament=tournament, table=table, actor=actor)
    return True


def table_done(*, tournament: Tournament, table: BracketTable, actor: Actor) -> None:
    """What a table's end makes known: the table it feeds, once all its feeders are done;
    the round's places, once the round has ended; the final's, and the end."""
    shape = shape_of(tournament)
    if shape.is_final(table.round):
        final_places_pay(tournament=tournament, final=table, actor=actor)
        return
    round_open = BracketTable.objects.filter(
        tournament=tournament, round=table.round, status__in=(Status.PENDING, Status.PLAYING)
    ).exists()
    if not round_open:  # paid before anything the next round decides
        round_places_pay(tournament=tournament, round_number=table.round, actor=actor)
    fed_number = shape.fed(round_number=table.round, number=table.number)
    assert fed_number is not None  # only the final feeds nothing
    feeders = list(
        BracketTable.objects.filter(
            tournament=tournament,
            round=table.round,
            number__in=list(shape.feeders(round_number=table.round + 1, number=fed_number)),
        ).order_by("number")
    )
    if not all(feeder.status in (Status.FINISHED, Status.BYE) for feeder in feeders):
        return
    sent = [entry_id for feeder in feeders for entry_id in feeder.advancing]
    entries = entries_of(sent)
    fed = BracketTable.objects.get(tournament=tournament, round=table.round + 1, number=fed_number)
    if fed.status == Status.PENDING and not fed.entries:
        players = [entries[entry_id] for entry_id in sent]
        if table_players_set(tournament=tournament, table=fed, entries=players, actor=actor):
            _seat_after_commit(fed, actor)
