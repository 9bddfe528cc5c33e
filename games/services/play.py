"""Play: the actions of a running game and its end (R4-R10; R12 with three and four seats;
docs/games.md).

- ``hand_apply_action`` / ``player_action_apply``: one action, under the match and hand
  locks, checked by the engine; a retry is recognised by its sequence number. The move
  that ends a hand records it (``hand.ended`` for the operators) and moves the match on
  through ``hand_lifecycle.match_after_hand`` (the next deal, or the match's result); a
  knock is scored by the engine (``engine.apply``, R8, R9) and the running score is stored
  with the hand that changed it.
- Every turn gets its deadline from the move that gives it (``hand_lifecycle.turn_deadline``:
  the turn timers in ``timers`` expire it), and when the turn is the house bot's, its move
  is queued on commit (``hand_lifecycle.bot_turn_on_commit``).
- ``match_mark_settled`` is settlement's ``finished -> settled`` (``match_settled_record``
  when the caller already holds the match's lock; ``matches_settled_record`` for a batch).

Transactions: ``hand_apply_action`` and ``player_action_apply`` are top-level and durable
(nobody may run a move inside a larger transaction: its locks and its commit are the turn).
``match_mark_settled`` and ``match_settled_record`` run inside settlement's transaction
(``settlement.services.game_settle``), so they are atomic, not durable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext

from games import engine, refusals, selectors
from games.locks import (
    lock_match,
    lock_match_seats_and_hands,
    lock_newest_hands,
)
from games.models import Hand, HandEvent, Match, Seat
from games.problems import (
    IllegalActionProblem,
    KnockOverLimitProblem,
    MatchNotFinishedProblem,
    MatchNotInProgressProblem,
    NotYourTurnProblem,
)
from games.realtime import publisher
from games.services.hand_lifecycle import (
    HAND_STATE_FIELDS,
    SCORE_FIELDS,
    bot_turn_on_commit,
    engine_event_payload,
    event_rows,
    match_after_hand,
    stale_sequence_problem,
    turn_clear,
    turn_give,
)
from games.services.network import match_event_enqueue, player_ref_for
from games.services.protection_clock import reality_boundary, reality_check_move_check
from games.services.turn_clock import auto_played_count, seat_present
from gin_platform.audit import audit_event, audit_saved
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
            gettext("One or more fields are invalid"), errors={"card": [str(exc)]}
        ) from exc


def _is_retry(*, match: Match, seat: int, action: engine.Action, expected_seq: int) -> bool:
    """A retried request: the event right after ``expected_seq`` is this very action by this
    very seat, so it was applied already (a retried request: nothing is applied twice)."""
    if not 0 <= expected_seq < match.seq:
        return False
    applied = HandEvent.objects.filter(match=match, match_seq=expected_seq + 1).first()
    return (
        applied is not None
        and applied.seat == seat
        and applied.action == action.to_dict()
        and not applied.payload.get("auto")  # R13 played it for them: theirs was not applied
    )


def _running_hands(match: Match, newest: list[Hand]) -> tuple[Hand, Hand | None]:
    """The hand being played in a locked, running match, and the hand before it (None in
    the first), from its two newest hands, locked (``lock_newest_hands``)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(refusals.match_not_in_progress_detail(match.status))
    if not newest or newest[0].status != Hand.Status.IN_PROGRESS:  # pragma: no cover
        raise MatchNotInProgressProblem(gettext("No hand is being played in this game now."))
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
        raise stale_sequence_problem(locked, expected_seq)
    hand, previous = _running_hands(
        locked, lock_newest_hands(locked) if newest_hands is None else newest_hands
    )
    if hand.to_act != seat:
        raise NotYourTurnProblem(refusals.not_your_turn_detail(), to_act=hand.to_act)
    reality_check_move_check(match=locked, seat=seat)
    state = hand.engine_state()
    try:
        new_state, events = engine.apply(state, move)
    except engine.NotYourTurnError as exc:
        raise NotYourTurnProblem(refusals.not_your_turn_detail(), to_act=state.to_act) from exc
    except engine.KnockOverLimitError as exc:
        raise KnockOverLimitProblem(
            refusals.knock_over_limit_detail(deadwood=exc.deadwood, limit=exc.limit),
            deadwood=exc.deadwood,
            limit=exc.limit,
        ) from exc
    except engine.IllegalActionError as exc:
        legal = engine.legal_actions(state, seat)
        raise IllegalActionProblem(
            refusals.illegal_move_detail(state=state, action=move),
            legal_actions=[{"kind": a.kind, "card": _card_text(a.card)} for a in legal],
        ) from exc
    steps = ((move, new_state, events),)
    return _steps_write(locked, seat, hand, previous, steps, actor=actor, auto=False)


Step = tuple[engine.Action, engine.HandState, tuple[engine.Event, ...]]


