"""The service's own endpoints, open to anyone: the health probes and the problem types'
documentation (docs/api-errors.md)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.serializers import (
    HealthOutput,
    LivenessOutput,
    ProblemTypeOutput,
)
from gin_platform.health import health_report, server_kind
from gin_platform.http.permissions import IsStaff
from gin_platform.http.problems import (
    REGISTRY,
    NotFoundProblem,
    Problem,
)


class HealthView(APIView):
    """Readiness: the database and the broker answer. Never throttled (probes poll it).
    Anyone gets the verdicts; staff also get the reasons (gin_platform/health.py)."""

    permission_classes = (AllowAny,)
    throttle_classes = ()

    @extend_schema(
        responses={200: HealthOutput, 503: HealthOutput},
        tags=["health"],
        auth=[{"cookieAuth": []}, {"basicAuth": []}, {}],  # type: ignore[list-item]  # OpenAPI security requirements, which drf-spectacular takes as they are (its annotation says names)
        summary="Check readiness",
        description="No credentials needed: the readiness probe (database and broker). Staff "
        "(session or basic auth) also get the channel-layer check, `detail` and `server`.",
    )
    def get(self, request: Request) -> Response:
        body, healthy = health_report(
            detailed=IsStaff().has_permission(request, self), server=server_kind(request._request)
        )
        return Response(body, status=200 if healthy else 503)


class LivenessView(APIView):
    """Liveness: the process serves requests. Checks no dependency, so an outage of the
    database does not make an orchestrator restart healthy web processes."""

    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = ()

    @extend_schema(
        responses={200: LivenessOutput},
        tags=["health"],
        auth=[],
        summary="Check liveness",
        description="The process serves requests; checks no dependency (a database outage "
        "must not make an orchestrator restart healthy web processes). Never throttled.",
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


def _problem_type(problem: type[Problem]) -> dict:
    return {
        "type": problem.type_uri(),
        "slug": problem.slug,
        "status": problem.status,
        "title": str(problem.title),
        "description": problem.description or str(problem.title),
    }


class ProblemTypeListView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        responses=ProblemTypeOutput(many=True),
        tags=["problems"],
        auth=[],
        summary="List problem types",
        description="Every error `type` the API answers (RFC 9457 problem+json), with its "
        "status, title and what it means (docs/api-errors.md).",
    )
    def get(self, request: Request) -> Response:
        types = [_problem_type(p) for slug, p in sorted(REGISTRY.items()) if slug != "about-blank"]
        return Response(types)


class ProblemTypeDetailView(APIView):
    """What a problem ``type`` means: its URI ``/problems/<slug>`` resolves here."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        responses={200: ProblemTypeOutput, 404: OpenApiResponse(description="Unknown type")},
        tags=["problems"],
        auth=[],
        summary="Explain a problem type",
        description="What a problem `type` means: its URI `/problems/<slug>` resolves here.",
    )
    def get(self, request: Request, slug: str) -> Response:
        problem = REGISTRY.get(slug)
        if problem is None or slug == "about-blank":
            raise NotFoundProblem(f"No problem type {slug!r}")
        return Response(_problem_type(problem))
