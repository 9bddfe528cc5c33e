"""Every URL of the service. The one place (with settings) that knows every app."""

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from games.web.views import FaviconView
from gin_platform.api.docs import RedocBundleView, RedocView
from gin_platform.api.service_views import ProblemTypeDetailView
from gin_platform.http.error_views import problem_404, problem_500

# The resolver tries these in order, every pattern of an app before the next app's:
# matchmaking's one route first (games' lobby/<room_id> would take lobby/quick-seat for a room
# id), then the games routes (a move, a view: most of the traffic). No other route shadows
# another's (tests/platform/test_urls.py), so the order decides nothing else but the time.
api_v1: list[URLPattern | URLResolver] = [
    path("", include("matchmaking.urls")),
    path("", include("games.urls")),
    path("", include("gin_platform.api.urls")),
    path("", include("wallet.urls")),
    path("", include("settlement.urls")),
    path("", include("integrity.urls")),
    path("", include("protection.urls")),
    path("", include("tournaments.urls")),
    path("", include("ratings.urls")),
    path("", include("leaderboards.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path(
        "redoc/",
        RedocView.as_view(url_name="schema", template_name="platform/redoc.html"),
        name="redoc",
    ),
    # Redoc's bundle without the one asset it would load from Redocly's CDN (api/docs.py).
    path("redoc/redoc.standalone.js", RedocBundleView.as_view(), name="redoc-bundle"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    # Problem ``type`` URIs are relative (/problems/<slug>) and resolve to their description.
    path("problems/<slug:slug>", ProblemTypeDetailView.as_view(), name="problem-type"),
    path("admin/", admin.site.urls),
    # The hosted table page players open from their operator's launch URL (docs/play.md).
    path("play/", include("games.web.urls")),
    # Its tournament lobby and tournaments (docs/play.md "Tournaments"): tournaments' own.
    path("play/", include("tournaments.web.urls")),
    # Its leaderboards (docs/play.md "Leaderboards"): leaderboards' own.
    path("play/", include("leaderboards.web.urls")),
    path("favicon.ico", FaviconView.as_view(), name="favicon"),
]

handler404 = problem_404
handler500 = problem_500
