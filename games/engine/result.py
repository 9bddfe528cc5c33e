"""A finished match's result: the typed contract between games and settlement (R10).

Games builds a ``MatchResult`` when a match ends and stores ``to_dict()`` as JSON; settlement,
statements and reports read it back with ``MatchResult.from_dict`` and never by string keys.
The JSON shape is documented in docs/games.md ("Match result"); ``RESULT_FORMAT`` changes
when it does. Amounts are integers in minor units of ``currency``; the engine attaches no
meaning to them beyond carrying them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine.match import MONEY_PLAY, MoneyPlayResult, check_variant

RESULT_FORMAT = 1

# Why a match ended.
REASON_FIRST_TO_KNOCK = "first_to_knock"
REASON_TARGET_REACHED = "target_reached"
REASON_FORFEIT = "forfeit"
REASONS = (REASON_FIRST_TO_KNOCK, REASON_TARGET_REACHED, REASON_FORFEIT)


@dataclass(frozen=True, slots=True)
class SeatStake:
    """What one seat has in the game's escrow: the stake (FTK, Match Play) or the cashier
    amount (Money Play)."""

    position: int
    seat_id: int
    player_id: str
    amount: int
    currency: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "seat_id": self.seat_id,
            "player_id": self.player_id,
            "amount": self.amount,
            "currency": self.currency,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatStake:
        return cls(
            position=data["position"],
            seat_id=data["seat_id"],
            player_id=str(data["player_id"]),
            amount=data["amount"],
            currency=data["currency"],
        )


@dataclass(frozen=True, slots=True)
class Forfeit:
    """R10 "Leaving, timing out": who forfeited, and how (left, timeout, resigned)."""

    seat: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Forfeit | None:
        return None if data is None else cls(seat=data["seat"], reason=data["reason"])


# The result contract's shared parts: a heads-up MatchResult and an R12 MultiMatchResult
# (games.engine.multi_match) check their reason and format, and store their envelope
# (ids, stakes, seats), the same way.


def check_reason(reason: str) -> str:
    """R10: why a match ended is one of :data:`REASONS`, else ``ValueError``."""
    if reason not in REASONS:
        raise ValueError(f"unknown reason {reason!r}; one of {', '.join(REASONS)}")
    return reason


def check_result_format(data: dict[str, Any], expected: int) -> None:
    """Stored result JSON of another ``format`` is refused (``ValueError``)."""
    if data.get("format") != expected:
        raise ValueError(f"result format {data.get('format')!r}; expected {expected}")


def result_ids(result) -> dict[str, Any]:
    """The head of a stored result: format, match, game and variant."""
    return {
        "format": result.format,
        "match_id": result.match_id,
        "game_ref": result.game_ref,
        "variant": result.variant,
    }


def result_terms(result) -> dict[str, Any]:
    """What the table was played for: currency, practice or not, fee and stake."""
    return {
        "currency": result.currency,
        "is_practice": result.is_practice,
        "fee_bps": result.fee_bps,
        "stake": result.stake,
    }


def seats_by_position(seats: tuple[SeatStake, ...]) -> tuple[SeatStake, ...]:
    return tuple(sorted(seats, key=lambda seat: seat.position))


def _pair(values: list[int]) -> tuple[int, int]:
    first, second = values
    return first, second


def _money_play_from_dict(data: dict[str, Any] | None) -> MoneyPlayResult | None:
    if data is None:
        return None

    def pair(key: str) -> tuple[int, int]:
        return _pair(data[key])

    return MoneyPlayResult(
        hand_points=pair("hand_points"),
        line_bonus=pair("line_bonus"),
        target_bonus=pair("target_bonus"),
        zero_point_bonus=pair("zero_point_bonus"),
        totals=pair("totals"),
        winner=data["winner"],
        point_difference=data["point_difference"],
        target=data["target"],
        reached_target=data["reached_target"],
    )


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
        check_reason(self.reason)
        if (self.money_play is not None) != self.is_money_play:
            raise ValueError("money_play is set in Money Play, and only there")

    @property
    def is_money_play(self) -> bool:
        return self.variant == MONEY_PLAY

    @property
    def seats_by_position(self) -> tuple[SeatStake, ...]:
        return seats_by_position(self.seats)

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
            **result_ids(self),
            **self.public(),
            **result_terms(self),
            "stake_per_point": self.stake_per_point,
            "seats": [seat.to_dict() for seat in self.seats_by_position],
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        check_result_format(data, RESULT_FORMAT)
        return cls(
            match_id=data["match_id"],
            game_ref=data["game_ref"],
            variant=data["variant"],
            reason=data["reason"],
            winner_seat=data["winner_seat"],
            reached_target=data["reached_target"],
            hand_points=_pair(data["hand_points"]),
            hands_won=_pair(data["hands_won"]),
            hands_played=data["hands_played"],
            target=data["target"],
            money_play=_money_play_from_dict(data["money_play"]),
            forfeit=Forfeit.from_dict(data["forfeit"]),
            currency=data["currency"],
            is_practice=data["is_practice"],
            fee_bps=data["fee_bps"],
            stake=data["stake"],
            stake_per_point=data["stake_per_point"],
            seats=tuple(SeatStake.from_dict(seat) for seat in data["seats"]),
            finished_at=data["finished_at"],
        )
