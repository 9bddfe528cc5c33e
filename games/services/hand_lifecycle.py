"""The hand's lifecycle, which every change of a running game shares (R3, R7, R10; R12 with
three and four seats; docs/games.md "Where things are"):

- ``hand_deal``: a hand dealt from a fresh server seed, committed to first (R3);
  ``event_rows`` / ``events_append``: the events appended to the hand and the match's feed
  (pushed after the commit); ``turn_deadline``: each turn's deadline (R10).
- ``running_hand_lock`` and ``stale_sequence_problem``: what a move or a forfeit checks first.
- ``match_after_hand``: after a hand, the running score, then a void hand redealt, the next
  hand dealt, or the match finished (``match_finish``: its result, heads-up or R12's,
  announced on commit with ``games.signals.match_finished``). Forfeits (``timers``) finish a
  match here too. The number of seats changes only the rules the engine applies (R10 or
  R12): the score and the end (``_heads_up_end``, ``_table_end``), and the result's shape.
- ``bot_turn_on_commit``: when the turn is the house bot's, its move is queued after the
  commit (``bot_move_enqueue``; the bot decides and plays in ``house_bot``).

``play`` (the actions), ``timers`` (forfeits and the turn timer) and ``seating`` (the first
deal) build on it; it imports no sibling but the leaf ``protection_clock`` (player
protection at the table: reality checks at the deal, a session's end after the hand).
Everything here runs inside the caller's transaction (a move, a forfeit, the seat that
starts a match).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext

from games import engine, refusals
from games.locks import lock_current_hand, lock_seats
from games.models import Hand, HandEvent, Match, Seat, Variant
from games.problems import MatchNotInProgressProblem, StaleSequenceProblem
from games.realtime import publisher
from games.selectors import ended_hand_outcomes
from games.services.protection_clock import (
    match_stop,
    reality_boundary,
    reality_due_dealt,
    stop_due,
)
from games.signals import match_finished
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.request_path.precompiled import insert_rows, save_fields
from gin_platform.tenancy.principals import Actor

# What a move (or a forfeit) changes in its hand's row.
HAND_STATE_FIELDS = (
    "state",
    "seq",
    "to_act",
    "turn_deadline",
    "turn_stage",
    "stage_started_at",
    "status",
    "outcome",
    "ended_at",
    "event_seq",
)
# The running score of a match (R10 heads-up; R12 per seat), saved with the hand that
# changed it.
SCORE_FIELDS = ("points_0", "points_1", "hands_won_0", "hands_won_1", "seat_scores")


# --- What a move or a forfeit checks first -----------------------------------------------
def turn_deadline(match: Match) -> datetime:
    """The deadline of a turn given now: the room's ``turn_seconds`` from now (R10; the turn
    timers in ``timers`` expire it)."""
    return timezone.now() + timedelta(seconds=match.turn_seconds)


TURN, GRACE, BANK = "turn", "grace", "bank"  # R13: the stages of a turn's clock


def turn_give(*, match: Match, hand: Hand) -> None:
    """A new turn (``hand.to_act``'s): its own clock, ``turn_seconds`` from now (R10, R13)."""
    hand.turn_deadline = turn_deadline(match)
    hand.turn_stage = TURN
    hand.stage_started_at = None


def turn_clear(hand: Hand) -> None:
    """Nobody's turn any more (the hand ended or was abandoned)."""
    hand.turn_deadline = None
    hand.turn_stage = TURN
    hand.stage_started_at = None


def hand_abandon(*, match: Match, hand: Hand, entry: dict[str, Any], actor: Actor) -> None:
    """The match ended during ``hand`` (a heads-up forfeit, R10; a void, R13): nobody plays
    it any more. ``entry`` is the table's event that says why."""
    hand.status = Hand.Status.ABANDONED
    hand.ended_at = timezone.now()
    turn_clear(hand)
    events_append(match=match, hand=hand, entries=[entry], actor=actor)
    fields = ("status", "ended_at", "turn_deadline", "turn_stage", "stage_started_at")
    hand.save(update_fields=[*fields, "event_seq"])


def clocks_dealt(*, match: Match, number: int) -> dict[str, Any]:
    """R13 at a new hand: the first fills every seat's time bank; each later one tops it up
    by ``time_bank_top_up_seconds``, never above ``time_bank_seconds``. The counts of
    auto-played and protected turns run for the whole match."""
    full = match.time_bank_seconds * 1000
    seats = match.seat_count
    clocks = dict(match.clocks or {})
    if number == 1 or "banks_ms" not in clocks:
        return {
            "banks_ms": [full] * seats,
            "auto_played": [0] * seats,
            "protected": [0] * seats,
            "absent": [],
        }
    top_up = match.time_bank_top_up_seconds * 1000
    clocks["banks_ms"] = [min(full, bank + top_up) for bank in clocks["banks_ms"]]
    return clocks


def stale_sequence_problem(match: Match, expected_seq: int) -> StaleSequenceProblem:
    """409 stale-sequence: ``expected_seq`` is not where the game is now."""
    return StaleSequenceProblem(
        gettext("The game has moved on since your last look: look at the table again, then play."),
        expected_seq=expected_seq,
        current_seq=match.seq,
    )


def running_hand_lock(match: Match) -> Hand:
    """The hand being played in a locked, running match, locked in its turn (Match -> Hand)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(refusals.match_not_in_progress_detail(match.status))
    hand = lock_current_hand(match)
    if hand is None:  # pragma: no cover - a running match always has a hand in progress
        raise MatchNotInProgressProblem(gettext("No hand is being played in this game now."))
    return hand


# --- The event log ------------------------------------------------------------------------
def _actor_label(actor: Actor) -> str:
    return f"{actor.type}:{actor.id}"


def events_append(
    *, match: Match, hand: Hand, entries: Sequence[dict[str, Any]], actor: Actor
) -> None:
    """Append events to the hand and the match's feed; the caller saves hand and match."""
    rows = event_rows(match=match, hand=hand, entries=entries, actor=actor)
    insert_rows(rows)
    publisher.match_changed(match_id=match.pk, rows=rows)


def event_rows(
    *, match: Match, hand: Hand, entries: Sequence[dict[str, Any]], actor: Actor
) -> list[HandEvent]:
    """The feed rows of ``entries``, numbered on from the hand's and the match's counters
    (both moved on), not written yet: ``events_append`` writes them, or the caller with
    its own changes (a move: ``saves_and_inserts``) and then ``publisher.match_changed``."""
    rows = []
    for entry in entries:
        hand.event_seq += 1
        match.seq += 1
        rows.append(
            HandEvent(
                hand=hand,
                match=match,
                seq=hand.event_seq,
                match_seq=match.seq,
                actor=_actor_label(actor),
                **entry,
            )
        )
    return rows


def engine_event_payload(event: engine.Event) -> dict[str, Any]:
    """The full engine event as JSON (``selectors.engine_event`` reads it back)."""
    payload: dict[str, Any] = {}
    if event.card is not None:
        payload["card"] = str(event.card)
    if event.outcome is not None:
        payload["outcome"] = event.outcome.to_dict()
    if event.hands is not None:
        payload["hands"] = [[str(card) for card in hand] for hand in event.hands]
    if event.seed is not None:
        payload["seed"] = event.seed
    if event.stock_count is not None:
        payload["stock_count"] = event.stock_count
    return payload


# --- The deal -----------------------------------------------------------------------------
def hand_deal(*, match: Match, number: int, dealer: int, seed: str, actor: Actor) -> Hand:
    """R3: deal a hand from a fresh server seed, committing to the seed first (its SHA-256
    is stored and shown before any card is seen)."""
    state = engine.deal(
        seed=seed,
        dealer=dealer,
        rules=engine.RuleSet.from_dict(match.rules),
        out=match.forfeited_seats,  # R12: seats that forfeited are dealt dead cards
    )
    match.clocks = clocks_dealt(match=match, number=number)
    reality_due_dealt(match=match, clocks=match.clocks)
    save_fields(match, fields=("clocks",))
    hand = Hand.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        server_seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        state=engine.state_to_json(state),
        seq=state.seq,
        to_act=state.to_act,
        turn_deadline=turn_deadline(match),
    )
    events_append(
        match=match,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.DEALT,
                "seat": dealer,
                "state_seq": state.seq,
                "payload": {
                    "number": number,
                    "dealer": dealer,
                    "seed_commitment": hand.seed_commitment,
                    "to_act": state.to_act,
                    # R3: the upcard is dealt face up (public); the fairness check uses it.
                    "upcard": str(state.upcard),
                },
            }
        ],
        actor=actor,
    )
    if reality_boundary(match=match, hand=hand, now=timezone.now()):  # a check due: shown
        save_fields(match, fields=("clocks",))
        save_fields(hand, fields=("event_seq", "turn_stage", "stage_started_at", "turn_deadline"))
    else:
        save_fields(hand, fields=("event_seq",))
    return hand


