"""Pushes at a three- or four-seat table (R12): one audience per seat plus the watchers, each
message rendered like the REST answer for that seat (own hand, the others' card counts), the
watchers' with no hand; presence lists every seat, the house bots always here."""

from __future__ import annotations

import json

import pytest

from games import services as game_services
from games.models import Match
from games.realtime import presence, publisher
from games.realtime.audience import MAX_SEATS, Audience, match_audiences
from tests.factories import SYSTEM
from tests.games.factories import TableFactory
from tests.games.helpers import HiddenInformationChecker, sit, view
from tests.games.realtime.helpers import check_message

pytestmark = pytest.mark.django_db(transaction=True)


def four_seat_table(operator, **options):
    room = game_services.room_create(
        operator=operator,
        name="Four",
        variant="ftk",
        is_practice=True,
        stake=100,
        seats=4,
        actor=SYSTEM,
        **options,
    )
    return TableFactory(room=room)


def test_every_seat_and_the_watchers_get_their_own_push(operator, make_player_client, seeds, sent):
    table = four_seat_table(operator)
    clients = {}
    for number in range(4):
        client = make_player_client(display_name=f"P{number}")
        body = sit(client, table.pk).json()
        clients[body["position"]] = client
    match_id = body["match_id"]
    audiences = match_audiences(match_id, seat_count=4)
    assert [audience.seat for audience in audiences] == [0, 1, 2, 3, None]
    for audience in audiences:
        presence.listen(audience)
    publisher.publish(match_id=match_id, after=0)
    texts = {group: message["text"] for group, message in sent}
    assert sorted(texts) == sorted(audience.group for audience in audiences)
    checker = HiddenInformationChecker(match_id)
    for seat, client in clients.items():
        text = texts[Audience(match_id, seat).group]
        pushed = json.loads(text)["view"]
        assert pushed == json.loads(json.dumps(view(client, match_id).json()))
        assert len(pushed["hand"]["hand"]) == 7 and len(pushed["hand"]["card_counts"]) == 4
        check_message(checker, text, seat)
    watched = json.loads(texts[Audience(match_id, None).group])["view"]["hand"]
    assert "hand" not in watched and watched["card_counts"] == [7, 7, 7, 7]
    check_message(checker, texts[Audience(match_id, None).group], None)


def test_a_push_renders_no_seat_a_two_seat_table_lacks(operator, make_player_client, sent):
    table = four_seat_table(operator)
    client = make_player_client(display_name="Alone")
    match_id = sit(client, table.pk).json()["match_id"]
    for seat in range(MAX_SEATS):  # somebody listens on a seat nobody holds yet
        presence.listen(Audience(match_id, seat))
    publisher.publish(match_id=match_id)
    assert [group for group, _ in sent] == [Audience(match_id, 0).group]


def test_presence_lists_every_seat_and_the_house_bots_are_always_here(
    operator, make_player_client, seeds, sent
):
    table = four_seat_table(operator, bot_enabled=True)
    client = make_player_client(display_name="Host")
    body = sit(client, table.pk).json()
    match = Match.objects.get(pk=body["match_id"])
    assert len(match.house_bot_seats) == 3
    publisher.presence_changed(match_id=match.pk)
    groups = {group for group, _ in sent}
    assert groups == {audience.group for audience in match_audiences(match.pk, seat_count=4)}
    seats = sent[0][1]["presence"]
    assert [entry["seat"] for entry in seats] == [0, 1, 2, 3]
    assert {entry["seat"] for entry in seats if entry["connected"]} == set(match.house_bot_seats)
