"""The operator's links API (docs/integrity.md "The API"): declaring and ending
household and associate links between its own players, sending identifiers, and reading its
players' links; idempotent, problem+json on bad input, and never a word about another
operator's players."""

from __future__ import annotations

import json
import uuid
from itertools import count

import pytest

from gin_platform.models import AuditEvent
from integrity.models import PlayerLink
from integrity.pairing import linked_pairs
from tests.helpers import assert_problem
from tests.integrity.links_world import share_identifier, world_make

pytestmark = pytest.mark.django_db
_keys = count()


def idem(key: str | None = None) -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": key or f"links-{next(_keys)}"}


@pytest.fixture
def world():
    return world_make()


def declare(api, player, other_id, kind="household", key=None):
    return api.post(
        f"/api/v1/players/{player.pk}/links",
        {"player_id": str(other_id), "kind": kind},
        format="json",
        **idem(key),
    )


def listed(api, player) -> list[dict]:
    response = api.get(f"/api/v1/players/{player.pk}/links")
    assert response.status_code == 200, response.json()
    return response.json()["results"]


def end(api, player, link_id, key=None):
    return api.delete(f"/api/v1/players/{player.pk}/links/{link_id}", **idem(key))


def test_a_declared_link_is_shown_on_both_players_and_ended_by_its_operator(world):
    ann, amy = world.player(world.a), world.player(world.a)
    created = declare(world.api_a, ann, amy.pk)
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["player_id"] == str(ann.pk) and body["other_player_id"] == str(amy.pk)
    assert body["kind"] == "household" and body["made_by"] == "operator"
    assert body["seen_at"] is None and body["ended_at"] is None
    assert linked_pairs(player_ids=[ann.pk, amy.pk])
    from_amy = listed(world.api_a, amy)
    assert [(row["id"], row["other_player_id"]) for row in from_amy] == [(body["id"], str(ann.pk))]
    ended = end(world.api_a, amy, body["id"])
    assert ended.status_code == 200 and ended.json()["ended_at"] is not None
    assert linked_pairs(player_ids=[ann.pk, amy.pk]) == set()
    assert end(world.api_a, ann, body["id"]).json()["ended_at"] == ended.json()["ended_at"]
    actions = list(
        AuditEvent.objects.filter(action__startswith="player_link.").values_list(
            "action", flat=True
        )
    )
    assert sorted(actions) == ["player_link.declared", "player_link.ended"]


def test_declaring_is_idempotent_and_declaring_an_ended_link_puts_it_back(world):
    ann, amy = world.player(world.a), world.player(world.a)
    first = declare(world.api_a, ann, amy.pk, key="same-key")
    replay = declare(world.api_a, ann, amy.pk, key="same-key")
    assert replay.status_code == 201 and replay.json() == first.json()
    again = declare(world.api_a, amy, ann.pk)  # from the other side, a new key
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert PlayerLink.objects.count() == 1
    end(world.api_a, ann, first.json()["id"])
    back = declare(world.api_a, ann, amy.pk, kind="household")
    assert back.status_code == 201 and back.json()["id"] == first.json()["id"]
    assert back.json()["ended_at"] is None
    other_kind = declare(world.api_a, ann, amy.pk, kind="associate")
    assert other_kind.status_code == 201 and other_kind.json()["id"] != first.json()["id"]


def test_bad_input_is_a_problem(world):
    ann, amy = world.player(world.a), world.player(world.a)
    assert_problem(declare(world.api_a, ann, amy.pk, kind="friend"), 400, "validation-error")
    assert_problem(declare(world.api_a, ann, "not-a-uuid"), 400, "validation-error")
    self_link = assert_problem(declare(world.api_a, ann, ann.pk), 422, "link-invalid")
    assert self_link["field"] == "player_id"
    extra = world.api_a.post(
        f"/api/v1/players/{ann.pk}/links",
        {"player_id": str(amy.pk), "kind": "household", "note": "cousins"},
        format="json",
        **idem(),
    )
    assert_problem(extra, 400, "unknown-fields")
    unkeyed = world.api_a.post(
        f"/api/v1/players/{ann.pk}/links",
        {"player_id": str(amy.pk), "kind": "household"},
        format="json",
    )
    assert_problem(unkeyed, 400, "idempotency-key-missing")
    assert_problem(end(world.api_a, ann, "abc"), 404, "not-found")
    assert not PlayerLink.objects.exists()


