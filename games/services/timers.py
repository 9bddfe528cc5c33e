"""Turn timers, forfeits and resigning (R10 "Leaving, timing out").

- Every turn's deadline is set by the move that gives the turn
  (``hand_lifecycle.turn_deadline``: the room's ``turn_seconds`` from then);
  ``turn_timers_expire`` (the beat job ``games.tasks.expire_turns``) forfeits the game of
  a player whose turn is past its deadline plus ``turn_grace()``. The house bot never times
  out: its lost move is queued again instead.
- ``match_forfeit``: the forfeiting seat loses. Heads-up (R10) the opponent is treated as the
  first to knock (FTK) or as having reached the target (Match Play, Money Play), through
  ``engine.forfeit_result``; with three and four seats (R12) the others play on until one is
  left. Leaving a running table, resigning and timing out all end here.
- ``match_resign``: a player gives the running game up.

Transactions: ``match_resign`` is top-level and durable; each forfeit of the timer sweep
runs in a durable transaction of its own; ``match_forfeit`` itself is atomic, not durable
(``seating.seat_leave`` and ``match_resign`` call it inside theirs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from games import engine
from games.locks import lock_match
from games.models import Hand, HandEvent, Match, Seat
from games.problems import (
    MatchNotInProgressProblem,
    NotSeatedProblem,
    StaleSequenceProblem,
)
from games.services.hand_lifecycle import (
    HAND_STATE_FIELDS,
    MatchEnd,
    bot_move_enqueue,
    bot_turn_on_commit,
    engine_event_payload,
    events_append,
    forfeit_ranking,
    hand_abandon,
    match_after_hand,
    match_finish,
    running_hand_lock,
    seats_finish,
    stale_sequence_problem,
    turn_clear,
    turn_give,
)
from games.services.interruptions import outages_apply
from games.services.play import auto_turn_play
from games.services.turn_clock import AUTO, FORFEIT, turn_clock_run_out
from gin_platform.audit import audit_record
from gin_platform.heartbeat import moves_possible
from gin_platform.request_path.precompiled import save_fields
from gin_platform.tenancy.principals import Actor

logger = logging.getLogger(__name__)


# --- Forfeits (R10; R12 with three and four seats) ---------------------------------------
@transaction.atomic
def match_forfeit(
    *,
    match: Match | int,
    seat: int,
    reason: str,
    actor: Actor,
    expected_seq: int | None = None,
) -> Match:
    """``seat`` forfeits the running match (leaving, resigning, timing out). Heads-up (R10
    "Leaving, timing out") the match ends: the opponent is treated as the first to knock
    (FTK) or as having reached the target (Match Play, Money Play). With three and four
    seats (R12 "Leaving") the others play on until one is left. With ``expected_seq`` (the
    turn timers) nothing happens unless the game is still exactly there, so a move that
    races the timer either applies or loses, never both.

    Atomic, not durable: leaving a running table (``seating.seat_leave``) and resigning run it
    inside their own transaction; the timer sweep runs each one in a durable transaction.
    """
    if reason not in Match.ForfeitReason.values:
        raise ValueError(f"unknown forfeit reason {reason!r}")
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    if seat not in locked.positions:
        raise ValueError(f"a seat is 0..{locked.seat_count - 1}, got {seat!r}")
    if expected_seq is not None and expected_seq != locked.seq:
        raise stale_sequence_problem(locked, expected_seq)
    hand = running_hand_lock(locked)
    if seat in locked.forfeited_seats:  # R12: a seat that left plays on no more
        raise NotSeatedProblem(gettext("You have already left this game."))
    audit_record(
        actor=actor,
        action="match.forfeited",
        obj=locked,
        operator=locked.operator,
        data={"seat": seat, "reason": reason, "hand": hand.number},
    )
    forfeit = _table_forfeit if locked.is_multi else _heads_up_forfeit
    forfeit(match=locked, hand=hand, seat=seat, reason=reason, actor=actor)
    return locked


def _heads_up_forfeit(*, match: Match, hand: Hand, seat: int, reason: str, actor: Actor) -> None:
    """R10: the hand is abandoned and the match ends (``engine.forfeit_result``)."""
    result = engine.forfeit_result(
        match.variant,
        seat,
        hand_points=(match.points_0, match.points_1),  # match.points of a heads-up match
        hands_won=(match.hands_won_0, match.hands_won_1),
        target=match.target,
    )
    entry = {
        "kind": HandEvent.FORFEIT,
        "seat": seat,
        "state_seq": hand.seq,
        "payload": {"reason": reason},
    }
    hand_abandon(match=match, hand=hand, entry=entry, actor=actor)
    match.forfeit_seat = seat
    match.forfeit_reason = reason
    end = MatchEnd(
        reason=engine.REASON_FORFEIT,
        winner_seat=result.winner,
        reached_target=result.reached_target,
        money_play=result.money_play,
        forfeit=engine.Forfeit(seat=seat, reason=reason),
    )
    match_finish(match=match, hand=hand, end=end, actor=actor)


def _table_forfeit(*, match: Match, hand: Hand, seat: int, reason: str, actor: Actor) -> None:
    """R12: the seat's cards go dead and its turns are skipped (``engine.forfeit``); it will
    rank last, the latest leaver above earlier ones. While two or more seats remain the game
    goes on (a hand the forfeit ended, void after the last reshuffle, moves the match on as
    any ended hand); when one is left, it wins and the hand is abandoned."""
    new_state, events = engine.forfeit(hand.engine_state(), seat)
    entries = [
        {
            "kind": event.kind,
            "seat": event.seat,
            "state_seq": event.seq,
            # The hand's replay applies a forfeit from this entry (engine.replay).
            "action": {"kind": HandEvent.FORFEIT, "seat": seat} if index == 0 else None,
            "payload": ({"reason": reason} if event.kind == HandEvent.FORFEIT else {})
            | engine_event_payload(event),
        }
        for index, event in enumerate(events)
    ]
    events_append(match=match, hand=hand, entries=entries, actor=actor)
    match.forfeits = [*match.forfeits, {"seat": seat, "reason": reason}]
    now = timezone.now()
    seats_finish(match=match, now=now, position=seat)
    if new_state.to_act != hand.to_act:
        turn_give(match=match, hand=hand)
    hand.engine_state_set(new_state)
    hand.seq = new_state.seq
    hand.to_act = new_state.to_act
    outcome = new_state.outcome  # a hand that is over has its outcome
    last_one = new_state.is_over and outcome is not None and outcome.kind == "forfeit"
    if new_state.is_over:
        assert outcome is not None
        hand.outcome = outcome.to_dict()
        hand.ended_at = now
        turn_clear(hand)
        # One seat left (R12): the hand is abandoned and scores nothing; else it ended
        # (void after the last reshuffle) and counts as any ended hand.
        hand.status = Hand.Status.ABANDONED if last_one else Hand.Status.ENDED
    save_fields(hand, fields=HAND_STATE_FIELDS)
    latest = hand
    if last_one:
        end = MatchEnd.ranked(engine.REASON_FORFEIT, forfeit_ranking(match))
        match_finish(match=match, hand=hand, end=end, actor=actor)
    elif new_state.is_over:
        assert outcome is not None
        dealt = match_after_hand(match=match, hand=hand, outcome=outcome, actor=actor)
        latest = dealt if dealt is not None else hand
    match.save(update_fields=["seq", "forfeits", "seat_scores"])
    bot_turn_on_commit(match, latest)


# --- Resigning and turn timers ---------------------------------------------------------
@transaction.atomic(durable=True)
def match_resign(*, seat: Seat, actor: Actor, expected_seq: int | None = None) -> Match:
    """The player at ``seat`` gives the running game up (R10: a forfeit, reason
    ``resigned``), on their turn or not. With ``expected_seq`` it applies only if the game is
    still exactly where the player saw it."""
    if seat.state in Seat.GONE_STATES:  # left before the start (or never came, R14)
        raise NotSeatedProblem(gettext("You left this game before it started."))
    return match_forfeit(
        match=seat.match_id,
        seat=seat.position,
        reason=Match.ForfeitReason.RESIGNED,
        actor=actor,
        expected_seq=expected_seq,
    )


TIMER_ACTOR = Actor.system("turn-timer")
AUTO_ACTOR = Actor.system("auto-play")  # R13: the turns the platform plays for a player
TIMER_BATCH = 500


def turn_grace() -> timedelta:
    """How long after a turn's deadline the timer waits before it forfeits the game
    (network latency of a move sent at the last moment). Default 2 s."""
    return timedelta(seconds=float(settings.GAMES_TURN_GRACE_SECONDS))


@dataclass(frozen=True)
class TimerSweep:
    forfeited: list[int] = dataclass_field(default_factory=list)  # match ids forfeited (timeout)
    extended: list[int] = dataclass_field(default_factory=list)  # R13: grace or bank started
    auto_played: list[int] = dataclass_field(default_factory=list)  # R13: a turn played for it
    bot_nudged: list[int] = dataclass_field(default_factory=list)  # bot turns queued again
    skipped: list[int] = dataclass_field(default_factory=list)  # the game moved on first


def turn_timers_expire(*, now: datetime | None = None, limit: int = TIMER_BATCH) -> TimerSweep:
    """Beat job (``games.tasks.expire_turns``): every turn past its deadline (plus the grace)
    moves on by R13 (``turn_clock``: the reconnect grace, the time bank, an auto-played turn)
    and, when R13 has nothing left, forfeits the game of the player to act (R10, reason
    ``timeout``).

    First the platform's own outages: nothing fires while the web heartbeat is overdue (no
    move could be taken), and every outage is applied (its deadlines moved on, or its matches
    voided) before any turn is looked at (``interruptions``).

    Each expired turn is read together with the match's sequence number in ONE query, then
    acted on with ``expected_seq`` = that number in its own transaction: if the player's
    move commits first the sequence has moved on and the timer does nothing; if the timer
    commits first the move finds the turn in its next stage, or the sequence moved (409
    stale-sequence). Never both.

    The house bot never times out: an expired bot turn means its queued move was lost (a
    worker restart), so the move is queued again instead.
    """
    if not moves_possible(now=now):
        return TimerSweep()
    outages_apply()
    now = now or timezone.now()
    expired = (
        Hand.objects.filter(
            status=Hand.Status.IN_PROGRESS,
            to_act__isnull=False,
            turn_deadline__lt=now - turn_grace(),
            match__status=Match.Status.RUNNING,
        )
        .order_by("turn_deadline")
        .values_list("match_id", "to_act", "match__seq", "match__bot_seat", "match__bot_seats")[
            :limit
        ]
    )
    sweep = TimerSweep()
    for match_id, seat, seq, bot, bots in expired:
        assert seat is not None  # read with to_act__isnull=False
        if bot == seat or seat in (bots or ()):
            bot_move_enqueue(match_id, seq)
            sweep.bot_nudged.append(match_id)
            continue
        try:
            step = turn_clock_run_out(match_id=match_id, seat=seat, expected_seq=seq, now=now)
            if step.outcome == AUTO:
                auto_turn_play(match_id=match_id, seat=seat, expected_seq=seq, actor=AUTO_ACTOR)
                sweep.auto_played.append(match_id)
            elif step.outcome == FORFEIT:
                with transaction.atomic(durable=True):  # each game commits on its own
                    match_forfeit(
                        match=match_id,
                        seat=seat,
                        reason=Match.ForfeitReason.TIMEOUT,
                        actor=TIMER_ACTOR,
                        expected_seq=seq,
                    )
                sweep.forfeited.append(match_id)
            else:
                sweep.extended.append(match_id)
        except (StaleSequenceProblem, MatchNotInProgressProblem):
            sweep.skipped.append(match_id)  # a move (or a resignation) got there first
    if sweep.forfeited:
        logger.info("turn timer: forfeited %s", sweep.forfeited)
    return sweep
