"""R13: what happens when a turn's clock runs out, before anything is forfeited.

A turn's deadline (``Hand.turn_deadline``) ends its current stage (``Hand.turn_stage``):

    turn (turn_seconds) -> grace (reconnect_grace_seconds, once per disconnection, only for a
    disconnected seat with protections left today; uncounted in the grace after the
    platform's own outage ended, whose dropped sockets are not the player's doing) -> bank
    (the seat's time bank, whatever is left) -> auto-play (at most auto_play_turns per
    match) -> forfeit (R10, R12)

A turn may also be ``pause`` while its player's reality check waits (player protection,
``protection_clock``): when the pause runs out the turn's stage runs on from where it stopped.

- ``turn_clock_run_out`` (the turn timer, ``timers.turn_timers_expire``) moves an expired
  turn to its next stage, in one transaction with the match locked and only if the game is
  still at the sequence number the timer read: a move racing it wins or loses whole. A
  stage is not an event of the feed (the match's ``seq`` stays, so a move sent against it
  still applies); the views show it and a push tells the table.
- ``seat_present`` (a move the seat made itself): the time bank is charged for the time it
  ran, and a seat given the grace is connected again.
- ``auto_played_count``: the turn the platform played for the seat is counted (and its bank,
  which ran out, is empty).

Per seat and match (``Match.clocks``): ``banks_ms`` (the bank left), ``bank_used_ms``,
``auto_played``, ``protected`` (turns given the grace), ``absent`` (seats given the grace
that have not moved since: their disconnection is the same one until they do).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.clock_selectors import outage_ended_within, protections_today
from games.locks import lock_match
from games.models import Hand, Match, Seat, TurnProtection
from games.realtime import liveness, presence, publisher
from games.services.hand_lifecycle import (
    BANK,
    GRACE,
    TURN,
    running_hand_lock,
    stale_sequence_problem,
)
from games.services.protection_clock import PAUSED, pause_end
from gin_platform.audit import audit_record
from gin_platform.request_path.precompiled import save_fields
from gin_platform.request_path.seen import players_seen
from gin_platform.tenancy.principals import Actor

logger = logging.getLogger(__name__)

AUTO, FORFEIT = "auto", "forfeit"  # what follows when every stage is used


def _seat_list(clocks: dict[str, Any], name: str, seats: int) -> list[int]:
    return list(clocks.get(name) or [0] * seats)


def _elapsed_ms(since: datetime | None, now: datetime) -> int:
    return 0 if since is None else max(0, int((now - since).total_seconds() * 1000))


def _bank_charge(match: Match, hand: Hand, seat: int, now: datetime) -> None:
    """The bank ran from ``hand.stage_started_at`` to ``now``: take it off (R13)."""
    clocks = match.clocks
    banks = _seat_list(clocks, "banks_ms", match.seat_count)
    used = _seat_list(clocks, "bank_used_ms", match.seat_count)
    spent = min(banks[seat], _elapsed_ms(hand.stage_started_at, now))
    banks[seat] -= spent
    used[seat] += spent
    clocks["banks_ms"], clocks["bank_used_ms"] = banks, used


def seat_present(*, match: Match, hand: Hand, seat: int) -> bool:
    """``seat`` moved on its own turn: charge its bank if the bank was running, and end its
    disconnection. Whether ``match.clocks`` changed (the caller saves it then)."""
    changed = False
    if hand.turn_stage == BANK:
        _bank_charge(match, hand, seat, timezone.now())
        changed = True
    absent = match.clocks.get("absent") or []
    if seat in absent:
        match.clocks["absent"] = [other for other in absent if other != seat]
        changed = True
    return changed


def auto_played_count(*, match: Match, hand: Hand, seat: int) -> None:
    """The platform played ``seat``'s turn (R13): counted; the bank that ran out is empty."""
    if hand.turn_stage == BANK:
        _bank_charge(match, hand, seat, hand.turn_deadline or timezone.now())
    auto_played = _seat_list(match.clocks, "auto_played", match.seat_count)
    auto_played[seat] += 1
    match.clocks["auto_played"] = auto_played


def auto_plays_left(match: Match, seat: int) -> int:
    return match.auto_play_turns - _seat_list(match.clocks, "auto_played", match.seat_count)[seat]


