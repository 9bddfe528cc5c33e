"""Tenancy at network tables (docs/network.md "Tenancy"): a network game between a player of
operator A and a player of operator B, played over the HTTP API to its settlement. Then every
endpoint of A (operator and player) that lists or shows the game, its hands, its events, its
money or its webhooks is read, and none of the answers contains anything of B's player (id,
external_ref, display name) or of B's wallet and ledger rows (their ids), nor B itself; and
the same the other way round. The other seat appears by screen name. The URL table is checked
against the routes, so a new endpoint must be added here (or to the list of those that cannot
show a game, with the reason)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.urls import URLResolver, get_resolver

from games import engine
from games.api import presenters
from games.models import Match, Seat
from games.realtime.audience import match_audiences
from games.realtime.render import audience_view
from games.selectors import match_for_push, match_player_operator_ids
from gin_platform.models import OperatorEvent
from gin_platform.tenancy.services import network_update
from settlement.models import Settlement
from tests.factories import SYSTEM
from tests.games.helpers import Seats, act, events, seat_both, sit, view
from tests.games.network_world import member_make, network_make, network_room_make, player_client
from tests.helpers import operator_api
from tests.wallet.factories import fund
from wallet.models import Account, LedgerEntry

pytestmark = [pytest.mark.django_db(transaction=True)]

# Every /api/v1 route: either read below with a network game in it, or why it cannot show one.
READ = {
    "operator-me",
    "operator-network",
    "event-list",
    "event-detail",
    "webhook-subscriptions",
    "webhook-list",
    "webhook-detail",
    "player-list",
    "player-detail",
    "wallet",
    "wallet-transactions",
    "wallet-transaction",
    "wallet-limits",
    "wallet-limit-history",
    "wallet-self-exclusion",
    "wallet-time-out",
    "wallet-caps",
    "operator-wallet",
    "room-list",
    "match-list",
    "match-detail",
    "network-room-list",
    "network-room-detail",
    "my-screen-name",
    "lobby",
    "lobby-room",
    "my-seats",
    "game-view",
    "game-actions",
    "game-events",
    "watch",
    "watch-events",
    "hands",
    "hand-detail",
    "hand-fairness",
    "settlement-list",
    "settlement-detail",
    "report-daily",
    "network-statement",
    "me-wallet",
    "me-wallet-transactions",
    "me-wallet-transaction",
    "me-limits",
    "me-time-out",
    "me-self-exclusion",
    "table-sit",
    "lobby-waiting-list",
    "my-waiting-list",
    # Integrity (docs/integrity.md): each side's player reports the other after the game.
    "me-reports",
    "me-report",
    "player-link-list",
    # A player's history (docs/player-protection.md "History"): both sides read their own.
    "me-history-matches",
    "me-history-transactions",
    "me-history-summary",
    "player-history-matches",
    "player-history-transactions",
    "player-history-summary",
    # Ratings (docs/ratings.md): each side's player's, and the ratings at the table.
    "me-ratings",
    "me-rating-history",
    "match-ratings",
    "player-ratings",
    "player-rating-history",
    # The quick seat (docs/matchmaking.md): each side's player asks at the network room and
    # cancels; their own ticket names nobody else.
    "lobby-quick-seat",
}
NOT_A_GAME = {
    # credentials, origins, sessions, launch, sockets' tickets: no game in them
    "operator-webhook-secret",
    "operator-signing-secret-create",
    "operator-signing-secret-revoke",
    "operator-origin-list",
    "operator-origin-detail",
    "api-key-list",
    "api-key-revoke",
    "api-key-rotate",
    "player-session-create",
    "player-session-revoke",
    "player-launch",
    "launch-session",
    "socket-ticket-create",
    "webhook-redeliver",  # re-sends a delivery read by webhook-detail
    "my-protections",  # R13: the caller's own count of protected turns, no game in it
    # Player protection: the player's own play session and reality checks (their own net
    # figures, no game and no opponent in them)
    "me-play-session",
    "me-play-session-end",
    "me-play-sessions",
    "me-reality-check",
    "player-play-session",
    # Integrity: an operator's identifiers and links between two of its own players
    # (player-link-list is read below: a network game links nobody across operators there)
    "player-identifier-create",
    "player-link-detail",
    # money moved by the operator on its own player; limits it sets
    "wallet-deposits",
    "wallet-withdrawals",
    "wallet-practice-top-up",
    "me-wallet-practice-top-up",
    # writes that end a game (the answer is the seat or the view, read as game-view)
    "table-leave",
    "game-resign",
    "table-bot",
    "room-detail",
    "room-tables",
    # public or staff (staff read every operator)
    "health",
    "health-live",
    "problem-list",
    "schema",
    "docs",
    "redoc",
    "redoc-bundle",  # the Redoc script the redoc page runs
    "me-leaderboard-opt-out",  # the player's own setting and screen name
}


# Read with a network tournament in them by tests/tournaments/test_network.py, which checks
# the same leaks (each operator and its players read every one; nothing of another's players).
READ_IN_TOURNAMENTS = {
    "tournaments",
    "tournament",
    "tournament-bracket",
    "tournament-entries",
    "tournament-entry",
    "tournament-cancel",
    "tournament-registration",
    "tournament-seat",
    "me-tournaments",
    "tournament-entry-statement",
    "me-tournament-statement",
}


# Read with players of two member operators on the network's boards by
# tests/leaderboards/test_boards.py, which checks the same leaks (a player and an operator
# read both kinds of board; nothing of the other operator's player but the screen name).
READ_IN_LEADERBOARDS = {"leaderboards"}


def _routes() -> set[str]:
    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern.name

    return {
        name
        for route, name in walk(get_resolver().url_patterns)
        if route.startswith("api/v1/") and "staff/" not in route and "backoffice/" not in route
    }


def test_every_route_is_read_here_or_cannot_show_a_game():
    read = READ | NOT_A_GAME | READ_IN_TOURNAMENTS | READ_IN_LEADERBOARDS
    assert _routes() - read == set(), "read the new routes in this test"
    assert read - _routes() == set(), "these routes no longer exist"


class Side:
    """One operator's view of the world: its API, its player, and what must not leak."""

    def __init__(self, *, name: str, screen_name: str, suffix: str) -> None:
        self.operator = member_make(name=name, webhook_url="")
        self.api = operator_api(self.operator)
        self.player = player_client(
            self.operator,
            screen_name=screen_name,
            external_ref=f"ext-{suffix}-{uuid.uuid4().hex[:8]}",
            display_name=f"Display {suffix} {uuid.uuid4().hex[:6]}",
        )
        fund(self.player.player, 100_000)
        self.answers: list[tuple[str, Any]] = []

    def secrets(self) -> set[str]:
        """Strings of this side that the other side must never read."""
        player = self.player.player
        return {str(player.pk), player.external_ref, player.display_name, str(self.operator.pk)}

    def private_row_ids(self) -> dict[str, set[int]]:
        """This side's wallet accounts and its ledger transactions that the other side has
        no part in (the deposit; every transaction touching only this side's accounts)."""
        accounts = set(
            Account.objects.filter(player=self.player.player).values_list("pk", flat=True)
        )
        transactions = set(
            LedgerEntry.objects.filter(account_id__in=accounts).values_list(
                "transaction_id", flat=True
            )
        )
        # The game's one settlement transaction is both sides' (each statement names it).
        shared = set(Settlement.objects.values_list("ledger_transaction_id", flat=True))
        return {"account": accounts, "transaction": transactions - shared}

    def record(self, what: str, response) -> Any:
        assert response.status_code in (200, 201), (
            what,
            response.status_code,
            response.content[:300],
        )
        body = response.json()
        self.answers.append((what, body))
        return body


