"""The API shapes of the games app (games/api/presenters.py): one field whitelist per shape,
the output serializer's declared fields, so what a player or a watcher may receive is
written once; a field the engine adds to its views later never leaves the server."""

from __future__ import annotations

import pytest

from games import engine, selectors
from games.api import presenters
from games.api.serializers import (
    HandViewOutput,
    MatchResultOutput,
    ShowdownOutput,
    WatchHandOutput,
)
from games.models import Hand, Match
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, json_keys, play_to_end, seat_both, view, watch

pytestmark = pytest.mark.django_db

SECRET_KEYS = {"stock_order", "opponent_hand", "server_seed"}


def test_each_whitelist_is_the_serializers_declared_fields():
    for keys, serializer in (
        (presenters.HAND_VIEW_KEYS, HandViewOutput),
        (presenters.WATCH_HAND_KEYS, WatchHandOutput),
        (presenters.SHOWDOWN_KEYS, ShowdownOutput),
        (presenters.PUBLIC_RESULT_KEYS, MatchResultOutput),
    ):
        assert keys == tuple(serializer().fields), serializer.__name__


def _leaky(view_function):
    """An engine view that grew fields which must never reach a client."""

    def leaky(*args, **kwargs):
        state = args[0]
        return {
            **view_function(*args, **kwargs),
            "stock_order": [str(card) for card in state.stock],
            "opponent_hand": [str(card) for card in state.hands[0]],
            "server_seed": state.seed,
        }

    return leaky


@pytest.mark.slow
def test_fields_the_engine_adds_to_its_views_never_leave_the_server(
    alice, bob, make_player_client, operator, seeds, monkeypatch
):
    monkeypatch.setattr(engine, "player_view", _leaky(engine.player_view))
    monkeypatch.setattr(engine, "watcher_view", _leaky(engine.watcher_view))
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    watcher = make_player_client(display_name="Watcher")
    shown = {"hand": 0, "previous_hand": 0}

    def check(response, seat):
        for body in (response.json(), watch(watcher, match_id).json()):
            assert not json_keys(body) & SECRET_KEYS, response.request["PATH_INFO"]
            for part in shown:
                shown[part] += bool(body.get(part))

    play_to_end(seats, match_id, on_response=check)
    assert shown["hand"] > 10 and shown["previous_hand"] > 0  # both paths were looked at


def test_a_view_never_pairs_an_older_seq_with_newer_cards(alice, bob, operator, seeds):
    """A move that commits between a view's read of the match and its read of the hands:
    the match is read again, so the view's seq is the state its cards are in and a client
    acting on it is not refused as stale (a load test met this race over sockets)."""
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    stale = Match.objects.get(pk=match_id)  # the view's first read ...
    read_seq = stale.seq
    to_act = view(seats[0], match_id).json()["hand"]["to_act"]
    look = view(seats[to_act], match_id).json()
    move = engine.choose_action_from_view(look["hand"])
    moved = act(seats[to_act], match_id, **move, expected_seq=look["seq"])  # ... a move ...
    assert moved.status_code == 200, moved.json()

    shown = presenters.game_view(match=stale, seat=to_act)  # ... then its hands
    newest = Hand.objects.filter(match_id=match_id).order_by("-number").first()
    assert shown["seq"] == Match.objects.get(pk=match_id).seq > read_seq
    assert shown["hand"]["state_seq"] == newest.seq
    if shown["hand"]["to_act"] == to_act:  # the mover acts on; its seq is accepted
        again = engine.choose_action_from_view(shown["hand"])
        assert act(seats[to_act], match_id, **again, expected_seq=shown["seq"]).status_code == 200


def test_an_ended_hands_showdown_is_worked_out_once_for_every_viewer(
    alice, bob, operator, seeds, monkeypatch
):
    """The showdown is the same for every viewer: a push renders it once for all its
    audiences (the hands it was given), and an ended hand's once per process."""
    match_id = _played_into_the_second_hand(alice, bob, operator)
    match = Match.objects.get(pk=match_id)
    latest = selectors.latest_hands(match)
    presenters.recent_showdowns.clear()  # the moves above showed the first hand's
    worked_out = []
    watcher_view = engine.watcher_view
    monkeypatch.setattr(
        engine, "watcher_view", lambda state: worked_out.append(1) or watcher_view(state)
    )

    views = [presenters.game_view(match=match, seat=seat, latest_hands=latest) for seat in (0, 1)]
    assert views[0]["previous_hand"] == views[1]["previous_hand"] is not None
    assert views[0]["previous_hand"]["number"] == 1 and len(worked_out) == 1
    # The next move reads the ended hand again: this process has its showdown already.
    reloaded = Hand.objects.get(pk=latest[1].pk)
    assert presenters.showdown_view(hand=reloaded) == views[0]["previous_hand"]
    assert len(worked_out) == 1
    # A hand in another state (the current one, once it ends) is worked out on its own.
    current = Hand.objects.get(pk=latest[0].pk)
    assert current.status == Hand.Status.IN_PROGRESS
    presenters.showdown_view(hand=current)
    presenters.showdown_view(hand=Hand.objects.get(pk=latest[0].pk))
    assert len(worked_out) == 3  # not ended: nothing kept past its instance


def test_an_ended_hands_showdown_kept_by_the_process_is_that_hands_own(alice, bob, operator, seeds):
    """The process keeps an ended hand's showdown under its id, its state's seq and its
    seed's commitment: a hand with the same id but another deal (a database made anew)
    is worked out for itself, and the oldest showdowns go first."""
    match_id = _played_into_the_second_hand(alice, bob, operator)
    ended = Hand.objects.get(match_id=match_id, number=1)
    shown = presenters.showdown_view(hand=ended)
    assert presenters.showdown_view(hand=Hand.objects.get(pk=ended.pk)) is shown

    other = Hand.objects.get(pk=ended.pk)
    other.seed_commitment = "0" * 64  # as if another deal had this id
    assert presenters.showdown_view(hand=other)["seed_commitment"] == "0" * 64

    kept = presenters.RecentShowdowns(size=2)
    for number in range(3):
        kept.put((number,), {"number": number})
    assert kept.get((0,)) is None and kept.get((2,)) == {"number": 2}


def _played_into_the_second_hand(alice, bob, operator) -> int:
    """A practice match played over REST until its second hand is dealt; its id."""
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    for _ in range(500):
        look = view(seats[0], match_id).json()
        if look["hand"]["number"] > 1:
            return match_id
        mine = view(seats[look["hand"]["to_act"]], match_id).json()
        move = engine.choose_action_from_view(mine["hand"])
        act(seats[look["hand"]["to_act"]], match_id, **move, expected_seq=mine["seq"])
    raise AssertionError("no second hand after 500 moves")
