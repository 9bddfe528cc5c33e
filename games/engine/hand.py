"""The hand state machine (R3-R7): deal, upcard offer, draw, discard, going out, exhaustion.

A :class:`HandState` is immutable; :func:`apply` returns the next state and the events the
action produced, or raises without changing anything. Seats are the ints 0 and 1.

The legality checks (:func:`legal_actions`, :func:`check_action`) and the transitions that are
the same whatever the seat count (take, draw, put down, reshuffle, show a knock, end) are
written over the fields :class:`HandState` and the R12 ``MultiHandState`` share, and
:mod:`games.engine.multi_hand` uses them as they are; only the rules that differ (the deal,
the upcard offer, whose turn follows a discard, R7 vs R12's low stock, settling a knock) are
written twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Literal, TypeAlias

from games.engine.cards import FULL_DECK, Card, card_text, cards_to_mask, coerce_cards, sort_by_suit
from games.engine.errors import (
    EngineError,
    IllegalActionError,
    KnockOverLimitError,
    NotYourTurnError,
)
from games.engine.fairness import shuffle, shuffled_deck
from games.engine.going_out import KnockResult, settle_knock
from games.engine.rules import RuleSet
from games.engine.solver import min_deadwood_after_discard_mask, min_deadwood_mask

if TYPE_CHECKING:
    from games.engine.multi_hand import MultiHandOutcome, MultiHandState

SEATS = (0, 1)
HAND_SIZE = 10  # R3
STOCK_FLOOR = 2  # R7: the stock is "exhausted" when 2 cards are left

UPCARD_OFFER, DRAW, DISCARD, ENDED = "upcard_offer", "draw", "discard", "ended"
PHASES = (UPCARD_OFFER, DRAW, DISCARD, ENDED)

TAKE_UPCARD, PASS = "take_upcard", "pass"  # R4
DRAW_STOCK, DRAW_DISCARD, DISCARD_CARD = "draw_stock", "draw_discard", "discard"  # R5
KNOCK, BIG_GIN = "knock", "big_gin"  # R6
ACTION_KINDS = (TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, DISCARD_CARD, KNOCK, BIG_GIN)
CARD_ACTIONS = (DISCARD_CARD, KNOCK)

STOCK_RESHUFFLED, HAND_ENDED = "stock_reshuffled", "hand_ended"
EVENT_KINDS = (*ACTION_KINDS, STOCK_RESHUFFLED, HAND_ENDED)

OutcomeKind = Literal["knock", "gin", "big_gin", "undercut", "void"]


def other_seat(seat: int) -> int:
    return 1 - seat


def check_seat(seat: object) -> int:
    """``seat`` if it is 0 or 1 (R12: two players only), else :class:`EngineError`."""
    if type(seat) is not int or seat not in SEATS:
        raise EngineError(f"a seat is 0 or 1, got {seat!r}")
    return seat


@dataclass(frozen=True, slots=True)
class Action:
    """A player's move. ``card`` is the card put down for ``discard`` and ``knock`` only."""

    kind: str
    seat: int
    card: Card | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "seat": self.seat, "card": card_text(self.card)}

    @classmethod
    def from_dict(cls, data: dict, seat: int | None = None) -> Action:
        """Parse ``{"kind", "card"}`` (card text or None); ``seat`` fills a missing "seat"."""
        card = data.get("card")
        return cls(
            kind=data["kind"],
            seat=data.get("seat", seat),
            card=None if card is None else coerce_cards([card])[0],
        )


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended. ``winner`` is the seat that scores ``points`` (None: void or tie)."""

    kind: OutcomeKind
    knocker: int | None
    winner: int | None
    points: int
    result: KnockResult | None = None

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            "points": self.points,
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> HandOutcome:
        result = data.get("result")
        return cls(
            kind=data["kind"],
            knocker=data["knocker"],
            winner=data["winner"],
            points=data["points"],
            result=None if result is None else KnockResult.from_dict(result),
        )


VOID_OUTCOME = HandOutcome(kind="void", knocker=None, winner=None, points=0)  # R7


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the hand's event log and for the players' screens.

    ``card`` is public except for ``draw_stock``, which only the drawer may see (see
    :func:`games.engine.views.event_view`). ``hand_ended`` carries the outcome, both final
    hands and the revealed seed; ``stock_reshuffled`` the new stock size (R7).
    """

    kind: str
    seat: int | None
    seq: int
    card: Card | None = None
    outcome: HandOutcome | None = None
    hands: tuple[tuple[Card, ...], ...] | None = None
    seed: str | None = None
    stock_count: int | None = None


