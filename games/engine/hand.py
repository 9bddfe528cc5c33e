"""The hand state machine (R3-R7, R12): deal, upcard offer, draw, discard, going out, a low
stock and, with three or four seats, leaving mid-hand.

A :class:`~games.engine.state.HandState` is immutable; :func:`apply` returns the next state
and the events the action produced, or raises without changing anything. Seats are 0..n-1
for ``rules.seats`` players (2, 3 or 4), and play passes clockwise, seat + 1: with two seats
that is simply the other player. What the seat count changes (deal size, scoring, the
low-stock limit, leaving) is the table's :class:`~games.engine.rules.SeatRules`; every other
step is one rule for every seat count and is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from games.engine.cards import FULL_DECK, Card, card_text, cards_to_mask, sort_by_suit
from games.engine.errors import (
    EngineError,
    IllegalActionError,
    KnockOverLimitError,
    NotYourTurnError,
)
from games.engine.fairness import shuffle, shuffled_deck
from games.engine.going_out import settle_knock
from games.engine.rules import SEAT_COUNTS, RuleSet
from games.engine.showdown import settle_showdown
from games.engine.solver import min_deadwood_after_discard_mask, min_deadwood_mask
from games.engine.state import (
    ACTION_KINDS,
    BIG_GIN,
    CARD_ACTIONS,
    DISCARD,
    DISCARD_CARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    ENDED,
    FORFEIT,
    HAND_ENDED,
    KNOCK,
    PASS,
    STOCK_RESHUFFLED,
    TAKE_UPCARD,
    UPCARD_OFFER,
    Action,
    Event,
    HandOutcome,
    Hands,
    HandState,
    Step,
    check_seat,
    evolve,
    next_seat,
)

STOCK_FLOOR = 2  # R7: the stock is "exhausted" when 2 cards are left


def _seat_after(state: HandState, seat: int) -> int:
    return next_seat(seat, state.seats, state.out)


def deal(
    *, seed: str, dealer: int, rules: RuleSet | None = None, out: Iterable[int] = ()
) -> HandState:
    """R3, R12: shuffle from ``seed`` and deal each seat its hand (ten cards heads-up, seven
    with three or four seats) one card at a time, starting at the dealer's left (deck
    position k goes to seat dealer + 1 + k mod n); turn the next card up as the upcard; the
    rest is the stock. The upcard offer (R4) opens at the dealer's left.

    ``out`` (R12): seats that already forfeited the match. They are dealt to as usual, so the
    deal never depends on who left, and their cards are dead at once. The dealer must be in,
    and two seats at least. A heads-up hand has no such seats: a forfeit ended the match.
    """
    rules = RuleSet() if rules is None else rules
    table = rules.seat_rules
    seats = table.seats
    gone = tuple(out)
    if gone and not table.play_on_after_forfeit:
        raise EngineError("a heads-up hand has no forfeited seats: the match is over")
    dealer = check_seat(dealer, seats)
    gone = tuple(sorted({check_seat(seat, seats) for seat in gone}))
    if dealer in gone:
        raise EngineError(f"the dealer (seat {dealer}) has forfeited; deal from a seat still in")
    if seats - len(gone) < 2:
        raise EngineError("an R12 hand needs at least two seats still in")
    deck = shuffled_deck(seed)
    dealt = table.hand_size * seats
    hands = [
        sort_by_suit(deck[(seat - dealer - 1) % seats : dealt : seats]) for seat in range(seats)
    ]
    dead = sort_by_suit(card for seat in gone for card in hands[seat])
    for seat in gone:
        hands[seat] = ()
    return HandState(
        rules=rules,
        seed=seed,
        dealer=dealer,
        hands=tuple(hands),
        stock=deck[dealt + 1 :],
        discard_pile=(deck[dealt],),
        phase=UPCARD_OFFER,
        to_act=next_seat(dealer, seats, gone),
        out=gone,
        dead=dead,
    )


# Every possible Action, built once: legal_actions hands out these shared immutable objects.
_ACTIONS = {
    (kind, seat, card.index if kind in CARD_ACTIONS else -1): Action(
        kind, seat, card if kind in CARD_ACTIONS else None
    )
    for kind in ACTION_KINDS
    for seat in range(max(SEAT_COUNTS))
    for card in FULL_DECK
}


def _action(kind: str, seat: int, card: Card | None = None) -> Action:
    return _ACTIONS[kind, seat, -1 if card is None else card.index]


def legal_actions(state: HandState, seat: int) -> tuple[Action, ...]:
    """Every action ``seat`` may take now; empty when it is not that seat's turn.

    The actions the phase allows (``_phase_actions``, R4 and R5) that also meet the
    conditions of going out (R6): a knock is listed only when the cards it shows (10 of 11;
    R12: 7 of 8) have deadwood within the knock limit, Big Gin only when all the cards meld.
    For ``discard`` and ``knock`` there is one action per card.
    """
    candidates = _phase_actions(state, seat)
    if state.phase != DISCARD or not candidates:
        return candidates
    mask = cards_to_mask(state.hands[seat])
    if min_deadwood_after_discard_mask(mask) > state.rules.knock_limit:
        # R6: no card can be put down to knock (and so no 11 cards all meld either).
        return tuple(action for action in candidates if action.kind == DISCARD_CARD)
    return tuple(action for action in candidates if _going_out_allowed(state, action, mask))


def _phase_actions(state: HandState, seat: int) -> tuple[Action, ...]:
    """What the phase lets ``seat`` do, before R6's conditions on going out: the one
    definition of legality that ``legal_actions`` and ``apply`` share."""
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


def _going_out_allowed(state: HandState, action: Action, mask: int) -> bool:
    """R6: a knock shows the cards left within the knock limit; Big Gin melds them all."""
    if action.kind == KNOCK:
        return knock_deadwood(mask, _card_of(action)) <= state.rules.knock_limit
    if action.kind == BIG_GIN:
        return min_deadwood_mask(mask) == 0
    return True


def _card_of(action: Action) -> Card:
    """The card a ``discard`` or ``knock`` puts down (``_check_action`` saw that it has one)."""
    if action.card is None:  # pragma: no cover - legal card actions always carry their card
        raise IllegalActionError(f"{action.kind} needs a card")
    return action.card


def _putdown_cards(state: HandState, seat: int) -> tuple[Card, ...]:
    """R5: the cards that may be put down now (not the one just taken from the pile)."""
    taken = state.taken_from_discard
    if taken is None:
        return state.hands[seat]
    return tuple(card for card in state.hands[seat] if card.index != taken.index)


def apply(state: HandState, action: Action) -> Step:
    """Apply ``action``; return the new state and the events. Raises (changing nothing)
    :class:`NotYourTurnError`, :class:`KnockOverLimitError` or :class:`IllegalActionError`."""
    _check_action(state, action)
    return _TRANSITIONS[action.kind](state, action)


def _check_action(state: HandState, action: Action) -> None:
    """Raise, as :func:`apply` does, unless ``action`` may be applied to ``state`` now: it is
    one of ``_phase_actions`` and meets R6's conditions on going out, as ``legal_actions``
    says; a knock over the limit names its deadwood."""
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
    if action.kind not in (KNOCK, BIG_GIN):
        return
    mask = cards_to_mask(state.hands[action.seat])
    if _going_out_allowed(state, action, mask):
        return
    if action.kind == KNOCK:  # R6: refused, nothing changes
        deadwood = knock_deadwood(mask, _card_of(action))
        raise KnockOverLimitError(deadwood=deadwood, limit=state.rules.knock_limit)
    table = state.rules.seat_rules
    raise IllegalActionError(
        f"{action.kind} is not allowed: not all {table.held_after_drawing} cards meld"
        f" ({table.going_out_rule})",
        legal=legal_actions(state, action.seat),
    )


def _illegal_reason(state: HandState, action: Action) -> str:
    if action.kind not in ACTION_KINDS:
        return f"unknown action {action.kind!r}"
    table = state.rules.seat_rules
    taken = state.taken_from_discard
    if action.kind in CARD_ACTIONS and taken is not None and action.card == taken:
        return (
            f"{action.card} was just taken from the discard pile and may not be put down"
            f" ({table.turn_rule})"
        )
    if action.kind in CARD_ACTIONS and action.card not in state.hands[action.seat]:
        return f"{card_text(action.card)} is not in your hand"
    if action.kind == DRAW_DISCARD and state.stock_only:
        return table.all_passed
    return f"{action.kind} is not allowed in phase {state.phase}"


def _with_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return sort_by_suit((*hand, card))


def _without_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(held for held in hand if held.index != card.index)


def _hands_with(state: HandState, seat: int, hand: tuple[Card, ...]) -> Hands:
    """Every seat's hand as in ``state``, with ``seat`` now holding ``hand``."""
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def _take(state: HandState, action: Action, kind: str) -> Step:
    """Take the top of the discard pile (the upcard during the offer); it may not be put
    down this turn (R5), and the seat discards next (R4.4)."""
    card = state.discard_pile[-1]
    new = evolve(
        state,
        hands=_hands_with(state, action.seat, _with_card(state.hands[action.seat], card)),
        discard_pile=state.discard_pile[:-1],
        phase=DISCARD,
        taken_from_discard=card,
        seq=state.seq + 1,
    )
    return new, (Event(kind, action.seat, new.seq, card=card),)


