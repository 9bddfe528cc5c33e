"""R14 the bracket replayed from the revealed seed and the published results: what an auditor
runs, and what the live bracket must equal."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tournaments.engine.strategies import fields, formats
from tournaments.engine import (
    Bracket,
    PlaceGroup,
    RoundPlan,
    bracket_replay,
    default_prize_table,
    draw_order,
    plan_round,
    prize_amounts,
)

SEED = "0" * 64
ELEVEN = tuple(range(1, 12))  # drawn 4, 2, 6, 8, 5, 10, 3, 11, 1, 7, 9


def lowest_wins(table):
    return sorted(table)


def test_eleven_heads_up_the_lowest_number_winning_every_match():
    bracket = bracket_replay(
        seed=SEED, entries=ELEVEN, seats=2, advance=1, advancing=lambda t: lowest_wins(t)[:1]
    )
    assert bracket.draw == (4, 2, 6, 8, 5, 10, 3, 11, 1, 7, 9)
    assert bracket.rounds == (
        RoundPlan(tables=((2, 6), (8, 5), (10, 3), (11, 1), (7, 9)), byes=(4,), final=False),
        RoundPlan(tables=((4, 2), (5, 3), (1, 7)), byes=(), final=False),
        RoundPlan(tables=((3, 1),), byes=(2,), final=False),  # 4 had a bye: 2 has this one
        RoundPlan(tables=((2, 1),), byes=(), final=True),
    )
    assert bracket.places == (
        PlaceGroup(first_place=1, players=(1,)),
        PlaceGroup(first_place=2, players=(2,)),
        PlaceGroup(first_place=3, players=(3,)),
        PlaceGroup(first_place=4, players=(4, 5, 7)),
        PlaceGroup(first_place=7, players=(6, 8, 9, 10, 11)),
    )
    assert bracket.winner == 1


def test_four_seat_tables_sending_two_on_from_a_mapping_of_results():
    results = {
        (4, 2, 6, 8): (2, 4),
        (5, 10, 3, 11): (3, 5),
        (1, 7, 9): (7, 1),
        (4, 2, 5): (5, 4),
        (3, 1, 7): (1, 7),
        (4, 5, 1, 7): (7, 1, 5, 4),
    }
    bracket = bracket_replay(seed=SEED, entries=ELEVEN, seats=4, advance=2, advancing=results)
    assert [plan.tables for plan in bracket.rounds] == [
        ((4, 2, 6, 8), (5, 10, 3, 11), (1, 7, 9)),
        ((4, 2, 5), (3, 1, 7)),
        ((4, 5, 1, 7),),
    ]
    assert [group.players for group in bracket.places] == [
        (7,),
        (1,),
        (5,),
        (4,),
        (2, 3),
        (6, 8, 9, 10, 11),
    ]
    assert bracket.places[4].first_place == 5


def test_absent_players_of_the_final_share_the_places_after_the_ranked_ones():
    final = draw_order(seed=SEED, entries=(1, 2, 3))
    assert final == (3, 1, 2)
    bracket = bracket_replay(
        seed=SEED, entries=(1, 2, 3), seats=4, advance=1, advancing={final: (2,)}
    )
    assert bracket.rounds == (RoundPlan(tables=(final,), byes=(), final=True),)
    assert bracket.places == (
        PlaceGroup(first_place=1, players=(2,)),
        PlaceGroup(first_place=2, players=(1, 3)),  # registration order
    )
    assert bracket.winner == 2


def test_nobody_left_after_a_round_shares_its_places_and_nobody_wins():
    entries = tuple(range(1, 9))
    draw = draw_order(seed=SEED, entries=entries)
    first_round_winners = {min(draw[index : index + 2]) for index in range(0, 8, 2)}

    def result(table):  # both semi-finals are double no-shows
        return () if set(table) <= first_round_winners else (min(table),)

    bracket = bracket_replay(seed=SEED, entries=entries, seats=2, advance=1, advancing=result)
    assert len(bracket.rounds) == 2
    assert bracket.places == (
        PlaceGroup(first_place=1, players=tuple(sorted(first_round_winners))),
        PlaceGroup(first_place=5, players=tuple(sorted(set(entries) - first_round_winners))),
    )
    assert bracket.winner is None


def test_a_player_left_alone_after_a_round_has_won():
    draw = draw_order(seed=SEED, entries=("a", "b", "c"))
    bracket = bracket_replay(
        seed=SEED, entries=("a", "b", "c"), seats=2, advance=1, advancing=lambda table: ()
    )
    assert bracket.rounds == (RoundPlan(tables=(draw[1:],), byes=draw[:1], final=False),)
    assert bracket.winner == draw[0]
    assert bracket.places[1] == PlaceGroup(first_place=2, players=tuple(sorted(draw[1:])))


def test_one_entry_wins_without_a_match_and_no_entry_has_no_winner():
    assert bracket_replay(seed=SEED, entries=("a",), seats=2, advance=1, advancing={}) == Bracket(
        draw=("a",), rounds=(), places=(PlaceGroup(first_place=1, players=("a",)),)
    )
    empty = bracket_replay(seed=SEED, entries=(), seats=3, advance=2, advancing={})
    assert empty == Bracket(draw=(), rounds=(), places=())
    assert empty.winner is None


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (lambda table: (table[0], table[0]), "own players once"),
        (lambda table: ("stranger",), "own players once"),
    ],
)
def test_a_published_result_ranks_the_tables_own_players_once_each(result, message):
    with pytest.raises(ValueError, match=message):
        bracket_replay(seed=SEED, entries=ELEVEN, seats=2, advance=1, advancing=result)


def test_the_format_is_checked_first():
    with pytest.raises(ValueError, match="seats"):
        bracket_replay(seed=SEED, entries=ELEVEN, seats=5, advance=1, advancing={})


def test_heads_up_brackets_are_classical_the_winners_of_tables_1_and_2_meet_next():
    bracket = bracket_replay(
        seed=SEED, entries=range(32), seats=2, advance=1, advancing=lambda t: lowest_wins(t)[:1]
    )
    for before, after in zip(bracket.rounds, bracket.rounds[1:], strict=False):
        winners = [min(table) for table in before.tables]
        assert after.tables == tuple(zip(winners[::2], winners[1::2], strict=True))


def check_places(bracket, entries):
    """Places 1..n, each held once: the groups are consecutive and hold every entry once."""
    players = [player for group in bracket.places for player in group.players]
    assert sorted(players) == sorted(entries)
    place = 1
    for group in bracket.places:
        assert group.first_place == place
        place = group.last_place + 1
    assert place == len(entries) + 1


class RandomResults:
    """Random match results: each table ranks its players in a random order; with
    ``absences`` a random tail of that ranking never played (left out of it)."""

    def __init__(self, rng: random.Random, *, absences: bool) -> None:
        self.rng, self.absences = rng, absences

    def __call__(self, table):
        ranking = self.rng.sample(table, len(table))
        if self.absences and self.rng.random() < 0.3:
            return ranking[: self.rng.randint(0, len(table))]
        return ranking


def check_rounds(bracket, seats, advance, results):
    """Every round is the plan of the players the results left, byes counted."""
    left, had_bye = bracket.draw, set()
    for plan in bracket.rounds:
        assert plan == plan_round(players=left, seats=seats, advance=advance, had_bye=had_bye)
        on = set(plan.byes)
        for table in plan.tables:
            on.update(results[table][:advance])
        had_bye.update(plan.byes)
        left = tuple(player for player in left if player in on)


@given(
    seed=st.text(min_size=1, max_size=8),
    entries=fields(max_size=200),
    format_=formats(),
    rng=st.randoms(use_true_random=False),
    absences=st.booleans(),
)
def test_a_whole_random_tournament_assigns_every_place_once(seed, entries, format_, rng, absences):
    seats, advance = format_
    play = RandomResults(rng, absences=absences)
    results = {}

    def advancing(table):
        results[table] = play(table)
        return results[table]

    bracket = bracket_replay(
        seed=seed, entries=entries, seats=seats, advance=advance, advancing=advancing
    )
    check_places(bracket, entries)
    check_rounds(bracket, seats, advance, results)
    # A replay from the recorded results (a mapping, as published) is the same bracket.
    assert bracket == bracket_replay(
        seed=seed, entries=entries, seats=seats, advance=advance, advancing=results
    )
    if entries and not absences:
        assert bracket.winner is not None
        assert bracket.places[0] == PlaceGroup(first_place=1, players=(bracket.winner,))
        assert len(entries) == 1 or bracket.rounds[-1].final


def test_a_1024_entry_heads_up_knockout_pays_its_whole_pool_by_round():
    entries = [f"p{number}" for number in range(1_024)]
    rng = random.Random(14)
    bracket = bracket_replay(
        seed=SEED,
        entries=entries,
        seats=2,
        advance=1,
        advancing=lambda table: rng.sample(table, 2),
    )
    assert len(bracket.rounds) == 10 and not any(plan.byes for plan in bracket.rounds)
    assert [len(group.players) for group in bracket.places] == [
        1,
        1,
        2,
        4,
        8,
        16,
        32,
        64,
        128,
        256,
        512,
    ]
    table = default_prize_table(entries=1_024)
    prizes = prize_amounts(
        pool=1_024 * 1_000, table_bps=table, entries=1_024, groups=bracket.places
    )
    assert sum(prizes.values()) == 1_024 * 1_000
    assert prizes[bracket.winner] == max(prizes.values())
    assert len(table) == 256 and sum(prizes[player] > 0 for player in entries) == 256
