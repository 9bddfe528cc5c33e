"""Routes of the hosted tournament page, mounted under /play/ by gin_platform.project.urls
beside the table page's."""

from django.urls import path

from tournaments.web import views

urlpatterns = [
    path("tournaments", views.TournamentPageView.as_view(), name="play-tournaments"),
    path(
        "tournaments/<int:tournament_id>",
        views.TournamentPageView.as_view(),
        name="play-tournament",
    ),
]
