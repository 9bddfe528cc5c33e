"""Routes of the hosted leaderboard page, mounted under /play/ by gin_platform.project.urls
beside the table page's."""

from django.urls import path

from leaderboards.web import views

urlpatterns = [
    path("leaderboards", views.LeaderboardPageView.as_view(), name="play-leaderboards"),
]