@dataclass(frozen=True, slots=True)
class HandState:
    """Everything about one hand. ``stock[0]`` is the next card drawn; ``discard_pile[-1]``
    is the top of the discard pile. Hands are kept in suit order (S, H, D, C, then rank).

    ``upcard_passes`` counts passes on the R4 upcard offer; ``stock_only`` is set after both
    passed (R4.3: the non-dealer must draw from the stock); ``taken_from_discard`` is the card
    taken from the pile this turn, which may not be put down again (R5); ``knock_card`` is the
    card the knocker put down (R6); ``reshuffles`` counts R7 reshuffles.
    """

    rules: RuleSet
    seed: str
    dealer: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
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
    outcome: HandOutcome | None = None

    @property
    def non_dealer(self) -> int:
        return other_seat(self.dealer)

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile (the R3 upcard during the R4 offer)."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        return self.phase == ENDED


if TYPE_CHECKING:  # what the shared functions in this module take: either state machine's state
    AnyState: TypeAlias = HandState | MultiHandState
    AnyStep: TypeAlias = tuple[AnyState, tuple[Event, ...]]

_ACCESSORS: dict[type, tuple[tuple[str, ...], attrgetter]] = {}


def evolve(state: AnyState, **changes) -> AnyState:
    """``dataclasses.replace`` for a hand state (:class:`HandState` or the R12
    ``MultiHandState``), without its per-call introspection: the transitions below are
    written over the fields both classes share, so both state machines use them."""
    cls = state.__class__
    accessors = _ACCESSORS.get(cls)
    if accessors is None:
        names = tuple(field.name for field in fields(cls))
        accessors = _ACCESSORS[cls] = (names, attrgetter(*names))
    names, values_of = accessors
    values = dict(zip(names, values_of(state), strict=True))
    values.update(changes)
    return cls(**values)


def deal(*, seed: str, dealer: int, rules: RuleSet | None = None) -> HandState:
    """R3: shuffle from ``seed``, deal 10 cards each one at a time starting with the
    non-dealer, turn the next card up as the upcard; the rest is the stock. R4 then opens the
    upcard offer to the non-dealer."""
    dealer = check_seat(dealer)
    deck = shuffled_deck(seed)
    non_dealer = other_seat(dealer)
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[non_dealer] = sort_by_suit(deck[0 : 2 * HAND_SIZE : 2])
    hands[dealer] = sort_by_suit(deck[1 : 2 * HAND_SIZE : 2])
    return HandState(
        rules=RuleSet() if rules is None else rules,
        seed=seed,
        dealer=dealer,
        hands=(hands[0], hands[1]),
        stock=deck[2 * HAND_SIZE + 1 :],
        discard_pile=(deck[2 * HAND_SIZE],),
        phase=UPCARD_OFFER,
        to_act=non_dealer,
    )


# Every possible Action, built once: legal_actions hands out these shared immutable objects
# (seats 0..3, so that the R12 tables share them).
_ACTIONS = {
    (kind, seat, card.index if kind in CARD_ACTIONS else -1): Action(
        kind, seat, card if kind in CARD_ACTIONS else None
    )
    for kind in ACTION_KINDS
    for seat in range(4)
    for card in FULL_DECK
}


def _action(kind: str, seat: int, card: Card | None = None) -> Action:
    return _ACTIONS[kind, seat, -1 if card is None else card.index]


def legal_actions(state: AnyState, seat: int) -> tuple[Action, ...]:
    """Every action ``seat`` may take now; empty when it is not that seat's turn.

    The actions the phase allows (``_phase_actions``, R4 and R5) that also meet the
    conditions of going out (R6): a knock is listed only when the 10 cards left have
    deadwood within the knock limit, Big Gin only when all 11 cards meld. For ``discard``
    and ``knock`` there is one action per card. The R12 state machine uses this function
    as it is (7 cards shown, 8 for Big Gin; ``games.engine.multi_hand``).
    """
    candidates = _phase_actions(state, seat)
    if state.phase != DISCARD or not candidates:
        return candidates
    mask = cards_to_mask(state.hands[seat])
    if min_deadwood_after_discard_mask(mask) > state.rules.knock_limit:
        # R6: no card can be put down to knock (and so no 11 cards all meld either).
        return tuple(action for action in candidates if action.kind == DISCARD_CARD)
    return tuple(action for action in candidates if _going_out_allowed(state, action, mask))


