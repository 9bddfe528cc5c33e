"""Integrity's API routes (mounted under /api/v1/ by gin_platform.project.urls)."""

from gin_platform.api.urls import routes
from integrity.api import views

urlpatterns = routes(
    ("players/<str:player_id>/links", views.PlayerLinkListCreateView, "player-link-list"),
    (
        "players/<str:player_id>/links/<str:link_id>",
        views.PlayerLinkDetailView,
        "player-link-detail",
    ),
    (
        "players/<str:player_id>/identifiers",
        views.PlayerIdentifierCreateView,
        "player-identifier-create",
    ),
)
