"""Building hand states for rule tests, and checking what a player view says of them."""

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from games.engine import (
    FULL_DECK,
    Card,
    HandState,
    RuleSet,
    deal,
    parse_card,
    parse_cards,
    sort_by_suit,
)
from tests.games.engine import brute_force


def state_with(
    hand0: str,
    hand1: str,
    *,
    discard: str = "",
    stock: str | None = None,
    phase: str = "draw",
    to_act: int = 0,
    dealer: int = 1,
    rules: RuleSet | None = None,
    **fields,
) -> HandState:
    """A hand in progress with the given cards; the stock is the rest of the deck in deck
    order unless given (then the rest goes to the discard pile, below ``discard``)."""
    hands = (sort_by_suit(parse_cards(hand0)), sort_by_suit(parse_cards(hand1)))
    pile = parse_cards(discard)
    used = {*hands[0], *hands[1], *pile}
    if stock is None:
        stock_cards = tuple(card for card in FULL_DECK if card not in used)
    else:
        stock_cards = parse_cards(stock)
        used |= set(stock_cards)
        pile = tuple(card for card in FULL_DECK if card not in used) + pile
    state = deal(seed="helper", dealer=dealer, rules=rules or RuleSet())
    return replace(
        state,
        hands=hands,
        stock=stock_cards,
        discard_pile=pile,
        phase=phase,
        to_act=to_act,
        **fields,
    )


def assert_own_arrangement(view: dict, minimum: Callable[[list[Card]], int]) -> None:
    """A player view's own arrangement (R2): every meld a real set or run of its kind, the
    melds, ``deadwood_cards`` and (11 cards only) ``best_discard`` splitting the hand
    exactly, the deadwood cards summing to ``deadwood``, which is ``minimum(hand)`` with 10
    cards and, with 11, the least ``minimum`` of the ten left after any discard the player may
    make (``best_discard`` is one)."""
    hand = [parse_card(text) for text in view["hand"]]
    melded = []
    for meld in view["melds"]:
        cards = [parse_card(text) for text in meld["cards"]]
        assert brute_force.is_meld(cards), meld
        assert meld["kind"] == ("set" if len({card.rank for card in cards}) == 1 else "run")
        melded += cards
    dead = [parse_card(text) for text in view["deadwood_cards"]]
    discard = [] if view["best_discard"] is None else [parse_card(view["best_discard"])]
    assert len(discard) == len(hand) - 10
    assert Counter(melded + dead + discard) == Counter(hand)  # each card exactly once
    assert sum(brute_force.value(card) for card in dead) == view["deadwood"]
    if not discard:
        assert view["deadwood"] == minimum(hand)
        return
    # 11 cards: the best of the discards the player may make (R5: never the card just taken
    # from the pile), and best_discard is one of them.
    allowed = [parse_card(a["card"]) for a in view["legal_actions"] if a["kind"] == "discard"]
    assert discard[0] in allowed
    assert view["deadwood"] == minimum([card for card in hand if card != discard[0]])
    assert view["deadwood"] == min(
        minimum([card for card in hand if card != choice]) for choice in allowed
    )


def assert_knock_deadwood(view: dict, minimum: Callable[[list[Card]], int]) -> None:
    """Each knock in a player view's legal actions carries the deadwood of the ten cards it
    would show (R6): ``minimum`` of the hand without the card, within the knock limit."""
    hand = [parse_card(text) for text in view["hand"]]
    for action in view["legal_actions"]:
        if action["kind"] != "knock":
            assert "deadwood" not in action, action
            continue
        card = parse_card(action["card"])
        assert action["deadwood"] == minimum([c for c in hand if c != card]), action
        assert action["deadwood"] <= view["rules"]["knock_limit"]
