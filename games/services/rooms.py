"""Rooms and tables: what an operator opens (R10, R11).

``room_create`` checks a room's options against its variant (R10: targets, stakes, cashier
bounds; R11: practice rooms play for chips) and opens its first tables; ``room_update``
renames or closes it; ``table_create`` adds a table. ``free_table_ensure`` keeps one table
without a game in every open room (seating calls it when a game starts).
``tournament_room_open`` opens a tournament's room (R14): the same rule and clock options,
no stake, no table until the tournament opens a match there (``tournament_matches``); the
operator reads it with the others but changes it only through the tournament.

These run inside the caller's transaction when there is one: the operator endpoints wrap
them in the Idempotency-Key transaction (``gin_platform.http.idempotency``), so they are atomic but
not durable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from games import engine
from games.locks import lock_room
from games.models import (
    MAX_FEE_BPS,
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    SEAT_COUNTS,
    WINNER_TAKES_ALL,
    Match,
    Room,
    Table,
    Variant,
)
from games.problems import InvalidRoomOptionsProblem, TournamentTableProblem
from games.turn_clock import TURN_CLOCK_OPTIONS
from gin_platform.audit import audit_changes, audit_record
from gin_platform.models import Operator
from gin_platform.money import PRACTICE_CURRENCY, CurrencyError, normalize_currency
from gin_platform.tenancy.principals import Actor

MAX_STAKE_PER_POINT_CHOICES = 10
MAX_TABLES_PER_REQUEST = 50
DEFAULT_PENALTY_TARGET = 100  # R12: Match Play with 3-4 players, points against


def _room_problem(message: str, field: str) -> InvalidRoomOptionsProblem:
    return InvalidRoomOptionsProblem(message, field=field)


def _room_currency(currency: str | None, *, is_practice: bool) -> str:
    if is_practice:
        # R11: practice tables play for play money only, never a real currency.
        if currency not in (None, "", PRACTICE_CURRENCY):
            raise _room_problem(
                f"practice rooms play for {PRACTICE_CURRENCY} chips, not {currency}",
                "currency",
            )
        return PRACTICE_CURRENCY
    try:
        code = normalize_currency(currency)
    except CurrencyError as exc:
        raise _room_problem(str(exc), "currency") from exc
    if code == PRACTICE_CURRENCY:
        raise _room_problem(
            f"{PRACTICE_CURRENCY} is play money: set is_practice for a practice room",
            "currency",
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
    elif target not in (targets := engine.targets_for(variant)):
        allowed = " or ".join(str(points) for points in targets)
        raise _room_problem(f"a {Variant(variant).label} target is {allowed} (R10)", "target")
    if variant in (Variant.FTK, Variant.MATCH):
        if choices or cashier_min is not None or cashier_max is not None:
            raise _room_problem(
                "stakes per point and cashier bounds are for Money Play rooms",
                "variant",
            )
        return {"target": target, "stake": _positive(stake, "stake")}
    if stake is not None:
        raise _room_problem("Money Play rooms have stakes per point, not a stake", "stake")
    if not choices or len(choices) > MAX_STAKE_PER_POINT_CHOICES:
        raise _room_problem(
            f"offer 1 to {MAX_STAKE_PER_POINT_CHOICES} stakes per point",
            "stake_per_point_choices",
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


def _room_seating(
    *,
    variant: str,
    rules: Mapping[str, Any] | None,
    seats: int | None,
    prize_table: str | None,
    target: int | None,
) -> tuple[engine.RuleSet, str, int | None]:
    """R12: the seat count (2, or 3-4 for First To Knock and Match Play; Money Play stays
    heads-up), carried in the rules so the engine deals 7 cards; the prize table (winner takes
    all by default; 70/30 for 3, 65/35 or 50/30/20 for 4, Match Play only); a 3-4 seat Match
    Play room's penalty target defaults to 100. Returns the rules, the prize table and the
    target."""
    options = dict(rules or {})
    if seats is None:
        seats = options.get("seats", 2)
    if type(seats) is not int or seats not in SEAT_COUNTS:
        raise _room_problem("a table seats 2, 3 or 4 players (R12)", "seats")
    if options.get("seats", seats) != seats:
        raise _room_problem("rules.seats disagrees with seats", "rules")
    if seats > 2:
        options["seats"] = seats
        if variant == Variant.MONEY:
            raise _room_problem("Money Play stays heads-up: seats is 2 (R12)", "seats")
        if variant == Variant.MATCH and target is None:
            target = DEFAULT_PENALTY_TARGET
    try:
        rule_set = engine.RuleSet.from_dict(options)
    except (TypeError, ValueError) as exc:
        raise _room_problem(str(exc), "rules") from exc
    table = WINNER_TAKES_ALL if prize_table in (None, "") else prize_table
    if seats == 2:
        if table != WINNER_TAKES_ALL:
            raise _room_problem("a heads-up table pays the winner: no prize table", "prize_table")
        return rule_set, table, target
    try:
        engine.check_prize_table(table, seats, variant)
    except ValueError as exc:
        raise _room_problem(str(exc), "prize_table") from exc
    return rule_set, table, target


def _room_bot_level(bot_level: object, *, is_practice: bool) -> str | None:
    """The house bot's level in a new room: a practice room's (``easy`` unless named), none
    at a real-money room, which refuses one being named at all (R11: no house bot there)."""
    if bot_level is None:
        return engine.BOT_EASY if is_practice else None
    if not is_practice:
        raise _room_problem(
            "the house bot plays at practice tables only (R11): no bot_level", "bot_level"
        )
    if bot_level not in engine.BOT_LEVELS:
        raise _room_problem(f"bot_level is one of {', '.join(engine.BOT_LEVELS)}", "bot_level")
    return str(bot_level)


def _turn_seconds_check(turn_seconds: object) -> None:
    if type(turn_seconds) is not int or not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
        raise _room_problem(
            f"turn_seconds is {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS}", "turn_seconds"
        )


def _turn_clock(options: Mapping[str, int]) -> dict[str, int]:
    """R13's options, each within its bounds, the rule's default where not given."""
    clock = {}
    for name, (default, most) in TURN_CLOCK_OPTIONS.items():
        value = options.get(name, default)
        if type(value) is not int or not 0 <= value <= most:
            raise _room_problem(f"{name} is 0 to {most}", f"turn_clock.{name}")
        clock[name] = value
    return clock


@transaction.atomic
def room_create(
    *,
    operator: Operator,
    name: str,
    variant: str,
    currency: str | None = None,
    is_practice: bool = False,
    bot_enabled: bool = False,
    bot_level: str | None = None,
    rules: Mapping[str, Any] | None = None,
    target: int | None = None,
    stake: int | None = None,
    stake_per_point_choices: Sequence[int] = (),
    cashier_min: int | None = None,
    cashier_max: int | None = None,
    fee_bps: int = 0,
    turn_seconds: int = 30,
    turn_clock: Mapping[str, int] | None = None,
    tables: int = 1,
    seats: int | None = None,
    prize_table: str | None = None,
    actor: Actor,
) -> Room:
    if variant not in Variant.values:
        raise _room_problem(f"unknown variant {variant!r}", "variant")
    rule_set, prize_table, target = _room_seating(
        variant=variant, rules=rules, seats=seats, prize_table=prize_table, target=target
    )
    if type(fee_bps) is not int or not 0 <= fee_bps <= MAX_FEE_BPS:
        raise _room_problem(f"fee_bps is 0 to {MAX_FEE_BPS} basis points", "fee_bps")
    _turn_seconds_check(turn_seconds)
    clock = _turn_clock(turn_clock or {})
    if type(tables) is not int or not 1 <= tables <= MAX_TABLES_PER_REQUEST:
        raise _room_problem(f"open 1 to {MAX_TABLES_PER_REQUEST} tables", "tables")
    if bot_enabled and not is_practice:
        raise _room_problem("the house bot plays at practice tables only (R11)", "bot_enabled")
    level = _room_bot_level(bot_level, is_practice=is_practice)
    room = Room.objects.create(
        operator=operator,
        name=name,
        variant=variant,
        rules=rule_set.to_dict(),
        currency=_room_currency(currency, is_practice=is_practice),
        is_practice=is_practice,
        bot_enabled=bool(bot_enabled),
        bot_level=level,
        fee_bps=fee_bps,
        turn_seconds=turn_seconds,
        **clock,
        seats=rule_set.seats,
        prize_table=prize_table,
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
            "bot_level": level,
            "tables": tables,
            "seats": rule_set.seats,
            "prize_table": prize_table,
            "turn_clock": clock,
        },
    )
    return room


def _tournament_room_refusal(room: Room) -> None:
    if room.purpose == Room.Purpose.TOURNAMENT:
        raise TournamentTableProblem("This room belongs to a tournament: the tournament runs it.")


def _tournament_room_options(
    *,
    variant: str,
    rules: Mapping[str, Any] | None,
    seats: int,
    currency: str,
    turn_seconds: int,
    turn_clock: Mapping[str, int] | None,
) -> tuple[engine.RuleSet, dict[str, int]]:
    if variant not in (Variant.FTK, Variant.MATCH):
        raise _room_problem("a tournament plays First To Knock or Match Play (R14)", "variant")
    rule_set, _, _ = _room_seating(
        variant=variant, rules=rules, seats=seats, prize_table=None, target=None
    )
    _turn_seconds_check(turn_seconds)
    _room_currency(currency, is_practice=False)
    return rule_set, _turn_clock(turn_clock or {})


def tournament_room_check(
    *,
    variant: str,
    rules: Mapping[str, Any] | None,
    seats: int,
    currency: str,
    turn_seconds: int = 30,
    turn_clock: Mapping[str, int] | None = None,
) -> None:
    """What ``tournament_room_open`` would refuse of these options (422
    ``invalid-room-options``), checked without writing anything: a tournament proposed to
    staff's four eyes is checked when it is proposed (R14)."""
    _tournament_room_options(
        variant=variant,
        rules=rules,
        seats=seats,
        currency=currency,
        turn_seconds=turn_seconds,
        turn_clock=turn_clock,
    )