# --- Presence and the daily cap ------------------------------------------------------------
def seat_disconnected(*, match_id: int, seat: int, player_id: uuid.UUID) -> bool:
    """R13: no open socket on the seat and no request from its player within
    ``PRESENCE_TIMEOUT_SECONDS``. A socket of a process gone silent (killed without closing
    it) is not open (``liveness``). If the cache cannot be read the seat counts as
    disconnected: presence only ever protects a player."""
    try:
        counted = presence.seat_sockets(match_id=match_id, seat=seat)
        sockets = liveness.live_sockets(match_id=match_id, seat=seat, counted=counted)
        return sockets == 0 and not players_seen([player_id])
    except Exception:
        logger.warning("presence unreadable for match %s seat %s", match_id, seat)
        return True


# --- The turn timer's step ---------------------------------------------------------------
@dataclass(frozen=True)
class ClockStep:
    """What the timer did with an expired turn: a new stage (``grace``, ``bank``), or what
    must follow (``auto``: play the turn for the seat; ``forfeit``)."""

    outcome: str
    deadline: datetime | None = None


TIMER_ACTOR = Actor.system("turn-timer")


@transaction.atomic(durable=True)
def turn_clock_run_out(
    *, match_id: int, seat: int, expected_seq: int, now: datetime | None = None
) -> ClockStep:
    """The current stage of ``seat``'s turn ran out: start its next stage, or say that the
    turn must be auto-played or forfeited (the caller does it, with ``expected_seq``)."""
    now = now or timezone.now()
    match = lock_match(match_id)
    if expected_seq != match.seq:
        raise stale_sequence_problem(match, expected_seq)
    hand = running_hand_lock(match)
    if hand.to_act != seat:  # pragma: no cover - the seq check covers a turn that passed
        raise stale_sequence_problem(match, expected_seq)
    if hand.turn_stage == PAUSED:  # a reality check waited its longest: the clock runs on
        pause_end(match=match, hand=hand, now=now)
        save_fields(hand, fields=("turn_deadline", "turn_stage", "stage_started_at"))
        save_fields(match, fields=("clocks",))
        publisher.match_changed(match_id=match.pk)
        return ClockStep(hand.turn_stage, hand.turn_deadline)
    step = None
    if hand.turn_stage == TURN:
        step = _grace_if_disconnected(match=match, hand=hand, seat=seat, now=now)
    if step is None and hand.turn_stage != BANK:
        banks = _seat_list(match.clocks, "banks_ms", match.seat_count)
        if banks[seat] > 0:
            step = _stage_start(match, hand, BANK, now + timedelta(milliseconds=banks[seat]), now)
    if step is None:
        return ClockStep(AUTO if auto_plays_left(match, seat) > 0 else FORFEIT)
    save_fields(hand, fields=("turn_deadline", "turn_stage", "stage_started_at"))
    publisher.match_changed(match_id=match.pk)  # the table sees the new clock
    return step


def _stage_start(
    match: Match, hand: Hand, stage: str, deadline: datetime, now: datetime
) -> ClockStep:
    hand.turn_stage, hand.stage_started_at, hand.turn_deadline = stage, now, deadline
    return ClockStep(stage, deadline)


def _grace_if_disconnected(
    *, match: Match, hand: Hand, seat: int, now: datetime
) -> ClockStep | None:
    """R13: the reconnect grace, once per disconnection, for a disconnected seat with
    protections left today."""
    if seat in (match.clocks.get("absent") or []) or match.reconnect_grace_seconds == 0:
        return None
    player_id = (
        Seat.objects.filter(match=match, position=seat, state__in=Seat.ACTIVE_STATES)
        .values_list("player_id", flat=True)
        .first()
    )
    if player_id is None or not seat_disconnected(
        match_id=match.pk, seat=seat, player_id=player_id
    ):
        return None
    grace = timedelta(seconds=match.reconnect_grace_seconds)
    if outage_ended_within(now=now, seconds=match.reconnect_grace_seconds):
        # The platform's outage dropped the socket (R13: it never costs a player): the grace,
        # not counted, and not marked absent, so a real disconnection later still has its own.
        return _stage_start(match, hand, GRACE, now + grace, now)
    if protections_today(player_id=player_id, now=now).left_today <= 0:
        return None
    TurnProtection.objects.create(
        player_id=player_id, match=match, hand_number=hand.number, seat=seat, granted_at=now
    )
    clocks = match.clocks
    protected = _seat_list(clocks, "protected", match.seat_count)
    protected[seat] += 1
    clocks["protected"] = protected
    clocks["absent"] = [*(clocks.get("absent") or []), seat]
    save_fields(match, fields=("clocks",))
    audit_record(
        actor=TIMER_ACTOR,
        action="turn.protected",
        obj=match,
        operator=match.operator,
        data={"seat": seat, "hand": hand.number, "grace_seconds": match.reconnect_grace_seconds},
    )
    return _stage_start(match, hand, GRACE, now + grace, now)
