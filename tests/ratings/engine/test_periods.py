"""R15's periods (docs/rules.md): a match is one rating period of one game between each
pair of the players who played it, by their places; a shared place is a draw."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine import (
    DRAW,
    LOSS,
    START,
    WIN,
    Game,
    Rating,
    is_provisional,
    pairwise_games,
    rate,
    rate_period,
)


def test_heads_up_is_one_game_and_the_pair_moves_by_the_same_amount_from_the_start() -> None:
    results = rate_period(places=[["ann"], ["bob"]], before={})
    ann, bob = results["ann"], results["bob"]
    assert (ann.place, ann.wins, ann.draws, ann.losses) == (1, 1, 0, 0)
    assert (bob.place, bob.wins, bob.draws, bob.losses) == (2, 0, 0, 1)
    assert ann.before == bob.before == START
    assert ann.after == rate(START, [Game(START, WIN)])
    assert ann.after.rating - 1500 == pytest.approx(1500 - bob.after.rating)


def test_four_players_with_a_shared_second_place_play_six_games_by_rank() -> None:
    """Places [A], [B, C], [D]: A beats everybody, B and C draw each other and beat D."""
    games = pairwise_games([["A"], ["B", "C"], ["D"]])
    assert games == {
        "A": [("B", WIN), ("C", WIN), ("D", WIN)],
        "B": [("A", LOSS), ("C", DRAW), ("D", WIN)],
        "C": [("A", LOSS), ("B", DRAW), ("D", WIN)],
        "D": [("A", LOSS), ("B", LOSS), ("C", LOSS)],
    }
    before = {
        "A": Rating(1600.0, 80.0, 0.06),
        "B": Rating(1500.0, 200.0, 0.05),
        "C": START,
        "D": Rating(1450.0, 120.0, 0.07),
    }
    results = rate_period(places=[["A"], ["B", "C"], ["D"]], before=before)
    assert [results[p].place for p in "ABCD"] == [1, 2, 2, 4]
    # Every player is rated against the others as they stood before the match.
    expected_b = rate(
        before["B"], [Game(before["A"], LOSS), Game(before["C"], DRAW), Game(before["D"], WIN)]
    )
    assert results["B"].after == expected_b
    assert results["B"].before == before["B"]


def test_everybody_sharing_one_place_draws_every_game() -> None:
    results = rate_period(places=[["x", "y", "z"]], before={})
    assert {(r.wins, r.draws, r.losses) for r in results.values()} == {(0, 2, 0)}
    assert {r.after.rating for r in results.values()} == {1500.0}


def test_a_match_with_fewer_than_two_players_who_played_rates_nobody() -> None:
    assert rate_period(places=[["alone"]], before={}) == {}
    assert rate_period(places=[], before={}) == {}


@pytest.mark.parametrize("places", [[["a"], []], [["a"], ["a"]], [["a", "b"], ["b"]]])
def test_places_name_each_player_once(places) -> None:
    with pytest.raises(ValueError):
        rate_period(places=places, before={})


def test_a_rating_is_provisional_while_its_rd_is_above_110() -> None:
    assert is_provisional(START)
    assert is_provisional(Rating(1500.0, 110.01, 0.06))
    assert not is_provisional(Rating(1500.0, 110.0, 0.06))


@st.composite
def rankings(draw) -> list[list[int]]:
    """Two to four players split into places, best first."""
    players = list(range(draw(st.integers(min_value=2, max_value=4))))
    places: list[list[int]] = []
    for player in players:
        if places and draw(st.booleans()):
            places[-1].append(player)
        else:
            places.append([player])
    return places


@given(rankings())
def test_each_pair_plays_once_and_the_scores_add_up_to_one(places) -> None:
    games = pairwise_games(places)
    players = [p for place in places for p in place]
    for player in players:
        assert sorted(other for other, _ in games[player]) == sorted(set(players) - {player})
        for other, score in games[player]:
            assert score + dict(games[other])[player] == 1.0


@given(rankings())
def test_a_better_place_never_ends_below_a_worse_one_from_equal_ratings(places) -> None:
    results = rate_period(places=places, before={})
    ordered = [results[p].after.rating for place in places for p in place]
    assert ordered == sorted(ordered, reverse=True)


def test_the_worked_examples_of_r15() -> None:
    """docs/rules.md R15's worked examples, to the figures printed there."""
    paper = rate_period(
        places=[["1700"], ["1550"], ["player"], ["1400"]],
        before={
            "1700": Rating(1700.0, 300.0, 0.06),
            "1550": Rating(1550.0, 100.0, 0.06),
            "player": Rating(1500.0, 200.0, 0.06),
            "1400": Rating(1400.0, 30.0, 0.06),
        },
    )["player"]
    assert (paper.wins, paper.losses, paper.place) == (1, 2, 3)
    assert round(paper.after.rating, 2) == 1464.05 and round(paper.after.rd, 2) == 151.52
    heads_up = rate_period(places=[["winner"], ["loser"]], before={})
    assert round(heads_up["winner"].after.rating, 2) == 1662.31
    assert round(heads_up["loser"].after.rating, 2) == 1337.69
    assert {round(r.after.rd, 2) for r in heads_up.values()} == {290.32}
    assert all(is_provisional(r.after) for r in heads_up.values())
    four = rate_period(places=[["A"], ["B", "C"], ["D"]], before={})
    assert [round(four[p].after.rating, 2) for p in "ABCD"] == [1799.63, 1500.0, 1500.0, 1200.37]
    assert {round(four[p].after.rd, 2) for p in "ABCD"} == {227.74}
