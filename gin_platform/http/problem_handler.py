"""DRF's EXCEPTION_HANDLER: every error leaves as application/problem+json (RFC 9457)."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import (
    BadRequest,
    DisallowedHost,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from gin_platform.http.parsers import request_too_large
from gin_platform.http.problems import (
    PROBLEM_CONTENT_TYPE,
    AuthenticationFailedProblem,
    BadRequestProblem,
    DatabaseUnavailableProblem,
    HostNotAllowedProblem,
    MalformedRequestProblem,
    MethodNotAllowedProblem,
    NotAcceptableProblem,
    NotAuthenticatedProblem,
    NotFoundProblem,
    PermissionDeniedProblem,
    Problem,
    ServerErrorProblem,
    ThrottledProblem,
    UnsupportedMediaTypeProblem,
    ValidationProblem,
)

logger = logging.getLogger(__name__)

_DRF_TO_PROBLEM: tuple[tuple[type[exceptions.APIException], type[Problem]], ...] = (
    (exceptions.ValidationError, ValidationProblem),
    (exceptions.ParseError, MalformedRequestProblem),
    (exceptions.NotAuthenticated, NotAuthenticatedProblem),
    (exceptions.AuthenticationFailed, AuthenticationFailedProblem),
    (exceptions.PermissionDenied, PermissionDeniedProblem),
    (exceptions.NotFound, NotFoundProblem),
    (exceptions.MethodNotAllowed, MethodNotAllowedProblem),
    (exceptions.NotAcceptable, NotAcceptableProblem),
    (exceptions.UnsupportedMediaType, UnsupportedMediaTypeProblem),
    (exceptions.Throttled, ThrottledProblem),
)


def _problem_from_drf(exc: exceptions.APIException) -> Problem:
    for drf_class, problem_class in _DRF_TO_PROBLEM:
        if isinstance(exc, drf_class):
            if problem_class is ValidationProblem:
                return ValidationProblem(
                    gettext("One or more fields are invalid"), errors=_flatten_errors(exc.detail)
                )
            if isinstance(exc, exceptions.Throttled):  # ThrottledProblem's
                return ThrottledProblem(str(exc.detail), retry_after=exc.wait)  # type: ignore[attr-defined]  # set by Throttled.__init__; the stubs leave the attribute out
            return problem_class(str(exc.detail))
    problem = Problem(str(exc.detail))
    problem.status = exc.status_code  # type: ignore[misc]  # this problem's own: DRF's status for an exception with no problem type of its own
    return problem


def _flatten_errors(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {key: _flatten_errors(value) for key, value in detail.items()}
    if isinstance(detail, list):
        if all(isinstance(item, str) for item in detail):
            return [str(item) for item in detail]
        return [_flatten_errors(item) for item in detail]
    return [str(detail)]


def problem_response(problem: Problem, *, instance: str | None = None) -> Response:
    if problem.status < 500:  # a 5xx is logged where it arose
        # Django logs "Unprocessable Entity: <path>"; the problem's type says which refusal.
        logger.info("problem %s %s at %s", problem.status, problem.slug, instance)
    response = Response(problem.body(instance), status=problem.status)
    response.content_type = PROBLEM_CONTENT_TYPE
    for name, value in problem.headers().items():
        response[name] = value
    return response


# SQLSTATEs of a connection lost or refused by the server (class 08; an administrator's or a
# crash's shutdown, a server still starting): the database, not the request, failed.
_CONNECTION_STATES = ("08", "57P01", "57P02", "57P03")


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` is the database connection failing (no server, a connection cut, a
    pool with none to give, PgBouncer restarting), not an error of the statement: a
    deadlock or a serialization failure (40P01, 40001) is not, nor is any other error the
    server answered with."""
    if isinstance(exc, DatabaseInterfaceError):  # a connection already closed
        return True
    if not isinstance(exc, DatabaseOperationalError):
        return False
    state = getattr(exc.__cause__, "sqlstate", None)
    return state is None or state.startswith(_CONNECTION_STATES)


def problem_for_django_exception(exc: Exception) -> Problem | None:
    """The problem for an exception Django answers with a 4xx of its own (a page whose shape
    depends on DEBUG), or for the database connection failing (503 ``database-unavailable``:
    the client tries again, where a 500 says the request itself broke the server), or None
    for any other exception. One mapping for DRF's views (below) and for everything else
    under the API's paths (gin_platform/http/api_errors.py)."""
    if isinstance(exc, Problem):
        return exc
    if database_unreachable(exc):
        logger.warning("database unreachable: %s: %s", type(exc).__name__, exc)
        return DatabaseUnavailableProblem()
    if isinstance(exc, Http404):
        return NotFoundProblem()
    if isinstance(exc, DjangoPermissionDenied):
        return PermissionDeniedProblem()
    if isinstance(exc, RequestDataTooBig):  # request.body read past DATA_UPLOAD_MAX_MEMORY_SIZE
        return request_too_large()
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return MalformedRequestProblem(str(exc))
    if isinstance(exc, DisallowedHost):
        return HostNotAllowedProblem()
    # The message of the others may name what the attack aimed at: never echoed.
    if isinstance(exc, SuspiciousOperation | BadRequest | MultiPartParserError):
        return BadRequestProblem()
    return None


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """Render any exception raised in a DRF view as a problem response."""
    request = context.get("request")
    instance = request.get_full_path() if request is not None else None
    problem = problem_for_django_exception(exc)
    if problem is not None:
        return problem_response(problem, instance=instance)
    if isinstance(exc, exceptions.APIException):
        # Let DRF set its headers (e.g. Allow on 405) first, then replace the body.
        base = drf_exception_handler(exc, context)
        response = problem_response(_problem_from_drf(exc), instance=instance)
        if base is not None:
            for header in ("Allow",):
                if header in base:
                    response[header] = base[header]
        return response
    logger.exception("unhandled error", exc_info=exc)
    return problem_response(ServerErrorProblem(), instance=instance)
