"""The tournament watch socket, /ws/v1/tournaments/{id}/watch (docs/realtime.md "A
tournament's bracket"), over real sockets on the ASGI application and the channel layer the
other socket tests use (Redis when REDIS_URL is set): the snapshot of its hello is the
bracket as GET .../bracket shows it to that viewer, every change after a commit arrives with
the next version and the same shape, a gap is repaired with a snapshot (a lost push, at the
next push or heartbeat), a player or the operator itself may watch (the operator with its
API key's ticket), and at a network tournament no frame to one operator's watchers names
another operator's player."""

from __future__ import annotations

import json
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import channel_layers, get_channel_layer
from django.db import transaction
from django.db.models import F

from tests.factories import SYSTEM, OperatorFactory
from tests.games.network_world import member_make, network_make, player_client
from tests.games.realtime.helpers import Socket, mint_ticket, open_socket
from tests.helpers import operator_api, session_client
from tests.tournaments.test_lifecycle import funded_player, play_out, sit_and_go
from tests.wallet.factories import fund
from tournaments.models import Tournament
from tournaments.realtime import publisher
from tournaments.services.creation import TournamentOptions, tournament_create
from tournaments.services.lifecycle import tournament_cancel
from tournaments.services.registration import entry_register, entry_unregister

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

sync = database_sync_to_async


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """A channel layer of its own for each test (a layer keeps per-loop state)."""
    channel_layers.backends.clear()
    async_to_sync(get_channel_layer().flush)()
    yield
    async_to_sync(get_channel_layer().flush)()
    channel_layers.backends.clear()


def watch_path(tournament_id: int) -> str:
    return f"/ws/v1/tournaments/{tournament_id}/watch"


async def watching(client, tournament_id: int) -> tuple[Socket, dict]:
    """A socket of ``client`` (a player's or an operator's API client) on the tournament,
    past its hello."""
    socket = await open_socket(watch_path(tournament_id), ticket=await mint_ticket(client))
    hello = await socket.receive_type("hello")
    return socket, hello


def rest(client, path: str):
    response = client.get(path)
    assert response.status_code == 200, response.content
    return response.json()


async def test_a_watcher_gets_the_snapshot_then_every_change_with_the_next_version():
    operator = await sync(OperatorFactory)()
    players = [await sync(funded_player)(operator) for _ in range(4)]
    tournament = await sync(sit_and_go)(operator, entries=4)
    watcher = await sync(session_client)(players[0])
    socket, hello = await watching(watcher, tournament.pk)
    assert hello["bracket"] == [] and hello["tournament"]["status"] == "registering"
    assert hello["heartbeat_seconds"] > 0
    version = hello["version"]

    await sync(entry_register)(player=players[0], tournament=tournament, actor=SYSTEM)
    registered = await socket.receive_type("bracket")
    assert registered["version"] == version + 1 and registered["changes"] == ["entries"]
    assert registered["tournament"]["entries"] == 1 and registered["tables"] == []
    await sync(entry_unregister)(player=players[0], tournament=tournament, actor=SYSTEM)
    assert (await socket.receive_type("bracket"))["tournament"]["entries"] == 0
    for player in players:  # the fourth fills it: the start, in a transaction of its own
        await sync(entry_register)(player=player, tournament=tournament, actor=SYSTEM)
    pushes = [await socket.receive_type("bracket") for _ in range(5)]
    assert [push["version"] for push in pushes] == list(range(version + 3, version + 8))
    started = pushes[-1]
    assert started["changes"] == ["started", "seated"]
    assert started["tournament"]["status"] == "running"
    rest_bracket = await sync(rest)(watcher, f"/api/v1/tournaments/{tournament.pk}/bracket")
    assert started["tables"] == rest_bracket  # every table, as GET .../bracket shows them
    assert [table["status"] for table in rest_bracket] == ["playing", "playing", "pending"]

    await sync(play_out)(tournament)
    last = started["version"]
    kinds = []
    while True:
        push = await socket.receive_type("bracket")
        assert push["version"] == last + 1  # none skipped, none twice
        last = push["version"]
        kinds += push["changes"]
        if push["tournament"]["status"] == "finished":
            break
    assert kinds.count("result") == 3 and "places" in kinds and kinds[-1] == "finished"
    snapshot = await sync(rest)(watcher, f"/api/v1/tournaments/{tournament.pk}/bracket")
    assert push["tables"][-1] == snapshot[-1]  # the final, with its ranking
    detail = await sync(rest)(watcher, f"/api/v1/tournaments/{tournament.pk}")
    assert push["tournament"] == detail  # the seed revealed with the end
    assert await socket.nothing_more()
    await socket.close()

    again, hello = await watching(watcher, tournament.pk)
    assert hello["version"] == last
    assert hello["bracket"] == snapshot and hello["tournament"] == detail
    await again.close()