def _read_everything(side: Side, *, match_id: int, room_id: int) -> None:
    api, me = side.api, side.player
    player_id = me.player.pk
    for path in (
        "/api/v1/operators/me",
        "/api/v1/operators/me/network",
        "/api/v1/operators/me/webhook-subscriptions",
        "/api/v1/players",
        f"/api/v1/players/{player_id}",
        f"/api/v1/players/{player_id}/wallet",
        f"/api/v1/players/{player_id}/limits",
        f"/api/v1/players/{player_id}/limits/history",
        f"/api/v1/players/{player_id}/self-exclusion",
        f"/api/v1/players/{player_id}/time-out",
        "/api/v1/wallet/cashier-caps",
        "/api/v1/operators/me/wallet",
        "/api/v1/rooms",
        "/api/v1/matches",
        f"/api/v1/matches/{match_id}",
        "/api/v1/operators/me/network/rooms",
        f"/api/v1/operators/me/network/rooms/{room_id}",
        f"/api/v1/matches/{match_id}/hands",
        f"/api/v1/matches/{match_id}/hands/1",
        f"/api/v1/matches/{match_id}/hands/1/fairness",
        "/api/v1/settlements",
        f"/api/v1/settlements/{match_id}",
        "/api/v1/reports/daily",
        "/api/v1/network/statement",
    ):
        side.record(path, api.get(path))
    side.record("links", api.get(f"/api/v1/players/{player_id}/links"))
    for part in ("ratings", "ratings/history"):
        side.record(f"{part}", api.get(f"/api/v1/players/{player_id}/{part}"))
        side.record(f"my {part}", me.get(f"/api/v1/me/{part}"))
    side.record("ratings at the table", me.get(f"/api/v1/matches/{match_id}/ratings"))
    for part in ("matches", "transactions", "summary"):
        side.record(f"history {part}", api.get(f"/api/v1/players/{player_id}/history/{part}"))
        side.record(f"my history {part}", me.get(f"/api/v1/me/history/{part}"))
    for event in side.record("events", api.get("/api/v1/operators/me/events"))["results"]:
        side.record("event", api.get(f"/api/v1/operators/me/events/{event['id']}"))
    for delivery in side.record("deliveries", api.get("/api/v1/webhooks/deliveries"))["results"]:
        side.record("delivery", api.get(f"/api/v1/webhooks/deliveries/{delivery['id']}"))
    transactions = side.record("txs", api.get(f"/api/v1/players/{player_id}/transactions"))
    for row in transactions["results"]:
        side.record("tx", api.get(f"/api/v1/players/{player_id}/transactions/{row['id']}"))
    for path in (
        "/api/v1/me/screen-name",
        "/api/v1/lobby",
        f"/api/v1/lobby/{room_id}",
        "/api/v1/me/seats",
        f"/api/v1/matches/{match_id}/view",
        f"/api/v1/matches/{match_id}/events",
        f"/api/v1/matches/{match_id}/watch",
        f"/api/v1/matches/{match_id}/watch/events",
        f"/api/v1/matches/{match_id}/hands",
        f"/api/v1/matches/{match_id}/hands/1",
        f"/api/v1/matches/{match_id}/hands/1/fairness",
        f"/api/v1/settlements/{match_id}",
        "/api/v1/me/wallet",
        "/api/v1/me/limits",
        "/api/v1/me/time-out",
        "/api/v1/me/self-exclusion",
        f"/api/v1/lobby/{room_id}/waiting-list",
        "/api/v1/me/waiting-list",
    ):
        side.record(f"player {path}", me.get(path))
    for row in side.record("my txs", me.get("/api/v1/me/wallet/transactions"))["results"]:
        side.record("my tx", me.get(f"/api/v1/me/wallet/transactions/{row['id']}"))
    # A report about the opponent (by seat, as the table page sends it), then read back.
    theirs = Seat.objects.filter(match_id=match_id).exclude(player=me.player).get().position
    filed = side.record(
        "report",
        me.post(
            "/api/v1/me/reports",
            {"match_id": match_id, "seat": theirs, "category": "collusion", "text": "odd"},
            format="json",
        ),
    )
    side.record("my reports", me.get("/api/v1/me/reports"))
    # A quick seat at the network room (R15), asked and cancelled before the other side asks.
    quick = {"variant": "ftk", "stake": "5.00", "currency": "EUR"}
    side.record("quick seat", me.post("/api/v1/lobby/quick-seat", quick, format="json"))
    side.record("quick seat cancelled", me.delete("/api/v1/lobby/quick-seat"))
    side.record("my quick seat", me.get("/api/v1/lobby/quick-seat"))
    side.record("my report", me.get(f"/api/v1/me/reports/{filed['id']}"))
    # The sockets' messages are the presenters' (games/realtime/render.py): each audience.
    # What the side's player's sockets carry: their own seat's audience and the watchers'.
    match = match_for_push(match_id=match_id)
    mine = Seat.objects.get(match_id=match_id, player=me.player).position
    for audience in match_audiences(match_id):
        if audience.seat in (None, mine):
            view_ = audience_view(match=match, audience=audience)
            side.answers.append((f"socket {audience.key}", view_))
    # The operator events (the webhooks' bodies) recorded for the side's operator.
    for event in OperatorEvent.objects.filter(operator=side.operator):
        side.answers.append((f"webhook {event.type}", event.data))