def test_another_operators_player_is_answered_like_an_unknown_one(world):
    ann, bob = world.player(world.a), world.player(world.b)
    theirs = assert_problem(declare(world.api_a, ann, bob.pk), 422, "link-invalid")
    unknown = assert_problem(declare(world.api_a, ann, uuid.uuid4()), 422, "link-invalid")
    assert theirs["detail"] == unknown["detail"] and str(bob.pk) not in json.dumps(theirs)
    # Nor may an operator read, link or end anything of another's players.
    assert_problem(world.api_b.get(f"/api/v1/players/{ann.pk}/links"), 404, "not-found")
    link = declare(world.api_a, ann, world.player(world.a).pk).json()
    assert_problem(end(world.api_b, ann, link["id"]), 404, "not-found")
    bobs_friend = world.player(world.b)
    assert_problem(end(world.api_b, bob, link["id"]), 404, "not-found")
    assert declare(world.api_b, bob, bobs_friend.pk).status_code == 201
    assert PlayerLink.objects.filter(ended_at__isnull=True).count() == 2


def test_links_to_another_operators_players_are_never_shown(world):
    ann, amy, bob = world.player(world.a), world.player(world.a), world.player(world.b)
    share_identifier([ann, amy, bob], kind="device", value="shared-tablet-1")
    assert PlayerLink.objects.count() == 3  # the platform links all three, across operators
    shown = listed(world.api_a, ann)
    assert [(row["other_player_id"], row["kind"], row["made_by"]) for row in shown] == [
        (str(amy.pk), "device", "platform")
    ]
    assert shown[0]["seen_at"] is not None
    text = json.dumps(shown)
    assert str(bob.pk) not in text and "shared-tablet" not in text
    assert [row["other_player_id"] for row in listed(world.api_b, bob)] == []
    refused = assert_problem(end(world.api_a, ann, shown[0]["id"]), 409, "link-not-endable")
    assert str(amy.pk) not in json.dumps(refused)
    # A cross-operator link is not even addressable by either operator.
    cross = PlayerLink.objects.get(
        player_low_id__in=[ann.pk, bob.pk], player_high_id__in=[ann.pk, bob.pk]
    )
    assert_problem(end(world.api_a, ann, cross.pk), 404, "not-found")
    assert_problem(end(world.api_b, bob, cross.pk), 404, "not-found")


def identify(api, player, kind, value, key=None):
    return api.post(
        f"/api/v1/players/{player.pk}/identifiers",
        {"kind": kind, "value": value},
        format="json",
        **idem(key),
    )


def test_identifiers_by_api_link_across_the_network_and_are_never_returned(
    world, django_capture_on_commit_callbacks
):
    ann, bob = world.player(world.a), world.player(world.b)
    with django_capture_on_commit_callbacks(execute=True):
        first = identify(world.api_a, ann, "payment_instrument", "psp-fp-777")
    assert first.status_code == 201, first.json()
    assert set(first.json()) == {"player_id", "kind", "first_seen_at", "last_seen_at"}
    again = identify(world.api_a, ann, "payment_instrument", "psp-fp-777")
    assert again.status_code == 200
    assert again.json()["first_seen_at"] == first.json()["first_seen_at"]
    with django_capture_on_commit_callbacks(execute=True):
        assert identify(world.api_b, bob, "payment_instrument", "psp-fp-777").status_code == 201
    link = PlayerLink.objects.get()
    assert link.kind == "payment_instrument" and link.source == "platform"
    assert listed(world.api_a, ann) == [] and listed(world.api_b, bob) == []


def test_bad_identifiers_are_problems(world):
    ann, bob = world.player(world.a), world.player(world.b)
    assert_problem(identify(world.api_a, ann, "email", "a@b.example"), 400, "validation-error")
    assert_problem(identify(world.api_a, ann, "device", "x" * 201), 400, "validation-error")
    private = assert_problem(
        identify(world.api_a, ann, "address", "192.168.0.2"), 422, "link-invalid"
    )
    assert private["field"] == "value" and "192.168" not in json.dumps(private)
    assert_problem(identify(world.api_a, bob, "device", "d-1"), 404, "not-found")
