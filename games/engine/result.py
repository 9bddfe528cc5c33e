"""A finished match's result: the typed contract between games and settlement (R10, R12).

Games builds a ``MatchResult`` (heads-up) or a ``MultiMatchResult`` (three and four players)
when a match ends and stores ``to_dict()`` as JSON; settlement, statements and reports read it
back with ``from_dict`` and never by string keys.
The JSON shape is documented in docs/games.md ("Match result"); ``RESULT_FORMAT`` changes
when it does. Amounts are integers in minor units of ``currency``; the engine attaches no
meaning to them beyond carrying them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games.engine.match import (
    MoneyPlayResult,
    Ranking,
    check_forfeits_rank_last,
    split_pot,
)
from games.engine.records import Decoder, Record
from games.engine.rules import (
    FIRST_TO_KNOCK,
    MONEY_PLAY,
    THREE_PLAYERS,
    check_prize_table,
    check_variant,
)

RESULT_FORMAT = 1
MULTI_RESULT_FORMAT = 1

# Why a match ended.
REASON_FIRST_TO_KNOCK = "first_to_knock"
REASON_TARGET_REACHED = "target_reached"
REASON_FORFEIT = "forfeit"
# R14 "Absence": nobody took their seat at a tournament's match, so nobody won it.
REASON_NO_CONTEST = "no_contest"
REASONS = (REASON_FIRST_TO_KNOCK, REASON_TARGET_REACHED, REASON_FORFEIT, REASON_NO_CONTEST)


@dataclass(frozen=True, slots=True)
class SeatStake(Record):
    """What one seat has in the game's escrow: the stake (FTK, Match Play) or the cashier
    amount (Money Play)."""

    position: int
    seat_id: int
    player_id: str
    amount: int
    currency: str
    decoders: ClassVar[Mapping[str, Decoder]] = {"player_id": str}


@dataclass(frozen=True, slots=True)
class Forfeit(Record):
    """R10 "Leaving, timing out": who forfeited, and how (left, timeout, resigned)."""

    seat: int
    reason: str


# The result contract's shared parts: a heads-up MatchResult and an R12 MultiMatchResult
# check their reason and format, and store their envelope (ids, stakes, seats), the same way.


def _check_reason(reason: str) -> str:
    """R10: why a match ended is one of :data:`REASONS`, else ``ValueError``."""
    if reason not in REASONS:
        raise ValueError(f"unknown reason {reason!r}; one of {', '.join(REASONS)}")
    return reason


def _check_format(data: Mapping[str, Any], expected: int) -> None:
    """Stored result JSON of another ``format`` is refused (``ValueError``)."""
    if data.get("format") != expected:
        raise ValueError(f"result format {data.get('format')!r}; expected {expected}")


def _head(result: MatchResult | MultiMatchResult) -> dict[str, Any]:
    """The head of a stored result: format, match, game and variant."""
    return {
        "format": result.format,
        "match_id": result.match_id,
        "game_ref": result.game_ref,
        "variant": result.variant,
    }


def _terms(result: MatchResult | MultiMatchResult) -> dict[str, Any]:
    """What the table was played for: currency, practice or not, fee and stake."""
    return {
        "currency": result.currency,
        "is_practice": result.is_practice,
        "fee_bps": result.fee_bps,
        "stake": result.stake,
    }


def _envelope_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's arguments for the envelope of stored result ``data``: ids, reason,
    the terms, the seats and when it finished."""
    return {
        "match_id": data["match_id"],
        "game_ref": data["game_ref"],
        "variant": data["variant"],
        "reason": data["reason"],
        "hands_played": data["hands_played"],
        "target": data["target"],
        "currency": data["currency"],
        "is_practice": data["is_practice"],
        "fee_bps": data["fee_bps"],
        "stake": data["stake"],
        "seats": tuple(SeatStake.from_dict(seat) for seat in data["seats"]),
        "finished_at": data["finished_at"],
    }


def _pair(values: list[int]) -> tuple[int, int]:
    first, second = values
    return first, second


