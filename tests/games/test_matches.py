"""Match records, the waiting view, turn deadlines, per-hand event numbering, the operator's
match endpoints, the admin (which never shows a live hand's secrets) and the settlement
hand-off."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import serializers

from games import engine
from games.api.serializers import GameViewOutput
from games.models import Hand, HandEvent, Match, Seat
from games.problems import MatchNotFinishedProblem
from games.services import match_mark_settled, match_settled_record
from gin_platform.models import AuditEvent
from gin_platform.tenancy.principals import Actor
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, play_to_end, seat_both, sit, view

pytestmark = pytest.mark.django_db


def test_a_waiting_match_shows_no_hand(alice, practice_table):
    seat = sit(alice, practice_table.pk).json()
    look = view(alice, seat["match_id"]).json()
    assert look["seq"] == 0 and look["hand"] is None and look["previous_hand"] is None
    assert look["match"]["status"] == "waiting" and look["match"]["your_seat"] == seat["position"]
    assert look["match"]["players"] == [
        {
            "position": seat["position"],
            "display_name": "Alice",
            "screen_name": None,
            "operator": None,
            "bot_level": None,
        }
    ]


def test_turn_deadlines_follow_the_turn(alice, bob, practice_table, seeds):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    hand = Hand.objects.get(match_id=match_id)
    start = timezone.now()
    assert start < hand.turn_deadline <= start + timedelta(seconds=31)
    Hand.objects.filter(pk=hand.pk).update(turn_deadline=start)  # mark it
    to_act = hand.to_act
    look = view(seats[to_act], match_id).json()
    taken = act(seats[to_act], match_id, kind="take_upcard", expected_seq=look["seq"]).json()
    hand.refresh_from_db()
    assert hand.turn_deadline == start  # same player still to act: same turn, same deadline
    card = next(a["card"] for a in taken["hand"]["legal_actions"] if a["kind"] == "discard")
    act(seats[to_act], match_id, kind="discard", card=card, expected_seq=taken["seq"])
    hand.refresh_from_db()
    assert hand.to_act == 1 - to_act and hand.turn_deadline > start + timedelta(seconds=29)
    shown = view(seats[1 - to_act], match_id).json()["hand"]["turn_deadline"]
    assert shown.startswith(hand.turn_deadline.isoformat()[:19])


def test_events_are_numbered_per_hand_and_per_match(alice, bob, practice_table, seeds):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    for _ in range(5):
        look = view(seats[0], match_id).json()
        mine = look if look["hand"]["your_turn"] else view(seats[1], match_id).json()
        move = engine.choose_action_from_view(mine["hand"])
        client = seats[mine["hand"]["seat"]]
        assert act(client, match_id, **move, expected_seq=mine["seq"]).status_code == 200
    rows = list(HandEvent.objects.filter(match_id=match_id).order_by("match_seq"))
    assert [row.match_seq for row in rows] == list(range(1, len(rows) + 1))
    assert [row.seq for row in rows] == list(range(1, len(rows) + 1))  # one hand so far
    assert Match.objects.get(pk=match_id).seq == rows[-1].match_seq
    hand = Hand.objects.get(match_id=match_id)
    assert hand.event_seq == rows[-1].seq
    with pytest.raises(IntegrityError), transaction.atomic():
        HandEvent.objects.create(hand=hand, match_id=match_id, seq=1, match_seq=999, kind="x")


def test_database_constraints_keep_a_table_to_one_game_and_a_seat_to_one_player(
    alice, bob, practice_table
):
    seat = sit(alice, practice_table.pk).json()
    match = Match.objects.get(pk=seat["match_id"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.create(
            table=practice_table,
            room=practice_table.room,
            operator=match.operator,
            variant="match",
            currency="XGC",
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(
            table=practice_table,
            match=match,
            position=seat["position"],
            player=bob.player,
            amount=100,
            currency="XGC",
        )


def test_operators_list_and_read_matches_without_cards(
    alice, bob, operator_client, practice_table, seeds
):
    match_id, _ = seat_both(alice, bob, practice_table.pk)
    hand = Hand.objects.get(match_id=match_id)
    listing = operator_client.get("/api/v1/matches?status=running")
    assert listing.status_code == 200
    assert [m["id"] for m in listing.json()["results"]] == [match_id]
    assert operator_client.get("/api/v1/matches?status=finished").json()["results"] == []
    detail = operator_client.get(f"/api/v1/matches/{match_id}")
    assert detail.status_code == 200
    body = detail.json()
    assert {s["player_id"] for s in body["seats"]} == {str(alice.player.pk), str(bob.player.pk)}
    assert body["seats"][0]["amount"] == {"amount": "100", "currency": "XGC", "display": None}
    assert body["hands_played"] == 1 and body["status"] == "running"
    text = detail.content.decode()
    assert hand.server_seed not in text
    state = engine.state_from_json(hand.state)
    for card in (*state.hands[0], *state.hands[1], *state.stock):
        assert f'"{card}"' not in text
    assert alice.get("/api/v1/matches").status_code == 403


def test_settlement_marks_a_finished_match_settled_once(alice, bob, practice_table, seeds):
    match_id, _ = seat_both(alice, bob, practice_table.pk)
    actor = Actor.system("settlement")
    with pytest.raises(MatchNotFinishedProblem):
        match_mark_settled(match=match_id, actor=actor)
    alice.post(f"/api/v1/tables/{practice_table.pk}/leave")
    settled = match_mark_settled(match=match_id, actor=actor)
    assert settled.status == Match.Status.SETTLED and settled.settled_at
    again = match_mark_settled(match=match_id, actor=actor)
    assert again.settled_at == settled.settled_at
    with pytest.raises(MatchNotFinishedProblem):  # the locked row, as settlement holds it
        match_settled_record(match=again, actor=actor)
    assert AuditEvent.objects.filter(action="match.settled", object_id=str(match_id)).count() == 1


def test_the_admin_hides_a_live_hands_secrets(alice, bob, practice_table, seeds, admin_client):
    match_id, _ = seat_both(alice, bob, practice_table.pk)
    hand = Hand.objects.get(match_id=match_id)
    for url in (
        "/admin/games/room/",
        f"/admin/games/room/{practice_table.room_id}/change/",
        "/admin/games/table/",
        "/admin/games/match/",
        f"/admin/games/match/{match_id}/change/",
        "/admin/games/seat/",
        "/admin/games/hand/",
        f"/admin/games/hand/{hand.pk}/change/",
        "/admin/games/handevent/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert hand.server_seed not in response.content.decode(), url
    event = HandEvent.objects.filter(match_id=match_id).first()
    page = admin_client.get(f"/admin/games/handevent/{event.pk}/change/").content.decode()
    assert "hidden until the hand is over" in page


def test_room_factories_cover_every_variant():
    for traits in ({}, {"ftk": True}, {"money": True}, {"practice": True}):
        room = RoomFactory(**traits)
        TableFactory(room=room)
        assert room.pk


def _assert_shape(data, serializer) -> None:
    """``data`` has exactly the serializer's fields (optional ones may be absent), nested."""
    fields = serializer.fields
    assert set(data) <= set(fields), set(data) - set(fields)
    for name, field in fields.items():
        if name not in data:
            assert not field.required, name
            continue
        value = data[name]
        if value is None:
            assert field.allow_null, name
        elif isinstance(field, serializers.ListSerializer):
            for item in value:
                _assert_shape(item, field.child)
        elif isinstance(field, serializers.Serializer):
            _assert_shape(value, field)


