"""The markers of harm in the staff API (docs/player-protection.md "Markers of harm"): risk
and admin read and change the rules, each change audited with the settings before and
after; support and finance are refused, so is a user limited to some operators; parameters
are checked by their rule (problem+json naming the parameter, nothing changed); the flags
are read by player, rule and days, within the caller's operators."""

from __future__ import annotations

from datetime import date

import pytest

from gin_platform.models import AuditEvent, StaffOperatorScope
from protection.models import HarmRule
from protection.services import harm as services
from tests.factories import OperatorFactory, PlayerFactory, staff_user
from tests.helpers import api_as, assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

RULES = "/api/v1/staff/protection/harm-rules"
FLAGS = "/api/v1/staff/protection/flags"


@pytest.fixture
def risk():
    return api_as(staff_user("ana.risk", "risk"))


def changes() -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action="protection.harm_rule_changed").order_by("pk"))


def test_the_rules_with_their_defaults_in_the_jobs_order(risk):
    response = risk.get(RULES)
    assert response.status_code == 200, response.content
    rules = response.json()
    assert [rule["code"] for rule in rules] == [
        "deposits_rising",
        "long_sessions",
        "chasing_losses",
        "night_play",
    ]
    assert all(rule["enabled"] and rule["params"] == rule["defaults"] for rule in rules)
    assert rules[1]["params"] == {"hours": 4} and rules[1]["updated_by"] is None
    assert risk.get(f"{RULES}/night_play").json()["params"]["share_percent"] == 50


def test_risk_changes_a_rule_audited_with_before_and_after(risk):
    response = risk.patch(f"{RULES}/long_sessions", {"params": {"hours": 3}}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["params"] == {"hours": 3} and body["updated_by"] == "ana.risk"
    off = risk.patch(f"{RULES}/night_play", {"enabled": False}, format="json")
    assert off.json()["enabled"] is False and off.json()["params"]["min_buy_ins"] == 10

    first, second = changes()
    assert first.actor_type == "staff" and first.object_type == "protection.harmrule"
    assert first.data == {
        "code": "long_sessions",
        "old": {"enabled": True, "params": {"hours": 4}},
        "new": {"enabled": True, "params": {"hours": 3}},
    }
    assert second.data["old"]["enabled"] is True and second.data["new"]["enabled"] is False
    assert HarmRule.objects.get(code="long_sessions").params == {"hours": 3}


def test_a_change_that_changes_nothing_writes_nothing(risk):
    for body in ({}, {"enabled": True}, {"params": {"hours": 4}}):
        assert risk.patch(f"{RULES}/long_sessions", body, format="json").status_code == 200
    assert changes() == []


def test_only_some_parameters_change_and_the_rest_keep_their_values(risk):
    risk.patch(f"{RULES}/deposits_rising", {"params": {"min_units": 50}}, format="json")
    body = risk.patch(
        f"{RULES}/deposits_rising",
        {"params": {"min_by_currency": {"jpy": "5000"}}},
        format="json",
    ).json()
    assert body["params"] == {
        "increase_percent": 100,
        "min_units": 50,
        "min_by_currency": {"JPY": "5000"},
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"params": {"hours": 0}}, "params.hours"),
        ({"params": {"hours": "4"}}, "params.hours"),
        ({"params": {"minutes": 30}}, "params.minutes"),
    ],
)
def test_parameters_out_of_bounds_are_refused_and_nothing_changes(risk, body, field):
    problem = assert_problem(
        risk.patch(f"{RULES}/long_sessions", {"enabled": False, **body}, format="json"),
        422,
        "harm-rule-invalid",
    )
    assert problem["field"] == field
    assert changes() == []
    assert risk.get(f"{RULES}/long_sessions").json()["enabled"] is True


