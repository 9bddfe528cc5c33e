"""R10: the three ways to play for money, as pure functions over hand outcomes.

First To Knock (one hand), Match Play (hand points to a target) and Money Play (hand points
plus line, target and zero-point bonuses), and the forfeit of a player who leaves or times
out. Money itself (stakes, fees, caps) is the wallet's and settlement's business; these
functions only say who won and by how many points.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

from games.engine.hand import SEATS, HandOutcome, other_seat

# The variants' names, one vocabulary for the engine, the database and the API.
FIRST_TO_KNOCK, MATCH_PLAY, MONEY_PLAY = "ftk", "match", "money"
VARIANTS = (FIRST_TO_KNOCK, MATCH_PLAY, MONEY_PLAY)
MATCH_PLAY_TARGETS = (100, 250, 500)  # R10 Match Play
MONEY_PLAY_TARGETS = (50, 100)  # R10 Money Play
LINE_BONUS = 25  # R10: per hand won


def _seat(seat: object, what: str) -> int:
    if type(seat) is not int or seat not in SEATS:
        raise ValueError(f"{what} must be seat 0 or 1, got {seat!r}")
    return seat


def _pair(values: tuple[int, int], what: str) -> tuple[int, int]:
    first, second = _two(values, what)
    if any(type(value) is not int or value < 0 for value in (first, second)):
        raise ValueError(f"{what} must be two non-negative ints, got {values!r}")
    return first, second


def _two(values, what: str) -> tuple:
    try:
        first, second = values
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be two values, one per seat, got {values!r}") from None
    return first, second


def _per_seat(value_of) -> tuple[int, int]:
    """``(value_of(0), value_of(1))``."""
    return value_of(0), value_of(1)


def check_variant(variant: str) -> str:
    """``ftk`` (First To Knock), ``match`` (Match Play) or ``money`` (Money Play): R10."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def targets_for(variant: str) -> tuple[int, ...]:
    """R10: the targets a game of ``variant`` may play to (none for First To Knock)."""
    return {
        FIRST_TO_KNOCK: (),
        MATCH_PLAY: MATCH_PLAY_TARGETS,
        MONEY_PLAY: MONEY_PLAY_TARGETS,
    }[check_variant(variant)]


def next_dealer(dealer: int, outcome: HandOutcome) -> int:
    """R3: the deal alternates; a void hand (R7) is redealt by the same dealer."""
    return dealer if outcome.kind == "void" else other_seat(_seat(dealer, "dealer"))


def ftk_winner(outcome: HandOutcome) -> int | None:
    """R10 First To Knock: the player who knocked (or went Gin / Big Gin) wins, whatever the
    lay-offs and undercut; a void hand (None) is redealt."""
    if outcome.kind == "void":
        return None
    return outcome.knocker


class MatchScore(NamedTuple):
    """Match Play progress (R10): hand points per seat and the winner once one is known."""

    points: tuple[int, int]
    winner: int | None


def match_progress(hand_outcomes: Iterable[HandOutcome], target: int) -> MatchScore:
    """R10 Match Play: add up hand points until a player's points reach ``target``.

    Void hands score nothing (R7). Outcomes after the winner is known are refused.
    """
    if type(target) is not int or target <= 0:
        raise ValueError(f"the target is a positive number of points, got {target!r}")
    points = [0, 0]
    winner = None
    for outcome in hand_outcomes:
        if winner is not None:
            raise ValueError("a hand was played after the match was already won")
        if outcome.winner is not None:
            points[outcome.winner] += outcome.points
            if points[outcome.winner] >= target:
                winner = outcome.winner
    return MatchScore(points=(points[0], points[1]), winner=winner)


def hands_won(hand_outcomes: Iterable[HandOutcome]) -> tuple[int, int]:
    """Hands each seat won (scored points in), for the R10 line bonus."""
    won = [0, 0]
    for outcome in hand_outcomes:
        if outcome.winner is not None:
            won[outcome.winner] += 1
    return won[0], won[1]


@dataclass(frozen=True, slots=True)
class MoneyPlayResult:
    """R10 Money Play final scores, per seat, and who wins by how many points.

    ``winner`` is None when the totals are equal (no money moves). ``point_difference`` is
    the winner's total minus the loser's (0 on equal totals); settlement multiplies it by
    the stake per point and applies the cashier caps.
    """

    hand_points: tuple[int, int]
    line_bonus: tuple[int, int]
    target_bonus: tuple[int, int]
    zero_point_bonus: tuple[int, int]
    totals: tuple[int, int]
    winner: int | None
    point_difference: int
    target: int
    reached_target: int | None

    def to_dict(self) -> dict:
        return {
            "hand_points": list(self.hand_points),
            "line_bonus": list(self.line_bonus),
            "target_bonus": list(self.target_bonus),
            "zero_point_bonus": list(self.zero_point_bonus),
            "totals": list(self.totals),
            "winner": self.winner,
            "point_difference": self.point_difference,
            "target": self.target,
            "reached_target": self.reached_target,
        }


