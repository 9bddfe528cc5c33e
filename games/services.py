"""State changes of the games app: rooms, tables, seats, matches, hands (issue 5).

One function per change, keyword-only and typed, atomic, each writing its audit row in the
same transaction (ARCHITECTURE §8). Locks follow ``games.locks`` (Table -> Match -> Hand ->
Seat). The engine (``games.engine``) is the referee: nothing here decides a rule; it deals,
applies actions, scores hands and decides matches through the engine's functions.

Money only moves through ``wallet.services`` (buy-in into the game's escrow, refund of a
buy-in before the start); the result of a finished match is announced with
``games.signals.match_finished`` for settlement to pay out.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine, selectors
from games.locks import (
    lock_current_hand,
    lock_match,
    lock_match_seats,
    lock_newest_hands,
    lock_seats,
    lock_table,
)
from games.models import (
    MATCH_PLAY_TARGETS,
    MAX_FEE_BPS,
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    MONEY_PLAY_TARGETS,
    SEAT_POSITIONS,
    Hand,
    HandEvent,
    HouseBot,
    Match,
    Room,
    Seat,
    Table,
    Variant,
)
from games.problems import (
    BotNotAllowedProblem,
    CashierAmountOutOfRangeProblem,
    IllegalActionProblem,
    InvalidRoomOptionsProblem,
    KnockOverLimitProblem,
    MatchNotFinishedProblem,
    MatchNotInProgressProblem,
    NotSeatedProblem,
    NotYourTurnProblem,
    RoomInactiveProblem,
    StakePerPointMismatchProblem,
    StakePerPointNotOfferedProblem,
    StaleSequenceProblem,
    TableFullProblem,
)
from games.signals import match_finished
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, CurrencyError, money_dict, normalize_currency
from gin_platform.principals import Actor
from gin_platform.problems import Problem, ValidationProblem
from gin_platform.services import player_create
from wallet import services as wallet

logger = logging.getLogger(__name__)

RESULT_FORMAT = 1
MAX_STAKE_PER_POINT_CHOICES = 10
MAX_TABLES_PER_REQUEST = 50


# --- Rooms and tables (operator) ----------------------------------------------------------
def _room_problem(message: str, field: str) -> InvalidRoomOptionsProblem:
    return InvalidRoomOptionsProblem(message, field=field)


def _room_currency(currency: str | None, *, is_practice: bool) -> str:
    if is_practice:
        # R11: practice tables play for play money only, never a real currency.
        if currency not in (None, "", PRACTICE_CURRENCY):
            raise _room_problem(
                f"practice rooms play for {PRACTICE_CURRENCY} chips, not {currency}", "currency"
            )
        return PRACTICE_CURRENCY
    try:
        code = normalize_currency(currency)
    except CurrencyError as exc:
        raise _room_problem(str(exc), "currency") from exc
    if code == PRACTICE_CURRENCY:
        raise _room_problem(
            f"{PRACTICE_CURRENCY} is play money: set is_practice for a practice room", "currency"
        )
    return code


MAX_AMOUNT = 10**15  # minor units: far above any real stake, far below BIGINT overflow


def _positive(value: object, field: str) -> int:
    if type(value) is not int or not 0 < value <= MAX_AMOUNT:
        raise _room_problem(f"{field} must be a positive amount (at most {MAX_AMOUNT})", field)
    return value


def _room_money_options(
    *,
    variant: str,
    target: int | None,
    stake: int | None,
    stake_per_point_choices: Sequence[int],
    cashier_min: int | None,
    cashier_max: int | None,
) -> dict[str, Any]:
    """R10: the shape of each variant's stakes and target."""
    choices = list(stake_per_point_choices or [])
    if variant == Variant.FTK:
        if target is not None:
            raise _room_problem("First To Knock is one hand: it has no target (R10)", "target")
    elif variant == Variant.MATCH and target not in MATCH_PLAY_TARGETS:
        raise _room_problem("a Match Play target is 100, 250 or 500 (R10)", "target")
    elif variant == Variant.MONEY and target not in MONEY_PLAY_TARGETS:
        raise _room_problem("a Money Play target is 50 or 100 (R10)", "target")
    if variant in (Variant.FTK, Variant.MATCH):
        if choices or cashier_min is not None or cashier_max is not None:
            raise _room_problem(
                "stakes per point and cashier bounds are for Money Play rooms", "variant"
            )
        return {"target": target, "stake": _positive(stake, "stake")}
    if stake is not None:
        raise _room_problem("Money Play rooms have stakes per point, not a stake", "stake")
    if not choices or len(choices) > MAX_STAKE_PER_POINT_CHOICES:
        raise _room_problem(
            f"offer 1 to {MAX_STAKE_PER_POINT_CHOICES} stakes per point", "stake_per_point_choices"
        )
    for choice in choices:
        _positive(choice, "stake_per_point_choices")
    if len(set(choices)) != len(choices):
        raise _room_problem("the stakes per point repeat", "stake_per_point_choices")
    low = _positive(cashier_min, "cashier_min")
    high = _positive(cashier_max, "cashier_max")
    if high < low:
        raise _room_problem("cashier_max is below cashier_min", "cashier_max")
    return {
        "target": target,
        "stake_per_point_choices": sorted(choices),
        "cashier_min": low,
        "cashier_max": high,
    }


