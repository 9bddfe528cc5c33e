"""Seating: sitting down, leaving, the buy-ins, and opening and starting a match (R10, R11).

- ``seat_take``: a seat at a table, its buy-in moved into the game's escrow through
  ``wallet.services.table_buy_in`` (the stake, or the Money Play cashier amount and stake per
  point, ``_buy_in_amount``); the first seat opens the table's match (``_match_open``), the
  second starts it and deals the first hand (``_match_start``).
- ``seat_leave``: before the start, the buy-in back (``wallet.services.table_refund``); a
  running game is forfeited (``timers.match_forfeit``).
- The house bot sits down here too: opposite a player alone in a ``bot_enabled`` room
  (``_bot_join``), or when the player invites it (``table_seat_bot``).

Locks: the Table row first (``games.locks``), which owns the table's waiting match and its
seats. Transactions: ``seat_take``, ``seat_leave`` and each try of ``table_seat_bot`` are
top-level and durable; the wallet's buy-in and refund run inside them.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from functools import partial

from django.db import transaction
from django.utils import timezone

from games import engine
from games.locks import lock_seats, lock_table
from games.models import Match, Room, Seat, Table, Variant
from games.problems import (
    BotNotAllowedProblem,
    CashierAmountOutOfRangeProblem,
    NetworkNotJoinedProblem,
    NetworkTableOtherModeProblem,
    NotSeatedProblem,
    RoomInactiveProblem,
    ScreenNameRequiredProblem,
    StakePerPointMismatchProblem,
    StakePerPointNotOfferedProblem,
    TableFullProblem,
)
from games.realtime import publisher
from games.selectors import first_dealer_for, network_room_offered, room_has_waiting_players
from games.services.house_bot import (
    BOT_ACTOR,
    _bot_chips_top_up,
    _house_bot_positions,
    house_bot_player,
    is_house_bot,
)
from games.services.network import match_event_enqueue
from games.services.play import _bot_turn_on_commit, _hand_deal
from games.services.rooms import _ensure_free_table
from games.services.timers import match_forfeit
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit, on_commit_logged
from gin_platform.events.catalogue import player_ref
from gin_platform.http.problems import Problem, ValidationProblem
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import is_network_operator
from wallet import services as wallet
from wallet.problems import InsufficientFundsProblem, WalletUnavailableProblem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatResult:
    seat: Seat
    created: bool  # False: the player was already seated there; nothing was charged again


def _open_match(table: Table) -> Match | None:
    # A table has at most one (match_one_open_per_table): no ORDER BY, which would let a
    # generic plan walk every game in key order to the open one (docs/deploy.md).
    open_matches = Match.objects.filter(
        table=table, status__in=(Match.Status.WAITING, Match.Status.RUNNING)
    )
    return next(iter(open_matches[:1]), None)


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
            f"this table plays at {shown['amount']} {currency} per point",
            stake_per_point=shown,
        )
    if cashier_amount is None or not room.cashier_min <= cashier_amount <= room.cashier_max:
        low, high = (
            money_dict(room.cashier_min, currency),
            money_dict(room.cashier_max, currency),
        )
        raise CashierAmountOutOfRangeProblem(
            f"bring between {low['amount']} and {high['amount']} {currency} to the table cashier",
            minimum=low,
            maximum=high,
        )
    return cashier_amount, stake_per_point


def _network_seat_check(*, player: Player, room: Room) -> None:
    """Who may sit at a network room's table (docs/network.md "Rooms, membership and screen
    names"): a player of an operator that is a member of the network now and offers the room
    (``all_rooms`` or an opt-in), who chose a screen name, never the house bot. Any other
    room: nothing to check here."""
    if not is_network_operator(room.operator_id):
        return
    if is_house_bot(player):
        raise BotNotAllowedProblem(f"the house bot does not play in network room {room.pk}")
    if not network_room_offered(operator=player.operator, room=room):
        raise NetworkNotJoinedProblem(f"your operator does not offer network room {room.pk}")
    if not player.screen_name:
        raise ScreenNameRequiredProblem(
            "choose a screen name before you sit at a network table: the other players "
            "see only that name"
        )


def _network_mode_check(*, player: Player, match: Match) -> None:
    """A network table never mixes live and test-mode (sandbox) players: their money lives
    in separate books (docs/api.md "Sandbox")."""
    if not is_network_operator(match.operator_id):
        return
    others = Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).exclude(
        player__operator__is_sandbox=player.operator.is_sandbox
    )
    if others.exists():
        raise NetworkTableOtherModeProblem(
            f"table {match.table_id} seats {'live' if player.operator.is_sandbox else 'test-mode'}"
            " players"
        )


def _match_open(*, table: Table, room: Room, stake_per_point: int | None) -> Match:
    seats = room.seats
    multi = seats > 2  # R12: the running score per seat (docs/games.md)
    return Match.objects.create(
        seat_count=seats,
        prize_table=room.prize_table,
        seat_scores=({"penalty_totals": [0] * seats, "hands_won": [0] * seats} if multi else {}),
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
    """Sit down (``_seat_take_durable``). A seamless player (docs/wallet.md "Seamless wallet")
    is first debited in the operator's wallet, outside any transaction; if the seat is then
    refused (or the player already sat there), the debit is rolled back."""
    debit = _seamless_buy_in(
        player=player,
        table=table,
        cashier_amount=cashier_amount,
        stake_per_point=stake_per_point,
        actor=actor,
    )
    try:
        result = _seat_take_durable(
            player=player,
            table=table,
            cashier_amount=cashier_amount,
            stake_per_point=stake_per_point,
            actor=actor,
            seamless_debit=debit,
        )
    except BaseException as error:
        if debit is not None:
            wallet.seamless_rollback(debit=debit, actor=actor)
            if isinstance(error, WalletUnavailableProblem):  # as its rollback stands now
                raise wallet.seamless_debit_unavailable(debit=debit) from None
        raise
    if debit is not None and not result.created:
        wallet.seamless_rollback(debit=debit, actor=actor)
    return result


def _seamless_buy_in(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None,
    stake_per_point: int | None,
    actor: Actor,
):
    """The operator's wallet debit of a seamless buy-in, or None (transfer mode, practice
    chips, or a seat that will not be taken: already seated, game running)."""
    room = table.room
    if not wallet.seamless_mode(player=player, currency=room.currency):
        return None
    match = _open_match(table)
    if match is not None and (
        match.status != Match.Status.WAITING
        or Seat.objects.filter(match=match, player=player, state__in=Seat.ACTIVE_STATES).exists()
    ):
        return None
    amount, _ = _buy_in_amount(
        room=room, match=match, cashier_amount=cashier_amount, stake_per_point=stake_per_point
    )
    return wallet.seamless_debit(
        player=player,
        amount=amount,
        currency=room.currency,
        purpose=f"buy-in:table:{table.pk}:{uuid.uuid4()}",
        actor=actor,
    )


def _seat_take_durable(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None = None,
    stake_per_point: int | None = None,
    actor: Actor,
    seamless_debit=None,
) -> SeatResult:
    """Sit down (R10, R11). At a money table the buy-in (the stake, or the Money Play
    cashier amount) moves into the game's escrow through the wallet; a refusal (funds,
    limits, self-exclusion) raises the wallet's problem and nothing moves or changes.

    Sitting again where the player already sits returns that seat and charges nothing.
    The second seat starts the match and deals its first hand. In a room with
    ``bot_enabled`` the house bot takes the second seat right away (R11).
    """
    with transaction.atomic(durable=True):
        result = _seat_take(
            player=player,
            table=table,
            cashier_amount=cashier_amount,
            stake_per_point=stake_per_point,
            actor=actor,
            seamless_debit=seamless_debit,
        )
        seat = result.seat
        publisher.match_changed(match_id=seat.match_id)
        alone = result.created and seat.state == Seat.State.SEATED
        room = seat.table.room
        if (
            alone
            and room.bot_enabled
            and not is_house_bot(player)
            and not is_network_operator(room.operator_id)
        ):
            _bot_join(table=seat.table, seat=seat)
            seat.refresh_from_db()
        if (
            seat.state == Seat.State.SEATED
            and result.created
            and room_has_waiting_players(room_id=room.pk)
        ):
            # Somebody waits for an opponent in this room: the waiting list may seat them
            # opposite this player (docs/network.md "Lobby and waiting list"), after the
            # commit, in a task (``games.tasks.waiting_list_match``).
            from games import tasks

            enqueue_on_commit(tasks.waiting_list_match, room.pk)
    return result


def _seat_take(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None,
    stake_per_point: int | None,
    actor: Actor,
    seamless_debit=None,
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
        _network_seat_check(player=player, room=room)
        if match is not None and match.status != Match.Status.WAITING:
            raise TableFullProblem(f"a game is being played at table {table.pk}")
        amount, chosen_stake = _buy_in_amount(
            room=room,
            match=match,
            cashier_amount=cashier_amount,
            stake_per_point=stake_per_point,
        )
        if match is None:
            match = _match_open(table=table, room=room, stake_per_point=chosen_stake)
        else:
            _network_mode_check(player=player, match=match)
        others = list(Seat.objects.filter(match=match, state=Seat.State.SEATED))
        free = sorted(set(match.positions) - {seat.position for seat in others})
        if not free:
            raise TableFullProblem(f"every seat at table {table.pk} is taken")
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
        buy_in = wallet.table_buy_in(
            player=player,
            game_ref=match.game_ref,
            amount=amount,
            currency=match.currency,
            reference=seat.buy_in_reference,
            actor=actor,
            escrow_operator=room.operator,
        )
        if seamless_debit is not None:  # the operator's debit now sits in this escrow
            wallet.seamless_debit_consume(
                debit=seamless_debit, ledger_transaction=buy_in, actor=actor
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
        taken = {**_seat_event(seat, room), "buy_in": money_dict(amount, match.currency)}
        match_event_enqueue(
            match=match, event_type="seat.taken", data=lambda _: taken, about=player
        )
        if len(others) + 1 == match.seat_count:  # R12: a match starts when the table is full
            _match_start(match=match, seats=[*others, seat], actor=actor)
            _ensure_free_table(room)
            seat.refresh_from_db()
    return SeatResult(seat=seat, created=True)


def _seat_event(seat: Seat, room: Room) -> dict:
    """What seat.taken and seat.left say of the seat (gin_platform/events/catalogue.py)."""
    return {
        **player_ref(seat.player),
        "match_id": seat.match_id,
        "table_id": seat.table_id,
        "room_id": room.pk,
        "position": seat.position,
        "is_practice": room.is_practice,
    }


def seat_leave(*, player: Player, table: Table, actor: Actor) -> Seat:
    """Leave a table (R10). Before the match starts the buy-in is refunded from escrow;
    leaving a running game forfeits it."""
    with transaction.atomic(durable=True):
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
                match=match,
                seat=seat.position,
                reason=Match.ForfeitReason.LEFT,
                actor=actor,
            )
            seat.refresh_from_db()
            forfeited = {**_seat_event(seat, table.room), "refunded": None, "forfeited": True}
            match_event_enqueue(
                match=match, event_type="seat.left", data=lambda _: forfeited, about=player
            )
            return seat
        publisher.match_changed(match_id=match.pk)
        seat.state = Seat.State.LEFT
        seat.left_at = timezone.now()
        seat.refund_reference = f"seat:{seat.pk}:refund"
        seat.save(update_fields=["state", "left_at", "refund_reference"])
        refund = wallet.table_refund(
            player=player,
            game_ref=match.game_ref,
            currency=match.currency,
            reference=seat.refund_reference,
            actor=actor,
            escrow_operator=table.room.operator,
        )
        # Seamless mode: the refund goes back to the operator's wallet after the commit.
        wallet.seamless_credits_record(ledger_transaction=refund, actor=actor)
        audit_record(
            actor=actor,
            action="seat.left",
            obj=seat,
            operator=table.room.operator,
            data={
                "match": match.pk,
                "refunded": seat.amount,
                "currency": seat.currency,
            },
        )
        left = {
            **_seat_event(seat, table.room),
            "refunded": money_dict(seat.amount, seat.currency),
            "forfeited": False,
        }
        match_event_enqueue(match=match, event_type="seat.left", data=lambda _: left, about=player)
        if not Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).exists():
            match.status = Match.Status.ABORTED
            match.finished_at = timezone.now()
            match.save(update_fields=["status", "finished_at"])
            audit_record(
                actor=actor,
                action="match.aborted",
                obj=match,
                operator=table.room.operator,
            )
    return seat


def _match_start(*, match: Match, seats: list[Seat], actor: Actor) -> None:
    """A full table (two seats, or three or four, R12): the match runs and its first hand is
    dealt. R3: the first dealer is chosen by the shuffle (from the first hand's server seed;
    with 3-4 seats, ``engine.first_dealer`` modulo the seat count)."""
    for seat in lock_seats(seat.pk for seat in seats):
        seat.state = Seat.State.PLAYING
        seat.save(update_fields=["state"])
    match.status = Match.Status.RUNNING
    match.started_at = timezone.now()
    bots = _house_bot_positions(match, seats)
    match.bot_seats = bots
    match.bot_seat = bots[0] if bots else None
    seed = engine.new_server_seed()
    hand = _hand_deal(
        match=match,
        number=1,
        dealer=first_dealer_for(seed, match.seat_count),  # R3; R12 with 3-4 seats
        seed=seed,
        actor=actor,
    )
    match.save(update_fields=["status", "started_at", "bot_seat", "bot_seats", "seq"])
    audit_record(
        actor=actor,
        action="match.started",
        obj=match,
        operator=match.operator,
        data={"seats": {str(seat.position): str(seat.player_id) for seat in seats}},
    )
    _bot_turn_on_commit(match, hand)


# --- The house bot takes a seat -----------------------------------------------------------
def _bot_join(*, table: Table, seat: Seat) -> SeatResult | None:
    """The bot sits down opposite ``seat`` (same cashier amount and stake per point at a
    Money Play table); at a 3-4 seat table (R12) house bots take every free seat. A wallet
    refusal for a bot (e.g. it ran out of chips) leaves the player waiting for others
    instead of refusing the player's own seat."""
    result = None
    for number in range(seat.match.seat_count - 1):
        if seat.match.status != Match.Status.WAITING:
            break
        result = _bot_join_one(table=table, seat=seat, number=number)
        if result is None:
            break
        seat.match.refresh_from_db(fields=["status"])
    return result