def _leaks(reader: Side, other: Side) -> list[str]:
    found = []
    secrets = other.secrets()
    rows = other.private_row_ids()
    for what, body in reader.answers:
        text = json.dumps(body, default=str)
        found += [f"{what}: {secret!r}" for secret in secrets if secret in text]
        found += [f"{what}: {key} {value}" for key, value in _row_ids(body) if value in rows[key]]
    return found


def _row_ids(node: Any, key: str = ""):
    """(kind, id) of every value under a key naming an account or a ledger transaction."""
    if isinstance(node, dict):
        for name, value in node.items():
            yield from _row_ids(value, name)
    elif isinstance(node, list):
        for value in node:
            yield from _row_ids(value, key)
    elif isinstance(node, int) and not isinstance(node, bool):
        if "account" in key:
            yield "account", node
        elif "transaction" in key or key == "ledger_transaction_id":
            yield "transaction", node


def _play_network_game(a: Side, b: Side, room) -> int:
    """A waits on the room's waiting list; B sits down at a table; the list seats A opposite
    B; both play with the engine's bot to the end (settled on commit)."""
    waiting_list = f"/api/v1/lobby/{room.pk}/waiting-list"
    b.record("join", b.player.post(waiting_list, {}, format="json"))
    b.record("leave", b.player.delete(waiting_list))
    a.record("join", a.player.post(waiting_list, {}, format="json"))
    b.record("sit", sit(b.player, room.tables.first().pk))
    entry = a.record("entry", a.player.get(f"/api/v1/lobby/{room.pk}/waiting-list"))
    assert entry["status"] == "seated", entry
    match_id = entry["seat"]["match_id"]
    positions = {entry["seat"]["position"]: a.player}
    positions[1 - entry["seat"]["position"]] = b.player
    seats = Seats(positions)
    for _ in range(2000):
        looks = {}
        for seat in (0, 1):
            client = seats[seat]
            side = a if client is a.player else b
            looks[seat] = side.record("view", view(client, match_id))
            side.record("feed", events(client, match_id))
        if looks[0]["match"]["status"] != Match.Status.RUNNING:
            return match_id
        to_act = looks[0]["hand"]["to_act"]
        mine = looks[to_act]
        move = engine.choose_action_from_view(mine["hand"])
        client = seats[to_act]
        side = a if client is a.player else b
        side.record("action", act(client, match_id, **move, expected_seq=mine["seq"]))
    raise AssertionError("the game did not end")


