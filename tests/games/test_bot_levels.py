"""The house bot's levels (docs/engine.md "Bot levels"): a practice room names the level its
bot plays at, a player may name one when inviting it, a real-money room refuses any level,
the bot is labelled as the house bot at both levels, and the strong bot decides from its own
view and its own seat's events only."""

from __future__ import annotations

import pytest

from games import engine, services
from games.models import HandEvent, Match, Room, Seat
from gin_platform.models import AuditEvent
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, sit, view
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db

TAKES = ("take_upcard", "draw_discard")


def _invite(client, table_id: int, **body):
    return client.post(f"/api/v1/tables/{table_id}/bot", body, format="json")


def _play_to_the_end(client, match_id: int, *, max_actions: int = 3_000) -> dict:
    """The human plays the easy policy from their own view; the bot answers on commit."""
    for _ in range(max_actions):
        look = view(client, match_id).json()
        if look["match"]["status"] != Match.Status.RUNNING:
            return look
        assert look["hand"]["your_turn"], "the bot left its turn pending"
        move = engine.choose_action_from_view(look["hand"])
        answer = act(client, match_id, **move, expected_seq=look["seq"])
        assert answer.status_code == 200, answer.json()
    raise AssertionError("the game against the bot did not end")


def test_a_practice_room_names_its_bots_level_and_a_money_room_refuses_any(operator_client, idem):
    practice = {"name": "P", "variant": "ftk", "is_practice": True, "stake": "100"}
    strong = operator_client.post(
        "/api/v1/rooms", {**practice, "bot_level": "strong"}, format="json", **idem()
    )
    assert strong.status_code == 201, strong.json()
    assert strong.json()["bot_level"] == "strong"
    default = operator_client.post("/api/v1/rooms", practice, format="json", **idem())
    assert default.json()["bot_level"] == "easy"
    money = {"name": "M", "variant": "ftk", "stake": "1.00"}
    assert (
        operator_client.post("/api/v1/rooms", money, format="json", **idem()).json()["bot_level"]
        is None
    )
    for level in ("easy", "strong"):
        refused = operator_client.post(
            "/api/v1/rooms", {**money, "bot_level": level}, format="json", **idem()
        )
        assert refused.status_code == 422
        assert refused.json()["type"] == "/problems/invalid-room-options"
        assert refused.json()["field"] == "bot_level"
    unknown = operator_client.post(
        "/api/v1/rooms", {**practice, "bot_level": "expert"}, format="json", **idem()
    )
    assert unknown.status_code == 400
    assert unknown.json()["type"] == "/problems/validation-error"
    assert Room.objects.filter(is_practice=False).exclude(bot_level=None).count() == 0


def test_a_player_names_the_level_when_inviting_the_bot(alice, operator, seeds):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    sit(alice, table.pk)
    assert _invite(alice, table.pk, bot_level="expert").status_code == 400
    invited = _invite(alice, table.pk, bot_level="strong")
    assert invited.status_code == 201, invited.json()
    bot = services.house_bot_player(operator=operator)
    seat = Seat.objects.get(match_id=invited.json()["match_id"], player=bot)
    assert seat.bot_level == "strong"
    assert AuditEvent.objects.get(action="table.bot_invited").data["bot_level"] == "strong"
    players = view(alice, seat.match_id).json()["match"]["players"]
    labels = {entry["display_name"]: entry["bot_level"] for entry in players}
    assert labels == {"Alice": None, services.HOUSE_BOT_NAME: "strong"}


def test_without_a_level_the_bot_plays_at_the_rooms(alice, operator, seeds):
    room = RoomFactory(operator=operator, practice=True, stake=100)
    Room.objects.filter(pk=room.pk).update(bot_level="strong")
    table = TableFactory(room=room)
    sit(alice, table.pk)
    invited = _invite(alice, table.pk)
    assert invited.status_code == 201, invited.json()
    assert Seat.objects.get(match_id=invited.json()["match_id"], position=1).bot_level == "strong"


def test_a_money_table_refuses_the_bot_whatever_the_level(alice, operator, seeds):
    fund(alice.player, 1_000)
    table = TableFactory(room=RoomFactory(operator=operator, stake=500))
    assert sit(alice, table.pk).status_code == 201
    for level in ("easy", "strong"):
        refused = _invite(alice, table.pk, bot_level=level)
        assert refused.status_code == 409
        assert refused.json()["type"] == "/problems/bot-not-allowed"
    assert not Seat.objects.exclude(bot_level=None).exists()


@pytest.mark.django_db(transaction=True)
def test_the_strong_bot_plays_a_whole_game_labelled_as_the_house_bot(
    alice, operator, seeds, settings, monkeypatch
):
    """A First To Knock room with the strong bot: it sits down by itself, decides from its
    own view and its own seat's events (never another seat's stock draw), and is shown as
    the house bot, at its level, in the game view and the lobby."""
    settings.BOT_MOVE_DELAY_SECONDS = 0
    calls: list[tuple[dict, dict]] = []
    real = engine.choose_bot_action

    def spy(view_, **kwargs):
        calls.append((view_, kwargs))
        return real(view_, **kwargs)

    monkeypatch.setattr(engine, "choose_bot_action", spy)
    room = RoomFactory(operator=operator, practice=True, variant="ftk", target=None, stake=100)
    Room.objects.filter(pk=room.pk).update(bot_enabled=True, bot_level="strong")
    table = TableFactory(room=room)
    seated = sit(alice, table.pk)
    assert seated.status_code == 201 and seated.json()["state"] == "playing"
    match_id = seated.json()["match_id"]
    lobby = alice.get(f"/api/v1/lobby/{room.pk}").json()
    assert lobby["bot_level"] == "strong"
    shown = {seat["display_name"]: seat["bot_level"] for seat in lobby["tables"][0]["seats"]}
    assert shown == {"Alice": None, services.HOUSE_BOT_NAME: "strong"}
    final = _play_to_the_end(alice, match_id)
    assert final["match"]["status"] in (Match.Status.FINISHED, Match.Status.SETTLED)
    labels = {entry["display_name"]: entry["bot_level"] for entry in final["match"]["players"]}
    assert labels == {"Alice": None, services.HOUSE_BOT_NAME: "strong"}
    assert calls
    human = next(seat.position for seat in Seat.objects.filter(match_id=match_id, bot_level=None))
    taken = {
        engine.parse_card(row.payload["card"]).index
        for row in HandEvent.objects.filter(match_id=match_id, seat=human, kind__in=TAKES)
    }
    for bot_view, options in calls:
        assert options["level"] == "strong" and options["first_to_knock"] is True
        memory = options["memory"]
        assert memory.seat == bot_view["seat"] != human
        assert "stock" not in bot_view and "seed" not in bot_view
        # What it knows of the human's cards came from the pile, in public.
        held = memory.held[human]
        assert {index for index in range(52) if held >> index & 1} <= taken