async def test_a_cancellation_pushes_the_tables_it_stopped():
    operator = await sync(OperatorFactory)()
    players = [await sync(funded_player)(operator) for _ in range(4)]
    tournament = await sync(sit_and_go)(operator, entries=4)
    for player in players:
        await sync(entry_register)(player=player, tournament=tournament, actor=SYSTEM)
    watcher = await sync(session_client)(players[0])
    socket, hello = await watching(watcher, tournament.pk)
    assert [table["status"] for table in hello["bracket"]] == ["playing", "playing", "pending"]

    await sync(tournament_cancel)(tournament_id=tournament.pk, reason="operator", actor=SYSTEM)

    push = await socket.receive_type("bracket")
    assert push["version"] == hello["version"] + 1
    assert push["changes"] == ["entries", "cancelled"]
    assert push["tournament"]["status"] == "cancelled"
    assert [(table["number"], table["status"]) for table in push["tables"]] == [
        (1, "aborted"),
        (2, "aborted"),
    ]
    await socket.close()


async def test_a_lost_push_is_repaired_with_a_snapshot_at_the_next_push_or_heartbeat(settings):
    operator = await sync(OperatorFactory)()
    players = [await sync(funded_player)(operator) for _ in range(3)]
    tournament = await sync(sit_and_go)(operator, entries=4)
    watcher = await sync(session_client)(players[0])
    socket, hello = await watching(watcher, tournament.pk)

    def change_unpushed() -> None:  # a change whose push the channel layer lost
        Tournament.objects.filter(pk=tournament.pk).update(bracket_version=F("bracket_version") + 1)

    await sync(change_unpushed)()
    await sync(entry_register)(player=players[1], tournament=tournament, actor=SYSTEM)
    repaired = await socket.receive()
    assert repaired["type"] == "snapshot" and repaired["version"] == hello["version"] + 2
    assert repaired["tournament"]["entries"] == 1 and repaired["bracket"] == []
    await socket.close()

    settings.REALTIME_HEARTBEAT_SECONDS = 1
    socket, hello = await watching(watcher, tournament.pk)
    await sync(change_unpushed)()
    repaired = await socket.receive(timeout=5)
    assert repaired == {**repaired, "type": "snapshot", "version": hello["version"] + 1}
    assert await socket.receive_type("ping") == {"type": "ping", "version": repaired["version"]}
    await socket.send({"type": "ping"})
    assert (await socket.receive_type("pong"))["version"] == repaired["version"]
    await socket.close()


async def test_a_change_rolled_back_is_never_pushed():
    operator = await sync(OperatorFactory)()
    player = await sync(funded_player)(operator)
    tournament = await sync(sit_and_go)(operator, entries=4)
    socket, hello = await watching(await sync(session_client)(player), tournament.pk)

    def registered_then_rolled_back() -> None:
        with pytest.raises(RuntimeError), transaction.atomic():
            entry_register(player=player, tournament=tournament, actor=SYSTEM)
            raise RuntimeError("rolled back")

    await sync(registered_then_rolled_back)()
    assert await socket.nothing_more()
    assert (await sync(Tournament.objects.get)(pk=tournament.pk)).bracket_version == hello[
        "version"
    ]
    await socket.close()


async def test_a_change_outside_a_transaction_is_pushed_at_once_whole():
    operator = await sync(OperatorFactory)()
    player = await sync(funded_player)(operator)
    tournament = await sync(sit_and_go)(operator, entries=4)
    socket, hello = await watching(await sync(session_client)(player), tournament.pk)
    await sync(publisher.bracket_changed)(tournament_id=tournament.pk, change="entries")
    push = await socket.receive_type("bracket")
    assert push["version"] == hello["version"] + 1 and push["changes"] == ["entries"]
    await socket.close()


async def test_a_change_names_its_kind():
    with pytest.raises(ValueError, match="unknown change"):
        publisher.bracket_changed(tournament_id=1, change="moved")


async def test_the_operator_watches_with_its_api_keys_ticket_and_nobody_else_gets_in():
    operator, other = await sync(OperatorFactory)(), await sync(OperatorFactory)()
    player = await sync(funded_player)(operator)
    tournament = await sync(sit_and_go)(operator, entries=2)
    api = await sync(operator_api)(operator)
    socket, hello = await watching(api, tournament.pk)
    await sync(entry_register)(player=player, tournament=tournament, actor=SYSTEM)
    push = await socket.receive_type("bracket")
    assert push["version"] == hello["version"] + 1 and push["tournament"]["entries"] == 1
    await socket.close()

    # An operator's ticket opens only a socket that watches.
    refused = await open_socket("/ws/v1/me", ticket=await mint_ticket(api))
    assert await refused.closed_with() == 4401
    assert refused.received[0]["problem"]["type"] == "/problems/socket-ticket-invalid"
    # Another operator's tournament does not exist for it, nor for its players.
    outsider = await sync(session_client)(await sync(funded_player)(other))
    for client in (await sync(operator_api)(other), outsider):
        socket = await open_socket(watch_path(tournament.pk), ticket=await mint_ticket(client))
        assert await socket.closed_with() == 4404
        assert socket.received[0]["problem"]["type"] == "/problems/not-found"
    socket = await open_socket(watch_path(tournament.pk), ticket="gst_nope")
    assert await socket.closed_with() == 4401


