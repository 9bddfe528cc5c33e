"""Breaks the player takes (docs/player-protection.md "Breaks and limits"): time-outs of
exactly the jurisdiction profile's lengths and self-exclusions of at least its minimum, over
the player's own endpoints and the operator's; effective at once, never shortened or lifted;
refusing deposits (``timed-out``, ``self-excluded``) but never a withdrawal. On PostgreSQL,
over HTTP."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from gin_platform.models import AuditEvent, OperatorEvent
from gin_platform.tenancy.jurisdictions import JURISDICTIONS, PROFILES
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import assert_problem, freeze_now, operator_api, session_client
from tests.races import race
from tests.wallet.factories import fund
from wallet import services
from wallet.models import SelfExclusion

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

T0 = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
TIME_OUT = "/api/v1/me/time-out"
SELF_EXCLUSION = "/api/v1/me/self-exclusion"
MINIMUM_DAYS = {"uk": 183, "es": 183, "it": 30, "mga": 183, "none": 1}


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, T0)


def player_of(jurisdiction: str):
    return PlayerFactory(operator=OperatorFactory(jurisdiction=jurisdiction))


def at(days: int) -> str:
    """``T0 + days`` as the API writes it."""
    return (T0 + timedelta(days=days)).isoformat().replace("+00:00", "Z")


_keys = itertools.count()


def deposit(operator_client, player, amount: str = "10.00"):
    return operator_client.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": amount, "currency": "EUR"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"deposit-{next(_keys)}",
    )


# --- Lengths per profile -----------------------------------------------------------------------
def test_every_profile_allows_the_same_four_time_outs():
    assert {code: PROFILES[code].time_out_days for code in JURISDICTIONS} == dict.fromkeys(
        JURISDICTIONS, (1, 7, 30, 42)
    )
    assert {code: PROFILES[code].self_exclusion_min_days for code in JURISDICTIONS} == (
        MINIMUM_DAYS
    )


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
@pytest.mark.parametrize("days", [1, 7, 30, 42])
def test_a_time_out_of_an_allowed_length_starts_at_once(clock, jurisdiction, days):
    me = session_client(player_of(jurisdiction))
    response = me.post(TIME_OUT, {"days": days}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "time_out" and body["days"] == days
    assert body["starts_at"] == at(0) and body["ends_at"] == at(days)
    status = me.get(TIME_OUT).json()
    assert status["timed_out"] is True and status["until"] == at(days)
    assert status["allowed_days"] == [1, 7, 30, 42]
    assert [row["id"] for row in status["time_outs"]] == [body["id"]]
    assert me.get("/api/v1/me/wallet").json()["timed_out_until"] == at(days)


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
@pytest.mark.parametrize("days", [0, 2, 6, 14, 31, 41, 43, 183, -7, 7.5, "week", None, True])
def test_any_other_time_out_length_is_refused_naming_the_allowed_ones(clock, jurisdiction, days):
    me = session_client(player_of(jurisdiction))
    response = me.post(TIME_OUT, {"days": days}, format="json")
    if response.status_code == 400:  # not an integer at all
        assert_problem(response, 400, "validation-error")
    else:
        body = assert_problem(response, 422, "time-out-period-invalid")
        assert body["allowed_days"] == [1, 7, 30, 42]
        assert body["detail"] == "A time-out lasts 1, 7, 30, or 42 days."  # CLDR's English list
    assert not SelfExclusion.objects.exists()
    assert me.get(TIME_OUT).json()["timed_out"] is False


@pytest.mark.parametrize(("jurisdiction", "minimum"), sorted(MINIMUM_DAYS.items()))
def test_self_exclusion_lasts_at_least_the_profiles_minimum(clock, jurisdiction, minimum):
    me = session_client(player_of(jurisdiction))
    for days in (minimum - 1, 3651):
        body = assert_problem(
            me.post(SELF_EXCLUSION, {"days": days}, format="json"),
            422,
            "self-exclusion-period-invalid",
        )
        assert (body["minimum_days"], body["maximum_days"]) == (minimum, 3650)
    assert not SelfExclusion.objects.exists()
    status = me.get(SELF_EXCLUSION).json()
    assert status["self_excluded"] is False
    assert (status["minimum_days"], status["maximum_days"]) == (minimum, 3650)
    taken = me.post(SELF_EXCLUSION, {"days": minimum}, format="json")
    assert taken.status_code == 201, taken.content
    assert taken.json()["kind"] == "self_exclusion" and taken.json()["ends_at"] == at(minimum)
    assert me.get(SELF_EXCLUSION).json()["until"] == at(minimum)


@pytest.mark.parametrize(("jurisdiction", "minimum"), sorted(MINIMUM_DAYS.items()))
def test_the_operator_is_held_to_the_same_minimum(idem, jurisdiction, minimum):
    player = player_of(jurisdiction)
    api = operator_api(player.operator)
    url = f"/api/v1/players/{player.pk}/self-exclusion"
    refused = api.post(url, {"days": minimum - 1}, format="json", **idem())
    assert_problem(refused, 422, "self-exclusion-period-invalid")
    assert api.post(url, {"days": minimum}, format="json", **idem()).status_code == 201


# --- Effective at once, never shortened -------------------------------------------------------
def test_a_time_out_refuses_deposits_at_once_but_never_a_withdrawal(clock, idem):
    player = player_of("uk")
    fund(player, 5_000)
    api = operator_api(player.operator)
    assert session_client(player).post(TIME_OUT, {"days": 1}, format="json").status_code == 201
    refused = assert_problem(deposit(api, player), 403, "timed-out")
    assert refused["until"] == (T0 + timedelta(days=1)).isoformat()
    paid = api.post(
        f"/api/v1/players/{player.pk}/withdrawals",
        {"amount": "20.00", "currency": "EUR"},
        format="json",
        **idem(),
    )
    assert paid.status_code == 201, paid.content
    assert api.get(f"/api/v1/players/{player.pk}/wallet").json()["timed_out_until"] == at(1)
    clock.advance(days=1)  # over: the first instant after it deposits again
    assert deposit(api, player).status_code == 201


def test_a_time_out_is_never_shortened_and_a_longer_one_extends_it(clock):
    player = player_of("es")
    me = session_client(player)
    first = me.post(TIME_OUT, {"days": 30}, format="json").json()
    clock.advance(days=2)
    me = session_client(player)  # a session lasts an hour
    shorter = me.post(TIME_OUT, {"days": 7}, format="json")
    assert shorter.status_code == 200 and shorter.json() == first  # nothing added
    assert SelfExclusion.objects.count() == 1
    longer = me.post(TIME_OUT, {"days": 42}, format="json")
    assert longer.status_code == 201 and longer.json()["ends_at"] == at(44)
    assert me.get(TIME_OUT).json()["until"] == at(44)
    assert OperatorEvent.objects.filter(type="time_out.started").count() == 2
    clock.advance(days=30)  # past the first one's end, not the second's
    assert_problem(deposit(operator_api(player.operator), player), 403, "timed-out")


def test_a_retry_adds_nothing(clock):
    me = session_client(player_of("mga"))
    first = me.post(TIME_OUT, {"days": 7}, format="json")
    clock.advance(seconds=30)
    again = me.post(TIME_OUT, {"days": 7}, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert SelfExclusion.objects.count() == 1
    assert AuditEvent.objects.filter(action="time_out.created").count() == 1


def test_a_double_submission_at_once_adds_one_time_out(transactional_db):
    player = player_of("uk")
    tokens = [session_client(player) for _ in range(4)]
    answers = race(4, lambda i: tokens[i].post(TIME_OUT, {"days": 7}, format="json"))
    assert sorted(answer.status_code for answer in answers) == [200, 200, 200, 201]
    assert SelfExclusion.objects.count() == 1


def test_a_self_exclusion_covers_a_time_out_but_not_the_other_way_round(clock):
    player = player_of("it")
    me = session_client(player)
    api = operator_api(player.operator)
    assert me.post(TIME_OUT, {"days": 42}, format="json").status_code == 201
    # Shorter than the time-out, yet added: a self-exclusion is the stronger break.
    excluded = me.post(SELF_EXCLUSION, {"days": 30}, format="json")
    assert excluded.status_code == 201, excluded.content
    assert_problem(deposit(api, player), 403, "self-excluded")
    covered = me.post(TIME_OUT, {"days": 7}, format="json")
    assert covered.status_code == 200 and covered.json()["kind"] == "time_out"
    clock.advance(days=30)  # the self-exclusion is over, the time-out is not
    body = assert_problem(deposit(api, player), 403, "timed-out")
    assert body["until"] == (T0 + timedelta(days=42)).isoformat()
    me = session_client(player)  # a session lasts an hour
    assert me.post(SELF_EXCLUSION, {"days": 30}, format="json").status_code == 201
    wallet = me.get("/api/v1/me/wallet").json()
    assert wallet["self_excluded_until"] == at(60) and wallet["timed_out_until"] == at(42)
    later = me.post(TIME_OUT, {"days": 1}, format="json")  # covered by the self-exclusion
    assert later.status_code == 200 and later.json()["kind"] == "self_exclusion"


def test_a_shorter_self_exclusion_adds_nothing(clock):
    player = player_of("none")
    me = session_client(player)
    first = me.post(SELF_EXCLUSION, {"days": 365}, format="json").json()
    clock.advance(days=1)
    me = session_client(player)  # a session lasts an hour
    again = me.post(SELF_EXCLUSION, {"days": 30}, format="json")
    assert again.status_code == 200 and again.json() == first
    assert me.post(SELF_EXCLUSION, {"days": 3650}, format="json").status_code == 201
    assert me.get(SELF_EXCLUSION).json()["until"] == at(3651)


# --- Who took it ---------------------------------------------------------------------------
def test_the_players_own_break_is_audited_and_announced_as_theirs(clock):
    player = player_of("uk")
    response = session_client(player).post(TIME_OUT, {"days": 30}, format="json")
    row = SelfExclusion.objects.get(pk=response.json()["id"])
    assert (row.actor_type, row.kind) == ("player", "time_out")
    audit = AuditEvent.objects.get(action="time_out.created")
    assert audit.actor_type == "player" and audit.operator_id == player.operator_id
    assert audit.data == {"player": str(player.pk), "days": 30, "until": row.ends_at.isoformat()}
    event = OperatorEvent.objects.get(type="time_out.started")
    assert event.data["by"] == "player" and event.data["days"] == 30


def test_the_operator_gives_its_player_a_time_out(clock, idem):
    player = player_of("mga")
    api = operator_api(player.operator)
    url = f"/api/v1/players/{player.pk}/time-out"
    assert api.get(url).json() == {
        "timed_out": False,
        "until": None,
        "allowed_days": [1, 7, 30, 42],
        "time_outs": [],
    }
    headers = idem()
    taken = api.post(url, {"days": 7}, format="json", **headers)
    assert taken.status_code == 201, taken.content
    replay = api.post(url, {"days": 7}, format="json", **headers)
    assert replay.json() == taken.json() and replay.headers["Idempotent-Replayed"] == "true"
    assert_problem(
        api.post(url, {"days": 3}, format="json", **idem()), 422, "time-out-period-invalid"
    )
    assert api.get(url).json()["until"] == at(7)
    assert AuditEvent.objects.get(action="time_out.created").actor_type == "operator"
    assert OperatorEvent.objects.get(type="time_out.started").data["by"] == "operator"


def test_another_operators_player_is_404_and_players_never_reach_the_operator_endpoints(idem):
    player, stranger = player_of("uk"), player_of("uk")
    api = operator_api(player.operator)
    url = f"/api/v1/players/{stranger.pk}/time-out"
    assert_problem(api.get(url), 404, "not-found")
    assert_problem(api.post(url, {"days": 1}, format="json", **idem()), 404, "not-found")
    me = session_client(player)
    own = f"/api/v1/players/{player.pk}/time-out"
    assert_problem(me.post(own, {"days": 1}, format="json"), 403, "permission-denied")
    assert_problem(api.post(TIME_OUT, {"days": 1}, format="json"), 403, "permission-denied")
    assert not SelfExclusion.objects.exists()


def test_a_break_taken_in_a_service_is_the_same_rule(clock):
    player = player_of("es")
    taken = services.time_out_take(player=player, days=7, actor=SYSTEM)
    assert taken.added and taken.row.ends_at == T0 + timedelta(days=7)
    again = services.time_out_take(player=player, days=1, actor=SYSTEM)
    assert not again.added and again.row == taken.row
