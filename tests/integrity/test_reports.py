"""Players' reports (docs/integrity.md "Player reports"): a player reports an opponent
of a match they played, sees it received and its status (never the outcome), their operator
gets integrity.report_received, and the report becomes a player_report alert in a case."""

from __future__ import annotations

import json

import pytest

from gin_platform.models import OperatorEvent
from integrity.models import Alert, Case
from tests.factories import staff_user
from tests.helpers import api_as, assert_problem, operator_api, session_client
from tests.integrity.world import play_and_lose, player_make, world_make

pytestmark = pytest.mark.django_db

REPORTS = "/api/v1/me/reports"


@pytest.fixture
def played():
    world = world_make()
    shark, minnow = player_make(world.a, "shark"), player_make(world.b, "minnow")
    match = play_and_lose(world, winner=shark, loser=minnow)
    return world, shark, minnow, match


def _report(client, match, reported, **extra):
    body = {"match_id": match.pk, "reported": reported, "category": "chip_dumping", **extra}
    return client.post(REPORTS, body, format="json")


def test_a_report_is_received_becomes_an_alert_in_a_case_and_shows_its_status(played):
    world, shark, minnow, match = played
    client = session_client(minnow)
    response = _report(client, match, "shark", text="he let me win then took it all")
    assert response.status_code == 201, response.content
    report = response.json()
    assert report["status"] == "under_review" and report["reported"] == "shark"
    assert set(report) == {
        "id",
        "match_id",
        "reported",
        "category",
        "status",
        "created_at",
        "updated_at",
    }
    alert = Alert.objects.get(signal="player_report")
    assert (alert.player_id, alert.other_player_id) == (shark.pk, minnow.pk)
    assert alert.case is not None and alert.case.opened_by == "report"
    (event,) = OperatorEvent.objects.filter(type="integrity.report_received")
    assert event.operator_id == world.b.pk  # the reporter's operator only
    assert event.data["reporter"]["player_id"] == str(minnow.pk)
    assert event.data["reported"]["screen_name"] == "shark"
    assert str(shark.pk) not in json.dumps(event.data)
    listed = client.get(REPORTS).json()["results"]
    assert [row["id"] for row in listed] == [report["id"]]
    # The case closes: the reporter sees "closed", never what was decided.
    api_as(staff_user("ana", "risk")).post(
        f"/api/v1/staff/integrity/cases/{alert.case_id}/close",
        {"resolution": "banned, winnings confiscated"},
        format="json",
    )
    shown = client.get(f"{REPORTS}/{report['id']}").json()
    assert shown["status"] == "closed" and "banned" not in json.dumps(shown)


def test_a_second_report_of_the_same_player_joins_the_open_case(played):
    world, shark, minnow, match = played
    second = play_and_lose(world, winner=shark, loser=minnow)
    client = session_client(minnow)
    assert _report(client, match, "shark").status_code == 201
    assert _report(client, second, "SHARK", category="collusion").status_code == 201
    assert Case.objects.count() == 1
    assert Alert.objects.filter(signal="player_report", case__isnull=False).count() == 2


def test_what_a_player_may_not_report(played):
    world, shark, minnow, match = played
    client = session_client(minnow)
    assert_problem(_report(client, match, "minnow"), 422, "report-invalid")  # themselves
    assert_problem(_report(client, match, "nobody"), 422, "report-invalid")
    assert_problem(_report(client, match, "shark", category="rude"), 400, "validation-error")
    assert _report(client, match, "shark").status_code == 201
    assert_problem(_report(client, match, "shark"), 422, "report-invalid")  # once per match
    outsider = session_client(player_make(world.a, "outsider"))
    assert_problem(_report(outsider, match, "shark"), 404, "not-found")  # not their match
    assert_problem(client.get(f"{REPORTS}/999999"), 404, "not-found")
    other = session_client(shark)
    assert other.get(REPORTS).json()["results"] == []
    assert operator_api(world.a).get(REPORTS).status_code == 403  # players only
