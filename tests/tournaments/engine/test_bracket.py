"""R14's bracket: a tree fixed at the start, byes to the first places of the draw in round 1
only, every later table full unless players were absent, and every place given once."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.engine import (
    bracket_replay,
    bracket_shape,
    check_format,
    draw_order,
    first_round,
    places_of_final,
    places_of_round,
    ranking_by_draw,
)
from tournaments.engine.bracket import BracketShape

FORMATS = st.sampled_from(((2, 1), (3, 1), (4, 1), (4, 2)))
SEED = "ab" * 32


@given(entries=st.integers(2, 2000), fmt=FORMATS)
def test_the_shape_holds_every_entry_in_the_fewest_rounds(entries: int, fmt) -> None:
    seats, advance = fmt
    shape = bracket_shape(entries=entries, seats=seats, advance=advance)
    assert sum(shape.first_round_sizes) == entries
    assert len(shape.first_round_sizes) == shape.tables[0]
    assert max(shape.first_round_sizes) - min(shape.first_round_sizes) <= 1
    assert list(shape.first_round_sizes) == sorted(shape.first_round_sizes)  # byes first
    assert min(shape.first_round_sizes) >= advance
    assert max(shape.first_round_sizes) <= seats
    assert shape.tables[-1] == 1
    for earlier, later in zip(shape.tables, shape.tables[1:], strict=False):
        assert earlier == later * shape.branching
    if shape.rounds > 1:  # one round fewer would not hold them
        assert seats * shape.branching ** (shape.rounds - 2) < entries


def test_five_heads_up_give_the_first_three_of_the_draw_a_bye() -> None:
    shape = bracket_shape(entries=5, seats=2, advance=1)
    assert shape.tables == (4, 2, 1)
    assert first_round(shape, list("ABCDE")) == (("A",), ("B",), ("C",), ("D", "E"))
    assert list(shape.feeders(round_number=2, number=2)) == [3, 4]
    assert shape.fed(round_number=1, number=4) == 2
    assert shape.fed(round_number=3, number=1) is None


def test_a_thousand_and_twenty_four_heads_up_play_ten_full_rounds() -> None:
    shape = bracket_shape(entries=1024, seats=2, advance=1)
    assert shape.tables == (512, 256, 128, 64, 32, 16, 8, 4, 2, 1)
    assert set(shape.first_round_sizes) == {2}


@pytest.mark.parametrize(
    ("seats", "advance"), [(1, 1), (5, 1), (2, 2), (3, 2), (4, 3), (4, 0), (2.0, 1)]
)
def test_formats_outside_r14_are_refused(seats, advance) -> None:
    with pytest.raises(ValueError):
        check_format(seats=seats, advance=advance)


def test_a_bracket_needs_two_entries_and_a_table_that_exists() -> None:
    with pytest.raises(ValueError):
        bracket_shape(entries=1, seats=2)
    shape = bracket_shape(entries=8, seats=2)
    with pytest.raises(ValueError):
        shape.feeders(round_number=1, number=1)
    with pytest.raises(ValueError):
        shape.feeders(round_number=2, number=3)
    with pytest.raises(ValueError):
        first_round(shape, list(range(7)))


def test_ties_are_broken_by_the_draw() -> None:
    assert ranking_by_draw(groups=[["C", "A"], ["B"]], draw="ABC") == ("A", "C", "B")
    with pytest.raises(ValueError):
        ranking_by_draw(groups=[["A"], ["A"]], draw="AB")


def _place_groups(shape: BracketShape, replayed) -> list:
    """The place groups as the services give them, round by round, from the replayed tables."""
    groups: list = []
    for round_number in range(1, shape.rounds + 1):
        tables = [table for table in replayed if table.round == round_number]
        if shape.is_final(round_number):
            (final,) = tables
            ranked = final.ranking if final.played else final.going_on
            absent = [player for player in final.players if player not in ranked]
            if final.players:
                groups.extend(places_of_final(ranking=ranked, absent=absent))
        else:
            out = [p for table in tables for p in table.players if p not in table.going_on]
            still_in = sum(len(table.going_on) for table in tables)
            if out:
                groups.append(places_of_round(eliminated=out, still_in=still_in))
    return groups


@given(
    entries=st.integers(2, 300),
    fmt=FORMATS,
    absence=st.sampled_from((0.0, 0.1, 0.5)),
    salt=st.integers(0, 10**6),
)
def test_a_whole_tournament_replayed_gives_every_place_once(entries, fmt, absence, salt) -> None:
    seats, advance = fmt
    chance = random.Random(salt)
    field = list(range(1, entries + 1))

    def ranking(round_number, number, players):
        played = [player for player in players if chance.random() >= absence]
        chance.shuffle(played)
        return played

    replayed = bracket_replay(
        seed=SEED, entries=field, seats=seats, advance=advance, ranking=ranking
    )
    shape = bracket_shape(entries=entries, seats=seats, advance=advance)
    first = [player for table in replayed if table.round == 1 for player in table.players]
    assert tuple(first) == draw_order(seed=SEED, entries=field)
    for table in replayed:
        if table.round > 1 and absence == 0:
            assert len(table.players) == seats  # nobody has a second bye
        if not table.played and table.round == 1:
            assert len(table.players) == advance and table.going_on == table.players
    groups = _place_groups(shape, replayed)
    places = sorted(place for g in groups for place in range(g.first_place, g.last_place + 1))
    assert places == list(range(1, entries + 1))
    assert sorted(p for g in groups for p in g.players) == field
    winners = [g.players for g in groups if g.first_place == 1]
    if absence == 0:
        assert len(winners) == 1 and len(winners[0]) == 1