def _phase_actions(state: AnyState, seat: int) -> tuple[Action, ...]:
    """What the phase lets ``seat`` do, before R6's conditions on going out: the one
    definition of legality that ``legal_actions`` and ``apply`` share (and R12's: the
    upcard offer, the draw and the put-down are the same actions whatever the seat count)."""
    if state.phase == ENDED or seat != state.to_act:
        return ()
    if state.phase == UPCARD_OFFER:  # R4.1, R4.2
        return (_action(TAKE_UPCARD, seat), _action(PASS, seat))
    if state.phase == DRAW:  # R5, R4.3
        actions = [_action(DRAW_STOCK, seat)] if state.stock else []
        if state.discard_pile and not state.stock_only:
            actions.append(_action(DRAW_DISCARD, seat))
        return tuple(actions)
    cards = _putdown_cards(state, seat)  # R5: never the card just taken from the pile
    return (
        *(_action(DISCARD_CARD, seat, card) for card in cards),
        *(_action(KNOCK, seat, card) for card in cards),
        _action(BIG_GIN, seat),
    )


def knock_deadwood(mask: int, card: Card) -> int:
    """R6: the deadwood of the cards shown when knocking from ``mask`` with ``card`` put
    down (10 of 11; R12: 7 of 8): the one figure the knock limit, its refusal and the views
    use."""
    return min_deadwood_mask(mask ^ 1 << card.index)


def _going_out_allowed(state: AnyState, action: Action, mask: int) -> bool:
    """R6: a knock shows 10 cards within the knock limit; Big Gin melds all 11 cards."""
    if action.kind == KNOCK:
        return knock_deadwood(mask, action.card) <= state.rules.knock_limit
    if action.kind == BIG_GIN:
        return min_deadwood_mask(mask) == 0
    return True


def _putdown_cards(state: AnyState, seat: int) -> tuple[Card, ...]:
    """R5: the cards that may be put down now (not the one just taken from the pile)."""
    taken = state.taken_from_discard
    if taken is None:
        return state.hands[seat]
    return tuple(card for card in state.hands[seat] if card.index != taken.index)


Step = tuple[HandState, tuple[Event, ...]]


@dataclass(frozen=True, slots=True)
class Wording:
    """The rule numbers and counts an illegal action's message cites: the checks are the
    same for every seat count, the rule book's wording is not (R4-R6 heads-up, R12)."""

    held: int  # cards held after drawing: all of them must meld for Big Gin
    going_out_rule: str
    taken_rule: str
    all_passed: str


HEADS_UP_WORDING = Wording(
    held=11,
    going_out_rule="R6",
    taken_rule="R5",
    all_passed="both players passed the upcard: draw from the stock (R4.3)",
)


def apply(state: HandState, action: Action) -> Step:
    """Apply ``action``; return the new state and the events. Raises (changing nothing)
    :class:`NotYourTurnError`, :class:`KnockOverLimitError` or :class:`IllegalActionError`."""
    check_action(state, action, HEADS_UP_WORDING)
    return _TRANSITIONS[action.kind](state, action)


def check_action(state: AnyState, action: Action, wording: Wording) -> None:
    """Raise, as :func:`apply` does, unless ``action`` may be applied to ``state`` now: it is
    one of ``_phase_actions`` and meets R6's conditions on going out, as ``legal_actions``
    says; a knock over the limit names its deadwood. Shared by the R12 state machine."""
    if not isinstance(action, Action):
        raise IllegalActionError(f"not an Action: {action!r}")
    if state.phase == ENDED:
        raise IllegalActionError("the hand has ended", legal=())
    if action.seat != state.to_act:
        raise NotYourTurnError(action.seat, state.to_act)
    if action not in _phase_actions(state, action.seat):
        raise IllegalActionError(
            _illegal_reason(state, action, wording), legal=legal_actions(state, action.seat)
        )
    if action.kind not in (KNOCK, BIG_GIN):
        return
    mask = cards_to_mask(state.hands[action.seat])
    if _going_out_allowed(state, action, mask):
        return
    if action.kind == KNOCK:  # R6: refused, nothing changes
        deadwood = knock_deadwood(mask, action.card)
        raise KnockOverLimitError(deadwood=deadwood, limit=state.rules.knock_limit)
    raise IllegalActionError(
        f"{action.kind} is not allowed: not all {wording.held} cards meld"
        f" ({wording.going_out_rule})",
        legal=legal_actions(state, action.seat),
    )


