"""API routes of the protection app, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from protection.api import history_views

urlpatterns = routes(
    # Player session token: their own history (docs/player-protection.md "History").
    ("me/history/matches", history_views.MyMatchHistoryView, "me-history-matches"),
    ("me/history/transactions", history_views.MyMovementHistoryView, "me-history-transactions"),
    ("me/history/summary", history_views.MySummaryHistoryView, "me-history-summary"),
    # Operator API key: the same for one of its players.
    (
        "players/<str:player_id>/history/matches",
        history_views.PlayerMatchHistoryView,
        "player-history-matches",
    ),
    (
        "players/<str:player_id>/history/transactions",
        history_views.PlayerMovementHistoryView,
        "player-history-transactions",
    ),
    (
        "players/<str:player_id>/history/summary",
        history_views.PlayerSummaryHistoryView,
        "player-history-summary",
    ),
)