@transaction.atomic
def room_create(
    *,
    operator: Operator,
    name: str,
    variant: str,
    currency: str | None = None,
    is_practice: bool = False,
    bot_enabled: bool = False,
    rules: Mapping[str, Any] | None = None,
    target: int | None = None,
    stake: int | None = None,
    stake_per_point_choices: Sequence[int] = (),
    cashier_min: int | None = None,
    cashier_max: int | None = None,
    fee_bps: int = 0,
    turn_seconds: int = 30,
    tables: int = 1,
    actor: Actor,
) -> Room:
    if variant not in Variant.values:
        raise _room_problem(f"unknown variant {variant!r}", "variant")
    try:
        rule_set = engine.RuleSet.from_dict(dict(rules or {}))
    except (TypeError, ValueError) as exc:
        raise _room_problem(str(exc), "rules") from exc
    if type(fee_bps) is not int or not 0 <= fee_bps <= MAX_FEE_BPS:
        raise _room_problem(f"fee_bps is 0 to {MAX_FEE_BPS} basis points", "fee_bps")
    if type(turn_seconds) is not int or not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
        raise _room_problem(
            f"turn_seconds is {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS}", "turn_seconds"
        )
    if type(tables) is not int or not 1 <= tables <= MAX_TABLES_PER_REQUEST:
        raise _room_problem(f"open 1 to {MAX_TABLES_PER_REQUEST} tables", "tables")
    if bot_enabled and not is_practice:
        raise _room_problem("the house bot plays at practice tables only (R11)", "bot_enabled")
    room = Room.objects.create(
        operator=operator,
        name=name,
        variant=variant,
        rules=rule_set.to_dict(),
        currency=_room_currency(currency, is_practice=is_practice),
        is_practice=is_practice,
        bot_enabled=bool(bot_enabled),
        fee_bps=fee_bps,
        turn_seconds=turn_seconds,
        **_room_money_options(
            variant=variant,
            target=target,
            stake=stake,
            stake_per_point_choices=stake_per_point_choices,
            cashier_min=cashier_min,
            cashier_max=cashier_max,
        ),
    )
    Table.objects.bulk_create(Table(room=room) for _ in range(tables))
    audit_record(
        actor=actor,
        action="room.created",
        obj=room,
        operator=operator,
        data={
            "variant": variant,
            "currency": room.currency,
            "is_practice": is_practice,
            "bot_enabled": bool(bot_enabled),
            "tables": tables,
        },
    )
    return room


@transaction.atomic
def room_update(
    *, room: Room, actor: Actor, name: str | None = None, active: bool | None = None
) -> Room:
    """Rename or open/close a room. Stakes and rules never change under a room's players:
    open a new room for new terms (games already under way keep their snapshot anyway)."""
    locked = Room.objects.select_for_update().get(pk=room.pk)
    changes: dict[str, list[Any]] = {}
    for field, value in (("name", name), ("active", active)):
        if value is not None and getattr(locked, field) != value:
            changes[field] = [getattr(locked, field), value]
            setattr(locked, field, value)
    if changes:
        locked.save(update_fields=list(changes))
        audit_record(
            actor=actor, action="room.updated", obj=locked, operator=locked.operator, data=changes
        )
    return locked


@transaction.atomic
def table_create(*, room: Room, actor: Actor) -> Table:
    table = Table.objects.create(room=room)
    audit_record(actor=actor, action="table.created", obj=table, operator=room.operator)
    return table


def _ensure_free_table(room: Room) -> None:
    """Keep a table without a game in the room, so the lobby always has a seat to offer."""
    if not room.active:
        return
    busy = Match.objects.filter(status=Match.Status.RUNNING).values("table_id")
    if not Table.objects.filter(room=room, status=Table.Status.OPEN).exclude(pk__in=busy).exists():
        Table.objects.create(room=room)


# --- Seats ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatResult:
    seat: Seat
    created: bool  # False: the player was already seated there; nothing was charged again


def _open_match(table: Table) -> Match | None:
    return Match.objects.filter(
        table=table, status__in=(Match.Status.WAITING, Match.Status.RUNNING)
    ).first()