@transaction.atomic
def tournament_room_open(
    *,
    operator: Operator,
    name: str,
    variant: str,
    rules: Mapping[str, Any] | None,
    seats: int,
    currency: str,
    turn_seconds: int = 30,
    turn_clock: Mapping[str, int] | None = None,
    actor: Actor,
) -> Room:
    """A tournament's room (R14): its matches are First To Knock or Match Play (each match
    names its own, and its target), at tables of ``seats`` (2, 3 or 4: the largest match it
    will hold), with the room's rule options (R6-R9, R12) and R13's clock options, in a real
    currency. Nothing is staked at its tables and no fee is taken there: the tournament's
    entries pay its prizes. ``operator`` is the network's for a network tournament (its
    players come from the member operators, as at network tables). No table is opened
    until a match is; it never shows in the lobby. Audited."""
    rule_set, clock = _tournament_room_options(
        variant=variant,
        rules=rules,
        seats=seats,
        currency=currency,
        turn_seconds=turn_seconds,
        turn_clock=turn_clock,
    )
    room = Room.objects.create(
        operator=operator,
        name=name,
        purpose=Room.Purpose.TOURNAMENT,
        variant=variant,
        rules=rule_set.to_dict(),
        currency=_room_currency(currency, is_practice=False),
        turn_seconds=turn_seconds,
        **clock,
        seats=rule_set.seats,
        prize_table=WINNER_TAKES_ALL,
    )
    audit_record(
        actor=actor,
        action="room.created",
        obj=room,
        operator=operator,
        data={
            "purpose": room.purpose,
            "variant": variant,
            "currency": room.currency,
            "seats": rule_set.seats,
            "turn_clock": clock,
        },
    )
    return room


