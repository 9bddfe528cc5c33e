"""Fixtures of the platform's tests: the OpenAPI document (the document tests, its lint and
the webhook events' schemas read it)."""

from __future__ import annotations

import json

import pytest
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
