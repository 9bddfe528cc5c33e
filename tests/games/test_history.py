"""The hand history of a match (every hand that is over, with its events, arrangements,
lay-offs, scores and revealed seed) for the players of that match and the operator; 404 for
anybody else; never a hand still being played."""

from __future__ import annotations

import pytest

from games import engine
from games.api.history_serializers import HandHistoryOutput
from games.models import Hand, HandEvent, Match
from gin_platform.tenancy.services import api_key_create, player_session_create
from tests.conftest import SYSTEM
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, play_to_end, seat_both, view
from tests.games.test_games import hand_outcomes
from tests.helpers import bearer_client

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_both_players_and_the_operator_see_every_finished_hand(
    alice, bob, operator, operator_client, seeds
):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    play_to_end(seats, match_id)
    match = Match.objects.get(pk=match_id)
    path = f"/api/v1/matches/{match_id}/hands"
    bodies = [client.get(path) for client in (alice, bob, operator_client)]
    assert [b.status_code for b in bodies] == [200, 200, 200]
    history = bodies[0].json()
    assert bodies[1].json() == history == bodies[2].json()
    assert history["match_id"] == match_id
    hands = history["hands"]
    assert [h["number"] for h in hands] == list(range(1, match.hands.count() + 1))
    points = [0, 0]
    for entry, (hand, outcome) in zip(hands, hand_outcomes(match), strict=True):
        assert set(entry) == set(HandHistoryOutput().fields)
        assert entry["seed"] == hand.server_seed
        assert engine.seed_commitment(entry["seed"]) == entry["seed_commitment"]
        assert entry["outcome"] == outcome.to_dict()  # arrangements, lay-offs, score
        if outcome.kind != "void":
            result = entry["outcome"]["result"]
            assert "knocker_melds" in result and "layoffs" in result
        points = [p + q for p, q in zip(points, entry["points"], strict=True)]
        rows = HandEvent.objects.filter(hand=hand).count()
        assert len(entry["events"]) == rows
        kinds = [e["kind"] for e in entry["events"]]
        assert kinds[0] == "hand_dealt" and "hand_ended" in kinds
        draws = [e for e in entry["events"] if e["kind"] == "draw_stock"]
        assert all(e["card"] for e in draws)  # all shown once the hand is over
        state = engine.state_from_json(hand.state)
        assert entry["hands"] == [[str(c) for c in h] for h in state.hands]
        assert entry["stock"] == [str(c) for c in state.stock]
    assert points == list(match.points)
    one = alice.get(f"{path}/{hands[-1]['number']}")
    assert one.status_code == 200 and one.json() == hands[-1]


def test_strangers_and_other_operators_get_404(alice, bob, operator, make_player_client, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    seats[0].post(f"/api/v1/matches/{match_id}/resign")  # over: hand 1 is history now
    assert alice.get(f"/api/v1/matches/{match_id}/hands").status_code == 200
    stranger = make_player_client()
    other = OperatorFactory()
    other_player = bearer_client(
        player_session_create(player=PlayerFactory(operator=other), actor=SYSTEM).token
    )
    other_operator = bearer_client(api_key_create(operator=other, actor=SYSTEM).key)
    for suffix in ("hands", "hands/1", "hands/1/fairness"):
        path = f"/api/v1/matches/{match_id}/{suffix}"
        for client in (stranger, other_player, other_operator):
            response = client.get(path)
            assert response.status_code == 404, (suffix, response.content)
            assert match_id and "seed" not in response.json()
    assert alice.get(f"/api/v1/matches/{match_id}/hands/9").status_code == 404
    assert alice.get(f"/api/v1/matches/{match_id}/hands/x").status_code == 404
    assert bearer_client("nonsense").get(f"/api/v1/matches/{match_id}/hands").status_code == 401


def test_a_hand_in_progress_is_never_in_the_history(alice, bob, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    hand = Hand.objects.get(match_id=match_id)
    body = alice.get(f"/api/v1/matches/{match_id}/hands")
    assert body.json()["hands"] == []
    assert hand.server_seed not in body.content.decode()
    look = view(seats[0], match_id).json()
    act(seats[look["hand"]["to_act"]], match_id, kind="pass", expected_seq=look["seq"])
    detail = alice.get(f"/api/v1/matches/{match_id}/hands/1")
    assert detail.status_code == 409 and detail.json()["type"] == "/problems/hand-in-progress"
