"""What links players (docs/integrity.md "What links players"): identifiers the
operators send with a launch or a session, and the addresses the platform itself sees, kept
as keyed hashes only; players who share one are linked across the operators of the network,
under the rules for addresses (a household, not a shared NAT)."""

from __future__ import annotations

import json
from datetime import timedelta
from itertools import count

import pytest
from django.apps import apps
from django.utils import timezone

from gin_platform.models import AuditEvent
from integrity import services
from integrity.models import LinkMark, PlayerLink
from integrity.pairing import linked_pairs, linked_players
from integrity.services.marks import ADDRESS_DAYS, ADDRESS_MAX_PLAYERS
from tests.factories import SYSTEM
from tests.helpers import bearer_client
from tests.integrity.links_world import world_make

pytestmark = pytest.mark.django_db

DEVICE = "ios-install-3b9f1c77-raw"
ADDRESS = "81.2.69.160"
_keys = count()


def idem() -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": f"marks-{next(_keys)}"}


@pytest.fixture
def world():
    return world_make()


def session(api, player, **body):
    response = api.post(f"/api/v1/players/{player.pk}/sessions", body, format="json", **idem())
    assert response.status_code == 201, response.json()
    return response.json()["token"]


def pair(one, two) -> tuple:
    return tuple(sorted((one.pk, two.pk)))


def every_stored_value() -> str:
    """Every row of every table of the project's apps, as text."""
    rows = []
    for label in ("platform", "games", "wallet", "settlement", "integrity"):
        for model in apps.get_app_config(label).get_models():
            rows.append(json.dumps(list(model.objects.values()), default=str))
    return "\n".join(rows)


def test_one_device_sent_by_two_network_operators_links_their_players(
    world, django_capture_on_commit_callbacks
):
    ann, bob = world.player(world.a), world.player(world.b)
    with django_capture_on_commit_callbacks(execute=True):
        session(world.api_a, ann, device_id=DEVICE)
    with django_capture_on_commit_callbacks(execute=True):
        session(world.api_b, bob, device_id=DEVICE)
    link = PlayerLink.objects.get()
    assert (link.player_low_id, link.player_high_id) == pair(ann, bob)
    assert link.kind == "device" and link.source == "platform" and link.ended_at is None
    assert set(link.evidence) == {"identifier", "seen_at"} and link.evidence["identifier"] == (
        "device"
    )
    assert linked_pairs(player_ids=[ann.pk, bob.pk]) == {pair(ann, bob)}
    marks = list(LinkMark.objects.order_by("pk"))
    assert [mark.source for mark in marks] == [f"operator:{world.a.pk}", f"operator:{world.b.pk}"]
    assert marks[0].digest == marks[1].digest and DEVICE not in marks[0].digest
    assert AuditEvent.objects.filter(action="player_link.found").count() == 1


def test_no_raw_identifier_is_stored_anywhere(world, django_capture_on_commit_callbacks):
    ann, bob = world.player(world.a), world.player(world.b)
    with django_capture_on_commit_callbacks(execute=True):
        session(world.api_a, ann, device_id=DEVICE, client_address=ADDRESS)
        launched = world.api_b.post(
            f"/api/v1/players/{bob.pk}/launch",
            {"device_id": DEVICE, "client_address": ADDRESS},
            format="json",
            **idem(),
        )
        assert launched.status_code == 201, launched.json()
        fingerprint = world.api_b.post(
            f"/api/v1/players/{bob.pk}/identifiers",
            {"kind": "payment_instrument", "value": "psp-fp-raw-9c1d27e0b4"},
            format="json",
            **idem(),
        )
        assert fingerprint.status_code == 201
    assert LinkMark.objects.count() == 5
    assert set(PlayerLink.objects.values_list("kind", flat=True)) == {"device", "address"}
    stored = every_stored_value()
    for raw in (DEVICE, ADDRESS, "psp-fp-raw-9c1d27e0b4"):
        assert raw not in stored
    assert "psp-fp-raw" not in json.dumps(fingerprint.json())


def test_the_platform_marks_the_address_it_sees_at_the_launch_exchange_and_socket_tickets(
    world, django_capture_on_commit_callbacks
):
    ann, bob = world.player(world.a), world.player(world.b)
    launched = world.api_a.post(
        f"/api/v1/players/{ann.pk}/launch", {}, format="json", **idem()
    ).json()
    with django_capture_on_commit_callbacks(execute=True):
        exchanged = bearer_client("unused").post(
            "/api/v1/launch/session",
            {"launch_token": launched["launch_token"]},
            format="json",
            REMOTE_ADDR="2a02:c7f:1234:5678::10",
        )
    assert exchanged.status_code == 201, exchanged.json()
    bob_token = session(world.api_b, bob)
    with django_capture_on_commit_callbacks(execute=True):
        ticket = bearer_client(bob_token).post(
            "/api/v1/socket-tickets", REMOTE_ADDR="2a02:c7f:1234:5678::99"
        )
    assert ticket.status_code == 201, ticket.json()
    assert set(LinkMark.objects.values_list("source", flat=True)) == {"platform"}
    assert linked_players(player_id=ann.pk) == {bob.pk}  # one household's /64


