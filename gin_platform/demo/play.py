"""``make play``: a person plays against the house bot in a browser, on the embedded database.

Seeds (or finds again) a demo operator and gives it a fresh API key, starts the web server
(HTTP and WebSockets) on 127.0.0.1, then does over HTTP what an operator's site does: makes
sure there is a practice room where the house bot sits at once (R11) and a player with a
funded wallet, and asks for a game-launch URL (``POST /api/v1/players/{id}/launch``). The
URL opens the table page at /play/; each works once, for a couple of minutes, so Enter asks
for another. Ctrl-C stops the server.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gin_platform.demo.client import ApiClient
from gin_platform.demo.server import RunningServer, running_server
from gin_platform.http.problems import NotFoundProblem
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import Actor

OPERATOR_SLUG = "play"
OPERATOR_NAME = "Play Casino"
API_KEY_NAME = "make play"
PRACTICE_ROOM = {
    "name": "Practice against the house",
    "variant": "ftk",
    "is_practice": True,
    "bot_enabled": True,
    "stake": "100",
    "turn_seconds": 60,
}
PLAYER = {
    "external_ref": "you",
    "display_name": "You",
    "wallet_currency": "EUR",
    "display_currency": "EUR",
    "kyc_status": "verified",
}
OPENING_DEPOSIT = "100.00"


class PortTaken(Exception):
    pass


def check_port_free(port: int) -> None:
    """Fail at once, with the way out, when something already listens on the port."""
    with socket.socket() as sock:
        # As the server binds: connections of an earlier run waiting out TIME_WAIT are fine.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            raise PortTaken(
                f"127.0.0.1:{port} is taken; choose another port: make play PORT={port + 1}"
            ) from None


def operator_key(*, actor: Actor) -> str:
    """The demo operator (created on the first run) and a new API key for this run; the keys
    of earlier runs are revoked, so exactly one is ever active."""
    try:
        operator = selectors.operator_get_by_slug(slug=OPERATOR_SLUG)
    except NotFoundProblem:
        operator = services.operator_create(
            name=OPERATOR_NAME, slug=OPERATOR_SLUG, base_currency="EUR", actor=actor
        )
    issued = services.api_key_create(operator=operator, name=API_KEY_NAME, actor=actor)
    for old in selectors.api_key_list(operator=operator).filter(revoked_at__isnull=True):
        if old.pk != issued.api_key.pk:
            services.api_key_revoke(api_key=old, actor=actor)
    return issued.key


@dataclass
class Table:
    """What an operator's site holds for the player: its API client and the player's id."""

    operator: ApiClient
    player_id: str

    def launch_url(self) -> str:
        body = self.operator.write(
            "POST", f"/api/v1/players/{self.player_id}/launch", {"mode": "lobby"}
        )
        return body["url"]


def prepare(operator: ApiClient, *, say: Callable[[str], None]) -> Table:
    """The practice room and the player, found again or created, over the operator API."""
    rooms = operator.get("/api/v1/rooms?active=true&page_size=200")["results"]
    room = next((r for r in rooms if r["is_practice"] and r["name"] == PRACTICE_ROOM["name"]), None)
    if room is None:
        room = operator.write("POST", "/api/v1/rooms", PRACTICE_ROOM)
        say(f"Opened the practice room {room['name']!r}: the house bot sits at once")
    found = operator.get(f"/api/v1/players?external_ref={PLAYER['external_ref']}")["results"]
    if found:
        player = found[0]
    else:
        player = operator.write("POST", "/api/v1/players", PLAYER)
        operator.write(
            "POST",
            f"/api/v1/players/{player['id']}/deposits",
            {"amount": OPENING_DEPOSIT, "currency": PLAYER["wallet_currency"]},
        )
        say(
            f"Created the player {PLAYER['display_name']!r} with {OPENING_DEPOSIT} "
            f"{PLAYER['wallet_currency']} in the wallet (practice chips come on the first game)"
        )
    return Table(operator=operator, player_id=player["id"])


def play(
    *, port: int, say: Callable[[str], None], lines: Iterable[str], actor: Actor | None = None
) -> None:
    """Serve on 127.0.0.1:``port`` and print a launch URL, and another for each line read
    from ``lines`` (the terminal: Enter), until Ctrl-C or the end of ``lines``; then wait
    for the server until Ctrl-C."""
    check_port_free(port)
    key = operator_key(actor=actor or Actor.system("play"))
    with running_server(port=port, env={"LOG_LEVEL": "WARNING"}) as server:
        table = prepare(ApiClient(server.url, token=key), say=say)
        say("")
        say("Play Gin Rummy against the house bot: open this address in a browser")
        say("")
        say(f"    {table.launch_url()}")
        say("")
        say(
            "It works once, within a couple of minutes. Enter: a new link. Ctrl-C: stop the server."
        )
        say(f"(API docs: {server.url}/api/v1/docs/)")
        _serve(server, table, say=say, lines=lines)


def _serve(
    server: RunningServer, table: Table, *, say: Callable[[str], None], lines: Iterable[str]
) -> None:
    for _ in lines:
        if server.process.poll() is not None:
            break
        say(f"    {table.launch_url()}")
    status = server.wait()
    say(f"The server stopped (status {status}).")
