"""The hand's lifecycle, which every change of a running game shares (R3, R7, R10; R12 with
three and four seats; docs/games.md "Where things are"):

- ``hand_deal``: a hand dealt from a fresh server seed, committed to first (R3);
  ``event_rows`` / ``events_append``: the events appended to the hand and the match's feed
  (pushed after the commit); ``turn_deadline``: each turn's deadline (R10).
- ``running_hand_lock`` and ``stale_sequence_problem``: what a move or a forfeit checks first.
- ``match_after_hand``: after a hand, a void hand redealt, the next hand dealt, or the match
  finished (``match_finish``, R10; ``table_match_finish``, R12), its result announced on
  commit with ``games.signals.match_finished``.
- ``bot_turn_on_commit``: when the turn is the house bot's, its move is queued after the
  commit (``bot_move_enqueue``; the bot decides and plays in ``house_bot``).

``play`` (the actions), ``timers`` (forfeits and the turn timer) and ``seating`` (the first
deal) build on it; it imports no sibling. Everything here runs inside the caller's
transaction (a move, a forfeit, the seat that starts a match).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.utils import timezone

from games import engine
from games.locks import lock_current_hand, lock_seats
from games.models import Hand, HandEvent, Match, Seat, Variant
from games.problems import MatchNotInProgressProblem, StaleSequenceProblem
from games.realtime import publisher
from games.signals import match_finished
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.precompiled import insert_rows, save_fields
from gin_platform.principals import Actor

# What a move (or a forfeit) changes in its hand's row.
HAND_STATE_FIELDS = (
    "state",
    "seq",
    "to_act",
    "turn_deadline",
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


def stale_sequence_problem(match: Match, expected_seq: int) -> StaleSequenceProblem:
    """409 stale-sequence: ``expected_seq`` is not where the game is now."""
    return StaleSequenceProblem(
        f"expected_seq {expected_seq} is not the game's sequence {match.seq}",
        expected_seq=expected_seq,
        current_seq=match.seq,
    )


def running_hand_lock(match: Match) -> Hand:
    """The hand being played in a locked, running match, locked in its turn (Match -> Hand)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(f"the game is {match.status}")
    hand = lock_current_hand(match)
    if hand is None:  # pragma: no cover - a running match always has a hand in progress
        raise MatchNotInProgressProblem("no hand is being played")
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
    save_fields(hand, fields=("event_seq",))
    return hand


# --- After a hand: the next deal, or the match's end -------------------------------------
def match_after_hand(
    *,
    match: Match,
    hand: Hand,
    outcome: engine.HandOutcome | engine.MultiHandOutcome,
    actor: Actor,
) -> Hand | None:
    """After ``hand`` ended with ``outcome``: redeal a void hand, deal the next one, or
    finish the match (R7, R10; R12 with three and four seats). Returns the hand dealt next
    (None: the match is over)."""
    if match.is_multi:
        return _table_after_hand(match=match, hand=hand, outcome=outcome, actor=actor)
    return _heads_up_after_hand(match=match, hand=hand, outcome=outcome, actor=actor)


def _ended_outcomes(match: Match) -> list[engine.HandOutcome]:
    outcomes = Hand.objects.filter(match=match, status=Hand.Status.ENDED).order_by("number")
    return [
        engine.HandOutcome.from_dict(data) for data in outcomes.values_list("outcome", flat=True)
    ]


def _heads_up_after_hand(
    *, match: Match, hand: Hand, outcome: engine.HandOutcome, actor: Actor
) -> Hand | None:
    """R7, R10: after a hand, redeal a void hand, deal the next one, or finish the match."""
    if outcome.kind == "void":  # R7: no score, and the same dealer deals again (R3)
        return hand_deal(
            match=match,
            number=hand.number + 1,
            dealer=engine.next_dealer(hand.dealer, outcome),
            seed=engine.new_server_seed(),
            actor=actor,
        )
    outcomes = _ended_outcomes(match)
    won = engine.hands_won(outcomes)
    if match.variant == Variant.FTK:
        # R10 FTK: the first to knock wins whatever the lay-offs and undercut; one hand.
        points = engine.match_progress(outcomes, target=_FTK_NO_TARGET).points
        _set_score(match, points, won)
        winner = engine.ftk_winner(outcome)
        match_finish(
            match=match,
            hand=hand,
            winner_seat=winner,
            reason=engine.REASON_FIRST_TO_KNOCK,
            reached_target=winner,
            money_play=None,
            forfeit=None,
            actor=actor,
        )
        return None
    progress = engine.match_progress(outcomes, target=match.target)
    _set_score(match, progress.points, won)
    if progress.winner is None:  # R3: the deal alternates
        return hand_deal(
            match=match,
            number=hand.number + 1,
            dealer=engine.next_dealer(hand.dealer, outcome),
            seed=engine.new_server_seed(),
            actor=actor,
        )
    money_play = None
    winner = progress.winner
    if match.variant == Variant.MONEY:
        money_play = engine.money_play_final_scores(
            hand_points=progress.points,
            hands_won=won,
            target=match.target,
            reached_target=progress.winner,
        )
        winner = money_play.winner
    match_finish(
        match=match,
        hand=hand,
        winner_seat=winner,
        reason=engine.REASON_TARGET_REACHED,
        reached_target=progress.winner,
        money_play=money_play,
        forfeit=None,
        actor=actor,
    )
    return None


