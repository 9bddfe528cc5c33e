"""Building finished games for settlement tests: played by the bots through the games
services, or finished with a given result following the documented contract
(docs/games.md "Match result")."""

from __future__ import annotations

from django.utils import timezone

from games import engine
from games import services as game_services
from games.locks import lock_current_hand
from games.models import Hand, Match, Seat
from tests.factories import SYSTEM, PlayerFactory
from tests.wallet.factories import fund


def seat_two(table, *, players=None, cashier=(None, None), stake_per_point=None, funds=10**7):
    """Fund and seat two players; return the running match."""
    players = players or [PlayerFactory(operator=table.room.operator) for _ in range(2)]
    for player, amount in zip(players, cashier, strict=True):
        if not table.room.is_practice:
            fund(player, funds)
        game_services.seat_take(
            player=player,
            table=table,
            cashier_amount=amount,
            stake_per_point=stake_per_point,
            actor=SYSTEM,
        )
    return Match.objects.get(table=table, status=Match.Status.RUNNING)


def play_out(match: Match, *, max_actions: int = 20_000) -> Match:
    """Both seats play with the engine's bot until the match has a result."""
    for _ in range(max_actions):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            return match
        hand = Hand.objects.get(match=match, status=Hand.Status.IN_PROGRESS)
        state = engine.state_from_json(hand.state)
        seat = state.to_act
        game_services.hand_apply_action(
            match=match,
            seat=seat,
            action=engine.choose_action(state, seat),
            expected_seq=match.seq,
            actor=SYSTEM,
        )
    raise AssertionError("the match did not end")


def finish_with(match: Match, **result) -> Match:
    """Finish a running match with a chosen result (the contract settlement reads)."""
    seats = list(Seat.objects.filter(match=match).order_by("position"))
    lock_current_hand(match)
    Hand.objects.filter(match=match, status=Hand.Status.IN_PROGRESS).update(
        status=Hand.Status.ABANDONED
    )
    Seat.objects.filter(match=match).update(state=Seat.State.FINISHED)
    now = timezone.now()
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winner_seat = result.get("winner_seat")
    match.result = {
        "format": 1,
        "match_id": match.pk,
        "game_ref": match.game_ref,
        "variant": match.variant,
        "reason": "target_reached",
        "reached_target": result.get("winner_seat"),
        "hand_points": [0, 0],
        "hands_won": [0, 0],
        "hands_played": 1,
        "target": match.target,
        "money_play": None,
        "forfeit": None,
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
            for seat in seats
        ],
        "finished_at": now.isoformat(),
    } | result
    match.save()
    return match


def money_result(*, hand_points, hands_won, reached_target, target: int = 100) -> dict:
    scores = engine.money_play_final_scores(
        hand_points=hand_points, hands_won=hands_won, target=target, reached_target=reached_target
    )
    return {
        "winner_seat": scores.winner,
        "reached_target": reached_target,
        "hand_points": list(hand_points),
        "hands_won": list(hands_won),
        "money_play": scores.to_dict(),
    }
