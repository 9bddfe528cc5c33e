"""The lobby's waiting list (docs/network.md "Lobby and waiting list"): a player asks to be
seated in a room (at a stake per point and with a cashier amount at a Money Play table) as
soon as an opponent is there, instead of sitting alone at a table.

- ``waiting_list_join``: the entry (nothing is charged; the amounts and the player's right
  to sit in the room are checked now, as ``seat_take`` will check them).
- ``waiting_list_leave``: leaving the list is free.
- ``waiting_list_match``: seat waiting players, through ``seat_take`` (the buy-in and every
  check of a seat), opposite a player already seated in the room at the same stake, or two
  waiting players together at a free table. Run by the Celery task
  ``games.tasks.waiting_list_match`` after a join and after anybody sits down alone in a
  room where somebody waits (``seating.seat_take``); never inside a request's
  transaction (``seat_take`` is durable).
- ``waiting_list_expire``: entries past ``expires_at`` end (beat job).

Every change of an entry is pushed to the player (``publisher.player_waiting_list_changed``:
the player's socket, docs/realtime.md) and readable over REST.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from games.locks import lock_waiting_entry, lock_waiting_entry_of
from games.models import Match, Room, Seat, Table, WaitingListEntry
from games.problems import (
    LinkedPlayersProblem,
    NetworkTableOtherModeProblem,
    RoomInactiveProblem,
    StakePerPointMismatchProblem,
    TableFullProblem,
)
from games.realtime import publisher
from games.selectors import room_offered_to_player
from games.services.rooms import free_table_ensure
from games.services.seat_checks import buy_in_amount, cash_table_check, network_seat_check
from games.services.seating import seat_take
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.http.problems import NotFoundProblem, Problem
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from integrity.pairing import linked_pairs, linked_players, pair_linked
from protection.play import buy_in_check

logger = logging.getLogger(__name__)

WAITING_LIST_ACTOR = Actor.system("waiting_list")
MATCH_ROUNDS = 50  # seats one sweep of a room may take at most (a busy room: the next run)


def _expiry() -> timedelta:
    return timedelta(seconds=settings.WAITING_LIST_SECONDS)


def _end(entry: WaitingListEntry, status: str, **fields) -> None:
    entry.status = status
    entry.ended_at = timezone.now()
    for name, value in fields.items():
        setattr(entry, name, value)
    entry.save(update_fields=["status", "ended_at", *fields])
    publisher.player_waiting_list_changed(player_id=entry.player_id, entry_id=entry.pk)


@transaction.atomic
def waiting_list_join(
    *,
    player: Player,
    room: Room,
    stake_per_point: int | None = None,
    cashier_amount: int | None = None,
    actor: Actor,
) -> tuple[WaitingListEntry, bool]:
    """Join the room's waiting list (or find the entry already there: ``created`` False,
    its amounts unchanged). Refused like a seat would be: a closed room, amounts the room
    does not take, a player suspended or on a break (``timed-out``, ``self-excluded``), a
    network room the player may not sit in. An entry whose player takes a break later is
    refused when the list would seat them."""
    if not room_offered_to_player(player=player, room=room):
        raise NotFoundProblem(gettext("This room is not open."))
    cash_table_check(room)  # R14: a tournament seats its own players
    if not room.active:
        raise RoomInactiveProblem(gettext("This room is closed: pick another one in the lobby."))
    buy_in_amount(
        room=room, match=None, cashier_amount=cashier_amount, stake_per_point=stake_per_point
    )
    if room.variant != "money":
        stake_per_point = cashier_amount = None
    elif stake_per_point is None:
        stake_per_point = room.stake_per_point_choices[0]
    network_seat_check(player=player, room=room)
    if not room.is_practice:
        buy_in_check(player=player)  # player protection: the session's limits first
    existing = WaitingListEntry.objects.filter(
        player=player, room=room, status=WaitingListEntry.Status.WAITING
    ).first()
    if existing is not None:
        return existing, False
    try:
        now = timezone.now()
        with transaction.atomic():
            entry = WaitingListEntry.objects.create(
                player=player,
                room=room,
                stake_per_point=stake_per_point,
                cashier_amount=cashier_amount,
                created_at=now,
                expires_at=now + _expiry(),
            )
    except IntegrityError:  # the same join, twice at once: the first one stands
        return WaitingListEntry.objects.get(
            player=player, room=room, status=WaitingListEntry.Status.WAITING
        ), False
    audit_record(
        actor=actor,
        action="waiting_list.joined",
        obj=entry,
        operator=player.operator,
        data={"room": room.pk, "stake_per_point": stake_per_point},
    )
    publisher.player_waiting_list_changed(player_id=player.pk, entry_id=entry.pk)
    _match_on_commit(room.pk)
    return entry, True


@transaction.atomic
def waiting_list_leave(*, player: Player, room: Room, actor: Actor) -> WaitingListEntry:
    """Leave the room's waiting list: free, nothing was charged. 404 when not on it."""
    entry = lock_waiting_entry_of(player=player, room=room, status=WaitingListEntry.Status.WAITING)
    if entry is None:
        raise NotFoundProblem(gettext("You are not on the waiting list of this room."))
    _end(entry, WaitingListEntry.Status.LEFT)
    audit_record(actor=actor, action="waiting_list.left", obj=entry, operator=player.operator)
    return entry


