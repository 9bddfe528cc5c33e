"""Finished matches for the ratings tests, played through games' services: heads-up and
three- or four-player real-money matches ended by resignations (R10, R12), a practice one
against the house bot, and results with ties written as games writes them."""

from __future__ import annotations

from django.db import transaction

from games import engine
from games import services as game_services
from games.models import Match, Room, Seat
from games.services.timers import match_resign
from games.signals import match_finished
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import finish_with, seat_two
from tests.wallet.factories import fund

TRAITS = {"ftk": {"ftk": True}, "match": {}, "money": {"money": True}}


def heads_up(operator, *, variant: str = "ftk", players=None) -> Match:
    """A running real-money heads-up match of ``variant`` between ``players`` (new ones if
    not given), its cashier amounts the room's least in Money Play."""
    table = TableFactory(room=RoomFactory(operator=operator, **TRAITS[variant]))
    if variant == "money":
        room = table.room
        return seat_two(
            table,
            players=players,
            cashier=(room.cashier_min, room.cashier_min),
            stake_per_point=room.stake_per_point_choices[0],
        )
    return seat_two(table, players=players)


def seat_of(match: Match, player) -> Seat:
    return Seat.objects.get(match=match, player=player, state__in=Seat.ACTIVE_STATES)


def beats(winner, loser, *, operator=None, variant: str = "ftk") -> Match:
    """A real-money heads-up match ``winner`` wins: ``loser`` resigns (R10: a forfeit)."""
    match = heads_up(operator or winner.operator, variant=variant, players=[winner, loser])
    match_resign(seat=seat_of(match, loser), actor=SYSTEM)
    match.refresh_from_db()
    return match


def multi(operator, players, *, variant: str = "ftk") -> Match:
    """A running real-money match of three or four ``players`` (R12)."""
    count = len(players)
    room = game_services.room_create(
        operator=operator,
        name=f"{count} seats",
        variant=variant,
        currency=operator.base_currency,
        stake=500,
        target=None if variant == "ftk" else 100,
        fee_bps=0,
        seats=count,
        prize_table="winner_takes_all",
        actor=SYSTEM,
    )
    table = TableFactory(room=room)
    for player in players:
        fund(player, 10**7)
        game_services.seat_take(player=player, table=table, actor=SYSTEM)
    return Match.objects.get(table=table, status=Match.Status.RUNNING)


def resign_in_order(match: Match, leavers) -> Match:
    """Each of ``leavers`` resigns in turn; the last one left wins (R12: forfeits rank last,
    the latest to leave above the earlier)."""
    for player in leavers:
        match_resign(seat=seat_of(match, player), actor=SYSTEM)
    match.refresh_from_db()
    return match


def finish_multi_with_ranking(match: Match, groups: tuple[tuple[int, ...], ...]) -> Match:
    """End a running three- or four-player match with ``groups`` (seats, best first, a tie
    sharing a place: R12's equal penalty totals and hands won), as games records a result,
    then announce it as games does after its commit."""
    seats = list(Seat.objects.filter(match=match).order_by("position"))
    ranking = engine.Ranking(groups)
    pot = sum(seat.amount for seat in seats)
    payouts = engine.split_pot(pot, ranking, match.prize_table)
    with transaction.atomic():
        finish_with(match, winner_seat=ranking.winner)
    stakes = match.result["seats"]
    match.result = engine.MultiMatchResult(
        match_id=match.pk,
        game_ref=match.game_ref,
        variant=match.variant,
        reason="first_to_knock" if match.variant == "ftk" else "target_reached",
        ranking=ranking,
        penalty_totals=(0,) * len(seats),
        hands_won=(0,) * len(seats),
        hands_played=1,
        target=match.target,
        forfeits=(),
        currency=match.currency,
        is_practice=False,
        fee_bps=match.fee_bps,
        stake=match.stake,
        prize_table=match.prize_table,
        pot=pot,
        fee=0,
        payouts=payouts,
        seats=tuple(engine.SeatStake.from_dict(stake) for stake in stakes),
        finished_at=match.result["finished_at"],
    ).to_dict()
    match.save(update_fields=["result"])
    match_finished.send(sender=Match, match_id=match.pk)
    return match


def finish_heads_up_with(match: Match, **result) -> Match:
    """End a running heads-up match with ``result`` (settlement's ``finish_with``), then
    announce it as games does after its commit."""
    with transaction.atomic():
        finish_with(match, **result)
    match_finished.send(sender=Match, match_id=match.pk)
    match.refresh_from_db()
    return match


def practice_against_the_bot(operator):
    """A practice match against the house bot, ended by the player's resignation unless the
    bot's first move (played at once, Celery being eager) already ended it: the deal is
    random, and the bot may knock or go gin before the player acts."""
    room = RoomFactory(operator=operator, practice=True, variant="ftk", target=None, stake=100)
    Room.objects.filter(pk=room.pk).update(bot_enabled=True)
    player = PlayerFactory(operator=operator)
    table = TableFactory(room=room)
    game_services.seat_take(player=player, table=table, actor=SYSTEM)
    match = Match.objects.get(table=table, seats__player=player)
    if match.status == Match.Status.RUNNING:
        match_resign(seat=seat_of(match, player), actor=SYSTEM)
    match.refresh_from_db()
    return match
