"""A socket's `error` speaks its player's language (docs/realtime.md, docs/api-errors.md
"Languages"): the session's launch language, then the stored locale, then the
connection's Accept-Language; before a ticket admits anybody, Accept-Language."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from tests.games.helpers import seat_both
from tests.games.realtime.helpers import open_socket, player_socket
from tests.helpers import bearer_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

sync = database_sync_to_async


def _launched(operator_client, player, *, lang: str) -> APIClient:
    launched = operator_client.post(
        f"/api/v1/players/{player.pk}/launch",
        {"lang": lang},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"launch-{player.pk}-{lang}",
    )
    token = launched.json()["url"].split("#launch=", 1)[1]
    session = APIClient().post("/api/v1/launch/session", {"launch_token": token}, format="json")
    return bearer_client(session.json()["token"])


async def test_a_refused_move_on_the_socket_speaks_the_player_s_language(
    make_player_client, operator_client, table, seeds
):
    alice = await sync(make_player_client)(display_name="Alice", locale="es")
    bob = await sync(make_player_client)(display_name="Bob", locale="es-AR")
    match_id, seats = await sync(seat_both)(alice, bob, table.pk)
    sockets = {
        seat: await player_socket(seats[seat], match_id, accept_language="en") for seat in (0, 1)
    }
    hello = {seat: await sockets[seat].receive_type("hello") for seat in (0, 1)}
    to_act = hello[0]["view"]["hand"]["to_act"]
    seq = hello[0]["seq"]
    await sockets[to_act].send(
        {"type": "action", "id": "g", "kind": "big_gin", "expected_seq": seq}
    )
    error = (await sockets[to_act].receive_type("error"))["problem"]
    assert error["type"] == "/problems/illegal-action"
    assert error["title"] == "Esa acción no está permitida ahora"
    assert error["detail"] == (
        "Todavía no puedes hacer Gran Gin: primero coge la carta descubierta o pasa."
    )
    waiting = 1 - to_act
    await sockets[waiting].send({"type": "action", "id": "p", "kind": "pass", "expected_seq": seq})
    error = (await sockets[waiting].receive_type("error"))["problem"]
    assert error["type"] == "/problems/not-your-turn"
    assert error["detail"] == "No es tu turno: espera a que jueguen los demás."
    # The same player launched in Italian: the session's language comes first.
    italian = await sync(_launched)(operator_client, seats[to_act].player, lang="it")
    socket = await player_socket(italian, match_id, accept_language="es")
    await socket.receive_type("hello")
    await socket.send({"type": "action", "id": "i", "kind": "big_gin", "expected_seq": seq})
    error = (await socket.receive_type("error"))["problem"]
    assert error["type"] == "/problems/illegal-action"
    assert error["title"] == "Quest'azione ora non è consentita"
    assert error["detail"] == (
        "Non puoi ancora fare Grande Gin: prima prendi la carta scoperta o passa."
    )
    for open_one in (*sockets.values(), socket):
        await open_one.close()


async def test_a_refused_ticket_speaks_the_connection_s_language(table):
    socket = await open_socket("/ws/v1/me", ticket="gst_unknown", accept_language="it-IT, en")
    error = await socket.receive_type("error")
    assert error["problem"]["type"] == "/problems/socket-ticket-invalid"
    assert error["problem"]["title"] == "Il ticket della connessione non è stato accettato"
    await socket.close()