def _buy_in_amount(
    *,
    room: Room,
    match: Match | None,
    cashier_amount: int | None,
    stake_per_point: int | None,
) -> tuple[int, int | None]:
    """R10: what a seat escrows, and the stake per point the table plays at (Money Play)."""
    if room.variant != Variant.MONEY:
        extra = {
            name: ["only Money Play tables take this"]
            for name, value in (
                ("cashier_amount", cashier_amount),
                ("stake_per_point", stake_per_point),
            )
            if value is not None
        }
        if extra:
            raise ValidationProblem("One or more fields are invalid", errors=extra)
        return room.stake, None
    currency = room.currency
    choices = list(room.stake_per_point_choices)
    table_stake = match.stake_per_point if match is not None else None
    if stake_per_point is None:
        stake_per_point = table_stake or (choices[0] if len(choices) == 1 else None)
    if stake_per_point not in choices:
        shown = [money_dict(choice, currency) for choice in choices]
        raise StakePerPointNotOfferedProblem(
            "choose a stake per point among " + ", ".join(c["amount"] for c in shown),
            choices=shown,
        )
    if table_stake is not None and stake_per_point != table_stake:
        shown = money_dict(table_stake, currency)
        raise StakePerPointMismatchProblem(
            f"this table plays at {shown['amount']} {currency} per point", stake_per_point=shown
        )
    if cashier_amount is None or not room.cashier_min <= cashier_amount <= room.cashier_max:
        low, high = money_dict(room.cashier_min, currency), money_dict(room.cashier_max, currency)
        raise CashierAmountOutOfRangeProblem(
            f"bring between {low['amount']} and {high['amount']} {currency} to the table cashier",
            minimum=low,
            maximum=high,
        )
    return cashier_amount, stake_per_point


def _match_open(*, table: Table, room: Room, stake_per_point: int | None) -> Match:
    return Match.objects.create(
        table=table,
        room=room,
        operator_id=room.operator_id,
        variant=room.variant,
        rules=room.rules,
        target=room.target,
        stake=room.stake,
        stake_per_point=stake_per_point,
        currency=room.currency,
        fee_bps=room.fee_bps,
        is_practice=room.is_practice,
        turn_seconds=room.turn_seconds,
    )


def seat_take(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None = None,
    stake_per_point: int | None = None,
    actor: Actor,
) -> SeatResult:
    """Sit down (issue 5 item 3). At a money table the buy-in (the stake, or the Money Play
    cashier amount) moves into the game's escrow through the wallet; a refusal (funds,
    limits, self-exclusion) raises the wallet's problem and nothing moves or changes.

    Sitting again where the player already sits returns that seat and charges nothing.
    The second seat starts the match and deals its first hand. In a room with
    ``bot_enabled`` the house bot takes the second seat right away (issue 7 item 3).
    """
    with transaction.atomic():
        result = _seat_take(
            player=player,
            table=table,
            cashier_amount=cashier_amount,
            stake_per_point=stake_per_point,
            actor=actor,
        )
        seat = result.seat
        alone = result.created and seat.state == Seat.State.SEATED
        if alone and seat.table.room.bot_enabled and not is_house_bot(player):
            _bot_join(table=seat.table, seat=seat)
            seat.refresh_from_db()
    return result


def _seat_take(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None,
    stake_per_point: int | None,
    actor: Actor,
) -> SeatResult:
    with transaction.atomic():
        table = lock_table(table.pk)
        room = table.room
        match = _open_match(table)
        if match is not None:
            existing = Seat.objects.filter(
                match=match, player=player, state__in=Seat.ACTIVE_STATES
            ).first()
            if existing is not None:
                return SeatResult(seat=existing, created=False)
        if not room.active or table.status != Table.Status.OPEN:
            raise RoomInactiveProblem(f"table {table.pk} is closed")
        if not room.is_practice and is_house_bot(player):
            raise BotNotAllowedProblem(f"table {table.pk} plays for real money")
        if match is not None and match.status != Match.Status.WAITING:
            raise TableFullProblem(f"a game is being played at table {table.pk}")
        amount, chosen_stake = _buy_in_amount(
            room=room, match=match, cashier_amount=cashier_amount, stake_per_point=stake_per_point
        )
        if match is None:
            match = _match_open(table=table, room=room, stake_per_point=chosen_stake)
        others = list(Seat.objects.filter(match=match, state=Seat.State.SEATED))
        free = sorted(set(SEAT_POSITIONS) - {seat.position for seat in others})
        if not free:
            raise TableFullProblem(f"both seats at table {table.pk} are taken")
        seat = Seat.objects.create(
            table=table,
            match=match,
            position=free[0],
            player=player,
            amount=amount,
            currency=match.currency,
        )
        seat.buy_in_reference = f"seat:{seat.pk}:buy-in"
        seat.save(update_fields=["buy_in_reference"])
        wallet.table_buy_in(
            player=player,
            game_ref=match.game_ref,
            amount=amount,
            currency=match.currency,
            reference=seat.buy_in_reference,
            actor=actor,
        )
        audit_record(
            actor=actor,
            action="seat.taken",
            obj=seat,
            operator=room.operator,
            data={
                "match": match.pk,
                "position": seat.position,
                "amount": amount,
                "currency": match.currency,
                "stake_per_point": match.stake_per_point,
            },
        )
        if len(others) + 1 == len(SEAT_POSITIONS):
            _match_start(match=match, seats=[*others, seat], actor=actor)
            _ensure_free_table(room)
            seat.refresh_from_db()
    return SeatResult(seat=seat, created=True)


