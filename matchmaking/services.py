"""R15's quick seat (docs/matchmaking.md): a player asks to play a variant at a stake and is
seated with the waiting player of the closest rating whose band meets theirs.

- ``quick_seat_join``: the player's ticket in the queue of the room that plays it (their
  operator's own room first, else a network room their operator offers), with their rating
  now; refused at once as a seat would be. One waiting ticket per player, across queues:
  the same request again is that ticket; another one is ``quick-seat-already-queued``.
- ``quick_seat_cancel``: the waiting ticket ends ``cancelled`` (nothing was charged); again,
  the same answer.
- ``queue_match``: one queue's matcher. ``matchmaking.bands.pairs`` decides who meets whom
  from the waiting tickets and the links among their players (integrity.pairing); each pair
  is seated through ``games.services.pair_seat`` in one transaction that first locks the
  queue's row and both tickets and finds them still waiting, and ends both tickets
  ``seated`` with their seats. A refused seat ends that player's ticket ``refused`` (the
  problem's type); the other keeps waiting. Run by a task after each join (on commit) and
  by the beat job.
- ``quick_seat_tick``: the beat job (every 2 s): tickets past their lifetime expire, and
  every queue with waiting tickets is matched again, since bands widen as time passes.

Every change of a ticket is audited and pushed to its player (``/ws/v1/me``, after the
commit): ``quick_seat.queued``, ``.seated`` (the seat and its match), ``.cancelled``,
``.expired``, ``.refused``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from games.matchmaking_selectors import quick_seat_rooms
from games.models import Room, Seat
from games.problems import LinkedPlayersProblem
from games.realtime.publisher import player_message
from games.services import MAX_AMOUNT, PairSeat, PairSeatRefused, pair_seat
from games.services.seat_checks import buy_in_amount, network_seat_check
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.http.problems import Problem
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from integrity.pairing import linked_pairs, pair_linked
from matchmaking import bands, selectors
from matchmaking.locks import lock_queue, lock_ticket, lock_tickets, lock_waiting_ticket_of
from matchmaking.models import Queue, Ticket
from matchmaking.presenters import TICKET_LIFETIME_SECONDS, ticket_message
from matchmaking.problems import (
    QuickSeatAlreadyQueuedProblem,
    QuickSeatNoRoomProblem,
    QuickSeatNotWaitingProblem,
)
from protection.play import buy_in_check
from ratings.models import family_of
from ratings.selectors import rating_of

logger = logging.getLogger(__name__)

QUICK_SEAT_ACTOR = Actor.system("quick-seat")
MATCH_TASK = "matchmaking.tasks.queue_match"
MATCH_ROUNDS = 20  # decisions one run of a queue takes at most (refusals: decide again)
EXPIRE_BATCH = 500  # tickets one tick expires at most (the rest: the next tick)

SEATED, REFUSED, SKIPPED, GONE = "seated", "refused", "skipped", "gone"


def _end(ticket: Ticket, status: str, **fields: Any) -> None:
    ticket.status = status
    ticket.ended_at = timezone.now()
    for name, value in fields.items():
        setattr(ticket, name, value)
    ticket.save(update_fields=["status", "ended_at", *fields])


def _push(ticket: Ticket, player: Player) -> None:
    """The ticket as the player sees it, on their socket once the transaction commits."""
    player_message(player_id=player.pk, message=ticket_message(ticket, player=player))


# --- Joining and cancelling ------------------------------------------------------------------
def _room_for(
    *,
    player: Player,
    variant: str,
    currency: str,
    stake: int | None,
    stake_per_point: int | None,
) -> Room:
    amounts = [amount for amount in (stake, stake_per_point) if amount is not None]
    storable = all(0 < amount <= MAX_AMOUNT for amount in amounts)  # no room has another
    rooms = (
        quick_seat_rooms(
            player=player,
            variant=variant,
            currency=currency,
            stake=stake,
            stake_per_point=stake_per_point,
        )
        if storable
        else []
    )
    if not rooms:
        raise QuickSeatNoRoomProblem(
            gettext("No room in your lobby plays this game at this stake in %(currency)s.")
            % {"currency": currency},
            variant=variant,
            currency=currency,
        )
    return rooms[0]


def _queue_of(room: Room, *, stake_per_point: int | None, sandbox: bool) -> Queue:
    key = Queue.key_of(room_id=room.pk, stake_per_point=stake_per_point, sandbox=sandbox)
    queue, _ = Queue.objects.get_or_create(
        key=key,
        defaults={"room": room, "stake_per_point": stake_per_point, "sandbox": sandbox},
    )
    queue.room = room
    return queue


def _already_queued(existing: Ticket) -> QuickSeatAlreadyQueuedProblem:
    return QuickSeatAlreadyQueuedProblem(
        gettext("You already wait for a quick seat at another game: cancel it first."),
        ticket_id=existing.pk,
    )


@transaction.atomic
def quick_seat_join(
    *,
    player: Player,
    variant: str,
    currency: str,
    stake: int | None = None,
    stake_per_point: int | None = None,
    cashier_amount: int | None = None,
    actor: Actor,
) -> tuple[Ticket, bool]:
    """Queue the player for a heads-up real-money game of ``variant`` at ``stake`` (First To
    Knock, Match Play) or ``stake_per_point`` with ``cashier_amount`` (Money Play) in
    ``currency``; ``created`` False: the ticket already waiting there, unchanged. Refused at
    once like a seat: no such room in the player's lobby, amounts the room does not take,
    a player suspended or on a break, a network room without a screen name, a play
    session's limits; each is checked again when the pair is seated."""
    room = _room_for(
        player=player,
        variant=variant,
        currency=currency,
        stake=stake,
        stake_per_point=stake_per_point,
    )
    buy_in_amount(
        room=room, match=None, cashier_amount=cashier_amount, stake_per_point=stake_per_point
    )
    network_seat_check(player=player, room=room)
    buy_in_check(player=player)  # player protection: the session's limits
    queue = _queue_of(room, stake_per_point=stake_per_point, sandbox=player.operator.is_sandbox)
    existing = Ticket.objects.filter(player=player, status=Ticket.Status.WAITING).first()
    if existing is not None:
        if existing.queue_id != queue.pk:
            raise _already_queued(existing)
        return existing, False
    family = family_of(variant=room.variant, seat_count=room.seats)
    standing = rating_of(player_id=player.pk, family=family)
    try:
        with transaction.atomic():
            ticket = Ticket.objects.create(
                queue=queue,
                player=player,
                cashier_amount=cashier_amount,
                family=family,
                rating=standing.rating,
                rd=standing.rd,
                joined_at=timezone.now(),
            )
    except IntegrityError:  # the same player twice at once: the first one stands
        existing = Ticket.objects.get(player=player, status=Ticket.Status.WAITING)
        if existing.queue_id != queue.pk:
            raise _already_queued(existing) from None
        return existing, False
    audit_record(
        actor=actor,
        action="quick_seat.joined",
        obj=ticket,
        operator=player.operator,
        data={"queue": queue.key, "family": family, "rating": round(standing.rating, 2)},
    )
    _push(ticket, player)
    enqueue_on_commit(MATCH_TASK, queue.pk)
    return ticket, True


