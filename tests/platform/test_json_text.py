"""The JSON of the REST answers and the sockets (gin_platform/http/json_text.py): the same
documents DRF's renderer wrote, and every client message it read still read."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from gin_platform.http.json_text import CompactJSONRenderer, json_bytes, json_str

_drf = JSONRenderer()
_ours = CompactJSONRenderer()

_times = st.datetimes(
    min_value=datetime.datetime(1970, 1, 1), max_value=datetime.datetime(2100, 1, 1)
)
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    _times,
    _times.map(lambda t: t.replace(tzinfo=datetime.UTC)),
    _times.map(lambda t: t.replace(tzinfo=ZoneInfo("Europe/Madrid"))),
    st.dates(),
    st.uuids(),
    st.decimals(
        allow_nan=False, allow_infinity=False, places=2, max_value=10**9, min_value=-(10**9)
    ),
)
_documents = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(max_size=8), children, max_size=5),
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_documents)
def test_the_same_document_as_drfs_renderer(document):
    ours = _ours.render(document)
    theirs = _drf.render(document)
    if document is None:  # no body, as DRF
        assert ours == theirs == b""
        return
    assert json.loads(ours) == json.loads(theirs)


def test_times_are_written_as_drf_writes_them():
    moment = datetime.datetime(2026, 12, 7, 13, 5, 9, 120000, tzinfo=datetime.UTC)
    document = {
        "at": moment,
        "whole_second": moment.replace(microsecond=0),
        "madrid": moment.astimezone(ZoneInfo("Europe/Madrid")),
        "naive": moment.replace(tzinfo=None),
        "day": moment.date(),
        "amount": Decimal("12.50"),
        "id": uuid.UUID(int=7),
        "title": gettext_lazy("Not found."),
        "seats": (0, 1),
    }
    assert _ours.render(document) == _drf.render(document)
    assert b'"at":"2026-12-07T13:05:09.120000Z"' in _ours.render(document)


def test_line_separators_are_escaped_as_drf_escapes_them():
    document = {"name": "a\u2028b\u2029c", "other": "é"}
    assert _ours.render(document) == _drf.render(document)
    assert b"\\u2028" in json_bytes(document) and b"\\u2029" in json_bytes(document)


def test_what_orjson_refuses_is_written_by_the_standard_library():
    document = {"big": 2**70, "at": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)}
    assert json.loads(json_str(document)) == {"big": 2**70, "at": "2026-01-01T00:00:00Z"}
    assert _ours.render(document) == _drf.render(document)


def test_an_indented_answer_is_drfs_own():
    document = {"a": [1, 2]}
    media = "application/json; indent=2"
    assert _ours.render(document, media) == _drf.render(document, media)
    assert _ours.render(None) == b""
