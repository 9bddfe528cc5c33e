"""A tournament's matches, opened with their players known (R14; docs/games.md "Tournament
matches"). The tournaments app calls these; games never imports it, and tells it of a
match's end with ``games.signals.match_finished`` (``match_voided`` for R13's void).

- ``tournament_match_open``: a table in the tournament's room, a ``waiting`` match (nothing
  staked, no fee, winner takes all: the tournament pays its prizes) and one ``reserved``
  seat per player, in the order given; the same ``reference`` again returns that match.
- ``tournament_seat_claim``: a player takes their reserved seat; the last one taken starts
  the match and deals its first hand (``seating.match_start``, as a full table does).
- ``tournament_no_shows_sweep`` (beat: ``games.tasks.tournament_no_shows``): past the
  match's ``no_show_deadline`` every seat not taken forfeits (R10; R14 "Absence"): two or
  more players who came play on their own, one who came wins by walkover, and with nobody
  the match ends without a winner (``no_contest``).
- ``tournament_match_void``: the tournament was cancelled (R14) while the match was still
  waiting for its players or being played: it is voided as R13 voids a match (nothing to
  give back: no money moves at a tournament's match), its seats released, its players told.

Who may take a seat: no money moves, so no buy-in check and no play session's limits; a
break (a time-out, a self-exclusion) does not refuse it either (R14: a player who
self-excluded during the tournament may finish it). An integrity suspension or ban does,
as at any table, and a network table wants a screen name (docs/games.md).

Locks: the match's Table row, then its Match row (``locks.lock_tournament_match``), then its
seats. Transactions: ``tournament_match_open`` and ``tournament_seat_claim`` are atomic
inside the caller's (the tournament writes its own rows with them); the sweep settles each
match, and ``tournament_match_void`` voids one, in a durable transaction of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from games import engine
from games.locks import lock_seats, lock_tournament_match
from games.models import SEAT_COUNTS, WINNER_TAKES_ALL, Match, Room, Seat, Table, Variant
from games.problems import (
    MatchNotInProgressProblem,
    NetworkTableOtherModeProblem,
    NoShowDeadlinePassedProblem,
    NotSeatedProblem,
    PlaySuspendedProblem,
    ScreenNameRequiredProblem,
)
from games.realtime import publisher
from games.services.hand_lifecycle import MatchEnd, forfeit_ranking, match_finish
from games.services.house_bot import is_house_bot
from games.services.interruptions import locked_match_void, outages_apply
from games.services.seat_checks import players_linked_check
from games.services.seating import match_start
from gin_platform.audit import audit_record
from gin_platform.heartbeat import moves_possible
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import is_network_operator
from integrity.pairing import play_refusal

NO_SHOW_ACTOR = Actor.system("tournament-no-show")
NO_SHOW_BATCH = 200  # matches one sweep settles at most (the rest: the next beat)
MAX_REFERENCE_LENGTH = 64  # Match.external_ref
TOURNAMENT_VARIANTS = (Variant.FTK, Variant.MATCH)  # R14: each round's match is one of them
# What the number of seats changes in the rules (R12); the rest is the room's choice.
_SEAT_OPTIONS = ("seats", "max_reshuffles", "stock_exhaustion", "tie_rule")


def tournament_match_rules(room_rules: Mapping[str, Any], seats: int) -> dict[str, Any]:
    """The room's rule options for a match of ``seats`` players (R6-R9, R12): the knock limit
    and bonuses are the room's; what the seat count changes (R12: seven cards, the stock's
    reshuffles, the tie rule) is the room's choice while the match and the room's tables
    are both heads-up or both of three and four seats, else R12's defaults for the match's
    count (say, a four-seat room's final played heads-up)."""
    room = engine.RuleSet.from_dict(dict(room_rules))
    options = {name: value for name, value in room.to_dict().items() if name not in _SEAT_OPTIONS}
    if (room.seats > 2) == (seats > 2):  # the same family: the room's choices stand
        options |= {
            "tie_rule": room.tie_rule,
            "stock_exhaustion": room.stock_exhaustion,
            "max_reshuffles": room.max_reshuffles,
        }
    if seats > 2:
        options["seats"] = seats
    return engine.RuleSet.from_dict(options).to_dict()


def _running_score(seats: int) -> dict[str, Any]:
    """R12: the running score per seat (heads-up keeps it in the match's own columns)."""
    return {"penalty_totals": [0] * seats, "hands_won": [0] * seats} if seats > 2 else {}


# --- Opening ------------------------------------------------------------------------------
def _open_check(
    *,
    room: Room,
    players: Sequence[Player],
    variant: str,
    target: int | None,
    reference: str,
    no_show_seconds: int,
) -> None:
    """What the tournament must have got right (``ValueError``: a caller's mistake, never
    a player's), then linked players (409 ``linked-players``) and, at a network table, live
    and test-mode players apart (409 ``network-table-other-mode``)."""
    if room.purpose != Room.Purpose.TOURNAMENT:
        raise ValueError(f"room {room.pk} is not a tournament's room")
    if not 2 <= len(players) <= room.seats or len(players) not in SEAT_COUNTS:
        raise ValueError(f"a match of room {room.pk} seats 2 to {room.seats} players")
    if len({player.pk for player in players}) != len(players):
        raise ValueError("a player is given twice")
    if variant not in TOURNAMENT_VARIANTS:
        raise ValueError("a tournament's match is First To Knock or Match Play (R14)")
    if variant == Variant.FTK and target is not None:
        raise ValueError("First To Knock is one hand: it has no target (R10)")
    if variant == Variant.MATCH and target not in engine.MATCH_PLAY_TARGETS:
        raise ValueError(f"a Match Play target is one of {engine.MATCH_PLAY_TARGETS}")
    if not reference or len(reference) > MAX_REFERENCE_LENGTH:
        raise ValueError(f"the reference is 1 to {MAX_REFERENCE_LENGTH} characters")
    if type(no_show_seconds) is not int or no_show_seconds <= 0:
        raise ValueError("no_show_seconds is a positive number of seconds")
    network = is_network_operator(room.operator_id)
    for player in players:
        if not network and player.operator_id != room.operator_id:
            raise ValueError(f"player {player.pk} is not of the room's operator")
        if is_house_bot(player):
            raise ValueError("the house bot plays at practice tables only (R11)")
    if network and len({player.operator.is_sandbox for player in players}) > 1:
        raise NetworkTableOtherModeProblem("Live and test-mode players never share a table.")
    players_linked_check(players=players)


def _same_match(match: Match, *, room: Room, players: Sequence[Player]) -> Match:
    """The match a reference already names, if it is this very one (else ``ValueError``).
    Its seats were made in the players' order (their positions may have changed since)."""
    seated = list(match.seats.order_by("pk").values_list("player_id", flat=True))
    if match.room_id != room.pk or seated != [player.pk for player in players]:
        raise ValueError(f"reference {match.external_ref!r} names another match")
    return match


@transaction.atomic
def tournament_match_open(
    *,
    room: Room,
    players: Sequence[Player],
    variant: str,
    target: int | None,
    reference: str,
    no_show_seconds: int,
    actor: Actor,
) -> Match:
    """Open a tournament's match (R14) at a new table of ``room``: ``waiting``, nothing
    staked (``stake``, ``stake_per_point`` None, ``fee_bps`` 0, winner takes all), the room's
    currency, rules (``tournament_match_rules``) and turn clock, ``variant`` to ``target``
    (None for First To Knock), one ``reserved`` seat per player in the order given
    (positions 0..n-1, 2 to 4 players, nothing charged), ``external_ref`` = ``reference``
    and ``no_show_deadline`` = now + ``no_show_seconds``. The same reference again returns
    the match it opened, unchanged. Linked players never share it (409
    ``linked-players``). Audited."""
    existing = Match.objects.filter(external_ref=reference).first()
    if existing is not None:
        return _same_match(existing, room=room, players=players)
    _open_check(
        room=room,
        players=players,
        variant=variant,
        target=target,
        reference=reference,
        no_show_seconds=no_show_seconds,
    )
    seats = len(players)
    try:
        with transaction.atomic():
            table = Table.objects.create(room=room)
            match = Match.objects.create(
                table=table,
                room=room,
                operator_id=room.operator_id,
                variant=variant,
                rules=tournament_match_rules(room.rules, seats),
                target=target,
                currency=room.currency,
                turn_seconds=room.turn_seconds,
                **room.turn_clock_options(),  # R13, as the room says when the match opens
                seat_count=seats,
                prize_table=WINNER_TAKES_ALL,
                seat_scores=_running_score(seats),
                external_ref=reference,
                no_show_deadline=timezone.now() + timedelta(seconds=no_show_seconds),
            )
    except IntegrityError:  # the same reference opened at once elsewhere: that one stands
        return _same_match(Match.objects.get(external_ref=reference), room=room, players=players)
    assert match.no_show_deadline is not None  # just set
    Seat.objects.bulk_create(
        Seat(
            table=table,
            match=match,
            position=position,
            player=player,
            state=Seat.State.RESERVED,
            amount=0,
            currency=match.currency,
        )
        for position, player in enumerate(players)
    )
    audit_record(
        actor=actor,
        action="match.opened",
        obj=match,
        operator=room.operator,
        data={
            "reference": reference,
            "players": [str(player.pk) for player in players],
            "no_show_deadline": match.no_show_deadline.isoformat(),
        },
    )
    return match


def tournament_matches_ready(
    *, room: Room, match_ids: Sequence[int], no_show_seconds: int, actor: Actor
) -> datetime:
    """The matches just opened together (a tournament's first round, R14) are ready now:
    each still ``waiting`` gets ``no_show_deadline`` = now + ``no_show_seconds``, in one
    UPDATE, and one audit row names them. A start opening hundreds of tables takes seconds;
    a deadline run from each table's own opening would cut the first tables' window by as
    much, before their players could even hear of them (the start commits once). Returns
    the deadline."""
    deadline = timezone.now() + timedelta(seconds=no_show_seconds)
    ready = Match.objects.filter(pk__in=match_ids, room=room, status=Match.Status.WAITING)
    ready.update(no_show_deadline=deadline)
    first = Match.objects.filter(pk__in=match_ids, room=room).order_by("pk").first()
    if first is not None:
        audit_record(
            actor=actor,
            action="matches.ready",
            obj=first,
            operator=room.operator,
            data={"matches": sorted(match_ids), "no_show_deadline": deadline.isoformat()},
        )
    return deadline


# --- A player takes their seat ----------------------------------------------------------------
def _claim_check(*, player: Player, match: Match) -> None:
    """No break is checked (R14, this module's docstring): an integrity suspension or ban
    (``play-suspended``), and at a network table a screen name."""
    network = is_network_operator(match.operator_id)
    refusal = play_refusal(player_id=player.pk, network=network)
    if refusal is not None:
        raise PlaySuspendedProblem(refusal)
    if network and not player.screen_name:
        raise ScreenNameRequiredProblem(
            gettext(
                "Choose a screen name before you sit at a network table: the other players "
                "see only that name."
            )
        )


def _start(*, match: Match, seats: list[Seat], actor: Actor) -> None:
    match.no_show_deadline = None
    match.save(update_fields=["no_show_deadline", "seat_count", "rules", "seat_scores"])
    match_start(match=match, seats=seats, actor=actor)


@transaction.atomic
def tournament_seat_claim(*, player: Player, match: Match, actor: Actor) -> Seat:
    """``player`` takes the seat reserved for them in a tournament's ``match`` (R14):
    ``reserved`` -> ``seated``. The last seat taken starts the match and deals its first
    hand. A seat already taken is returned as it is. Refused: no seat of the player's there
    (409 ``not-seated``), the deadline passed (409 ``no-show-deadline-passed``), the match
    over (409 ``match-not-in-progress``), an integrity suspension (403 ``play-suspended``),
    a network table without a screen name (409 ``screen-name-required``)."""
    locked = lock_tournament_match(match.pk)
    seat = Seat.objects.filter(match=locked, player=player).order_by("-pk").first()
    if seat is None or not locked.is_tournament:
        raise NotSeatedProblem(gettext("You have no seat in this tournament match."))
    if seat.state in (Seat.State.SEATED, Seat.State.PLAYING, Seat.State.FINISHED):
        return seat
    deadline = locked.no_show_deadline
    if seat.state == Seat.State.ABSENT or (deadline is not None and deadline <= timezone.now()):
        raise NoShowDeadlinePassedProblem(
            gettext("The time to take your seat is over: this match goes on without you.")
        )
    if locked.status != Match.Status.WAITING:
        raise MatchNotInProgressProblem(gettext("This match is over."))
    _claim_check(player=player, match=locked)
    (seat,) = lock_seats([seat.pk])
    seat.state = Seat.State.SEATED
    seat.save(update_fields=["state"])
    audit_record(
        actor=actor,
        action="seat.claimed",
        obj=seat,
        operator=locked.operator,
        data={"match": locked.pk, "position": seat.position},
    )
    publisher.match_changed(match_id=locked.pk)
    seats = list(locked.seats.filter(state__in=(Seat.State.RESERVED, Seat.State.SEATED)))
    if all(other.state == Seat.State.SEATED for other in seats):
        _start(match=locked, seats=seats, actor=actor)
        seat.refresh_from_db()
    return seat


# --- The no-show sweep (R14 "Absence") ----------------------------------------------------------
def tournament_no_shows_sweep(*, now: datetime | None = None, limit: int = NO_SHOW_BATCH) -> int:
    """Beat job (``games.tasks.tournament_no_shows``): every tournament's match still
    waiting past its ``no_show_deadline`` goes on without the players who did not come
    (``_no_shows_apply``); how many matches it settled. Like the turn timer, nothing
    fires while the platform could not take moves, and the platform's outages are applied
    first (R13: a deadline that fell inside one is moved on)."""
    if not moves_possible(now=now):
        return 0
    outages_apply()
    now = now or timezone.now()
    due = (
        Match.objects.filter(no_show_deadline__lt=now, status=Match.Status.WAITING)
        .order_by("no_show_deadline")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(_no_shows_apply(match_id=match_id, now=now) for match_id in list(due))


@transaction.atomic(durable=True)
def _no_shows_apply(*, match_id: int, now: datetime) -> bool:
    """The seats still reserved at the deadline are ``absent`` (they forfeit, R10): two or
    more players who came play on their own, renumbered 0..k-1 before the first deal; one
    wins by walkover; nobody: no contest. False when the match moved on meanwhile."""
    match = lock_tournament_match(match_id)
    deadline = match.no_show_deadline
    if match.status != Match.Status.WAITING or deadline is None or deadline >= now:
        return False
    taken = (Seat.State.RESERVED, Seat.State.SEATED)
    seats = lock_seats(match.seats.filter(state__in=taken).values_list("pk", flat=True))
    seats.sort(key=lambda seat: seat.position)
    came = [seat for seat in seats if seat.state == Seat.State.SEATED]
    absent = [seat for seat in seats if seat.state == Seat.State.RESERVED]
    for seat in absent:
        seat.state = Seat.State.ABSENT
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    audit_record(
        actor=NO_SHOW_ACTOR,
        action="match.no_shows",
        obj=match,
        operator=match.operator,
        data={"absent": [seat.position for seat in absent], "came": len(came)},
    )
    if len(came) >= 2:
        _start_without_absent(match=match, came=came)
    else:
        match.no_show_deadline = None
        match.save(update_fields=["no_show_deadline"])
        match_finish(
            match=match,
            hand=None,
            end=_unplayed_end(match=match, came=came, absent=absent),
            actor=NO_SHOW_ACTOR,
            result_seats=seats,
        )
    return True


def _start_without_absent(*, match: Match, came: list[Seat]) -> None:
    """Nothing has been dealt: the players who came take positions 0..k-1 in their order
    (ascending, so no position is ever held twice) and the match is one of k seats."""
    for position, seat in enumerate(came):
        if seat.position != position:
            seat.position = position
            seat.save(update_fields=["position"])
    if len(came) != match.seat_count:
        match.rules = tournament_match_rules(match.rules, len(came))
        match.seat_count = len(came)
        match.seat_scores = _running_score(len(came))
    _start(match=match, seats=came, actor=NO_SHOW_ACTOR)


def _unplayed_end(*, match: Match, came: list[Seat], absent: list[Seat]) -> MatchEnd:
    """One player came: the absent forfeit (R10 heads-up: the one who came is treated as
    the first to knock or as having reached the target; R12: the last one left wins, the
    absent rank last). Nobody came: no contest, nobody wins (one shared place)."""
    reason = Match.ForfeitReason.ABSENT
    if not came:
        shared = engine.Ranking(groups=(match.positions,)) if match.is_multi else None
        return MatchEnd(reason=engine.REASON_NO_CONTEST, winner_seat=None, ranking=shared)
    if match.is_multi:
        match.forfeits = [{"seat": seat.position, "reason": reason} for seat in absent]
        return MatchEnd.ranked(engine.REASON_FORFEIT, forfeit_ranking(match))
    (winner,), (gone,) = came, absent
    match.forfeit_seat, match.forfeit_reason = gone.position, reason
    return MatchEnd(
        reason=engine.REASON_FORFEIT,
        winner_seat=winner.position,
        reached_target=winner.position,
        forfeit=engine.Forfeit(seat=gone.position, reason=reason),
    )


# --- The tournament cancelled (R14 "Cancellation") ------------------------------------------------
VOIDABLE = (Match.Status.WAITING, Match.Status.RUNNING, Match.Status.SUSPENDED)


@transaction.atomic(durable=True)
def tournament_match_void(*, match_id: int, reason: str, actor: Actor) -> bool:
    """End a tournament's match whose tournament was cancelled (R14): waiting for its
    players or being played, it is voided (``interruptions.locked_match_void``): a hand
    being played abandoned, nothing posted (a tournament's match has no escrow), every seat
    released (a reserved one can no longer be taken), ``game.voided`` to the operators, the
    push to its sockets, ``match_voided`` after the commit. False when the match had ended
    already (a result, a void): so the task and the tournaments' sweep may both ask."""
    match = lock_tournament_match(match_id)
    if not match.is_tournament or match.status not in VOIDABLE:
        return False
    locked_match_void(match=match, actor=actor, reason=reason)
    return True
