"""The publisher: pushes after the commit only, one per transaction and audience, rendered
only for audiences somebody listens to, and filtered like the REST answers."""

from __future__ import annotations

import json

import pytest
from django.db import transaction

from games.models import HandEvent
from games.realtime import layer_send, presence, publisher
from games.realtime.audience import Audience, match_audiences
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import HiddenInformationChecker, seat_both, view
from tests.games.realtime.helpers import check_message

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def running(alice, bob, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    return match_id, seats


@pytest.fixture
def sent(monkeypatch):
    """Every group_send of the publisher, as (group, message)."""
    calls: list[tuple[str, dict]] = []

    class Layer:
        async def group_send(self, group, message):
            calls.append((group, message))

    monkeypatch.setattr(layer_send, "get_channel_layer", lambda: Layer())
    return calls


def _listen_all(match_id: int) -> None:
    for audience in match_audiences(match_id):
        presence.listen(audience)


def test_nothing_is_pushed_before_the_commit_nor_after_a_rollback(running, sent):
    match_id, _ = running
    _listen_all(match_id)
    rows = list(HandEvent.objects.filter(match_id=match_id))
    with pytest.raises(RuntimeError), transaction.atomic():
        publisher.match_changed(match_id=match_id, rows=rows)
        assert sent == []
        raise RuntimeError("rolled back")
    assert sent == []
    with transaction.atomic():
        publisher.match_changed(match_id=match_id, rows=rows[:1])
        publisher.match_changed(match_id=match_id, rows=rows[1:])
        publisher.match_changed(match_id=match_id)
        assert sent == []
    # One message per audience for the whole transaction, with every event.
    assert sorted(group for group, _ in sent) == sorted(
        audience.group for audience in match_audiences(match_id)
    )
    for _, message in sent:
        body = json.loads(message["text"])
        assert [event["seq"] for event in body["events"]] == [row.match_seq for row in rows]
        assert message["first"] == rows[0].match_seq and message["last"] == rows[-1].match_seq


def test_only_listened_audiences_are_rendered(running, sent):
    match_id, _ = running
    publisher.publish(match_id=match_id, after=0)
    assert sent == []
    presence.listen(Audience(match_id, 1))
    publisher.publish(match_id=match_id, after=0)
    assert [group for group, _ in sent] == [Audience(match_id, 1).group]


def test_each_seat_gets_its_own_view_and_never_the_other_hand(running, sent):
    match_id, seats = running
    _listen_all(match_id)
    publisher.publish(match_id=match_id, after=0)
    message_text = {group: message["text"] for group, message in sent}
    texts = {group: json.loads(text) for group, text in message_text.items()}
    checker = HiddenInformationChecker(match_id)
    for seat in (0, 1):
        body = texts[Audience(match_id, seat).group]
        rest = view(seats[seat], match_id).json()
        assert body["view"] == json.loads(json.dumps(rest))
        check_message(checker, message_text[Audience(match_id, seat).group], seat)
    check_message(checker, message_text[Audience(match_id, None).group], None)
    assert checker.responses_checked == 9


def test_a_failing_channel_layer_never_fails_the_move(running, monkeypatch, caplog):
    match_id, _ = running
    _listen_all(match_id)

    class Broken:
        async def group_send(self, group, message):
            raise ConnectionError("channel layer down")

    monkeypatch.setattr(layer_send, "get_channel_layer", lambda: Broken())
    with transaction.atomic():
        publisher.match_changed(match_id=match_id, rows=[])
    assert "push of match" in caplog.text


def test_with_nobody_listening_a_push_reads_nothing_from_the_database(
    running, sent, django_assert_num_queries
):
    match_id, _ = running
    with django_assert_num_queries(0):
        publisher.publish(match_id=match_id, after=0, last=7)
    assert sent == []
    assert presence.last_pushed_seq(match_id=match_id) == 7  # long polls still wake up
