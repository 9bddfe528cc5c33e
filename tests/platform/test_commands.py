"""The management command that creates an operator with its first key."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from gin_platform.models import AuditEvent, Operator

pytestmark = pytest.mark.django_db


def test_create_operator_prints_a_working_key_once():
    out = StringIO()
    call_command("create_operator", "acme", "--currency", "usd", "--key-only", stdout=out)
    key = out.getvalue().strip()
    assert Operator.objects.get(slug="acme").base_currency == "USD"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/operators/me").json()["slug"] == "acme"
    assert AuditEvent.objects.filter(action="operator.created", actor_type="system").exists()


def test_create_operator_refuses_duplicates_and_unknown_currencies():
    call_command("create_operator", "acme", stdout=StringIO())
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_operator", "acme", stdout=StringIO())
    with pytest.raises(CommandError, match="ZZZ"):
        call_command("create_operator", "other", "--currency", "ZZZ", stdout=StringIO())