# --- After a hand: the next deal, or the match's end -------------------------------------
@dataclass(frozen=True)
class MatchEnd:
    """How a match ended, as the engine decided it: what its result records (docs/games.md
    "Match result"; R12: "Three and four players")."""

    reason: str  # engine.REASON_*
    winner_seat: int | None
    # Heads-up (R10): who reached the target (FTK: the knocker), Money Play's final scores,
    # and who forfeited.
    reached_target: int | None = None
    money_play: engine.MoneyPlayResult | None = None
    forfeit: engine.Forfeit | None = None
    # R12: every seat's place (the prize table splits the pot by it).
    ranking: engine.Ranking | None = None

    @classmethod
    def ranked(cls, reason: str, ranking: engine.Ranking) -> MatchEnd:
        """An R12 end: the ranking's winner wins."""
        return cls(reason=reason, winner_seat=ranking.winner, ranking=ranking)


def match_after_hand(
    *,
    match: Match,
    hand: Hand,
    outcome: engine.HandOutcome,
    actor: Actor,
) -> Hand | None:
    """After ``hand`` ended with ``outcome``: the running score, then the match's end (R10;
    R12 with three and four seats) or the next deal (a void hand is redealt by the same
    dealer, R7; else the deal alternates, R3, or rotates clockwise among the seats still in,
    R12). Returns the hand dealt next (None: the match is over)."""
    end = (_table_end if match.is_multi else _heads_up_end)(match, outcome)
    if end is not None:
        match_finish(match=match, hand=hand, end=end, actor=actor)
        return None
    if stop_due(match):  # a player's session ended: forfeit-free, no next hand
        match_stop(match=match)
        return None
    return hand_deal(
        match=match,
        number=hand.number + 1,
        dealer=engine.next_dealer(  # R3, R12; a void hand (R7) is redealt by its dealer
            hand.dealer, outcome, seats=match.seat_count, out=match.forfeited_seats
        ),
        seed=engine.new_server_seed(),
        actor=actor,
    )


