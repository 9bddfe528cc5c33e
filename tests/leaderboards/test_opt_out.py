"""R15: a player may stay off the leaderboards (docs/leaderboards.md "Staying off"): on them
by default, off every board of their operator and of the network from the next read, back on
when they say so; each change audited once, a body with anything else refused, and the
setting the player's alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from gin_platform.models import AuditEvent
from tests.factories import OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, operator_api, session_client
from tests.leaderboards.world import rated_at

pytestmark = pytest.mark.django_db

PATH = "/api/v1/me/leaderboard-opt-out"


def names(client) -> list[str]:
    page = client.get("/api/v1/leaderboards", {"period": "day"}).json()
    return [row["screen_name"] for row in page["results"]]


def test_a_player_stays_off_every_board_and_comes_back() -> None:
    operator = OperatorFactory()
    ann = PlayerFactory(operator=operator, screen_name="Ann")
    rated_at(ann, rating=1700.0, at=timezone.now())
    client = session_client(ann)
    assert client.get(PATH).json() == {"leaderboard_opt_out": False, "screen_name": "Ann"}
    assert names(client) == ["Ann"]

    off = client.put(PATH, {"leaderboard_opt_out": True}, format="json")
    assert off.status_code == 200, off.content
    assert off.json() == {"leaderboard_opt_out": True, "screen_name": "Ann"}
    assert names(client) == []
    assert names(operator_api(operator)) == []  # the operator's view of the board too
    assert client.put(PATH, {"leaderboard_opt_out": True}, format="json").status_code == 200
    audits = AuditEvent.objects.filter(
        action="player.leaderboard_opt_out_set", object_id=str(ann.pk)
    )
    assert [event.data for event in audits] == [{"leaderboard_opt_out": [False, True]}]

    back = client.put(PATH, {"leaderboard_opt_out": False}, format="json")
    assert back.json() == {"leaderboard_opt_out": False, "screen_name": "Ann"}
    assert names(client) == ["Ann"]
    assert audits.all().count() == 2  # a fresh count: the list above kept the first


def test_the_setting_is_the_players_and_takes_nothing_else() -> None:
    player = PlayerFactory(screen_name=None)
    client = session_client(player)
    assert client.get(PATH).json() == {"leaderboard_opt_out": False, "screen_name": None}
    refused = client.put(PATH, {"leaderboard_opt_out": True, "screen_name": "X"}, format="json")
    assert_problem(refused, 400, "unknown-fields")
    assert_problem(client.put(PATH, {}, format="json"), 400, "validation-error")
    player.refresh_from_db()
    assert player.leaderboard_opt_out is False
    api = operator_api(player.operator)
    assert api.put(PATH, {"leaderboard_opt_out": True}, format="json").status_code == 403


def test_a_player_without_a_screen_name_is_on_no_board() -> None:
    player = PlayerFactory(screen_name=None)
    rated_at(player, rating=1800.0, at=datetime.now(UTC))
    assert names(session_client(player)) == []