def seat_leave(*, player: Player, table: Table, actor: Actor) -> Seat:
    """Leave a table (issue 5 item 3, R10). Before the match starts the buy-in is refunded
    from escrow; leaving a running game forfeits it."""
    with transaction.atomic():
        table = lock_table(table.pk)
        match = _open_match(table)
        seat = (
            Seat.objects.filter(match=match, player=player, state__in=Seat.ACTIVE_STATES).first()
            if match is not None
            else None
        )
        if seat is None:
            raise NotSeatedProblem(f"you have no seat at table {table.pk}")
        if match.status == Match.Status.RUNNING:
            match_forfeit(
                match=match, seat=seat.position, reason=Match.ForfeitReason.LEFT, actor=actor
            )
            seat.refresh_from_db()
            return seat
        seat.state = Seat.State.LEFT
        seat.left_at = timezone.now()
        seat.refund_reference = f"seat:{seat.pk}:refund"
        seat.save(update_fields=["state", "left_at", "refund_reference"])
        wallet.table_refund(
            player=player,
            game_ref=match.game_ref,
            currency=match.currency,
            reference=seat.refund_reference,
            actor=actor,
        )
        audit_record(
            actor=actor,
            action="seat.left",
            obj=seat,
            operator=table.room.operator,
            data={"match": match.pk, "refunded": seat.amount, "currency": seat.currency},
        )
        if not Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).exists():
            match.status = Match.Status.ABORTED
            match.finished_at = timezone.now()
            match.save(update_fields=["status", "finished_at"])
            audit_record(
                actor=actor, action="match.aborted", obj=match, operator=table.room.operator
            )
    return seat


# --- Matches and hands ------------------------------------------------------------------
def _actor_label(actor: Actor) -> str:
    return f"{actor.type}:{actor.id}"


def _deadline(match: Match):
    return timezone.now() + timedelta(seconds=match.turn_seconds)


def _append_events(
    *, match: Match, hand: Hand, entries: Sequence[dict[str, Any]], actor: Actor
) -> None:
    """Append events to the hand and the match's feed; the caller saves hand and match."""
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
    HandEvent.objects.bulk_create(rows)


def _engine_event_payload(event: engine.Event) -> dict[str, Any]:
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


