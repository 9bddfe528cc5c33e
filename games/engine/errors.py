"""Errors raised by the rules engine.

Every error the engine raises on purpose derives from :class:`EngineError`, so the API layer
can map the whole family to problem+json responses. Errors about malformed input (card text,
hand sizes, room options) also derive from :class:`ValueError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.engine.state import Action


class EngineError(Exception):
    """Base class of every error the engine raises deliberately."""


class CardParseError(EngineError, ValueError):
    """A card token that is not valid R1 notation."""

    def __init__(self, token: str, reason: str = "not a card") -> None:
        self.token = token
        super().__init__(f"bad card {token!r}: {reason} (R1: rank A 2-9 T/10 J Q K, suit S H D C)")


class DuplicateCardError(EngineError, ValueError):
    """The same card appears twice where every card must be distinct (one 52-card deck, R1)."""

    def __init__(self, card: object) -> None:
        self.card = card
        super().__init__(f"duplicate card {card} (R1: one 52-card deck)")


class InvalidHandError(EngineError, ValueError):
    """A hand of the wrong size or shape for the requested operation."""


class NotYourTurnError(EngineError):
    """An action by a seat that is not the one to act."""

    def __init__(self, seat: int, to_act: int | None) -> None:
        self.seat = seat
        self.to_act = to_act
        super().__init__(f"seat {seat} acted but it is seat {to_act}'s turn")


class IllegalActionError(EngineError):
    """An action the rules do not allow in this state; ``legal`` lists what is allowed."""

    def __init__(self, message: str, legal: tuple[Action, ...] = ()) -> None:
        self.legal = legal
        super().__init__(message)


class KnockOverLimitError(EngineError):
    """R6: a knock whose 10 shown cards have deadwood above the room's knock limit."""

    def __init__(self, deadwood: int, limit: int) -> None:
        self.deadwood = deadwood
        self.limit = limit
        super().__init__(
            f"cannot knock with {deadwood} deadwood: the knock limit is {limit} (R6); "
            "discard instead"
        )