# Why a ticket can no longer be cancelled, in the player's language.
_NOT_WAITING: dict[str, Callable[[], str]] = {
    Ticket.Status.SEATED: lambda: gettext("You were seated already: your game is on."),
    Ticket.Status.EXPIRED: lambda: gettext("Your quick seat expired: nobody came in time."),
    Ticket.Status.REFUSED: lambda: gettext("Your quick seat ended: the seat was refused."),
}


@transaction.atomic
def quick_seat_cancel(*, player: Player, actor: Actor) -> Ticket:
    """End the player's waiting ticket (free: nothing was charged). Idempotent: when their
    latest ticket is cancelled already it is answered as it is; one that was seated,
    expired or refused is ``quick-seat-not-waiting``; none at all, 404."""
    ticket = lock_waiting_ticket_of(player)
    if ticket is None:
        latest = selectors.player_latest_ticket(player=player)
        if latest.status == Ticket.Status.CANCELLED:
            return latest
        raise QuickSeatNotWaitingProblem(
            _NOT_WAITING[latest.status](),
            ticket_status=latest.status,
            match_id=latest.seat.match_id if latest.seat is not None else None,
        )
    _end(ticket, Ticket.Status.CANCELLED)
    audit_record(actor=actor, action="quick_seat.cancelled", obj=ticket, operator=player.operator)
    _push(ticket, player)
    return ticket