def test_private_addresses_mark_nobody(world, django_capture_on_commit_callbacks):
    ann = world.player(world.a)
    with django_capture_on_commit_callbacks(execute=True):
        session(world.api_a, ann, client_address="10.0.0.7")
        bearer_client(session(world.api_a, ann)).post("/api/v1/socket-tickets")  # 127.0.0.1
    assert not LinkMark.objects.exists()


def test_a_bad_identifier_on_a_session_is_a_validation_error(world):
    ann = world.player(world.a)
    response = world.api_a.post(
        f"/api/v1/players/{ann.pk}/sessions",
        {"client_address": "not-an-address", "device_id": "x" * 201},
        format="json",
        **idem(),
    )
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"client_address", "device_id"}


def test_an_address_links_a_household_not_a_shared_nat(world):
    assert ADDRESS_MAX_PLAYERS == 4
    players = [world.player(world.a if n % 2 else world.b) for n in range(6)]
    for player in players:
        recorded = services.mark_record(
            player=player, kind="address", digest="d" * 64, source="platform"
        )
        services.links_derive(mark_id=recorded.mark.pk)
    # The first four: every pair (6 links); the fifth and sixth see a public NAT: none.
    assert PlayerLink.objects.filter(kind="address").count() == 6
    assert linked_players(player_id=players[4].pk) == set()
    assert linked_players(player_id=players[5].pk) == set()
    assert linked_players(player_id=players[0].pk) == {p.pk for p in players[1:4]}


def test_an_address_seen_long_ago_links_nobody_seen_there_now(world):
    old, new = world.player(world.a), world.player(world.b)
    long_ago = timezone.now() - timedelta(days=ADDRESS_DAYS + 1)
    services.mark_record(
        player=old, kind="address", digest="e" * 64, source="platform", seen_at=long_ago
    )
    recorded = services.mark_record(player=new, kind="address", digest="e" * 64, source="platform")
    assert services.links_derive(mark_id=recorded.mark.pk) == 0
    # Seen there again now: the two are a household after all.
    again = services.mark_record(player=old, kind="address", digest="e" * 64, source="platform")
    assert again.created is False
    assert services.links_derive(mark_id=again.mark.pk) == 1


def test_a_device_seen_with_too_many_players_links_no_more(world, monkeypatch, caplog):
    monkeypatch.setattr("integrity.services.marks.SHARED_IDENTIFIER_PLAYERS", 3)
    players = [world.player(world.a) for _ in range(4)]
    for player in players:
        recorded = services.mark_record(
            player=player, kind="device", digest="f" * 64, source="platform"
        )
        services.links_derive(mark_id=recorded.mark.pk)
    assert PlayerLink.objects.count() == 3  # the first three, each pair
    assert linked_players(player_id=players[3].pk) == set()
    assert "links no more of them" in caplog.text and "f" * 64 not in caplog.text


def test_the_sweeper_derives_marks_whose_message_was_lost(world):
    ann, bob = world.player(world.a), world.player(world.b)
    for player in (ann, bob):  # no on-commit capture: the derivation task never ran
        services.mark_record(player=player, kind="device", digest="a" * 64, source="platform")
    assert not PlayerLink.objects.exists()
    assert services.links_derive_pending() == 2
    assert linked_pairs(player_ids=[ann.pk, bob.pk]) == {pair(ann, bob)}
    assert services.links_derive_pending() == 0


def test_a_link_ended_by_the_risk_team_is_not_made_again(world):
    ann, bob = world.player(world.a), world.player(world.b)
    for player in (ann, bob):
        recorded = services.mark_record(
            player=player, kind="device", digest="b" * 64, source="platform", actor=SYSTEM
        )
        services.links_derive(mark_id=recorded.mark.pk)
    PlayerLink.objects.update(ended_at=timezone.now())
    again = services.mark_record(player=ann, kind="device", digest="b" * 64, source="platform")
    assert services.links_derive(mark_id=again.mark.pk) == 0
    assert linked_pairs(player_ids=[ann.pk, bob.pk]) == set()
