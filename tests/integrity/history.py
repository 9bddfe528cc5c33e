"""Constructed hand histories for the detection tests: finished heads-up games written as the
games services store them (the match, its seats, each hand with its server seed and its
events, every action recorded on its first event, ``actor`` "player:<id>"), played by the
pure engine with a strategy per seat and with chosen server times, so a test picks the think
times (a 24 h marathon takes no 24 h) and the play (soft play, feeding, dumping) it needs.

Rows are built directly, not through the services, for the timestamps and the strategies;
``selectors.hand_replay`` replays each of them to its stored state (checked in
test_history_builder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from games import engine
from games.models import Hand, HandEvent, Match, Room, Seat, Table
from gin_platform.models import Player
from tests.wallet.factories import fund
from tests.wallet.tables import buy_in, settle
from wallet.services import EscrowPayout

Strategy = Callable[[engine.HandState, int, random.Random], engine.Action]
Think = Callable[[random.Random], float]


# --- Strategies -----------------------------------------------------------------------------
def engine_bot(state: engine.HandState, seat: int, rng: random.Random) -> engine.Action:
    """The platform's own bot: what a script would copy."""
    return engine.choose_action(state, seat)


def human(accuracy: float) -> Strategy:
    """An honest player: the bot's move with probability ``accuracy``, else another legal
    move of the same kind when there is one (a different discard, the other draw)."""

    def play(state: engine.HandState, seat: int, rng: random.Random) -> engine.Action:
        best = engine.choose_action(state, seat)
        if rng.random() < accuracy:
            return best
        legal = engine.legal_actions(state, seat)
        others = [a for a in legal if a != best and a.kind not in ("knock", "big_gin")]
        return rng.choice(others) if others else best

    return play


def soft_towards(base: Strategy) -> Strategy:
    """Plays ``base`` but never goes out: a knock or gin becomes a discard of the same card."""

    def play(state: engine.HandState, seat: int, rng: random.Random) -> engine.Action:
        action = base(state, seat, rng)
        legal = engine.legal_actions(state, seat)
        if action.kind in ("knock", "big_gin"):
            discards = [a for a in legal if a.kind == "discard"]
            same = [a for a in discards if a.card == action.card]
            return (same or discards)[0]
        return action

    return play


def feeder(base: Strategy) -> Strategy:
    """Plays ``base`` but discards a card that lowers the opponent's deadwood when it has one."""

    def play(state: engine.HandState, seat: int, rng: random.Random) -> engine.Action:
        action = base(state, seat, rng)
        if action.kind != "discard":
            return action
        theirs = list(state.hands[1 - seat])
        before = engine.deadwood(theirs)
        for candidate in engine.legal_actions(state, seat):
            if (
                candidate.kind == "discard"
                and candidate.card is not None
                and engine.deadwood([*theirs, candidate.card]) < before
            ):
                return candidate
        return action

    return play


def human_think(rng: random.Random) -> float:
    """Heavy-tailed think time (log-normal, median 4 s)."""
    return rng.lognormvariate(1.4, 0.9)


def machine_think(rng: random.Random) -> float:
    """A script's delay: 2 s and a little jitter."""
    return 2.0 + rng.uniform(-0.05, 0.05)


# --- Writing games --------------------------------------------------------------------------
@dataclass
class Seating:
    player: Player
    strategy: Strategy = engine_bot
    think: Think = human_think