def test_malformed_bodies_and_unknown_rules(risk):
    assert_problem(
        risk.patch(f"{RULES}/long_sessions", {"params": [4]}, format="json"),
        400,
        "validation-error",
    )
    assert_problem(
        risk.patch(f"{RULES}/long_sessions", {"enabled": "maybe"}, format="json"),
        400,
        "validation-error",
    )
    assert_problem(risk.get(f"{RULES}/tilt"), 404, "not-found")
    assert_problem(risk.patch(f"{RULES}/tilt", {"enabled": False}, format="json"), 404, "not-found")


@pytest.mark.parametrize("role", ["support", "finance"])
def test_support_and_finance_may_not_read_or_change_the_rules(role):
    client = api_as(staff_user(f"someone.{role}", role))
    assert_problem(client.get(RULES), 403, "permission-denied")
    patch = client.patch(f"{RULES}/long_sessions", {"enabled": False}, format="json")
    assert_problem(patch, 403, "permission-denied")
    assert_problem(client.get(FLAGS), 403, "permission-denied")
    assert changes() == []


def test_admin_changes_a_rule_a_user_limited_to_some_operators_may_not():
    admin = api_as(staff_user("ada.admin", "admin"))
    response = admin.patch(f"{RULES}/chasing_losses", {"params": {"hours": 48}}, format="json")
    assert response.status_code == 200, response.content
    scoped_user = staff_user("sam.risk", "risk")
    StaffOperatorScope.objects.create(user=scoped_user, operator=OperatorFactory())
    scoped = api_as(scoped_user)
    assert scoped.get(RULES).status_code == 200
    refused = scoped.patch(f"{RULES}/chasing_losses", {"params": {"hours": 2}}, format="json")
    assert_problem(refused, 403, "permission-denied")
    assert [event.data["new"]["params"] for event in changes()] == [{"hours": 48}]


def _flag(player, rule: str, day: date):
    return services.harm_flag_raise(player=player, rule=rule, day=day, evidence={"seeded": rule})


def test_the_flags_by_player_rule_and_day_within_the_callers_operators(risk):
    mine, theirs = OperatorFactory(), OperatorFactory()
    alice, bob = PlayerFactory(operator=mine), PlayerFactory(operator=mine)
    carol = PlayerFactory(operator=theirs)
    _flag(alice, "night_play", date(2026, 11, 28))
    _flag(alice, "long_sessions", date(2026, 11, 30))
    _flag(bob, "night_play", date(2026, 11, 30))
    _flag(carol, "night_play", date(2026, 11, 30))

    def ids(client, **query):
        response = client.get(FLAGS, query)
        assert response.status_code == 200, response.content
        return [
            (row["player"]["player_id"], row["rule"], row["day"])
            for row in response.json()["results"]
        ]

    assert len(ids(risk)) == 4
    assert ids(risk, player_id=str(alice.pk)) == [
        (str(alice.pk), "long_sessions", "2026-11-30"),
        (str(alice.pk), "night_play", "2026-11-28"),
    ]
    assert {row[0] for row in ids(risk, rule="night_play", day_from="2026-11-29")} == {
        str(bob.pk),
        str(carol.pk),
    }
    assert ids(risk, day_to="2026-11-28") == [(str(alice.pk), "night_play", "2026-11-28")]
    first = risk.get(FLAGS, {"player_id": str(alice.pk), "day_to": "2026-11-28"}).json()
    assert first["results"][0]["evidence"] == {"seeded": "night_play"}
    assert first["results"][0]["player"]["external_ref"] == alice.external_ref

    scoped_user = staff_user("sam.risk", "risk")
    StaffOperatorScope.objects.create(user=scoped_user, operator=mine)
    assert {row[0] for row in ids(api_as(scoped_user))} == {str(alice.pk), str(bob.pk)}
    assert ids(api_as(scoped_user), player_id=str(carol.pk)) == []

    assert_problem(
        risk.get(FLAGS, {"day_from": "2026-11-30", "day_to": "2026-11-28"}),
        400,
        "validation-error",
    )
    assert_problem(risk.get(FLAGS, {"rule": "tilt"}), 400, "validation-error")