# --- Matching ---------------------------------------------------------------------------------
def queue_match(*, queue_id: int) -> int:
    """Seat every pair of the queue's waiting players that may meet now (``bands.pairs``);
    how many pairs were seated. A decision some of whose pairs did not sit (a refusal, a
    ticket cancelled meanwhile) is taken again from the tickets still waiting."""
    queue = selectors.queue_get(queue_id=queue_id)
    seated = 0
    for _ in range(MATCH_ROUNDS):
        tickets = selectors.queue_waiting(queue_id=queue_id)
        if len(tickets) < 2:
            break
        by_id = {ticket.pk: ticket for ticket in tickets}
        links = linked_pairs(player_ids=(ticket.player_id for ticket in tickets))
        chosen = bands.pairs(
            [bands.Waiting(t.pk, t.player_id, t.rating, t.joined_at) for t in tickets],
            now=timezone.now(),
            linked=partial(pair_linked, links),
        )
        outcomes = [
            _seat_pair(queue, by_id[first.ticket], by_id[second.ticket]) for first, second in chosen
        ]
        seated += outcomes.count(SEATED)
        if all(outcome == SEATED for outcome in outcomes):
            break  # every pair sat (or there was none): nobody left meets anybody
    return seated


def _seat_pair(queue: Queue, first: Ticket, second: Ticket) -> str:
    """One pair through games' ``pair_seat``; what came of it."""

    def claim() -> bool:
        lock_queue(queue.pk)
        locked = lock_tickets([first.pk, second.pk])
        return len(locked) == 2 and all(t.status == Ticket.Status.WAITING for t in locked)

    def record(seats: list[Seat]) -> None:
        for ticket, seat in zip((first, second), seats, strict=True):
            waited = (timezone.now() - ticket.joined_at).total_seconds()
            _end(ticket, Ticket.Status.SEATED, seat=seat)
            ticket.queue = queue
            audit_record(
                actor=QUICK_SEAT_ACTOR,
                action="quick_seat.seated",
                obj=ticket,
                operator=ticket.player.operator,
                data={"match": seat.match_id, "seat": seat.pk, "waited_seconds": round(waited, 1)},
            )
            _push(ticket, ticket.player)

    pair = [
        PairSeat(ticket.player, ticket.cashier_amount, queue.stake_per_point)
        for ticket in (first, second)
    ]
    try:
        seats = pair_seat(
            room=queue.room, pair=pair, actor=QUICK_SEAT_ACTOR, claim=claim, record=record
        )
    except PairSeatRefused as refused:
        if isinstance(refused.problem, LinkedPlayersProblem):
            return (
                SKIPPED  # linked meanwhile: the next decision reads the link and keeps them apart
            )
        ticket = first if refused.player_id == first.player_id else second
        _refuse(ticket_id=ticket.pk, queue=queue, problem=refused.problem)
        return REFUSED
    return SEATED if seats is not None else GONE


def _refuse(*, ticket_id: int, queue: Queue, problem: Problem) -> None:
    with transaction.atomic():
        ticket = lock_ticket(ticket_id)
        if ticket.status != Ticket.Status.WAITING:
            return
        _end(ticket, Ticket.Status.REFUSED, problem_type=problem.type_uri())
        ticket.queue = queue
        audit_record(
            actor=QUICK_SEAT_ACTOR,
            action="quick_seat.refused",
            obj=ticket,
            operator=ticket.player.operator,
            data={"problem": problem.type_uri()},
        )
        _push(ticket, ticket.player)
    logger.info("quick seat %s refused: %s", ticket_id, problem.type_uri())


# --- The beat job ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Tick:
    expired: int
    seated: int  # pairs


def tickets_expire() -> int:
    """End the tickets that waited their whole lifetime; how many."""
    joined_before = timezone.now() - timedelta(seconds=TICKET_LIFETIME_SECONDS)
    expired = 0
    for ticket_id in selectors.tickets_waiting_since(
        joined_before=joined_before, limit=EXPIRE_BATCH
    ):
        with transaction.atomic():
            ticket = lock_ticket(ticket_id)
            if ticket.status != Ticket.Status.WAITING:
                continue
            _end(ticket, Ticket.Status.EXPIRED)
            audit_record(
                actor=QUICK_SEAT_ACTOR,
                action="quick_seat.expired",
                obj=ticket,
                operator=ticket.player.operator,
            )
            _push(selectors.ticket_get(ticket_id=ticket.pk), ticket.player)
            expired += 1
    return expired


def quick_seat_tick() -> Tick:
    """Expire what is due, then match every queue that has waiting tickets."""
    expired = tickets_expire()
    seated = sum(queue_match(queue_id=queue_id) for queue_id in selectors.queues_with_waiting())
    return Tick(expired=expired, seated=seated)
