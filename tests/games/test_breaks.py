"""A break the player took (a time-out, a self-exclusion: docs/player-protection.md "Breaks and
limits") refuses every buy-in and every seat under every jurisdiction profile: real money,
Money Play, practice tables and the lobby's waiting list, with nothing moved; a waiting-list
entry of a player who took a break meanwhile is refused when it would be seated; a seat
already taken is not taken away. On PostgreSQL, over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.models import Match, Seat, WaitingListEntry
from gin_platform.tenancy.jurisdictions import JURISDICTIONS
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import sit
from tests.helpers import assert_problem, freeze_now, session_client
from tests.wallet.factories import fund
from wallet.models import LedgerTransaction
from wallet.selectors import balances

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

T0 = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, T0)


def _counts() -> tuple[int, int, int, int]:
    return (
        Seat.objects.count(),
        Match.objects.count(),
        LedgerTransaction.objects.count(),
        WaitingListEntry.objects.count(),
    )


def join(client, room, **body):
    return client.post(f"/api/v1/lobby/{room.pk}/waiting-list", body, format="json")


def tables(operator) -> dict[str, object]:
    return {
        "match play": TableFactory(room=RoomFactory(operator=operator, stake=500)),
        "money play": TableFactory(room=RoomFactory(operator=operator, money=True)),
        "practice": TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100)),
    }


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_a_time_out_refuses_every_seat_and_the_waiting_list(clock, jurisdiction):
    operator = OperatorFactory(jurisdiction=jurisdiction)
    player = PlayerFactory(operator=operator)
    fund(player, 10_000)
    me = session_client(player)
    assert me.post("/api/v1/me/time-out", {"days": 1}, format="json").status_code == 201
    before = _counts()
    until = (T0 + timedelta(days=1)).isoformat()
    for name, table in tables(operator).items():
        body = (
            {"cashier_amount": "20.00", "stake_per_point": "0.01"} if name == "money play" else {}
        )
        refused = assert_problem(sit(me, table.pk, **body), 403, "timed-out")
        assert refused["until"] == until, name
        assert_problem(join(me, table.room, **body), 403, "timed-out")
    assert _counts() == before
    assert balances.wallet_balance(player=player) == 10_000
    clock.advance(days=1)  # over: every table seats the player again
    me = session_client(player)
    if operator.protection_profile.session_limits_required:  # es: a session's limits first
        limits = {"duration_minutes": 60, "loss_limit": "50.00"}
        assert me.post("/api/v1/me/play-session", limits, format="json").status_code == 201
    for name, table in tables(operator).items():
        body = (
            {"cashier_amount": "20.00", "stake_per_point": "0.01"} if name == "money play" else {}
        )
        assert sit(me, table.pk, **body).status_code == 201, name


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_a_self_exclusion_refuses_a_practice_seat_too(clock, jurisdiction):
    operator = OperatorFactory(jurisdiction=jurisdiction)
    player = PlayerFactory(operator=operator)
    me = session_client(player)
    days = operator.protection_profile.self_exclusion_min_days
    assert me.post("/api/v1/me/self-exclusion", {"days": days}, format="json").status_code == 201
    practice = tables(operator)["practice"]
    assert_problem(sit(me, practice.pk), 403, "self-excluded")
    assert_problem(join(me, practice.room), 403, "self-excluded")
    assert not Seat.objects.exists()


def test_a_waiting_player_who_takes_a_break_is_not_seated(
    clock, operator, django_capture_on_commit_callbacks
):
    room = RoomFactory(operator=operator, stake=500)
    TableFactory(room=room)
    waiting, other = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    for player in (waiting, other):
        fund(player, 10_000)
    me = session_client(waiting)
    with django_capture_on_commit_callbacks(execute=True):
        assert join(me, room).status_code == 201
    assert me.post("/api/v1/me/time-out", {"days": 7}, format="json").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        assert join(session_client(other), room).status_code == 201
    entry = me.get(f"/api/v1/lobby/{room.pk}/waiting-list").json()
    assert entry["status"] == "refused" and entry["problem_type"] == "/problems/timed-out"
    assert balances.wallet_balance(player=waiting) == 10_000
    assert WaitingListEntry.objects.get(player=other).status == "waiting"


def test_a_break_does_not_take_a_seat_away(clock, operator):
    """A seat taken before the break stays the player's: the game is played out (or the seat
    left, its buy-in refunded); only new seats are refused."""
    table = TableFactory(room=RoomFactory(operator=operator, stake=500))
    player = PlayerFactory(operator=operator)
    fund(player, 10_000)
    me = session_client(player)
    seat = sit(me, table.pk).json()
    assert me.post("/api/v1/me/time-out", {"days": 30}, format="json").status_code == 201
    again = sit(me, table.pk)  # already seated: that seat, nothing charged
    assert again.status_code == 200 and again.json()["id"] == seat["id"]
    left = me.post(f"/api/v1/tables/{table.pk}/leave")
    assert left.status_code == 200, left.content
    assert balances.wallet_balance(player=player) == 10_000  # refunded, never blocked
    assert_problem(sit(me, table.pk), 403, "timed-out")