def _heads_up_end(match: Match, outcome: engine.HandOutcome) -> MatchEnd | None:
    """R7, R10 heads-up: the score after the hand, and the match's end (None: it goes on)."""
    if outcome.kind == "void":  # R7: no score
        return None
    outcomes = ended_hand_outcomes(match)
    won = engine.hands_won(outcomes)
    if match.variant == Variant.FTK:
        # R10 FTK: the first to knock wins whatever the lay-offs and undercut; one hand.
        _score_set(match, engine.match_progress(outcomes, target=_FTK_NO_TARGET).points, won)
        winner = engine.ftk_winner(outcome)
        return MatchEnd(
            reason=engine.REASON_FIRST_TO_KNOCK, winner_seat=winner, reached_target=winner
        )
    assert match.target is not None  # copied from its room: Match and Money Play have one
    progress = engine.match_progress(outcomes, target=match.target)
    _score_set(match, progress.points, won)
    if progress.winner is None:
        return None
    money_play = None
    if match.variant == Variant.MONEY:
        money_play = engine.money_play_final_scores(
            hand_points=progress.points,
            hands_won=won,
            target=match.target,
            reached_target=progress.winner,
        )
    return MatchEnd(
        reason=engine.REASON_TARGET_REACHED,
        winner_seat=progress.winner if money_play is None else money_play.winner,
        reached_target=progress.winner,
        money_play=money_play,
    )


# First To Knock has no target: its hand points are recorded for the history only.
_FTK_NO_TARGET = 10**9


