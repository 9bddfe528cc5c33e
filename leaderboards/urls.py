"""API routes of leaderboards, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from leaderboards.api import views

urlpatterns = routes(
    # An operator API key or a player session token: a board, a page at a time.
    ("leaderboards", views.LeaderboardView, "leaderboards"),
    # Player session token: staying off the boards.
    ("me/leaderboard-opt-out", views.MyLeaderboardOptOutView, "me-leaderboard-opt-out"),
)
