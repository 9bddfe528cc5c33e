"""Hypothesis strategies for hands: random and dense (5-6 rank window) ones."""

from hypothesis import strategies as st

from games.engine import FULL_DECK, Card


def random_hands(size: int = 10):
    return st.lists(st.sampled_from(FULL_DECK), min_size=size, max_size=size, unique=True)


@st.composite
def dense_hands(draw, size: int = 10):
    """``size`` cards drawn from a window of 5 or 6 consecutive ranks (many melds overlap)."""
    width = draw(st.sampled_from([5, 6]))
    low = draw(st.integers(min_value=1, max_value=14 - width))
    pool = [Card(rank, suit) for suit in "SHDC" for rank in range(low, low + width)]
    return draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))


def hands(size: int = 10):
    return st.one_of(random_hands(size), dense_hands(size))


@st.composite
def two_hands(draw):
    """A knocker's 10 cards and a defender's 10 cards, dense so lay-offs are common."""
    width = draw(st.sampled_from([5, 6, 7]))
    low = draw(st.integers(min_value=1, max_value=14 - width))
    pool = [Card(rank, suit) for suit in "SHDC" for rank in range(low, low + width)]
    extra = [card for card in FULL_DECK if card not in pool]
    cards = draw(st.permutations(pool))[:20]
    if len(cards) < 20:
        cards += draw(st.permutations(extra))[: 20 - len(cards)]
    return tuple(cards[:10]), tuple(cards[10:20])
