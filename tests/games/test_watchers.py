"""Watchers (R11): any player of the operator may watch a game; a watcher sees the
public table only. Every watcher response over whole games is checked against the database:
no card of either hand (nor of the stock, nor the seed) while a hand is being played."""

from __future__ import annotations

import pytest

from games.api.serializers import WatchHandOutput, WatchViewOutput
from games.models import Match
from gin_platform.tenancy.services import api_key_create
from tests.conftest import SYSTEM
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    card_tokens,
    play_to_end,
    seat_both,
    watch,
    watch_events,
)
from tests.helpers import session_client

pytestmark = pytest.mark.django_db


class Watcher:
    """A third player of the operator who looks at the table after every response the two
    players get, through both watcher endpoints."""

    def __init__(self, client, match_id: int) -> None:
        self.client = client
        self.match_id = match_id
        self.checker = HiddenInformationChecker(match_id)
        self.after = 0
        self.looks = 0
        self.showdowns = 0

    def look(self, *_ignored) -> None:
        response = watch(self.client, self.match_id)
        assert response.status_code == 200, response.json()
        self.checker.check(response, None)
        body = response.json()
        _assert_shape(body)
        hand = body["hand"]
        if hand is not None and hand["status"] == "in_progress":
            assert "hands" not in hand and "seed" not in hand and "hand" not in hand
            assert hand["outcome"] is None
        if body["previous_hand"] is not None:
            assert len(body["previous_hand"]["hands"]) == 2  # the showdown is public
            self.showdowns += 1
        feed = watch_events(self.client, self.match_id, after=self.after)
        assert feed.status_code == 200
        self.checker.check(feed, None)
        for event in feed.json()["events"]:
            if event["kind"] == "draw_stock":
                assert event["card"] is None  # nobody's stock draw is shown to a watcher
        self.after = feed.json()["next_after"]
        self.looks += 1


def _assert_shape(body: dict) -> None:
    """The selector's keys are exactly what WatchViewOutput declares (no field can slip
    out unseen)."""
    assert set(body) == set(WatchViewOutput().fields)
    if body["hand"] is not None:
        assert set(body["hand"]) <= set(WatchHandOutput().fields)


@pytest.mark.parametrize("variant", ["ftk", pytest.param("match", marks=pytest.mark.slow)])
def test_a_watcher_never_sees_a_card_of_either_hand_over_whole_games(
    alice, bob, make_player_client, operator, seeds, variant
):
    fields = {"variant": "ftk", "target": None} if variant == "ftk" else {"target": 100}
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100, **fields))
    match_id, seats = seat_both(alice, bob, table.pk)
    watcher = Watcher(make_player_client(display_name="Watcher"), match_id)
    players = HiddenInformationChecker(match_id)

    def after_each_response(response, seat):
        watcher.look()

    game = play_to_end(seats, match_id, checker=players, on_response=after_each_response)
    watcher.look()
    match = Match.objects.get(pk=match_id)
    assert match.status in (Match.Status.FINISHED, Match.Status.SETTLED)
    assert watcher.checker.responses_checked == 2 * watcher.looks > 2 * game.actions
    final = watch(watcher.client, match_id).json()
    assert final["match"]["result"] is not None
    assert final["hand"]["status"] == "ended" and len(final["hand"]["hands"]) == 2
    if variant == "match" and match.hands.count() > 1:
        assert watcher.showdowns > 0


def test_watching_a_waiting_table_and_what_the_view_holds(alice, bob, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    seat = alice.post(f"/api/v1/tables/{table.pk}/sit").json()
    body = watch(bob, seat["match_id"]).json()
    assert body["hand"] is None and body["match"]["status"] == "waiting"
    bob.post(f"/api/v1/tables/{table.pk}/sit")
    body = watch(bob, seat["match_id"]).json()  # bob plays here, but the watch view is public
    hand = body["hand"]
    assert hand["card_counts"] == [10, 10] and hand["stock_count"] == 31
    assert len(hand["discard_pile"]) == 1 and hand["phase"] == "upcard_offer"
    assert hand["seed_commitment"] and "seed" not in hand
    assert card_tokens(body) == set(hand["discard_pile"])  # the upcard, nothing else
    assert [p["display_name"] for p in body["match"]["players"]] == ["Alice", "Bob"]


def test_another_operators_game_is_not_found_and_operators_use_their_own_api(
    alice, bob, operator, operator_client, seeds
):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, _ = seat_both(alice, bob, table.pk)
    other = OperatorFactory()
    stranger = PlayerFactory(operator=other)
    client = session_client(stranger, type(alice))
    for path in (f"/api/v1/matches/{match_id}/watch", f"/api/v1/matches/{match_id}/watch/events"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["type"] == "/problems/not-found"
        assert alice.get(path).status_code == 200
        assert operator_client.get(path).status_code == 403
    other_key = api_key_create(operator=other, actor=SYSTEM).key
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {other_key}")
    assert client.get(f"/api/v1/matches/{match_id}/watch").status_code == 403
    assert watch(alice, 10**30).status_code == 404
