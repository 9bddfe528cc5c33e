"""The API's JSON parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``): hostile bodies get
a clean 4xx before any view, serializer, idempotency record or database sees them.

- At most ``REQUEST_MAX_BODY_BYTES`` bytes (``DATA_UPLOAD_MAX_MEMORY_SIZE``, 256 KiB by
  default) are read; a longer body is 413 ``request-too-large``, whatever Content-Length
  said.
- Nesting deeper than ``MAX_JSON_DEPTH`` (32) levels is 400 ``malformed-request``. Python's
  json module would recurse until RecursionError on a body such as 100,000 ``[``, and code
  walking a parsed document (the idempotency fingerprint, jsonb storage) recurses too.
- A NUL character (U+0000) or an unpaired surrogate (``"\\ud800"``) in any key or string is
  400 ``malformed-request``: PostgreSQL stores neither in text or jsonb (the query would
  fail with a 500), and no field of this API has a use for them.
- NaN and Infinity are refused (not JSON), as DRF's strict parser does.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]  # DRF 3.18.3's (a security fix); djangorestframework-stubs 3.18.1 predates it
from rest_framework.utils.json import strict_constant

from gin_platform.http.problems import MalformedRequestProblem, RequestTooLargeProblem

MAX_JSON_DEPTH = 32
# NUL, and the surrogate range: in a str decoded from JSON these can only be unpaired
# "\\udXXX" escapes (a valid pair decodes to one astral character).
FORBIDDEN_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def max_body_bytes() -> int:
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def request_too_large() -> RequestTooLargeProblem:
    limit = max_body_bytes()
    return RequestTooLargeProblem(f"The request body is larger than {limit} bytes", limit=limit)


def check_json_document(document: Any, *, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise ``MalformedRequestProblem`` if ``document`` (parsed JSON) nests deeper than
    ``max_depth`` or holds a forbidden character in a key or string. Iterative: it never
    recurses, however deep the document."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_text(node)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            raise MalformedRequestProblem(
                f"The JSON body is nested more than {max_depth} levels deep"
            )
        if isinstance(node, dict):
            for key, value in node.items():
                _check_text(key)
                stack.append((value, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in node)


@dataclass(frozen=True)
class JsonShape:
    depth: int  # levels of objects and arrays: 0 for a scalar, 1 for {"a": 1}
    keys: int  # object keys, counted at every level


def json_shape(document: Any) -> JsonShape:
    """How deep ``document`` nests and how many object keys it holds (iterative)."""
    deepest, keys = 0, 0
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        items: Iterable[Any]
        if isinstance(node, dict):
            keys += len(node)
            items = node.values()
        elif isinstance(node, list):
            items = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((item, depth + 1) for item in items)
    return JsonShape(depth=deepest, keys=keys)


def _check_text(text: str) -> None:
    found = FORBIDDEN_CHARACTERS.search(text)
    if found is None:
        return
    if found.group() == "\x00":
        raise MalformedRequestProblem("The JSON body holds a NUL character (\\u0000)")
    raise MalformedRequestProblem("The JSON body holds an unpaired surrogate (\\ud800-\\udfff)")


class StrictJSONParser(JSONParser):
    """``application/json`` bodies, bounded in size and depth, without NUL characters."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        limit = max_body_bytes()
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise request_too_large()
        encoding = get_encoding(parser_context or {})
        try:
            text = codecs.decode(raw, encoding)
        except (LookupError, UnicodeDecodeError) as exc:
            raise MalformedRequestProblem(f"The body is not valid {encoding}: {exc}") from exc
        try:
            document = json.loads(text, parse_constant=strict_constant)
        except RecursionError as exc:
            raise MalformedRequestProblem(
                f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep"
            ) from exc
        except ValueError as exc:  # JSONDecodeError, NaN/Infinity, over-long integers
            raise MalformedRequestProblem(f"JSON parse error - {exc}") from exc
        check_json_document(document)
        return document
