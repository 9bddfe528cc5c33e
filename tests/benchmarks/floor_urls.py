"""The floor of the stack: the cheapest Django request that reads the database.

One primary-key SELECT through the ORM answered as JSON by a plain Django view: no DRF, no
authentication, no throttle, through the same ASGI server, middleware and database connection
handling as every API request. bench_actions.py measures it beside the trivial API endpoint
and the game action in one run, so each is a ratio to what any Django view costs here.
"""

from django.http import Http404, JsonResponse
from django.urls import include, path

from gin_platform.models import Operator


def floor(request, pk):
    row = Operator.objects.filter(pk=pk).values("id", "name").first()
    if row is None:
        raise Http404
    return JsonResponse(row)


urlpatterns = [
    path("bench/floor/<uuid:pk>", floor),
    path("", include("gin_platform.project.urls")),
]
