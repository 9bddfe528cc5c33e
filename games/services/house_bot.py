"""The practice house bot (R11): who it is, its chips, and its moves.

- ``house_bot_player``: the operator's bot, an ordinary Player created on first use
  (``HouseBot`` marks it); ``is_house_bot``; where it plays in a match is
  ``Match.bot_seat`` (R12: ``Match.bot_seats``).
- It sits down through ``seating`` like anybody (``seating.table_seat_bot`` when a player
  invites it, or at once in a ``bot_enabled`` room); a bot out of practice chips is topped
  up by ``bot_chips_top_up`` (wallet rules, its own transaction).
- Its level (``easy`` or ``strong``, docs/engine.md "Bot levels") is its seat's
  ``Seat.bot_level``: the room's ``bot_level``, or the one the player named when inviting it.
- Its turn is queued after the commit that gives it the turn
  (``hand_lifecycle.bot_turn_on_commit`` -> ``games.tasks.bot_move``); ``bot_play`` then
  decides from its own ``engine.player_view`` only (``strong`` also from the hand's events
  as its own seat saw them, ``engine.event_view``) and plays through
  ``play.hand_apply_action`` like any player. Stale or repeated tasks do nothing
  (``expected_seq``). The bot never times out.

Transactions: ``bot_play`` runs no transaction of its own; the move it makes is the durable
``hand_apply_action``. ``house_bot_player`` runs inside the seating's transaction.
"""

from __future__ import annotations

import logging
import uuid

from django.db import IntegrityError, transaction

from games import engine
from games.models import Hand, HandEvent, HouseBot, Match, Seat, Variant
from games.problems import (
    MatchNotInProgressProblem,
    NotYourTurnProblem,
    StaleSequenceProblem,
)
from games.selectors import engine_event
from games.services.play import hand_apply_action
from gin_platform.http.problems import Problem
from gin_platform.models import Operator, Player
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.services import player_create
from wallet import services as wallet

logger = logging.getLogger(__name__)

BOT_ACTOR = Actor.system("house-bot")
HOUSE_BOT_NAME = "House bot"


def is_house_bot(player: Player) -> bool:
    return HouseBot.objects.filter(player_id=player.pk).exists()


def house_bot_player(*, operator: Operator, number: int = 0) -> Player:
    """The operator's house bot ``number`` (0 at a heads-up table; R12: 0, 1, 2 at a 3-4
    seat table), created on first use (one per operator and number: a race to create it
    leaves exactly one, the loser's player row rolls back with its savepoint)."""
    bots = HouseBot.objects.select_related("player").filter(operator=operator, number=number)
    bot = bots.first()
    if bot is not None:
        return bot.player
    try:
        with transaction.atomic():
            player = player_create(
                operator=operator,
                external_ref=f"house-bot:{uuid.uuid4().hex}",
                display_name=HOUSE_BOT_NAME if number == 0 else f"{HOUSE_BOT_NAME} {number + 1}",
                actor=BOT_ACTOR,
            )
            HouseBot.objects.create(operator=operator, player=player, number=number)
    except IntegrityError:
        return bots.get().player
    return player


def house_bot_positions(match: Match, seats: list[Seat]) -> list[int]:
    """Where house bots sit in a practice match about to start, in seat order (empty: only
    players)."""
    if not match.is_practice:
        return []
    bots = set(
        HouseBot.objects.filter(player_id__in=[seat.player_id for seat in seats]).values_list(
            "player_id", flat=True
        )
    )
    return sorted(seat.position for seat in seats if seat.player_id in bots)


def bot_level_at(*, match: Match, position: int) -> str:
    """The level of the house bot at ``position`` (``easy`` for a seat from before levels)."""
    level = (
        Seat.objects.filter(match=match, position=position, state__in=Seat.ACTIVE_STATES)
        .values_list("bot_level", flat=True)
        .first()
    )
    return level or engine.BOT_EASY


def _seat_memory(hand: Hand, seat: int, *, seats: int) -> engine.SeatMemory:
    """What ``seat`` has seen of ``hand``: the upcard (public, R3) and each event as
    ``engine.event_view`` shows it to that seat (never another seat's stock draw)."""
    rows = list(HandEvent.objects.filter(hand=hand).order_by("seq"))
    dealt = next((row for row in rows if row.kind == HandEvent.DEALT), None)
    return engine.seat_memory(
        seat=seat,
        seats=seats,
        upcard=None if dealt is None else dealt.payload.get("upcard"),
        events=[
            engine.event_view(engine_event(row), seat)
            for row in rows
            if row.kind not in HandEvent.TABLE_KINDS
        ],
    )


def bot_chips_top_up(bot: Player) -> bool:
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


def bot_play(*, match_id: int, expected_seq: int) -> bool:
    """The house bot's move (``games.tasks.bot_move``). Idempotent through ``expected_seq``:
    a stale or repeated task (the game moved on, it is not the bot's turn, the game is over)
    does nothing and returns False.

    The bot does not cheat: it decides from ``engine.player_view`` of its own seat only (at
    the ``strong`` level also from the hand's events as its seat saw them), and plays
    through ``hand_apply_action`` like any player."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.seq != expected_seq or match.status != Match.Status.RUNNING:
        return False
    hand = Hand.objects.filter(match=match, status=Hand.Status.IN_PROGRESS).first()
    # R12: several bots may sit at a practice table; the one to act moves.
    if hand is None or hand.to_act not in match.house_bot_seats:
        return False
    seat = hand.to_act
    view = engine.player_view(hand.engine_state(), seat)
    level = bot_level_at(match=match, position=seat)
    strong = level == engine.BOT_STRONG
    move = engine.choose_bot_action(
        view,
        level=level,
        memory=_seat_memory(hand, seat, seats=match.seat_count) if strong else None,
        first_to_knock=match.variant == Variant.FTK,
    )
    try:
        result = hand_apply_action(
            match=match_id,
            seat=seat,
            action=move,
            expected_seq=expected_seq,
            actor=BOT_ACTOR,
        )
    except (StaleSequenceProblem, NotYourTurnProblem, MatchNotInProgressProblem):
        return False
    return result.applied