def _match_on_commit(room_id: int) -> None:
    # Queued by name: the task module imports the services, never the other way round.
    enqueue_on_commit("games.tasks.waiting_list_match", room_id)


def waiting_list_expire(*, room_id: int | None = None) -> int:
    """End the entries whose time is up (all rooms, or one), and repair the claims of
    matching runs that died; how many entries ended or were repaired."""
    return _expire_due(room_id=room_id) + _repair_stale_claims()


def _expire_due(*, room_id: int | None) -> int:
    due = WaitingListEntry.objects.filter(
        status=WaitingListEntry.Status.WAITING, expires_at__lte=timezone.now()
    )
    if room_id is not None:
        due = due.filter(room_id=room_id)
    ended = 0
    for entry_id in list(due.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            entry = lock_waiting_entry(entry_id=entry_id, status=WaitingListEntry.Status.WAITING)
            if entry is not None:
                _end(entry, WaitingListEntry.Status.EXPIRED)
                audit_record(
                    actor=WAITING_LIST_ACTOR,
                    action="waiting_list.expired",
                    obj=entry,
                    operator=entry.player.operator,
                )
                ended += 1
    return ended


def _waiting(room_id: int) -> list[WaitingListEntry]:
    return list(
        WaitingListEntry.objects.select_related("player__operator", "room")
        .filter(
            room_id=room_id, status=WaitingListEntry.Status.WAITING, expires_at__gt=timezone.now()
        )
        .order_by("created_at", "pk")
    )


def _table_with_opponent(entry: WaitingListEntry) -> Table | None:
    """An open table of the room whose game waits for players at the entry's stake, with
    somebody else seated and nobody the entry's player is linked to (the oldest such game
    first; docs/integrity.md: the list skips linked pairings silently)."""
    # Never a table of the other mode (live and sandbox players never meet).
    seated = Seat.objects.filter(
        state=Seat.State.SEATED, player__operator__is_sandbox=entry.player.operator.is_sandbox
    )
    unwelcome = {entry.player_id, *linked_players(player_id=entry.player_id)}
    match = (
        Match.objects.filter(
            room_id=entry.room_id,
            status=Match.Status.WAITING,
            table__status=Table.Status.OPEN,
            pk__in=seated.values("match_id"),
        )
        .exclude(pk__in=seated.filter(player_id__in=unwelcome).values("match_id"))
        .filter(Q(stake_per_point=entry.stake_per_point) if entry.stake_per_point else Q())
        .select_related("table")
        .order_by("created_at", "pk")
        .first()
    )
    return None if match is None else match.table


def _free_table(room: Room) -> Table | None:
    open_matches = Match.objects.filter(status__in=(Match.Status.WAITING, Match.Status.RUNNING))
    with transaction.atomic():
        free_table_ensure(room)
    return (
        Table.objects.filter(room=room, status=Table.Status.OPEN)
        .exclude(pk__in=open_matches.values("table_id"))
        .order_by("pk")
        .first()
    )


def _claim(entry: WaitingListEntry) -> bool:
    """Take the entry off the list for this run (another run may be matching the room)."""
    return bool(
        WaitingListEntry.objects.filter(pk=entry.pk, status=WaitingListEntry.Status.WAITING).update(
            status=WaitingListEntry.Status.SEATED, claimed_at=timezone.now()
        )
    )


# A claim older than this has outlived its run (a seat_take takes well under a second).
CLAIM_TIMEOUT = timedelta(seconds=60)


def _repair_stale_claims() -> int:
    """Entries a matching run claimed and never finished (the worker died in between): the
    seat it took, if its seat_take committed, is recorded on the entry; otherwise the entry
    waits again (or, past its time or with a newer entry of the player, expires)."""
    stale = WaitingListEntry.objects.filter(
        status=WaitingListEntry.Status.SEATED,
        seat__isnull=True,
        ended_at__isnull=True,
        claimed_at__lte=timezone.now() - CLAIM_TIMEOUT,
    )
    repaired = 0
    for entry_id in list(stale.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            entry = lock_waiting_entry(entry_id=entry_id, status=WaitingListEntry.Status.SEATED)
            if entry is None or entry.seat_id is not None or entry.ended_at is not None:
                continue
            seat = (
                Seat.objects.filter(
                    player=entry.player, match__room=entry.room, created_at__gte=entry.claimed_at
                )
                .order_by("created_at")
                .first()
            )
            if seat is not None:
                _end(entry, WaitingListEntry.Status.SEATED, seat=seat)
                action, data = "waiting_list.seated", {"seat": seat.pk, "match": seat.match_id}
            elif (
                entry.expires_at <= timezone.now()
                or WaitingListEntry.objects.filter(
                    player=entry.player, room=entry.room, status=WaitingListEntry.Status.WAITING
                ).exists()
            ):
                _end(entry, WaitingListEntry.Status.EXPIRED)
                action, data = "waiting_list.expired", {}
            else:
                entry.status = WaitingListEntry.Status.WAITING
                entry.claimed_at = None
                entry.save(update_fields=["status", "claimed_at"])
                publisher.player_waiting_list_changed(player_id=entry.player_id, entry_id=entry.pk)
                action, data = "waiting_list.released", {}
            audit_record(
                actor=WAITING_LIST_ACTOR,
                action=action,
                obj=entry,
                operator=entry.player.operator,
                data=data,
            )
            repaired += 1
    return repaired


def _seat_entry(entry: WaitingListEntry, table: Table) -> bool:
    """Seat the entry's player at ``table`` through ``seat_take``. A refusal ends the entry
    (``refused`` with the problem's type); a table that filled up meanwhile puts it back."""
    if not _claim(entry):
        return False
    try:
        result = seat_take(
            player=entry.player,
            table=table,
            cashier_amount=entry.cashier_amount,
            stake_per_point=entry.stake_per_point,
            actor=WAITING_LIST_ACTOR,
        )
    except (
        TableFullProblem,
        StakePerPointMismatchProblem,
        NetworkTableOtherModeProblem,
        LinkedPlayersProblem,  # somebody linked sat there meanwhile: another table, later
    ):
        WaitingListEntry.objects.filter(pk=entry.pk).update(
            status=WaitingListEntry.Status.WAITING, claimed_at=None
        )
        return False
    except Problem as problem:
        with transaction.atomic():
            _end(entry, WaitingListEntry.Status.REFUSED, problem_type=problem.type_uri())
            audit_record(
                actor=WAITING_LIST_ACTOR,
                action="waiting_list.refused",
                obj=entry,
                operator=entry.player.operator,
                data={"problem": problem.type_uri()},
            )
        return False
    with transaction.atomic():
        _end(entry, WaitingListEntry.Status.SEATED, seat=result.seat)
        audit_record(
            actor=WAITING_LIST_ACTOR,
            action="waiting_list.seated",
            obj=entry,
            operator=entry.player.operator,
            data={"seat": result.seat.pk, "match": result.seat.match_id},
        )
    return True


def waiting_list_match(*, room_id: int) -> int:
    """Seat the room's waiting players who have an opponent (oldest entries first): opposite
    a player seated alone at the same stake, else two waiting players together at a free
    table. Returns how many were seated."""
    waiting_list_expire(room_id=room_id)
    seated = 0
    for _ in range(MATCH_ROUNDS):
        entries = _waiting(room_id)
        if not entries:
            break
        progressed = False
        for entry in entries:
            table = _table_with_opponent(entry)
            if table is not None and _seat_entry(entry, table):
                seated += 1
                progressed = True
                break
        if progressed:
            continue
        pair = _first_pair(entries)
        if pair is None:
            break
        table = _free_table(pair[0].room)
        if table is None or not _seat_entry(pair[0], table):
            if table is None:
                break
            continue
        seated += 1  # the second of the pair sits opposite them in the next round
    return seated


def _first_pair(entries: list[WaitingListEntry]) -> tuple[WaitingListEntry, ...] | None:
    """The two oldest entries of different players at the same stake (and mode: live and
    sandbox players never meet) who are not linked (docs/integrity.md: skipped
    silently; one query for the whole list)."""
    linked = linked_pairs(player_ids=(entry.player_id for entry in entries))
    by_stake: dict[tuple[int | None, bool], list[WaitingListEntry]] = {}
    for entry in entries:
        key = (entry.stake_per_point, entry.player.operator.is_sandbox)
        earlier = by_stake.setdefault(key, [])
        for first in earlier:
            if first.player_id != entry.player_id and not pair_linked(
                linked, first.player_id, entry.player_id
            ):
                return first, entry
        earlier.append(entry)
    return None
