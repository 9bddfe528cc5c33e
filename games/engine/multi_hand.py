"""The R12 hand state machine: three or four seats, seven cards each.

Same shape as :mod:`games.engine.hand` (the heads-up game): a frozen
:class:`MultiHandState`, :func:`deal`, :func:`legal_actions`, :func:`apply` (same errors),
:func:`replay`, plus :func:`forfeit` for a seat that leaves mid-hand. The legality checks and
the transitions that do not depend on the seat count are the heads-up module's, written over
the fields both states share; this module holds what R12 changes (the deal, the upcard round,
turn order, the low stock, the showdown, forfeits). Actions and events are
the heads-up :class:`~games.engine.hand.Action` and :class:`~games.engine.hand.Event`, with one
more event kind, ``forfeit``. Seats are 0..n-1; play passes clockwise (seat + 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from games.engine.cards import Card, sort_by_suit
from games.engine.errors import EngineError, IllegalActionError
from games.engine.fairness import shuffled_deck
from games.engine.hand import (
    ACTION_KINDS,
    BIG_GIN,
    DISCARD_CARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    ENDED,
    HAND_ENDED,
    KNOCK,
    PASS,
    STOCK_FLOOR,
    STOCK_RESHUFFLED,
    TAKE_UPCARD,
    UPCARD_OFFER,
    Action,
    Event,
    Wording,
    check_action,
    declare_big_gin,
    draw_discard,
    draw_stock,
    end_hand,
    evolve,
    hands_with,
    put_down,
    reshuffle_stock,
    show_knock,
    take_upcard,
    without_card,
)

# R12 lists its legal actions and a knock's deadwood exactly as heads-up does (7 cards
# shown of 8): the heads-up functions, re-exported under their names.
from games.engine.hand import knock_deadwood as knock_deadwood
from games.engine.hand import legal_actions as legal_actions
from games.engine.rules import RuleSet
from games.engine.showdown import R12_HAND_SIZE, ShowdownResult, settle_showdown

FORFEIT = "forfeit"  # R12 "Leaving": an event, not an action a seat plays
MULTI_EVENT_KINDS = (*ACTION_KINDS, STOCK_RESHUFFLED, FORFEIT, HAND_ENDED)

MultiOutcomeKind = Literal["knock", "gin", "big_gin", "undercut", "void", "forfeit"]


@dataclass(frozen=True, slots=True)
class MultiHandOutcome:
    """How an R12 hand ended. ``winner`` is the hand's winner (knocker or undercutter; the
    last seat left after forfeits; None when void). ``penalties``: points against, per seat
    (all 0 for a void or forfeit ending). ``result`` is the showdown (None: void, forfeit)."""

    kind: MultiOutcomeKind
    knocker: int | None
    winner: int | None
    penalties: tuple[int, ...]
    result: ShowdownResult | None = None

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            "penalties": list(self.penalties),
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> MultiHandOutcome:
        result = data.get("result")
        return cls(
            kind=data["kind"],
            knocker=data["knocker"],
            winner=data["winner"],
            penalties=tuple(data["penalties"]),
            result=None if result is None else ShowdownResult.from_dict(result),
        )


@dataclass(frozen=True, slots=True)
class MultiHandState:
    """Everything about one R12 hand (``rules.seats`` seats). As in the heads-up
    :class:`~games.engine.hand.HandState`: ``stock[0]`` is drawn next, ``discard_pile[-1]`` is
    the top, hands are in suit order. ``upcard_passes`` counts passes on the upcard offer;
    ``stock_only`` is set after everybody passed; ``out`` lists the seats that forfeited, in
    order, and ``dead`` their cards (out of play, R12); ``reshuffles`` counts R12 reshuffles.
    """

    rules: RuleSet
    seed: str
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
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
    outcome: MultiHandOutcome | None = None

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def upcard(self) -> Card | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        return self.phase == ENDED

    @property
    def active(self) -> tuple[int, ...]:
        """The seats still in the hand, in seat order."""
        return tuple(seat for seat in range(self.seats) if seat not in self.out)


Step = tuple[MultiHandState, tuple[Event, ...]]

# The checks of an action are the heads-up ones (games.engine.hand.check_action, which also
# serves legal_actions and knock_deadwood as they are): only the rule book's wording differs.
R12_WORDING = Wording(
    held=R12_HAND_SIZE + 1,
    going_out_rule="R12",
    taken_rule="R12",
    all_passed="everybody passed the upcard: draw from the stock (R12)",
)


def _check_multi_rules(rules: RuleSet | None) -> RuleSet:
    if rules is None or not rules.is_multi:
        raise EngineError("an R12 hand needs RuleSet(seats=3) or RuleSet(seats=4)")
    return rules


def check_multi_seat(seat: object, seats: int) -> int:
    """``seat`` if it is a seat of an R12 table (0..seats-1), else :class:`EngineError`."""
    if type(seat) is not int or not 0 <= seat < seats:
        raise EngineError(f"a seat is 0..{seats - 1}, got {seat!r}")
    return seat


def next_active(state: MultiHandState, seat: int) -> int:
    """R12: the next seat clockwise (seat + 1) that is still in the hand."""
    seats = state.seats
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if candidate not in state.out:
            return candidate
    raise EngineError("no seat is left in the hand")  # pragma: no cover - guarded by callers


def deal(*, seed: str, dealer: int, rules: RuleSet, out: Iterable[int] = ()) -> MultiHandState:
    """R12 deal: shuffle from ``seed`` exactly as the heads-up deal does; 7 cards each, one at
    a time starting at the dealer's left (deck position k goes to seat dealer + 1 + k mod n);
    position 7n is the upcard; the rest is the stock. The upcard offer opens at the dealer's
    left.

    ``out``: seats that already forfeited the match (R12): they are dealt to as usual, so the
    deal never depends on who left, and their cards are dead at once. The dealer must be in.
    """
    rules = _check_multi_rules(rules)
    seats = rules.seats
    dealer = check_multi_seat(dealer, seats)
    gone = tuple(sorted({check_multi_seat(seat, seats) for seat in out}))
    if dealer in gone:
        raise EngineError(f"the dealer (seat {dealer}) has forfeited; deal from a seat still in")
    if seats - len(gone) < 2:
        raise EngineError("an R12 hand needs at least two seats still in")
    deck = shuffled_deck(seed)
    dealt = R12_HAND_SIZE * seats
    hands = [
        sort_by_suit(deck[(seat - dealer - 1) % seats : dealt : seats]) for seat in range(seats)
    ]
    dead = sort_by_suit(card for seat in gone for card in hands[seat])
    for seat in gone:
        hands[seat] = ()
    state = MultiHandState(
        rules=rules,
        seed=seed,
        dealer=dealer,
        hands=tuple(hands),
        stock=deck[dealt + 1 :],
        discard_pile=(deck[dealt],),
        phase=UPCARD_OFFER,
        to_act=None,
        out=gone,
        dead=dead,
    )
    return evolve(state, to_act=next_active(state, dealer))


def apply(state: MultiHandState, action: Action) -> Step:
    """Apply ``action``; return the new state and its events. Raises, changing nothing, the
    heads-up errors: :class:`NotYourTurnError`, :class:`KnockOverLimitError`,
    :class:`IllegalActionError`."""
    check_action(state, action, R12_WORDING)
    return _TRANSITIONS[action.kind](state, action)


def _offer_passes_on(state: MultiHandState, seat: int) -> int | None:
    """R12 upcard offer: the next seat still in that has not yet been offered the upcard
    this round (the round runs from the dealer's left to the dealer), or None when done."""
    seats = state.seats
    position = (seat - state.dealer - 1) % seats
    for later in range(position + 1, seats):
        candidate = (state.dealer + 1 + later) % seats
        if candidate not in state.out:
            return candidate
    return None


def _after_offer(state: MultiHandState, seat: int, **changes) -> MultiHandState:
    """The offer moves past ``seat``: to the next seat, or, when everybody passed, the seat
    left of the dealer draws from the stock (R12)."""
    following = _offer_passes_on(state, seat)
    if following is not None:
        return evolve(state, to_act=following, **changes)
    return evolve(
        state,
        phase=DRAW,
        to_act=next_active(state, state.dealer),
        stock_only=True,
        **changes,
    )


def _pass(state: MultiHandState, action: Action) -> Step:
    new = _after_offer(state, action.seat, upcard_passes=state.upcard_passes + 1, seq=state.seq + 1)
    return new, (Event(PASS, action.seat, new.seq),)


def _discard(state: MultiHandState, action: Action) -> Step:
    new, events = put_down(state, action)
    return _hand_over(new, action.seat, events)


def _hand_over(state: MultiHandState, seat: int, events: tuple[Event, ...]) -> Step:
    """The turn passes from ``seat`` to the next seat still in, who draws; then R12's low
    stock: with 2 cards or fewer left, reshuffle (up to ``max_reshuffles`` times) or void."""
    new = evolve(
        state,
        phase=DRAW,
        to_act=next_active(state, seat),
        taken_from_discard=None,
        stock_only=False,
    )
    if len(new.stock) > STOCK_FLOOR:
        return new, events
    rules = new.rules
    if rules.stock_exhaustion == "void" or new.reshuffles >= rules.max_reshuffles:
        return _end(new, _void(new), events)
    return _reshuffle(new, events)


def _reshuffle(state: MultiHandState, events: tuple[Event, ...]) -> Step:
    """R12 reshuffle: as R7's (``reshuffle-N`` of the hand's fair stream, under the cards left
    in the stock); a hand with nothing left to draw (after forfeits) is void."""
    new, events = reshuffle_stock(state, events)
    if not new.stock and not new.discard_pile:  # nothing left to draw (after forfeits)
        return _end(new, _void(new), events)
    return new, events


def _void(state: MultiHandState) -> MultiHandOutcome:
    return MultiHandOutcome(kind="void", knocker=None, winner=None, penalties=(0,) * state.seats)


def _showdown_hands(state: MultiHandState, knocker_cards: tuple[Card, ...], knocker: int):
    return tuple(
        knocker_cards if seat == knocker else (None if seat in state.out else state.hands[seat])
        for seat in range(state.seats)
    )


def _knock(state: MultiHandState, action: Action) -> Step:
    """R12: put one card down, show the other 7; the showdown settles the hand."""
    seat = action.seat
    shown = without_card(state.hands[seat], action.card)
    result = settle_showdown(
        knocker=seat, hands=_showdown_hands(state, shown, seat), rules=state.rules
    )
    new, events = show_knock(state, action, shown)
    return _end(new, _outcome(result), events)


def _big_gin(state: MultiHandState, action: Action) -> Step:
    seat = action.seat
    result = settle_showdown(
        knocker=seat, hands=_showdown_hands(state, state.hands[seat], seat), rules=state.rules
    )
    new, events = declare_big_gin(state, action)
    return _end(new, _outcome(result), events)


def _outcome(result: ShowdownResult) -> MultiHandOutcome:
    return MultiHandOutcome(
        kind=result.kind,
        knocker=result.knocker,
        winner=result.winner,
        penalties=result.penalties,
        result=result,
    )


def _end(state: MultiHandState, outcome: MultiHandOutcome, events: tuple[Event, ...]) -> Step:
    # The event's seat: the knocker, or the last seat left after forfeits (None when void).
    seat = outcome.winner if outcome.kind == FORFEIT else outcome.knocker
    return end_hand(state, outcome, events, seat)


def forfeit(state: MultiHandState, seat: int) -> Step:
    """R12 "Leaving": ``seat`` leaves or times out mid-hand. Its cards become dead (out of
    play), its turns are skipped from now on; when one seat remains that seat wins the hand
    (outcome ``forfeit``, no penalties). A seat forfeiting on its turn passes the turn on:
    during the upcard offer as a pass would, otherwise to the next seat, who draws (the card
    it took from the discard pile, if any, goes dead with its hand). The games layer calls
    this, then ranks the seat last (``games.engine.multi_match``)."""
    seat = check_multi_seat(seat, state.seats)
    if state.phase == ENDED:
        raise IllegalActionError("the hand has ended", legal=())
    if seat in state.out:
        raise EngineError(f"seat {seat} has already forfeited")
    new = evolve(
        state,
        hands=hands_with(state, seat, ()),
        out=(*state.out, seat),
        dead=sort_by_suit((*state.dead, *state.hands[seat])),
        seq=state.seq + 1,
    )
    events = (Event(FORFEIT, seat, new.seq),)
    remaining = new.active
    if len(remaining) == 1:
        (winner,) = remaining
        outcome = MultiHandOutcome(
            kind="forfeit", knocker=None, winner=winner, penalties=(0,) * state.seats
        )
        return _end(evolve(new, taken_from_discard=None), outcome, events)
    if seat != state.to_act:
        return new, events
    if state.phase == UPCARD_OFFER:
        return _after_offer(new, seat), events
    if state.phase == DRAW:
        return evolve(new, to_act=next_active(new, seat)), events
    return _hand_over(new, seat, events)


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
    rules: RuleSet,
    actions: Iterable[Action | dict],
    out: Iterable[int] = (),
) -> MultiHandState:
    """Deal from ``seed`` and apply ``actions`` in order. A forfeit mid-hand is replayed from
    a ``{"kind": "forfeit", "seat": n}`` entry (the hand's event log records it so)."""
    state = deal(seed=seed, dealer=dealer, rules=rules, out=out)
    for action in actions:
        if isinstance(action, dict) and action.get("kind") == FORFEIT:
            state, _ = forfeit(state, action["seat"])
            continue
        move = action if isinstance(action, Action) else Action.from_dict(action)
        state, _ = apply(state, move)
    return state


def all_cards(state: MultiHandState) -> tuple[Card, ...]:
    """Every card of the hand, wherever it is (hands, stock, pile, knock card, dead)."""
    knock = () if state.knock_card is None else (state.knock_card,)
    return (
        *(card for hand in state.hands for card in hand),
        *state.stock,
        *state.discard_pile,
        *knock,
        *state.dead,
    )
