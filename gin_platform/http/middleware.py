"""Request hygiene before any view (``MIDDLEWARE``): refusals that hold for every endpoint.

- A declared ``Content-Length`` above ``REQUEST_MAX_BODY_BYTES`` is 413
  ``request-too-large`` at once, before authentication reads or signs the body. (The JSON
  parser also stops reading at the limit, for a body that lies about its length.)
- A NUL character in the path (``/players/%00``), the query string (``?cursor=%00``) or a
  header value is 400 ``malformed-request``: PostgreSQL cannot compare or store text
  holding one, so any id, filter, cursor or key carrying it, and any record of the request
  (an idempotency record, a lockout's failed attempt, an audit row), would otherwise fail
  deep inside a query with a 500.

Both answer RFC 9457 problem+json like every other error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.http import HttpRequest, HttpResponse

from gin_platform.http.parsers import max_body_bytes, request_too_large
from gin_platform.http.problems import PROBLEM_CONTENT_TYPE, MalformedRequestProblem, Problem


def problem_http_response(problem: Problem, request: HttpRequest) -> HttpResponse:
    body = json.dumps(problem.body(request.path), separators=(",", ":"))
    response = HttpResponse(body, status=problem.status, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in problem.headers().items():  # Retry-After, WWW-Authenticate
        response[name] = value
    return response


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _nul_in_request(request: HttpRequest) -> str | None:
    if "\x00" in request.path_info:
        return "The path holds a NUL character (%00)"
    if b"\x00" in unquote_to_bytes(request.META.get("QUERY_STRING", "")):
        return "The query string holds a NUL character (%00)"
    for name, value in request.META.items():
        if (name.startswith("HTTP_") or name == "CONTENT_TYPE") and "\x00" in str(value):
            header = name.removeprefix("HTTP_").replace("_", "-").title()
            return f"The {header} header holds a NUL character"
    return None


class RequestHygieneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _declared_length(request) > max_body_bytes():
            return problem_http_response(request_too_large(), request)
        nul = _nul_in_request(request)
        if nul is not None:
            return problem_http_response(MalformedRequestProblem(nul), request)
        return self.get_response(request)