# First To Knock has no target: its hand points are recorded for the history only.
_FTK_NO_TARGET = 10**9


def _set_score(match: Match, points: tuple[int, int], won: tuple[int, int]) -> None:
    match.points_0, match.points_1 = points
    match.hands_won_0, match.hands_won_1 = won


def _table_outcomes(match: Match) -> list[engine.MultiHandOutcome]:
    """The R12 hands that ended (void ones included; a hand ended by forfeits is abandoned
    and counts nothing)."""
    rows = Hand.objects.filter(match=match, status=Hand.Status.ENDED).order_by("number")
    return [
        engine.MultiHandOutcome.from_dict(data) for data in rows.values_list("outcome", flat=True)
    ]


def _set_seat_scores(match: Match, totals: Sequence[int], won: Sequence[int]) -> None:
    match.seat_scores = {"penalty_totals": list(totals), "hands_won": list(won)}


def _table_next_deal(
    *, match: Match, hand: Hand, outcome: engine.MultiHandOutcome | None, actor: Actor
) -> Hand:
    """R12: the deal rotates clockwise among the seats still in; a void hand is redealt by
    the same dealer."""
    return hand_deal(
        match=match,
        number=hand.number + 1,
        dealer=engine.next_multi_dealer(
            hand.dealer, outcome, seats=match.seat_count, out=match.forfeited_seats
        ),
        seed=engine.new_server_seed(),
        actor=actor,
    )


def _table_after_hand(
    *, match: Match, hand: Hand, outcome: engine.MultiHandOutcome, actor: Actor
) -> Hand | None:
    """R12 after a hand: First To Knock ends with the hand's winner (a void hand is
    redealt); Match Play adds the penalties and deals again until a penalty total reaches
    the target. Returns the hand dealt next (None: the match is over)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = engine.ftk_multi_winner(outcome)
        if winner is None:  # R12: a void hand is redealt
            return _table_next_deal(match=match, hand=hand, outcome=outcome, actor=actor)
        won = [1 if seat == winner else 0 for seat in range(seats)]
        _set_seat_scores(match, outcome.penalties, won)
        table_match_finish(
            match=match,
            hand=hand,
            ranking=engine.ftk_multi_ranking(winner, seats=seats, out=out),
            reason=engine.REASON_FIRST_TO_KNOCK,
            actor=actor,
        )
        return None
    progress = engine.penalty_progress(
        _table_outcomes(match), seats=seats, target=match.target, out=out
    )
    _set_seat_scores(match, progress.totals, progress.hands_won)
    if not progress.finished:
        return _table_next_deal(match=match, hand=hand, outcome=outcome, actor=actor)
    table_match_finish(
        match=match,
        hand=hand,
        ranking=progress.ranking,
        reason=engine.REASON_TARGET_REACHED,
        actor=actor,
    )
    return None


def forfeit_ranking(match: Match) -> engine.Ranking:
    """R12 "Leaving" when one seat is left: it wins; the leavers rank last, the latest
    first (Match Play ranks by the penalty totals so far: only the last seat is still in)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = next(seat for seat in range(seats) if seat not in out)
        return engine.ftk_multi_ranking(winner, seats=seats, out=out)
    return engine.rank_penalty_play(match.points, match.hands_won, out=out)


