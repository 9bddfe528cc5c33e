"""Fixtures of the platform's tests: the OpenAPI document (the document tests, its lint and
the webhook events' schemas read it), and the password checks a staff login makes."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.backends import ModelBackend
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.settings import spectacular_settings


@pytest.fixture(scope="module")
def document() -> dict:
    """The OpenAPI document exactly as `manage.py spectacular` generates it, as JSON: built
    afresh for each test module."""
    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(
        urlconf=None, api_version=None, patterns=None
    )
    schema = generator.get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(schema, renderer_context={}))


@pytest.fixture
def password_checks(monkeypatch) -> list:
    """The usernames whose password was checked, in order (ModelBackend.authenticate: the
    PBKDF2 hash, even for an unknown user)."""
    calls = []
    real = ModelBackend.authenticate

    def counting(self, request, username=None, password=None, **kwargs):
        calls.append(username)
        return real(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", counting)
    return calls
