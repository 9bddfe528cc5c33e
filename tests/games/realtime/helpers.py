"""Sockets in tests: Channels' WebsocketCommunicator on the real ASGI application, with
tickets minted over the REST API the way a client mints them."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from gin_platform.project.asgi import application

TIMEOUT = 5


class SocketResponse:
    """A socket message in the shape ``HiddenInformationChecker.check`` reads."""

    def __init__(self, text: str) -> None:
        self.content = text.encode()


def check_message(checker, text: str, seat: int | None) -> None:
    """Check a socket message as the REST answers it is made of: its view as a view (whose
    ``previous_hand`` may show the hand before) and its events as an events feed (whose
    events of ended hands may show everything); anything else as it is."""
    message = json.loads(text)
    view, events = message.pop("view", None), message.pop("events", None)
    if view is not None:
        checker.check(SocketResponse(json.dumps(view)), seat)
    if events is not None:
        checker.check(SocketResponse(json.dumps({"events": events})), seat)
    checker.check(SocketResponse(json.dumps(message)), seat)


def answered(call, *args, **kwargs) -> dict:
    """The body of a REST call of the suite's (``view(client, match_id)``, ``act(...)``),
    which must be 200 OK: what the sockets' messages are compared with."""
    response = call(*args, **kwargs)
    assert response.status_code == 200, response.content
    return response.json()


def _mint_ticket(client) -> str:
    response = client.post("/api/v1/socket-tickets", {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["ticket"]


async def mint_ticket(client) -> str:
    return await database_sync_to_async(_mint_ticket)(client)


class Socket:
    """One client socket: every text it received is kept, in order."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator
        self.received: list[dict[str, Any]] = []
        self.texts: list[str] = []

    async def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        text = await self.communicator.receive_from(timeout=timeout)
        self.texts.append(text)
        message = json.loads(text)
        self.received.append(message)
        return message

    async def receive_type(self, kind: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message of ``kind`` (presence and pings on the way are kept too)."""
        while True:
            message = await self.receive(timeout)
            if message["type"] == kind:
                return message

    async def send(self, message: dict[str, Any]) -> None:
        await self.communicator.send_to(text_data=json.dumps(message))

    async def nothing_more(self, timeout: float = 0.3) -> bool:
        if await self.communicator.receive_nothing(timeout=timeout):
            return True
        output = await self.communicator.receive_output()
        raise AssertionError(f"the socket sent {output}")

    async def close(self) -> None:
        await self.communicator.disconnect()

    async def closed_with(self, timeout: float = TIMEOUT) -> int:
        """The close code the server ended with (after any messages, which are kept)."""
        while True:
            output = await self.communicator.receive_output(timeout)
            if output["type"] == "websocket.close":
                return output.get("code", 1000)
            text = output.get("text")
            if text is not None:
                self.texts.append(text)
                self.received.append(json.loads(text))


async def open_socket(
    path: str,
    *,
    ticket: str | None,
    after: int | None = None,
    origin: str | None = None,
    host: str = "testserver",
    accept_language: str | None = None,
) -> Socket:
    query = []
    if ticket is not None:
        query.append(f"ticket={ticket}")
    if after is not None:
        query.append(f"after={after}")
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if accept_language is not None:
        headers.append((b"accept-language", accept_language.encode()))
    communicator = WebsocketCommunicator(
        application, path + ("?" + "&".join(query) if query else ""), headers=headers
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return Socket(communicator)


async def player_socket(client, match_id: int, *, after: int | None = None, **kwargs) -> Socket:
    ticket = await mint_ticket(client)
    return await open_socket(f"/ws/v1/matches/{match_id}", ticket=ticket, after=after, **kwargs)


async def watcher_socket(client, match_id: int, *, after: int | None = None, **kwargs) -> Socket:
    ticket = await mint_ticket(client)
    return await open_socket(
        f"/ws/v1/matches/{match_id}/watch", ticket=ticket, after=after, **kwargs
    )


def pipelines_sent(client, monkeypatch) -> list[int]:
    """The pipelines ``client`` (redis-py) sends to Redis from now on, one round trip each:
    how many commands each held."""
    sent: list[int] = []
    real_pipeline = client.pipeline

    def counted(*args, **kwargs):
        pipe = real_pipeline(*args, **kwargs)
        real_execute = pipe.execute

        def execute(*execute_args, **execute_kwargs):
            sent.append(len(pipe.command_stack))
            return real_execute(*execute_args, **execute_kwargs)

        pipe.execute = execute
        return pipe

    monkeypatch.setattr(client, "pipeline", counted)
    return sent