def _take_upcard(state: HandState, action: Action) -> Step:
    """R4.1/R4.2: take the upcard, then discard (R4.4)."""
    return _take(state, action, TAKE_UPCARD)


def _draw_discard(state: HandState, action: Action) -> Step:
    """R5: take the top of the discard pile; it may not be discarded this turn."""
    return _take(state, action, DRAW_DISCARD)


def _offered_next(state: HandState, seat: int) -> int | None:
    """R4, R12: the next seat still in that has not yet been offered the upcard: the offer
    goes round from the dealer's left to the dealer (heads-up: the non-dealer, then the
    dealer). None once everybody has had it."""
    seats = state.seats
    position = (seat - state.dealer - 1) % seats
    for later in range(position + 1, seats):
        candidate = (state.dealer + 1 + later) % seats
        if candidate not in state.out:
            return candidate
    return None


def _after_offer(state: HandState, seat: int, **changes: Any) -> HandState:
    """The offer moves past ``seat``: to the next seat, or, when everybody passed, nobody may
    take the upcard and the seat left of the dealer draws from the stock (R4.3, R12)."""
    following = _offered_next(state, seat)
    if following is not None:
        return evolve(state, to_act=following, **changes)
    return evolve(
        state,
        phase=DRAW,
        to_act=_seat_after(state, state.dealer),
        stock_only=True,
        **changes,
    )