@pytest.mark.slow
@pytest.mark.parametrize("reveal", [False, True], ids=["operators hidden", "operators shown"])
def test_no_answer_to_one_operator_shows_the_other_operators_player(reveal):
    network_make()
    if reveal:
        network_update(reveal_operators=True, actor=SYSTEM)
    room = network_room_make(name="Network FTK", variant="ftk", target=None, stake=500)
    a = Side(name="Alpha Casino", screen_name="AlphaAce", suffix="alpha")
    b = Side(name="Bravo Casino", screen_name="BravoBear", suffix="bravo")
    match_id = _play_network_game(a, b, room)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.SETTLED, match.status
    assert match_player_operator_ids(match) == {a.operator.pk, b.operator.pk}

    for side in (a, b):
        _read_everything(side, match_id=match_id, room_id=room.pk)
    leaks = _leaks(a, b)
    assert leaks == [], "\n".join(leaks)
    assert _leaks(b, a) == []

    # The other seat is there, by screen name (and by operator name only when revealed).
    shown = a.api.get(f"/api/v1/matches/{match_id}").json()
    bob_seat = Seat.objects.get(match=match, player=b.player.player).position
    theirs = next(p for p in shown["players"] if p["position"] == bob_seat)
    assert theirs["screen_name"] == "BravoBear" and theirs["display_name"] is None
    assert theirs["operator"] == ("Bravo Casino" if reveal else None)
    ours = next(p for p in shown["players"] if p["position"] != bob_seat)
    assert ours["display_name"] == a.player.player.display_name
    seats = {s["position"]: s for s in shown["seats"]}
    assert seats[bob_seat]["player_id"] is None and seats[1 - bob_seat]["player_id"]
    types = set(OperatorEvent.objects.filter(operator=a.operator).values_list("type", flat=True))
    assert {"seat.taken", "hand.ended", "game.finished", "game.settled"} <= types
    assert not OperatorEvent.objects.filter(operator=room.operator).exists()
    text = json.dumps([body for _, body in a.answers], default=str)
    assert "Bravo Casino" not in text or reveal


def test_a_network_match_is_not_an_operator_room_match_of_anybody_else(db):
    network_make()
    room = network_room_make(name="Network FTK", variant="ftk", target=None, stake=500)
    a = Side(name="Alpha", screen_name="Alpha1", suffix="a")
    b = Side(name="Bravo", screen_name="Bravo1", suffix="b")
    c = Side(name="Charlie", screen_name="Charlie1", suffix="c")
    match_id, _ = seat_both(a.player, b.player, room.tables.first().pk)
    # C's players may watch (C offers the room) but C reads no match it has no player in.
    assert c.api.get(f"/api/v1/matches/{match_id}").status_code == 404
    assert match_id not in {m["id"] for m in c.api.get("/api/v1/matches").json()["results"]}
    assert c.player.get(f"/api/v1/matches/{match_id}/view").status_code == 404
    watched = c.player.get(f"/api/v1/matches/{match_id}/watch").json()
    assert {p["display_name"] for p in watched["match"]["players"]} == {None}
    assert presenters.match_summary(Match.objects.get(pk=match_id))["players"][0]["screen_name"]
