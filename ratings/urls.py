"""API routes of ratings, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from ratings.api import views

urlpatterns = routes(
    # Player session token: their own ratings, and the ratings at a match they sit at.
    ("me/ratings", views.MyRatingsView, "me-ratings"),
    ("me/ratings/history", views.MyRatingHistoryView, "me-rating-history"),
    ("matches/<str:match_id>/ratings", views.MatchRatingsView, "match-ratings"),
    # Operator API key: one of its own players' ratings.
    ("players/<str:player_id>/ratings", views.PlayerRatingsView, "player-ratings"),
    (
        "players/<str:player_id>/ratings/history",
        views.PlayerRatingHistoryView,
        "player-rating-history",
    ),
)
