"""The R12 hand state machine: three or four seats, seven cards each.

Same shape as :mod:`games.engine.hand` (the heads-up game, untouched): a frozen
:class:`MultiHandState`, :func:`deal`, :func:`legal_actions`, :func:`apply` (same errors),
:func:`replay`, plus :func:`forfeit` for a seat that leaves mid-hand. Actions and events are
the heads-up :class:`~games.engine.hand.Action` and :class:`~games.engine.hand.Event`, with one
more event kind, ``forfeit``. Seats are 0..n-1; play passes clockwise (seat + 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Literal

from games.engine.cards import Card, cards_to_mask, sort_by_suit
from games.engine.errors import (
    EngineError,
    IllegalActionError,
    KnockOverLimitError,
    NotYourTurnError,
)
from games.engine.fairness import shuffle, shuffled_deck
from games.engine.hand import (
    ACTION_KINDS,
    BIG_GIN,
    CARD_ACTIONS,
    DISCARD,
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
)
from games.engine.rules import RuleSet
from games.engine.showdown import R12_HAND_SIZE, ShowdownResult, settle_showdown
from games.engine.solver import min_deadwood_after_discard_mask, min_deadwood_mask

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


_FIELDS = tuple(field.name for field in fields(MultiHandState))
_VALUES = attrgetter(*_FIELDS)
Step = tuple[MultiHandState, tuple[Event, ...]]


def _evolve(state: MultiHandState, **changes) -> MultiHandState:
    values = dict(zip(_FIELDS, _VALUES(state), strict=True))
    values.update(changes)
    return MultiHandState(**values)


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
    return _evolve(state, to_act=next_active(state, dealer))


def legal_actions(state: MultiHandState, seat: int) -> tuple[Action, ...]:
    """Every action ``seat`` may take now (empty when it is not that seat's turn): the
    phase's actions (R12 upcard offer, R5 with 7 cards) that meet R6's conditions with 7
    cards (a knock shows 7 within the knock limit; Big Gin melds all 8)."""
    candidates = _phase_actions(state, seat)
    if state.phase != DISCARD or not candidates:
        return candidates
    mask = cards_to_mask(state.hands[seat])
    if min_deadwood_after_discard_mask(mask) > state.rules.knock_limit:
        return tuple(action for action in candidates if action.kind == DISCARD_CARD)
    return tuple(action for action in candidates if _going_out_allowed(state, action, mask))


def _phase_actions(state: MultiHandState, seat: int) -> tuple[Action, ...]:
    if state.phase == ENDED or seat != state.to_act:
        return ()
    if state.phase == UPCARD_OFFER:
        return (Action(TAKE_UPCARD, seat), Action(PASS, seat))
    if state.phase == DRAW:
        actions = [Action(DRAW_STOCK, seat)] if state.stock else []
        if state.discard_pile and not state.stock_only:
            actions.append(Action(DRAW_DISCARD, seat))
        return tuple(actions)
    taken = state.taken_from_discard
    cards = tuple(card for card in state.hands[seat] if taken is None or card != taken)
    return (
        *(Action(DISCARD_CARD, seat, card) for card in cards),
        *(Action(KNOCK, seat, card) for card in cards),
        Action(BIG_GIN, seat),
    )


def knock_deadwood(mask: int, card: Card) -> int:
    """R12: the deadwood of the 7 cards shown when knocking from the 8 in ``mask``."""
    return min_deadwood_mask(mask ^ 1 << card.index)


def _going_out_allowed(state: MultiHandState, action: Action, mask: int) -> bool:
    if action.kind == KNOCK:
        return knock_deadwood(mask, action.card) <= state.rules.knock_limit
    if action.kind == BIG_GIN:
        return min_deadwood_mask(mask) == 0
    return True


def apply(state: MultiHandState, action: Action) -> Step:
    """Apply ``action``; return the new state and its events. Raises, changing nothing, the
    heads-up errors: :class:`NotYourTurnError`, :class:`KnockOverLimitError`,
    :class:`IllegalActionError`."""
    if not isinstance(action, Action):
        raise IllegalActionError(f"not an Action: {action!r}")
    if state.phase == ENDED:
        raise IllegalActionError("the hand has ended", legal=())
    if action.seat != state.to_act:
        raise NotYourTurnError(action.seat, state.to_act)
    if action not in _phase_actions(state, action.seat):
        raise IllegalActionError(
            _illegal_reason(state, action), legal=legal_actions(state, action.seat)
        )
    if action.kind in (KNOCK, BIG_GIN):
        mask = cards_to_mask(state.hands[action.seat])
        if not _going_out_allowed(state, action, mask):
            if action.kind == KNOCK:
                raise KnockOverLimitError(
                    deadwood=knock_deadwood(mask, action.card), limit=state.rules.knock_limit
                )
            raise IllegalActionError(
                "big_gin is not allowed: not all 8 cards meld (R12)",
                legal=legal_actions(state, action.seat),
            )
    return _TRANSITIONS[action.kind](state, action)


def _illegal_reason(state: MultiHandState, action: Action) -> str:
    if action.kind not in ACTION_KINDS:
        return f"unknown action {action.kind!r}"
    taken = state.taken_from_discard
    if action.kind in CARD_ACTIONS and taken is not None and action.card == taken:
        return f"{action.card} was just taken from the discard pile and may not be put down (R12)"
    if action.kind in CARD_ACTIONS and action.card not in state.hands[action.seat]:
        return f"{action.card} is not in your hand"
    if action.kind == DRAW_DISCARD and state.stock_only:
        return "everybody passed the upcard: draw from the stock (R12)"
    return f"{action.kind} is not allowed in phase {state.phase}"


def _hands_with(state: MultiHandState, seat: int, hand: tuple[Card, ...]):
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def _with_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return sort_by_suit((*hand, card))


def _without_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(held for held in hand if held.index != card.index)


def _take(state: MultiHandState, action: Action, kind: str) -> Step:
    """R12: take the upcard (offer) or the top of the discard pile (a turn); either way it
    may not be put down this turn."""
    card = state.discard_pile[-1]
    new = _evolve(
        state,
        hands=_hands_with(state, action.seat, _with_card(state.hands[action.seat], card)),
        discard_pile=state.discard_pile[:-1],
        phase=DISCARD,
        taken_from_discard=card,
        seq=state.seq + 1,
    )
    return new, (Event(kind, action.seat, new.seq, card=card),)


def _take_upcard(state: MultiHandState, action: Action) -> Step:
    return _take(state, action, TAKE_UPCARD)


def _draw_discard(state: MultiHandState, action: Action) -> Step:
    return _take(state, action, DRAW_DISCARD)


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
        return _evolve(state, to_act=following, **changes)
    return _evolve(
        state,
        phase=DRAW,
        to_act=next_active(state, state.dealer),
        stock_only=True,
        **changes,
    )


def _pass(state: MultiHandState, action: Action) -> Step:
    new = _after_offer(state, action.seat, upcard_passes=state.upcard_passes + 1, seq=state.seq + 1)
    return new, (Event(PASS, action.seat, new.seq),)


def _draw_stock(state: MultiHandState, action: Action) -> Step:
    card = state.stock[0]
    new = _evolve(
        state,
        hands=_hands_with(state, action.seat, _with_card(state.hands[action.seat], card)),
        stock=state.stock[1:],
        phase=DISCARD,
        stock_only=False,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return new, (Event(DRAW_STOCK, action.seat, new.seq, card=card),)


def _discard(state: MultiHandState, action: Action) -> Step:
    seat, card = action.seat, action.card
    new = _evolve(
        state,
        hands=_hands_with(state, seat, _without_card(state.hands[seat], card)),
        discard_pile=(*state.discard_pile, card),
        seq=state.seq + 1,
    )
    return _hand_over(new, seat, (Event(DISCARD_CARD, seat, new.seq, card=card),))


def _hand_over(state: MultiHandState, seat: int, events: tuple[Event, ...]) -> Step:
    """The turn passes from ``seat`` to the next seat still in, who draws; then R12's low
    stock: with 2 cards or fewer left, reshuffle (up to ``max_reshuffles`` times) or void."""
    new = _evolve(
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
    """R12 reshuffle: the discard pile except its top card is shuffled from the hand's fair
    stream (label ``reshuffle-N``, as in R7) and placed under the cards left in the stock."""
    count = state.reshuffles + 1
    reshuffled = shuffle(state.discard_pile[:-1], state.seed, f"reshuffle-{count}")
    new = _evolve(
        state,
        stock=(*state.stock, *reshuffled),
        discard_pile=state.discard_pile[-1:],
        reshuffles=count,
    )
    event = Event(STOCK_RESHUFFLED, None, new.seq, stock_count=len(new.stock))
    if not new.stock and not new.discard_pile:  # nothing left to draw (after forfeits)
        return _end(new, _void(new), (*events, event))
    return new, (*events, event)


def _void(state: MultiHandState) -> MultiHandOutcome:
    return MultiHandOutcome(kind="void", knocker=None, winner=None, penalties=(0,) * state.seats)


def _showdown_hands(state: MultiHandState, knocker_cards: tuple[Card, ...], knocker: int):
    return tuple(
        knocker_cards if seat == knocker else (None if seat in state.out else state.hands[seat])
        for seat in range(state.seats)
    )


def _knock(state: MultiHandState, action: Action) -> Step:
    """R12: put one card down, show the other 7; the showdown settles the hand."""
    seat, card = action.seat, action.card
    shown = _without_card(state.hands[seat], card)
    result = settle_showdown(
        knocker=seat, hands=_showdown_hands(state, shown, seat), rules=state.rules
    )
    new = _evolve(
        state,
        hands=_hands_with(state, seat, shown),
        knock_card=card,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return _end(new, _outcome(result), (Event(KNOCK, seat, new.seq, card=card),))


def _big_gin(state: MultiHandState, action: Action) -> Step:
    seat = action.seat
    result = settle_showdown(
        knocker=seat, hands=_showdown_hands(state, state.hands[seat], seat), rules=state.rules
    )
    new = _evolve(state, taken_from_discard=None, seq=state.seq + 1)
    return _end(new, _outcome(result), (Event(BIG_GIN, seat, new.seq),))


def _outcome(result: ShowdownResult) -> MultiHandOutcome:
    return MultiHandOutcome(
        kind=result.kind,
        knocker=result.knocker,
        winner=result.winner,
        penalties=result.penalties,
        result=result,
    )


def _end(state: MultiHandState, outcome: MultiHandOutcome, events: tuple[Event, ...]) -> Step:
    new = _evolve(state, phase=ENDED, to_act=None, outcome=outcome)
    # The event's seat: the knocker, or the last seat left after forfeits (None when void).
    seat = outcome.winner if outcome.kind == FORFEIT else outcome.knocker
    ended = Event(HAND_ENDED, seat, new.seq, outcome=outcome, hands=new.hands, seed=new.seed)
    return new, (*events, ended)


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
    new = _evolve(
        state,
        hands=_hands_with(state, seat, ()),
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
        return _end(_evolve(new, taken_from_discard=None), outcome, events)
    if seat != state.to_act:
        return new, events
    if state.phase == UPCARD_OFFER:
        return _after_offer(new, seat), events
    if state.phase == DRAW:
        return _evolve(new, to_act=next_active(new, seat)), events
    return _hand_over(new, seat, events)


_TRANSITIONS = {
    TAKE_UPCARD: _take_upcard,
    PASS: _pass,
    DRAW_STOCK: _draw_stock,
    DRAW_DISCARD: _draw_discard,
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