def _hand_deal(*, match: Match, number: int, dealer: int, seed: str, actor: Actor) -> Hand:
    """R3: deal a hand from a fresh server seed, committing to the seed first (its SHA-256
    is stored and shown before any card is seen)."""
    state = engine.deal(seed=seed, dealer=dealer, rules=engine.RuleSet.from_dict(match.rules))
    hand = Hand.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        server_seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        state=engine.state_to_json(state),
        seq=state.seq,
        to_act=state.to_act,
        turn_deadline=_deadline(match),
    )
    _append_events(
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
    hand.save(update_fields=["event_seq"])
    return hand


def _match_start(*, match: Match, seats: list[Seat], actor: Actor) -> None:
    """Two seated players: the match runs and its first hand is dealt. R3: the first dealer
    is chosen by the shuffle (from the first hand's server seed)."""
    for seat in lock_seats(seat.pk for seat in seats):
        seat.state = Seat.State.PLAYING
        seat.save(update_fields=["state"])
    match.status = Match.Status.RUNNING
    match.started_at = timezone.now()
    match.bot_seat = _house_bot_position(match, seats)
    seed = engine.new_server_seed()
    hand = _hand_deal(
        match=match, number=1, dealer=engine.first_dealer(seed), seed=seed, actor=actor
    )
    match.save(update_fields=["status", "started_at", "bot_seat", "seq"])
    audit_record(
        actor=actor,
        action="match.started",
        obj=match,
        operator=match.operator,
        data={"seats": {str(seat.position): str(seat.player_id) for seat in seats}},
    )
    _bot_turn_on_commit(match, hand)


def _house_bot_position(match: Match, seats: list[Seat]) -> int | None:
    """Where the house bot sits in a practice match about to start (None: two players)."""
    if not match.is_practice:
        return None
    bots = set(
        HouseBot.objects.filter(player_id__in=[seat.player_id for seat in seats]).values_list(
            "player_id", flat=True
        )
    )
    return next((seat.position for seat in seats if seat.player_id in bots), None)


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
    very seat, so it was applied already (issue 5 item 5)."""
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


def _lock_running_hands(match: Match) -> tuple[Hand, Hand | None]:
    """The hand being played in a locked, running match, and the hand before it (None in
    the first), in one statement (``lock_newest_hands``)."""
    if match.status != Match.Status.RUNNING:
        raise MatchNotInProgressProblem(f"the game is {match.status}")
    newest = lock_newest_hands(match)
    if not newest or newest[0].status != Hand.Status.IN_PROGRESS:  # pragma: no cover
        raise MatchNotInProgressProblem("no hand is being played")
    return newest[0], (newest[1] if len(newest) > 1 else None)


@transaction.atomic
def hand_apply_action(
    *,
    match: Match | int,
    seat: int,
    action: engine.Action | Mapping[str, Any],
    expected_seq: int,
    actor: Actor,
) -> ActionResult:
    """Apply one seat's action to the match's hand in progress (issue 5 item 5).

    Locks the match, then the hand; checks the sequence number (a retry of the action just
    applied returns without applying anything; anything else stale is refused), the turn and,
    through the engine, the action's legality; appends the events, saves, and moves the match
    on when the hand ends (next deal, or the match's result). What a server-side bot calls,
    with ``actor=Actor.system(...)``; players go through ``player_action_apply``.
    """
    move = _as_action(action, seat)
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    return _action_apply(match=locked, seat=seat, move=move, expected_seq=expected_seq, actor=actor)


@transaction.atomic
def player_action_apply(
    *,
    player: Player,
    match_id: int,
    action: Mapping[str, Any],
    expected_seq: int,
    actor: Actor,
) -> ActionResult:
    """``POST /matches/{id}/actions``: ``hand_apply_action`` for the seat ``player`` holds.

    The caller's seat and the locked match come from one statement (``lock_match_seats``):
    the hot path of the API reads nothing twice. A match the player has no seat in is 404
    (and nothing was locked). The result's match carries ``shown_seats`` for the answer."""
    seats = lock_match_seats(match_id=match_id, player=player)
    seat = selectors.own_seat(seats, player=player, match_id=match_id)
    move = _as_action(action, seat.position)
    return _action_apply(
        match=seat.match, seat=seat.position, move=move, expected_seq=expected_seq, actor=actor
    )


def _action_apply(
    *, match: Match, seat: int, move: engine.Action, expected_seq: int, actor: Actor
) -> ActionResult:
    """The move itself, in the caller's transaction, ``match`` locked."""
    locked = match
    if expected_seq != locked.seq:
        if _is_retry(match=locked, seat=seat, action=move, expected_seq=expected_seq):
            return ActionResult(match=locked, seat=seat, applied=False)
        raise _stale_sequence(locked, expected_seq)
    hand, previous = _lock_running_hands(locked)
    if hand.to_act != seat:
        raise NotYourTurnProblem(f"it is seat {hand.to_act}'s turn", to_act=hand.to_act)
    state = engine.state_from_json(hand.state)
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
    _append_events(match=locked, hand=hand, entries=entries, actor=actor)
    if new_state.to_act != hand.to_act:
        hand.turn_deadline = _deadline(locked)
    hand.state = engine.state_to_json(new_state)
    hand.seq = new_state.seq
    hand.to_act = new_state.to_act
    if new_state.is_over:
        hand.status = Hand.Status.ENDED
        hand.outcome = new_state.outcome.to_dict()
        hand.ended_at = timezone.now()
        hand.turn_deadline = None
    hand.save(
        update_fields=[
            "state",
            "seq",
            "to_act",
            "turn_deadline",
            "status",
            "outcome",
            "ended_at",
            "event_seq",
        ]
    )
    latest: tuple[Hand, ...] = (hand,) if previous is None else (hand, previous)
    if new_state.is_over:
        dealt = _hand_finished(match=locked, hand=hand, outcome=new_state.outcome, actor=actor)
        if dealt is not None:
            latest = (dealt, hand)
    # R10: the running score is part of the game's state; it is stored with the hand that
    # changed it, in this transaction, and every reader reads this one figure.
    locked.save(update_fields=["seq", *SCORE_FIELDS] if new_state.is_over else ["seq"])
    _bot_turn_on_commit(locked, latest[0])
    return ActionResult(match=locked, seat=seat, applied=True, latest_hands=latest)


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
    if outcome.kind == "void":  # R3, R7: no score, same dealer deals again
        return _hand_deal(
            match=match,
            number=hand.number + 1,
            dealer=hand.dealer,
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
            reason="first_to_knock",
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
            dealer=1 - hand.dealer,
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
        reason="target_reached",
        reached_target=progress.winner,
        money_play=money_play,
        forfeit=None,
        actor=actor,
    )
    return None


# First To Knock has no target: its hand points are recorded for the history only.
_FTK_NO_TARGET = 10**9


SCORE_FIELDS = ("points_0", "points_1", "hands_won_0", "hands_won_1")


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
    forfeit: dict[str, Any] | None,
    actor: Actor,
) -> None:
    """Record the result (docs/games.md "Match result") and announce it on commit."""
    seats = lock_seats(
        Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).values_list("pk", flat=True)
    )
    now = timezone.now()
    for seat in seats:
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    public = {
        "reason": reason,
        "winner_seat": winner_seat,
        "reached_target": reached_target,
        "hand_points": list(match.points),
        "hands_won": list(match.hands_won),
        "hands_played": hand.number,
        "target": match.target,
        "money_play": None if money_play is None else money_play.to_dict(),
        "forfeit": forfeit,
    }
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winner_seat = winner_seat
    match.result = {
        "format": RESULT_FORMAT,
        "match_id": match.pk,
        "game_ref": match.game_ref,
        "variant": match.variant,
        **public,
        "currency": match.currency,
        "is_practice": match.is_practice,
        "fee_bps": match.fee_bps,
        "stake": match.stake,
        "stake_per_point": match.stake_per_point,
        "seats": [
            {
                "position": seat.position,
                "seat_id": seat.pk,
                "player_id": str(seat.player_id),
                "amount": seat.amount,
                "currency": seat.currency,
            }
            for seat in sorted(seats, key=lambda seat: seat.position)
        ],
        "finished_at": now.isoformat(),
    }
    _append_events(
        match=match,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.MATCH_FINISHED,
                "seat": winner_seat,
                "state_seq": hand.seq,
                "payload": public,
            }
        ],
        actor=actor,
    )
    hand.save(update_fields=["event_seq"])
    match.save(
        update_fields=[
            "status",
            "finished_at",
            "winner_seat",
            "result",
            *SCORE_FIELDS,
            "forfeit_seat",
            "forfeit_reason",
            "seq",
        ]
    )
    audit_record(
        actor=actor,
        action="match.finished",
        obj=match,
        operator=match.operator,
        data={"reason": reason, "winner_seat": winner_seat},
    )
    on_commit_logged(
        partial(match_finished.send, sender=Match, match_id=match.pk),
        what=f"match_finished of match {match.pk}",
    )