def _table_end(match: Match, outcome: engine.HandOutcome) -> MatchEnd | None:
    """R12: First To Knock ends with the hand's winner (a void hand is redealt); Match Play
    adds the penalties until a penalty total reaches the target (None: it goes on)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = engine.ftk_winner(outcome)
        if winner is None:  # R12: a void hand is redealt
            return None
        _score_set(match, outcome.penalties, [int(seat == winner) for seat in range(seats)])
        ranking = engine.ftk_multi_ranking(winner, seats=seats, out=out)
        return MatchEnd.ranked(engine.REASON_FIRST_TO_KNOCK, ranking)
    assert match.target is not None  # copied from its room: Match Play has one
    progress = engine.penalty_progress(
        ended_hand_outcomes(match), seats=seats, target=match.target, out=out
    )
    _score_set(match, progress.totals, progress.hands_won)
    if not progress.finished:
        return None
    assert progress.ranking is not None  # a finished progress has its ranking
    return MatchEnd.ranked(engine.REASON_TARGET_REACHED, progress.ranking)


def _score_set(match: Match, points: Sequence[int], won: Sequence[int]) -> None:
    """The running score: each seat's hand points (R10) or penalty total (R12), and the
    hands each seat won."""
    if match.is_multi:
        match.seat_scores = {"penalty_totals": list(points), "hands_won": list(won)}
    else:
        match.points_0, match.points_1 = points
        match.hands_won_0, match.hands_won_1 = won


def forfeit_ranking(match: Match) -> engine.Ranking:
    """R12 "Leaving" when one seat is left: it wins; the leavers rank last, the latest
    first (Match Play ranks by the penalty totals so far: only the last seat is still in)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = next(seat for seat in range(seats) if seat not in out)
        return engine.ftk_multi_ranking(winner, seats=seats, out=out)
    return engine.rank_penalty_play(match.points, match.hands_won, out=out)


# --- The match's result -------------------------------------------------------------------
def seats_finish(*, match: Match, now: datetime, position: int | None = None) -> list[Seat]:
    """The match's seats still in (with ``position``, that seat's only: an R12 forfeit),
    locked and finished ``now``."""
    active = Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES)
    if position is not None:
        active = active.filter(position=position)
    seats = lock_seats(active.values_list("pk", flat=True))
    for seat in seats:
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    return seats


def match_finish(
    *,
    match: Match,
    hand: Hand | None,
    end: MatchEnd,
    actor: Actor,
    result_seats: Sequence[Seat] | None = None,
) -> None:
    """Finish the match as ``end`` says: its seats finished, its result recorded and the
    public ``match_finished`` event appended (heads-up ``engine.MatchResult``; R12
    ``engine.MultiMatchResult``, the prize table's split of the pot), the hand and the match
    saved, audited, and announced on commit (settlement listens). A tournament's match
    nobody played (R14 "Absence") ends without a hand (``hand`` None: no feed event), its
    result naming every seat it reserved (``result_seats``)."""
    now = timezone.now()
    finished = seats_finish(match=match, now=now)
    if result_seats is None and match.is_multi:
        # R12: the seats that forfeited before finished then; they rank and share the pot.
        finished = list(
            Seat.objects.filter(match=match, state=Seat.State.FINISHED).order_by("position")
        )
    result = _result(
        match=match,
        hands_played=0 if hand is None else hand.number,
        end=end,
        seats=finished if result_seats is None else result_seats,
        now=now,
    )
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winner_seat = end.winner_seat
    match.result = result.to_dict()
    if hand is None:
        publisher.match_changed(match_id=match.pk)
    else:
        events_append(
            match=match,
            hand=hand,
            entries=[
                {
                    "kind": HandEvent.MATCH_FINISHED,
                    "seat": end.winner_seat,
                    "state_seq": hand.seq,
                    "payload": result.public(),
                }
            ],
            actor=actor,
        )
        save_fields(hand, fields=("event_seq",))
    # What the result changed besides the status: the score (and the heads-up forfeit) or,
    # R12, the seat scores and the forfeits.
    scores = ("seat_scores", "forfeits") if match.is_multi else _HEADS_UP_RESULT_FIELDS
    match.save(update_fields=["status", "finished_at", "winner_seat", "result", *scores, "seq"])
    audit: dict[str, Any] = {"reason": end.reason, "winner_seat": end.winner_seat}
    if end.ranking is not None:
        audit["ranking"] = end.ranking.to_list()
    audit_record(
        actor=actor, action="match.finished", obj=match, operator=match.operator, data=audit
    )
    on_commit_logged(
        partial(match_finished.send, sender=Match, match_id=match.pk),
        what=f"match_finished of match {match.pk}",
    )


