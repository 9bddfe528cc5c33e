"""Play: the deal, the actions, the end of a hand, the next deal, the match's finish and
its result (R3-R10; docs/games.md).

- ``_hand_deal`` (in ``dealing``): R3, a hand dealt from a fresh server seed, committing
  to the seed first.
- ``hand_apply_action`` / ``player_action_apply``: one action, under the match and hand
  locks, checked by the engine; a retry is recognised by its sequence number.
- ``_hand_finished``: R7, R10 after each hand: a void hand is redealt, the next hand dealt
  (the deal alternates), or the match finished (FTK: the first knock; Match Play, Money
  Play: the target). A knock is scored by the engine (``engine.apply``, R8, R9); the
  running score is stored here with the hand that changed it. Three and four players (R12):
  ``multi._multi_hand_finished`` instead.
- ``_match_finish``: the result (docs/games.md "Match result"), announced on commit with
  ``games.signals.match_finished``; ``match_mark_settled`` is settlement's ``finished ->
  settled`` (``match_settled_record`` when the caller already holds the match's lock).
- Every turn gets its deadline here (``dealing._deadline``: the turn timers in ``timers``
  expire it), and when the turn is the house bot's, its move is queued after the commit
  (``_bot_turn_on_commit``; the bot decides and plays in ``house_bot``).

Transactions: ``hand_apply_action`` and ``player_action_apply`` are top-level and durable
(nobody may run a move inside a larger transaction: its locks and its commit are the turn).
``match_mark_settled`` and ``match_settled_record`` run inside settlement's transaction
(``settlement.services.game_settle``), so they are atomic, not durable.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Model
from django.utils import timezone

from games import engine, selectors
from games.locks import (
    lock_current_hand,
    lock_match,
    lock_match_seats_and_hands,
    lock_newest_hands,
    lock_seats,
)
from games.models import Hand, HandEvent, Match, Seat, Variant
from games.problems import (
    IllegalActionProblem,
    KnockOverLimitProblem,
    MatchNotFinishedProblem,
    MatchNotInProgressProblem,
    NotYourTurnProblem,
    StaleSequenceProblem,
)
from games.realtime import publisher
from games.services.dealing import (
    HAND_STATE_FIELDS,
    _deadline,
    _engine_event_payload,
    _event_rows,
    _hand_deal,
    _match_finished_record,
)
from games.services.multi import _multi_hand_finished
from games.services.network import match_event_enqueue, player_ref_for
from gin_platform.audit import audit_event, audit_saved
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.http.problems import ValidationProblem
from gin_platform.models import Player
from gin_platform.request_path.precompiled import insert_rows, save_fields, saves_and_inserts
from gin_platform.tenancy.principals import Actor

RESULT_FORMAT = engine.RESULT_FORMAT


# --- Actions ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionResult:
    match: Match
    seat: int  # the position that acted
    applied: bool  # False: a retry of the action already applied at expected_seq + 1
    # The match's newest hands after the action, newest first, as written (the hand played,
    # or the next deal and the hand it follows): the answer is built from these rows
    # instead of reading them again. Empty for a retry.
    latest_hands: tuple[Hand, ...] = ()


def _as_action(action: engine.Action | Mapping[str, Any], seat: int) -> engine.Action:
    if isinstance(action, engine.Action):
        if action.seat != seat:
            raise ValueError(f"the action is seat {action.seat}'s, not seat {seat}'s")
        return action
    try:
        return engine.Action.from_dict(
            {"kind": action.get("kind"), "card": action.get("card")}, seat=seat
        )
    except engine.CardParseError as exc:
        raise ValidationProblem(
            "One or more fields are invalid", errors={"card": [str(exc)]}
        ) from exc


def _is_retry(*, match: Match, seat: int, action: engine.Action, expected_seq: int) -> bool:
    """A retried request: the event right after ``expected_seq`` is this very action by this
    very seat, so it was applied already (a retried request: nothing is applied twice)."""
    if not 0 <= expected_seq < match.seq:
        return False
    applied = HandEvent.objects.filter(match=match, match_seq=expected_seq + 1).first()
    return applied is not None and applied.seat == seat and applied.action == action.to_dict()


def _stale_sequence(match: Match, expected_seq: int) -> StaleSequenceProblem:
    return StaleSequenceProblem(
        f"expected_seq {expected_seq} is not the game's sequence {match.seq}",
        expected_seq=expected_seq,
        current_seq=match.seq,
    )


def _lock_running_hand(match: Match) -> Hand:
    """The hand being played in a locked, running match, locked in its turn (Match -> Hand)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(f"the game is {match.status}")
    hand = lock_current_hand(match)
    if hand is None:  # pragma: no cover - a running match always has a hand in progress
        raise MatchNotInProgressProblem("no hand is being played")
    return hand