def finished_game(
    *,
    room: Room,
    seats: Sequence[Seating],
    start: datetime,
    hands: int = 1,
    rng: random.Random,
    forfeit_seat: int | None = None,
) -> Match:
    """A finished heads-up match of ``hands`` hands (R9 points added up; the leader wins)
    starting at ``start``; with ``forfeit_seat`` that seat resigns after the hands (its
    opponent wins). Practice or real money as the room is."""
    table = Table.objects.create(room=room)
    match = Match.objects.create(
        table=table,
        room=room,
        operator=room.operator,
        variant=room.variant,
        rules=room.rules,
        target=room.target,
        stake=room.stake,
        currency=room.currency,
        fee_bps=room.fee_bps,
        is_practice=room.is_practice,
        status=Match.Status.RUNNING,
        started_at=start,
        created_at=start,
    )
    for position, seating in enumerate(seats):
        Seat.objects.create(
            table=table,
            match=match,
            position=position,
            player=seating.player,
            state=Seat.State.FINISHED,
            amount=room.stake or 1000,
            currency=room.currency,
        )
    rules = engine.RuleSet.from_dict(room.rules)
    clock = start
    points = [0, 0]
    for number in range(1, hands + 1):
        clock, outcome = _hand(match, number, rules, seats, clock, rng)
        if outcome is not None and outcome.winner is not None:
            points[outcome.winner] += outcome.points
    winner = 0 if points[0] >= points[1] else 1
    if forfeit_seat is not None:
        winner = 1 - forfeit_seat
        match.forfeit_seat = forfeit_seat
        match.forfeit_reason = Match.ForfeitReason.RESIGNED
    match.points_0, match.points_1 = points
    match.winner_seat = winner
    match.status = Match.Status.FINISHED
    match.finished_at = clock
    match.result = {"winner": winner, "points": points}
    match.save()
    return match


def _hand(
    match: Match,
    number: int,
    rules: engine.RuleSet,
    seats: Sequence[Seating],
    clock: datetime,
    rng: random.Random,
) -> tuple[datetime, engine.HandOutcome | None]:
    seed = f"{match.pk:08d}{number:04d}".ljust(64, "0")
    dealer = number % 2
    state = engine.deal(seed=seed, dealer=dealer, rules=rules)
    hand = Hand.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        server_seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        state=engine.state_to_json(state),
        created_at=clock,
    )
    rows: list[dict[str, Any]] = [
        {"kind": HandEvent.DEALT, "seat": None, "action": None, "at": clock, "actor": "system:deal"}
    ]
    while state.outcome is None:
        seat = state.to_act
        assert seat is not None
        action = seats[seat].strategy(state, seat, rng)
        clock += timedelta(seconds=seats[seat].think(rng))
        state, events = engine.apply(state, action)
        actor = f"player:{seats[seat].player.pk}"
        for index, event in enumerate(events):
            rows.append(
                {
                    "kind": event.kind,
                    "seat": event.seat,
                    "action": action.to_dict() if index == 0 else None,
                    "at": clock,
                    "actor": actor,
                }
            )
    for seq, row in enumerate(rows, start=1):
        match.seq += 1
        HandEvent.objects.create(
            hand=hand,
            match=match,
            seq=seq,
            match_seq=match.seq,
            kind=row["kind"],
            seat=row["seat"],
            action=row["action"],
            actor=row["actor"],
            created_at=row["at"],
        )
    hand.state = engine.state_to_json(state)
    hand.status = Hand.Status.ENDED
    hand.outcome = None if state.outcome is None else state.outcome.to_dict()
    hand.event_seq = len(rows)
    hand.ended_at = clock
    hand.save()
    match.save(update_fields=["seq"])
    return clock + timedelta(seconds=5), state.outcome


def settle_money(match: Match, *, stake: int) -> None:
    """The ledger of a real-money game as settlement leaves it: each seat bought in
    ``stake`` (funded first), the winner took the pot less a 10% fee."""
    seats = list(Seat.objects.filter(match=match).select_related("player").order_by("position"))
    for seat in seats:
        fund(seat.player, stake)
        buy_in(seat.player, stake, currency=match.currency, game=match.game_ref)
    winner = seats[match.winner_seat or 0].player
    fee = stake // 5
    settle(
        [EscrowPayout(winner, 2 * stake - fee, "pot")],
        fee=fee,
        currency=match.currency,
        game=match.game_ref,
    )
