"""JSON written on the hot paths: the REST answers (``CompactJSONRenderer``), every socket
message and push (``games.realtime.publisher.encode``).

orjson writes the same JSON as DRF's ``JSONRenderer`` with its ``JSONEncoder`` (the same
objects, keys in the same order, times as ISO 8601 with ``Z`` for UTC), four times faster: the
standard library's encoder hands every datetime back to a Python ``default``, and a move's
answers and pushes carry several (docs/benchmarks.md). Whatever orjson does not write itself
(Decimal, lazy translations, querysets) goes through DRF's own ``default``; whatever it
refuses (an integer past 64 bits) is written by the standard library as before. What a
client reads is the same document; only insignificant spelling may differ (non-ASCII as UTF-8
instead of ``\\u`` escapes on sockets, ``1e16`` for ``1e+16``). One value is not the same:
a float NaN or infinity, which DRF's strict renderer refuses, orjson writes as ``null``.
The platform writes none (amounts are integer minor units, the game's state integers and
card names), and tests/platform/test_json_text.py compares everything else with DRF.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS
_drf_default = JSONEncoder().default

# U+2028 and U+2029 are valid JSON but end a line in JavaScript: DRF escapes them, so do we.
_LINE_SEPARATORS = ("\u2028".encode(), "\u2029".encode())


def json_bytes(data: Any) -> bytes:
    """``data`` as compact UTF-8 JSON, as DRF's renderer writes it."""
    try:
        text = orjson.dumps(data, default=_drf_default, option=_OPTIONS)
    except orjson.JSONEncodeError:  # what orjson will not write (an integer past 64 bits)
        text = json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")).encode()
    if _LINE_SEPARATORS[0] in text or _LINE_SEPARATORS[1] in text:
        text = text.replace(_LINE_SEPARATORS[0], b"\\u2028").replace(
            _LINE_SEPARATORS[1], b"\\u2029"
        )
    return text


def json_str(data: Any) -> str:
    """``json_bytes`` as text (a socket's text frame)."""
    return json_bytes(data).decode()


class CompactJSONRenderer(JSONRenderer):
    """DRF's ``JSONRenderer`` writing through ``json_bytes``; an answer asked for indented
    (``Accept: application/json; indent=4``) is left to DRF's own."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        return json_bytes(data)
