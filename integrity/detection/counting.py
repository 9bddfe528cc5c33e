"""One finished game counted: each seat's figures (hands won, knock chances declined,
useful discards, engine-identical decisions, think times, move times), from the hands
replayed by ``games.detection_selectors.replay_steps``. Pure: the jobs add the figures to the
stored aggregates."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games import engine
from games.detection_selectors import FinishedGame, replay_steps
from integrity.detection import engine_moves, feeding, soft_play


@dataclass
class SeatFigures:
    hands: int = 0
    hands_won: int = 0
    knock_chances: int = 0
    knocks_declined: int = 0
    discards: int = 0
    discards_useful: int = 0
    decisions: int = 0
    engine_same: int = 0
    think: list[float] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)


@dataclass
class GameFigures:
    game: FinishedGame
    seats: tuple[SeatFigures, SeatFigures]
    hand_ids: list[int]

    @property
    def real_money(self) -> bool:
        return not self.game.is_practice


def count_game(game: FinishedGame) -> GameFigures:
    seats = (SeatFigures(), SeatFigures())
    scored = game.variant != engine.FIRST_TO_KNOCK
    for hand in game.hands:
        chance_seen = [False, False]
        for state, move in replay_steps(game=game, hand=hand):
            if not move.by_player:
                continue
            figures = seats[move.seat]
            legal = engine.legal_actions(state, move.seat)
            figures.think.append(move.think_seconds)
            figures.times.append(move.at)
            same = engine_moves.same_as_engine(state, move.seat, legal, move.action)
            if same is not None:
                figures.decisions += 1
                figures.engine_same += same
            if not chance_seen[move.seat] and soft_play.knock_chance(
                state=state, seat=move.seat, legal=legal, score=hand.score_before, scored=scored
            ):
                chance_seen[move.seat] = True
                figures.knock_chances += 1
                figures.knocks_declined += soft_play.declined(move.action)
            if move.action.get("kind") == "discard" and move.action.get("card"):
                figures.discards += 1
                card = engine.parse_card(move.action["card"])
                figures.discards_useful += feeding.feeds(state, move.seat, card)
        outcome = hand.outcome
        if outcome is not None and outcome.winner is not None and not outcome.penalty_scoring:
            for seat in (0, 1):
                seats[seat].hands += 1
            seats[outcome.winner].hands_won += 1
    for figures in seats:
        figures.times.sort()
    return GameFigures(game=game, seats=seats, hand_ids=[hand.hand_id for hand in game.hands])
