"""R12 match level for three and four players, as pure functions over hand outcomes.

First To Knock (one hand: the hand's winner wins; a void hand is redealt) and Match Play
with penalty points (hands until some player's penalty total reaches the target; lowest
total ranks first, ties by more hands won, then a shared place), clockwise dealer rotation,
forfeits (the leaver is ranked last; with two or more left the game goes on, else the last
player wins), the prize tables and the exact split of a pot in minor units.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.match import FIRST_TO_KNOCK, MATCH_PLAY, check_variant
from games.engine.multi_hand import MultiHandOutcome
from games.engine.result import (
    Forfeit,
    SeatStake,
    check_reason,
    check_result_format,
    result_ids,
    result_terms,
    seats_by_position,
)

MULTI_VARIANTS = (FIRST_TO_KNOCK, MATCH_PLAY)  # R12: Money Play stays heads-up
DEFAULT_PENALTY_TARGET = 100  # R12

WINNER_TAKES_ALL = "winner_takes_all"
# R12 prize tables: percentages of the pot less the fee, by place; the seat counts they fit.
PRIZE_TABLES: dict[str, tuple[int, ...]] = {
    WINNER_TAKES_ALL: (100,),
    "70_30": (70, 30),
    "65_35": (65, 35),
    "50_30_20": (50, 30, 20),
}
PRIZE_TABLE_SEATS: dict[str, tuple[int, ...]] = {
    WINNER_TAKES_ALL: (3, 4),
    "70_30": (3,),
    "65_35": (4,),
    "50_30_20": (4,),
}


def _seat_count(seats: object) -> int:
    if type(seats) is not int or seats not in (3, 4):
        raise ValueError(f"an R12 table has 3 or 4 seats, got {seats!r}")
    return seats


def check_prize_table(table: str, seats: int, variant: str = MATCH_PLAY) -> str:
    """R12: the prize tables a table of ``seats`` may use. First To Knock pays the hand's
    winner the whole pot less the fee, so it is always winner takes all."""
    seats = _seat_count(seats)
    if table not in PRIZE_TABLES:
        raise ValueError(f"unknown prize table {table!r}; one of {', '.join(PRIZE_TABLES)}")
    if seats not in PRIZE_TABLE_SEATS[table]:
        raise ValueError(f"prize table {table} is not for {seats} players (R12)")
    if check_variant(variant) == FIRST_TO_KNOCK and table != WINNER_TAKES_ALL:
        raise ValueError("First To Knock pays the hand's winner: winner_takes_all (R12)")
    return table


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


def _out_seats(out: Iterable[int], seats: int) -> tuple[int, ...]:
    gone = tuple(out)
    if len(set(gone)) != len(gone) or any(
        type(seat) is not int or not 0 <= seat < seats for seat in gone
    ):
        raise ValueError(f"forfeited seats must be distinct seats of the table, got {gone!r}")
    return gone


def _with_leavers(groups: list[tuple[int, ...]], out: tuple[int, ...]) -> Ranking:
    """R12: leavers rank last, the latest to leave above the earlier ones."""
    return Ranking(groups=(*groups, *((seat,) for seat in reversed(out))))


def last_player_standing(seats: int, out: Iterable[int]) -> int | None:
    """R12 "Leaving": the only seat left when every other seat forfeited, else None."""
    gone = _out_seats(out, _seat_count(seats))
    left = [seat for seat in range(seats) if seat not in gone]
    return left[0] if len(left) == 1 else None


def ftk_multi_winner(outcome: MultiHandOutcome) -> int | None:
    """R12 First To Knock: the hand's winner (the knocker, or the undercutter; the last seat
    left after forfeits) wins; a void hand (None) is redealt."""
    if outcome.kind == "void":
        return None
    return outcome.winner


def ftk_multi_ranking(winner: int, *, seats: int, out: Iterable[int] = ()) -> Ranking:
    """R12 First To Knock: the winner first, the other seats still in share second place,
    then the leavers (latest first)."""
    seats = _seat_count(seats)
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
    seats = _seat_count(len(totals))
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
    hand_outcomes: Iterable[MultiHandOutcome],
    *,
    seats: int,
    target: int = DEFAULT_PENALTY_TARGET,
    out: Iterable[int] = (),
) -> PenaltyScore:
    """R12 Match Play with penalty points: add each hand's penalties; the game is over when
    some seat's total reaches ``target`` (after that hand), or when forfeits (``out``, in the
    order the seats left) leave one seat. Void hands and a hand abandoned by forfeits count
    nothing. Outcomes after the end are refused."""
    seats = _seat_count(seats)
    if type(target) is not int or target <= 0:
        raise ValueError(f"the target is a positive number of points, got {target!r}")
    gone = _out_seats(out, seats)
    totals = [0] * seats
    won = [0] * seats
    played = 0
    over = False
    for outcome in hand_outcomes:
        if over:
            raise ValueError("a hand was played after the game was already over")
        if len(outcome.penalties) != seats:
            raise ValueError(f"a hand outcome has {seats} penalties, got {outcome.penalties!r}")
        played += 1
        for seat, penalty in enumerate(outcome.penalties):
            totals[seat] += penalty
        # A hand ended by forfeits was abandoned (R10, R12): nobody won it.
        if outcome.winner is not None and outcome.kind not in ("void", "forfeit"):
            won[outcome.winner] += 1
        over = any(total >= target for total in totals)
    if last_player_standing(seats, gone) is not None:
        over = True
    ranking = rank_penalty_play(totals, won, out=gone) if over else None
    return PenaltyScore(
        totals=tuple(totals), hands_won=tuple(won), hands_played=played, ranking=ranking
    )


def next_multi_dealer(
    dealer: int, outcome: MultiHandOutcome | None, *, seats: int, out: Iterable[int] = ()
) -> int:
    """R12: the deal rotates clockwise among the seats still in; a void hand is redealt by
    the same dealer (if still in)."""
    seats = _seat_count(seats)
    gone = _out_seats(out, seats)
    if outcome is not None and outcome.kind == "void" and dealer not in gone:
        return dealer
    for step in range(1, seats + 1):
        candidate = (dealer + step) % seats
        if candidate not in gone:
            return candidate
    raise ValueError("no seat is left to deal")


MULTI_RESULT_FORMAT = 1


@dataclass(frozen=True, slots=True)
class MultiMatchResult:
    """A finished R12 (three- or four-player) game: what settlement needs to pay it.

    ``ranking`` orders the seats; ``payouts`` (per seat, minor units) are
    ``split_pot(pot - fee, ranking, prize_table)`` and add up to ``pot - fee`` exactly;
    ``pot`` is the sum of the seats' stakes. ``forfeits`` are in the order the seats left.
    ``penalty_totals`` and ``hands_won`` are per seat (First To Knock: that one hand's).
    ``__post_init__`` refuses a result that breaks this contract.
    """

    match_id: int
    game_ref: str
    variant: str
    reason: str
    ranking: Ranking
    penalty_totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int
    target: int | None
    forfeits: tuple[Forfeit, ...]
    currency: str
    is_practice: bool
    fee_bps: int
    stake: int
    prize_table: str
    pot: int
    fee: int
    payouts: tuple[int, ...]
    seats: tuple[SeatStake, ...]
    finished_at: str
    format: int = MULTI_RESULT_FORMAT

    def __post_init__(self) -> None:
        if self.format != MULTI_RESULT_FORMAT:
            raise ValueError(f"result format {self.format!r}; expected {MULTI_RESULT_FORMAT}")
        if check_variant(self.variant) not in MULTI_VARIANTS:
            raise ValueError("Money Play stays heads-up (R12)")
        check_reason(self.reason)
        count = _seat_count(len(self.seats))
        if sorted(seat.position for seat in self.seats) != list(range(count)):
            raise ValueError("one stake per seat position 0..n-1")
        if self.ranking.seats != count:
            raise ValueError("the ranking must place every seat of the table")
        for name in ("penalty_totals", "hands_won", "payouts"):
            values = getattr(self, name)
            if len(values) != count or any(type(v) is not int or v < 0 for v in values):
                raise ValueError(f"{name} must be {count} non-negative ints")
        check_prize_table(self.prize_table, count, self.variant)
        if (self.target is None) != (self.variant == FIRST_TO_KNOCK):
            raise ValueError("a target is set in Match Play, and only there")
        self._check_forfeits(count)
        if self.pot != sum(seat.amount for seat in self.seats):
            raise ValueError("the pot is the sum of the seats' stakes")
        if type(self.fee) is not int or not 0 <= self.fee <= self.pot:
            raise ValueError("the fee is an int between 0 and the pot")
        if self.payouts != split_pot(self.pot - self.fee, self.ranking, self.prize_table):
            raise ValueError("payouts must be the prize table's split of the pot less the fee")

    def _check_forfeits(self, count: int) -> None:
        gone = tuple(forfeit.seat for forfeit in self.forfeits)
        _out_seats(gone, count)
        expected_tail = tuple((seat,) for seat in reversed(gone))
        if gone and self.ranking.groups[-len(gone) :] != expected_tail:
            raise ValueError("seats that forfeited rank last, the latest to leave first")
        if (self.reason == "forfeit") != (len(gone) == count - 1):
            raise ValueError("reason 'forfeit' means every seat but the winner forfeited")
        if self.variant == FIRST_TO_KNOCK and self.ranking.winner is None:
            raise ValueError("First To Knock has one winner")

    @property
    def winner_seat(self) -> int | None:
        return self.ranking.winner

    def public(self) -> dict[str, Any]:
        """The part players, watchers and the operator may see (no ids, no amounts)."""
        return {
            "reason": self.reason,
            "winner_seat": self.winner_seat,
            "ranking": self.ranking.to_list(),
            "penalty_totals": list(self.penalty_totals),
            "hands_won": list(self.hands_won),
            "hands_played": self.hands_played,
            "target": self.target,
            "forfeits": [forfeit.to_dict() for forfeit in self.forfeits],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **result_ids(self),
            **self.public(),
            **result_terms(self),
            "prize_table": self.prize_table,
            "pot": self.pot,
            "fee": self.fee,
            "payouts": list(self.payouts),
            "seats": [seat.to_dict() for seat in seats_by_position(self.seats)],
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MultiMatchResult:
        check_result_format(data, MULTI_RESULT_FORMAT)
        if data.get("winner_seat") != Ranking.from_list(data["ranking"]).winner:
            raise ValueError("winner_seat disagrees with the ranking")
        return cls(
            match_id=data["match_id"],
            game_ref=data["game_ref"],
            variant=data["variant"],
            reason=data["reason"],
            ranking=Ranking.from_list(data["ranking"]),
            penalty_totals=tuple(data["penalty_totals"]),
            hands_won=tuple(data["hands_won"]),
            hands_played=data["hands_played"],
            target=data["target"],
            forfeits=tuple(Forfeit.from_dict(item) for item in data["forfeits"]),
            currency=data["currency"],
            is_practice=data["is_practice"],
            fee_bps=data["fee_bps"],
            stake=data["stake"],
            prize_table=data["prize_table"],
            pot=data["pot"],
            fee=data["fee"],
            payouts=tuple(data["payouts"]),
            seats=tuple(SeatStake.from_dict(seat) for seat in data["seats"]),
            finished_at=data["finished_at"],
        )
