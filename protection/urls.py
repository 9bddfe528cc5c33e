"""API routes of player protection, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from protection.api import harm_views, history_views, views

urlpatterns = routes(
    # Player session token: their own play session and reality checks.
    ("me/play-session", views.MyPlaySessionView, "me-play-session"),
    ("me/play-session/end", views.MyPlaySessionEndView, "me-play-session-end"),
    ("me/play-sessions", views.MyPlaySessionListView, "me-play-sessions"),
    ("me/reality-checks/<str:check_id>", views.MyRealityCheckView, "me-reality-check"),
    # Player session token: their own history (docs/player-protection.md "History").
    ("me/history/matches", history_views.MyMatchHistoryView, "me-history-matches"),
    ("me/history/transactions", history_views.MyMovementHistoryView, "me-history-transactions"),
    ("me/history/summary", history_views.MySummaryHistoryView, "me-history-summary"),
    # Operator API key: its player's play session.
    ("players/<str:player_id>/play-session", views.PlayerPlaySessionView, "player-play-session"),
    # Back-office staff (the risk role): the markers of harm (docs/player-protection.md).
    (
        "staff/protection/harm-rules",
        harm_views.StaffHarmRuleListView,
        "staff-protection-harm-rules",
    ),
    (
        "staff/protection/harm-rules/<str:code>",
        harm_views.StaffHarmRuleDetailView,
        "staff-protection-harm-rule",
    ),
    ("staff/protection/flags", harm_views.StaffHarmFlagListView, "staff-protection-flags"),
    # Operator API key: the history of one of its players, as the player reads it.
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
