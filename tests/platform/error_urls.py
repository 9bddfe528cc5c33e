"""The service's URLs plus plain Django views (not DRF) under /api/ and outside it, each
failing one way: what tests/platform/test_error_pages.py answers through the middleware."""

import psycopg
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST
from psycopg import errors as pg_errors
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from gin_platform.project import urls as service

handler404 = service.handler404
handler500 = service.handler500


def _raises(exception: Exception):
    def view(request):
        raise exception

    return view


def _database_error(cause: Exception) -> OperationalError:
    """What Django raises when psycopg does (``cause``), as its ``wrap_database_errors``."""
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


# The database gone (PostgreSQL stopped, PgBouncer restarting, a failover), and a statement's
# own failure, which stays a 500.
CONNECTION_LOST = psycopg.OperationalError("server closed the connection unexpectedly")
DEADLOCK = pg_errors.DeadlockDetected("deadlock detected")


class _DatabaseGoneApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)

    def get(self, request):
        raise _database_error(CONNECTION_LOST)


@require_POST
def _posted(request):  # CSRF-protected (not csrf_exempt, as DRF's views are)
    return HttpResponse("posted")


def _reads_the_body(request):
    return HttpResponse(str(len(request.body)))


urlpatterns = [
    path("api/v1/test-errors/not-found", _raises(Http404("no such thing"))),
    path("api/v1/test-errors/denied", _raises(PermissionDenied())),
    path("api/v1/test-errors/suspicious", _raises(SuspiciousOperation("a secret"))),
    path("api/v1/test-errors/too-big", _raises(RequestDataTooBig("too big"))),
    path("api/v1/test-errors/crash", _raises(RuntimeError("a bug"))),
    path("api/v1/test-errors/database-gone", _raises(_database_error(CONNECTION_LOST))),
    path("api/v1/test-errors/database-gone-api", _DatabaseGoneApi.as_view()),
    path("api/v1/test-errors/connection-closed", _raises(InterfaceError("connection closed"))),
    path("api/v1/test-errors/deadlock", _raises(_database_error(DEADLOCK))),
    path("api/v1/test-errors/posted", _posted),
    path("api/v1/test-errors/body", _reads_the_body),
    path("pages/crash", _raises(RuntimeError("a bug"))),
    *service.urlpatterns,
]
