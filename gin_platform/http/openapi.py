"""drf-spectacular postprocessing hook: make the schema say what the API really answers.

drf-spectacular documents the success responses each view declares, lists every
authentication class on every operation, and knows nothing of our conventions. This hook,
run after generation (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``), adds for every
operation:

- the error responses it can give, as ``application/problem+json`` with the ``Problem``
  schema (RFC 9457, ``gin_platform.http.problems``): 400, 404, 406, 409 and 422 always (invalid
  input, not found, a ``format`` or Accept type it does not serve, a domain conflict or
  refusal, an Idempotency-Key in flight or reused);
  401 and 403 when it authenticates; 413 and 415 on writes (a body over the size limit, a
  body that is not JSON); 429 when it is throttled. Error responses a view already declares
  (such as 401 on an endpoint whose body carries the credential) keep their description and
  gain the problem+json body;
- ``security`` narrowed to the credentials its permission classes accept (``IsOperator``:
  the operator API key; ``IsPlayer``: the player token; ``IsStaff``: session or basic auth),
  and said as ``security: []`` where it takes none (health, launch, problems): absent, a
  reader (or a linter) cannot tell "public" from "forgot to say";
- the required ``Idempotency-Key`` header on operator writes (``@idempotent``), and the
  ``Idempotent-Replayed`` header their responses may carry;
- the ``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` headers on every
  response of a throttled operation but its 401 (gin_platform/http/throttling.py);
- ``additionalProperties: false`` on every request body object: the inputs refuse a key they
  do not declare (``unknown-fields``, gin_platform/api/inputs.py).

It also gives the webhooks (``SPECTACULAR_SETTINGS["WEBHOOKS"]``, OpenAPI 3.1: every type of
the catalogue, gin_platform/events/catalogue.py) the headers we send with them (event, delivery
id, signature, and the Standard Webhooks webhook-id, -timestamp and -signature), an
``operationId`` (``<event>_webhook``, for code generators) and ``security: []`` (the receiver
authenticates us by the signature headers, not by a security scheme), and says null the
OpenAPI 3.1 way everywhere (``_nullable_as_31``).

Views declare the examples of their refusals with ``problem_response`` and
``problem_example``: the body is the problem exactly as ``gin_platform.http.problems`` renders it,
and the hook files it under ``application/problem+json``.

The API-fuzzing suite (tests/fuzz/, docs/api-fuzzing.md) checks every response against it;
tests/platform/test_openapi_document.py checks that every operation teaches (summary,
description, examples) and that every webhook the code sends is documented.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.settings import spectacular_settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse

from gin_platform.events.webhooks import (
    SIGNATURE_HEADER,
    STANDARD_ID_HEADER,
    STANDARD_SIGNATURE_HEADER,
    STANDARD_TIMESTAMP_HEADER,
)
from gin_platform.http.idempotency import HEADER as IDEMPOTENCY_HEADER
from gin_platform.http.idempotency import MAX_KEY_LENGTH, REPLAY_HEADER
from gin_platform.http.permissions import IsOperator, IsOperatorOrPlayer, IsPlayer, IsStaff
from gin_platform.http.problems import PROBLEM_CONTENT_TYPE, Problem
from gin_platform.http.throttling import LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER

# A fresh one per write, e.g. a UUID (also what the fuzzer's example phase sends).
IDEMPOTENCY_KEY_EXAMPLE = "0f8b6a4e-5d0c-4c1b-9f57-2a9e3c7d1b64"
PROBLEM_COMPONENT = "Problem"
PROBLEM_REF = {"$ref": f"#/components/schemas/{PROBLEM_COMPONENT}"}
WRITE_METHODS = frozenset({"post", "put", "patch", "delete"})

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "RFC 9457 problem details. `type` is stable (`/problems/<slug>`, which serves its "
        "description; `GET /api/v1/problems` lists them all). Problems may carry extension "
        "members, such as `errors` (validation-error) or `retry_after` (throttled)."
    ),
    "properties": {
        "type": {"type": "string", "example": "/problems/not-found"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": "string", "description": "The request path"},
        "errors": {"description": "validation-error: each field mapped to its messages"},
        "retry_after": {
            "type": "number",
            "nullable": True,
            "description": "throttled: seconds to wait",
        },
    },
    "required": ["type", "title", "status", "detail"],
    "additionalProperties": True,
}

ERROR_DESCRIPTIONS = {
    "400": "The request is not valid (validation-error, unknown-fields, malformed-request, ...)",
    "401": "Authentication is required, or the credentials were not accepted",
    "403": "These credentials may not do this",
    "404": "Not found, or it belongs to another operator",
    "406": "Not acceptable: a `format` or Accept type this endpoint does not serve",
    "409": "Conflict, e.g. a request with this Idempotency-Key is still in flight",
    "413": "The request body is too large (request-too-large)",
    "415": "Unsupported media type: send JSON",
    "422": "Refused, e.g. the Idempotency-Key was used for a different request",
    "429": "Too many requests",
}

# Credentials each permission class accepts, by security scheme name
# (gin_platform.http.openapi_auth).
PERMISSION_SCHEMES: dict[type, frozenset[str]] = {
    IsOperator: frozenset({"operatorApiKey"}),
    IsPlayer: frozenset({"playerToken"}),
    IsOperatorOrPlayer: frozenset({"operatorApiKey", "playerToken"}),
    IsStaff: frozenset({"cookieAuth", "basicAuth"}),
}


_RATE_LIMIT_NOTE = (
    " Sent with every answer the rate limiter counted or refused (gin_platform/http/throttling.py; "
    "IETF draft httpapi-ratelimit-headers); absent when it let the request through unseen "
    "(cache unreachable) or refused the credentials first."
)
RATE_LIMIT_RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    LIMIT_HEADER: {
        "schema": {"type": "integer", "minimum": 0},
        "description": "Requests allowed per period (THROTTLE_*) for this caller."
        + _RATE_LIMIT_NOTE,
    },
    REMAINING_HEADER: {
        "schema": {"type": "integer", "minimum": 0},
        "description": "How many more requests would pass now; 0 on a 429." + _RATE_LIMIT_NOTE,
    },
    RESET_HEADER: {
        "schema": {"type": "integer", "minimum": 0},
        "description": "Seconds until nothing sent so far counts any more (Remaining back at "
        "Limit if no request comes meanwhile). On a 429, Retry-After says when the next "
        "single request passes." + _RATE_LIMIT_NOTE,
    },
}

# What we send with every webhook (gin_platform/events/webhooks.py, docs/webhooks.md).
WEBHOOK_HEADERS: list[dict[str, Any]] = [
    {
        "in": "header",
        "name": "X-Gin-Event",
        "required": True,
        "schema": {"type": "string"},
        "description": "The event type, as in the body's `type`.",
    },
    {
        "in": "header",
        "name": "X-Gin-Delivery",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
        "description": "The event id, as in the body's `id`: drop an id already processed "
        "(delivery is at least once).",
    },
    {
        "in": "header",
        "name": SIGNATURE_HEADER,
        "required": True,
        "schema": {"type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}$"},
        "description": 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + the raw body, '
        "keyed with the operator's webhook secret>. Reject a t more than 300 s from your "
        "clock; compare in constant time (docs/webhooks.md).",
    },
    # Standard Webhooks (https://www.standardwebhooks.com/): the same event, signed the
    # standard way, so any Standard Webhooks library verifies it (docs/webhooks.md).
    {
        "in": "header",
        "name": STANDARD_ID_HEADER,
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
        "description": "The event id, as in the body's `id` and X-Gin-Delivery.",
    },
    {
        "in": "header",
        "name": STANDARD_TIMESTAMP_HEADER,
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "Unix seconds when this attempt was signed (the t of X-Gin-Signature).",
    },
    {
        "in": "header",
        "name": STANDARD_SIGNATURE_HEADER,
        "required": True,
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/]{43}=$"},
        "description": 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw '
        'body>">, keyed with the UTF-8 bytes of the whole webhook secret (whsec_ included). '
        'A Standard Webhooks library takes the key as "whsec_" + base64(those bytes).',
    },
]


def problem_example(
    problem: type[Problem],
    detail: str,
    *,
    name: str | None = None,
    instance: str | None = None,
    **extensions: Any,
) -> OpenApiExample:
    """An example refusal: the problem+json body ``problem`` renders with this detail."""
    return OpenApiExample(
        name or problem.slug.replace("-", " "),
        summary=str(problem.title),
        value=problem(detail, **extensions).body(instance),
        response_only=True,
    )


def problem_response(description: str, *examples: OpenApiExample) -> OpenApiResponse:
    """An error response with example refusals (``problem_example``); the hook gives it the
    ``Problem`` schema under ``application/problem+json``."""
    return OpenApiResponse(OpenApiTypes.OBJECT, description=description, examples=list(examples))


def postprocess_schema(result: dict, generator, request, public: bool) -> dict:
    """POSTPROCESSING_HOOKS entry: see the module docstring."""
    views = _views_by_operation(generator, request)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(PROBLEM_COMPONENT, PROBLEM_SCHEMA)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in _HTTP_METHODS:
                continue
            view = views.get((path, method))
            if view is not None:
                _narrow_security(operation, view)
            operation.setdefault("security", [])  # no credentials taken: public
            declared = {s for s in operation.get("responses", {}) if s in ERROR_DESCRIPTIONS}
            for status in sorted(declared | set(_error_statuses(operation, view, method))):
                _add_problem_response(operation, status)
            if view is not None and _is_idempotent(view, method):
                _add_idempotency_header(operation)
            if view is not None and view.get_throttles():
                _add_rate_limit_headers(operation)
    _close_request_bodies(result)
    for event, operations in result.get("webhooks", {}).items():
        for method, operation in operations.items():
            if method in _HTTP_METHODS:
                _add_webhook_headers(operation, event)
                operation.setdefault("operationId", webhook_operation_id(event))
                operation.setdefault("security", [])
    if str(result.get("openapi", "")).startswith("3.1"):
        _nullable_as_31(result)
    return result


_HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


def _close_request_bodies(result: dict) -> None:
    """Every object a request body declares, nested ones included, takes no other key."""
    schemas = result.get("components", {}).get("schemas", {})
    pending = [
        media.get("schema", {})
        for operations in result.get("paths", {}).values()
        for method, operation in operations.items()
        if method in _HTTP_METHODS
        for media in operation.get("requestBody", {}).get("content", {}).values()
    ]
    seen: set[int] = set()
    while pending:
        schema = pending.pop()
        if id(schema) in seen or not isinstance(schema, dict):
            continue
        seen.add(id(schema))
        ref = schema.get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            pending.append(schemas.get(ref.rsplit("/", 1)[-1], {}))
            continue
        if "properties" in schema:
            schema.setdefault("additionalProperties", False)
            pending.extend(schema["properties"].values())
        for key in ("items", "allOf", "anyOf", "oneOf"):
            value = schema.get(key)
            pending.extend(value if isinstance(value, list) else [value] if value else [])


def _views_by_operation(generator, request) -> dict[tuple[str, str], Any]:
    """(path, method) -> the view instance that serves it, as drf-spectacular built it."""
    views: dict[tuple[str, str], Any] = {}
    # The same (path, view) pairs parse() iterated, with the same path coercion.
    for path, _regex, method, view in generator._get_paths_and_endpoints():
        view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, request)
        views[(path if path.startswith("/") else "/" + path, method.lower())] = view
    return views


def _error_statuses(operation: dict, view, method: str) -> list[str]:
    # Domain problems (409 conflicts, 422 refusals) can come from any view, reads included
    # (e.g. an unknown currency in the path).
    statuses = ["400", "404", "406", "409", "422"]
    authenticated = any(operation.get("security") or ())  # absent, [] or [{}]: anonymous
    if authenticated:
        statuses += ["401", "403"]
    if method in WRITE_METHODS:
        statuses += ["413", "415"]
    # Failed credentials are throttled wherever credentials are read, throttled view or not.
    if view is None or view.get_throttles() or authenticated:
        statuses.append("429")
    return sorted(statuses)


def _add_problem_response(operation: dict, status: str) -> None:
    responses = operation.setdefault("responses", {})
    response = responses.setdefault(status, {"description": ERROR_DESCRIPTIONS[status]})
    if not response.get("description"):
        response["description"] = ERROR_DESCRIPTIONS[status]
    # Whatever a view declared (problem_response: examples under application/json), errors
    # are problem+json with the Problem schema; the declared examples are kept.
    examples: dict[str, Any] = {}
    for media in response.get("content", {}).values():
        examples.update(media.get("examples", {}))
    response["content"] = {PROBLEM_CONTENT_TYPE: {"schema": PROBLEM_REF}}
    if examples:
        response["content"][PROBLEM_CONTENT_TYPE]["examples"] = examples
    headers = response.setdefault("headers", {})
    if status == "401":
        headers.setdefault(
            "WWW-Authenticate",
            {"schema": {"type": "string"}, "required": True, "description": "Bearer realm"},
        )
    if status == "429":
        headers.setdefault(
            "Retry-After",
            {"schema": {"type": "integer"}, "description": "Seconds to wait"},
        )
    if not headers:
        del response["headers"]


def _narrow_security(operation: dict, view) -> None:
    security = operation.get("security")
    if not security:
        return
    accepted: frozenset[str] | None = None
    for permission in view.get_permissions():
        schemes = next(
            (s for cls, s in PERMISSION_SCHEMES.items() if type(permission) is cls), None
        )
        if schemes is not None:
            accepted = schemes if accepted is None else accepted & schemes
    if not accepted:
        return  # no permission class we know, or none that could pass: leave it as generated
    narrowed = [req for req in security if req and set(req) <= accepted]
    if narrowed:
        operation["security"] = narrowed


def _is_idempotent(view, method: str) -> bool:
    actions = getattr(view, "action_map", None) or {}
    handler = getattr(type(view), actions.get(method, method), None)
    return bool(getattr(handler, "idempotent", False))


def _add_idempotency_header(operation: dict) -> None:
    parameters = operation.setdefault("parameters", [])
    for parameter in parameters:
        if (
            parameter.get("in") == "header"
            and parameter["name"].lower() == IDEMPOTENCY_HEADER.lower()
        ):
            parameter.setdefault("example", IDEMPOTENCY_KEY_EXAMPLE)
            break
    else:
        parameters.append(
            {
                "in": "header",
                "name": IDEMPOTENCY_HEADER,
                "required": True,
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH},
                "description": (
                    "Unique per operator write. A replay with the same method, path and body "
                    "returns the first response; another request with this key is 422."
                ),
                "example": IDEMPOTENCY_KEY_EXAMPLE,
            }
        )
    for status, response in operation.get("responses", {}).items():
        if status.startswith(("2", "4")):
            response.setdefault("headers", {}).setdefault(
                REPLAY_HEADER,
                {
                    "schema": {"type": "string", "enum": ["true"]},
                    "description": "Present when this is the stored response to a replay",
                },
            )


def _add_rate_limit_headers(operation: dict) -> None:
    for status, response in operation.get("responses", {}).items():
        if status == "401":  # credentials are refused before the throttle runs
            continue
        headers = response.setdefault("headers", {})
        for name, header in RATE_LIMIT_RESPONSE_HEADERS.items():
            headers.setdefault(name, header)


def webhook_operation_id(event: str) -> str:
    """``self_exclusion.started`` -> ``self_exclusion_started_webhook``: no path operation's
    id ends so (theirs end in the action: ``_list``, ``_create``, ...), so none collides."""
    return event.replace(".", "_") + "_webhook"


def _add_webhook_headers(operation: dict, event: str) -> None:
    parameters = operation.setdefault("parameters", [])
    named = {p.get("name") for p in parameters}
    for header in WEBHOOK_HEADERS:
        if header["name"] in named:
            continue
        if header["name"] == "X-Gin-Event":
            header = header | {"schema": {"type": "string", "const": event}}
        parameters.append(header)


def _nullable_as_31(node: Any) -> None:
    """Null as OpenAPI 3.1 (JSON Schema 2020-12) says it:

    - ``nullable: true`` (OpenAPI 3.0, in hand-made schemas such as DRF's paginated lists)
      becomes ``null`` among the types (or one of the alternatives);
    - ``oneOf: [X, {"type": "null"}]`` (drf-spectacular's nullable field in 3.1) becomes
      ``anyOf``: with ``oneOf`` a null that X also accepts (X a JSON field: anything) would
      match both alternatives and be refused."""
    if isinstance(node, list):
        for item in node:
            _nullable_as_31(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _nullable_as_31(value)
    if _NULL in node.get("oneOf", ()) and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
    if not isinstance(node.get("nullable"), bool):
        return
    if not node.pop("nullable"):
        return
    kind = node.get("type")
    if isinstance(kind, str):
        node["type"] = [kind, "null"]
    elif isinstance(kind, list):
        node["type"] = kind if "null" in kind else [*kind, "null"]
    else:
        alternative = {k: node.pop(k) for k in list(node) if k in _SCHEMA_SHAPE_KEYS}
        node["anyOf"] = [alternative, _NULL]
        return
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"].append(None)


_NULL = {"type": "null"}
_SCHEMA_SHAPE_KEYS = frozenset({"$ref", "allOf", "oneOf", "anyOf", "properties", "items"})