def money_play_bonus(target: int) -> int:
    """R10: the target bonus and the zero-point bonus: 100, or 50 in a 50-point game."""
    return 50 if target == 50 else 100


def money_play_final_scores(
    *,
    hand_points: tuple[int, int],
    hands_won: tuple[int, int],
    target: int,
    reached_target: int | None,
) -> MoneyPlayResult:
    """R10 Money Play: final score = hand points + 25 per hand won + the target bonus to the
    player who reached the target + the zero-point bonus to that player when the other scored
    no hand points. Higher total wins; equal totals: nobody."""
    points = _pair(hand_points, "hand_points")
    won = _pair(hands_won, "hands_won")
    if target not in MONEY_PLAY_TARGETS:
        raise ValueError(f"a Money Play target is 50 or 100 (R10), got {target!r}")
    if reached_target is not None:
        _seat(reached_target, "reached_target")
    bonus = money_play_bonus(target)
    line = _per_seat(lambda seat: LINE_BONUS * won[seat])
    target_bonus = _per_seat(lambda seat: bonus if seat == reached_target else 0)
    zero = _per_seat(
        lambda seat: bonus if seat == reached_target and points[other_seat(seat)] == 0 else 0
    )
    totals = _per_seat(lambda seat: points[seat] + line[seat] + target_bonus[seat] + zero[seat])
    winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    return MoneyPlayResult(
        hand_points=points,
        line_bonus=line,
        target_bonus=target_bonus,
        zero_point_bonus=zero,
        totals=totals,
        winner=winner,
        point_difference=abs(totals[0] - totals[1]),
        target=target,
        reached_target=reached_target,
    )


@dataclass(frozen=True, slots=True)
class ForfeitResult:
    """R10 "Leaving, timing out": the game's result when ``forfeiting_seat`` forfeits.

    ``reached_target`` is the opponent, treated as first to knock / as reaching the target.
    ``winner`` is that opponent in First To Knock and Match Play. In Money Play it is the
    opponent when the opponent's final score is the higher; otherwise nobody (a player can
    never win money by leaving): ``money_play`` then keeps the final scores as R10 counts them,
    with ``winner`` None and no point difference, so no winnings move.
    """

    variant: str
    forfeiting_seat: int
    reached_target: int
    winner: int | None
    points: tuple[int, int]
    money_play: MoneyPlayResult | None = None

    def to_dict(self) -> dict:
        return {
            "variant": self.variant,
            "forfeiting_seat": self.forfeiting_seat,
            "reached_target": self.reached_target,
            "winner": self.winner,
            "points": list(self.points),
            "money_play": None if self.money_play is None else self.money_play.to_dict(),
        }


def forfeit_result(
    variant: str,
    forfeiting_seat: int,
    *,
    hand_points: tuple[int, int] = (0, 0),
    hands_won: tuple[int, int] = (0, 0),
    target: int | None = None,
) -> ForfeitResult:
    """R10: a player who leaves or runs out of turn time forfeits. The opponent is treated
    as the first to knock (First To Knock) or as having reached the target at that moment
    (Match Play, Money Play). Every hand already scored counts: Money Play ends as R10 says a
    game ends, with the running hand points and hands won and the target bonus (and, when
    the leaver scored nothing, the zero-point bonus) going to the opponent. Where the
    leaver's final score is still the higher or equal, nobody wins: no winnings move."""
    name = check_variant(variant)
    loser = _seat(forfeiting_seat, "forfeiting_seat")
    opponent = other_seat(loser)
    points = _pair(hand_points, "hand_points")
    if name != MONEY_PLAY:
        return ForfeitResult(
            variant=name,
            forfeiting_seat=loser,
            reached_target=opponent,
            winner=opponent,
            points=points,
        )
    if target is None:
        raise ValueError("a Money Play forfeit needs the game's target")
    money = money_play_final_scores(
        hand_points=points, hands_won=hands_won, target=target, reached_target=opponent
    )
    if money.winner != opponent:  # R10: a player can never win money by leaving
        money = replace(money, winner=None, point_difference=0)
    return ForfeitResult(
        variant=name,
        forfeiting_seat=loser,
        reached_target=opponent,
        winner=money.winner,
        points=points,
        money_play=money,
    )
