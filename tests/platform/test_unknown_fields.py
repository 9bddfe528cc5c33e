"""A field a request does not declare is refused, never dropped (docs/api-errors.md).

Walks every write operation of the generated schema (whatever the apps add) with the
credential its ``security`` names and real ids for its path parameters (the fuzzer's World),
sends one undeclared field, and wants 400 ``unknown-fields`` naming it with nothing changed
in the database; then the same for the match socket's messages.
"""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.apps import apps
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from games.models import Match, Room
from gin_platform.models import IdempotencyRecord, PlayerSession
from gin_platform.project.asgi import application as asgi_application
from gin_platform.tenancy.services import socket_ticket_create
from tests.factories import SYSTEM, staff_user
from tests.fuzz.world import PARAM, build_world, database_connection_kept
from wallet.models import LedgerTransaction
from wallet.services import approval_propose

pytestmark = pytest.mark.django_db

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
WRITES = sorted(
    (method.upper(), path)
    for path, operations in SCHEMA["paths"].items()
    for method in operations
    if method in ("post", "put", "patch", "delete")
)
UNKNOWN = "zz_not_a_field"
# Rows a refused request may leave: its stored answer (replays get the same refusal), and
# the django-axes / session bookkeeping of authentication itself.
BOOKKEEPING = {IdempotencyRecord._meta.label, "sessions.Session"}
# Columns authentication stamps on a credential it accepted.
STAMPS = {"last_used_at", "last_seen_at", "last_login"}


def _database() -> dict[str, list[dict]]:
    """Every row of every table but the bookkeeping, to compare before and after."""
    return {
        model._meta.label: sorted(
            repr({k: v for k, v in row.items() if k not in STAMPS})
            for row in model.objects.values()
        )
        for model in apps.get_models()
        if model._meta.label not in BOOKKEEPING
        and not model._meta.label.startswith("axes.")
        and model._meta.managed
    }


@pytest.fixture
def world(settings, django_user_model):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with database_connection_kept():
        world = build_world(schema_paths=SCHEMA["paths"], django_user_model=django_user_model)
        _seed_approval(world)
        yield world


def _seed_approval(world) -> None:
    """A pending request (another admin's) for the approve and reject paths."""
    transaction = LedgerTransaction.objects.filter(pk__in=world.named["transaction_id"]).first()
    approval = approval_propose(
        kind="reversal",
        payload={"transaction_id": transaction.pk, "reference": "walk"},
        reason="the walk",
        user=staff_user("proposer", "admin"),
    )
    world.add("approval_id", approval.pk)


def _client(world, operation: dict) -> APIClient:
    client = APIClient()
    schemes = {name for requirement in operation.get("security", []) for name in requirement}
    if "operatorApiKey" in schemes:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {world.operator_key}")
    elif "playerToken" in schemes:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {world.player_token}")
    elif schemes & {"basicAuth", "cookieAuth"}:
        client.force_authenticate(staff_user("walker", "admin"))
    return client


def _url(world, path: str) -> str:
    def value(match):
        values = world.path_values(path, match.group(1))
        return values[0] if values else "1"

    return PARAM.sub(value, path)


@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
def test_every_write_refuses_an_undeclared_field(world, method, path):
    operation = SCHEMA["paths"][path][method.lower()]
    client, url = _client(world, operation), _url(world, path)
    before = _database()

    response = client.generic(
        method,
        url,
        data=f'{{"{UNKNOWN}": 1}}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"unknown-{method}-{path}",
    )

    assert response.status_code == 400, (url, response.content[:400])
    problem = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert problem["type"] == "/problems/unknown-fields"
    assert problem["fields"] == [UNKNOWN]
    assert UNKNOWN in problem["detail"]
    assert _database() == before, "a refused request changed something"


def test_the_walk_covers_writes_with_and_without_a_body():
    with_body = [w for w in WRITES if "requestBody" in SCHEMA["paths"][w[1]][w[0].lower()]]
    assert len(with_body) >= 25 and len(WRITES) - len(with_body) >= 15


