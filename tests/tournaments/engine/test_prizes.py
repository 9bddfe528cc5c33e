"""R14 places and prizes: a round's losers share its places, the final ranks 1..k, the prizes
add up to the pool, a better place never gets less, sharers differ by one minor unit at most."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tournaments.engine.strategies import prize_tables
from tournaments.engine import (
    BPS,
    MAX_PAID_PLACES,
    PlaceGroup,
    check_prize_table,
    default_prize_table,
    place_shares,
    places_of_final,
    places_of_round,
    prize_amounts,
    satellite_prizes,
)

# --- places --------------------------------------------------------------------------------


def test_the_losers_of_a_round_share_its_places():
    semi_finals = places_of_round(eliminated=("c", "d"), still_in=2)
    assert semi_finals == PlaceGroup(first_place=3, players=("c", "d"))
    assert semi_finals.last_place == 4
    assert places_of_round(eliminated=("a", "b"), still_in=0).last_place == 2


def test_the_final_ranks_one_to_k_and_its_absent_players_share_the_places_after():
    assert places_of_final(ranking=("b", "a")) == (
        PlaceGroup(first_place=1, players=("b",)),
        PlaceGroup(first_place=2, players=("a",)),
    )
    assert places_of_final(ranking=("c",), absent=("a", "d")) == (
        PlaceGroup(first_place=1, players=("c",)),
        PlaceGroup(first_place=2, players=("a", "d")),
    )
    assert places_of_final(ranking=(), absent=("a", "b")) == (
        PlaceGroup(first_place=1, players=("a", "b")),
    )


@pytest.mark.parametrize(
    ("first_place", "players"), [(0, ("a",)), (True, ("a",)), (1, ()), (1, ("a", "a"))]
)
def test_a_place_group_is_checked(first_place, players):
    with pytest.raises(ValueError, match=r"places start at 1|one or more players"):
        PlaceGroup(first_place=first_place, players=players)


@pytest.mark.parametrize("still_in", [-1, 1.0, None])
def test_the_players_still_in_are_a_count(still_in):
    with pytest.raises(ValueError, match="a count"):
        places_of_round(eliminated=("a",), still_in=still_in)


# --- the default prize table ---------------------------------------------------------------


def test_the_default_table_pays_about_a_quarter_of_the_field_weighted_one_over_place():
    for entries in range(1, 8):
        assert default_prize_table(entries=entries) == (10_000,)
    assert default_prize_table(entries=8) == (6_667, 3_333)
    assert default_prize_table(entries=16) == (4_800, 2_400, 1_600, 1_200)
    assert default_prize_table(entries=19) == (4_800, 2_400, 1_600, 1_200)
    assert len(default_prize_table(entries=1_024)) == 256
    huge = default_prize_table(entries=10**6)
    assert len(huge) == MAX_PAID_PLACES and huge[-1] == 1


@given(entries=st.integers(min_value=1, max_value=6_000))
def test_the_default_table_is_a_valid_decreasing_table_with_every_paid_place_paid(entries):
    table = default_prize_table(entries=entries)
    assert check_prize_table(table) == table
    assert len(table) == min(max(1, entries // 4), MAX_PAID_PLACES)
    assert sum(table) == BPS and table[-1] >= 1


@pytest.mark.parametrize("entries", [0, -3, 2.0, True])
def test_the_default_table_needs_a_count_of_entries(entries):
    with pytest.raises(ValueError, match="one or more entries"):
        default_prize_table(entries=entries)


@pytest.mark.parametrize(
    "table", [(), (5_000, 5_000.0), (10_001, -1), (5_000, 4_000), (4_000, 6_000), (True,) * 2]
)
def test_a_prize_table_is_checked(table):
    with pytest.raises(ValueError, match="prize table"):
        check_prize_table(table)


# --- shares and amounts --------------------------------------------------------------------


def test_place_shares_floor_and_give_the_remainder_to_the_best_places():
    # Floors 501, 300, 200 of 1,003: the 2 units left go to 1st and 2nd.
    shares = place_shares(pool=1_003, table_bps=(5_000, 3_000, 2_000), entries=10)
    assert shares == (502, 301, 200, *[0] * 7)
    assert place_shares(pool=0, table_bps=(10_000,), entries=2) == (0, 0)


def test_fewer_entries_than_paid_places_renormalise_the_table_over_the_places_that_exist():
    # 50/30/20 with two entries: 50:30 of the pool, 625 and 375 of 1,000.
    assert place_shares(pool=1_000, table_bps=(5_000, 3_000, 2_000), entries=2) == (625, 375)
    assert place_shares(pool=1_001, table_bps=(5_000, 3_000, 2_000), entries=1) == (1_001,)


@pytest.mark.parametrize(("pool", "entries"), [(-1, 2), (1.5, 2), (True, 2), (10, 0), (10, 1.0)])
def test_a_pool_and_the_entries_are_checked(pool, entries):
    with pytest.raises(ValueError, match=r"prize pool|entries"):
        place_shares(pool=pool, table_bps=(10_000,), entries=entries)


def test_sharers_split_their_places_money_and_the_earlier_registration_takes_the_remainder():
    groups = [
        PlaceGroup(first_place=1, players=("w",)),
        PlaceGroup(first_place=2, players=("r",)),
        PlaceGroup(first_place=3, players=("x", "y")),
    ]
    # Floors 487, 243, 162, 121 of 1,015; the 2 units left go to 1st and 2nd: 488 and 244.
    # Places 3 and 4 make 283 between two: 142 to the earlier registration, 141.
    amounts = prize_amounts(
        pool=1_015, table_bps=(4_800, 2_400, 1_600, 1_200), entries=4, groups=groups
    )
    assert amounts == {"w": 488, "r": 244, "x": 142, "y": 141}
    # The same groups paid one at a time, as their places become final.
    later = prize_amounts(
        pool=1_015, table_bps=(4_800, 2_400, 1_600, 1_200), entries=4, groups=groups[2:]
    )
    assert later == {"x": 142, "y": 141}


def test_a_place_past_the_table_pays_nothing():
    groups = [PlaceGroup(first_place=5, players=("e", "f", "g", "h"))]
    assert prize_amounts(pool=800, table_bps=(10_000,), entries=8, groups=groups) == {
        "e": 0,
        "f": 0,
        "g": 0,
        "h": 0,
    }


@pytest.mark.parametrize(
    "groups",
    [
        [PlaceGroup(first_place=1, players=("a", "b")), PlaceGroup(first_place=2, players=("c",))],
        [PlaceGroup(first_place=3, players=("a", "b"))],
        [PlaceGroup(first_place=1, players=("a",)), PlaceGroup(first_place=2, players=("a",))],
    ],
)
def test_places_and_players_are_assigned_once_within_the_field(groups):
    with pytest.raises(ValueError, match=r"one group at most|one place group"):
        prize_amounts(pool=100, table_bps=(10_000,), entries=3, groups=groups)


@st.composite
def knockout_places(draw):
    """Places ``1 .. n`` cut into consecutive groups, players in registration order."""
    entries = draw(st.integers(min_value=1, max_value=80))
    cuts = sorted(
        cut for cut in draw(st.sets(st.integers(min_value=2, max_value=80))) if cut <= entries
    )
    starts = [1, *cuts]
    ends = [*cuts, entries + 1]
    groups = [
        PlaceGroup(first_place=start, players=tuple(range(start, end)))
        for start, end in zip(starts, ends, strict=True)
    ]
    return entries, groups


@given(
    pool=st.integers(min_value=0, max_value=10**12),
    table=prize_tables(),
    field=knockout_places(),
)
def test_prizes_add_up_to_the_pool_and_respect_the_places(pool, table, field):
    entries, groups = field
    amounts = prize_amounts(pool=pool, table_bps=table, entries=entries, groups=groups)
    assert sum(amounts.values()) == pool
    assert min(amounts.values()) >= 0
    for better, worse in itertools.pairwise(groups):
        assert min(amounts[p] for p in better.players) >= max(amounts[p] for p in worse.players)
    for group in groups:
        shares = [amounts[player] for player in group.players]
        assert max(shares) - min(shares) <= 1
        assert shares == sorted(shares, reverse=True)  # the remainder to earlier registrations
    # Paying each group as its places become final gives the same amounts.
    one_by_one = {}
    for group in reversed(groups):
        one_by_one |= prize_amounts(pool=pool, table_bps=table, entries=entries, groups=[group])
    assert one_by_one == amounts


def test_a_satellite_pays_tickets_to_the_best_places_and_the_rest_in_money() -> None:

    groups = [
        PlaceGroup(first_place=1, players=("A",)),
        PlaceGroup(first_place=2, players=("B",)),
        PlaceGroup(first_place=3, players=("C", "D")),
        PlaceGroup(first_place=5, players=("E", "F", "G", "H")),
    ]
    # 80.00 in the pool, tickets worth 22.00: three tickets and 14.00 in money for 4th.
    prizes = satellite_prizes(pool=8_000, ticket_value=2_200, entries=8, groups=groups)
    assert prizes["A"] == prizes["B"] == prizes["C"] == (True, 0)
    assert prizes["D"] == (False, 1_400)
    assert all(prizes[player] == (False, 0) for player in "EFGH")
    total = sum(2_200 * ticket + money for ticket, money in prizes.values())
    assert total == 8_000


@given(
    pool=st.integers(0, 10**7),
    value=st.integers(1, 10**6),
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=30),
)
def test_a_satellites_tickets_and_money_add_up_to_the_pool(pool, value, sizes) -> None:

    groups, first, players = [], 1, iter(range(10**6))
    for size in sizes:
        groups.append(
            PlaceGroup(first_place=first, players=tuple(next(players) for _ in range(size)))
        )
        first += size
    prizes = satellite_prizes(pool=pool, ticket_value=value, entries=first - 1, groups=groups)
    tickets = sum(ticket for ticket, _ in prizes.values())
    money = sum(cash for _, cash in prizes.values())
    assert tickets * value + money == pool
    assert tickets <= pool // value and tickets < first - 1