@transaction.atomic
def match_forfeit(
    *,
    match: Match | int,
    seat: int,
    reason: str,
    actor: Actor,
    expected_seq: int | None = None,
) -> Match:
    """R10 "Leaving, timing out": ``seat`` forfeits the running match; the opponent is
    treated as the first to knock (FTK) or as having reached the target (Match Play, Money
    Play). With ``expected_seq`` (turn timers, issue 7) nothing happens unless the game is
    still exactly there, so a move that races the timer either applies or loses, never both.
    """
    if reason not in Match.ForfeitReason.values:
        raise ValueError(f"unknown forfeit reason {reason!r}")
    if seat not in SEAT_POSITIONS:
        raise ValueError(f"a seat is 0 or 1, got {seat!r}")
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    if expected_seq is not None and expected_seq != locked.seq:
        raise _stale_sequence(locked, expected_seq)
    hand = _lock_running_hand(locked)
    result = engine.forfeit_result(
        locked.variant,
        seat,
        hand_points=locked.points,
        hands_won=locked.hands_won,
        target=locked.target,
    )
    hand.status = Hand.Status.ABANDONED
    hand.ended_at = timezone.now()
    hand.turn_deadline = None
    _append_events(
        match=locked,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.FORFEIT,
                "seat": seat,
                "state_seq": hand.seq,
                "payload": {"reason": reason},
            }
        ],
        actor=actor,
    )
    hand.save(update_fields=["status", "ended_at", "turn_deadline", "event_seq"])
    locked.forfeit_seat = seat
    locked.forfeit_reason = reason
    audit_record(
        actor=actor,
        action="match.forfeited",
        obj=locked,
        operator=locked.operator,
        data={"seat": seat, "reason": reason, "hand": hand.number},
    )
    _match_finish(
        match=locked,
        hand=hand,
        winner_seat=result.winner,
        reason="forfeit",
        reached_target=result.reached_target,
        money_play=result.money_play,
        forfeit={"seat": seat, "reason": reason},
        actor=actor,
    )
    return locked


@transaction.atomic
def match_mark_settled(*, match: Match | int, actor: Actor) -> Match:
    """``finished -> settled`` exactly once (for settlement, after it has posted the payout).
    Marking a settled match again changes nothing."""
    locked = lock_match(match.pk if isinstance(match, Match) else match)
    if locked.status == Match.Status.SETTLED:
        return locked
    if locked.status != Match.Status.FINISHED:
        raise MatchNotFinishedProblem(f"the game is {locked.status}")
    locked.status = Match.Status.SETTLED
    locked.settled_at = timezone.now()
    locked.save(update_fields=["status", "settled_at"])
    audit_record(actor=actor, action="match.settled", obj=locked, operator=locked.operator)
    return locked