def _by_position(seats: tuple[SeatStake, ...]) -> tuple[SeatStake, ...]:
    return tuple(sorted(seats, key=lambda seat: seat.position))


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Everything settlement needs to pay a finished match, and nothing it must look up.

    ``winner_seat`` is None only in Money Play when no money moves (equal final scores, or a
    leaver still ahead: R10). ``money_play`` is set in Money Play only; ``stake`` in First To
    Knock and Match Play, ``stake_per_point`` in Money Play.
    """

    match_id: int
    game_ref: str
    variant: str
    reason: str
    winner_seat: int | None
    reached_target: int | None
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    hands_played: int
    target: int | None
    money_play: MoneyPlayResult | None
    forfeit: Forfeit | None
    currency: str
    is_practice: bool
    fee_bps: int
    stake: int | None
    stake_per_point: int | None
    seats: tuple[SeatStake, ...]
    finished_at: str
    format: int = RESULT_FORMAT

    def __post_init__(self) -> None:
        check_variant(self.variant)
        _check_reason(self.reason)
        if (self.money_play is not None) != self.is_money_play:
            raise ValueError("money_play is set in Money Play, and only there")
        if self.reason == REASON_NO_CONTEST and self.winner_seat is not None:
            raise ValueError("a match nobody played has no winner")

    @property
    def is_money_play(self) -> bool:
        return self.variant == MONEY_PLAY

    @property
    def seats_by_position(self) -> tuple[SeatStake, ...]:
        return _by_position(self.seats)

    def public(self) -> dict[str, Any]:
        """The part both players, watchers and the operator may see (no ids, no amounts)."""
        return {
            "reason": self.reason,
            "winner_seat": self.winner_seat,
            "reached_target": self.reached_target,
            "hand_points": list(self.hand_points),
            "hands_won": list(self.hands_won),
            "hands_played": self.hands_played,
            "target": self.target,
            "money_play": None if self.money_play is None else self.money_play.to_dict(),
            "forfeit": None if self.forfeit is None else self.forfeit.to_dict(),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **_head(self),
            **self.public(),
            **_terms(self),
            "stake_per_point": self.stake_per_point,
            "seats": [seat.to_dict() for seat in self.seats_by_position],
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchResult:
        _check_format(data, RESULT_FORMAT)
        money, forfeit = data["money_play"], data["forfeit"]
        return cls(
            **_envelope_fields(data),
            winner_seat=data["winner_seat"],
            reached_target=data["reached_target"],
            hand_points=_pair(data["hand_points"]),
            hands_won=_pair(data["hands_won"]),
            money_play=None if money is None else MoneyPlayResult.from_dict(money),
            forfeit=None if forfeit is None else Forfeit.from_dict(forfeit),
            stake_per_point=data["stake_per_point"],
        )


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
    stake: int | None  # None: a tournament's match (R14), nothing staked
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
        if check_variant(self.variant) not in THREE_PLAYERS.variants:
            raise ValueError("Money Play stays heads-up (R12)")
        _check_reason(self.reason)
        count = len(self.seats)
        if count not in (3, 4):
            raise ValueError(f"an R12 table has 3 or 4 seats, got {count!r}")
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
        gone = check_forfeits_rank_last(self.ranking, (forfeit.seat for forfeit in self.forfeits))
        if (self.reason == "forfeit") != (len(gone) == count - 1):
            raise ValueError("reason 'forfeit' means every seat but the winner forfeited")
        if self.reason == REASON_NO_CONTEST:
            if len(self.ranking.groups) != 1:
                raise ValueError("a match nobody played ranks every seat in one shared place")
        elif self.variant == FIRST_TO_KNOCK and self.ranking.winner is None:
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
            **_head(self),
            **self.public(),
            **_terms(self),
            "prize_table": self.prize_table,
            "pot": self.pot,
            "fee": self.fee,
            "payouts": list(self.payouts),
            "seats": [seat.to_dict() for seat in _by_position(self.seats)],
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MultiMatchResult:
        _check_format(data, MULTI_RESULT_FORMAT)
        ranking = Ranking.from_list(data["ranking"])
        if data.get("winner_seat") != ranking.winner:
            raise ValueError("winner_seat disagrees with the ranking")
        return cls(
            **_envelope_fields(data),
            ranking=ranking,
            penalty_totals=tuple(data["penalty_totals"]),
            hands_won=tuple(data["hands_won"]),
            forfeits=tuple(Forfeit.from_dict(item) for item in data["forfeits"]),
            prize_table=data["prize_table"],
            pot=data["pot"],
            fee=data["fee"],
            payouts=tuple(data["payouts"]),
        )
