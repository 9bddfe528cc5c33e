"""R14 a knockout round: tables dealt consecutively in draw order, sizes within one of each
other, the fewest byes, never a second bye while somebody has had none, the final."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tournaments.engine.strategies import formats
from tournaments.engine import (
    RoundPlan,
    bye_count,
    check_format,
    plan_round,
    ranking_by_draw,
    table_sizes,
)

DRAW = tuple("abcdefghijk")


def test_heads_up_with_an_even_field_pairs_the_draw_in_order():
    plan = plan_round(players=DRAW[:8], seats=2, advance=1)
    assert plan == RoundPlan(
        tables=(("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")), byes=(), final=False
    )


def test_heads_up_with_an_odd_field_gives_the_first_of_the_draw_a_bye():
    plan = plan_round(players=DRAW[:5], seats=2, advance=1)
    assert plan.byes == ("a",)
    assert plan.tables == (("b", "c"), ("d", "e"))
    assert plan.players == ("b", "c", "d", "e", "a")


def test_a_bye_goes_to_the_first_of_the_draw_who_has_had_none():
    plan = plan_round(players=DRAW[:5], seats=2, advance=1, had_bye={"a", "b"})
    assert plan.byes == ("c",)
    assert plan.tables == (("a", "b"), ("d", "e"))  # consecutive among the others


def test_when_everybody_has_had_a_bye_the_first_of_the_draw_has_the_next():
    plan = plan_round(players=DRAW[:3], seats=2, advance=1, had_bye=set(DRAW[:3]))
    assert plan == RoundPlan(tables=(("b", "c"),), byes=("a",), final=False)


def test_several_byes_go_first_to_those_without_one_then_in_draw_order():
    # Three seats sending two on: only full tables are played, so 5 players leave 2 byes.
    plan = plan_round(players=DRAW[:5], seats=3, advance=2, had_bye={"a", "c", "d", "e"})
    assert plan.byes == ("a", "b")  # b had none; then a, the first of those who had one
    assert plan.tables == (("c", "d", "e"),)


def test_three_and_four_seat_tables_are_as_equal_as_possible_larger_first():
    plan = plan_round(players=DRAW[:11], seats=4, advance=1)
    assert plan.tables == (tuple("abcd"), tuple("efgh"), tuple("ijk"))
    plan = plan_round(players=DRAW[:10], seats=4, advance=1)
    assert plan.tables == (tuple("abcd"), tuple("efg"), tuple("hij"))
    plan = plan_round(players=DRAW[:7], seats=3, advance=1)
    assert plan.tables == (tuple("abc"), tuple("de"), tuple("fg"))
    assert plan.byes == ()


def test_a_table_that_would_send_everybody_on_is_not_played():
    # Four seats, two go on: 5 players would make tables of 3 and 2; the 2 would both go on.
    plan = plan_round(players=DRAW[:5], seats=4, advance=2)
    assert plan == RoundPlan(tables=(tuple("bcde"),), byes=("a",), final=False)
    # Three seats, two go on: only tables of three are played.
    assert bye_count(4, seats=3, advance=2) == 1
    assert bye_count(8, seats=3, advance=2) == 2
    assert bye_count(9, seats=4, advance=3) == 1


def test_up_to_seats_players_left_play_the_final_at_one_table():
    assert plan_round(players=("a", "b"), seats=2, advance=1) == RoundPlan(
        tables=(("a", "b"),), byes=(), final=True
    )
    plan = plan_round(players=DRAW[:3], seats=4, advance=3, had_bye={"a"})
    assert plan == RoundPlan(tables=(tuple("abc"),), byes=(), final=True)


def test_one_player_left_has_won_and_none_left_has_nothing_to_play():
    empty = RoundPlan(tables=(), byes=(), final=False)
    assert plan_round(players=("a",), seats=2, advance=1) == empty
    assert plan_round(players=(), seats=3, advance=1) == empty


def test_table_sizes():
    assert table_sizes(9, seats=2) == (2, 2, 2, 2, 1)
    assert table_sizes(13, seats=4) == (4, 3, 3, 3)
    assert table_sizes(12, seats=4) == (4, 4, 4)


@pytest.mark.parametrize(
    ("seats", "advance"), [(1, 1), (5, 1), (True, 1), (2.0, 1), (2, 0), (2, 2), (4, 4), (3, True)]
)
def test_the_format_is_checked(seats, advance):
    with pytest.raises(ValueError, match=r"seats|sends on"):
        check_format(seats=seats, advance=advance)
    with pytest.raises(ValueError, match=r"seats|sends on"):
        plan_round(players=DRAW, seats=seats, advance=advance)


def test_a_player_is_in_a_round_once():
    with pytest.raises(ValueError, match="once"):
        plan_round(players=("a", "b", "a"), seats=2, advance=1)


def test_ties_a_match_leaves_are_broken_by_the_draw():
    draw = tuple("abcd")
    assert ranking_by_draw(groups=[("c",), ("d", "a"), ("b",)], draw=draw) == tuple("cadb")
    for groups in ([("a",), ("a", "b")], [("a",), ("z",)]):
        with pytest.raises(ValueError, match="ranked once"):
            ranking_by_draw(groups=groups, draw=draw)


@given(
    count=st.integers(min_value=0, max_value=300),
    format_=formats(),
    had=st.sets(st.integers(min_value=0, max_value=299)),
)
def test_every_player_sits_once_or_has_a_bye_and_the_tables_follow_the_rules(count, format_, had):
    seats, advance = format_
    players = tuple(range(count))
    plan = plan_round(players=players, seats=seats, advance=advance, had_bye=had)
    if count < 2:
        assert plan.tables == plan.byes == () and not plan.final
        return
    assert sorted(plan.players) == list(players)
    if count <= seats:
        assert plan.final and plan.tables == (players,) and plan.byes == ()
        return
    assert not plan.final
    sizes = [len(table) for table in plan.tables]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
    assert all(advance < size <= seats for size in sizes)
    assert len(sizes) == -(-sum(sizes) // seats)
    # Consecutive in draw order among those who sit.
    seated = [player for player in players if player not in plan.byes]
    assert [player for table in plan.tables for player in table] == seated
    # The fewest byes: one fewer would leave a table that sends everybody on.
    byes = len(plan.byes)
    assert byes == bye_count(count, seats=seats, advance=advance)
    assert byes == 0 or min(table_sizes(count - byes + 1, seats=seats)) <= advance
    if seats == 2:
        assert byes == count % 2
    if advance == 1:
        assert seats == 2 or byes == 0
    # Byes: never to one who had one while another who had none sits; in draw order.
    had_none = [player for player in players if player not in had]
    expected = (had_none + [player for player in players if player in had])[:byes]
    assert set(plan.byes) == set(expected)
    assert list(plan.byes) == sorted(plan.byes)
    # Every round sends fewer players on than it starts with.
    assert byes + sum(min(advance, size) for size in sizes) < count
