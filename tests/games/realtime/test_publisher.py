"""The publisher: pushes after the commit only, one per transaction and audience, rendered
only for audiences somebody listens to, and filtered like the REST answers."""

from __future__ import annotations

import json

import pytest
from django.db import transaction

from games import selectors
from games.models import HandEvent
from games.realtime import layer_send, presence, publisher
from games.realtime.audience import Audience, match_audiences
from games.services import room_create
from tests.factories import SYSTEM
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    Seats,
    play_to_end,
    seat_both,
    sit,
    view,
)
from tests.games.realtime.helpers import check_message
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def running(alice, bob, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    return match_id, seats


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


@pytest.mark.parametrize("players", [2, 3])
def test_a_moves_push_is_the_push_reading_it_back_would_send(
    players, operator, make_player_client, seeds, sent, written_args
):
    """A move's push renders what the move wrote (``match_written``), not a read-back: for
    every move of a Match Play game, heads-up or R12 (discards, hands ended, new deals, the
    match finished) it is text for text what reading the match back after the commit
    sends."""
    room = room_create(
        operator=operator,
        name="Match Play",
        variant="match",
        target=100,
        currency=operator.base_currency,
        stake=100,
        fee_bps=500,
        seats=players,
        prize_table=None if players == 2 else "70_30",
        actor=SYSTEM,
    )
    table = TableFactory(room=room)
    clients = {}
    for number in range(players):
        client = make_player_client(display_name=f"Player {number}")
        fund(client.player, 10**5)
        answer = sit(client, table.pk)
        assert answer.status_code == 201, answer.json()
        clients[answer.json()["position"]] = client
    match_id = answer.json()["match_id"]
    _listen_all(match_id)
    compared = 0

    def compare(response, seat):
        nonlocal compared
        if "/actions" not in response.request["PATH_INFO"]:
            return
        # Every move of a running game is rendered from memory; the last one is followed
        # by the settlement's push (eager Celery), which reads the match back.
        assert written_args[-1] or response.json()["match"]["status"] != "running"
        pushed = {group: message for group, message in sent}
        sent.clear()
        first = {message["first"] for message in pushed.values()}.pop()
        last = {message["last"] for message in pushed.values()}.pop()
        publisher.publish(  # read back
            match_id=match_id, after=first - 1 if first else None, last=last or None
        )
        assert {group: message["text"] for group, message in sent} == {
            group: message["text"] for group, message in pushed.items()
        }
        sent.clear()
        compared += 1

    game = play_to_end(Seats(clients), match_id, on_response=compare)
    assert game.final_views[0]["match"]["status"] in ("finished", "settled")
    assert compared == game.actions > 50


@pytest.fixture
def written_args(monkeypatch):
    """The ``written`` argument of every push the publisher makes (None: read back)."""
    calls: list = []
    read_back = publisher.publish

    def publish(**kwargs):
        calls.append(kwargs.get("written"))
        read_back(**kwargs)

    monkeypatch.setattr(publisher, "publish", publish)
    return calls


def _written_state(match_id: int):
    match = selectors.match_for_push(match_id=match_id)
    return match, selectors.latest_hands(match)


@pytest.mark.parametrize("where", ["rows in a savepoint", "state in a savepoint", "changed after"])
def test_what_a_savepoint_could_undo_is_read_back(running, sent, written_args, where):
    """Rows or a final state handed over inside a savepoint (which could roll back while
    the transaction commits), or a change after the final state: the push reads back."""
    match_id, _ = running
    _listen_all(match_id)
    rows = list(HandEvent.objects.filter(match_id=match_id).order_by("match_seq"))
    match, hands = _written_state(match_id)
    with transaction.atomic():
        if where == "rows in a savepoint":
            with transaction.atomic():
                publisher.match_changed(match_id=match_id, rows=rows)
        else:
            publisher.match_changed(match_id=match_id, rows=rows)
        if where == "state in a savepoint":
            with transaction.atomic():
                publisher.match_written(match=match, latest_hands=hands)
        else:
            publisher.match_written(match=match, latest_hands=hands)
        if where == "changed after":
            publisher.match_changed(match_id=match_id)
    assert written_args == [None] and sent


def test_a_whole_change_outside_savepoints_is_rendered_as_written(running, sent, written_args):
    match_id, _ = running
    _listen_all(match_id)
    rows = list(HandEvent.objects.filter(match_id=match_id).order_by("match_seq"))
    match, hands = _written_state(match_id)
    with transaction.atomic():
        publisher.match_changed(match_id=match_id, rows=rows)
        publisher.match_written(match=match, latest_hands=hands)
    (written,) = written_args
    assert written is not None and written.rows == rows and written.match is match