def _illegal_reason(state: AnyState, action: Action, wording: Wording) -> str:
    if action.kind not in ACTION_KINDS:
        return f"unknown action {action.kind!r}"
    taken = state.taken_from_discard
    if action.kind in CARD_ACTIONS and taken is not None and action.card == taken:
        return (
            f"{action.card} was just taken from the discard pile and may not be put down"
            f" ({wording.taken_rule})"
        )
    if action.kind in CARD_ACTIONS and action.card not in state.hands[action.seat]:
        return f"{card_text(action.card)} is not in your hand"
    if action.kind == DRAW_DISCARD and state.stock_only:
        return wording.all_passed
    return f"{action.kind} is not allowed in phase {state.phase}"


# The transitions below are written over the fields HandState and MultiHandState share, so
# the R12 state machine uses them too; what differs (the upcard offer, whose turn follows a
# discard, R7 vs R12's low stock, settling a knock) stays in each module.


def with_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return sort_by_suit((*hand, card))


def without_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(held for held in hand if held.index != card.index)


def hands_with(state: AnyState, seat: int, hand: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    """Every seat's hand as in ``state``, with ``seat`` now holding ``hand``."""
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def _take(state: AnyState, action: Action, kind: str) -> AnyStep:
    """Take the top of the discard pile (the upcard during the offer); it may not be put
    down this turn (R5), and the seat discards next (R4.4)."""
    card = state.discard_pile[-1]
    new = evolve(
        state,
        hands=hands_with(state, action.seat, with_card(state.hands[action.seat], card)),
        discard_pile=state.discard_pile[:-1],
        phase=DISCARD,
        taken_from_discard=card,
        seq=state.seq + 1,
    )
    return new, (Event(kind, action.seat, new.seq, card=card),)


def take_upcard(state: AnyState, action: Action) -> AnyStep:
    """R4.1/R4.2: take the upcard, then discard (R4.4)."""
    return _take(state, action, TAKE_UPCARD)


def draw_discard(state: AnyState, action: Action) -> AnyStep:
    """R5: take the top of the discard pile; it may not be discarded this turn."""
    return _take(state, action, DRAW_DISCARD)


def _pass(state: HandState, action: Action) -> Step:
    """R4: the non-dealer, then the dealer, may pass; after both, the non-dealer draws from
    the stock (R4.3)."""
    passes = state.upcard_passes + 1
    if passes == 1:
        new = evolve(state, upcard_passes=passes, to_act=state.dealer, seq=state.seq + 1)
    else:
        new = evolve(
            state,
            upcard_passes=passes,
            phase=DRAW,
            to_act=state.non_dealer,
            stock_only=True,
            seq=state.seq + 1,
        )
    return new, (Event(PASS, action.seat, new.seq),)


def draw_stock(state: AnyState, action: Action) -> AnyStep:
    """R5: draw the top card of the stock (only the drawer sees it)."""
    card = state.stock[0]
    new = evolve(
        state,
        hands=hands_with(state, action.seat, with_card(state.hands[action.seat], card)),
        stock=state.stock[1:],
        phase=DISCARD,
        stock_only=False,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return new, (Event(DRAW_STOCK, action.seat, new.seq, card=card),)


def put_down(state: AnyState, action: Action, **changes) -> AnyStep:
    """R5: discard face up (``changes``: whose turn follows, set by the caller)."""
    seat, card = action.seat, action.card
    new = evolve(
        state,
        hands=hands_with(state, seat, without_card(state.hands[seat], card)),
        discard_pile=(*state.discard_pile, card),
        seq=state.seq + 1,
        **changes,
    )
    return new, (Event(DISCARD_CARD, seat, new.seq, card=card),)


def _discard(state: HandState, action: Action) -> Step:
    """R5: discard face up; then R7 when the stock is down to 2 cards."""
    new, events = put_down(
        state, action, phase=DRAW, to_act=other_seat(action.seat), taken_from_discard=None
    )
    if len(new.stock) > STOCK_FLOOR:
        return new, events
    if new.rules.stock_exhaustion == "void":
        return _end(new, VOID_OUTCOME, events)
    return reshuffle_stock(new, events)


def reshuffle_stock(state: AnyState, events: tuple[Event, ...]) -> AnyStep:
    """R7 option ``reshuffle`` (and R12's): the discard pile except its top card is shuffled
    (stream ``reshuffle-N`` of the seed) and put under the cards left in the stock."""
    count = state.reshuffles + 1
    reshuffled = shuffle(state.discard_pile[:-1], state.seed, f"reshuffle-{count}")
    new = evolve(
        state,
        stock=(*state.stock, *reshuffled),
        discard_pile=state.discard_pile[-1:],
        reshuffles=count,
    )
    event = Event(STOCK_RESHUFFLED, None, new.seq, stock_count=len(new.stock))
    return new, (*events, event)


def show_knock(state: AnyState, action: Action, shown: tuple[Card, ...]) -> AnyStep:
    """R6: the knock card is put down and ``shown`` (the rest) is the knocker's hand; the
    caller settles the showdown and ends the hand."""
    seat, card = action.seat, action.card
    new = evolve(
        state,
        hands=hands_with(state, seat, shown),
        knock_card=card,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return new, (Event(KNOCK, seat, new.seq, card=card),)


def declare_big_gin(state: AnyState, action: Action) -> AnyStep:
    """R6 Big Gin: declared without discarding; the caller settles and ends the hand."""
    new = evolve(state, taken_from_discard=None, seq=state.seq + 1)
    return new, (Event(BIG_GIN, action.seat, new.seq),)


def _knock(state: HandState, action: Action) -> Step:
    """R6: put one card down and show the other 10; R8/R9 settle the hand."""
    seat = action.seat
    shown = without_card(state.hands[seat], action.card)
    result = settle_knock(shown, state.hands[other_seat(seat)], state.rules)
    new, events = show_knock(state, action, shown)
    return _end(new, _outcome(seat, result), events)


def _big_gin(state: HandState, action: Action) -> Step:
    """R6 Big Gin: all 11 cards melded right after drawing, declared without discarding."""
    seat = action.seat
    result = settle_knock(state.hands[seat], state.hands[other_seat(seat)], state.rules)
    new, events = declare_big_gin(state, action)
    return _end(new, _outcome(seat, result), events)


def _outcome(knocker: int, result: KnockResult) -> HandOutcome:
    winner = {"knocker": knocker, "defender": other_seat(knocker), None: None}[result.winner]
    return HandOutcome(
        kind=result.kind, knocker=knocker, winner=winner, points=result.points, result=result
    )


def end_hand(
    state: AnyState,
    outcome: HandOutcome | MultiHandOutcome,
    events: tuple[Event, ...],
    seat: int | None,
) -> AnyStep:
    """The hand ends with ``outcome``; ``hand_ended`` (``seat``: whom it names) carries the
    outcome, every hand and the revealed seed."""
    new = evolve(state, phase=ENDED, to_act=None, outcome=outcome)
    ended = Event(HAND_ENDED, seat, new.seq, outcome=outcome, hands=new.hands, seed=new.seed)
    return new, (*events, ended)


def _end(state: HandState, outcome: HandOutcome, events: tuple[Event, ...]) -> Step:
    return end_hand(state, outcome, events, outcome.knocker)


_TRANSITIONS = {
    TAKE_UPCARD: take_upcard,
    PASS: _pass,
    DRAW_STOCK: draw_stock,
    DRAW_DISCARD: draw_discard,
    DISCARD_CARD: _discard,
    KNOCK: _knock,
    BIG_GIN: _big_gin,
}


def replay(
    *,
    seed: str,
    dealer: int,
    rules: RuleSet | None = None,
    actions: Iterable[Action | dict],
) -> HandState:
    """Deal from ``seed`` and apply ``actions`` in order (exact replay: docs/fairness.md)."""
    state = deal(seed=seed, dealer=dealer, rules=rules)
    for action in actions:
        move = action if isinstance(action, Action) else Action.from_dict(action)
        state, _ = apply(state, move)
    return state


def all_cards(state: HandState) -> tuple[Card, ...]:
    """Every card of the hand, wherever it is (hands, stock, discard pile, knock card)."""
    knock = () if state.knock_card is None else (state.knock_card,)
    return (*state.hands[0], *state.hands[1], *state.stock, *state.discard_pile, *knock)