@pytest.mark.slow
def test_the_game_view_has_exactly_the_documented_shape(
    alice, bob, practice_table, seeds, django_capture_on_commit_callbacks
):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    shapes = []

    def check(response, seat):
        if response.request["PATH_INFO"].endswith("/view"):
            _assert_shape(response.json(), GameViewOutput())
            shapes.append(seat)

    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(seats, match_id, on_response=check)
    assert len(shapes) > 10


def test_out_of_range_ids_and_filters_are_refused_not_crashed(
    alice, bob, operator_client, practice_table, seeds
):
    """Found by the API fuzzer (tests/fuzz): numbers past 64 bits and NUL characters."""
    match_id, _ = seat_both(alice, bob, practice_table.pk)
    huge = "99999999999999999999999"
    for response in (
        alice.get(f"/api/v1/matches/{huge}/view"),
        alice.get(f"/api/v1/matches/{huge}/events"),
        alice.post(f"/api/v1/matches/{huge}/actions", {}, format="json"),
        alice.post(f"/api/v1/tables/{huge}/sit", {}, format="json"),
        alice.get(f"/api/v1/lobby/{huge}"),
        operator_client.get(f"/api/v1/matches/{huge}"),
        operator_client.get(f"/api/v1/rooms/{huge}"),
    ):
        assert response.status_code == 404
    for query in ("room=9223372036854775808", "status=%00", "status=bogus", "room=x"):
        response = operator_client.get(f"/api/v1/matches?{query}")
        assert response.status_code == 400, query
    assert alice.get(f"/api/v1/matches/{match_id}/events?after={huge}").status_code == 400
    response = alice.post(
        f"/api/v1/matches/{match_id}/actions",
        {"kind": "pass", "expected_seq": int(huge)},
        format="json",
    )
    assert response.status_code == 400
    assert operator_client.get("/api/v1/matches?room=1").status_code == 200


def test_a_stake_past_any_real_amount_is_refused(operator_client, idem):
    response = operator_client.post(
        "/api/v1/rooms",
        {"name": "Big", "variant": "ftk", "stake": "99999999999999999999"},
        format="json",
        **idem(),
    )
    assert response.status_code == 422 and response.json()["field"] == "stake"