def _bot_join_one(*, table: Table, seat: Seat, number: int) -> SeatResult | None:
    bot = house_bot_player(operator=table.room.operator, number=number)
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
        if isinstance(problem, InsufficientFundsProblem):
            on_commit_logged(partial(_bot_chips_top_up, bot), what=f"topping up bot {bot.pk}")
        return None


def table_seat_bot(*, player: Player, table: Table, actor: Actor) -> SeatResult:
    """``POST /tables/{id}/bot``: a player seated alone at a practice table invites the house
    bot to the second seat (which starts the game). Real-money tables refuse. A bot out of
    chips is topped up (wallet rules, its own transaction) and sits on the second try."""
    try:
        return _table_seat_bot(player=player, table=table, actor=actor)
    except InsufficientFundsProblem:
        if not _bot_chips_top_up(house_bot_player(operator=table.room.operator)):
            raise
    return _table_seat_bot(player=player, table=table, actor=actor)


def _table_seat_bot(*, player: Player, table: Table, actor: Actor) -> SeatResult:
    with transaction.atomic(durable=True):
        table = lock_table(table.pk)
        if not table.room.is_practice:
            raise BotNotAllowedProblem(f"table {table.pk} plays for real money")
        if is_network_operator(table.room.operator_id):
            raise BotNotAllowedProblem(f"the house bot does not play at network table {table.pk}")
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
        active = match.seats.filter(state__in=Seat.ACTIVE_STATES)
        seated = set(active.values_list("player", flat=True))
        operator = table.room.operator
        bots = [house_bot_player(operator=operator, number=n) for n in range(match.seat_count - 1)]
        if match.status != Match.Status.WAITING:
            existing = Seat.objects.filter(match=match, player__in=bots).order_by("pk").first()
            if existing is not None:
                return SeatResult(seat=existing, created=False)
            raise TableFullProblem(f"a game is being played at table {table.pk}")
        # R12: the next bot not seated yet (a 3-4 seat table may take several).
        bot = next((bot for bot in bots if bot.pk not in seated), bots[-1])
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
