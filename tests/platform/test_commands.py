"""The management commands that create an operator with its first key and open a network
room."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import Room
from gin_platform.models import AuditEvent, Operator
from tests.helpers import bearer_client

pytestmark = pytest.mark.django_db


def test_create_operator_prints_a_working_key_once():
    out = StringIO()
    call_command("create_operator", "acme", "--currency", "usd", "--key-only", stdout=out)
    key = out.getvalue().strip()
    assert Operator.objects.get(slug="acme").base_currency == "USD"
    client = bearer_client(key)
    assert client.get("/api/v1/operators/me").json()["slug"] == "acme"
    assert AuditEvent.objects.filter(action="operator.created", actor_type="system").exists()


def test_create_operator_refuses_duplicates_and_unknown_currencies():
    call_command("create_operator", "acme", stdout=StringIO())
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_operator", "acme", stdout=StringIO())
    with pytest.raises(CommandError, match="ZZZ"):
        call_command("create_operator", "other", "--currency", "ZZZ", stdout=StringIO())


def test_network_room_create_refuses_invalid_options_with_the_field_errors():
    """The options go through the one input validator (gin_platform.api.inputs.validated);
    what it refuses comes back as the fields' errors, nothing opened."""
    with pytest.raises(CommandError, match="create the network first"):
        call_command("network_room_create", '{"name": "Net", "variant": "ftk", "stake": "5"}')
    call_command("network_create", stdout=StringIO())
    with pytest.raises(CommandError) as refused:
        call_command("network_room_create", '{"name": "Net", "variant": "nope", "stake": "5"}')
    assert json.loads(str(refused.value)) == {"variant": ['"nope" is not a valid choice.']}
    assert not Room.objects.exists()
