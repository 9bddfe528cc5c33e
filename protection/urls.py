"""API routes of player protection, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from protection.api import views

urlpatterns = routes(
    # Player session token: their own play session and reality checks.
    ("me/play-session", views.MyPlaySessionView, "me-play-session"),
    ("me/play-session/end", views.MyPlaySessionEndView, "me-play-session-end"),
    ("me/play-sessions", views.MyPlaySessionListView, "me-play-sessions"),
    ("me/reality-checks/<str:check_id>", views.MyRealityCheckView, "me-reality-check"),
    # Operator API key: its player's play session.
    ("players/<str:player_id>/play-session", views.PlayerPlaySessionView, "player-play-session"),
)
