"""The production topology (deploy/cluster/, docs/deploy.md "The topology on one machine")
started for real: its own PostgreSQL primary and synchronous replica, PgBouncer in
transaction mode, a private Redis, two web nodes behind HAProxy, two Celery workers and beat.

A move made over HAProxy on node A reaches a socket held through HAProxy on node B (the
channel layer carries it between the nodes), every request goes through PgBouncer, the
buy-ins acknowledged to the players are on the replica (synchronous commit), and after the
failover (the replica promoted, PgBouncer repointed) the same players move on through the
same nodes, nothing restarted. Needs haproxy and pgbouncer (``make cluster-tools``); fails,
never skips, without them.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from games.engine import choose_action_from_view
from gin_platform.demo.client import ApiClient
from tests.benchmarks.harness import SEED_CODE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "cluster"))
from cluster_configs import PORT_OFFSETS
from cluster_processes import ROOT, missing_tools
from topology import Topology

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def free_port_base() -> int:
    """A port base whose every port (PORT_OFFSETS) is free now."""
    for base in range(31000, 60000, 137):
        if all(_free(base + offset) for offset in PORT_OFFSETS.values()):
            return base
    raise RuntimeError("no free port range")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def cluster() -> Iterator[Topology]:
    missing = missing_tools()
    assert not missing, (
        f"the topology needs {', '.join(missing)}: run `make cluster-tools` "
        f"(as root: apt-get install -y {' '.join(missing)})"
    )
    # Under the project's var/, not the test's tmp_path: as root, PostgreSQL runs as its own
    # user, who must be able to reach its data directory (pytest's are root's alone).
    directory = ROOT / "var" / f"cluster-test-{uuid.uuid4().hex[:8]}"
    topology = Topology(
        directory=directory,
        port_base=free_port_base(),
        web_workers=1,
        extra_env={"THROTTLE_PLAYER": "100000/min", "THROTTLE_OPERATOR": "100000/min"},
        say=lambda line: None,
    )
    try:
        topology.start()
        yield topology
    finally:
        topology.stop()
        shutil.rmtree(directory, ignore_errors=True)


def _seed(topology: Topology) -> tuple[ApiClient, list[str], list[ApiClient], int]:
    out = topology.manage("shell", "-c", SEED_CODE)
    key = json.loads(next(x for x in out.splitlines() if x.startswith("SEED "))[5:])["operator_key"]
    operator = ApiClient(topology.base_url, token=key)
    room = operator.write(
        "POST",
        "/api/v1/rooms",
        {"name": "cluster", "currency": "EUR", "variant": "ftk", "seats": 2, "stake": "1.00"},
    )
    ids, players = [], []
    for n in range(2):
        body = operator.write(
            "POST",
            "/api/v1/players",
            {
                "external_ref": f"cluster-{n}",
                "display_name": f"cluster-{n}",
                "wallet_currency": "EUR",
                "display_currency": "EUR",
                "kyc_status": "verified",
            },
        )
        operator.write(
            "POST", f"/api/v1/players/{body['id']}/deposits", {"amount": "50.00", "currency": "EUR"}
        )
        token = operator.write("POST", f"/api/v1/players/{body['id']}/sessions", {})["token"]
        ids.append(body["id"])
        players.append(ApiClient(topology.base_url, token=token))
    return operator, ids, players, room["id"]


def _on_node(client: ApiClient, node: str, method: str, path: str, body=None) -> dict:
    return client.request(method, path, body, headers={"X-Gin-Node": node})


def _served_by(topology: Topology, node: str) -> str:
    request = urllib.request.Request(
        topology.base_url + "/api/v1/health/live", headers={"X-Gin-Node": node}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.headers["X-Served-By"]


def _transactions(topology: Topology, data_dir: str) -> int:
    return int(topology.psql(data_dir, "SELECT count(*) FROM wallet_ledgertransaction"))


def _pgbouncer_transactions(topology: Topology) -> int:
    out = topology.psql_pgbouncer("SHOW STATS")
    for line in out.splitlines():
        cells = line.split("|")
        if cells[0] == "gin":
            return int(cells[1])  # total_xact_count
    return 0


async def _move_and_push(topology: Topology, players, match_id: int) -> dict:
    """The mover's move over HAProxy forced onto node A; the other player's socket, through
    HAProxy forced onto node B, receives it. Which node served each is HAProxy's
    X-Served-By."""
    view = _on_node(players[0], "a", "GET", f"/api/v1/matches/{match_id}/view")
    mover = view["hand"]["to_act"]
    watcher = 1 - mover
    ticket = _on_node(players[watcher], "b", "POST", "/api/v1/socket-tickets")["ticket"]
    ws_url = "ws" + topology.base_url.removeprefix("http")
    async with connect(
        f"{ws_url}/ws/v1/matches/{match_id}?ticket={ticket}",
        additional_headers={"X-Gin-Node": "b"},
        proxy=None,
        open_timeout=30,
    ) as sock:
        assert sock.response.headers["X-Served-By"] == "web_b"
        hello = json.loads(await asyncio.wait_for(sock.recv(), 30))
        assert hello["type"] == "hello"
        mover_view = _on_node(players[mover], "a", "GET", f"/api/v1/matches/{match_id}/view")
        move = choose_action_from_view(mover_view["hand"])
        answer = _on_node(
            players[mover],
            "a",
            "POST",
            f"/api/v1/matches/{match_id}/actions",
            {**move, "expected_seq": mover_view["seq"]},
        )
        while True:
            message = json.loads(await asyncio.wait_for(sock.recv(), 30))
            if message.get("type") == "events" and message["view"]["seq"] >= answer["seq"]:
                return message


def test_a_move_on_node_a_reaches_a_socket_on_node_b_through_pgbouncer_and_survives_failover(
    cluster,
):
    # Another process (bench_push.py --cluster) finds the running topology from its
    # directory alone: pids.json records the port base.
    assert Topology(directory=cluster.directory).load().ports == cluster.ports
    operator, ids, players, room_id = _seed(cluster)
    tables = players[0].get(f"/api/v1/lobby/{room_id}")["tables"]
    table = next(t["id"] for t in tables if t["free_seats"] == 2)
    seats = [p.post(f"/api/v1/tables/{table}/sit") for p in players]
    match_id = seats[0]["match_id"]
    assert seats[1]["match_id"] == match_id
    assert {node: _served_by(cluster, node) for node in "ab"} == {"a": "web_a", "b": "web_b"}

    before = _pgbouncer_transactions(cluster)
    pushed = asyncio.run(_move_and_push(cluster, players, match_id))
    assert pushed["view"]["match"]["id"] == match_id
    assert _pgbouncer_transactions(cluster) > before  # the requests went through PgBouncer

    # Synchronous commit: every transaction acknowledged is on the replica already.
    on_primary = _transactions(cluster, "pg-primary")
    assert on_primary >= 4  # two deposits, two buy-ins
    assert _transactions(cluster, "pg-replica") == on_primary

    # The primary lost: the replica promoted, PgBouncer repointed; web, workers and the
    # same clients carry on, nothing restarted.
    web = {name: cluster.pids[name] for name in ("web_a", "web_b", "worker_1", "worker_2")}
    cluster.primary_crash()
    cluster.promote()
    assert cluster.primary == "pg-replica"
    assert _transactions(cluster, "pg-replica") == on_primary
    assert cluster.psql("pg-replica", "SHOW synchronous_standby_names").strip() == ""
    pushed = asyncio.run(_move_and_push(cluster, players, match_id))
    assert pushed["view"]["match"]["id"] == match_id
    deposit = operator.write(
        "POST", f"/api/v1/players/{ids[0]}/deposits", {"amount": "1.00", "currency": "EUR"}
    )
    assert deposit["amount"]["amount"] == "1.00"
    assert _transactions(cluster, "pg-replica") == on_primary + 1
    assert {name: cluster.pids[name] for name in web} == web