_HEADS_UP_RESULT_FIELDS = (*SCORE_FIELDS, "forfeit_seat", "forfeit_reason")
_BPS = 10_000


def _result(
    *, match: Match, hands_played: int, end: MatchEnd, seats: Sequence[Seat], now: datetime
) -> engine.MatchResult | engine.MultiMatchResult:
    """The match's result: what every result records, and the heads-up (R10) or the R12
    outcome (the ranking; the pot less the fee, R10: rounded down, split by the prize table
    with R12's rounding), over ``seats``, those the result records."""
    facts: dict[str, Any] = {
        "match_id": match.pk,
        "game_ref": match.game_ref,
        "variant": match.variant,
        "reason": end.reason,
        "hands_won": match.hands_won,
        "hands_played": hands_played,
        "currency": match.currency,
        "is_practice": match.is_practice,
        "fee_bps": match.fee_bps,
        "stake": match.stake,
        "seats": tuple(
            engine.SeatStake(
                position=seat.position,
                seat_id=seat.pk,
                player_id=str(seat.player_id),
                amount=seat.amount,
                currency=seat.currency,
            )
            for seat in seats
        ),
        "finished_at": now.isoformat(),
    }
    if end.ranking is None:
        return engine.MatchResult(
            **facts,
            winner_seat=end.winner_seat,
            reached_target=end.reached_target,
            hand_points=cast("tuple[int, int]", match.points),  # no ranking: a heads-up end
            target=match.target,
            money_play=end.money_play,
            forfeit=end.forfeit,
            stake_per_point=match.stake_per_point,
        )
    pot = sum(seat.amount for seat in seats)
    fee = pot * match.fee_bps // _BPS
    return engine.MultiMatchResult(
        **facts,
        ranking=end.ranking,
        penalty_totals=match.points,
        target=match.target if match.variant == Variant.MATCH else None,
        forfeits=tuple(
            engine.Forfeit(seat=entry["seat"], reason=entry["reason"]) for entry in match.forfeits
        ),
        prize_table=match.prize_table,
        pot=pot,
        fee=fee,
        payouts=engine.split_pot(pot - fee, end.ranking, match.prize_table),
    )


# --- The house bot's turn: queued after the commit that gives it the turn -------------
def bot_turn_on_commit(match: Match, hand: Hand) -> None:
    """When the house bot is to act in ``hand`` (the match's newest, just dealt or just
    played), queue its move for after the commit. No query: the match row says where the
    bot sits, if anywhere."""
    if (
        match.bot_seat is not None
        and match.status == Match.Status.RUNNING
        and hand.status == Hand.Status.IN_PROGRESS
        and hand.to_act in match.house_bot_seats
    ):
        on_commit_logged(
            partial(bot_move_enqueue, match.pk, match.seq),
            what=f"the bot move of match {match.pk} at seq {match.seq}",
        )


def bot_move_delay() -> float:
    """Seconds between the bot's turn coming up and its move (``BOT_MOVE_DELAY_SECONDS``,
    default 1; 0 in tests). Eager Celery (tests, demo) ignores it."""
    return float(settings.BOT_MOVE_DELAY_SECONDS)


_bot_queue = threading.local()


BOT_MOVE_TASK = "games.tasks.bot_move"  # queued by name: the task module imports this one


def bot_move_enqueue(match_id: int, expected_seq: int) -> None:
    """Queue ``games.tasks.bot_move``. With eager Celery the task runs right here, after the
    commit, and its own move commits and queues the next one from inside this call: those
    are collected and run by the outermost call, one after the other (a loop, not a
    recursion), so a run of bot moves never nests deeper than one level."""
    pending = getattr(_bot_queue, "pending", None)
    if pending is not None:
        pending.append((match_id, expected_seq))
        return
    _bot_queue.pending = [(match_id, expected_seq)]
    try:
        while _bot_queue.pending:
            queued_match, queued_seq = _bot_queue.pending.pop(0)
            enqueue(BOT_MOVE_TASK, queued_match, queued_seq, countdown=bot_move_delay())
    finally:
        _bot_queue.pending = None
