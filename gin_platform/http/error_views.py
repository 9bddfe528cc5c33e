"""Django-level error handlers: unknown URLs and crashes also answer problem+json."""

import json

from django.http import HttpRequest, HttpResponse

from gin_platform.http.problems import PROBLEM_CONTENT_TYPE, NotFoundProblem, ServerErrorProblem


def problem_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    body = NotFoundProblem(f"No endpoint at {request.path}").body(instance=request.path)
    return HttpResponse(json.dumps(body), status=404, content_type=PROBLEM_CONTENT_TYPE)


def problem_500(request: HttpRequest) -> HttpResponse:
    body = ServerErrorProblem().body(instance=request.path)
    return HttpResponse(json.dumps(body), status=500, content_type=PROBLEM_CONTENT_TYPE)
