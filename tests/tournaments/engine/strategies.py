"""Hypothesis strategies for tournaments: fields of entries, formats, prize tables."""

from hypothesis import strategies as st


def fields(min_size: int = 0, max_size: int = 300):
    """Entries in order of registration: distinct ids, in no particular order."""
    return st.lists(
        st.integers(min_value=1, max_value=10**6), min_size=min_size, max_size=max_size, unique=True
    )


@st.composite
def formats(draw):
    """``(seats, advance)``: 2, 3 or 4 seats, each table sending on 1 to seats - 1 players."""
    seats = draw(st.sampled_from((2, 3, 4)))
    return seats, draw(st.integers(min_value=1, max_value=seats - 1))


@st.composite
def prize_tables(draw, max_places: int = 40):
    """A prize table: basis points per place, best first, never increasing, adding up to
    10,000 (the last places may be worth 0)."""
    places = draw(st.integers(min_value=1, max_value=max_places))
    cuts = sorted(draw(st.lists(st.integers(0, 10_000), min_size=places - 1, max_size=places - 1)))
    parts = [high - low for low, high in zip([0, *cuts], [*cuts, 10_000], strict=True)]
    return tuple(sorted(parts, reverse=True))