async def test_a_watching_socket_closes_when_its_key_is_revoked(settings):
    from gin_platform.models import OperatorApiKey  # noqa: PLC0415 (the test's own read)

    settings.REALTIME_HEARTBEAT_SECONDS = 1
    operator = await sync(OperatorFactory)()
    tournament = await sync(sit_and_go)(operator, entries=2)
    api = await sync(operator_api)(operator)
    socket, _ = await watching(api, tournament.pk)

    def revoke_every_key() -> None:
        OperatorApiKey.objects.filter(operator=operator).update(revoked_at="2000-01-01T00:00Z")

    await sync(revoke_every_key)()
    assert await socket.closed_with() == 4401
    assert socket.received[-1]["problem"]["type"] == "/problems/session-ended"


# --- A network tournament: nobody's identity across operators ----------------------------
class Side:
    """A member operator, its API client and three players of its own."""

    def __init__(self, name: str) -> None:
        self.operator = member_make(name=name, webhook_url="")
        self.api = operator_api(self.operator)
        self.players = [
            player_client(
                self.operator,
                screen_name=f"{name[:5]}{number}{uuid.uuid4().hex[:4]}",
                display_name=f"Display {name} {number}",
                external_ref=f"{name.lower()}-{number}-{uuid.uuid4().hex[:6]}",
            )
            for number in range(2)
        ]
        for client in self.players:
            fund(client.player, 100_000)

    def secrets(self) -> set[str]:
        """What no frame to another operator may carry: ids, references, display names."""
        return {
            value
            for client in self.players
            for value in (
                str(client.player.pk),
                client.player.external_ref,
                client.player.display_name,
            )
        } | {str(self.operator.pk)}


def _network_world() -> tuple[Tournament, list[Side]]:
    network = network_make()
    sides = [Side("Alpha"), Side("Bravo")]
    tournament = tournament_create(
        operator=network.operator,
        options=TournamentOptions(
            name="Network watch",
            kind="sit_and_go",
            seats=2,
            currency="EUR",
            max_entries=4,
            buy_in=1_000,
            entry_fee=100,
            round_settings=[{"variant": "ftk", "target": None}],
        ),
        actor=SYSTEM,
    )
    return tournament, sides


async def test_no_frame_to_one_operators_watchers_names_another_operators_player():
    tournament, (alpha, bravo) = await sync(_network_world)()
    sockets: dict[str, list[Socket]] = {"Alpha": [], "Bravo": []}
    for side in (alpha, bravo):
        for client in (side.api, side.players[0]):
            socket, _ = await watching(client, tournament.pk)
            sockets[side.operator.name].append(socket)
    for side in (alpha, bravo):
        for client in side.players:
            await sync(entry_register)(player=client.player, tournament=tournament, actor=SYSTEM)
    await sync(play_out)(tournament)
    for watchers in sockets.values():
        for socket in watchers:
            while True:
                push = await socket.receive_type("bracket")
                if push["tournament"]["status"] == "finished":
                    break
    assert await sync(lambda: Tournament.objects.get(pk=tournament.pk).status)() == "finished"

    for reader, other in ((alpha, bravo), (bravo, alpha)):
        frames = [text for socket in sockets[reader.operator.name] for text in socket.texts]
        assert len(frames) >= 8
        leaked = [secret for secret in other.secrets() if any(secret in f for f in frames)]
        assert leaked == [], (reader.operator.name, leaked)
        # Its own players it may name, and their ids are its own to know; the others are
        # screen names.
        final = json.loads(frames[-1])["tables"]
        assert final, "the final's push carries the final"
        own = {str(client.player.pk) for client in reader.players}
        screen_names = {client.player.screen_name for client in other.players}
        named = [seat for table in final for seat in table["players"]]
        for seat in named:
            assert seat["screen_name"]
            assert (seat["player_id"] is None) == (seat["player_id"] not in own)
            if seat["screen_name"] in screen_names:
                assert seat["display_name"] is None and seat["player_id"] is None
        for socket in sockets[reader.operator.name]:
            await socket.close()
