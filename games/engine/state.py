"""What a hand is (R3-R7, R12): its phases, the actions a seat plays and the events they
produce, how a hand ended, and the frozen :class:`HandState` itself, one shape for two, three
and four seats. The state machine that moves it is :mod:`games.engine.hand`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Literal, TypeAlias

from games.engine.cards import Card, card_text, coerce_cards
from games.engine.errors import EngineError
from games.engine.going_out import KnockResult
from games.engine.rules import RuleSet
from games.engine.showdown import ShowdownResult

UPCARD_OFFER, DRAW, DISCARD, ENDED = "upcard_offer", "draw", "discard", "ended"
PHASES = (UPCARD_OFFER, DRAW, DISCARD, ENDED)

TAKE_UPCARD, PASS = "take_upcard", "pass"  # R4
DRAW_STOCK, DRAW_DISCARD, DISCARD_CARD = "draw_stock", "draw_discard", "discard"  # R5
KNOCK, BIG_GIN = "knock", "big_gin"  # R6
ACTION_KINDS = (TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, DISCARD_CARD, KNOCK, BIG_GIN)
CARD_ACTIONS = (DISCARD_CARD, KNOCK)

STOCK_RESHUFFLED, HAND_ENDED = "stock_reshuffled", "hand_ended"
EVENT_KINDS = (*ACTION_KINDS, STOCK_RESHUFFLED, HAND_ENDED)
# R12 "Leaving": an event of three- and four-seat hands, not an action a seat plays (the
# games layer lists it among its table's own event kinds).
FORFEIT = "forfeit"

OutcomeKind = Literal["knock", "gin", "big_gin", "undercut", "void", "forfeit"]
Hands: TypeAlias = tuple[tuple[Card, ...], ...]


def check_seat(seat: object, seats: int) -> int:
    """``seat`` if it is a seat of a table of ``seats`` (0..seats-1), else
    :class:`EngineError`."""
    if type(seat) is not int or not 0 <= seat < seats:
        raise EngineError(f"a seat is 0 to {seats - 1}, got {seat!r}")
    return seat


def next_seat(seat: int, seats: int, out: tuple[int, ...] = ()) -> int:
    """R3, R12: the next seat clockwise (seat + 1) that is still in the hand: with two
    seats, the other player."""
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if candidate not in out:
            return candidate
    raise EngineError("no seat is left in the hand")  # pragma: no cover - guarded by callers


@dataclass(frozen=True, slots=True)
class Action:
    """A player's move. ``card`` is the card put down for ``discard`` and ``knock`` only."""

    kind: str
    seat: int
    card: Card | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "card": card_text(self.card)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], seat: int | None = None) -> Action:
        """Parse ``{"kind", "card"}`` (card text or None); ``seat`` fills a missing "seat"."""
        card = data.get("card")
        return cls(
            kind=data["kind"],
            seat=data.get("seat", seat),
            card=None if card is None else coerce_cards([card])[0],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class HandOutcome:
    """How a hand ended. ``winner`` is the hand's winner: None when void (R7), or heads-up on
    an R9 ``no_score`` tie.

    Heads-up (R9) the winner scores ``points`` and ``penalties`` is empty. With three or four
    seats (R12) ``penalties`` charges each seat (all 0 when the hand is void or ended by
    forfeits), ``points`` is 0, and the winner is the knocker, the undercutter, or the last
    seat left after forfeits. ``result`` is the showdown: a ``KnockResult`` heads-up, a
    ``ShowdownResult`` in R12 (None: void, forfeit).
    """

    kind: OutcomeKind
    knocker: int | None
    winner: int | None
    points: int = 0
    penalties: tuple[int, ...] = ()
    result: KnockResult | ShowdownResult | None = None

    @property
    def penalty_scoring(self) -> bool:
        """R12: scored in penalty points, one per seat (heads-up R9 scores ``points``)."""
        return bool(self.penalties)

    @property
    def seats(self) -> int:
        """The table's seat count: 2 heads-up, else one penalty per seat (R12)."""
        return len(self.penalties) if self.penalties else 2

    def to_dict(self) -> dict[str, Any]:
        score: dict[str, Any] = (
            {"penalties": list(self.penalties)} if self.penalties else {"points": self.points}
        )
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            **score,
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandOutcome:
        """Either stored shape: heads-up with ``points``, R12 with ``penalties``."""
        stored = data.get("result")
        result: KnockResult | ShowdownResult | None
        if "penalties" in data:
            score: dict[str, Any] = {"penalties": tuple(data["penalties"])}
            result = None if stored is None else ShowdownResult.from_dict(stored)
        else:
            score = {"points": data["points"]}
            result = None if stored is None else KnockResult.from_dict(stored)
        return cls(
            kind=data["kind"],
            knocker=data["knocker"],
            winner=data["winner"],
            **score,
            result=result,
        )


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the hand's event log and for the players' screens.

    ``card`` is public except for ``draw_stock``, which only the drawer may see (see
    :func:`games.engine.views.event_view`). ``hand_ended`` carries the outcome, every final
    hand and the revealed seed; ``stock_reshuffled`` the new stock size (R7).
    """

    kind: str
    seat: int | None
    seq: int
    card: Card | None = None
    outcome: HandOutcome | None = None
    hands: Hands | None = None
    seed: str | None = None
    stock_count: int | None = None


@dataclass(frozen=True, slots=True)
class HandState:
    """Everything about one hand. ``stock[0]`` is the next card drawn; ``discard_pile[-1]``
    is the top of the discard pile. Hands are kept in suit order (S, H, D, C, then rank),
    one per seat.

    ``upcard_passes`` counts passes on the upcard offer; ``stock_only`` is set after everybody
    passed (R4.3: the first player must draw from the stock); ``taken_from_discard`` is the
    card taken from the pile this turn, which may not be put down again (R5);
    ``knock_card`` is the card the knocker put down (R6); ``reshuffles`` counts R7
    reshuffles. ``out`` lists the seats that forfeited (R12, in order) and ``dead`` their
    cards, out of play; both stay empty heads-up, where a forfeit ends the match (R10).
    """

    rules: RuleSet
    seed: str
    dealer: int
    hands: Hands
    stock: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    phase: str
    to_act: int | None
    seq: int = 0
    upcard_passes: int = 0
    stock_only: bool = False
    taken_from_discard: Card | None = None
    knock_card: Card | None = None
    reshuffles: int = 0
    out: tuple[int, ...] = ()
    dead: tuple[Card, ...] = ()
    outcome: HandOutcome | None = None

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def active(self) -> tuple[int, ...]:
        """The seats still in the hand, in seat order."""
        return tuple(seat for seat in range(self.seats) if seat not in self.out)

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile (the R3 upcard during the R4 offer)."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        return self.phase == ENDED


Step: TypeAlias = tuple[HandState, tuple[Event, ...]]

_STATE_FIELDS = tuple(field.name for field in fields(HandState))
_state_values = attrgetter(*_STATE_FIELDS)


def evolve(state: HandState, **changes: Any) -> HandState:
    """``dataclasses.replace`` for a hand state, without its per-call introspection."""
    values = dict(zip(_STATE_FIELDS, _state_values(state), strict=True))
    values.update(changes)
    return HandState(**values)