def test_a_valid_room_with_options_this_version_lacks_is_refused_whole(operator_client, idem):
    body = {
        "name": "Typo room",
        "variant": "ftk",
        "stake": "1.00",
        "time_bank_seconds": 10,
        "auto_play_turns": 2,
    }
    response = operator_client.post("/api/v1/rooms", body, format="json", **idem())
    problem = response.json()
    assert response.status_code == 400 and problem["type"] == "/problems/unknown-fields"
    assert problem["fields"] == ["time_bank_seconds", "auto_play_turns"]
    assert "name" in problem["accepted"] and "turn_seconds" in problem["accepted"]
    assert not Room.objects.exists()

    del body["time_bank_seconds"], body["auto_play_turns"]
    assert operator_client.post("/api/v1/rooms", body, format="json", **idem()).status_code == 201


def test_read_only_and_empty_bodies_are_told_apart(operator_client, idem):
    """``{}`` is no body at all; a key an output has (``id``) is not an input."""
    secret = operator_client.post(
        "/api/v1/operators/me/signing-secrets", {}, format="json", **idem()
    )
    assert secret.status_code == 201
    response = operator_client.post(
        "/api/v1/players", {"external_ref": "p-1", "id": 7}, format="json", **idem()
    )
    assert response.status_code == 400 and response.json()["fields"] == ["id"]


def test_the_names_shown_are_bounded(operator_client, idem):
    body = {f"{'x' * 100}{n}": n for n in range(50)}
    problem = operator_client.post("/api/v1/players", body, format="json", **idem()).json()
    assert problem["type"] == "/problems/unknown-fields"
    assert len(problem["fields"]) == 10 and all(len(name) == 64 for name in problem["fields"])
    assert "and more" in problem["detail"]


# --- The match socket -----------------------------------------------------------------------
def _socket_messages(world, messages: list[dict]) -> list[dict]:
    match_id = world.named["match_id"][0]
    session = PlayerSession.objects.get(player=world.player)
    ticket = socket_ticket_create(session=session, actor=SYSTEM).ticket

    async def talk():
        communicator = WebsocketCommunicator(
            asgi_application,
            f"/ws/v1/matches/{match_id}?ticket={ticket}",
            headers=[(b"host", b"testserver")],
        )
        connected, _ = await communicator.connect()
        assert connected
        await communicator.receive_json_from(timeout=5)  # hello
        answers = []
        for message in messages:
            await communicator.send_json_to(message)
            answer = await communicator.receive_json_from(timeout=5)
            # The push of this socket's own arrival (presence) may come before any answer.
            while answer["type"] == "presence":
                answer = await communicator.receive_json_from(timeout=5)
            answers.append(answer)
        await communicator.disconnect()
        return answers

    return async_to_sync(talk)()


@pytest.mark.django_db(transaction=True)
def test_socket_messages_refuse_undeclared_fields(settings, django_user_model):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with database_connection_kept():
        world = build_world(schema_paths=SCHEMA["paths"], django_user_model=django_user_model)
    match = Match.objects.get(pk=world.named["match_id"][0])
    seq = match.seq
    answers = _socket_messages(
        world,
        [
            {"type": "action", "id": "a1", "kind": "draw_stock", "expected_seq": seq, UNKNOWN: 1},
            {"type": "resign", "id": "r1", "forever": True},
            {"type": "ping", "id": "p1", UNKNOWN: 1},
            {"type": "ping", "id": "p2"},
        ],
    )
    for answer, name in zip(answers[:3], (UNKNOWN, "forever", UNKNOWN), strict=True):
        assert answer["type"] == "error", answer
        assert answer["problem"]["type"] == "/problems/unknown-fields"
        assert answer["problem"]["fields"] == [name]
    assert [a["id"] for a in answers[:3]] == ["a1", "r1", "p1"]
    assert answers[3]["type"] == "pong"
    match.refresh_from_db()
    assert match.seq == seq and match.status != Match.Status.FINISHED
