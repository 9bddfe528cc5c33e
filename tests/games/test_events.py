"""The events feed of a match, per-match sequence numbers, filtered for each viewer
(engine.event_view): another player's stock draw has no card; seeds and both hands appear only
when a hand has ended."""

from __future__ import annotations

import pytest

from games import engine
from games.api import presenters
from games.api.serializers import EventOutput
from games.models import Hand, HandEvent
from gin_platform.api.output import represent
from tests.games.helpers import act, events, play_to_end, seat_both, view

pytestmark = pytest.mark.django_db


def _step(seats, match_id) -> None:
    looks = {seat: view(seats[seat], match_id).json() for seat in (0, 1)}
    to_act = looks[0]["hand"]["to_act"]
    move = engine.choose_action_from_view(looks[to_act]["hand"])
    assert (
        act(seats[to_act], match_id, **move, expected_seq=looks[to_act]["seq"]).status_code == 200
    )


def test_each_player_sees_their_own_stock_draws_only(alice, bob, practice_table, seeds):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    while not HandEvent.objects.filter(match_id=match_id, kind="draw_stock").exists():
        _step(seats, match_id)
    draw = HandEvent.objects.get(match_id=match_id, kind="draw_stock")
    feeds = {seat: events(seats[seat], match_id).json() for seat in (0, 1)}
    for seat, feed in feeds.items():
        shown = next(e for e in feed["events"] if e["seq"] == draw.match_seq)
        assert shown["kind"] == "draw_stock" and shown["seat"] == draw.seat
        assert shown["card"] == (draw.payload["card"] if seat == draw.seat else None)
        assert [e["seq"] for e in feed["events"]] == list(range(1, feed["seq"] + 1))
        dealt = feed["events"][0]
        hand = Hand.objects.get(match_id=match_id, number=1)
        assert dealt["kind"] == "hand_dealt" and dealt["hand"] == 1
        assert dealt["seed_commitment"] == hand.seed_commitment
        assert dealt["dealer"] == hand.dealer
        assert hand.server_seed not in str(feed)
    # The two feeds differ only in the hidden card.
    assert len(feeds[0]["events"]) == len(feeds[1]["events"])


def test_the_feed_pages_by_sequence(alice, bob, practice_table, seeds):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    for _ in range(6):
        _step(seats, match_id)
    everything = events(alice, match_id).json()
    total = everything["seq"]
    assert total >= 7 and everything["next_after"] == total
    page = events(alice, match_id, after=2, limit=3).json()
    assert [e["seq"] for e in page["events"]] == [3, 4, 5]
    assert page["next_after"] == 5 and page["seq"] == total
    rest = events(alice, match_id, after=page["next_after"]).json()
    assert page["events"] + rest["events"] == everything["events"][2:]
    empty = events(alice, match_id, after=total).json()
    assert empty["events"] == [] and empty["next_after"] == total
    bad = alice.get(f"/api/v1/matches/{match_id}/events?after=x")
    assert bad.status_code == 400 and "after" in bad.json()["errors"]


@pytest.mark.slow
def test_hand_ends_reveal_the_showdown_and_the_match_end_is_an_event(
    alice, bob, practice_table, seeds, django_capture_on_commit_callbacks
):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(seats, match_id)
    feed = events(bob, match_id, limit=500).json()["events"]
    ended = [e for e in feed if e["kind"] == "hand_ended"]
    hands = Hand.objects.filter(match_id=match_id).order_by("number")
    assert len(ended) == hands.count()
    for event, hand in zip(ended, hands, strict=True):
        assert event["hand"] == hand.number
        assert event["seed"] == hand.server_seed
        assert event["outcome"] == hand.outcome
        assert len(event["hands"]) == 2
    dealt = [e for e in feed if e["kind"] == "hand_dealt"]
    assert [e["hand"] for e in dealt] == [hand.number for hand in hands]
    assert feed[-1]["kind"] == "match_finished"
    assert feed[-1]["reason"] == "target_reached"
    assert feed[-1]["winner_seat"] in (0, 1)


def test_every_event_a_socket_pushes_is_formatted_as_drf_formats_it(
    alice, bob, practice_table, seeds
):
    """``represent`` reads an event dict without DRF's per-field lookup
    (gin_platform/api/output.py): a hand played out and a resignation, as each seat and a
    watcher see them, give what DRF's own EventOutput gives, key order included."""
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    for _ in range(300):
        if HandEvent.objects.filter(match_id=match_id, kind="hand_ended").exists():
            break
        _step(seats, match_id)
    assert seats[0].post(f"/api/v1/matches/{match_id}/resign").status_code == 200
    rows = HandEvent.objects.filter(match_id=match_id).select_related("hand").order_by("match_seq")
    kinds = set()
    for row in rows:
        kinds.add(row.kind)
        for viewer in (0, 1, None):
            event = presenters.event_for_viewer(row, hand_number=row.hand.number, viewer=viewer)
            drf = EventOutput().to_representation(event)
            assert list(represent(EventOutput, event).items()) == list(drf.items())
    assert {"hand_dealt", "draw_stock", "discard", "hand_ended", "forfeit"} <= kinds
    assert "match_finished" in kinds