def _running_hands(match: Match, newest: list[Hand]) -> tuple[Hand, Hand | None]:
    """The hand being played in a locked, running match, and the hand before it (None in
    the first), from its two newest hands, locked (``lock_newest_hands``)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(f"the game is {match.status}")
    if not newest or newest[0].status != Hand.Status.IN_PROGRESS:  # pragma: no cover
        raise MatchNotInProgressProblem("no hand is being played")
    return newest[0], (newest[1] if len(newest) > 1 else None)


@transaction.atomic(durable=True)
def hand_apply_action(
    *,
    match: Match | int,
    seat: int,
    action: engine.Action | Mapping[str, Any],
    expected_seq: int,
    actor: Actor,
) -> ActionResult:
    """Apply one seat's action to the match's hand in progress (docs/games.md).

    Locks the match, then the hand; checks the sequence number (a retry of the action just
    applied returns without applying anything; anything else stale is refused), the turn and,
    through the engine, the action's legality; appends the events, saves, and moves the match
    on when the hand ends (next deal, or the match's result). What a server-side bot calls,
    with ``actor=Actor.system(...)``; players go through ``player_action_apply``.
    """
    move = _as_action(action, seat)
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    return _action_apply(match=locked, seat=seat, move=move, expected_seq=expected_seq, actor=actor)


@transaction.atomic(durable=True)
def player_action_apply(
    *,
    player: Player,
    match_id: int,
    action: Mapping[str, Any],
    expected_seq: int,
    actor: Actor,
) -> ActionResult:
    """``POST /matches/{id}/actions``: ``hand_apply_action`` for the seat ``player`` holds.

    The caller's seat, the locked match and its locked newest hands come from one statement
    (``lock_match_seats_and_hands``): the hot path of the API reads nothing twice. A match
    the player has no seat in is 404 (and nothing was locked). The result's match carries
    ``shown_seats`` for the answer."""
    seats, newest_hands = lock_match_seats_and_hands(match_id=match_id, player=player)
    seat = selectors.own_seat(seats, player=player, match_id=match_id)
    for hand in newest_hands:
        hand.match = seat.match  # as filter(match=match) would have set it
    move = _as_action(action, seat.position)
    return _action_apply(
        match=seat.match,
        seat=seat.position,
        move=move,
        expected_seq=expected_seq,
        actor=actor,
        newest_hands=newest_hands,
    )


def _action_apply(
    *,
    match: Match,
    seat: int,
    move: engine.Action,
    expected_seq: int,
    actor: Actor,
    newest_hands: list[Hand] | None = None,
) -> ActionResult:
    """The move itself, in the caller's transaction, ``match`` locked; ``newest_hands``:
    its two newest hands when the caller locked them with it (else they are locked here)."""
    locked = match
    if expected_seq != locked.seq:
        if _is_retry(match=locked, seat=seat, action=move, expected_seq=expected_seq):
            return ActionResult(match=locked, seat=seat, applied=False)
        raise _stale_sequence(locked, expected_seq)
    hand, previous = _running_hands(
        locked, lock_newest_hands(locked) if newest_hands is None else newest_hands
    )
    if hand.to_act != seat:
        raise NotYourTurnProblem(f"it is seat {hand.to_act}'s turn", to_act=hand.to_act)
    state = hand.engine_state()
    try:
        new_state, events = engine.apply(state, move)
    except engine.NotYourTurnError as exc:
        raise NotYourTurnProblem(str(exc), to_act=state.to_act) from exc
    except engine.KnockOverLimitError as exc:
        raise KnockOverLimitProblem(str(exc), deadwood=exc.deadwood, limit=exc.limit) from exc
    except engine.IllegalActionError as exc:
        legal = engine.legal_actions(state, seat)
        raise IllegalActionProblem(
            str(exc),
            legal_actions=[{"kind": a.kind, "card": _card_text(a.card)} for a in legal],
        ) from exc
    entries = [
        {
            "kind": event.kind,
            "seat": event.seat,
            "state_seq": event.seq,
            "action": move.to_dict() if index == 0 else None,
            "payload": _engine_event_payload(event),
        }
        for index, event in enumerate(events)
    ]
    rows = _event_rows(match=locked, hand=hand, entries=entries, actor=actor)
    if new_state.to_act != hand.to_act:
        hand.turn_deadline = _deadline(locked)
    hand.engine_state_set(new_state)
    hand.seq = new_state.seq
    hand.to_act = new_state.to_act
    latest: tuple[Hand, ...] = (hand,) if previous is None else (hand, previous)
    if new_state.is_over:
        latest = _hand_over(match=locked, latest=latest, rows=rows, state=new_state, actor=actor)
    else:  # most moves: the events, the hand and the match's seq in one statement
        saves_and_inserts(updates=[(hand, HAND_STATE_FIELDS), (locked, ("seq",))], rows=rows)
        publisher.match_changed(match_id=locked.pk, rows=rows)
    publisher.match_written(match=locked, latest_hands=latest)  # the push renders these
    _bot_turn_on_commit(locked, latest[0])
    return ActionResult(match=locked, seat=seat, applied=True, latest_hands=latest)


def _hand_over(
    *,
    match: Match,
    latest: tuple[Hand, ...],
    rows: list[HandEvent],
    state: engine.AnyHandState,
    actor: Actor,
) -> tuple[Hand, ...]:
    """The move that ended the newest of ``latest``: its events and the hand written, then
    the next deal or the match's end, and the score. Returns the match's newest hands,
    newest first: the hand dealt next, if any, before the one that ended."""
    hand = latest[0]
    insert_rows(rows)
    publisher.match_changed(match_id=match.pk, rows=rows)
    hand.status = Hand.Status.ENDED
    hand.outcome = state.outcome.to_dict()
    hand.ended_at = timezone.now()
    hand.turn_deadline = None
    save_fields(hand, fields=HAND_STATE_FIELDS)
    finished = _multi_hand_finished if match.is_multi else _hand_finished
    dealt = finished(match=match, hand=hand, outcome=state.outcome, actor=actor)
    ended = _hand_ended_event(match=match, hand=hand, outcome=state.outcome)
    match_event_enqueue(match=match, event_type="hand.ended", data=ended)
    # R10: the running score is part of the game's state; it is stored with the hand that
    # changed it, in this transaction, and every reader reads this one figure.
    save_fields(match, fields=("seq", *SCORE_FIELDS))
    return latest if dealt is None else (dealt, hand)


def _hand_ended_event(
    *, match: Match, hand: Hand, outcome: engine.HandOutcome | engine.MultiHandOutcome
) -> Callable[[object], dict]:
    """hand.ended (gin_platform/events/catalogue.py) for one operator: the result, never the
    cards; the winner named as that operator may see them (``player_ref_for``)."""
    seats = Seat.objects.select_related("player").filter(match=match, position=outcome.winner)
    winner = seats.order_by("-pk").first() if outcome.winner is not None else None
    multi = isinstance(outcome, engine.MultiHandOutcome)

    def for_operator(operator_id: object) -> dict:
        return {
            "match_id": match.pk,
            "hand": hand.number,
            "outcome": outcome.kind,
            "knocker_seat": outcome.knocker,
            "winner_seat": outcome.winner,
            "winner": (
                None
                if winner is None
                else player_ref_for(winner.player, match=match, operator_id=operator_id)
            ),
            # R12: the hand's penalty per seat; the score is then the penalty totals.
            "points": list(outcome.penalties) if multi else outcome.points,
            "score": list(match.points),
        }

    return for_operator


def _card_text(card: engine.Card | None) -> str | None:
    return None if card is None else str(card)


def _ended_outcomes(match: Match) -> list[engine.HandOutcome]:
    outcomes = Hand.objects.filter(match=match, status=Hand.Status.ENDED).order_by("number")
    return [
        engine.HandOutcome.from_dict(data) for data in outcomes.values_list("outcome", flat=True)
    ]


def _hand_finished(
    *, match: Match, hand: Hand, outcome: engine.HandOutcome, actor: Actor
) -> Hand | None:
    """R7, R10: after a hand, redeal a void hand, deal the next one, or finish the match.
    Returns the hand dealt next (None: the match is over)."""
    if outcome.kind == "void":  # R7: no score, and the same dealer deals again (R3)
        return _hand_deal(
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
        _match_finish(
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
        return _hand_deal(
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
    _match_finish(
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


SCORE_FIELDS = ("points_0", "points_1", "hands_won_0", "hands_won_1", "seat_scores")


def _set_score(match: Match, points: tuple[int, int], won: tuple[int, int]) -> None:
    match.points_0, match.points_1 = points
    match.hands_won_0, match.hands_won_1 = won


def _match_finish(
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
    """Record the result (``engine.MatchResult``, docs/games.md "Match result") and announce
    it on commit."""
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


@transaction.atomic
def match_mark_settled(*, match: Match | int, actor: Actor) -> Match:
    """``finished -> settled`` exactly once (for settlement, after it has posted the payout).
    Marking a settled match again changes nothing. Its savepoint stays: a caller may catch
    the refusal and go on in its transaction."""
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    if locked.status == Match.Status.SETTLED:
        return locked
    if locked.status != Match.Status.FINISHED:
        raise MatchNotFinishedProblem(f"the game is {locked.status}")
    match_settled_record(match=locked, actor=actor)
    return locked


def match_settled_record(*, match: Match, actor: Actor, rows: Sequence[Model] = ()) -> None:
    """``finished -> settled`` for a caller that holds the match's lock in its transaction
    and has seen it finished (settlement's ``game_settle``, which locks the match first):
    no second lock, no savepoint, no second read of the row. ``rows``: the caller's new
    rows about the same change (the Settlement), written in the same statement."""
    if match.status != Match.Status.FINISHED:
        raise MatchNotFinishedProblem(f"the game is {match.status}")
    match.status = Match.Status.SETTLED
    match.settled_at = timezone.now()
    audit_saved(
        obj=match,
        fields=("status", "settled_at"),
        actor=actor,
        action="match.settled",
        operator=match.operator,
        rows=rows,
    )
    publisher.match_changed(match_id=match.pk)


def matches_settled_record(
    *, matches: Sequence[Match], actor: Actor, rows: Sequence[Model] = ()
) -> None:
    """``match_settled_record`` for a batch of matches the caller holds locked and has seen
    finished (settlement's ``games_settle``): one UPDATE of the matches, and one INSERT
    per model of their audit rows and the caller's ``rows``."""
    if unfinished := [match.pk for match in matches if match.status != Match.Status.FINISHED]:
        raise MatchNotFinishedProblem(f"the games {unfinished} are not finished")
    now = timezone.now()
    updated = Match.objects.filter(pk__in=[match.pk for match in matches]).update(
        status=Match.Status.SETTLED, settled_at=now
    )
    if updated != len(matches):  # pragma: no cover - the caller holds their locks
        raise DatabaseError(f"{updated} of {len(matches)} matches were marked settled")
    audits = []
    for match in matches:
        match.status, match.settled_at = Match.Status.SETTLED, now
        audit = audit_event(
            actor=actor, action="match.settled", model=Match, operator=match.operator
        )
        audit.object_id = str(match.pk)
        audits.append(audit)
    by_model: dict[type[Model], list[Model]] = {}
    for row in [*rows, *audits]:
        by_model.setdefault(type(row), []).append(row)
    for same_model in by_model.values():
        insert_rows(same_model)
    for match in matches:
        publisher.match_changed(match_id=match.pk)


# --- The house bot's turn: queued after the commit that gives it the turn -------------
def _bot_turn_on_commit(match: Match, hand: Hand) -> None:
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
            partial(_enqueue_bot_move, match.pk, match.seq),
            what=f"the bot move of match {match.pk} at seq {match.seq}",
        )


def bot_move_delay() -> float:
    """Seconds between the bot's turn coming up and its move (``BOT_MOVE_DELAY_SECONDS``,
    default 1; 0 in tests). Eager Celery (tests, demo) ignores it."""
    return float(settings.BOT_MOVE_DELAY_SECONDS)


_bot_queue = threading.local()


def _enqueue_bot_move(match_id: int, expected_seq: int) -> None:
    """Queue ``games.tasks.bot_move``. With eager Celery the task runs right here, after the
    commit, and its own move commits and queues the next one from inside this call: those
    are collected and run by the outermost call, one after the other (a loop, not a
    recursion), so a run of bot moves never nests deeper than one level."""
    pending = getattr(_bot_queue, "pending", None)
    if pending is not None:
        pending.append((match_id, expected_seq))
        return
    from games.tasks import bot_move  # the task module imports this one

    _bot_queue.pending = [(match_id, expected_seq)]
    try:
        while _bot_queue.pending:
            queued_match, queued_seq = _bot_queue.pending.pop(0)
            enqueue(bot_move, queued_match, queued_seq, countdown=bot_move_delay())
    finally:
        _bot_queue.pending = None