# --- Resigning and turn timers (issue 7 item 2, R10 "Leaving, timing out") -----------------
@transaction.atomic
def match_resign(*, seat: Seat, actor: Actor, expected_seq: int | None = None) -> Match:
    """The player at ``seat`` gives the running game up (R10: a forfeit, reason
    ``resigned``), on their turn or not. With ``expected_seq`` it applies only if the game is
    still exactly where the player saw it."""
    if seat.state == Seat.State.LEFT:  # left before the start: that position is not theirs
        raise NotSeatedProblem("you left this game before it started")
    return match_forfeit(
        match=seat.match_id,
        seat=seat.position,
        reason=Match.ForfeitReason.RESIGNED,
        actor=actor,
        expected_seq=expected_seq,
    )


TIMER_ACTOR = Actor.system("turn-timer")
TIMER_BATCH = 500


def turn_grace() -> timedelta:
    """How long after a turn's deadline the timer waits before it forfeits the game
    (network latency of a move sent at the last moment). Default 2 s."""
    return timedelta(seconds=float(settings.GAMES_TURN_GRACE_SECONDS))


@dataclass(frozen=True)
class TimerSweep:
    forfeited: list[int] = dataclass_field(default_factory=list)  # match ids forfeited (timeout)
    bot_nudged: list[int] = dataclass_field(default_factory=list)  # bot turns queued again
    skipped: list[int] = dataclass_field(default_factory=list)  # the game moved on first


def turn_timers_expire(*, now: datetime | None = None, limit: int = TIMER_BATCH) -> TimerSweep:
    """Beat job (issue 7 item 2): every turn past its deadline (plus the grace) forfeits the
    game of the player to act (R10, reason ``timeout``).

    Each expired turn is read together with the match's sequence number in ONE query, then
    forfeited with ``expected_seq`` = that number in its own transaction: if the player's
    move commits first the sequence has moved on and the forfeit does nothing; if the forfeit
    commits first the move finds the sequence moved (409 stale-sequence). Never both.

    The house bot never times out: an expired bot turn means its queued move was lost (a
    worker restart), so the move is queued again instead.
    """
    now = now or timezone.now()
    expired = (
        Hand.objects.filter(
            status=Hand.Status.IN_PROGRESS,
            to_act__isnull=False,
            turn_deadline__lt=now - turn_grace(),
            match__status=Match.Status.RUNNING,
        )
        .order_by("turn_deadline")
        .values_list("match_id", "to_act", "match__seq", "match__bot_seat")[:limit]
    )
    sweep = TimerSweep()
    for match_id, seat, seq, bot in expired:
        if bot == seat:
            _enqueue_bot_move(match_id, seq)
            sweep.bot_nudged.append(match_id)
            continue
        try:
            match_forfeit(
                match=match_id,
                seat=seat,
                reason=Match.ForfeitReason.TIMEOUT,
                actor=TIMER_ACTOR,
                expected_seq=seq,
            )
        except (StaleSequenceProblem, MatchNotInProgressProblem):
            sweep.skipped.append(match_id)  # a move (or a resignation) got there first
            continue
        sweep.forfeited.append(match_id)
    if sweep.forfeited:
        logger.info("turn timer: forfeited %s", sweep.forfeited)
    return sweep


# --- The house bot (issue 7 item 3) ----------------------------------------------------------
BOT_ACTOR = Actor.system("house-bot")
HOUSE_BOT_NAME = "House bot"


def is_house_bot(player: Player) -> bool:
    return HouseBot.objects.filter(player_id=player.pk).exists()


def house_bot_player(*, operator: Operator) -> Player:
    """The operator's house bot, created on first use (one per operator: a race to create it
    leaves exactly one, the loser's player row rolls back with its savepoint)."""
    bot = HouseBot.objects.select_related("player").filter(operator=operator).first()
    if bot is not None:
        return bot.player
    try:
        with transaction.atomic():
            player = player_create(
                operator=operator,
                external_ref=f"house-bot:{uuid.uuid4().hex}",
                display_name=HOUSE_BOT_NAME,
                actor=BOT_ACTOR,
            )
            HouseBot.objects.create(operator=operator, player=player)
    except IntegrityError:
        return HouseBot.objects.select_related("player").get(operator=operator).player
    return player


