"""The match level (R3, R10, R12), as pure functions over hand outcomes.

- For every seat count: the dealer rotating clockwise (a void hand redealt by the same
  dealer), the winner of First To Knock, hands won.
- Heads-up (R10): Match Play to a target of hand points, Money Play with its bonuses, and
  the forfeit of a player who leaves or times out, which ends the game.
- Three and four players (R12): Match Play with penalty points, rankings (leavers last, the
  last player standing wins) and the exact split of a pot by the prize tables.

Money itself (stakes, fees, caps) is the wallet's and settlement's business; these functions
only say who won, by how many points, and how a pot is shared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple, overload

from games.engine.records import Record
from games.engine.rules import (
    DEFAULT_PENALTY_TARGET,
    MONEY_PLAY,
    MONEY_PLAY_TARGETS,
    PRIZE_TABLES,
    WINNER_TAKES_ALL,
    check_prize_table,
    check_variant,
    seat_rules,
)
from games.engine.state import HandOutcome, next_seat

LINE_BONUS = 25  # R10: per hand won


def _seat(seat: object, what: str, seats: int = 2) -> int:
    if type(seat) is not int or not 0 <= seat < seats:
        raise ValueError(f"{what} must be a seat 0 to {seats - 1}, got {seat!r}")
    return seat


def _out_seats(out: Iterable[int], seats: int) -> tuple[int, ...]:
    gone = tuple(out)
    if len(set(gone)) != len(gone) or any(
        type(seat) is not int or not 0 <= seat < seats for seat in gone
    ):
        raise ValueError(f"forfeited seats must be distinct seats of the table, got {gone!r}")
    return gone


def _r12_seats(seats: object) -> int:
    if type(seats) is not int or seats not in (3, 4):
        raise ValueError(f"an R12 table has 3 or 4 seats, got {seats!r}")
    return seats


# --- Every seat count ---------------------------------------------------------------------


def next_dealer(
    dealer: int, outcome: HandOutcome | None, *, seats: int = 2, out: Iterable[int] = ()
) -> int:
    """R3, R12: the deal passes clockwise among the seats still in (heads-up it alternates);
    a void hand (R7) is redealt by the same dealer, if still in."""
    seats = seat_rules(seats).seats
    dealer = _seat(dealer, "dealer", seats)
    gone = _out_seats(out, seats)
    if outcome is not None and outcome.kind == "void" and dealer not in gone:
        return dealer
    if len(gone) == seats:
        raise ValueError("no seat is left to deal")
    return next_seat(dealer, seats, gone)


def ftk_winner(outcome: HandOutcome) -> int | None:
    """First To Knock: heads-up (R10) the player who went out (knock, Gin, Big Gin) wins,
    whatever the lay-offs and even undercut; with three or four players (R12) the hand's
    winner wins (the knocker or the undercutter; the last seat left after forfeits). A void
    hand (None) is redealt."""
    if outcome.kind == "void":
        return None
    if seat_rules(outcome.seats).ftk_to_hand_winner:
        return outcome.winner
    return outcome.knocker


# Heads-up the counts are a pair, as R10's Money Play takes them.
@overload
def hands_won(
    hand_outcomes: Iterable[HandOutcome], *, seats: Literal[2] = 2
) -> tuple[int, int]: ...


@overload
def hands_won(hand_outcomes: Iterable[HandOutcome], *, seats: int) -> tuple[int, ...]: ...


def hands_won(hand_outcomes: Iterable[HandOutcome], *, seats: int = 2) -> tuple[int, ...]:
    """Hands each seat won: the R10 line bonus, R12's tie-break. A void hand has no winner,
    and a hand ended by forfeits was abandoned (R10, R12): nobody won it."""
    won = [0] * seat_rules(seats).seats
    for outcome in hand_outcomes:
        if outcome.winner is not None and outcome.kind != "forfeit":
            won[outcome.winner] += 1
    return tuple(won)


# --- Heads-up (R10) -------------------------------------------------------------------------


def _pair(values: tuple[int, int], what: str) -> tuple[int, int]:
    try:
        first, second = values
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be two values, one per seat, got {values!r}") from None
    if any(type(value) is not int or value < 0 for value in (first, second)):
        raise ValueError(f"{what} must be two non-negative ints, got {values!r}")
    return first, second


def _per_seat(value_of: Callable[[int], int]) -> tuple[int, int]:
    """``(value_of(0), value_of(1))``."""
    return value_of(0), value_of(1)


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


@dataclass(frozen=True, slots=True)
class MoneyPlayResult(Record):
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
    zero = _per_seat(lambda seat: bonus if seat == reached_target and points[1 - seat] == 0 else 0)
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
class ForfeitResult(Record):
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
    opponent = 1 - loser
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


# --- Three and four players (R12) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ranking:
    """Final places, best first: each group is one place shared by its seats (seat order).

    A group of ``m`` seats after ``k`` ranked seats holds places ``k+1 .. k+m`` (and shares
    their prizes, :func:`split_pot`). Every seat of the table appears exactly once.
    """

    groups: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        seats = [seat for group in self.groups for seat in group]
        if any(not group for group in self.groups):
            raise ValueError("a place holds at least one seat")
        if sorted(seats) != list(range(len(seats))) or len(seats) not in (3, 4):
            raise ValueError(f"a ranking places each of 3 or 4 seats once, got {self.groups!r}")
        if any(tuple(sorted(group)) != group for group in self.groups):
            raise ValueError("seats within a shared place are listed in seat order")

    @property
    def seats(self) -> int:
        return sum(len(group) for group in self.groups)

    @property
    def winner(self) -> int | None:
        """The seat alone in first place; None when first place is shared."""
        first = self.groups[0]
        return first[0] if len(first) == 1 else None

    def place_of(self, seat: int) -> int:
        """1-based place (shared places: ``1, 1, 3``)."""
        above = 0
        for group in self.groups:
            if seat in group:
                return above + 1
            above += len(group)
        raise ValueError(f"seat {seat!r} is not ranked")

    def to_list(self) -> list[list[int]]:
        return [list(group) for group in self.groups]

    @classmethod
    def from_list(cls, data: Sequence[Sequence[int]]) -> Ranking:
        return cls(groups=tuple(tuple(group) for group in data))


def split_pot(pot: int, ranking: Ranking, table: str = WINNER_TAKES_ALL) -> tuple[int, ...]:
    """R12: each seat's share of ``pot`` (integer minor units) under ``table``.

    Place ``p`` is worth ``pot * percent_p // 100``; what those divisions leave over goes to
    first place (the better-placed player). Seats sharing a place share the places they cover
    equally; what that division leaves over goes one unit each to the lowest seats. The
    shares always add up to ``pot`` exactly.
    """
    if type(pot) is not int or pot < 0:
        raise ValueError(f"a pot is a non-negative int of minor units, got {pot!r}")
    check_prize_table(table, ranking.seats)
    percents = PRIZE_TABLES[table]
    places = [pot * percent // 100 for percent in percents]
    places[0] += pot - sum(places)
    places += [0] * (ranking.seats - len(places))
    shares = [0] * ranking.seats
    covered = 0
    for group in ranking.groups:
        total = sum(places[covered : covered + len(group)])
        each, left = divmod(total, len(group))
        for position, seat in enumerate(group):  # groups are in seat order
            shares[seat] = each + (1 if position < left else 0)
        covered += len(group)
    return tuple(shares)


def _with_leavers(groups: list[tuple[int, ...]], out: tuple[int, ...]) -> Ranking:
    """R12: leavers rank last, the latest to leave above the earlier ones."""
    return Ranking(groups=(*groups, *((seat,) for seat in reversed(out))))


def check_forfeits_rank_last(ranking: Ranking, out: Iterable[int]) -> tuple[int, ...]:
    """R12 "Leaving": ``out`` (the seats that forfeited, in the order they left) are distinct
    seats of the table and rank last, the latest to leave first among them (``ValueError``
    otherwise)."""
    gone = _out_seats(out, ranking.seats)
    if gone and ranking.groups[-len(gone) :] != tuple((seat,) for seat in reversed(gone)):
        raise ValueError("seats that forfeited rank last, the latest to leave first")
    return gone


def last_player_standing(seats: int, out: Iterable[int]) -> int | None:
    """R12 "Leaving": the only seat left when every other seat forfeited, else None."""
    gone = _out_seats(out, _r12_seats(seats))
    left = [seat for seat in range(seats) if seat not in gone]
    return left[0] if len(left) == 1 else None


def ftk_multi_ranking(winner: int, *, seats: int, out: Iterable[int] = ()) -> Ranking:
    """R12 First To Knock: the winner first, the other seats still in share second place,
    then the leavers (latest first)."""
    seats = _r12_seats(seats)
    gone = _out_seats(out, seats)
    if winner in gone or not 0 <= winner < seats:
        raise ValueError(f"the winner must be a seat still in, got {winner!r}")
    rest = tuple(seat for seat in range(seats) if seat != winner and seat not in gone)
    return _with_leavers([(winner,), *([rest] if rest else [])], gone)


def rank_penalty_play(
    totals: Sequence[int], hands_won: Sequence[int], *, out: Iterable[int] = ()
) -> Ranking:
    """R12 Match Play: lowest penalty total first; equal totals by more hands won; still
    equal: a shared place. Leavers last, the latest to leave first among them."""
    seats = _r12_seats(len(totals))
    if len(hands_won) != seats:
        raise ValueError("one hands-won count per seat")
    gone = _out_seats(out, seats)
    key = {seat: (totals[seat], -hands_won[seat]) for seat in range(seats) if seat not in gone}
    groups: list[tuple[int, ...]] = []
    for value in sorted(set(key.values())):
        groups.append(tuple(seat for seat in sorted(key) if key[seat] == value))
    return _with_leavers(groups, gone)


@dataclass(frozen=True, slots=True)
class PenaltyScore:
    """R12 Match Play progress: penalty totals and hands won per seat, hands played, and the
    final ranking once the game is over (``ranking`` None while it goes on)."""

    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int
    ranking: Ranking | None

    @property
    def finished(self) -> bool:
        return self.ranking is not None


def penalty_progress(
    hand_outcomes: Iterable[HandOutcome],
    *,
    seats: int,
    target: int = DEFAULT_PENALTY_TARGET,
    out: Iterable[int] = (),
) -> PenaltyScore:
    """R12 Match Play with penalty points: add each hand's penalties; the game is over when
    some seat's total reaches ``target`` (after that hand), or when forfeits (``out``, in the
    order the seats left) leave one seat. Void hands and a hand abandoned by forfeits count
    nothing. Outcomes after the end are refused."""
    seats = _r12_seats(seats)
    if type(target) is not int or target <= 0:
        raise ValueError(f"the target is a positive number of points, got {target!r}")
    gone = _out_seats(out, seats)
    outcomes = list(hand_outcomes)
    totals = [0] * seats
    over = False
    for outcome in outcomes:
        if over:
            raise ValueError("a hand was played after the game was already over")
        if len(outcome.penalties) != seats:
            raise ValueError(f"a hand outcome has {seats} penalties, got {outcome.penalties!r}")
        for seat, penalty in enumerate(outcome.penalties):
            totals[seat] += penalty
        over = any(total >= target for total in totals)
    won = hands_won(outcomes, seats=seats)
    if last_player_standing(seats, gone) is not None:
        over = True
    ranking = rank_penalty_play(totals, won, out=gone) if over else None
    return PenaltyScore(
        totals=tuple(totals), hands_won=won, hands_played=len(outcomes), ranking=ranking
    )