# --- The match's result -------------------------------------------------------------------
def match_finish(
    *,
    match: Match,
    hand: Hand,
    winner_seat: int | None,
    reason: str,
    reached_target: int | None,
    money_play: engine.MoneyPlayResult | None,
    forfeit: engine.Forfeit | None,
    actor: Actor,
) -> None:
    """Record the heads-up result (``engine.MatchResult``, docs/games.md "Match result") and
    announce it on commit."""
    seats = lock_seats(
        Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).values_list("pk", flat=True)
    )
    now = timezone.now()
    for seat in seats:
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    result = engine.MatchResult(
        match_id=match.pk,
        game_ref=match.game_ref,
        variant=match.variant,
        reason=reason,
        winner_seat=winner_seat,
        reached_target=reached_target,
        hand_points=match.points,
        hands_won=match.hands_won,
        hands_played=hand.number,
        target=match.target,
        money_play=money_play,
        forfeit=forfeit,
        currency=match.currency,
        is_practice=match.is_practice,
        fee_bps=match.fee_bps,
        stake=match.stake,
        stake_per_point=match.stake_per_point,
        seats=tuple(
            engine.SeatStake(
                position=seat.position,
                seat_id=seat.pk,
                player_id=str(seat.player_id),
                amount=seat.amount,
                currency=seat.currency,
            )
            for seat in seats
        ),
        finished_at=now.isoformat(),
    )
    _match_finished_record(
        match=match,
        hand=hand,
        result=result,
        winner_seat=winner_seat,
        now=now,
        score_fields=(*SCORE_FIELDS, "forfeit_seat", "forfeit_reason"),
        audit_data={"reason": reason, "winner_seat": winner_seat},
        actor=actor,
    )


_BPS = 10_000


def table_match_finish(
    *, match: Match, hand: Hand, ranking: engine.Ranking, reason: str, actor: Actor
) -> None:
    """Record the R12 result (``engine.MultiMatchResult``, docs/games.md "Three and four
    players"): the ranking and the prize table's split of the pot less the fee (R10: the fee
    rounded down; R12: the split's rounding), and announce it on commit."""
    active = Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES)
    now = timezone.now()
    for seat in lock_seats(active.values_list("pk", flat=True)):
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    seats = list(Seat.objects.filter(match=match, state=Seat.State.FINISHED).order_by("position"))
    pot = sum(seat.amount for seat in seats)
    fee = pot * match.fee_bps // _BPS
    result = engine.MultiMatchResult(
        match_id=match.pk,
        game_ref=match.game_ref,
        variant=match.variant,
        reason=reason,
        ranking=ranking,
        penalty_totals=tuple(match.points),
        hands_won=tuple(match.hands_won),
        hands_played=hand.number,
        target=match.target if match.variant == Variant.MATCH else None,
        forfeits=tuple(
            engine.Forfeit(seat=entry["seat"], reason=entry["reason"]) for entry in match.forfeits
        ),
        currency=match.currency,
        is_practice=match.is_practice,
        fee_bps=match.fee_bps,
        stake=match.stake,
        prize_table=match.prize_table,
        pot=pot,
        fee=fee,
        payouts=engine.split_pot(pot - fee, ranking, match.prize_table),
        seats=tuple(
            engine.SeatStake(
                position=seat.position,
                seat_id=seat.pk,
                player_id=str(seat.player_id),
                amount=seat.amount,
                currency=seat.currency,
            )
            for seat in seats
        ),
        finished_at=now.isoformat(),
    )
    _match_finished_record(
        match=match,
        hand=hand,
        result=result,
        winner_seat=ranking.winner,
        now=now,
        score_fields=("seat_scores", "forfeits"),
        audit_data={
            "reason": reason,
            "winner_seat": ranking.winner,
            "ranking": ranking.to_list(),
        },
        actor=actor,
    )


def _match_finished_record(
    *,
    match: Match,
    hand: Hand,
    result: engine.MatchResult | engine.MultiMatchResult,
    winner_seat: int | None,
    now: datetime,
    score_fields: Sequence[str],
    audit_data: dict[str, Any],
    actor: Actor,
) -> None:
    """Mark the match finished with ``result`` (heads-up or R12), append the public
    ``match_finished`` event, save the hand and the match (with the variant's
    ``score_fields``), audit it, and announce it on commit (settlement listens)."""
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winner_seat = winner_seat
    match.result = result.to_dict()
    events_append(
        match=match,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.MATCH_FINISHED,
                "seat": winner_seat,
                "state_seq": hand.seq,
                "payload": result.public(),
            }
        ],
        actor=actor,
    )
    save_fields(hand, fields=("event_seq",))
    match.save(
        update_fields=["status", "finished_at", "winner_seat", "result", *score_fields, "seq"]
    )
    audit_record(
        actor=actor, action="match.finished", obj=match, operator=match.operator, data=audit_data
    )
    on_commit_logged(
        partial(match_finished.send, sender=Match, match_id=match.pk),
        what=f"match_finished of match {match.pk}",
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
