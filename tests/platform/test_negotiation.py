"""Content negotiation (gin_platform/http/negotiation.py): the common case's shortcut gives
what DRF's whole walk gives, and a format nobody serves is 406."""

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from gin_platform.http.json_text import CompactJSONRenderer
from gin_platform.http.negotiation import ContentNegotiation


class CSVLike(BaseRenderer):
    media_type = "text/csv"
    format = "csv"


ACCEPTS = [
    None,
    "*/*",
    "application/json",
    "text/csv",
    "application/*",
    "text/csv, application/json;q=0.5",
    "application/json; indent=4",
    "text/html, */*;q=0.1",
]
QUERIES = ["", "page=2", "format=json", "format=csv", "a=1&format=json"]


def request(accept, query):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    return Request(APIRequestFactory().get(f"/api/v1/things?{query}", **headers))


def answer(negotiation, req, renderers, suffix=None):
    try:
        renderer, media_type = negotiation.select_renderer(req, renderers, suffix)
    except Exception as exc:  # compared by kind
        return type(exc).__name__
    return type(renderer).__name__, media_type


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("suffix", [None, "json", "csv"])
@pytest.mark.parametrize("kinds", [(CompactJSONRenderer,), (CompactJSONRenderer, CSVLike)])
def test_the_shortcut_answers_as_drfs_walk(accept, query, suffix, kinds):
    renderers = [kind() for kind in kinds]
    ours = answer(ContentNegotiation(), request(accept, query), renderers, suffix)
    drfs = answer(DefaultContentNegotiation(), request(accept, query), renderers, suffix)
    if drfs == "Http404":  # the one place we differ on purpose: a format not served is 406
        assert ours == "NotAcceptable"
    else:
        assert ours == drfs
