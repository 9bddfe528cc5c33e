"""Operators register the origins of their sites over the API: validated and normalised,
idempotent, audited, and scoped to the operator."""

import pytest
from django.contrib import admin

from gin_platform.http.cors import OriginError, normalize_origin
from gin_platform.models import AuditEvent, OperatorOrigin
from gin_platform.tenancy.services import operator_origin_create
from tests.factories import SYSTEM, OperatorFactory, admin_login
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db
ORIGINS = "/api/v1/operators/me/origins"


def add(client, idem, origin):
    return client.post(ORIGINS, {"origin": origin}, format="json", **idem())


# --- Normalisation (pure) ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "normalized"),
    [
        ("https://casino.example.com", "https://casino.example.com"),
        ("HTTPS://Casino.Example.COM/", "https://casino.example.com"),
        ("https://casino.example.com:443", "https://casino.example.com"),
        ("https://casino.example.com:8443", "https://casino.example.com:8443"),
        ("  https://casino.example.com  ", "https://casino.example.com"),
        ("https://bücher.example", "https://xn--bcher-kva.example"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("http://127.0.0.1", "http://127.0.0.1"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_an_origin_is_normalised_as_browsers_write_it(value, normalized):
    assert normalize_origin(value, allow_http_localhost=True) == normalized


@pytest.mark.parametrize(
    "value",
    [
        "",
        "casino.example.com",
        "ftp://casino.example.com",
        "https://*.example.com",
        "*",
        "https://casino.example.com/play",
        "https://casino.example.com/?x=1",
        "https://casino.example.com#top",
        "https://user:pw@casino.example.com",
        "https://casino.example.com:99999",
        "https://casino.example.com:0",
        "https://exa mple.com",
        "https://-bad-.example.com",
        "http://casino.example.com",  # http only for localhost
        "null",
        "https://" + "a" * 300 + ".com",
    ],
)
def test_anything_else_is_refused_with_a_reason(value):
    with pytest.raises(OriginError) as refused:
        normalize_origin(value, allow_http_localhost=True)
    assert str(refused.value)


def test_production_takes_https_only_even_for_localhost():
    with pytest.raises(OriginError, match="https"):
        normalize_origin("http://localhost:3000", allow_http_localhost=False)
    assert normalize_origin("https://localhost", allow_http_localhost=False) == (
        "https://localhost"
    )


# --- The API ---------------------------------------------------------------------------------
def test_register_list_and_delete_an_origin_audited(operator, operator_client, idem):
    created = add(operator_client, idem, "https://Casino.example.com/")

    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"id", "origin", "created_at"}
    assert body["origin"] == "https://casino.example.com"
    listing = operator_client.get(ORIGINS).json()["results"]
    assert [row["origin"] for row in listing] == ["https://casino.example.com"]
    created_event = AuditEvent.objects.get(action="operator_origin.created")
    assert created_event.operator == operator
    assert created_event.object_id == str(body["id"])
    assert created_event.data == {"origin": "https://casino.example.com"}

    deleted = operator_client.delete(f"{ORIGINS}/{body['id']}", **idem())

    assert deleted.status_code == 204
    assert not OperatorOrigin.objects.exists()
    deleted_event = AuditEvent.objects.get(action="operator_origin.deleted")
    assert deleted_event.object_id == str(body["id"])
    assert deleted_event.data == {"origin": "https://casino.example.com"}


def test_a_bad_origin_is_422_origin_invalid_naming_the_field(operator_client, idem):
    body = assert_problem(
        add(operator_client, idem, "https://casino.example.com/lobby"), 422, "origin-invalid"
    )
    assert body["field"] == "origin"
    assert "path" in body["detail"]
    assert not OperatorOrigin.objects.exists()
    assert not AuditEvent.objects.filter(action="operator_origin.created").exists()


def test_plain_http_is_refused_in_production_even_for_localhost(operator_client, idem, settings):
    settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST = False  # GIN_ENV=production
    assert_problem(add(operator_client, idem, "http://localhost:3000"), 422, "origin-invalid")
    settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST = True  # development and test
    assert add(operator_client, idem, "http://localhost:3000").status_code == 201
    assert_problem(add(operator_client, idem, "http://casino.example.com"), 422, "origin-invalid")


def test_registering_an_origin_twice_is_409_with_its_id(operator_client, idem):
    first = add(operator_client, idem, "https://casino.example.com")
    again = add(operator_client, idem, "https://CASINO.example.com:443")
    body = assert_problem(again, 409, "origin-exists")
    assert body["id"] == first.json()["id"]
    assert OperatorOrigin.objects.count() == 1


def test_a_replayed_registration_returns_the_first_answer(operator_client, idem):
    headers = idem()
    first = operator_client.post(
        ORIGINS, {"origin": "https://casino.example.com"}, format="json", **headers
    )
    again = operator_client.post(
        ORIGINS, {"origin": "https://casino.example.com"}, format="json", **headers
    )
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert AuditEvent.objects.filter(action="operator_origin.created").count() == 1


def test_writes_need_an_idempotency_key(operator_client):
    response = operator_client.post(ORIGINS, {"origin": "https://a.example"}, format="json")
    assert_problem(response, 400, "idempotency-key-missing")
    origin = operator_origin_create(
        operator=OperatorFactory(), origin="https://a.example", actor=SYSTEM
    )
    assert_problem(operator_client.delete(f"{ORIGINS}/{origin.pk}"), 400, "idempotency-key-missing")


def test_a_replayed_delete_answers_204_again_and_deletes_nothing_more(
    operator, operator_client, idem
):
    origin = operator_origin_create(operator=operator, origin="https://a.example", actor=SYSTEM)
    headers = idem()
    first = operator_client.delete(f"{ORIGINS}/{origin.pk}", **headers)
    again = operator_client.delete(f"{ORIGINS}/{origin.pk}", **headers)
    assert first.status_code == again.status_code == 204
    assert again["Idempotent-Replayed"] == "true"
    assert AuditEvent.objects.filter(action="operator_origin.deleted").count() == 1
    assert_problem(operator_client.delete(f"{ORIGINS}/{origin.pk}", **idem()), 404, "not-found")


def test_an_operator_neither_sees_nor_deletes_another_operators_origins(
    operator, operator_client, idem
):
    other = OperatorFactory()
    theirs = operator_origin_create(operator=other, origin="https://theirs.example", actor=SYSTEM)
    operator_origin_create(operator=operator, origin="https://mine.example", actor=SYSTEM)

    listing = operator_client.get(ORIGINS).json()["results"]
    deleted = operator_client.delete(f"{ORIGINS}/{theirs.pk}", **idem())

    assert [row["origin"] for row in listing] == ["https://mine.example"]
    assert_problem(deleted, 404, "not-found")
    assert OperatorOrigin.objects.filter(pk=theirs.pk).exists()
    # Both operators may register the same origin (a shared network site).
    assert add(operator_client, idem, "https://theirs.example").status_code == 201


def test_players_cannot_manage_origins(player_client):
    assert_problem(player_client.get(ORIGINS), 403, "permission-denied")


def test_staff_read_origins_per_operator_in_the_admin(client, django_user_model, operator):
    operator_origin_create(operator=operator, origin="https://casino.example.com", actor=SYSTEM)
    user = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    admin_login(client, user)

    changelist = client.get(f"/admin/platform/operatororigin/?operator__id__exact={operator.pk}")
    operator_page = client.get(f"/admin/platform/operator/{operator.pk}/change/")

    assert changelist.status_code == 200 and b"https://casino.example.com" in changelist.content
    assert operator_page.status_code == 200
    assert b"https://casino.example.com" in operator_page.content
    origin_admin = admin.site._registry[OperatorOrigin]
    assert not origin_admin.has_add_permission(None)
    assert not origin_admin.has_change_permission(None)
    assert not origin_admin.has_delete_permission(None)
