"""The player's own arrangement in the game view (R2) and each knock's deadwood (R6), over
whole games through the REST API: the server arranges the player's cards so a client works
out nothing, from the player's own cards only (hidden information holds), and nobody else
gets it: not the opponent, not a watcher, not the showdown."""

from __future__ import annotations

import pytest

from games import engine
from tests.games.engine.helpers import assert_knock_deadwood, assert_own_arrangement
from tests.games.helpers import HiddenInformationChecker, json_keys, play_to_end, seat_both, watch

pytestmark = pytest.mark.django_db

OWN_FIELDS = {"melds", "deadwood_cards", "best_discard"}


@pytest.mark.slow
def test_every_player_view_of_whole_games_carries_their_own_exact_arrangement(
    alice, bob, make_player_client, practice_table, seeds
):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    checker = HiddenInformationChecker(match_id)
    watcher = make_player_client(display_name="Watcher")
    watched: set[int] = set()
    seen = {"views": 0, "eleven": 0, "knocks": 0, "showdowns": 0}

    def check(response, seat):
        body = response.json()
        if "hand" not in body:
            return  # an events feed: no view in it
        hand = body["hand"]
        if hand is not None and hand["status"] == "in_progress":
            assert hand["seat"] == seat
            assert_own_arrangement(hand, engine.deadwood)
            assert_knock_deadwood(hand, engine.deadwood)
            seen["views"] += 1
            seen["eleven"] += len(hand["hand"]) == 11
            seen["knocks"] += any(a["kind"] == "knock" for a in hand["legal_actions"])
            if hand["number"] not in watched:  # a watcher looks once a hand
                watched.add(hand["number"])
                looking = watch(watcher, match_id)
                HiddenInformationChecker(match_id).check(looking, None)
                assert not json_keys(looking.json()) & (OWN_FIELDS | {"deadwood"})
        if body["previous_hand"] is not None:
            assert not json_keys(body["previous_hand"]) & OWN_FIELDS  # the showdown is public
            seen["showdowns"] += 1

    game = play_to_end(seats, match_id, checker=checker, on_response=check)
    assert checker.responses_checked == game.responses
    # Both shapes of the arrangement, knocks and later hands (with a showdown) were seen.
    assert seen["views"] > 20 and seen["eleven"] > 5
    assert seen["knocks"] > 0 and seen["showdowns"] > 0 and len(watched) > 1
