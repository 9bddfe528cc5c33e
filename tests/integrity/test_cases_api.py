"""The risk team's case API (docs/integrity.md): alerts grouped into cases
automatically and by hand, notes, the actions and what they do (a suspended or banned
player sits nowhere, a blocked pairing is never seated together), the webhooks each
operator gets (masked across the network), scope, permissions and the problems."""

from __future__ import annotations

import json

import pytest

from gin_platform.models import AuditEvent, OperatorEvent, StaffOperatorScope
from integrity import pairing, services
from integrity.models import Alert, Case, LinkKind, PlayerLink
from tests.factories import staff_user
from tests.games.factories import TableFactory
from tests.games.network_world import member_make
from tests.helpers import api_as, assert_problem, session_client
from tests.integrity.world import alert_make, play_and_lose, player_make, world_make

pytestmark = pytest.mark.django_db

CASES = "/api/v1/staff/integrity/cases"


@pytest.fixture
def world():
    return world_make()


@pytest.fixture
def risk():
    return api_as(staff_user("ana", "risk"))


def _open(client, *alerts, title="pair"):
    response = client.post(
        CASES, {"title": title, "alert_ids": [a.pk for a in alerts]}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def _act(client, case_id, kind, player, **extra):
    body = {"kind": kind, "player_id": str(player.pk), "reason": "seen in the hands", **extra}
    return client.post(f"{CASES}/{case_id}/actions", body, format="json")


def test_alerts_about_the_same_players_join_one_open_case(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    guppy = player_make(world.a, "guppy")
    first = alert_make(shark, minnow)
    second = alert_make(minnow, shark, signal="chip_dumping")
    bot = alert_make(shark, None, signal="bot_timing")  # a player alert about one of them
    other = alert_make(shark, guppy)
    response = risk.post("/api/v1/staff/integrity/alerts/group")
    assert response.json() == {"grouped": 4}
    case_ids = {a.pk: a.case_id for a in Alert.objects.all()}
    assert case_ids[first.pk] == case_ids[second.pk] == case_ids[bot.pk]
    assert case_ids[other.pk] != case_ids[first.pk]
    assert set(Alert.objects.values_list("status", flat=True)) == {"in_case"}
    assert Case.objects.filter(opened_by="detection").count() == 2
    # Each operator of the case's players is told, the other operator's player masked.
    opened = OperatorEvent.objects.filter(type="integrity.case_opened")
    for_b = next(e.data for e in opened if e.operator_id == world.b.pk)
    assert {p["screen_name"] for p in for_b["players"]} == {"shark", "minnow"}
    assert str(shark.pk) not in json.dumps(for_b)
    assert risk.post("/api/v1/staff/integrity/alerts/group").json() == {"grouped": 0}


def test_a_case_by_hand_with_notes_and_its_evidence(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    match = play_and_lose(world, winner=shark, loser=minnow)
    case = _open(risk, alert_make(shark, minnow, matches=[match.pk]))
    assert case["opened_by"].startswith("staff:")
    noted = risk.post(f"{CASES}/{case['id']}/notes", {"text": "look at hand 1"}, format="json")
    assert noted.status_code == 201 and noted.json()["notes"][0]["text"] == "look at hand 1"
    shown = risk.get(f"{CASES}/{case['id']}").json()
    (pair,) = shown["evidence"]["pairs"]
    assert [m["match_id"] for m in pair["matches"]] == [match.pk]
    assert pair["money_flow"]["totals"]["EUR"][str(minnow.pk)]["amount"] == "-5.00"
    hand_url = pair["matches"][0]["hands"][0]["replay"]
    replay = risk.get(hand_url).json()
    assert replay["verified"] is True and len(replay["final_hands"]) == 2
    stranger_match = play_and_lose(world, winner=player_make(world.a, "x"), loser=minnow)
    assert_problem(
        risk.get(f"{CASES}/{case['id']}/hands/{stranger_match.pk}/1"), 422, "case-action-invalid"
    )
    assert risk.get(CASES).json()["results"][0]["id"] == case["id"]


def test_an_alert_in_one_case_joins_no_other_and_a_closed_case_takes_nothing(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    alert = alert_make(shark, minnow)
    case = _open(risk, alert)
    again = risk.post(CASES, {"title": "again", "alert_ids": [alert.pk]}, format="json")
    assert_problem(again, 422, "case-action-invalid")
    assert_problem(
        risk.post(CASES, {"title": "x", "alert_ids": [999999]}, format="json"), 404, "not-found"
    )
    closed = risk.post(f"{CASES}/{case['id']}/close", {"resolution": "no"}, format="json")
    assert closed.json()["status"] == "closed"
    note = risk.post(f"{CASES}/{case['id']}/notes", {"text": "late"}, format="json")
    assert_problem(note, 409, "case-closed")
    assert_problem(_act(risk, case["id"], "warn", shark), 409, "case-closed")


def test_warn_goes_to_the_players_operator_only(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = _open(risk, alert_make(shark, minnow))
    assert _act(risk, case["id"], "warn", shark).status_code == 201
    (event,) = OperatorEvent.objects.filter(type="integrity.case_action")
    assert event.operator_id == world.a.pk
    assert event.data["action"] == "warn" and event.data["message"] == "seen in the hands"
    assert event.data["player"]["player_id"] == str(shark.pk)
    assert AuditEvent.objects.filter(action="integrity.warn").count() == 1


def test_a_suspended_player_sits_nowhere_until_it_is_lifted(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = _open(risk, alert_make(shark, minnow))
    assert _act(risk, case["id"], "suspend", shark).status_code == 201
    assert_problem(_act(risk, case["id"], "suspend", shark), 422, "case-action-invalid")
    table = TableFactory(room=world.room)
    refused = session_client(shark).post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
    assert_problem(refused, 403, "play-suspended")
    assert pairing.play_refusal(player_id=shark.pk) is not None
    assert _act(risk, case["id"], "lift_suspension", shark).status_code == 201
    assert_problem(_act(risk, case["id"], "lift_suspension", shark), 422, "case-action-invalid")
    sat = session_client(shark).post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
    assert sat.status_code == 201, sat.content


def test_a_suspended_player_cannot_join_the_waiting_list_either(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = _open(risk, alert_make(shark, minnow))
    _act(risk, case["id"], "suspend", shark)
    joined = session_client(shark).post(
        f"/api/v1/lobby/{world.room.pk}/waiting-list", {}, format="json"
    )
    assert_problem(joined, 403, "play-suspended")


def test_a_confiscation_decided_over_http_once(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = _open(risk, alert_make(shark, minnow))
    body = {
        "colluder_id": str(shark.pk),
        "currency": "EUR",
        "refunds": [{"player_id": str(minnow.pk), "amount": "1.00"}],
        "reason": "reviewed",
    }
    proposed = risk.post(f"{CASES}/{case['id']}/confiscations", body, format="json").json()
    url = f"/api/v1/staff/integrity/confiscations/{proposed['id']}"
    ben = api_as(staff_user("ben", "finance"))
    rejected = ben.post(f"{url}/reject", {"note": "thin"}, format="json")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert_problem(ben.post(f"{url}/approve", {}, format="json"), 409, "approval-not-pending")
    shown = ben.get(url).json()
    assert (shown["status"], shown["decided_by"], shown["decision_note"]) == (
        "rejected",
        "ben",
        "thin",
    )
    unknown = risk.post(
        f"{CASES}/{case['id']}/confiscations",
        body | {"refunds": [{"player_id": str(minnow.pk), "amount": "1.001"}]},
        format="json",
    )
    assert_problem(unknown, 422, "amount-too-precise")
    support = api_as(staff_user("sam", "support"))
    assert support.get(url).status_code == 403


def test_a_blocked_pairing_is_a_case_block_link(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = _open(risk, alert_make(shark, minnow))
    missing = _act(risk, case["id"], "block_pairing", shark)
    assert_problem(missing, 422, "case-action-invalid")
    blocked = _act(risk, case["id"], "block_pairing", shark, other_player_id=str(minnow.pk))
    assert blocked.status_code == 201, blocked.content
    link = PlayerLink.objects.get(kind=LinkKind.CASE_BLOCK)
    assert {link.player_low_id, link.player_high_id} == {shark.pk, minnow.pk}
    assert not pairing.may_share_table(player_id=shark.pk, other_ids=[minnow.pk])


def test_a_ban_is_shared_with_the_network_and_keeps_the_persons_other_accounts_out(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    third = member_make(name="Charlie", webhook_url="")
    alias = player_make(world.b, "shark_again")
    low, high = sorted((shark, alias), key=lambda p: p.pk)
    PlayerLink.objects.create(
        player_low=low, player_high=high, kind=LinkKind.DEVICE, source="platform"
    )
    case = _open(risk, alert_make(shark, minnow))
    assert _act(risk, case["id"], "ban", shark).status_code == 201
    bans = {
        e.operator_id: e.data for e in OperatorEvent.objects.filter(type="integrity.case_action")
    }
    assert set(bans) == {world.a.pk, world.b.pk, third.pk}
    assert bans[third.pk]["player"] == {
        "masked_id": bans[third.pk]["player"]["masked_id"],
        "screen_name": "shark",
        "own": False,
    }
    assert bans[third.pk]["shared_with_network"] is True
    table = TableFactory(room=world.room)
    for player in (shark, alias):
        refused = session_client(player).post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
        assert_problem(refused, 403, "play-suspended")
    assert pairing.play_refusal(player_id=alias.pk, network=False) is None


def test_acting_on_a_player_outside_the_case_is_refused(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    guppy = player_make(world.a, "guppy")
    case = _open(risk, alert_make(shark, minnow))
    refused = _act(risk, case["id"], "suspend", guppy)
    body = assert_problem(refused, 422, "case-action-invalid")
    assert body["field"] == "player_id"


def test_support_reads_nothing_and_a_scoped_risk_user_sees_others_masked(world):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    case = services.case_open_by_staff(
        alerts=[alert_make(shark, minnow)], title="pair", user=staff_user("ana", "risk")
    )
    support = api_as(staff_user("sam", "support"))
    assert support.get(CASES).status_code == 403
    scoped_user = staff_user("bea", "risk")
    StaffOperatorScope.objects.create(user=scoped_user, operator=world.b)
    scoped = api_as(scoped_user)
    shown = scoped.get(f"{CASES}/{case.pk}").json()
    players = {p["screen_name"]: p for p in shown["players"]}
    assert players["minnow"]["player_id"] == str(minnow.pk)
    assert "player_id" not in players["shark"] and players["shark"]["masked_id"]
    assert str(shark.pk) not in json.dumps(shown)
    outsider_user = staff_user("cal", "risk")
    StaffOperatorScope.objects.create(user=outsider_user, operator=world.network)
    assert_problem(api_as(outsider_user).get(f"{CASES}/{case.pk}"), 404, "not-found")


def test_a_false_positive_is_dismissed_and_joins_no_case(world, risk):
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    alert = alert_make(shark, minnow, signal="repeated_pairing")
    url = f"/api/v1/staff/integrity/alerts/{alert.pk}/dismiss"
    dismissed = risk.post(url, {"reason": "two friends, one game"}, format="json")
    assert dismissed.status_code == 200 and dismissed.json()["status"] == "dismissed"
    assert risk.post("/api/v1/staff/integrity/alerts/group").json() == {"grouped": 0}
    assert_problem(risk.post(url, {"reason": "again"}, format="json"), 422, "case-action-invalid")
    assert AuditEvent.objects.filter(action="integrity.alert_dismissed").count() == 1