@transaction.atomic
def room_update(
    *, room: Room, actor: Actor, name: str | None = None, active: bool | None = None
) -> Room:
    """Rename or open/close a room. Stakes and rules never change under a room's players:
    open a new room for new terms (games already under way keep their snapshot anyway).
    A tournament's room (R14) is refused: the tournament runs it."""
    locked = lock_room(room.pk)
    _tournament_room_refusal(locked)
    audit_changes(
        obj=locked,
        values={"name": name, "active": active},
        actor=actor,
        action="room.updated",
        operator=locked.operator,
    )
    return locked


@transaction.atomic
def table_create(*, room: Room, actor: Actor) -> Table:
    _tournament_room_refusal(room)  # R14: each match of the tournament opens its own
    table = Table.objects.create(room=room)
    audit_record(actor=actor, action="table.created", obj=table, operator=room.operator)
    return table


def free_table_ensure(room: Room) -> None:
    """Keep a table without a game in the room, so the lobby always has a seat to offer (a
    tournament's room is not in the lobby: each of its matches opens its own table, R14)."""
    if not room.active or room.purpose == Room.Purpose.TOURNAMENT:
        return
    busy = Match.objects.filter(status=Match.Status.RUNNING).values("table_id")
    if not Table.objects.filter(room=room, status=Table.Status.OPEN).exclude(pk__in=busy).exists():
        Table.objects.create(room=room)
