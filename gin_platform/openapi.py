"""drf-spectacular postprocessing hook: make the schema say what the API really answers.

drf-spectacular documents the success responses each view declares, lists every
authentication class on every operation, and knows nothing of our conventions. This hook,
run after generation (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``), adds for every
operation:

- the error responses it can give, as ``application/problem+json`` with the ``Problem``
  schema (RFC 9457, ``gin_platform.problems``): 400, 404, 406, 409 and 422 always (invalid
  input, not found, a ``format`` or Accept type it does not serve, a domain conflict or
  refusal, an Idempotency-Key in flight or reused);
  401 and 403 when it authenticates; 413 and 415 on writes (a body over the size limit, a
  body that is not JSON); 429 when it is throttled. Error responses a view already declares
  (such as 401 on an endpoint whose body carries the credential) keep their description and
  gain the problem+json body;
- ``security`` narrowed to the credentials its permission classes accept (``IsOperator``:
  the operator API key; ``IsPlayer``: the player token; ``IsStaff``: session or basic auth);
- the required ``Idempotency-Key`` header on operator writes (``@idempotent``), and the
  ``Idempotent-Replayed`` header their responses may carry.

The API-fuzzing suite (tests/fuzz/, docs/api-fuzzing.md) checks every response against it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.settings import spectacular_settings

from gin_platform.idempotency import HEADER as IDEMPOTENCY_HEADER
from gin_platform.idempotency import MAX_KEY_LENGTH, REPLAY_HEADER
from gin_platform.permissions import IsOperator, IsOperatorOrPlayer, IsPlayer, IsStaff
from gin_platform.problems import PROBLEM_CONTENT_TYPE

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
    "400": "The request is not valid (validation-error, malformed-request, ...)",
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

# Credentials each permission class accepts, by security scheme name (gin_platform.schema).
PERMISSION_SCHEMES: dict[type, frozenset[str]] = {
    IsOperator: frozenset({"operatorApiKey"}),
    IsPlayer: frozenset({"playerToken"}),
    IsOperatorOrPlayer: frozenset({"operatorApiKey", "playerToken"}),
    IsStaff: frozenset({"cookieAuth", "basicAuth"}),
}


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
            declared = {s for s in operation.get("responses", {}) if s in ERROR_DESCRIPTIONS}
            for status in sorted(declared | set(_error_statuses(operation, view, method))):
                _add_problem_response(operation, status)
            if view is not None and _is_idempotent(view, method):
                _add_idempotency_header(operation)
    return result


_HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


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
    if "content" not in response:
        response["content"] = {PROBLEM_CONTENT_TYPE: {"schema": PROBLEM_REF}}
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
    if not any(
        p.get("in") == "header" and p.get("name", "").lower() == IDEMPOTENCY_HEADER.lower()
        for p in parameters
    ):
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
