"""R14 seeded by rating (R15): the seeds by rating with the draw's order for ties, the
standard seeding (the best meet last), the seeds dealt snake-wise, byes to the best seeds,
and the whole bracket replayed from the seed and the published ratings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.engine import (
    bracket_opening,
    bracket_replay,
    bracket_shape,
    draw_order,
    is_played,
    seed_slots,
    seeded_first_round,
    seeding_order,
)

SEED = "cd" * 32
FORMATS = st.sampled_from(((2, 1), (3, 1), (4, 1), (4, 2)))


def test_the_seeds_go_by_rating_and_equal_ratings_keep_the_draws_order() -> None:
    entries = list(range(1, 9))
    ratings = {1: 1500.0, 2: 1712.4, 3: 1500.0, 4: 1498.9, 5: 1500.0, 6: 1800.0, 7: 1712.4, 8: 0}
    seeds = seeding_order(seed=SEED, entries=entries, ratings=ratings)
    drawn = draw_order(seed=SEED, entries=entries)
    assert seeds[0] == 6 and seeds[-1] == 8
    assert [entry for entry in seeds if ratings[entry] == 1712.4] == [
        entry for entry in drawn if ratings[entry] == 1712.4
    ]
    assert [entry for entry in seeds if ratings[entry] == 1500.0] == [
        entry for entry in drawn if ratings[entry] == 1500.0
    ]
    assert [ratings[entry] for entry in seeds] == sorted(ratings.values(), reverse=True)
    # Everybody unrated (all at 1500): the seeding is the draw itself.
    same = dict.fromkeys(entries, 1500.0)
    assert seeding_order(seed=SEED, entries=entries, ratings=same) == drawn


def test_every_entry_needs_one_finite_rating() -> None:
    with pytest.raises(ValueError, match="one rating"):
        seeding_order(seed=SEED, entries=[1, 2], ratings={1: 1500.0})
    with pytest.raises(ValueError, match="finite"):
        seeding_order(seed=SEED, entries=[1, 2], ratings={1: 1500.0, 2: float("nan")})


def test_the_standard_seeding_heads_up() -> None:
    assert seed_slots(tables=1, branching=2) == (1,)
    assert seed_slots(tables=2, branching=2) == (1, 2)
    assert seed_slots(tables=4, branching=2) == (1, 4, 2, 3)
    assert seed_slots(tables=8, branching=2) == (1, 8, 4, 5, 2, 7, 3, 6)
    shape = bracket_shape(entries=16, seats=2, advance=1)
    tables = seeded_first_round(shape, list(range(1, 17)))
    assert tables == (
        (1, 16), (8, 9), (4, 13), (5, 12), (2, 15), (7, 10), (3, 14), (6, 11),
    )  # fmt: skip
    with pytest.raises(ValueError, match="power"):
        seed_slots(tables=6, branching=2)


def test_six_heads_up_give_the_two_best_seeds_a_bye_in_different_halves() -> None:
    shape = bracket_shape(entries=6, seats=2, advance=1)
    tables = seeded_first_round(shape, list("ABCDEF"))  # A the best seed
    assert tables == (("A",), ("D", "E"), ("B",), ("C", "F"))
    assert list(shape.feeders(round_number=2, number=1)) == [1, 2]  # A meets D-E's winner
    assert list(shape.feeders(round_number=2, number=2)) == [3, 4]  # B meets C-F's winner


def test_four_seat_tables_deal_the_seeds_snake_wise() -> None:
    shape = bracket_shape(entries=16, seats=4, advance=1)
    tables = seeded_first_round(shape, list(range(1, 17)))
    assert tables == ((1, 8, 9, 16), (2, 7, 10, 15), (3, 6, 11, 14), (4, 5, 12, 13))
    ten = seeded_first_round(bracket_shape(entries=10, seats=4, advance=1), list(range(1, 11)))
    assert ten == ((1, 8), (2, 7), (3, 6, 9), (4, 5, 10))  # the larger tables the lower seeds'
    five = seeded_first_round(bracket_shape(entries=5, seats=4, advance=1), list(range(1, 6)))
    assert five == ((1,), (2,), (3,), (4, 5))  # three byes: the three best seeds
    halves = seeded_first_round(bracket_shape(entries=8, seats=4, advance=2), list(range(1, 9)))
    assert halves == ((1, 4, 5, 8), (2, 3, 6, 7))
    # Sending two on: the bye tables take the best seeds first.
    five = seeded_first_round(bracket_shape(entries=5, seats=4, advance=2), list(range(1, 6)))
    assert five == ((1, 2), (3, 4, 5))


@given(entries=st.integers(2, 600), fmt=FORMATS)
def test_a_seeded_first_round_has_the_draws_tables_and_gives_the_byes_to_the_best(
    entries: int, fmt
) -> None:
    seats, advance = fmt
    shape = bracket_shape(entries=entries, seats=seats, advance=advance)
    seeds = list(range(1, entries + 1))  # seed n is entry n
    tables = seeded_first_round(shape, seeds)
    assert len(tables) == shape.tables[0]
    assert sorted(seat for table in tables for seat in table) == seeds
    assert sorted(map(len, tables)) == sorted(shape.first_round_sizes)
    assert all(list(table) == sorted(table) for table in tables)  # seats by seed
    byes = [p for t in tables if not is_played(shape, round_number=1, players=len(t)) for p in t]
    assert sorted(byes) == list(range(1, len(byes) + 1))
    # The best ``branching`` seeds never meet before the final: sending one on, each is in
    # a branch of its own; sending more on, no played table of round 1 holds two of them (a
    # bye table of two best seeds sends both on, and they meet first in the final).
    if shape.rounds > 1:
        best = set(range(1, min(shape.branching, entries) + 1))
        if advance == 1:
            per_branch = len(tables) // shape.branching
            branch_of = {p: i // per_branch for i, t in enumerate(tables) for p in t}
            assert len({branch_of[seed] for seed in best}) == len(best)
        played = [t for t in tables if is_played(shape, round_number=1, players=len(t))]
        assert all(len(best & set(table)) <= 1 for table in played)


def test_the_opening_is_the_draw_without_ratings() -> None:
    shape = bracket_shape(entries=11, seats=2, advance=1)
    order, tables = bracket_opening(shape, seed=SEED, entries=list(range(11)))
    assert order == draw_order(seed=SEED, entries=list(range(11)))
    assert sum(map(len, tables)) == 11 and tables[0] == order[:1]


def test_a_seeded_bracket_replays_from_the_seed_and_the_ratings() -> None:
    entries = [f"e{number}" for number in range(1, 12)]
    ratings = {entry: 1400.0 + 25 * (index % 5) for index, entry in enumerate(entries)}
    shape = bracket_shape(entries=11, seats=2, advance=1)
    seeds, tables = bracket_opening(shape, seed=SEED, entries=entries, ratings=ratings)
    results = {}

    def lower_seed_wins(round_number, number, players):
        ranked = sorted(players, key=seeds.index, reverse=True)
        results[(round_number, number)] = ranked
        return ranked

    replayed = bracket_replay(
        seed=SEED, entries=entries, seats=2, advance=1, ranking=lower_seed_wins, ratings=ratings
    )
    assert tuple(table.players for table in replayed if table.round == 1) == tables
    assert {table.players[0] for table in replayed if not table.played} == set(seeds[:5])
    final = replayed[-1]
    assert final.round == shape.rounds and final.ranking == tuple(results[(final.round, 1)])
