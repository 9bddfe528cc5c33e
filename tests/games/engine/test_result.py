"""The typed match result (R10): what games stores and settlement reads back."""

import pytest

from games.engine import MatchResult, money_play_final_scores

STORED = {
    "format": 1,
    "match_id": 12,
    "game_ref": "match:12",
    "variant": "money",
    "reason": "target_reached",
    "winner_seat": 0,
    "reached_target": 0,
    "hand_points": [105, 40],
    "hands_won": [3, 2],
    "hands_played": 6,
    "target": 100,
    "money_play": money_play_final_scores(
        hand_points=(105, 40), hands_won=(3, 2), target=100, reached_target=0
    ).to_dict(),
    "forfeit": None,
    "currency": "EUR",
    "is_practice": False,
    "fee_bps": 500,
    "stake": None,
    "stake_per_point": 5,
    "seats": [
        {"position": 0, "seat_id": 31, "player_id": "a", "amount": 20000, "currency": "EUR"},
        {"position": 1, "seat_id": 32, "player_id": "b", "amount": 10000, "currency": "EUR"},
    ],
    "finished_at": "2026-11-29T22:40:00+00:00",
}


def test_the_stored_json_reads_back_typed_and_writes_back_unchanged():
    result = MatchResult.from_dict(STORED)
    assert result.is_money_play and result.money_play.totals == (280, 90)
    assert result.hand_points == (105, 40) and result.seats[1].amount == 10000
    assert result.to_dict() == STORED
    assert set(result.public()) < set(STORED)


def test_a_forfeit_reads_back_typed():
    stored = STORED | {"reason": "forfeit", "forfeit": {"seat": 1, "reason": "left"}}
    assert MatchResult.from_dict(stored).forfeit.reason == "left"


@pytest.mark.parametrize(
    "change",
    [
        {"format": 2},
        {"variant": "money_play"},
        {"reason": "bored"},
        {"money_play": None},  # Money Play without its scores
        {"variant": "match"},  # scores on a Match Play result
    ],
)
def test_a_result_that_breaks_the_contract_is_refused(change):
    with pytest.raises(ValueError):
        MatchResult.from_dict(STORED | change)