def _steps_write(
    match: Match,
    seat: int,
    hand: Hand,
    previous: Hand | None,
    steps: Sequence[Step],
    *,
    actor: Actor,
    auto: bool,
) -> ActionResult:
    """Write the actions ``steps`` applied (each with the state it led to and its events):
    the events, the hand, the match's seq (and its clocks when they changed, R13: the seat's
    own move, or a turn the platform played for it), then the next deal or the match's end
    when the last of them ended the hand."""
    locked = match
    if auto:
        auto_played_count(match=locked, hand=hand, seat=seat)
    clocks_changed = auto or seat_present(match=locked, hand=hand, seat=seat)
    entries = [
        {
            "kind": event.kind,
            "seat": event.seat,
            "state_seq": event.seq,
            "action": action.to_dict() if index == 0 else None,
            "payload": engine_event_payload(event) | ({"auto": True} if auto else {}),
        }
        for action, _state, events in steps
        for index, event in enumerate(events)
    ]
    new_state = steps[-1][1]
    rows = event_rows(match=locked, hand=hand, entries=entries, actor=actor)
    turn_passed = new_state.to_act != hand.to_act
    if turn_passed:
        turn_give(match=locked, hand=hand)
    hand.engine_state_set(new_state)
    hand.seq = new_state.seq
    hand.to_act = new_state.to_act
    if turn_passed and not new_state.is_over:  # a turn boundary: reality checks due?
        clocks_changed = reality_boundary(match=locked, hand=hand, now=timezone.now()) or (
            clocks_changed
        )
    latest: tuple[Hand, ...] = (hand,) if previous is None else (hand, previous)
    if new_state.is_over:
        latest = _hand_over(match=locked, latest=latest, rows=rows, state=new_state, actor=actor)
        if clocks_changed:
            save_fields(locked, fields=("clocks",))
    else:
        publisher.match_changed(match_id=locked.pk, rows=rows)
    publisher.match_written(match=locked, latest_hands=latest)  # the push renders these
    bot_turn_on_commit(locked, latest[0])
    if not new_state.is_over:
        # Most moves: the events, the hand and the match's seq in one statement, the
        # transaction's last (every caller is its own durable transaction and writes nothing
        # after), so its COMMIT goes with it: what runs after the commit is asked for above.
        match_fields = ("seq", "clocks") if clocks_changed else ("seq",)
        saves_and_inserts(
            updates=[(hand, HAND_STATE_FIELDS), (locked, match_fields)], rows=rows, last=True
        )
    return ActionResult(match=locked, seat=seat, applied=True, latest_hands=latest)


@transaction.atomic(durable=True)
def auto_turn_play(*, match_id: int, seat: int, expected_seq: int, actor: Actor) -> ActionResult:
    """R13: play ``seat``'s turn for it (``engine.auto_turn``: pass, or draw from the stock
    and discard by the lowest deadwood), marked ``auto`` in its events, and count it. Only
    if the game is still exactly at ``expected_seq`` (a move racing the timer wins or
    loses whole). The caller has checked the seat may still be auto-played."""
    locked = lock_match(match_id)
    if expected_seq != locked.seq:
        raise stale_sequence_problem(locked, expected_seq)
    hand, previous = _running_hands(locked, lock_newest_hands(locked))
    if hand.to_act != seat:  # pragma: no cover - the seq check covers a turn that passed
        raise NotYourTurnProblem(f"it is seat {hand.to_act}'s turn", to_act=hand.to_act)
    steps = engine.auto_turn(hand.engine_state(), seat)
    return _steps_write(locked, seat, hand, previous, steps, actor=actor, auto=True)


def _hand_over(
    *,
    match: Match,
    latest: tuple[Hand, ...],
    rows: list[HandEvent],
    state: engine.HandState,
    actor: Actor,
) -> tuple[Hand, ...]:
    """The move that ended the newest of ``latest``: its events and the hand written, then
    the next deal or the match's end, and the score. Returns the match's newest hands,
    newest first: the hand dealt next, if any, before the one that ended."""
    hand = latest[0]
    assert state.outcome is not None  # the move ended the hand: it has its outcome
    insert_rows(rows)
    publisher.match_changed(match_id=match.pk, rows=rows)
    hand.status = Hand.Status.ENDED
    hand.outcome = state.outcome.to_dict()
    hand.ended_at = timezone.now()
    turn_clear(hand)
    save_fields(hand, fields=HAND_STATE_FIELDS)
    dealt = match_after_hand(match=match, hand=hand, outcome=state.outcome, actor=actor)
    ended = _hand_ended_event(match=match, hand=hand, outcome=state.outcome)
    match_event_enqueue(match=match, event_type="hand.ended", data=ended)
    # R10: the running score is part of the game's state; it is stored with the hand that
    # changed it, in this transaction, and every reader reads this one figure.
    save_fields(match, fields=("seq", *SCORE_FIELDS))
    return latest if dealt is None else (dealt, hand)


def _hand_ended_event(
    *, match: Match, hand: Hand, outcome: engine.HandOutcome
) -> Callable[[object], dict]:
    """hand.ended (gin_platform/events/catalogue.py) for one operator: the result, never the
    cards; the winner named as that operator may see them (``player_ref_for``)."""
    seats = Seat.objects.select_related("player").filter(match=match, position=outcome.winner)  # type: ignore[misc]  # read only when the outcome has a winner (below); the stubs refuse None
    winner = seats.order_by("-pk").first() if outcome.winner is not None else None
    multi = outcome.penalty_scoring

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
    publisher.match_changed(match_id=match.pk, views_changed=False)  # finished: none cached


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
    for match in matches:  # finished: no view of theirs is cached
        publisher.match_changed(match_id=match.pk, views_changed=False)
