"""Seating: sitting down, leaving, the buy-ins, and opening and starting a match (R10, R11).

- ``seat_take``: a seat at a table, its buy-in moved into the game's escrow through
  ``wallet.services.table_buy_in`` (the stake, or the Money Play cashier amount and stake per
  point, ``seat_checks.buy_in_amount``, which also says who may sit at a network table); the
  first seat opens the table's match (``_match_open``), the full table starts it and deals
  the first hand (``match_start``; a tournament's match starts there too, R14). A
  tournament's tables refuse every seat taken here (``seat_checks.cash_table_check``).
- ``seat_leave``: before the start, the buy-in back (``wallet.services.table_refund``); a
  running game is forfeited (``timers.match_forfeit``).
- The house bot sits down here too: opposite a player alone in a ``bot_enabled`` room
  (``_bot_join``), or when the player invites it (``table_seat_bot``).
- ``seat_take_locked`` and ``seamless_buy_in`` are the two halves of ``seat_take`` that
  ``pair_seating`` (R15's quick seat: two players at one table, all or nothing) shares.

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
from django.utils.translation import gettext

from games import engine
from games.locks import lock_seats, lock_table
from games.models import Match, Room, Seat, Table, Variant
from games.problems import (
    BotNotAllowedProblem,
    NotSeatedProblem,
    RoomInactiveProblem,
    TableFullProblem,
    TournamentTableProblem,
)
from games.realtime import publisher
from games.selectors import first_dealer_for, room_has_waiting_players, table_open_match
from games.services.hand_lifecycle import bot_turn_on_commit, hand_deal
from games.services.house_bot import (
    BOT_ACTOR,
    bot_chips_top_up,
    house_bot_player,
    house_bot_positions,
    is_house_bot,
)
from games.services.network import match_event_enqueue
from games.services.rooms import free_table_ensure
from games.services.seat_checks import (
    buy_in_amount,
    cash_table_check,
    linked_players_check,
    network_mode_check,
    network_seat_check,
)
from games.services.timers import match_forfeit
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit, on_commit_logged
from gin_platform.events.catalogue import player_ref
from gin_platform.http.problems import Problem
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import is_network_operator
from protection.play import buy_in_check, buy_in_session, wallet_context
from wallet import services as wallet
from wallet.problems import InsufficientFundsProblem, WalletUnavailableProblem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatResult:
    seat: Seat
    created: bool  # False: the player was already seated there; nothing was charged again


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
        **room.turn_clock_options(),  # R13, as the room says when the match opens
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
    cash_table_check(table.room)  # R14: before the operator's wallet is asked for anything
    debit = seamless_buy_in(
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


def seamless_buy_in(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None,
    stake_per_point: int | None,
    actor: Actor,
):
    """The operator's wallet debit of a seamless buy-in, or None (transfer mode, practice
    chips, or a seat that will not be taken: already seated, game running). Outside any
    transaction: the operator's wallet is called over HTTP."""
    room = table.room
    if not wallet.seamless_mode(player=player, currency=room.currency):
        return None
    match = table_open_match(table)
    if match is not None and (
        match.status != Match.Status.WAITING
        or Seat.objects.filter(match=match, player=player, state__in=Seat.ACTIVE_STATES).exists()
    ):
        return None
    # Refused before the operator's wallet is debited (each is checked again under the
    # table's lock): who may sit here (a break, a suspension, the network's rules), and the
    # play session's limits.
    network_seat_check(player=player, room=room)
    buy_in_check(player=player)
    if match is not None:  # refused before the operator's wallet is debited (checked again)
        linked_players_check(
            player=player, others=list(Seat.objects.filter(match=match, state=Seat.State.SEATED))
        )
    amount, _ = buy_in_amount(
        room=room, match=match, cashier_amount=cashier_amount, stake_per_point=stake_per_point
    )
    return wallet.seamless_debit(
        player=player,
        amount=amount,
        currency=room.currency,
        purpose=f"buy-in:table:{table.pk}:{uuid.uuid4()}",
        actor=actor,
        context=wallet_context(player=player),
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
        result = seat_take_locked(
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
            # commit, in a task (queued by name: the task module imports the services).
            enqueue_on_commit("games.tasks.waiting_list_match", room.pk)
    return result


def seat_take_locked(
    *,
    player: Player,
    table: Table,
    cashier_amount: int | None,
    stake_per_point: int | None,
    actor: Actor,
    seamless_debit=None,
    bot_level: str | None = None,
) -> SeatResult:
    """One seat, every check of a seat and its buy-in, inside the caller's transaction (a
    savepoint): the table locked first. ``bot_level``: a house bot's seat, the level it
    plays at (practice tables only: a real-money table refuses the bot)."""
    with transaction.atomic():
        table = lock_table(table.pk)
        room = table.room
        cash_table_check(room)  # R14: the house bot's and the waiting list's seats too
        match = table_open_match(table)
        if match is not None:
            existing = Seat.objects.filter(
                match=match, player=player, state__in=Seat.ACTIVE_STATES
            ).first()
            if existing is not None:
                return SeatResult(seat=existing, created=False)
        if not room.active or table.status != Table.Status.OPEN:
            raise RoomInactiveProblem(
                gettext("This table is closed: pick another one in the lobby.")
            )
        if not room.is_practice and is_house_bot(player):
            raise BotNotAllowedProblem(gettext("The house bot plays at practice tables only."))
        network_seat_check(player=player, room=room)
        if match is not None and match.status != Match.Status.WAITING:
            raise TableFullProblem(gettext("A game is already being played at this table."))
        amount, chosen_stake = buy_in_amount(
            room=room,
            match=match,
            cashier_amount=cashier_amount,
            stake_per_point=stake_per_point,
        )
        if match is None:
            match = _match_open(table=table, room=room, stake_per_point=chosen_stake)
        else:
            network_mode_check(player=player, match=match)
        others = list(Seat.objects.filter(match=match, state=Seat.State.SEATED))
        free = sorted(set(match.positions) - {seat.position for seat in others})
        if not free:
            raise TableFullProblem(gettext("Every seat at this table is taken."))
        linked_players_check(player=player, others=others)  # under the table's lock
        # Player protection: the play session this buy-in belongs to, and its loss limit
        # for the wallet to check under its lock (docs/player-protection.md "Sessions").
        session_loss = None if room.is_practice else buy_in_session(player=player)
        seat = Seat.objects.create(
            table=table,
            match=match,
            position=free[0],
            player=player,
            amount=amount,
            currency=match.currency,
            bot_level=bot_level,
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
            session_loss=session_loss,
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
            match_start(match=match, seats=[*others, seat], actor=actor)
            free_table_ensure(room)
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


def seat_leave(*, player: Player, table: Table, actor: Actor, waiting_only: bool = False) -> Seat:
    """Leave a table (R10). Before the match starts the buy-in is refunded from escrow;
    leaving a running game forfeits it. ``waiting_only``: leave only a table still waiting
    for its players (a play session's end, docs/player-protection.md): a game that started
    meanwhile is left alone, its seat returned as it is."""
    with transaction.atomic(durable=True):
        table = lock_table(table.pk)
        match = table_open_match(table)
        seat = (
            Seat.objects.filter(match=match, player=player, state__in=Seat.ACTIVE_STATES).first()
            if match is not None
            else None
        )
        if seat is None:
            raise NotSeatedProblem(gettext("You have no seat at this table."))
        assert match is not None  # the seat was found in it
        if match.status == Match.Status.RUNNING and waiting_only:
            return seat
        if match.is_tournament and match.status == Match.Status.WAITING:
            # R14: nothing to refund; a player who does not play forfeits at the deadline.
            raise TournamentTableProblem(
                gettext("This match belongs to a tournament: it starts once its players sit.")
            )
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


def match_start(*, match: Match, seats: list[Seat], actor: Actor) -> None:
    """A full table (two seats, or three or four, R12; a tournament's match once its players
    took their seats, R14): the match runs and its first hand is dealt. R3: the first
    dealer is chosen by the shuffle (from the first hand's server seed; with 3-4 seats,
    ``engine.first_dealer`` modulo the seat count). The caller holds the match's lock."""
    for seat in lock_seats(seat.pk for seat in seats):
        seat.state = Seat.State.PLAYING
        seat.save(update_fields=["state"])
    match.status = Match.Status.RUNNING
    match.started_at = timezone.now()
    bots = house_bot_positions(match, seats)
    match.bot_seats = bots
    match.bot_seat = bots[0] if bots else None
    seed = engine.new_server_seed()
    hand = hand_deal(
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
    bot_turn_on_commit(match, hand)


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
            return seat_take_locked(
                player=bot,
                table=table,
                cashier_amount=seat.amount if seat.match.variant == Variant.MONEY else None,
                stake_per_point=seat.match.stake_per_point,
                actor=BOT_ACTOR,
                bot_level=table.room.bot_level or engine.BOT_EASY,
            )
    except Problem as problem:
        logger.warning("the house bot could not sit at table %s: %s", table.pk, problem)
        if isinstance(problem, InsufficientFundsProblem):
            on_commit_logged(partial(bot_chips_top_up, bot), what=f"topping up bot {bot.pk}")
        return None


def table_seat_bot(
    *, player: Player, table: Table, actor: Actor, bot_level: str | None = None
) -> SeatResult:
    """``POST /tables/{id}/bot``: a player seated alone at a practice table invites the house
    bot to the second seat (which starts the game), at ``bot_level`` (``easy`` or
    ``strong``; None: the room's level). Real-money tables refuse, whatever the level. A bot
    out of chips is topped up (wallet rules, its own transaction) and sits on the second
    try."""
    invite = partial(_table_seat_bot, player=player, table=table, actor=actor, level=bot_level)
    try:
        return invite()
    except InsufficientFundsProblem:
        if not bot_chips_top_up(house_bot_player(operator=table.room.operator)):
            raise
    return invite()


def _table_seat_bot(*, player: Player, table: Table, actor: Actor, level: str | None) -> SeatResult:
    with transaction.atomic(durable=True):
        table = lock_table(table.pk)
        cash_table_check(table.room)
        if not table.room.is_practice:
            raise BotNotAllowedProblem(gettext("The house bot plays at practice tables only."))
        if is_network_operator(table.room.operator_id):
            raise BotNotAllowedProblem(gettext("The house bot does not play at network tables."))
        match = table_open_match(table)
        mine = (
            Seat.objects.select_related("match")
            .filter(match=match, player=player, state__in=Seat.ACTIVE_STATES)
            .first()
            if match is not None
            else None
        )
        if mine is None:
            raise NotSeatedProblem(gettext("Sit down at this table first, then invite the bot."))
        assert match is not None  # the player's seat was found in it
        active = match.seats.filter(state__in=Seat.ACTIVE_STATES)
        seated = set(active.values_list("player", flat=True))
        operator = table.room.operator
        bots = [house_bot_player(operator=operator, number=n) for n in range(match.seat_count - 1)]
        if match.status != Match.Status.WAITING:
            existing = Seat.objects.filter(match=match, player__in=bots).order_by("pk").first()
            if existing is not None:
                return SeatResult(seat=existing, created=False)
            raise TableFullProblem(gettext("A game is already being played at this table."))
        # R12: the next bot not seated yet (a 3-4 seat table may take several).
        bot = next((bot for bot in bots if bot.pk not in seated), bots[-1])
        level = level or table.room.bot_level or engine.BOT_EASY
        result = seat_take_locked(
            player=bot,
            table=table,
            cashier_amount=mine.amount if match.variant == Variant.MONEY else None,
            stake_per_point=match.stake_per_point,
            actor=BOT_ACTOR,
            bot_level=level,
        )
        audit_record(
            actor=actor,
            action="table.bot_invited",
            obj=table,
            operator=table.room.operator,
            data={"match": match.pk, "seat": result.seat.position, "bot_level": level},
        )
    return result
