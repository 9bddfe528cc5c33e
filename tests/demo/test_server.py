"""The demo's server helper starts the production web server (gunicorn, uvicorn workers,
``gin_platform.project.asgi:application``) on the embedded default: one process, HTTP and WebSockets
on one port, pushes through the in-memory channel layer."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games.engine import choose_action_from_view
from gin_platform.demo.client import ApiClient
from gin_platform.demo.server import running_server
from tests import processes

EMBEDDED = {"DATABASE_URL": None, "REDIS_URL": None, "CELERY_BROKER_URL": None, "GIN_ENV": None}
STAFF = ("ops", "pw-ops-serving-12345")
TIMEOUT = 10


def manage(env: dict[str, str | None], *args: str) -> str:
    """``manage.py <args>`` in this process's environment with ``env`` applied (None removes
    a name)."""
    return processes.manage({k: v for k, v in (os.environ | env).items() if v is not None}, *args)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> dict[str, str | None]:
    """A migrated embedded database (SQLite, no Redis) with a staff user and an operator."""
    env = EMBEDDED | {"GIN_VAR_DIR": str(tmp_path_factory.mktemp("embedded"))}
    manage(env, "migrate", "--verbosity", "0")
    manage(
        env | {"DJANGO_SUPERUSER_PASSWORD": STAFF[1]},
        "createsuperuser",
        "--noinput",
        "--username",
        STAFF[0],
        "--email",
        "ops@example.com",
    )
    env["TEST_OPERATOR_KEY"] = manage(env, "create_operator", "serving", "--key-only").strip()
    return env


@pytest.fixture(scope="module")
def server(embedded):
    with running_server(env=embedded) as running:
        yield running


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def staff_health(server) -> dict:
    basic = base64.b64encode(":".join(STAFF).encode()).decode()
    return ApiClient(server.url).request(
        "GET", "/api/v1/health", headers={"Authorization": f"Basic {basic}"}
    )


def test_the_embedded_default_is_served_by_one_asgi_process(server):
    assert len(children(server.process.pid)) == 1  # the in-memory layer's only process
    health = staff_health(server)
    assert health["server"] == "asgi"
    assert health["checks"] == {"database": "ok", "broker": "ok", "channel_layer": "ok"}
    assert health["detail"]["channel_layer"].startswith("InMemoryChannelLayer")


def test_a_socket_without_a_ticket_is_refused_with_4401(server):
    """docs/realtime.md §5: a problem message, then the close code."""
    with connect(server.ws_url + "/ws/v1/matches/1", open_timeout=TIMEOUT) as socket:
        message = json.loads(socket.recv(timeout=TIMEOUT))
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=TIMEOUT)
    assert message["type"] == "error"
    assert message["problem"]["status"] == 401
    assert closed.value.rcvd.code == 4401


def test_a_player_socket_gets_the_moves_as_they_are_made(server, embedded):
    """Over the real server: sit at a practice table (the house bot sits at once), open the
    match's socket with a ticket, move over REST; the move comes back on the socket, pushed
    through the channel layer of the one process."""
    operator = ApiClient(server.url, token=embedded["TEST_OPERATOR_KEY"])
    room = operator.write(
        "POST",
        "/api/v1/rooms",
        {"name": "Practice", "variant": "ftk", "is_practice": True, "bot_enabled": True}
        | {"stake": "100"},
    )
    player = operator.write(
        "POST",
        "/api/v1/players",
        {"external_ref": "socket-player", "display_name": "Sockets", "wallet_currency": "EUR"},
    )
    token = operator.write("POST", f"/api/v1/players/{player['id']}/sessions")["token"]
    me = ApiClient(server.url, token=token)
    table_id = me.get(f"/api/v1/lobby/{room['id']}")["tables"][0]["id"]
    match_id = me.post(f"/api/v1/tables/{table_id}/sit")["match_id"]
    ticket = me.post("/api/v1/socket-tickets")["ticket"]

    url = f"{server.ws_url}/ws/v1/matches/{match_id}?ticket={ticket}"
    with connect(url, open_timeout=TIMEOUT) as socket:
        hello = json.loads(socket.recv(timeout=TIMEOUT))
        assert hello["type"] == "hello" and hello["seat"] == 0
        view = me.get(f"/api/v1/matches/{match_id}/view")
        assert view["match"]["status"] == "running"
        assert view["hand"]["to_act"] == 0  # the bot has moved if it was its turn
        move = choose_action_from_view(view["hand"])
        me.post(f"/api/v1/matches/{match_id}/actions", {**move, "expected_seq": view["seq"]})
        pushed = json.loads(socket.recv(timeout=TIMEOUT))
        while pushed["type"] not in {"events"}:  # presence and views may come first
            pushed = json.loads(socket.recv(timeout=TIMEOUT))
    assert pushed["seq"] > hello["seq"]
    assert pushed["events"] and pushed["view"]["seq"] >= pushed["seq"]
