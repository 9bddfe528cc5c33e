"""Building hand states for rule tests."""

from dataclasses import replace

from games.engine import FULL_DECK, HandState, RuleSet, deal, parse_cards, sort_by_suit


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
