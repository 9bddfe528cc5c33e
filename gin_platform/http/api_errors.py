"""Errors outside DRF's views (``MIDDLEWARE``, first): problem+json under the API's paths
whatever DEBUG says, and a refused Host that never shows a debug page.

DRF's views answer their own errors (gin_platform/http/problem_handler.py). Django answers the
rest, and how depends on DEBUG: an unknown URL is its technical 404 page (every URL pattern
listed) instead of ``handler404``, a crash its technical 500 page instead of
``handler500``, a SuspiciousOperation a debug page with status 400. So this middleware,
around every other one:

- Asks for the request's host before anything else does. A Host outside ALLOWED_HOSTS
  (DisallowedHost, raised by ``request.get_host()``, which SecurityMiddleware and
  CommonMiddleware call before any URL is resolved) is 400 ``host-not-allowed`` under the
  API's paths and a plain-text 400 elsewhere (the admin, the table page), with one log
  line and no traceback: any client can send any Host.
- Under the API's paths (``API_PATH_PREFIXES``), turns an exception a non-DRF view raises
  into its problem (``process_exception``: 404, 403, 400, 413 with the types DRF's views
  use), and an error response that is not JSON (Django's pages, technical or not: an
  unknown URL, a 405 of a plain view, a CSRF failure, a crash) into the problem of its
  status, keeping its headers (``Allow``, CORS, ...). A JSON error (the health check's 503)
  is left as it is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from http import HTTPStatus

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseBase

from gin_platform.http.middleware import problem_http_response
from gin_platform.http.parsers import request_too_large
from gin_platform.http.problem_handler import problem_for_django_exception
from gin_platform.http.problems import (
    PROBLEM_CONTENT_TYPE,
    BadRequestProblem,
    HostNotAllowedProblem,
    MethodNotAllowedProblem,
    NotAcceptableProblem,
    NotAuthenticatedProblem,
    NotFoundProblem,
    PermissionDeniedProblem,
    Problem,
    ServerErrorProblem,
    ThrottledProblem,
    UnsupportedMediaTypeProblem,
)

# Everything a client of the API calls: the API, the problem types' pages, the sockets'
# paths (over plain HTTP they are an unknown URL).
API_PATH_PREFIXES = ("/api/", "/problems/", "/ws/")

security_logger = logging.getLogger("django.security.DisallowedHost")

_PROBLEM_FOR_STATUS: dict[int, type[Problem]] = {
    400: BadRequestProblem,
    401: NotAuthenticatedProblem,
    403: PermissionDeniedProblem,
    404: NotFoundProblem,
    405: MethodNotAllowedProblem,
    406: NotAcceptableProblem,
    415: UnsupportedMediaTypeProblem,
    429: ThrottledProblem,
    500: ServerErrorProblem,
}


def is_api_path(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PATH_PREFIXES)


def problem_for_status(status: int, request: HttpRequest) -> Problem:
    """The problem of an error response that came without one, from its status alone."""
    if status == 404:
        return NotFoundProblem(f"No endpoint at {request.path}")
    if status == 405:
        return MethodNotAllowedProblem(f'Method "{request.method}" not allowed.')
    if status == 413:
        return request_too_large()
    problem_class = _PROBLEM_FOR_STATUS.get(status)
    if problem_class is not None:
        return problem_class()
    # A status Django never answers by itself: the status's own phrase, untyped.
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    problem = Problem(phrase)
    problem.status = status  # type: ignore[misc]
    return problem


def _is_json(response: HttpResponseBase) -> bool:
    media_type = response.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return media_type in ("application/json", PROBLEM_CONTENT_TYPE) or media_type.endswith("+json")


def _as_problem(response: HttpResponseBase, request: HttpRequest) -> HttpResponseBase:
    """The same response (status, headers, cookies) with the problem of its status as body."""
    problem = problem_for_status(response.status_code, request)
    body = json.dumps(problem.body(request.path), separators=(",", ":")).encode()
    if response.streaming:
        response.streaming_content = [body]  # type: ignore[attr-defined]
    else:
        response.content = body  # type: ignore[attr-defined]
    response["Content-Type"] = PROBLEM_CONTENT_TYPE
    if response.has_header("Content-Length"):
        response["Content-Length"] = str(len(body))
    return response


def _refused_host(request: HttpRequest) -> HttpResponse:
    host = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
    security_logger.warning("Refused a request for a host not in ALLOWED_HOSTS: %r", host[:200])
    if is_api_path(request):
        return problem_http_response(HostNotAllowedProblem(), request)
    return HttpResponseBadRequest("Bad Request (400)\n", content_type="text/plain; charset=utf-8")


class ApiErrorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        try:
            request.get_host()
        except DisallowedHost:
            return _refused_host(request)
        response = self.get_response(request)
        if response.status_code >= 400 and is_api_path(request) and not _is_json(response):
            return _as_problem(response, request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A non-DRF view's exception under the API's paths: its problem, as a DRF view's
        would be. Any other exception goes on to Django, which logs it (500); its page is
        then turned into ``server-error`` on the way out."""
        if not is_api_path(request):
            return None
        problem = problem_for_django_exception(exception)
        if problem is None:
            return None
        return problem_http_response(problem, request)
