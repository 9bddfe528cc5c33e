"""A player's client reconnecting (``after=N``) again and again while the opponent's moves
commit, against the live server over real sockets: every message it gets is the view of its
own ``seq`` with the events that lead there, and it always ends on the view the REST API
shows, so it is shown its turn (docs/realtime.md "Resume"). The table page keeps the last
view it got as the game's state; a view older than its events once cost a player the match
on time."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
import requests
from websockets.sync.client import connect

from games import engine

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 60
TIMEOUT = 10


class Player:
    """A player's session on the live server: REST with its token, and sockets."""

    def __init__(self, site, base_url: str, name: str) -> None:
        player = site.player(name)
        self.token = site.post(f"players/{player['id']}/sessions", {})["token"]
        self.base_url = base_url
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {self.token}"

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        response = self.http.request(
            method, f"{self.base_url}/api/v1/{path}", json=body, timeout=TIMEOUT
        )
        assert response.status_code in (200, 201), (path, response.status_code, response.text)
        return response.json()

    def move(self, match_id: int) -> dict:
        mine = self.call("GET", f"matches/{match_id}/view")
        move = engine.choose_action_from_view(mine["hand"])
        return self.call(
            "POST", f"matches/{match_id}/actions", {**move, "expected_seq": mine["seq"]}
        )

    def socket_url(self, match_id: int, *, after: int) -> str:
        ticket = self.call("POST", "socket-tickets", {})["ticket"]
        ws_base = self.base_url.replace("http://", "ws://")
        return f"{ws_base}/ws/v1/matches/{match_id}?ticket={ticket}&after={after}"


def _read_until(socket, seq: int, shown: int) -> tuple[dict, int]:
    """Messages until one with a view of ``seq``, each checked: a view of its own seq, its
    events exactly the ones after what the client has shown. The last view and its seq."""
    last = None
    deadline = time.monotonic() + TIMEOUT
    while last is None or last["seq"] < seq:
        message = json.loads(socket.recv(timeout=max(deadline - time.monotonic(), 0.01)))
        if not message.get("view"):
            continue
        assert message["view"]["seq"] == message["seq"], message
        events = [event["seq"] for event in message.get("events", ())]
        if message["type"] == "hello":
            assert message["seq"] >= shown
        else:
            assert events == list(range(shown + 1, message["seq"] + 1)), (shown, message)
            shown = message["seq"]
        last = message
    return last, shown


def test_a_player_resuming_while_the_opponent_moves_always_ends_on_the_current_view(
    site, play_server
):
    room = site.room(
        name="Resume", variant="match", target=100, is_practice=True, stake="100", turn_seconds=600
    )
    players = [Player(site, play_server.url, name) for name in ("Ana", "Ben")]
    table_id = players[0].call("GET", f"lobby/{room['id']}")["tables"][0]["id"]
    by_seat = {}
    for player in players:
        seat = player.call("POST", f"tables/{table_id}/sit", {})
        by_seat[seat["position"]] = player
    match_id = seat["match_id"]
    me, opponent = by_seat[0], by_seat[1]
    shown = 0
    rng = random.Random(20261203)
    opponent_moves = 0
    for _ in range(ROUNDS):
        now = me.call("GET", f"matches/{match_id}/view")
        if now["match"]["status"] != "running":
            break
        if now["hand"]["to_act"] == 0:
            me.move(match_id)
            continue
        # The opponent's move commits while the socket opens and resumes.
        url = me.socket_url(match_id, after=shown)
        delay = rng.uniform(0, 0.03)
        mover = threading.Thread(
            target=lambda delay=delay: (time.sleep(delay), opponent.move(match_id))
        )
        mover.start()
        with connect(url, open_timeout=TIMEOUT, max_size=2**22) as socket:
            mover.join()
            now = me.call("GET", f"matches/{match_id}/view")
            last, shown = _read_until(socket, now["seq"], shown)
        opponent_moves += 1
        assert last["seq"] == now["seq"]
        assert last["view"]["hand"]["to_act"] == now["hand"]["to_act"]
        if now["match"]["status"] == "running":
            assert last["view"] == now
        else:  # the last move: settlement may follow at the same seq, in either read
            assert last["view"]["hand"] == now["hand"]
    assert opponent_moves >= 10