def _bot_join(*, table: Table, seat: Seat) -> SeatResult | None:
    """The bot sits down opposite ``seat`` (same cashier amount and stake per point at a
    Money Play table). A wallet refusal for the bot (e.g. it ran out of chips) leaves the
    player waiting for a human opponent instead of refusing the player's own seat."""
    bot = house_bot_player(operator=table.room.operator)
    try:
        with transaction.atomic():
            return _seat_take(
                player=bot,
                table=table,
                cashier_amount=seat.amount if seat.match.variant == Variant.MONEY else None,
                stake_per_point=seat.match.stake_per_point,
                actor=BOT_ACTOR,
            )
    except Problem as problem:
        logger.warning("the house bot could not sit at table %s: %s", table.pk, problem)
        if isinstance(problem, wallet.InsufficientFundsProblem):
            on_commit_logged(partial(_bot_chips_top_up, bot), what=f"topping up bot {bot.pk}")
        return None


def _bot_chips_top_up(bot: Player) -> bool:
    """The house bot ran out of practice chips at a table: top them back up (at most once a
    period, wallet rules) so the player's next invitation finds it able to sit. In its own
    transaction after the seating commits, never inside it: the seating already holds a
    game's escrow and a mint shard, and taking the bot's wallet and its mint shard there as
    well could deadlock with another table seating the bot."""
    try:
        return wallet.practice_chips_top_up(player=bot, actor=BOT_ACTOR) is not None
    except Problem as problem:  # e.g. topped up already this period
        logger.info("the house bot's chips were not topped up: %s", problem)
        return False


def table_seat_bot(*, player: Player, table: Table, actor: Actor) -> SeatResult:
    """``POST /tables/{id}/bot``: a player seated alone at a practice table invites the house
    bot to the second seat (which starts the game). Real-money tables refuse. A bot out of
    chips is topped up (wallet rules, its own transaction) and sits on the second try."""
    try:
        return _table_seat_bot(player=player, table=table, actor=actor)
    except wallet.InsufficientFundsProblem:
        if not _bot_chips_top_up(house_bot_player(operator=table.room.operator)):
            raise
    return _table_seat_bot(player=player, table=table, actor=actor)


def _table_seat_bot(*, player: Player, table: Table, actor: Actor) -> SeatResult:
    with transaction.atomic():
        table = lock_table(table.pk)
        if not table.room.is_practice:
            raise BotNotAllowedProblem(f"table {table.pk} plays for real money")
        match = _open_match(table)
        mine = (
            Seat.objects.select_related("match")
            .filter(match=match, player=player, state__in=Seat.ACTIVE_STATES)
            .first()
            if match is not None
            else None
        )
        if mine is None:
            raise NotSeatedProblem(f"sit down at table {table.pk} first, then invite the bot")
        bot = house_bot_player(operator=table.room.operator)
        if match.status != Match.Status.WAITING:
            existing = Seat.objects.filter(match=match, player=bot).first()
            if existing is not None:
                return SeatResult(seat=existing, created=False)
            raise TableFullProblem(f"a game is being played at table {table.pk}")
        result = _seat_take(
            player=bot,
            table=table,
            cashier_amount=mine.amount if match.variant == Variant.MONEY else None,
            stake_per_point=match.stake_per_point,
            actor=BOT_ACTOR,
        )
        audit_record(
            actor=actor,
            action="table.bot_invited",
            obj=table,
            operator=table.room.operator,
            data={"match": match.pk, "seat": result.seat.position},
        )
    return result


def bot_seat(match: Match | int) -> int | None:
    """The position of the house bot in the match, if it plays there (``Match.bot_seat``)."""
    if isinstance(match, Match):
        return match.bot_seat
    return Match.objects.filter(pk=match).values_list("bot_seat", flat=True).first()


def _bot_turn_on_commit(match: Match, hand: Hand) -> None:
    """When the house bot is to act in ``hand`` (the match's newest, just dealt or just
    played), queue its move for after the commit. No query: the match row says where the
    bot sits, if anywhere."""
    if (
        match.bot_seat is not None
        and match.status == Match.Status.RUNNING
        and hand.status == Hand.Status.IN_PROGRESS
        and hand.to_act == match.bot_seat
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


def bot_play(*, match_id: int, expected_seq: int) -> bool:
    """The house bot's move (``games.tasks.bot_move``). Idempotent through ``expected_seq``:
    a stale or repeated task (the game moved on, it is not the bot's turn, the game is over)
    does nothing and returns False.

    The bot does not cheat: it decides from ``engine.player_view`` of its own seat only, and
    plays through ``hand_apply_action`` like any player."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.seq != expected_seq or match.status != Match.Status.RUNNING:
        return False
    seat = bot_seat(match)
    hand = Hand.objects.filter(match=match, status=Hand.Status.IN_PROGRESS).first()
    if seat is None or hand is None or hand.to_act != seat:
        return False
    view = engine.player_view(engine.state_from_json(hand.state), seat)
    move = engine.choose_action_from_view(view)
    try:
        result = hand_apply_action(
            match=match_id, seat=seat, action=move, expected_seq=expected_seq, actor=BOT_ACTOR
        )
    except (StaleSequenceProblem, NotYourTurnProblem, MatchNotInProgressProblem):
        return False
    return result.applied
