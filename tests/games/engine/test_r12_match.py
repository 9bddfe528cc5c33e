"""R12 match level: prize tables and the exact pot split, rankings, penalty Match Play,
First To Knock, forfeits, dealer rotation and the typed multiplayer result."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    PRIZE_TABLES,
    Forfeit,
    HandOutcome,
    MultiMatchResult,
    Ranking,
    SeatStake,
    check_prize_table,
    ftk_multi_ranking,
    ftk_winner,
    next_dealer,
    penalty_progress,
    rank_penalty_play,
    split_pot,
)
from games.engine.match import last_player_standing
from games.engine.rules import PRIZE_TABLE_SEATS


@st.composite
def rankings(draw):
    seats = draw(st.sampled_from([3, 4]))
    order = draw(st.permutations(range(seats)))
    cuts = draw(st.lists(st.booleans(), min_size=seats - 1, max_size=seats - 1))
    groups, current = [], [order[0]]
    for seat, cut in zip(order[1:], cuts, strict=True):
        if cut:
            groups.append(tuple(sorted(current)))
            current = [seat]
        else:
            current.append(seat)
    groups.append(tuple(sorted(current)))
    return Ranking(groups=tuple(groups))


@settings(max_examples=500, deadline=None)
@given(rankings(), st.integers(min_value=0, max_value=10**9), st.data())
def test_a_split_always_sums_to_the_pot_follows_the_places_and_shares_ties(ranking, pot, data):
    table = data.draw(
        st.sampled_from([t for t, s in PRIZE_TABLE_SEATS.items() if ranking.seats in s])
    )
    shares = split_pot(pot, ranking, table)
    assert sum(shares) == pot and all(share >= 0 for share in shares)
    # Better places never get less; tied seats differ by at most one unit, lower seats first.
    flat = [(ranking.place_of(seat), seat) for seat in range(ranking.seats)]
    for place_a, seat_a in flat:
        for place_b, seat_b in flat:
            if place_a < place_b:
                assert shares[seat_a] >= shares[seat_b]
            if place_a == place_b and seat_a < seat_b:
                assert 0 <= shares[seat_a] - shares[seat_b] <= 1
    # Each group receives exactly the places it covers (first place also the rounding).
    percents = PRIZE_TABLES[table]
    covered = 0
    for group in ranking.groups:
        expected = sum(
            pot * percents[place] // 100
            for place in range(covered, covered + len(group))
            if place < len(percents)
        )
        if covered == 0:
            expected += pot - sum(pot * percent // 100 for percent in percents)
        assert sum(shares[seat] for seat in group) == expected
        covered += len(group)


def test_the_worked_example_of_docs_rules_r12():
    pot = 3 * 1000 - 150  # three stakes of 10.00, fee 500 bps
    ranking = Ranking(groups=((2,), (0,), (1,)))
    assert split_pot(pot, ranking, "70_30") == (855, 0, 1995)
    tied = Ranking(groups=((0, 2), (1,)))
    assert split_pot(pot, tied, "70_30") == (1425, 0, 1425)
    assert split_pot(2851, tied, "70_30") == (1426, 0, 1425)
    assert split_pot(100, Ranking(groups=((0, 1, 2, 3),)), "50_30_20") == (25, 25, 25, 25)
    assert split_pot(101, Ranking(groups=((3,), (0, 1, 2))), "50_30_20") == (17, 17, 16, 51)
    assert split_pot(7, Ranking(groups=((1,), (0, 2))), "winner_takes_all") == (0, 7, 0)


def test_prize_tables_fit_their_seat_counts_and_ftk_pays_the_winner():
    assert check_prize_table("70_30", 3) == "70_30"
    for table, seats in (("70_30", 4), ("65_35", 3), ("50_30_20", 3), ("nope", 3)):
        with pytest.raises(ValueError):
            check_prize_table(table, seats)
    with pytest.raises(ValueError, match="First To Knock"):
        check_prize_table("65_35", 4, "ftk")
    with pytest.raises(ValueError):
        split_pot(-1, Ranking(groups=((0,), (1,), (2,))))


def test_penalty_ranking_lowest_total_then_more_hands_won_then_shared():
    ranking = rank_penalty_play([40, 40, 12, 40], [3, 2, 1, 3])
    assert ranking.groups == ((2,), (0, 3), (1,))
    assert [ranking.place_of(seat) for seat in range(4)] == [2, 4, 1, 2]
    assert ranking.winner == 2
    assert rank_penalty_play([5, 5, 5], [1, 1, 1]).winner is None


def _hand(penalties, winner, kind="knock"):
    return HandOutcome(kind=kind, knocker=winner, winner=winner, penalties=tuple(penalties))


def test_penalty_match_play_runs_until_a_total_reaches_the_target():
    hands = [
        _hand((0, 30, 45), 0),
        _hand((27, 0, 11), 1, "undercut"),
        _hand((0, 0, 0), None, "void"),
    ]
    score = penalty_progress(hands, seats=3)
    assert score.totals == (27, 30, 56) and score.hands_won == (1, 1, 0)
    assert not score.finished and score.hands_played == 3
    hands.append(_hand((0, 12, 44), 0))
    score = penalty_progress(hands, seats=3)
    assert score.finished and score.totals == (27, 42, 100)
    assert score.ranking.groups == ((0,), (1,), (2,))
    with pytest.raises(ValueError, match="over"):
        penalty_progress([*hands, _hand((0, 1, 1), 0)], seats=3)


def test_forfeits_rank_last_and_the_last_player_standing_wins():
    ranking = rank_penalty_play([10, 50, 20, 5], [1, 0, 1, 2], out=(3, 1))
    assert ranking.groups == ((0,), (2,), (1,), (3,))  # the earlier leaver is last
    score = penalty_progress([_hand((0, 10, 10, 10), 0)], seats=4, out=(1, 2))
    assert not score.finished  # two seats still in: the game goes on
    score = penalty_progress([_hand((0, 10, 10, 10), 0)], seats=4, out=(1, 2, 0))
    assert score.finished and score.ranking.groups == ((3,), (0,), (2,), (1,))
    assert last_player_standing(3, (0, 2)) == 1 and last_player_standing(3, (0,)) is None
    assert ftk_multi_ranking(2, seats=4, out=(0,)).groups == ((2,), (1, 3), (0,))


def test_ftk_winner_is_the_hands_winner_and_a_void_hand_is_redealt():
    undercut = HandOutcome(kind="undercut", knocker=0, winner=2, penalties=(30, 4, 0))
    assert ftk_winner(undercut) == 2
    assert ftk_winner(_hand((0, 0, 0), None, "void")) is None


def test_the_deal_rotates_clockwise_among_seats_still_in():
    assert next_dealer(3, _hand((0, 1, 1, 1), 0), seats=4) == 0
    assert next_dealer(1, _hand((0, 0, 0, 0), None, "void"), seats=4) == 1
    assert next_dealer(1, _hand((0, 1, 1, 1), 0), seats=4, out=(2,)) == 3
    assert next_dealer(1, _hand((0, 0, 0, 0), None, "void"), seats=4, out=(1,)) == 2


def _result(**changes):
    seats = tuple(
        SeatStake(position=p, seat_id=10 + p, player_id=f"p{p}", amount=1000, currency="EUR")
        for p in range(3)
    )
    ranking = Ranking(groups=((2,), (0,), (1,)))
    data = {
        "match_id": 7,
        "game_ref": "G-7",
        "variant": "match",
        "reason": "target_reached",
        "ranking": ranking,
        "penalty_totals": (40, 101, 12),
        "hands_won": (2, 0, 3),
        "hands_played": 5,
        "target": 100,
        "forfeits": (),
        "currency": "EUR",
        "is_practice": False,
        "fee_bps": 500,
        "stake": 1000,
        "prize_table": "70_30",
        "pot": 3000,
        "fee": 150,
        "payouts": split_pot(2850, ranking, "70_30"),
        "seats": seats,
        "finished_at": "2026-11-30T22:00:00+00:00",
    }
    data.update(changes)
    return MultiMatchResult(**data)


def test_multi_match_result_round_trips_and_refuses_a_broken_contract():
    result = _result()
    assert result.winner_seat == 2 and result.payouts == (855, 0, 1995)
    assert MultiMatchResult.from_dict(result.to_dict()) == result
    left = _result(forfeits=(Forfeit(seat=1, reason="left"),), reason="target_reached")
    assert MultiMatchResult.from_dict(left.to_dict()) == left
    broken = [
        {"payouts": (856, 0, 1994)},
        {"pot": 2999},
        {"variant": "money"},
        {"reason": "because"},
        {"prize_table": "65_35"},
        {"target": None},
        {"forfeits": (Forfeit(seat=0, reason="left"),)},  # a leaver must rank last
        {"reason": "forfeit"},  # only when everybody else forfeited
        {"penalty_totals": (40, 101)},
        {"fee": 3001},
    ]
    for change in broken:
        with pytest.raises(ValueError):
            _result(**change)
    data = result.to_dict()
    data["format"] = 2
    with pytest.raises(ValueError, match="format"):
        MultiMatchResult.from_dict(data)
    data = result.to_dict()
    data["winner_seat"] = 0
    with pytest.raises(ValueError, match="winner"):
        MultiMatchResult.from_dict(data)
    ftk = _result(
        variant="ftk",
        target=None,
        prize_table="winner_takes_all",
        ranking=Ranking(groups=((2,), (0, 1))),
        payouts=(0, 0, 2850),
    )
    assert MultiMatchResult.from_dict(ftk.to_dict()) == ftk
    with pytest.raises(ValueError):
        _result(variant="ftk", target=None, prize_table="70_30")