def _pass(state: HandState, action: Action) -> Step:
    """R4: pass on the upcard offer."""
    new = _after_offer(state, action.seat, upcard_passes=state.upcard_passes + 1, seq=state.seq + 1)
    return new, (Event(PASS, action.seat, new.seq),)


def _draw_stock(state: HandState, action: Action) -> Step:
    """R5: draw the top card of the stock (only the drawer sees it)."""
    card = state.stock[0]
    new = evolve(
        state,
        hands=_hands_with(state, action.seat, _with_card(state.hands[action.seat], card)),
        stock=state.stock[1:],
        phase=DISCARD,
        stock_only=False,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return new, (Event(DRAW_STOCK, action.seat, new.seq, card=card),)


# After a turn, the next seat draws (R5).
_TURN_PASSES = {"phase": DRAW, "taken_from_discard": None, "stock_only": False}


def _discard(state: HandState, action: Action) -> Step:
    """R5: discard face up; the next seat draws. Then the low stock (R7, R12)."""
    seat, card = action.seat, _card_of(action)
    new = evolve(
        state,
        hands=_hands_with(state, seat, _without_card(state.hands[seat], card)),
        discard_pile=(*state.discard_pile, card),
        seq=state.seq + 1,
        to_act=_seat_after(state, seat),
        **_TURN_PASSES,
    )
    return _low_stock(new, (Event(DISCARD_CARD, seat, new.seq, card=card),))


def _low_stock(state: HandState, events: tuple[Event, ...]) -> Step:
    """R7 (R12): once the turn has passed on with two cards or fewer left in the stock, the
    hand is void (option ``void``), or the discard pile except its top card is shuffled
    (stream ``reshuffle-N`` of the seed) and put under the cards left in the stock. With three
    or four seats only ``max_reshuffles`` times: the next low stock voids the hand."""
    if len(state.stock) > STOCK_FLOOR:
        return state, events
    rules = state.rules
    limit_reached = rules.seat_rules.reshuffles_limited and state.reshuffles >= rules.max_reshuffles
    if rules.stock_exhaustion == "void" or limit_reached:
        return _end(state, _void(state), events)
    count = state.reshuffles + 1
    reshuffled = shuffle(state.discard_pile[:-1], state.seed, f"reshuffle-{count}")
    new = evolve(
        state,
        stock=(*state.stock, *reshuffled),
        discard_pile=state.discard_pile[-1:],
        reshuffles=count,
    )
    events = (*events, Event(STOCK_RESHUFFLED, None, new.seq, stock_count=len(new.stock)))
    if not new.stock and not new.discard_pile:  # R12: nothing left to draw after forfeits
        return _end(new, _void(new), events)
    return new, events


def _void(state: HandState) -> HandOutcome:
    """R7: nobody scores (R12: every seat's penalty is 0)."""
    penalties = (0,) * state.seats if state.rules.seat_rules.penalty_scoring else ()
    return HandOutcome(kind="void", knocker=None, winner=None, penalties=penalties)


def _knock(state: HandState, action: Action) -> Step:
    """R6: put one card down and show the rest; R8, R9 (R12) settle the hand."""
    seat, card = action.seat, _card_of(action)
    shown = _without_card(state.hands[seat], card)
    outcome = _settle(state, seat, shown)
    new = evolve(
        state,
        hands=_hands_with(state, seat, shown),
        knock_card=card,
        taken_from_discard=None,
        seq=state.seq + 1,
    )
    return _end(new, outcome, (Event(KNOCK, seat, new.seq, card=card),))


def _big_gin(state: HandState, action: Action) -> Step:
    """R6 Big Gin: every card melded right after drawing, declared without discarding."""
    seat = action.seat
    outcome = _settle(state, seat, state.hands[seat])
    new = evolve(state, taken_from_discard=None, seq=state.seq + 1)
    return _end(new, outcome, (Event(BIG_GIN, seat, new.seq),))


def _settle(state: HandState, knocker: int, shown: tuple[Card, ...]) -> HandOutcome:
    """Show, lay off and score the hand ``knocker`` goes out of, showing ``shown``: R8 and
    R9 heads-up (the hand's winner scores points), R12's penalty points with three or four
    seats (each opponent answering on its own; a seat that forfeited is out of it)."""
    if state.rules.seat_rules.penalty_scoring:
        hands = tuple(
            shown if seat == knocker else (None if seat in state.out else state.hands[seat])
            for seat in range(state.seats)
        )
        showdown = settle_showdown(knocker=knocker, hands=hands, rules=state.rules)
        return HandOutcome(
            kind=showdown.kind,
            knocker=knocker,
            winner=showdown.winner,
            penalties=showdown.penalties,
            result=showdown,
        )
    defender = _seat_after(state, knocker)
    knock = settle_knock(shown, state.hands[defender], state.rules)
    winner = {"knocker": knocker, "defender": defender, None: None}[knock.winner]
    return HandOutcome(
        kind=knock.kind, knocker=knocker, winner=winner, points=knock.points, result=knock
    )


def _end(state: HandState, outcome: HandOutcome, events: tuple[Event, ...]) -> Step:
    """The hand ends with ``outcome``; ``hand_ended`` carries the outcome, every hand and the
    revealed seed, and names the knocker (or the last seat left after forfeits; None when
    void)."""
    seat = outcome.winner if outcome.kind == FORFEIT else outcome.knocker
    new = evolve(state, phase=ENDED, to_act=None, outcome=outcome)
    ended = Event(HAND_ENDED, seat, new.seq, outcome=outcome, hands=new.hands, seed=new.seed)
    return new, (*events, ended)


_TRANSITIONS: dict[str, Callable[[HandState, Action], Step]] = {
    TAKE_UPCARD: _take_upcard,
    PASS: _pass,
    DRAW_STOCK: _draw_stock,
    DRAW_DISCARD: _draw_discard,
    DISCARD_CARD: _discard,
    KNOCK: _knock,
    BIG_GIN: _big_gin,
}


def forfeit(state: HandState, seat: int) -> Step:
    """R12 "Leaving": ``seat`` leaves or times out mid-hand. Its cards become dead (out of
    play), its turns are skipped from now on; when one seat remains that seat wins the hand
    (outcome ``forfeit``, no penalties). A seat forfeiting on its turn passes the turn on:
    during the upcard offer as a pass would, otherwise to the next seat, who draws (the card
    it took from the discard pile, if any, goes dead with its hand). The games layer calls
    this, then ranks the seat last (``games.engine.match``). A heads-up forfeit ends the
    match instead (R10, ``forfeit_result``), so a two-seat hand is refused."""
    if not state.rules.seat_rules.play_on_after_forfeit:
        raise EngineError("a heads-up forfeit ends the match (R10): use forfeit_result")
    seat = check_seat(seat, state.seats)
    if state.phase == ENDED:
        raise IllegalActionError("the hand has ended", legal=())
    if seat in state.out:
        raise EngineError(f"seat {seat} has already forfeited")
    new = evolve(
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
        outcome = HandOutcome(
            kind="forfeit", knocker=None, winner=winner, penalties=(0,) * state.seats
        )
        return _end(evolve(new, taken_from_discard=None), outcome, events)
    if seat != state.to_act:
        return new, events
    if state.phase == UPCARD_OFFER:
        return _after_offer(new, seat), events
    if state.phase == DRAW:
        return evolve(new, to_act=_seat_after(new, seat)), events
    new = evolve(new, to_act=_seat_after(new, seat), **_TURN_PASSES)
    return _low_stock(new, events)


def replay(
    *,
    seed: str,
    dealer: int,
    rules: RuleSet | None = None,
    actions: Iterable[Action | Mapping[str, Any]],
    out: Iterable[int] = (),
) -> HandState:
    """Deal from ``seed`` and apply ``actions`` in order (exact replay: docs/fairness.md). An
    R12 forfeit mid-hand is replayed from a ``{"kind": "forfeit", "seat": n}`` entry (the
    hand's event log records it so)."""
    state = deal(seed=seed, dealer=dealer, rules=rules, out=out)
    for action in actions:
        if not isinstance(action, Action) and action.get("kind") == FORFEIT:
            state, _ = forfeit(state, action["seat"])
            continue
        move = action if isinstance(action, Action) else Action.from_dict(action)
        state, _ = apply(state, move)
    return state


def all_cards(state: HandState) -> tuple[Card, ...]:
    """Every card of the hand, wherever it is (hands, stock, pile, knock card, dead)."""
    knock = () if state.knock_card is None else (state.knock_card,)
    return (
        *(card for hand in state.hands for card in hand),
        *state.stock,
        *state.discard_pile,
        *knock,
        *state.dead,
    )
