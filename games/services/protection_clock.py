"""Player protection at the table (docs/player-protection.md "At the table"): reality checks
shown at a turn boundary with the turn clock paused, and a session's end that stops the
game at the end of the hand. Protection decides (``protection.play``); this is where the
table does it.

- ``reality_due_dealt``: at each deal of a real-money match, one read of when each seat's
  reality check is due, kept in ``Match.clocks["reality_due"]`` (epoch seconds per seat):
  a move compares it with the time and reads nothing more.
- ``reality_boundary``: at a turn boundary (the turn passes, a hand is dealt) a seat whose
  check is due has it shown (``protection.play.reality_check_at_boundary``: once across all
  the player's tables) and pushed to their socket; while it waits for an answer the seat is
  in ``clocks["reality_open"]``: its moves are refused (``reality-check-open``) and its turn
  clock is paused (stage ``paused``, at most ``PROTECTION_PAUSE_SECONDS``; then the clock
  runs on from where it stopped, ``pause_end``).
- ``reality_check_closed``: the player answered (or their session ended): their seats'
  clocks run again from where they stopped.
- ``stop_after_hand``: a session ended under an ``end_of_hand`` profile: each running match
  of the player is suspended when its hand in play ends and voided (every stake back, no
  fee, R13's void), forfeit-free.

A leaf: ``hand_lifecycle``, ``play`` and ``turn_clock`` import it; it imports none of them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from games.locks import lock_current_hand, lock_match
from games.models import Hand, Match, Seat
from games.problems import RealityCheckOpenProblem
from games.realtime import publisher
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.request_path.precompiled import save_fields
from gin_platform.tenancy.principals import Actor
from protection.play import reality_check_at_boundary, reality_checks_due

PAUSED = "pause"  # a turn stage: the clock stopped while the seat's reality check waits
PROTECTION_ACTOR = Actor.system("player-protection")


def pause_limit() -> timedelta:
    return timedelta(seconds=settings.PROTECTION_PAUSE_SECONDS)


def _stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _seat_players(match: Match) -> dict[int, Any]:
    return dict(
        Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).values_list(
            "position", "player_id"
        )
    )


# --- At a deal -----------------------------------------------------------------------------
def reality_due_dealt(*, match: Match, clocks: dict[str, Any]) -> None:
    """Fill ``clocks["reality_due"]`` for a new hand (real money only: practice tables have
    no play session)."""
    if match.is_practice:
        return
    players = _seat_players(match)
    due = reality_checks_due(player_ids=players.values())
    clocks["reality_due"] = [
        _stamp(due.get(players[seat])) if seat in players else None
        for seat in range(match.seat_count)
    ]


# --- At a turn boundary --------------------------------------------------------------------
def reality_boundary(*, match: Match, hand: Hand, now: datetime) -> bool:
    """Show the reality checks due at this table and pause the clock of the seat to act if
    its check waits. Whether ``match.clocks`` changed (the caller saves it; the hand's
    clock fields are saved with the hand). Reads nothing unless a check is due."""
    due = match.clocks.get("reality_due")
    if not due:
        return False
    waiting = set(match.clocks.get("reality_open") or ())
    stamp = now.timestamp()
    ready = [
        seat
        for seat, at in enumerate(due)
        if at is not None and at <= stamp and seat not in waiting
    ]
    if not ready and hand.to_act not in waiting:
        return False
    changed = False
    if ready:
        players = _seat_players(match)
        due = list(due)
        for seat in ready:
            player_id = players.get(seat)
            if player_id is None:
                due[seat] = None
                continue
            result = reality_check_at_boundary(player_id=player_id, now=now)
            if result.shown is None:
                due[seat] = _stamp(result.next_due)
                continue
            waiting.add(seat)
            if result.new:
                _push(player_id, {"type": "reality_check", "reality_check": result.shown})
        match.clocks["reality_due"] = due
        match.clocks["reality_open"] = sorted(waiting)
        changed = True
    if hand.to_act in waiting and hand.turn_stage != PAUSED and hand.turn_deadline is not None:
        _pause(match=match, hand=hand, now=now)
        changed = True
    return changed


def reality_check_move_check(*, match: Match, seat: int) -> None:
    """A seat whose reality check waits makes no move until it is answered (409
    ``reality-check-open``)."""
    if seat in (match.clocks.get("reality_open") or ()):
        raise RealityCheckOpenProblem(
            gettext("Answer your reality check before your next move."), seat=seat
        )


def _pause(*, match: Match, hand: Hand, now: datetime) -> None:
    assert hand.turn_deadline is not None  # the caller checked
    match.clocks["paused"] = {
        "stage": hand.turn_stage,
        "left_ms": max(0, int((hand.turn_deadline - now).total_seconds() * 1000)),
    }
    hand.turn_stage = PAUSED
    hand.stage_started_at = now
    hand.turn_deadline = now + pause_limit()


def pause_end(*, match: Match, hand: Hand, now: datetime) -> None:
    """The clock of a paused turn runs again from where it stopped (the check answered, or
    the pause ran to its limit)."""
    paused = match.clocks.pop("paused", None) or {}
    hand.turn_stage = paused.get("stage") or "turn"
    hand.stage_started_at = now if hand.turn_stage == "bank" else None
    hand.turn_deadline = now + timedelta(milliseconds=paused.get("left_ms", 0))


def _push(player_id: UUID, message: dict[str, Any]) -> None:
    publisher.player_message(player_id=player_id, message=message)


# --- After the answer ----------------------------------------------------------------------
def _running_matches(player_id: UUID, *, tournaments: bool = True) -> list[int]:
    seats = Seat.objects.filter(
        player_id=player_id,
        state__in=Seat.ACTIVE_STATES,
        match__status=Match.Status.RUNNING,
        match__is_practice=False,
    )
    if not tournaments:
        seats = seats.filter(match__external_ref__isnull=True)
    return list(seats.values_list("match_id", flat=True))


def reality_check_closed(*, player_id: UUID, next_due: datetime | None) -> None:
    """The player answered their reality check (or their session ended): at each of their
    running tables the seat leaves ``reality_open``, its next check is due at ``next_due``
    and a paused turn runs on. One transaction per match (never with the session's lock)."""
    for match_id in _running_matches(player_id):
        _seat_resume(match_id=match_id, player_id=player_id, next_due=next_due)


@transaction.atomic(durable=True)
def _seat_resume(*, match_id: int, player_id: UUID, next_due: datetime | None) -> None:
    match = lock_match(match_id)
    if match.status != Match.Status.RUNNING:
        return
    seat = (
        Seat.objects.filter(match=match, player_id=player_id, state__in=Seat.ACTIVE_STATES)
        .values_list("position", flat=True)
        .first()
    )
    if seat is None:
        return
    clocks = match.clocks
    clocks["reality_open"] = [s for s in clocks.get("reality_open") or () if s != seat]
    due = list(clocks.get("reality_due") or [None] * match.seat_count)
    due[seat] = _stamp(next_due)
    clocks["reality_due"] = due
    hand = lock_current_hand(match)
    if hand is not None and hand.to_act == seat and hand.turn_stage == PAUSED:
        pause_end(match=match, hand=hand, now=timezone.now())
        save_fields(hand, fields=("turn_stage", "stage_started_at", "turn_deadline"))
    save_fields(match, fields=("clocks",))
    publisher.match_changed(match_id=match.pk)


# --- A session's end at the table ----------------------------------------------------------
def stop_after_hand(*, player_id: UUID, reason: str) -> list[int]:
    """Mark each running real-money match of the player to stop when its hand in play ends
    (``reason``: the session's end reason). The matches marked. A tournament's match plays
    on: its buy-in counted at registration, and R14 lets a player who self-excluded since
    finish the tournament (a lesser break no less)."""
    marked = []
    for match_id in _running_matches(player_id, tournaments=False):
        if _stop_mark(match_id=match_id, reason=reason):
            marked.append(match_id)
    return marked


@transaction.atomic(durable=True)
def _stop_mark(*, match_id: int, reason: str) -> bool:
    match = lock_match(match_id)
    if match.status != Match.Status.RUNNING or match.clocks.get("stop_after_hand"):
        return False
    match.clocks["stop_after_hand"] = reason
    save_fields(match, fields=("clocks",))
    audit_record(
        actor=PROTECTION_ACTOR,
        action="match.stop_after_hand",
        obj=match,
        operator=match.operator,
        data={"reason": reason},
    )
    publisher.match_changed(match_id=match.pk)
    return True


def stop_due(match: Match) -> bool:
    """Whether the match stops at the end of this hand (a player's session ended)."""
    return bool(match.clocks.get("stop_after_hand"))


def match_stop(*, match: Match) -> None:
    """The hand in play ended and a player's session has ended: no next deal. The match is
    suspended (no move reaches it) and voided after the commit, forfeit-free
    (``games.tasks.match_void_task``; the protection sweep voids any left suspended)."""
    match.status = Match.Status.SUSPENDED
    save_fields(match, fields=("status",))
    enqueue_on_commit("games.tasks.match_void_task", match.pk, str(match.clocks["stop_after_hand"]))
