"""The player's own deposit and loss limits over their endpoint (``/api/v1/me/limits``), and
the cooling-off a raised limit waits: the jurisdiction profile's (uk, mga and no profile 24
hours, es 3 days, it 7 days; docs/player-protection.md "Breaks and limits"). On PostgreSQL,
over HTTP, with a frozen clock."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from gin_platform.models import AuditEvent, OperatorEvent
from tests.factories import OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, freeze_now, operator_api, session_client
from wallet.models import PlayerLimitChange

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

T0 = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
LIMITS = "/api/v1/me/limits"
COOLING_OFF = {
    "uk": timedelta(hours=24),
    "es": timedelta(days=3),
    "it": timedelta(days=7),
    "mga": timedelta(hours=24),
    "none": timedelta(hours=24),
}
_keys = itertools.count()


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, T0)


def deposit(api, player, amount: str):
    return api.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": amount, "currency": "EUR"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"deposit-{next(_keys)}",
    )


def day_deposit_limit(client, amount: str | None):
    return client.put(LIMITS, {"kind": "deposit", "period": "day", "amount": amount}, format="json")


@pytest.mark.parametrize(("jurisdiction", "cooling_off"), sorted(COOLING_OFF.items()))
def test_a_raise_waits_the_profiles_cooling_off(clock, jurisdiction, cooling_off):
    player = PlayerFactory(operator=OperatorFactory(jurisdiction=jurisdiction))
    api = operator_api(player.operator)
    me = session_client(player)
    first = day_deposit_limit(me, "10.00")
    assert first.status_code == 200 and first.json()["amount"] == "10.00"  # at once
    raised = day_deposit_limit(me, "50.00").json()
    assert raised["amount"] == "10.00" and raised["pending_amount"] == "50.00"
    effective = T0 + cooling_off
    assert raised["pending_effective_at"] == effective.isoformat().replace("+00:00", "Z")
    # Asking again changes nothing: the cooling-off runs on from the first request.
    clock.advance(minutes=30)
    again = day_deposit_limit(me, "50.00").json()
    assert again["pending_effective_at"] == raised["pending_effective_at"]
    assert PlayerLimitChange.objects.filter(player=player).count() == 2
    clock.set(effective - timedelta(seconds=1))  # the day's window moved on meanwhile
    assert deposit(api, player, "10.00").status_code == 201
    assert_problem(deposit(api, player, "0.01"), 422, "limit-exceeded")
    clock.set(effective)
    assert deposit(api, player, "40.00").status_code == 201
    assert_problem(deposit(api, player, "0.01"), 422, "limit-exceeded")


def test_a_decrease_applies_at_once_and_cancels_the_pending_raise(clock):
    player = PlayerFactory(operator=OperatorFactory(jurisdiction="it"))
    me = session_client(player)
    day_deposit_limit(me, "10.00")
    day_deposit_limit(me, "50.00")
    lowered = day_deposit_limit(me, "5.00").json()
    assert lowered["amount"] == "5.00" and lowered["pending_amount"] is None
    removal = day_deposit_limit(me, None).json()  # a removal waits like a raise
    assert removal["pending_removal"] is True
    assert removal["pending_effective_at"] == (T0 + timedelta(days=7)).isoformat().replace(
        "+00:00", "Z"
    )


def test_the_player_reads_and_sets_their_own_limits_audited_as_theirs(clock):
    player = PlayerFactory(operator=OperatorFactory(jurisdiction="es"))
    me = session_client(player)
    listing = me.get(LIMITS).json()
    assert {(row["kind"], row["period"]) for row in listing} == {
        (kind, period) for kind in ("deposit", "loss") for period in ("day", "week", "month")
    }
    changed = me.put(LIMITS, {"kind": "loss", "period": "week", "amount": "25.00"}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["amount"] == "25.00"
    operator_view = operator_api(player.operator).get(f"/api/v1/players/{player.pk}/limits")
    week = next(r for r in operator_view.json() if (r["kind"], r["period"]) == ("loss", "week"))
    assert week["amount"] == "25.00"
    audit = AuditEvent.objects.get(action="player_limit.changed")
    assert (audit.actor_type, audit.actor_id) == ("player", str(player.pk))
    assert OperatorEvent.objects.get(type="limit.changed").data["pending"] is False


@pytest.mark.parametrize(
    ("body", "status", "slug"),
    [
        ({"kind": "deposit", "period": "day", "amount": "-1.00"}, 422, "amount-not-positive"),
        ({"kind": "deposit", "period": "day", "amount": 10}, 422, "amount-invalid"),
        ({"kind": "bet", "period": "day", "amount": "1.00"}, 400, "validation-error"),
        ({"kind": "loss", "period": "day", "amount": "1.00", "x": 1}, 400, "unknown-fields"),
    ],
)
def test_a_bad_limit_is_refused_and_changes_nothing(clock, player_client, body, status, slug):
    assert_problem(player_client.put(LIMITS, body, format="json"), status, slug)
    assert not PlayerLimitChange.objects.exists()


def test_the_operator_endpoint_waits_the_same_cooling_off(clock, idem):
    player = PlayerFactory(operator=OperatorFactory(jurisdiction="es"))
    api = operator_api(player.operator)
    url = f"/api/v1/players/{player.pk}/limits"
    body = {"kind": "deposit", "period": "week", "amount": "10.00"}
    assert api.post(url, body, format="json", **idem()).status_code == 200
    raised = api.post(url, body | {"amount": "20.00"}, format="json", **idem()).json()
    assert raised["pending_effective_at"] == "2026-03-07T12:00:00Z"
